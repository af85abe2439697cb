/* SPDX-License-Identifier: MIT */
/*
 * The report for people: the verdict first (the knots that bound the
 * throughput, with their edges and the call sites behind them), then sinks,
 * background knots, the long waits that are not the bottleneck
 * (report_text_waits.c), the CMetric ranking, and the checks against the
 * kernel's counters (report_text_checks.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/report/report_text_internal.h"

static void knot_section(struct text *t, const struct wperf_knot *k, size_t number)
{
	const struct wperf_graph *g = &t->a->merged.graph;

	text_put(t, "knot %zu:", number);
	for (size_t i = 0; i < k->nvertices; i++)
		text_put(t, "%s %s", i ? "," : "", text_vname(t, k->vertices[i]));
	text_put(t, "\n    %s; lowest edge %.3f s (%.1f%%)%s\n",
		 k->simple_cycle ? "a simple cycle" : "strongly connected", k->min_weight / 1e9,
		 text_pct(t, k->min_weight),
		 k->removed_edges ? " after refinement trimmed lighter edges" : "");
	/* Its edges, heaviest first. */
	for (size_t i = 0; i < k->nvertices; i++) {
		size_t first, n;

		wperf_graph_out(g, k->vertices[i], &first, &n);
		for (size_t j = first; j < first + n; j++) {
			const struct wperf_edge *ed = &g->edges[j];
			int inside = 0;

			for (size_t x = 0; x < k->nvertices; x++)
				inside |= k->vertices[x] == ed->to;
			if (!inside || !ed->weight)
				continue;
			/* One the knot level left out of the search is said, not hidden:
			 * a wait among the knot's members all the same. */
			text_put(t, "    %s -> %s  %.3f s  %.1f%% of the window%s\n",
				 text_vname(t, ed->from), text_vname(t, ed->to), ed->weight / 1e9,
				 text_pct(t, ed->weight),
				 ed->weight < t->a->min_edge_ns
				     ? "  (under the knot level: left out of the search)"
				 : ed->weight >= t->a->threshold_ns ? ""
								    : "  (below the threshold)");
			if (ed->weight >= t->a->min_edge_ns)
				text_edge_sites(t, ed);
		}
	}
	for (size_t i = 0; i < k->nvertices; i++) {
		const struct wperf_vertex *v = &t->a->merged.vertices[k->vertices[i]];

		if (v->kind != WPERF_ENTITY_THREAD)
			continue;
		text_put(t, "    runnable: %s %.3f s (%.1f%%)%s\n", v->identity,
			 v->runnable_ns / 1e9, text_pct(t, v->runnable_ns),
			 text_pct(t, v->runnable_ns) > 10
			     ? ": waiting for a CPU, more cores or a higher "
			       "priority may help"
			     : "");
	}
	text_put(t, "\n");
}

/* What the target is and holds: the processes and threads of the trace it
 * names (a command's whole tree, for a recorded one). */
static void target_line(struct text *t)
{
	const struct wperf_timeline *tl = t->a->timeline;
	size_t threads = 0, processes = 0;

	for (uint32_t i = 0; i < tl->nentities; i++) {
		const struct wperf_entity *en = &tl->entities[i];
		int first = 1;

		if (!wperf_analysis_in_target(en, t->o.target))
			continue;
		threads++;
		for (uint32_t j = 0; j < i && first; j++)
			first = !(tl->entities[j].tgid == en->tgid &&
				  wperf_analysis_in_target(&tl->entities[j], t->o.target));
		processes += first;
	}
	text_put(t,
		 "target: %s: %zu process%s, %zu thread%s (the knots and sinks it waits for, its "
		 "own waits and CMetric; --all: the whole machine)\n",
		 t->o.target, processes, processes == 1 ? "" : "es", threads,
		 threads == 1 ? "" : "s");
}

static void header(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	const struct wperf_timeline *tl = a->timeline;

	text_put(t, "wperf-bench report%s%s\n", t->o.trace_name ? ": " : "",
		 t->o.trace_name ? t->o.trace_name : "");
	text_put(t,
		 "window %.3f s, %u CPUs; refinement threshold %.0f%% of the window (%.3f s); "
		 "edges under %.1f%% (%.3f s) left out of the knot search\n",
		 a->window / 1e9, tl->ncpu, a->threshold * 100, a->threshold_ns / 1e9,
		 a->min_edge * 100, a->min_edge_ns / 1e9);
	if (t->o.target)
		target_line(t);
	else
		text_put(
		    t, "no target: every process of the machine (--target NAME|PIDS narrows it)\n");
	if (tl->lost_events)
		text_put(t,
			 "WARNING: %llu events were lost while recording: edges may be missing or "
			 "too light\n",
			 (unsigned long long)tl->lost_events);
	if (wperf_checks_warnings(&a->checks, t->o.target, NULL))
		text_put(t,
			 "WARNING: %zu checks of the model against the kernel's counters disagree "
			 "(listed at the end)\n",
			 wperf_checks_warnings(&a->checks, t->o.target, NULL));
	if (tl->capacity_note[0])
		text_put(t, "devices: %s\n", tl->capacity_note);
	if (tl->false_wakeups_removed || tl->spins_converted)
		text_put(t,
			 "annotations: %llu false wakeups removed, %llu spins counted as waits\n",
			 (unsigned long long)tl->false_wakeups_removed,
			 (unsigned long long)tl->spins_converted);
	text_put(t, "\n");
}

