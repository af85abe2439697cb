/* SPDX-License-Identifier: MIT */
/*
 * The whole analysis of a trace, wPerf's steps in order: the timeline of
 * segments (with pseudo-threads and annotations), cascaded re-distribution into
 * a wait-for graph, merging into stable vertices, knots and sinks with
 * refinement and background knots, and GAPP's CMetric.
 *
 * Ownership: a struct wperf_analysis owns everything it points to;
 * wperf_analysis_free releases it (NULL-safe). It keeps no pointer into the
 * trace, which may be freed first.
 */
#ifndef WPERF_ANALYSIS_H
#define WPERF_ANALYSIS_H

#include "core/util/buf.h"
#include "core/analysis/cascade.h"
#include "core/analysis/checks.h"
#include "core/analysis/cmetric.h"
#include "core/analysis/knots.h"
#include "core/analysis/merge.h"
#include "core/analysis/timeline.h"

#define WPERF_DEFAULT_THRESHOLD 0.2 /* of the window, as in the paper */

struct wperf_analysis_opts {
	double threshold; /* refinement stops at this share of the window; 0: 0.2 */
	/* Edges lighter than this share of the window are left out of the knot search
	 * (still reported): on a whole machine, a light edge from a bottleneck to some
	 * unrelated process would otherwise keep any knot from closing. 0: the level
	 * where the knots are most stable (knot_level.h); < 0: keep every edge. */
	double min_edge;
	unsigned jobs; /* worker threads for the cascade; 0: one */
	struct wperf_merge_opts merge;
	struct wperf_capacity capacity;
	/* Analyze the processes the trace names as the recorder and the harness's
	 * own (META recorder_tgid, harness_pids) too. */
	int keep_harness;
	/* The application: a process's or its program's name, or pids
	 * "PID[,PID...]", where "PID+" is that process and its descendants; NULL
	 * or "": every thread of the trace. GAPP's CMetric is over its threads
	 * alone. Copied. */
	const char *target;
	/* GAPP's N_min: a timeslice run with at most this many of the target's
	 * threads active, on average, is critical; 0: half its threads, at least 1. */
	double min_parallelism;
};

/* How long each step of wperf_analyze took, in ns of the monotonic clock
 * (wall time: a step with jobs may take less than its CPU time). For `report
 * --timings` and the benchmarks; no answer depends on them. */
struct wperf_analysis_times {
	uint64_t timeline, checks, short_lived, cascade, merge, cmetric, knots;
};

struct wperf_analysis {
	uint64_t start, end, window; /* ns */
	uint64_t threshold_ns;
	double threshold; /* the share of the window it came from */
	struct wperf_timeline *timeline;
	struct wperf_graph entity_graph; /* before merging: over short_lived.h's view */
	struct wperf_merged merged;	 /* vertices, their graph and call sites */
	struct wperf_graph knot_graph;	 /* merged.graph less the edges under min_edge_ns */
	uint64_t min_edge_ns;		 /* the level the knot search used */
	double min_edge;		 /* the same, as a share of the window */
	struct wperf_knot_set knots;	 /* found in knot_graph */
	char *target;		      /* opts->target, a PID+ made its pids; NULL: every thread */
	struct wperf_cmetric cmetric; /* per timeline entity, over the target's threads */
	/* per vertex, one block that vertex_cmetric owns: */
	uint64_t *vertex_cmetric; /* its members' CMetric, ns */
	uint8_t *is_io;		  /* a disk or NIC */
	uint8_t *ignored;	  /* timers and other interrupts, not analyzed */
	double *cpu;		  /* CPUs used or wanted (running + runnable) */
	unsigned jobs;
	struct wperf_checks checks; /* the model against the kernel's counters */
	struct wperf_analysis_times times;
};

/*
 * Appends to out (uint32_t) the processes the analysis leaves out of a trace
 * unless told to keep them: the recorder and the harness's own (META
 * recorder_tgid, harness_pids). 0 or -ENOMEM.
 */
int wperf_analysis_excluded(const struct wperf_trace *t, struct wperf_buf *out);

int wperf_analyze(const struct wperf_trace *t, const struct wperf_analysis_opts *opts,
		  struct wperf_analysis **out, struct wperf_error *err);

void wperf_analysis_free(struct wperf_analysis *a);

/* Is a thread of process tgid, named process, one of target's (a process name,
 * or pids "PID[,PID...]")? A NULL or empty target has every thread. */
int wperf_analysis_is_target(const char *target, uint32_t tgid, const char *process);

/* Is en a thread of target, as wperf_analysis_is_target? */
int wperf_analysis_in_target(const struct wperf_entity *en, const char *target);

/*
 * target (a name, or pids "PID[,PID...]") with each "PID+" (that process and
 * every process descended from it in tl: the default target of a recorded
 * command, whatever it starts) made the list of their pids, into a new *out
 * (the caller frees it); *out NULL when target has no PID+. A target
 * "cgroup:PATH" is the processes of that control group and of the groups
 * below it as the recording started (in cgroup v2 or any v1 hierarchy), by
 * cgroups (the trace's META cgroups, NULL: none), each with the processes it
 * started in the window (a fork stays in its parent's group).
 * 0, -ENOENT (err: a group with no process, and the closest groups) or
 * -ENOMEM. wperf_analyze does this to its target.
 */
int wperf_analysis_expand_target(const struct wperf_timeline *tl, const char *target,
				 const char *cgroups, char **out, struct wperf_error *err);

/* Sets mark[v] for every vertex with a thread of target (NULL or empty:
 * every thread); mark has a byte per merged vertex. */
void wperf_analysis_mark_target(const struct wperf_analysis *a, const char *target, uint8_t *mark);

/* Sets mark[v] for the target's vertices (wperf_analysis_mark_target) and
 * for every vertex they wait for in g, directly or through others; 0 or
 * -ENOMEM. */
int wperf_analysis_mark_reach(const struct wperf_analysis *a, const struct wperf_graph *g,
			      const char *target, uint8_t *mark);

/*
 * Has the analysis's target (opts->target) a thread in the trace? 0 (also
 * with no target), or -ENOENT with err naming the target and the process
 * names of the trace closest to it (a mistyped name, a name the kernel
 * truncated to 15 bytes); -ENOMEM.
 */
int wperf_analysis_check_target(const struct wperf_analysis *a, struct wperf_error *err);

#endif /* WPERF_ANALYSIS_H */
