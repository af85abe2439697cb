/* SPDX-License-Identifier: MIT */
#include "core/analysis/analysis.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/trace/meta.h"
#include "core/util/buf.h"
#include "core/util/pidlist.h"
#include "core/analysis/knot_level.h"

static int vertex_tables(struct wperf_analysis *a)
{
	const struct wperf_merged *m = &a->merged;
	size_t n = (size_t)m->nvertices + 1;

	/* One zeroed block, widest first: vertex_cmetric, cpu, is_io, ignored. */
	a->vertex_cmetric = calloc(n, sizeof(uint64_t) + sizeof(double) + 2);
	if (!a->vertex_cmetric)
		return -ENOMEM;
	a->cpu = (double *)(a->vertex_cmetric + n);
	a->is_io = (uint8_t *)(a->cpu + n);
	a->ignored = a->is_io + n;
	for (uint32_t v = 0; v < m->nvertices; v++) {
		uint8_t kind = m->vertices[v].kind;

		a->is_io[v] = kind == WPERF_ENTITY_DISK || kind == WPERF_ENTITY_NIC;
		a->ignored[v] = kind == WPERF_ENTITY_IRQ;
		/* CPU used or wanted: a runnable thread is not asleep (knots.h) */
		a->cpu[v] =
		    m->vertices[v].cpu +
		    (a->window ? (double)m->vertices[v].runnable_ns / (double)a->window : 0);
	}
	for (uint32_t e = 0; e < a->timeline->nentities; e++)
		a->vertex_cmetric[m->vertex_of[e]] += a->cmetric.per_entity[e];
	return 0;
}

/* GAPP's CMetric over the target's threads (GAPP traces the application's). */
static int cmetric(struct wperf_analysis *a, double min_parallelism, struct wperf_error *err)
{
	const struct wperf_timeline *tl = a->timeline;
	uint8_t *app = calloc(tl->nentities + 1, 1);
	int e;

	if (!app)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < tl->nentities; i++)
		app[i] = (uint8_t)wperf_analysis_in_target(&tl->entities[i], a->target);
	e = wperf_cmetric_compute(tl, app, min_parallelism, &a->cmetric, err);
	free(app);
	return e;
}

/*
 * Appends to b (uint32_t) the pids of list, "PID[,PID...]" (META
 * recorder_tgid, harness_pids); what is not a pid is skipped: a damaged entry
 * leaves a process in the analysis, it never stops it.
 */
static int append_pids(struct wperf_buf *b, const char *list)
{
	uint32_t tgid;

	while (wperf_pid_list_next(&list, &tgid))
		if (wperf_buf_append(b, &tgid, sizeof(tgid)) < 0)
			return -ENOMEM;
	return 0;
}

int wperf_analysis_excluded(const struct wperf_trace *t, struct wperf_buf *out)
{
	if (append_pids(out, wperf_trace_meta(t, WPERF_META_RECORDER_TGID)) < 0 ||
	    append_pids(out, wperf_trace_meta(t, WPERF_META_HARNESS_PIDS)) < 0)
		return -ENOMEM;
	return 0;
}

/* The time since *last into *step, and now into *last (ns). */
static void lap(uint64_t *last, uint64_t *step)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (step)
		*step = now - *last;
	*last = now;
}

/* A new analysis of target (copied; NULL or empty: none), or NULL when out of
 * memory. */
static struct wperf_analysis *analysis_new(const char *target)
{
	struct wperf_analysis *a = calloc(1, sizeof(*a));

	if (a && target && *target && !(a->target = strdup(target))) {
		free(a);
		return NULL;
	}
	return a;
}

/* The window the timeline spans, and the thresholds and jobs relative to it. */
static void set_window(struct wperf_analysis *a, const struct wperf_analysis_opts *opts)
{
	a->start = a->timeline->start;
	a->end = a->timeline->end;
	a->window = a->end > a->start ? a->end - a->start : 0;
	a->threshold = opts->threshold > 0 ? opts->threshold : WPERF_DEFAULT_THRESHOLD;
	a->threshold_ns = (uint64_t)(a->threshold * (double)a->window);
	a->jobs = opts->jobs ? opts->jobs : 1;
}

