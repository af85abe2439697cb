/* SPDX-License-Identifier: MIT */
/*
 * Where a scenario's head waits now: the differential flame graph of its base
 * and head runs (core/report/flame.h), for a check whose verdict has
 * findings. Each side's runs' folded wait stacks (ANALYZE_RUN_FOLDED, left by
 * analyze_run) are summed, kept to the edges the runs keep
 * (core/gate/run_flame.h), and divided by the side's operations (throughput
 * times window, summed over its runs; seconds of window when the scenario
 * measures no throughput), so that a side that ran longer or faster does not
 * look as if it waited more. Red: the head waits longer per operation.
 */
#ifndef WPERF_CHECK_FLAME_H
#define WPERF_CHECK_FLAME_H

#include <stddef.h>

#include "core/util/error.h"
#include "harness/run/results.h"

#define CHECK_FLAME_SVG	    "waits-diff.svg"
#define CHECK_FLAME_GROWING 3 /* stacks that grew, kept for the comment */

/*
 * Writes dir/CHECK_FLAME_SVG from the runs of base and head (their results
 * folders), and the stacks that grew most into *growing (each a line, the
 * array and its lines the caller's to free; *n of them, none when none grew).
 * 0, or a negative errno with err (a run without its folded stacks: -ENOENT).
 */
int check_flame(const struct results *base, const struct results *head, const char *dir,
		char ***growing, size_t *n, struct wperf_error *err);

#endif /* WPERF_CHECK_FLAME_H */
