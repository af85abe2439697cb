/* SPDX-License-Identifier: MIT */
/*
 * Cascaded re-distribution (wPerf section 4.2, Figure 4): each waiting segment
 * adds its length to the edge waiter -> waker, then looks at what the waker was
 * doing meanwhile: each of the waker's own waits, clipped to the same interval,
 * is cascaded in turn. Nested waits that hold up several threads so weigh more.
 *
 * A device's idle time is split over the threads that issued I/O to it by their
 * share of the bytes. Recursion stops at a cycle on the current chain and at a
 * depth limit. Work is split over worker threads, each with its own call sites,
 * which are summed; weights are integer nanoseconds, so the result does not
 * depend on the number of workers. The graph's edges weigh what their call
 * sites do.
 */
#ifndef WPERF_CASCADE_H
#define WPERF_CASCADE_H

#include "core/analysis/callsites.h"
#include "core/util/error.h"
#include "core/analysis/graph.h"
#include "core/analysis/timeline.h"

struct wperf_cascade_opts {
	unsigned jobs;	    /* worker threads; 0: one */
	unsigned max_depth; /* nesting limit; 0: 64 */
	/* Per entity, the entity whose waits stand for its own (short_lived.h): its
	 * own waits are not cascaded, and a wait for it recurses into its stand-in's.
	 * NULL: every entity stands for itself. */
	const uint32_t *stand_in;
};

/*
 * Builds the wait-for graph of tl's entities into graph (finished: sorted and
 * read-only) and the call sites of its edges into sites (finished). Both must
 * be empty; the caller releases them.
 */
int wperf_cascade(const struct wperf_timeline *tl, const struct wperf_cascade_opts *opts,
		  struct wperf_graph *graph, struct wperf_callsites *sites,
		  struct wperf_error *err);

#endif /* WPERF_CASCADE_H */