/*
 * The level where the knots are most stable (knot_level.h), chosen on what
 * the target reaches (every vertex without a target): the edges among the
 * vertices it waits for, directly or not. How stable an unrelated process's
 * knots are says nothing of the target's, and a level that suits them could
 * cut an edge inside the target's knot.
 */
static int stable_level(struct wperf_analysis *a, const struct wperf_knot_opts *ko,
			struct wperf_error *err)
{
	const struct wperf_graph *g = &a->merged.graph;
	uint8_t *reach;
	struct wperf_graph sub = {0};
	int e;

	if (!a->target)
		return wperf_knot_level(g, ko, a->threshold_ns, &a->min_edge_ns, err);
	reach = calloc(a->merged.nvertices + 1, 1);
	e = reach ? wperf_analysis_mark_reach(a, g, a->target, reach) : -ENOMEM;
	if (!e)
		e = wperf_graph_init(&sub, a->merged.nvertices);
	for (size_t i = 0; i < g->nedges && !e; i++)
		if (reach[g->edges[i].from] && reach[g->edges[i].to])
			e = wperf_graph_add(&sub, g->edges[i].from, g->edges[i].to,
					    g->edges[i].weight);
	free(reach);
	if (e) {
		wperf_graph_release(&sub);
		return wperf_error_set(err, e, "out of memory");
	}
	wperf_graph_finish(&sub);
	e = wperf_knot_level(&sub, ko, a->threshold_ns, &a->min_edge_ns, err);
	wperf_graph_release(&sub);
	return e;
}

/* A target with a PID+, or a cgroup:PATH, becomes the list of the pids it
 * names. */
static int expand_target(struct wperf_analysis *a, const struct wperf_trace *t,
			 struct wperf_error *err)
{
	char *list;
	int e = wperf_analysis_expand_target(a->timeline, a->target,
					     wperf_trace_meta(t, WPERF_META_CGROUPS), &list, err);

	if (e < 0)
		return e;
	if (list) {
		free(a->target);
		a->target = list;
	}
	return 0;
}

/* The graph knots are searched in: the merged graph's edges of at least
 * min_edge of the window; min_edge 0: the level where the target's knots are
 * most stable (stable_level), < 0: every edge. */
static int knot_graph(struct wperf_analysis *a, double min_edge, const struct wperf_knot_opts *ko,
		      struct wperf_error *err)
{
	int e = 0;

	if (min_edge > 0)
		a->min_edge_ns = (uint64_t)(min_edge * (double)a->window);
	else if (min_edge == 0)
		e = stable_level(a, ko, err);
	if (e)
		return e;
	a->min_edge = a->window ? (double)a->min_edge_ns / (double)a->window : 0;
	e = wperf_graph_init(&a->knot_graph, a->merged.nvertices);
	for (size_t i = 0; i < a->merged.graph.nedges && !e; i++) {
		const struct wperf_edge *ed = &a->merged.graph.edges[i];

		if (ed->weight >= a->min_edge_ns)
			e = wperf_graph_add(&a->knot_graph, ed->from, ed->to, ed->weight);
	}
	if (e)
		return wperf_error_set(err, e, "out of memory");
	wperf_graph_finish(&a->knot_graph);
	return 0;
}

/* The timeline of t (the recorder and the harness left out unless opts keeps
 * them), the checks against the kernel's counters, and the target resolved. */
static int timeline(struct wperf_analysis *a, const struct wperf_trace *t,
		    const struct wperf_analysis_opts *opts, uint64_t *clock,
		    struct wperf_error *err)
{
	struct wperf_timeline_opts to = {.capacity = opts->capacity};
	struct wperf_buf excluded = {0}; /* uint32_t: the tgids left out */
	int e = 0;

