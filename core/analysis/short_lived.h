/* SPDX-License-Identifier: MIT */
/*
 * Short-lived threads as one virtual thread per creator (wPerf section 3.3,
 * "short-term threads"): a thread created and ended inside the window, and
 * living less than a fraction of it, is no worker of its own; the threads one
 * creator makes stand for one long-running thread. That virtual thread runs
 * while any of them runs, is runnable while none runs and one is runnable,
 * and waits otherwise: for the waker of the task whose wakeup ends the wait,
 * or, while no task is alive, for the creator, whose next task ends it. It
 * lives from its first task's birth to its last one's end, so it is never in
 * any state longer than the window, however many of its tasks overlap.
 *
 * The cascade reads the view: the timeline's entities, then the virtual
 * threads. A task's own waits are left out of it (its stand-in, the virtual
 * thread, waits instead), and a wait for a task recurses into the virtual
 * thread's waits.
 *
 * Ownership: a struct wperf_short_lived owns the virtual threads' segments and
 * its arrays; the view borrows everything else from the timeline, which must
 * outlive it. wperf_short_lived_release frees it.
 */
#ifndef WPERF_SHORT_LIVED_H
#define WPERF_SHORT_LIVED_H

#include <stdint.h>

#include "core/util/error.h"
#include "core/analysis/timeline.h"

#define WPERF_DEFAULT_SHORT_LIVED 0.5

struct wperf_short_lived {
	struct wperf_timeline view; /* the timeline's entities, then the virtual threads */
	uint32_t nreal;		    /* view entities from this one on are virtual threads */
	/* Per view entity: the entity whose waits stand for its own, the virtual
	 * thread for a short-lived thread, itself for every other. */
	uint32_t *stand_in;
};

/*
 * Builds the view of tl. fraction: a thread that lived less than this share
 * of the window is short-lived; 0: WPERF_DEFAULT_SHORT_LIVED; < 0: none is.
 * A thread whose creator is not in the timeline stays a thread of its own.
 */
int wperf_short_lived_build(const struct wperf_timeline *tl, double fraction,
			    struct wperf_short_lived *out, struct wperf_error *err);

/* Whether view entity e is a virtual thread. */
static inline int wperf_is_virtual(const struct wperf_short_lived *s, uint32_t e)
{
	return e >= s->nreal;
}

void wperf_short_lived_release(struct wperf_short_lived *s);

#endif /* WPERF_SHORT_LIVED_H */
