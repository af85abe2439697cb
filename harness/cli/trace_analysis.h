/* SPDX-License-Identifier: MIT */
/*
 * The analysis of a trace as the commands that analyze one (report, diff)
 * take it from the command line: the same options, the same default target,
 * the same error for a --target that names no process of the trace.
 */
#ifndef WPERF_CLI_TRACE_ANALYSIS_H
#define WPERF_CLI_TRACE_ANALYSIS_H

#include "core/analysis/analysis.h"
#include "harness/cli/options.h"

struct cli_analysis {
	struct wperf_analysis_opts ao;
	const char *target; /* --target; NULL: the trace's own (cli_analyze) */
	int all;	    /* --all: every thread, whatever the trace names */
};

/* -t/--threshold, --target, --all, --min-edge, --merge-similar, -j/--jobs,
 * --disk-bw, --disk-iops, --nic-bps: a CLI_GROUP of a struct cli_analysis. */
extern const struct cli_option cli_analysis_options[];

/* The defaults before parsing: the cascade on every CPU. */
void cli_analysis_init(struct cli_analysis *c);

/*
 * Analyzes trace t (read from path) as c says, into *a, and *target to what
 * the analysis was about (a's, valid while *a is): --target, else (without
 * --all) the recorded COMMAND's process and every one it started, or the
 * target `run` or `record --target` named; NULL: every thread. A --target that matches no thread of
 * the trace is an error naming the closest process names. 0, or EXIT_ERROR after saying why
 * (cli_error).
 */
int cli_analyze(const char *cmd, const char *path, const struct wperf_trace *t,
		const struct cli_analysis *c, struct wperf_analysis **a, const char **target);

#endif /* WPERF_CLI_TRACE_ANALYSIS_H */
