/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench: finds the waiting events that cap a multi-threaded program's
 * throughput. This file only dispatches to the sub-commands (cmd_*.c).
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"record", cmd_record, "record the machine's waiting events into a trace"},
    {"info", cmd_info, "describe a trace: header, window, counts, drops, threads"},
    {"dump", cmd_dump, "print a trace's events as text, one a line"},
    {"report", cmd_report, "analyze a trace: the knots that bound the throughput"},
    {"check", cmd_check, "check scenario files without running them"},
    {"run", cmd_run, "run a scenario: services, load, recording, analysis, gate"},
    {"compare", cmd_compare, "judge results against their baseline: the verdict"},
    {"baseline", cmd_baseline, "baseline update: make a scenario's baseline"},
    {"ab", cmd_ab, "the base commit against the work tree, run in turns: the verdict"},
    {"check-perf", cmd_check_perf, "the gate over every scenario of a tag, for CI"},
    {"history", cmd_history, "a baseline across the commits that changed it, plotted"},
    {"post", cmd_post, "post the verdicts as a pull-request comment and a job summary"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: wperf-bench COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'wperf-bench COMMAND --help' describes a command.\n"
		     "Exit status: 0 success, 1 the gate failed, 2 error.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return argc < 2 ? EXIT_ERROR : EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("wperf-bench %s\n", WPERF_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "wperf-bench: '%s' is not a command\n\n", argv[1]);
	usage(stderr);
	return EXIT_ERROR;
}
