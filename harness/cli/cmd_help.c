/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench help: a command's usage, and what is written from the same
 * tables for the system: man pages and shell completion (make man, make
 * completion).
 */
#include <stdio.h>

#include "harness/cli/cli.h"
#include "harness/cli/help.h"

#define CMD "help"

struct help_args {
	int man, list;
	const char *completion;
};

const struct cli_option cli_help_options[] = {
    {0, "man", NULL, "the man page of COMMAND (without: wperf-bench(1)), in roff",
     CLI_FLAG(struct help_args, man)},
    {0, "completion", "SHELL", "the completion script for bash or zsh",
     CLI_STRING(struct help_args, completion)},
    {0, "list", NULL, "the commands' names, one a line", CLI_FLAG(struct help_args, list)},
    {0},
};

int cmd_help(int argc, char **argv)
{
	struct help_args args = {0};
	const struct cli_command *cmd = NULL;
	int status = cli_parse(CMD, &cli_help_help, argc, argv, &args);

	if (status >= 0)
		return status;
	if (optind < argc && !(cmd = cli_find_command(argv[optind])))
		return cli_unknown_command(CMD, argv[optind]);
	if (args.completion) {
		if (cli_completion(args.completion, stdout) < 0)
			return cli_usage_error(CMD, "--completion is bash or zsh, not '%s'",
					       args.completion);
	} else if (args.list) {
		for (size_t i = 0; cli_commands[i].name; i++)
			printf("%s\n", cli_commands[i].name);
	} else if (args.man) {
		if (cmd)
			cli_man_page(cmd, stdout);
		else
			cli_man_program(stdout);
	} else if (cmd) {
		cli_usage(cmd->name, cmd->help, stdout);
	} else {
		cli_program_usage(stdout);
	}
	return EXIT_OK;
}
