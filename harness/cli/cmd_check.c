/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench check: loads scenario files the way `run` will, and says for
 * each whether it is good, or exactly where it is not. Nothing is run.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "core/gate/verdict.h"
#include "harness/run/scenario.h"

#define CMD "check"

static void usage(FILE *out)
{
	fprintf(out, "usage: wperf-bench check [--tag TAG] SCENARIO...\n"
		     "\n"
		     "Reads each SCENARIO (docs/scenarios.md) and checks its keys, types, values,\n"
		     "regexes and variables, without running anything. ${RESULTS_DIR} stands for\n"
		     "\"<results>\" and ${BUILD_DIR} for \"build\".\n"
		     "\n"
		     "options:\n"
		     "  -t, --tag TAG   print only the paths of the good scenarios tagged TAG,\n"
		     "                  one a line (for scripts: make check-perf uses 'ci')\n"
		     "  -h, --help      this text\n"
		     "\n"
		     "A scenario with fewer runs than its gate's min_runs is good, with a\n"
		     "warning: 'run --gate' can never fail on it.\n"
		     "\n"
		     "Exit status: 0 all are good, 2 one is not.\n");
}

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
	static const struct option longopts[] = {{"tag", required_argument, NULL, 't'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	const char *tag = NULL;
	/* Placeholders: check runs nothing, so no results folder exists yet. */
	const struct scenario_vars vars = {.results_dir = "<results>", .build_dir = "build"};
	int c, status = EXIT_OK;

	while ((c = getopt_long(argc, argv, "t:h", longopts, NULL)) != -1) {
		if (c == 't') {
			tag = optarg;
			continue;
		}
		return cli_other_option(c, usage);
	}
	if (cli_some_operands(argc, usage))
		return EXIT_ERROR;
	for (int i = optind; i < argc; i++) {
		struct wperf_error err = {0};
		struct scenario *s;

		if (scenario_load(argv[i], &vars, &s, &err) < 0) {
			status = cli_error(CMD, "%s", err.msg);
			continue;
		}
		if (!tag)
			print_ok(argv[i], s);
		else if (scenario_has_tag(s, tag))
			printf("%s\n", argv[i]);
		warn_no_verdict(argv[i], s);
		scenario_free(s);
	}
	fflush(stdout);
	return status;
}
