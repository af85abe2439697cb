/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench check: loads scenario files the way `run` will, and says for
 * each whether it is good, or exactly where it is not. Nothing is run.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "core/gate/verdict.h"
#include "core/scenario/scenario.h"

#define CMD "check"

struct check_args {
	const char *tag;
};

const struct cli_option cli_check_options[] = {
    {'t', "tag", "TAG",
     "print only the paths of the good scenarios tagged TAG, one a line (for scripts: make "
     "check-perf uses 'ci')",
     CLI_STRING(struct check_args, tag)},
    {0},
};

/* "ok (NAME: N services, M runs, tags a, b)" */
static void print_ok(const char *path, const struct scenario *s)
{
	printf("%s: ok (%s: %zu service%s, %u run%s", path, s->name, s->nservices,
	       s->nservices == 1 ? "" : "s", s->runs, s->runs == 1 ? "" : "s");
	for (size_t i = 0; i < s->ntags; i++)
		printf("%s%s", i ? ", " : ", tags ", s->tags[i]);
	printf(")\n");
}

/* A scenario whose runs are too few for any test: `run --gate` on it can
 * never fail (check-perf makes min_runs per side all the same). */
static void warn_no_verdict(const char *path, const struct scenario *s)
{
	unsigned min = s->gate.min_runs ? s->gate.min_runs : WPERF_GATE_MIN_RUNS;

	if (s->runs < min)
		cli_warn(CMD,
			 "%s: runs: %u is below the %u runs per side a test of the gate needs, "
			 "so 'run --gate' can never fail on it ('check-perf' makes %u); set "
			 "runs: %u",
			 path, s->runs, min, min, min);
}

int cmd_check(int argc, char **argv)
{
	struct check_args args = {0};
	/* Placeholders: check runs nothing, so no results folder exists yet. */
	const struct scenario_vars vars = {
	    .results_dir = "<results>", .build_dir = "build", .env = environ};
	int status = cli_parse(CMD, &cli_check_help, argc, argv, &args);

	if (status >= 0)
		return status;
	status = EXIT_OK;
	for (int i = optind; i < argc; i++) {
		struct wperf_error err = {0};
		struct scenario *s;

		if (scenario_load(argv[i], &vars, &s, &err) < 0) {
			status = cli_error(CMD, "%s", err.msg);
			continue;
		}
		if (!args.tag)
			print_ok(argv[i], s);
		else if (scenario_has_tag(s, args.tag))
			printf("%s\n", argv[i]);
		warn_no_verdict(argv[i], s);
		scenario_free(s);
	}
	fflush(stdout);
	return status;
}
