/* SPDX-License-Identifier: MIT */
/*
 * The wait stacks of recordings as a differential flame graph compares them
 * (core/report/flame.h): the folded stacks of each side's analyses
 * (report_folded.c's lines) kept to the edges the gate keeps of their runs
 * (the target's, at least WPERF_RUN_MIN_SHARE of a window), so that a
 * neighbour's waits (a kworker's timer) neither set the colour scale nor
 * hide what changed, and with each frame's address part (a source line, a
 * +0x offset) dropped unless asked, so that code that moved between two
 * builds is still one frame. `diff --flame` compares two traces with it,
 * check-perf a scenario's base and head runs.
 *
 * Ownership: a struct wperf_flame_filter owns its edges;
 * wperf_flame_filter_release frees them. A zeroed struct is an empty filter.
 */
#ifndef WPERF_GATE_RUN_FLAME_H
#define WPERF_GATE_RUN_FLAME_H

#include "core/gate/runset.h"
#include "core/report/flame.h"
#include "core/util/buf.h"
#include "core/util/error.h"

struct wperf_flame_filter {
	struct wperf_buf edges; /* char *: "FROM->TO" as a folded line's first frame */
	int exact;		/* keep the frames' address parts */
	int sorted;
};

/* Adds the edges run keeps to the filter; 0 or -ENOMEM. */
int wperf_flame_filter_add_run(struct wperf_flame_filter *ff, const struct wperf_run *run);

/*
 * Adds the lines of folded text (len bytes, as report_folded.c writes them)
 * whose edge the filter keeps to side's counts of f; the CMetric's lines are
 * left out (running time, not waiting). 0, -ENOMEM, or -EINVAL with err
 * naming the line that is not a folded stack.
 */
int wperf_flame_add_folded(struct wperf_flame *f, enum wperf_flame_side side,
			   struct wperf_flame_filter *ff, const char *folded, size_t len,
			   struct wperf_error *err);

void wperf_flame_filter_release(struct wperf_flame_filter *ff);

#endif /* WPERF_GATE_RUN_FLAME_H */