/* Where the heaviest of a vertex's critical slices (run with little
 * parallelism, GAPP section 4) ended: the code that ran serially. */
static void critical_site(struct text *t, uint32_t v)
{
	const struct wperf_callsites *c = &t->a->cmetric.critical;
	const struct wperf_callsite *best = NULL;
	char stack[STACK_TEXT];

	for (size_t i = 0; i < c->n; i++)
		if (t->a->merged.vertex_of[c->sites[i].from] == v &&
		    (!best || c->sites[i].weight > best->weight))
			best = &c->sites[i];
	if (!best)
		return;
	if (best->ustack >= 0)
		text_stack(t, best->ustack, 1, best->waiter_tgid, stack, sizeof(stack));
	else if (best->kstack >= 0)
		text_stack(t, best->kstack, 0, 0, stack, sizeof(stack));
	else
		return;
	text_put(t, "        critical slices ended in %s\n", stack);
}

static void cmetric(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	size_t others = 0;

	text_put(
	    t,
	    "\nCMetric (GAPP: running time divided by the threads active with it) over the %u "
	    "threads of %s; critical slices: %.1f of them active or fewer on average; top 10:\n",
	    a->cmetric.threads, a->target ? a->target : "the machine", a->cmetric.min_parallelism);
	for (uint32_t v = 0; v < a->merged.nvertices; v++)
		others += !t->mine[v] && a->vertex_cmetric[v];
	for (uint64_t above = UINT64_MAX, shown = 0; shown < 10; shown++) {
		uint32_t best = UINT32_MAX;

		for (uint32_t v = 0; v < a->merged.nvertices; v++)
			if (t->mine[v] && a->vertex_cmetric[v] < above &&
			    (best == UINT32_MAX || a->vertex_cmetric[v] > a->vertex_cmetric[best]))
				best = v;
		if (best == UINT32_MAX || a->vertex_cmetric[best] == 0)
			break;
		text_put(t, "    %-40s %.3f s  (%.2f CPUs)\n", text_vname(t, best),
			 a->vertex_cmetric[best] / 1e9, a->merged.vertices[best].cpu);
		critical_site(t, best);
		above = a->vertex_cmetric[best];
	}
	if (others)
		text_put(t, "    (%zu thread%s of other processes left out: --all ranks them)\n",
			 others, text_plural(others));
}

int wperf_report_text(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
		      const struct wperf_report_opts *opts, struct wperf_buf *out)
{
	struct text t = {.a = a, .sym = sym, .out = out};
	size_t knots = 0;

	if (opts)
		t.o = *opts;
	t.mine = calloc(a->merged.nvertices + 1, 1);
	t.reach = calloc(a->merged.nvertices + 1, 1);
	if (!t.mine || !t.reach ||
	    wperf_analysis_mark_reach(a, &a->knot_graph, t.o.target, t.reach) < 0) {
		free(t.mine);
		free(t.reach);
		return -ENOMEM;
	}
	wperf_analysis_mark_target(a, t.o.target, t.mine);
	t.o.top_sites = t.o.top_sites ? t.o.top_sites : 3;
	t.o.frames = t.o.frames ? t.o.frames : 6;
	t.o.outside_edges = t.o.outside_edges ? t.o.outside_edges : 5;
	header(&t);
	for (size_t i = 0; i < a->knots.nfinal; i++)
		knots += a->knots.knots[i].kind == WPERF_KNOT &&
			 wperf_knot_wanted(a, &a->knots.knots[i], t.o.target);
	text_put(&t, "verdict: %zu knot%s bound%s the throughput%s\n\n", knots,
		 knots == 1 ? "" : "s", knots == 1 ? "s" : "",
		 knots ? ":" : " (no knot: look at the sinks and the CMetric)");
	for (size_t i = 0, n = 0; i < a->knots.nfinal; i++)
		if (a->knots.knots[i].kind == WPERF_KNOT &&
		    wperf_knot_wanted(a, &a->knots.knots[i], t.o.target))
			knot_section(&t, &a->knots.knots[i], ++n);
	if (!knots)
		text_busy_hint(&t);
	text_timer_paced(&t);
	text_set_aside(&t);
	text_longest_waits(&t);
	text_unexplained(&t);
	cmetric(&t);
	text_put(&t, "\n");
	text_checks(&t, &a->checks, t.o.target);
	free(t.mine);
	free(t.reach);
	return t.err ? -ENOMEM : 0;
}
