/* SPDX-License-Identifier: MIT */
/*
 * A run as the gate keeps it, taken from an analysis (see runset.h): the
 * knots, the edges the target reaches and their call sites, the CMetric's
 * first, the timer-paced threads and the first check that disagrees with the
 * kernel's counters.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/select.h"
#include "core/analysis/stack_text.h"
#include "core/gate/runset.h"

/* The knots and sinks of a that the target waits for, as identity sets. */
static int take_knots(const struct wperf_analysis *a, const char *target, struct wperf_run *out)
{
	const struct wperf_vertex *v = a->merged.vertices;
	struct wperf_buf ids = {0}, sinks = {0}; /* const char *: one knot's identities; sinks */
	int ret = 0;

	for (size_t i = 0; i < a->knots.nfinal && !ret; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (!wperf_knot_wanted(a, k, target))
			continue;
		if (k->kind == WPERF_SINK) {
			const char *id = v[k->vertices[0]].identity;

			ret = wperf_buf_append(&sinks, &id, sizeof(id));
			continue;
		}
		if (k->kind != WPERF_KNOT)
			continue;
		wperf_buf_clear(&ids);
		for (size_t j = 0; j < k->nvertices && !ret; j++) {
			const char *id = v[k->vertices[j]].identity;

			ret = wperf_buf_append(&ids, &id, sizeof(id));
		}
		if (!ret)
			ret = wperf_run_add_knot(out, (const char *const *)ids.data, k->nvertices);
	}
	if (!ret)
		ret = wperf_idset_from((const char *const *)sinks.data,
				       sinks.len / sizeof(const char *), &out->sinks);
	wperf_buf_release(&ids);
	wperf_buf_release(&sinks);
	return ret;
}

/* The identity of the target's vertex (every thread without a target) with
 * the largest CMetric, into out->cmetric_first. */
static int take_cmetric_first(const struct wperf_analysis *a, const char *target,
			      struct wperf_run *out)
{
	uint32_t n = a->merged.nvertices, best = UINT32_MAX;
	uint8_t *mine = calloc(n + 1, 1);

	if (!mine)
		return -ENOMEM;
	wperf_analysis_mark_target(a, target, mine);
	for (uint32_t v = 0; v < n; v++)
		if (mine[v] && a->vertex_cmetric[v] &&
		    (best == UINT32_MAX || a->vertex_cmetric[v] > a->vertex_cmetric[best]))
			best = v;
	free(mine);
	if (best == UINT32_MAX)
		return 0;
	out->cmetric_first = wperf_identity_dup(a->merged.vertices[best].identity);
	return out->cmetric_first ? 0 : -ENOMEM;
}

/* The part of the window in which the target had a thread: from its first
 * thread's start (or the window's) to its last thread's end (or the
 * window's). The window may run on after the target has exited (the recorder
 * stops some 10 to 100 ms after its load), and no operation is done there. */
static uint64_t target_span(const struct wperf_analysis *a, const char *target)
{
	const struct wperf_timeline *tl = a->timeline;
	uint64_t first = UINT64_MAX, last = 0;

	for (size_t e = 0; e < tl->nentities; e++) {
		const struct wperf_entity *en = &tl->entities[e];

		if (!wperf_analysis_in_target(en, target))
			continue;
		first = en->born < first ? en->born : first;
		last = en->died > last ? en->died : last;
	}
	return last > first ? last - first : 0;
}

/* The target's threads' running and runnable time, and the span they had. */
static int take_time(const struct wperf_analysis *a, const char *target, struct wperf_run *out)
{
	uint8_t *mine = calloc(a->merged.nvertices + 1, 1);

	if (!mine)
		return -ENOMEM;
	out->span_ns = target_span(a, target);
	wperf_analysis_mark_target(a, target, mine);
	for (uint32_t v = 0; v < a->merged.nvertices; v++)
		if (mine[v] && a->merged.vertices[v].kind == WPERF_ENTITY_THREAD) {
			out->running_ns += a->merged.vertices[v].running_ns;
			out->runnable_ns += a->merged.vertices[v].runnable_ns;
		}
	out->have_time = 1;
	free(mine);
	return 0;
}

/* The threads that pace the target with a timer, as identities. */
static int take_timer_paced(const struct wperf_analysis *a, const char *target,
			    struct wperf_run *out)
{
	uint8_t *mine = calloc(a->merged.nvertices + 1, 1);
	const char **ids = NULL;
	struct wperf_timer_paced *p = NULL;
	size_t n = 0;
	int ret = mine ? 0 : -ENOMEM;

