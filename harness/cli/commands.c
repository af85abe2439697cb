/* SPDX-License-Identifier: MIT */
/*
 * The sub-commands, in the order the command list shows them: each one's
 * name, entry point and help (its page, harness/cli/pages/NAME.txt, with the
 * options of its own file), stated here once.
 * main dispatches by this table, and the man pages and shell completion
 * (help --man, help --completion) are written from it.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"

const struct cli_command cli_commands[] = {
    {"record", cmd_record, &cli_record_help},
    {"info", cmd_info, &cli_info_help},
    {"dump", cmd_dump, &cli_dump_help},
    {"report", cmd_report, &cli_report_help},
    {"diff", cmd_diff, &cli_diff_help},
    {"check", cmd_check, &cli_check_help},
    {"run", cmd_run, &cli_run_help},
    {"compare", cmd_compare, &cli_compare_help},
    {"baseline", cmd_baseline, &cli_baseline_help},
    {"ab", cmd_ab, &cli_ab_help},
    {"check-perf", cmd_check_perf, &cli_check_perf_help},
    {"history", cmd_history, &cli_history_help},
    {"bisect", cmd_bisect, &cli_bisect_help},
    {"post", cmd_post, &cli_post_help},
    {0},
};

const struct cli_command *cli_find_command(const char *name)
{
	for (size_t i = 0; cli_commands[i].name; i++)
		if (!strcmp(name, cli_commands[i].name))
			return &cli_commands[i];
	return NULL;
}

void cli_program_usage(FILE *out)
{
	fprintf(out, "usage: wperf-bench COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; cli_commands[i].name; i++)
		fprintf(out, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].help->summary);
	fprintf(out, "\n'wperf-bench COMMAND --help' describes a command.\n"
		     "Exit status: 0 success, 1 the gate failed, 2 error.\n");
}

int cli_unknown_command(const char *cmd, const char *name)
{
	const char *names[sizeof(cli_commands) / sizeof(*cli_commands)];
	char msg[256];
	size_t n = 0;

	for (; cli_commands[n].name; n++)
		names[n] = cli_commands[n].name;
	snprintf(msg, sizeof(msg), "'%s' is not a command", name);
	cli_did_you_mean(name, names, n, "", msg, sizeof(msg));
	return cli_usage_error(cmd, "%s", msg);
}
