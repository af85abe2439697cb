/* SPDX-License-Identifier: MIT */
/*
 * Two recordings side by side (wperf-bench diff): the knots and sinks of
 * each, and every edge either keeps (WPERF_RUN_MIN_SHARE of its window or
 * more) with its share of each window and the change, as text or JSON
 * (schema "wperf-diff/1", docs/report-schema.md).
 */
#ifndef WPERF_CLI_DIFF_WRITE_H
#define WPERF_CLI_DIFF_WRITE_H

#include "core/gate/runset.h"
#include "core/util/buf.h"

#define WPERF_DIFF_SCHEMA "wperf-diff/1"

/* What is compared: the two runs (taken from their analyses by
 * wperf_run_from_analysis) and the files they came from. */
struct diff_sides {
	const char *name[2];
	const struct wperf_run *run[2];
};

/* Each writer appends to out; 0 or -ENOMEM. */
int diff_write_text(const struct diff_sides *d, struct wperf_buf *out);
int diff_write_json(const struct diff_sides *d, struct wperf_buf *out);

#endif /* WPERF_CLI_DIFF_WRITE_H */
