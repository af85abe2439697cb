/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench check: loads scenario files the way `run` will, and says for
 * each whether it is good, or exactly where it is not. Nothing is run.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "scenario.h"

#define CMD "check"

static void usage(FILE *out)
{
	fprintf(out, "usage: wperf-bench check SCENARIO...\n"
		     "\n"
		     "Reads each SCENARIO (docs/scenarios.md) and checks its keys, types, values,\n"
		     "regexes and variables, without running anything. ${RESULTS_DIR} stands for\n"
		     "\"<results>\" and ${BUILD_DIR} for \"build\".\n"
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

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	/* Placeholders: check runs nothing, so no results folder exists yet. */
	const struct scenario_vars vars = {.results_dir = "<results>", .build_dir = "build"};
	int c, status = EXIT_OK;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		usage(c == 'h' ? stdout : stderr);
		return c == 'h' ? EXIT_OK : EXIT_ERROR;
	}
	if (optind == argc) {
		usage(stderr);
		return EXIT_ERROR;
	}
	for (int i = optind; i < argc; i++) {
		struct wperf_error err = {0};
		struct scenario *s;

		if (scenario_load(argv[i], &vars, &s, &err) < 0) {
			status = cli_error(CMD, "%s", err.msg);
			continue;
		}
		print_ok(argv[i], s);
		scenario_free(s);
	}
	fflush(stdout);
	return status;
}