	if (!ret) {
		wperf_analysis_mark_target(a, target, mine);
		ret = wperf_timer_paced_threads(a, mine, &p, &n);
	}
	if (!ret && n && !(ids = calloc(n, sizeof(*ids))))
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < n; i++)
		ids[i] = a->merged.vertices[p[i].vertex].identity;
	if (!ret)
		ret = wperf_idset_from(ids, n, &out->timer_paced);
	free(ids);
	free(p);
	free(mine);
	return ret;
}

static int cmp_edge(const void *pa, const void *pb)
{
	const struct wperf_run_edge *a = pa, *b = pb;
	int c = strcmp(a->from, b->from);

	return c ? c : strcmp(a->to, b->to);
}

/*
 * Marks in reach the target's vertices and every vertex they wait for,
 * directly or through others, over every edge of the merged graph. NULL
 * target: nothing to restrict, reach is left NULL.
 */
static int target_reach(const struct wperf_analysis *a, const char *target, uint8_t **reach)
{
	*reach = NULL;
	if (!target || !*target)
		return 0;
	if (!(*reach = calloc(a->merged.nvertices + 1, 1)))
		return -ENOMEM;
	return wperf_analysis_mark_reach(a, &a->merged.graph, target, *reach);
}

/*
 * Does the run keep edge ge: at or above WPERF_RUN_MIN_SHARE of the window,
 * between vertices that are not ignored and, with a target (reach not NULL),
 * among what it waits for? The rest of the machine (a shell of the CI runner
 * waiting for RCU, kernel workers flushing another job's writes) comes and
 * goes from run to run, and the gate would take its noise for the workload's
 * regression.
 */
static int edge_kept(const struct wperf_analysis *a, const uint8_t *reach,
		     const struct wperf_edge *ge)
{
	if (a->ignored && (a->ignored[ge->from] || a->ignored[ge->to]))
		return 0;
	if (reach && !reach[ge->from])
		return 0;
	return (double)ge->weight / (double)a->window >= WPERF_RUN_MIN_SHARE;
}

/* The edges the run keeps (edge_kept). */
static int take_edges(const struct wperf_analysis *a, const uint8_t *reach, struct wperf_run *out)
{
	const struct wperf_graph *g = &a->merged.graph;
	const struct wperf_vertex *v = a->merged.vertices;
	struct wperf_buf b = {0}; /* struct wperf_run_edge */
	struct wperf_run_edge *e;
	size_t n = 0, total;
	int ret = 0;

	for (size_t i = 0; i < g->nedges && !ret; i++) {
		const struct wperf_edge *ge = &g->edges[i];
		struct wperf_run_edge re = {0};

		if (!edge_kept(a, reach, ge))
			continue;
		re.share = (double)ge->weight / (double)a->window;
		re.from = wperf_identity_dup(v[ge->from].identity);
		re.to = wperf_identity_dup(v[ge->to].identity);
		ret = re.from && re.to ? wperf_buf_append(&b, &re, sizeof(re)) : -ENOMEM;
		if (ret) {
			free(re.from);
			free(re.to);
		}
	}
	e = (struct wperf_run_edge *)b.data;
	total = b.len / sizeof(*e);
	if (!ret && total)
		qsort(e, total, sizeof(*e), cmp_edge);
	/* Vertices that share an identity (kept apart by merge options) make edges
	 * with the same ends: they add up. */
	for (size_t i = 0; i < total; i++) {
		if (!ret && n && !cmp_edge(&e[n - 1], &e[i])) {
			e[n - 1].share += e[i].share;
		} else if (!ret) {
			e[n++] = e[i];
			continue;
		}
		free(e[i].from);
		free(e[i].to);
	}
	if (ret) {
		n = 0;
		wperf_buf_release(&b);
	}
	/* The run takes the buffer's memory. */
	out->edges = (struct wperf_run_edge *)b.data;
	out->nedges = n;
	return ret;
}

#define SITE_TEXT 1024

/* Where a site's side was, as a run keeps it (struct wperf_run_site), into a
 * new *out; NULL when it has no stack. */
static int site_side(struct wperf_symbolizer *sym, int32_t ustack, uint32_t tgid, int32_t kstack,
		     char **out)
{
	char text[SITE_TEXT] = "";

	if (ustack >= 0)
		wperf_stack_brief(sym, ustack, 1, tgid, WPERF_RUN_SITE_USER_FRAMES, " <- ", text,
				  sizeof(text));
	if (!text[0] && kstack >= 0)
		wperf_stack_brief(sym, kstack, 0, 0, WPERF_RUN_SITE_KERNEL_FRAMES, " <- ", text,
				  sizeof(text));
	*out = text[0] ? wperf_identity_dup(text) : NULL;
	return text[0] && !*out ? -ENOMEM : 0;
}

