/* SPDX-License-Identifier: MIT */
/*
 * What one run of a scenario contributes to the gate, and the set of repeated
 * runs that the gate compares with a baseline.
 *
 * A run keeps only what can be compared across runs and machines: stable
 * vertex identities (core/analysis/merge.h), never tids. From an analysis it takes
 * - the final knots (kind WPERF_KNOT, and only those the target waits for when
 *   a target is given), each as the sorted set of its members' identities;
 * - the final sinks likewise (on-CPU bottlenecks), and the target's thread that
 *   GAPP's CMetric ranks first: what a synthetic scenario's expectation may
 *   name, kept out of the verdict;
 * - the edges of the merged graph that weigh at least WPERF_RUN_MIN_SHARE of
 *   the recording window, as (from, to, share of the window), leaving out the
 *   ignored (interrupt) vertices and, with a target, every edge that does not
 *   start at the target or at what it waits for (directly or through others):
 *   the rest of the machine is noise to the gate;
 * - with a symbolizer, each edge's WPERF_RUN_SITES heaviest call sites, as
 *   text: what a finding about the edge shows people;
 * - the throughput the harness measured, the window, the events recorded and
 *   the events lost, and the value of each of the scenario's other metrics
 *   (core/gate/metric.h);
 * - how many checks against the kernel's counters that confirm the graph agree
 *   and disagree.
 *
 * Ownership: a struct wperf_run owns its strings and arrays and a struct
 * wperf_runset owns its runs; wperf_run_release and wperf_runset_release free
 * them and leave empty, reusable structs. A zeroed struct is empty (but see
 * wperf_run_init for the throughput).
 */
#ifndef WPERF_RUNSET_H
#define WPERF_RUNSET_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/analysis.h"
#include "core/analysis/symbolize.h"
#include "core/gate/metric.h"
#include "core/util/error.h"

/* Edges lighter than this share of the window are left out of a run. */
#define WPERF_RUN_MIN_SHARE 0.01

/* A set of vertex identities: sorted by strcmp, no duplicates. */
struct wperf_idset {
	char **ids;
	size_t n;
};

/* Call sites kept per edge of a run: as many as a finding shows. */
#define WPERF_RUN_SITES 3
/* The frames of a site's stack kept: a user stack needs five to leave the C
 * library (__futex_abstimed_wait_common <- __pthread_cond_wait_common <-
 * pthread_cond_wait) and reach the program's own frame; a kernel stack, past
 * the scheduler's frames, two. */
#define WPERF_RUN_SITE_USER_FRAMES   5
#define WPERF_RUN_SITE_KERNEL_FRAMES 2

/*
 * Where an edge's time went in a run: where the waiter blocked and where the
 * waker woke it, each its user stack in a line (" <- " between frames,
 * innermost first, WPERF_RUN_SITE_USER_FRAMES of them), else its kernel stack
 * (WPERF_RUN_SITE_KERNEL_FRAMES past the scheduler's frames), NULL when there
 * is none (an interrupt, a device); the analysis's sites that read the same
 * add up.
 */
struct wperf_run_site {
	char *waiter, *waker;
	double share; /* of the window, as the edge's */
};

struct wperf_run_edge {
	char *from, *to;	      /* identities */
	double share;		      /* weight / window; may pass 1 for a merged vertex */
	struct wperf_run_site *sites; /* heaviest first, at most WPERF_RUN_SITES; may be none */
	size_t nsites;
};

struct wperf_run {
	double throughput; /* as the scenario measures it; NaN when there is none */
	uint64_t window_ns, lost_events;
	uint64_t events;	   /* recorded (lost ones aside); 0: unknown (an older summary) */
	struct wperf_idset *knots; /* final knots, heaviest first */
	size_t nknots;
	struct wperf_run_edge *edges; /* sorted by (from, to), unique */
	size_t nedges;
	struct wperf_idset sinks; /* the final sinks' identities */
	char *cmetric_first;	  /* the target's vertex with the largest CMetric; NULL: none */
	struct wperf_idset timer_paced; /* threads that pace the target with a timer
					   (wperf_timer_paced_threads) */
	/* The checks of the model against the kernel's counters that confirm the
	 * graph, the devices' (wperf_checks_confirming): how many agree and
	 * disagree. A run
	 * with a disagreement is one whose graph the kernel does not confirm.
	 * have_checks 0: the trace had no counters (or the summary is older). */
	int have_checks;
	uint64_t checks_ok, checks_warn;
	char *checks_first;		  /* the first that disagrees, a phrase; NULL: none */
	struct wperf_run_metric *metrics; /* the scenario's other metrics; NULL: none */
	size_t nmetrics;
	/* The target's threads' time on a CPU and waiting for one (runnable) in
	 * the window, summed: per operation, what the code costs and what the
	 * machine's other work took from it. have_time 0: not kept (older).
	 * span_ns: the part of the window in which the target had a thread, the
	 * time its operations were done in (the window may go on after it
	 * exited); 0: not kept (older), the window stands in. */
	int have_time;
	uint64_t running_ns, runnable_ns, span_ns;
};

/* A synthetic scenario's expected answer. Each part is optional (0 or NULL). */
struct wperf_expect {
	const char *const *knot; /* globs (fnmatch) that one final knot all matches */
	size_t nknot;
	const char *const *not_in_knot; /* globs that knot must not match */
	size_t nnot_in_knot;
	const char *const *sink; /* globs each matching a final sink */
	size_t nsink;
	int no_knot;			/* no final knot at all */
	const char *cmetric_first;	/* a glob that the CMetric's first vertex matches */
	const char *const *timer_paced; /* globs each matching a thread paced by a timer */
	size_t ntimer_paced;
};

