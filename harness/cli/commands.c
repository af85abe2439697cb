/* SPDX-License-Identifier: MIT */
/*
 * The sub-commands, in the order the command list shows them: main
 * dispatches by this table, and the man pages and shell completion
 * (help --man, help --completion) are written from it.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"

const struct cli_command *const cli_commands[] = {
    &cli_record_command,     &cli_info_command,
    &cli_dump_command,	     &cli_report_command,
    &cli_diff_command,	     &cli_check_command,
    &cli_run_command,	     &cli_compare_command,
    &cli_baseline_command,   &cli_ab_command,
    &cli_check_perf_command, &cli_history_command,
    &cli_post_command,	     NULL,
};

const struct cli_command *cli_find_command(const char *name)
{
	for (size_t i = 0; cli_commands[i]; i++)
		if (!strcmp(name, cli_commands[i]->name))
			return cli_commands[i];
	return NULL;
}

void cli_program_usage(FILE *out)
{
	fprintf(out, "usage: wperf-bench COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; cli_commands[i]; i++)
		fprintf(out, "  %-10s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
	fprintf(out, "\n'wperf-bench COMMAND --help' describes a command.\n"
		     "Exit status: 0 success, 1 the gate failed, 2 error.\n");
}

int cli_unknown_command(const char *cmd, const char *name)
{
	const char *names[sizeof(cli_commands) / sizeof(*cli_commands)];
	char msg[256];
	size_t n = 0;

	for (; cli_commands[n]; n++)
		names[n] = cli_commands[n]->name;
	snprintf(msg, sizeof(msg), "'%s' is not a command", name);
	cli_did_you_mean(name, names, n, "", msg, sizeof(msg));
	return cli_usage_error(cmd, "%s", msg);
}
