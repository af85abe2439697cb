/* SPDX-License-Identifier: MIT */
/*
 * The level of the knot search: edges lighter than it are left out before the
 * knots are found (they are still reported).
 *
 * Some edges must go. On a whole machine a light edge from a bottleneck to an
 * unrelated process keeps the bottleneck's component from closing, and the
 * paper's refinement only trims inside knots. A fixed cut (the first versions
 * left out every edge under 5% of the window) makes a vertex whose edge sits
 * near the cut come and go between runs of the same code, and a small change
 * that moves the edge across it look like a new bottleneck.
 *
 * So the level is taken from the graph: the one where the answer is most
 * stable. Every level in (0, max] gives a set of final knots; the level is the
 * middle of the widest range of levels that give the same set. Moving an edge's
 * weight a little moves the ends of the ranges a little: the answer changes
 * only when two answers are about equally stable, never because one weight
 * crossed a constant.
 */
#ifndef WPERF_KNOT_LEVEL_H
#define WPERF_KNOT_LEVEL_H

#include <stdint.h>

#include "core/util/error.h"
#include "core/analysis/graph.h"
#include "core/analysis/knots.h"

/*
 * The level (ns) in (0, max] at which the final knots of g (found with ko) stay
 * the same over the widest range, into *level; max 0 gives 0. 0 or a negative
 * errno with err set. One knot search per distinct edge weight under max.
 */
int wperf_knot_level(const struct wperf_graph *g, const struct wperf_knot_opts *ko, uint64_t max,
		     uint64_t *level, struct wperf_error *err);

#endif /* WPERF_KNOT_LEVEL_H */