/* The call sites of graph edge ge, added to run edge re. */
static int add_edge_sites(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			  const struct wperf_edge *ge, struct wperf_run_edge *re)
{
	size_t first, n;
	int ret = 0;

	wperf_callsites_of_edge(&a->merged.sites, ge->from, ge->to, &first, &n);
	for (size_t i = first; i < first + n && !ret; i++) {
		const struct wperf_callsite *s = &a->merged.sites.sites[i];
		char *waiter = NULL, *waker = NULL;

		ret = site_side(sym, s->ustack, s->waiter_tgid, s->kstack, &waiter);
		if (!ret)
			ret = site_side(sym, s->waker_ustack, s->waker_tgid, s->waker_kstack,
					&waker);
		if (!ret && (waiter || waker))
			ret = wperf_run_edge_add_site(re, waiter, waker,
						      (double)s->weight / (double)a->window);
		free(waiter);
		free(waker);
	}
	return ret;
}

/* The call sites of the edges the run keeps, the heaviest WPERF_RUN_SITES of
 * each; those of the graph edges that one run edge joins add up. */
static int take_sites(const struct wperf_analysis *a, const uint8_t *reach,
		      struct wperf_symbolizer *sym, struct wperf_run *out)
{
	const struct wperf_graph *g = &a->merged.graph;
	const struct wperf_vertex *v = a->merged.vertices;
	int ret = 0;

	for (size_t i = 0; i < g->nedges && !ret; i++) {
		const struct wperf_edge *ge = &g->edges[i];
		char *from, *to;
		struct wperf_run_edge *re;

		if (!edge_kept(a, reach, ge))
			continue;
		from = wperf_identity_dup(v[ge->from].identity);
		to = wperf_identity_dup(v[ge->to].identity);
		re = from && to ? wperf_run_edge(out, from, to) : NULL;
		ret = !from || !to ? -ENOMEM : re ? add_edge_sites(a, sym, ge, re) : 0;
		free(from);
		free(to);
	}
	for (size_t i = 0; i < out->nedges; i++)
		wperf_run_edge_keep_sites(&out->edges[i], WPERF_RUN_SITES);
	return ret;
}

/* "disk busy disk:254:0 vda: 1.230 s by the model, 1.100 s by the kernel's
 * (tolerance 0.150 s)": the first check that leaves r unconfirmed. */
static int take_checks_first(const struct wperf_analysis *a, struct wperf_run *r)
{
	const struct wperf_checks_line *l = wperf_checks_unconfirmed(&a->checks);
	int ns, digits;
	double scale;
	const char *unit;

	if (!l)
		return 0;
	ns = !strcmp(wperf_check_unit_name(l->kind), "ns");
	digits = ns ? 3 : 0;
	scale = ns ? 1e9 : 1;
	unit = ns ? "s" : wperf_check_unit_name(l->kind);
	return asprintf(&r->checks_first,
			"%s %s: %.*f %s by the model, %.*f %s by the kernel's (tolerance %.*f %s)",
			wperf_check_kind_name(l->kind), l->subject, digits, l->model / scale, unit,
			digits, l->kernel / scale, unit, digits, l->tolerance / scale, unit) < 0
		   ? -ENOMEM
		   : 0;
}

int wperf_run_from_analysis(const struct wperf_analysis *a, const char *target, double throughput,
			    struct wperf_symbolizer *sym, struct wperf_run *out,
			    struct wperf_error *err)
{
	uint8_t *reach = NULL;
	size_t ok;
	int ret;

	wperf_run_init(out);
	if (a->window == 0)
		return wperf_error_set(
		    err, -EINVAL, "the analysis has an empty recording window: no run to compare");
	out->throughput = throughput;
	out->window_ns = a->window;
	out->lost_events = a->timeline ? a->timeline->lost_events : 0;
	out->events = a->timeline ? a->timeline->recorded_events : 0;
	out->have_checks = a->checks.have_counters;
	out->checks_warn = wperf_checks_confirming(&a->checks, &ok);
	out->checks_ok = ok;
	ret = take_checks_first(a, out);
	if (!ret)
		ret = take_knots(a, target, out);
	if (!ret)
		ret = target_reach(a, target, &reach);
	if (!ret)
		ret = take_edges(a, reach, out);
	if (!ret && sym)
		ret = take_sites(a, reach, sym, out);
	if (!ret)
		ret = take_cmetric_first(a, target, out);
	if (!ret)
		ret = take_timer_paced(a, target, out);
	if (!ret)
		ret = take_time(a, target, out);
	free(reach);
	if (ret) {
		wperf_run_release(out);
		return wperf_error_set(err, ret, "out of memory while keeping a run for the gate");
	}
	return 0;
}
