/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench: finds the waiting events that cap a multi-threaded program's
 * throughput. This file only dispatches to the sub-commands (commands.c).
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"

int main(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		cli_error(NULL, "missing COMMAND");
		cli_program_usage(stderr);
		return EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_program_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("wperf-bench %s\n", WPERF_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if ((cmd = cli_find_command(argv[1])))
		return cmd->run(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return cli_usage_error(NULL, "unknown option '%s'", argv[1]);
	return cli_unknown_command(NULL, argv[1]);
}
