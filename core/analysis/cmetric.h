/* SPDX-License-Identifier: MIT */
/*
 * GAPP's criticality metric (CMetric, GAPP section 2) over the application's
 * threads. Their time is cut into switching intervals at the instants where one
 * of them becomes active (running or runnable: TASK_RUNNING) or inactive; an
 * interval T_i with n_i of them active adds T_i / n_i to the CMetric of each of
 * them that runs in it. A thread that runs while few others can has a high
 * CMetric: a serial bottleneck, a sink, or the laggard of an imbalanced load.
 *
 * Only the application's threads count, in n_i as in the CMetric: GAPP traces
 * those alone, and the rest of the machine, busy or idle, is not the
 * application's parallelism. A thread in an annotated spin (wperf_annotate.h)
 * is on a CPU, active and running to GAPP, and here too.
 *
 * A timeslice (a thread's time on a CPU, from a switch-in to the next
 * switch-out) is critical (GAPP section 4.2) when threads_av, its number of
 * active threads averaged over its time, is at most N_min. The stack where a
 * critical slice ended names the code; the recorder takes stacks where threads
 * block, so a slice that ended in a preemption has its CMetric but no site.
 *
 * Ownership: a struct wperf_cmetric owns its arrays; wperf_cmetric_release frees
 * them.
 */
#ifndef WPERF_CMETRIC_H
#define WPERF_CMETRIC_H

#include <stdint.h>

#include "core/analysis/callsites.h"
#include "core/util/error.h"
#include "core/analysis/timeline.h"

struct wperf_cmetric {
	/* ns, for every timeline entity: 0 outside the application and for
	 * pseudo-threads */
	uint64_t *per_entity;
	/* Critical slices by the stack that ended them: from = to = the entity,
	 * kstack/ustack where it blocked, weight = the slices' CMetric in ns. */
	struct wperf_callsites critical;
	uint32_t threads;	/* the application's threads: the most alive at once */
	double min_parallelism; /* N_min, as given or defaulted */
};

/*
 * Computes the CMetric of the application's threads of tl: those with app[e]
 * set (app NULL: every thread). A timeslice is critical when its threads_av is
 * at most min_parallelism; 0 takes GAPP's default N_min = n / 2, n the
 * application's threads, and at least 1, so that a slice that ran alone is
 * critical whatever n (as GAPP's implementation has it).
 */
int wperf_cmetric_compute(const struct wperf_timeline *tl, const uint8_t *app,
			  double min_parallelism, struct wperf_cmetric *out,
			  struct wperf_error *err);

void wperf_cmetric_release(struct wperf_cmetric *c);

#endif /* WPERF_CMETRIC_H */
