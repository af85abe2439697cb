/* SPDX-License-Identifier: MIT */
/*
 * The analysis of one run of a scenario: its trace analyzed with the
 * scenario's options, the reports written next to it (report.json,
 * report.txt, graph.svg, and its wait stacks folded, ANALYZE_RUN_FOLDED), and
 * what the gate keeps of it (a struct wperf_run).
 */
#ifndef WPERF_ANALYZE_RUN_H
#define WPERF_ANALYZE_RUN_H

#include "core/util/error.h"
#include "core/gate/runset.h"
#include "core/scenario/scenario.h"

#define ANALYZE_RUN_FOLDED "waits.folded"

/*
 * Analyzes trace (a run of s, in run_dir) for target (a process name or
 * "PID[,PID...]"; empty: every knot) and writes the reports into run_dir.
 * throughput is the run's (NaN: none). 0 with *out (release it with
 * wperf_run_release), or a negative errno with err saying why.
 */
int analyze_run(const struct scenario *s, const char *trace, const char *target, double throughput,
		const char *run_dir, struct wperf_run *out, struct wperf_error *err);

#endif /* WPERF_ANALYZE_RUN_H */
