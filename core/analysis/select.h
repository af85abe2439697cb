/* SPDX-License-Identifier: MIT */
/*
 * What an analysis says about its target, for whoever reads it (the reports,
 * the gate's runs): which final knots the target waits for, how the text
 * report numbers them, the threads that pace the target with a timer, and
 * which checks against the kernel's counters count for it.
 */
#ifndef WPERF_SELECT_H
#define WPERF_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/analysis.h"

/* Does the target (a process name, or pids "PID[,PID...]") wait for knot k,
 * directly or through others? NULL target: every knot is wanted. */
int wperf_knot_wanted(const struct wperf_analysis *a, const struct wperf_knot *k,
		      const char *target);

/*
 * A thread that paces work with a timer (nanosleep, timerfd, a timed wait):
 * it sleeps until a timer interrupt wakes it while others wait for it. Timers
 * are interrupts, never bottlenecks, so their edges stay out of the knot
 * search, and such a thread, hardly running, is a background sink: the pacing
 * would go unseen.
 */
struct wperf_timer_paced {
	uint32_t vertex;
	uint64_t sleep_ns; /* its own sleeps on timers (wperf_vertex.timer_wait_ns) */
	uint64_t held_ns;  /* the waits of others nested in those sleeps */
};

/* Is ed a wait on v by another thread of mine (a byte per vertex), as heavy
 * as the knot search keeps (a->min_edge_ns)? */
int wperf_waits_on(const struct wperf_analysis *a, const uint8_t *mine, const struct wperf_edge *ed,
		   uint32_t v);

/*
 * The threads that a thread of mine (a byte per vertex: the target's threads,
 * as the report marks them) waits for (wperf_waits_on),
 * and that hold others up by sleeping on timers for at least a->min_edge_ns
 * (more than nothing when that is 0); most held first, into *out (the caller
 * frees it; NULL when there is none) and *n. 0 or -ENOMEM.
 */
int wperf_timer_paced_threads(const struct wperf_analysis *a, const uint8_t *mine,
			      struct wperf_timer_paced **out, size_t *n);

/* Numbers the final knots that target waits for (wperf_knot_wanted) 1,
 * 2, ... as the text report does: knot_of (a slot per merged vertex) gets the
 * number of each vertex's first such knot, 0 for none. Returns how many. */
uint32_t wperf_number_knots(const struct wperf_analysis *a, const char *target, uint32_t *knot_of);

/* Is vertex v inside one of the final knots? */
int wperf_in_knot(const struct wperf_analysis *a, uint32_t v);

/* ---- the checks that count for the target ---- */

/*
 * Does line i of the checks count for target: a disk, NIC or CPU line, or a
 * line of one of the target's threads (every thread's, with no target)? The
 * other threads' lines are shown, not counted: a trace of the whole machine
 * has every thread's, and most are no part of what is measured.
 */
int wperf_check_counts(const struct wperf_checks *c, size_t i, const char *target);

/* The lines that count for target (above) and disagree; *ok (may be NULL):
 * those that agree. */
size_t wperf_checks_warnings(const struct wperf_checks *c, const char *target, size_t *ok);

/*
 * The lines that confirm the graph, and disagree (*ok: agree): the devices'.
 * A device is the one vertex the graph infers rather than records: a disk's
 * busy time makes its idle edges, a NIC's bytes its shares, and a model that
 * is off there (a lost completion kept a disk "busy" to the window's end)
 * moves whole knots. A thread's times come from its own switches: their
 * losses are counted apart (lost events, the CPUs' chains), and the kernel's
 * tick-grained accounting differs from them by about 1%, which moves no edge.
 * What a run keeps of the checks, for the gate (runset.h).
 */
size_t wperf_checks_confirming(const struct wperf_checks *c, size_t *ok);

/* The first of those lines that disagrees, or NULL. */
const struct wperf_checks_line *wperf_checks_unconfirmed(const struct wperf_checks *c);

#endif /* WPERF_SELECT_H */
