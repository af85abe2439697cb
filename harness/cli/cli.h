/* SPDX-License-Identifier: MIT */
/*
 * The sub-commands of wperf-bench, one file each (cmd_NAME.c), and what they
 * share for talking to the user.
 */
#ifndef WPERF_CLI_H
#define WPERF_CLI_H

#include <stdio.h>

#include "core/trace/trace.h"
#include "harness/base/version.h"
#include "harness/cli/options.h"

/* Exit statuses of every sub-command. */

#define EXIT_OK	   0
#define EXIT_FAIL  1 /* the gate's verdict is a failure */
#define EXIT_ERROR 2 /* wperf-bench could not do what it was asked */

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_check_perf(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_post(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_help(int argc, char **argv);

/*
 * Each command's help, generated from its page (harness/cli/pages/NAME.txt,
 * by pages/pages.awk), and its options (cmd_NAME.c), which the help names.
 * record's are also the options a child recorder's command line
 * (recording_argv) must read back as they were.
 */
extern const struct cli_help cli_record_help, cli_info_help, cli_dump_help, cli_report_help,
    cli_diff_help, cli_check_help, cli_run_help, cli_compare_help, cli_baseline_help, cli_ab_help,
    cli_check_perf_help, cli_history_help, cli_bisect_help, cli_post_help, cli_help_help;
extern const struct cli_option cli_record_options[], cli_info_options[], cli_dump_options[],
    cli_report_options[], cli_diff_options[], cli_check_options[], cli_run_options[],
    cli_compare_options[], cli_baseline_options[], cli_ab_options[], cli_check_perf_options[],
    cli_history_options[], cli_bisect_options[], cli_post_options[], cli_help_options[];

/* A sub-command as the command list has it: `wperf-bench NAME` calls run with
 * argv[0] NAME; what it says of itself is in its help. */
struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct cli_help *help;
};

/* Every command, in the order the command list shows them; {0} ends it. */
extern const struct cli_command cli_commands[];

/* The command named name, or NULL. */
const struct cli_command *cli_find_command(const char *name);

/* The program's usage: the command list. */
void cli_program_usage(FILE *out);

/* "'NAME' is not a command; did you mean ...?" as a usage error of cmd
 * (NULL: the program's); returns EXIT_ERROR. */
int cli_unknown_command(const char *cmd, const char *name);

/* "wperf-bench CMD: error: MESSAGE" on stderr ("wperf-bench: error: ..."
 * with a NULL cmd); returns EXIT_ERROR. */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A command line that cannot be right: the error line of cli_error, then
 * "see 'wperf-bench CMD --help'"; returns EXIT_ERROR. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The hint after a usage error: "see 'wperf-bench CMD --help'" on stderr. */
void cli_hint(const char *cmd);

/*
 * Appends to msg (of size) "; did you mean 'X'?" when one of the n names is
 * close enough to word to be what was meant (core/util/closest.h), each
 * written as prefix NAME ("--" for options).
 */
void cli_did_you_mean(const char *word, const char *const *names, size_t n, const char *prefix,
		      char *msg, size_t size);

/* "wperf-bench CMD: warning: MESSAGE" on stderr. */
void cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses option opt's arg as a whole number from min to max into *out; 0, or
 * EXIT_ERROR after saying what was wanted. */
int cli_parse_count(const char *cmd, const char *opt, const char *arg, unsigned min, unsigned max,
		    unsigned *out);

/*
 * Where the gate reads the baseline: -b/--baseline FILE, --baseline-ref REF
 * and --target BRANCH, shared by run and compare: a CLI_GROUP of a struct
 * gate_baseline_src. REF "merge-base" (or empty) is the merge base of HEAD
 * with the target branch.
 */
extern const struct cli_option cli_baseline_src_options[];

/* --baseline-ref's parser (CLI_OPTION_PARSE of a whole struct
 * gate_baseline_src): REF, or the merge base. */
int cli_parse_baseline_ref(const char *cmd, const struct cli_option *opt, const char *arg,
			   void *src);

/* The results folder of a command on one scenario: given, or
 * results/KIND-STEM-YYYYmmdd-HHMMSS after the scenario file's stem. */
void cli_results_dir(const char *kind, const char *scenario, const char *given, char *dir,
		     size_t size);

/* --alpha P, a rate of false failures above 0 and below 0.5, into the
 * double field. */
int cli_parse_alpha(const char *cmd, const struct cli_option *opt, const char *arg, void *field);

/* --stacks MODE (recording_parse_stacks) into the unsigned field. */
int cli_parse_stacks(const char *cmd, const struct cli_option *opt, const char *arg, void *field);

/* Opens the trace at path. With unwind, for a command that reads stacks:
 * its compressed debug files decompressed once into the cache
 * (harness/run/debug_cache.h), and its copied user stacks unwound (record
 * --stacks dwarf), as both open every binary they ran. 0, or EXIT_ERROR
 * after saying why. */
int cli_open_trace(const char *cmd, const char *path, int unwind, struct wperf_trace **t);

#endif /* WPERF_CLI_H */