	/* The recorder and the harness (the runner, the shells that wait for its
	 * commands) are not the workload: their waits and wakeups would be judged
	 * with it. */
	if (!opts->keep_harness && wperf_analysis_excluded(t, &excluded) < 0)
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	to.exclude_tgids = (const uint32_t *)excluded.data;
	to.nexclude = excluded.len / sizeof(uint32_t);
	if (!e)
		e = wperf_timeline_build(t, &to, &a->timeline, err);
	lap(clock, &a->times.timeline);
	if (!e) {
		struct wperf_checks_opts ko = {to.exclude_tgids, to.nexclude};

		e = wperf_checks_compute(a->timeline, wperf_trace_counters(t, WPERF_COUNTERS_START),
					 wperf_trace_counters(t, WPERF_COUNTERS_END), &ko,
					 &a->checks, err);
	}
	wperf_buf_release(&excluded);
	if (!e)
		e = expand_target(a, t, err);
	lap(clock, &a->times.checks);
	return e;
}

/* The wait-for graph: short-lived threads folded into their creators, the
 * edges weighed by cascaded re-distribution, threads merged into identities;
 * then CMetric and the per-vertex tables. */
static int weigh(struct wperf_analysis *a, const struct wperf_trace *t,
		 const struct wperf_analysis_opts *opts, uint64_t *clock, struct wperf_error *err)
{
	struct wperf_callsites entity_sites = {0};
	struct wperf_cascade_opts co = {.jobs = a->jobs};
	struct wperf_short_lived sl;
	int e = wperf_short_lived_build(a->timeline, opts->merge.short_lived, &sl, err);

	lap(clock, &a->times.short_lived);
	co.stand_in = sl.stand_in;
	if (!e)
		e = wperf_cascade(&sl.view, &co, &a->entity_graph, &entity_sites, err);
	lap(clock, &a->times.cascade);
	if (!e)
		e = wperf_merge(t, &sl, &a->entity_graph, &entity_sites, &opts->merge, &a->merged,
				err);
	wperf_short_lived_release(&sl);
	wperf_callsites_release(&entity_sites);
	lap(clock, &a->times.merge);
	if (!e)
		e = cmetric(a, opts->min_parallelism, err);
	if (!e && vertex_tables(a) < 0)
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	lap(clock, &a->times.cmetric);
	return e;
}

int wperf_analyze(const struct wperf_trace *t, const struct wperf_analysis_opts *opts,
		  struct wperf_analysis **out, struct wperf_error *err)
{
	struct wperf_analysis_opts defaults = {0};
	struct wperf_analysis *a;
	uint64_t clock;
	int e;

	if (!opts)
		opts = &defaults;
	if (!(a = analysis_new(opts->target)))
		return wperf_error_set(err, -ENOMEM, "out of memory");
	lap(&clock, NULL);
	e = timeline(a, t, opts, &clock, err);
	if (!e) {
		set_window(a, opts);
		e = weigh(a, t, opts, &clock, err);
	}
	if (e)
		goto fail;

	struct wperf_knot_opts ko = {
	    .threshold = a->threshold_ns,
	    .is_io = a->is_io,
	    .cpu = a->cpu,
	    .ignore = a->ignored,
	};
	e = knot_graph(a, opts->min_edge, &ko, err);
	if (!e)
		e = wperf_find_knots(&a->knot_graph, &ko, &a->knots, err);
	lap(&clock, &a->times.knots);
	if (e)
		goto fail;
	*out = a;
	return 0;
fail:
	wperf_analysis_free(a);
	return e;
}

void wperf_analysis_free(struct wperf_analysis *a)
{
	if (!a)
		return;
	wperf_timeline_free(a->timeline);
	wperf_checks_release(&a->checks);
	wperf_graph_release(&a->entity_graph);
	wperf_merged_release(&a->merged);
	wperf_graph_release(&a->knot_graph);
	wperf_knot_set_release(&a->knots);
	wperf_cmetric_release(&a->cmetric);
	free(a->vertex_cmetric); /* and cpu, is_io, ignored */
	free(a->target);
	free(a);
}
