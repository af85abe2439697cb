/* SPDX-License-Identifier: MIT */
/*
 * Two recordings side by side (wperf-bench diff): the knots and sinks of
 * each, and every edge either keeps (WPERF_RUN_MIN_SHARE of its window or
 * more) with its share of each window and the change, as text or JSON
 * (schema "wperf-diff/1", docs/report-schema.md).
 */
#ifndef WPERF_GATE_RUN_DIFF_H
#define WPERF_GATE_RUN_DIFF_H

#include "core/gate/runset.h"
#include "core/util/buf.h"

#define WPERF_DIFF_SCHEMA "wperf-diff/1"

/* What is compared: the two runs (taken from their analyses by
 * wperf_run_from_analysis) and the files they came from. */
struct wperf_run_diff {
	const char *name[2];
	const struct wperf_run *run[2];
};

/* Each writer appends to out; 0 or -ENOMEM. */
int wperf_run_diff_text(const struct wperf_run_diff *d, struct wperf_buf *out);
int wperf_run_diff_json(const struct wperf_run_diff *d, struct wperf_buf *out);

#endif /* WPERF_GATE_RUN_DIFF_H */
