/* SPDX-License-Identifier: MIT */
/*
 * GAPP's criticality metric (CMetric): a thread's running time, each interval
 * divided by the number of threads active (running or runnable) in it. A thread
 * that runs while few others can has a high CMetric: a serial bottleneck, a
 * sink, or the laggard of an imbalanced load. The slices run with little
 * parallelism are critical; the stack where such a slice ended (where the thread
 * blocked) names the code.
 *
 * Ownership: a struct wperf_cmetric owns its arrays; wperf_cmetric_release frees
 * them.
 */
#ifndef WPERF_CMETRIC_H
#define WPERF_CMETRIC_H

#include <stdint.h>

#include "callsites.h"
#include "error.h"
#include "timeline.h"

struct wperf_cmetric {
	uint64_t *per_entity; /* ns, for every timeline entity (0 for pseudo-threads) */
	/* Critical slices by the stack that ended them: from = to = the entity,
	 * kstack/ustack where it blocked, weight = the slices' CMetric in ns. */
	struct wperf_callsites critical;
};

/*
 * Computes the CMetric of every thread of tl. A running slice is critical when
 * the average number of active threads during it is at most min_parallelism
 * (0: half the CPUs, at least 1).
 */
int wperf_cmetric_compute(const struct wperf_timeline *tl, double min_parallelism,
			  struct wperf_cmetric *out, struct wperf_error *err);

void wperf_cmetric_release(struct wperf_cmetric *c);

#endif /* WPERF_CMETRIC_H */