/* The repeated runs of one scenario on one machine. */
struct wperf_runset {
	struct wperf_run *runs;
	size_t nruns;
	char unit[32];		      /* of the throughput, e.g. "requests/s"; may be empty */
	struct wperf_metric *metrics; /* the scenario's other metrics, in its order */
	size_t nmetrics;
};

/* ---- identities, shared with the baseline and the verdict ---- */

/*
 * A copy of identity s with every byte that is not part of valid UTF-8
 * replaced by '?' (thread names are bytes; baselines and reports are UTF-8);
 * NULL when out of memory. Every identity a run or a baseline keeps is made so.
 */
char *wperf_identity_dup(const char *s);

/* Copies n identities into out, sorted and without duplicates; 0 or -ENOMEM. */
int wperf_idset_from(const char *const *ids, size_t n, struct wperf_idset *out);
int wperf_idset_copy(const struct wperf_idset *s, struct wperf_idset *out);
/* Orders sets by their members, then by size; 0 when they are the same set. */
int wperf_idset_cmp(const struct wperf_idset *a, const struct wperf_idset *b);
void wperf_idset_release(struct wperf_idset *s);

/* ---- one run ---- */

/* An empty run: no throughput (NaN), no knots, no edges. */
void wperf_run_init(struct wperf_run *r);

/*
 * Extracts a run from an analysis. target (a process name or pids, as in
 * wperf_knot_wanted; NULL: every knot) selects the knots; throughput is
 * the measured one or NaN; sym, the trace's symbolizer, names the edges' call
 * sites (NULL: the run keeps none). -EINVAL when the analysis has an empty
 * window, -ENOMEM; on error out is left empty.
 */
int wperf_run_from_analysis(const struct wperf_analysis *a, const char *target, double throughput,
			    struct wperf_symbolizer *sym, struct wperf_run *out,
			    struct wperf_error *err);

/* The checks of r that disagree with the kernel's counters (0 when it has none). */
uint64_t wperf_run_checks_warn(const struct wperf_run *r);

/* The runs of rs with a check that disagrees. */
size_t wperf_runset_runs_warned(const struct wperf_runset *rs);

/* Adds a knot of n identities (copied, sorted, duplicates dropped); 0 or -ENOMEM. */
int wperf_run_add_knot(struct wperf_run *r, const char *const *ids, size_t n);

/* Adds share to edge from -> to, keeping the edges sorted; 0, -EINVAL (share
 * negative or not finite) or -ENOMEM. */
int wperf_run_add_edge(struct wperf_run *r, const char *from, const char *to, double share);

/*
 * Adds share (of the window) to the call site (waiter, waker) of edge e (either
 * may be NULL, not both; copied): a site already there that reads the same
 * gains it, else a new one is added. Keeps e's sites heaviest first (the
 * earlier of equal ones first). 0, -EINVAL (share negative or not finite, no
 * stack on either side) or -ENOMEM.
 */
int wperf_run_edge_add_site(struct wperf_run_edge *e, const char *waiter, const char *waker,
			    double share);

/* Frees the sites of e past the first keep (its heaviest). */
void wperf_run_edge_keep_sites(struct wperf_run_edge *e, size_t keep);

/* The edge from -> to of r, NULL when r does not have it (as strchr, the
 * caller decides whether it may change it). */
struct wperf_run_edge *wperf_run_edge(const struct wperf_run *r, const char *from, const char *to);

/* Sets r's value of metric name (NaN: not measured); 0 or -ENOMEM. */
int wperf_run_set_metric(struct wperf_run *r, const char *name, double value);

/* r's value of metric name; NaN when r did not measure it. */
double wperf_run_metric(const struct wperf_run *r, const char *name);

/* The share of edge from -> to in r, 0 when r does not have it. */
double wperf_run_edge_share(const struct wperf_run *r, const char *from, const char *to);

/* Does r have a knot of exactly the identities of s? */
int wperf_run_has_knot(const struct wperf_run *r, const struct wperf_idset *s);

/*
 * Checks a synthetic scenario's expectation x against r: when x names a knot,
 * one knot of r has, for each glob of x->knot, a member it matches
 * (fnmatch(3)) and no member that a glob of x->not_in_knot matches; each glob
 * of x->sink matches a sink of r; no knot at all when x->no_knot; the CMetric's
 * first vertex matches x->cmetric_first; each glob of x->timer_paced matches a
 * thread of r->timer_paced. Returns the index of the knot found
 * (0 when x names none), or -1 with why set to a sentence saying what was
 * missing ("no knot has fig1/B; knots: {...}").
 */
int wperf_run_expect(const struct wperf_run *r, const struct wperf_expect *x, char *why,
		     size_t size);

void wperf_run_release(struct wperf_run *r);

/* ---- the run set ---- */

/* Moves *r into the set (r is left empty, as by wperf_run_init); 0 or -ENOMEM
 * (r is left as it was). */
int wperf_runset_add(struct wperf_runset *rs, struct wperf_run *r);

void wperf_runset_release(struct wperf_runset *rs);

#endif /* WPERF_RUNSET_H */
