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
int cmd_post(int argc, char **argv);

/* "wperf-bench CMD: error: MESSAGE" on stderr; returns EXIT_ERROR. */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "wperf-bench CMD: warning: MESSAGE" on stderr. */
void cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses option opt's arg as a whole number from min to max into *out; 0, or
 * EXIT_ERROR after saying what was wanted. */
int cli_parse_count(const char *cmd, const char *opt, const char *arg, unsigned min, unsigned max,
		    unsigned *out);

/* The options of a run set that run and baseline update share: -n/--runs,
 * -r/--results, -q/--quiet and --build-dir (CLI_OPT_BUILD_DIR). Sets c's
 * option in o; 0, or EXIT_ERROR after saying why. */
#define CLI_OPT_BUILD_DIR 1000
struct run_set_opts;
int cli_run_set_option(const char *cmd, int c, const char *arg, struct run_set_opts *o);

/*
 * Where the gate reads the baseline: -b/--baseline FILE, --baseline-ref REF
 * and --target BRANCH, shared by run and compare. REF "merge-base" (or
 * empty) is the merge base of HEAD with the target branch.
 */
#define CLI_OPT_BASELINE_REF 1001
#define CLI_OPT_TARGET	     1002
#define CLI_BASELINE_LONGOPTS                                                                      \
	{"baseline", required_argument, NULL, 'b'},                                                \
	    {"baseline-ref", required_argument, NULL, CLI_OPT_BASELINE_REF},                       \
	{                                                                                          \
		"target", required_argument, NULL, CLI_OPT_TARGET                                  \
	}
#define CLI_BASELINE_HELP                                                                          \
	"  -b, --baseline FILE     the baseline (default: baselines/NAME.yaml)\n"                  \
	"      --baseline-ref REF  read the baseline as it is at commit REF, from git's\n"         \
	"                          objects (no checkout); REF 'merge-base': the merge\n"           \
	"                          base of HEAD with the target branch\n"                          \
	"      --target BRANCH     the target branch of merge-base (default:\n"                    \
	"                          $GITHUB_BASE_REF, $CI_MERGE_REQUEST_TARGET_BRANCH_NAME,\n"      \
	"                          origin's default branch, main, master)\n"
struct gate_baseline_src;
/* Sets c's option in src; 0, or EXIT_ERROR after saying why. */
int cli_baseline_option(const char *cmd, int c, const char *arg, struct gate_baseline_src *src);

/*
 * The end of every sub-command's getopt_long switch, for the c no case took:
 * 'h' (-h, --help) prints usage to stdout and returns EXIT_OK; anything else
 * (an unknown option, or one without its argument, which getopt_long has
 * named already) prints usage to stderr and returns EXIT_ERROR.
 */
int cli_other_option(int c, void (*usage)(FILE *));

/* The one operand left after the options (argv[optind]); NULL after usage on
 * stderr when there is not exactly one. */
const char *cli_one_operand(int argc, char **argv, void (*usage)(FILE *));

/* 0 when at least one operand is left after the options; else usage on stderr
 * and EXIT_ERROR. */
int cli_some_operands(int argc, void (*usage)(FILE *));

/*
 * Opens the one TRACE operand left after the options (argv[optind]). Without
 * exactly one, prints usage to stderr; on failure prints why. Returns 0 or
 * EXIT_ERROR.
 */
int cli_open_trace_operand(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
			   struct wperf_trace **t);

#endif /* WPERF_CLI_H */
