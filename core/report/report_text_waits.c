/* SPDX-License-Identifier: MIT */
/*
 * The report for people, beyond the knots (see report_text.c): the threads
 * that may busy-wait when no knot explains the throughput, the sinks and
 * background knots set aside, the longest waits that are not the bottleneck,
 * the waits no waker ended, and the threads that timers pace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/report/report_text_internal.h"

/* Does anybody (not an interrupt) wait for v? A sink nobody waits for cannot
 * hold anyone's throughput down. */
static int waited_for(const struct wperf_analysis *a, uint32_t v)
{
	const struct wperf_graph *g = &a->knot_graph;

	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].to == v && g->edges[i].from != v && !a->ignored[g->edges[i].from])
			return 1;
	return 0;
}

/* A thread that runs this much and waits for nobody, when nothing else
 * explains the throughput, may be busy waiting. */
#define BUSY_CPU 0.75

/*
 * With no knot, the target's threads that run all the time and that nobody
 * waits for are suspects: a spin lock or a polling loop waits without
 * blocking, and the kernel never sees that wait (wPerf section 4.1).
 */
void text_busy_hint(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	size_t busy = 0;

	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];
		uint32_t v = k->vertices[0];

		if (k->kind != WPERF_SINK || waited_for(a, v) ||
		    a->merged.vertices[v].cpu < BUSY_CPU ||
		    !wperf_knot_wanted(a, k, t->o.target))
			continue;
		text_put(t, "busy: %s, %.2f CPUs, never waits, and nobody waits for it\n",
			 text_vname(t, v), a->merged.vertices[v].cpu);
		busy++;
	}
	if (busy)
		text_put(
		    t,
		    "note: busy waiting (a spin lock, a polling loop) hides waits from the kernel: "
		    "if these threads spin, annotate the spins (wperf_annotate.h) and record "
		    "again\n\n");
}

/* Who the lists are about, in their headings. */
static const char *whose(const struct text *t)
{
	return t->o.target ? "the target's" : "the";
}

/* Is background knot (or sink) k shown by name? Those with a thread of the
 * target are; without a target, idle sinks are only counted, being most of
 * the machine's threads. (What the target waits for is no test here: an idle
 * kernel worker it waits for waits for every process that gives it work.) */
static int named(const struct text *t, const struct wperf_knot *k)
{
	int mine = 0;

	for (size_t i = 0; i < k->nvertices; i++)
		mine |= t->mine[k->vertices[i]];
	return mine && (t->o.target || k->kind == WPERF_BACKGROUND_KNOT);
}

/* The sinks the target waits for and its background knots; the others counted. */
void text_set_aside(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	size_t idle = 0, knots = 0, names = 0;

	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];
		const struct wperf_vertex *v = &a->merged.vertices[k->vertices[0]];

		if (k->kind == WPERF_SINK && t->reach[k->vertices[0]] &&
		    waited_for(a, k->vertices[0]))
			text_put(t,
				 "sink: %s, %.2f CPUs: it waits for nobody; an on-CPU bottleneck "
				 "if it is busy (see the CMetric)\n",
				 v->identity, v->cpu);
	}
	for (size_t i = a->knots.nfinal; i < a->knots.nknots; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (k->kind != WPERF_BACKGROUND_KNOT && k->kind != WPERF_BACKGROUND_SINK)
			continue;
		if (!named(t, k)) {
			idle += k->kind == WPERF_BACKGROUND_SINK;
			knots += k->kind == WPERF_BACKGROUND_KNOT;
		} else if (k->kind == WPERF_BACKGROUND_KNOT) {
			text_put(
			    t, "background knot (set aside: no I/O, under 0.9 CPU in all, runnable "
			       "time counted):");
			for (size_t j = 0; j < k->nvertices; j++)
				text_put(t, "%s %s", j ? "," : "", text_vname(t, k->vertices[j]));
			text_put(t, "\n");
		}
	}
	/* The target's idle threads by name: a user looking for one learns where
	 * it went. */
	for (size_t i = a->knots.nfinal; i < a->knots.nknots; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (k->kind == WPERF_BACKGROUND_SINK && named(t, k))
			text_put(t, "%s %s",
				 names++ ? "," : "set aside as mostly idle (they wait for nobody):",
				 text_vname(t, k->vertices[0]));
	}
	if (names)
		text_put(t, "\n");
	if (idle)
		text_put(
		    t,
		    "%zu mostly idle thread%s that wait%s for nobody (timers, workers waiting for "
		    "work) %sset aside\n",
		    idle, text_plural(idle), idle == 1 ? "s" : "",
		    t->o.target ? "of other processes " : "");
	if (knots)
		text_put(t, "%zu background knot%s of other processes set aside\n", knots,
			 text_plural(knots));
}

/* May the list of the long waits show edge ed? */
static int long_wait(const struct text *t, const struct wperf_edge *ed)
{
	return !wperf_in_knot(t->a, ed->from) && !t->a->ignored[ed->to] &&
	       ed->from != ed->to;
}

/*
 * The longest waits of the target's threads outside the knots. Waits of other
 * processes, idle kernel workers waiting for work included, are counted and
 * left out: what the target waits for through others is in the knots and
 * sinks above.
 */
void text_longest_waits(struct text *t)
{
	const struct wperf_graph *g = &t->a->merged.graph;
	const struct wperf_edge *other = NULL;
	size_t others = 0;
	unsigned shown = 0;

	text_put(t,
		 "\nlongest waits of %s threads outside the knots (long, yet not what bounds the "
		 "throughput):\n",
		 whose(t));
	for (uint64_t above = UINT64_MAX; shown < t->o.outside_edges; shown++) {
		const struct wperf_edge *best = NULL;

		for (size_t i = 0; i < g->nedges; i++) {
			const struct wperf_edge *ed = &g->edges[i];

			if (ed->weight < above && (!best || ed->weight > best->weight) &&
			    t->mine[ed->from] && long_wait(t, ed))
				best = ed;
		}
		if (!best)
			break;
		text_put(t, "    %s -> %s  %.3f s  %.1f%%\n", text_vname(t, best->from),
			 text_vname(t, best->to), best->weight / 1e9, text_pct(t, best->weight));
		above = best->weight;
	}
	for (size_t i = 0; i < g->nedges; i++) {
		const struct wperf_edge *ed = &g->edges[i];

		if (t->mine[ed->from] || !long_wait(t, ed))
			continue;
		others++;
		if (!other || ed->weight > other->weight)
			other = ed;
	}
	if (others)
		text_put(t,
			 "    (%zu wait%s of other processes left out, the longest %s -> %s %.3f s "
			 "%.1f%%: --all shows them, the JSON lists every edge)\n",
			 others, text_plural(others), text_vname(t, other->from),
			 text_vname(t, other->to), other->weight / 1e9, text_pct(t, other->weight));
}

/* Of the waits of the target's threads, the time no waker ended (a process
 * left out of the analysis, a lost wakeup, the window's end): the part the
 * graph does not explain. */
void text_unexplained(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	uint64_t waiting = 0, none = 0, above = UINT64_MAX;
	size_t with = 0;

	for (uint32_t v = 0; v < a->merged.nvertices; v++) {
		const struct wperf_vertex *x = &a->merged.vertices[v];

		if (!t->mine[v])
			continue;
		waiting += x->waiting_ns;
		none += x->no_waker_ns;
		with += x->no_waker_ns > 0;
	}
	text_put(t,
		 "\nwaits with no waker (the graph cannot explain them): %.3f s of %s threads' "
		 "%.3f s of waiting\n",
		 none / 1e9, whose(t), waiting / 1e9);
	for (unsigned shown = 0; shown < t->o.outside_edges; shown++) {
		uint32_t best = UINT32_MAX;

		for (uint32_t v = 0; v < a->merged.nvertices; v++) {
			uint64_t n = a->merged.vertices[v].no_waker_ns;

			if (t->mine[v] && n && n < above &&
			    (best == UINT32_MAX || n > a->merged.vertices[best].no_waker_ns))
				best = v;
		}
		if (best == UINT32_MAX)
			break;
		const struct wperf_vertex *x = &a->merged.vertices[best];

		text_put(t, "    %-40s %.3f s  %.1f%% of the window", text_vname(t, best),
			 x->no_waker_ns / 1e9, text_pct(t, x->no_waker_ns));
		if (x->unfinished_ns)
			text_put(t, " (%.3f s still waiting when it ended)",
				 x->unfinished_ns / 1e9);
		text_put(t, "\n");
		above = x->no_waker_ns;
		with--;
	}
	if (with)
		text_put(t, "    (%zu more thread%s: the JSON has every vertex's no_waker_ns)\n",
			 with, text_plural(with));
}

/* The target's threads that wait for v (wperf_waits_on): those a
 * pacer paces. */
static void pacer_waiters(struct text *t, uint32_t v)
{
	const struct wperf_graph *g = &t->a->merged.graph;
	int first = 1;

	for (size_t i = 0; i < g->nedges; i++) {
		const struct wperf_edge *ed = &g->edges[i];

		if (!wperf_waits_on(t->a, t->mine, ed, v))
			continue;
		text_put(t, "%s %s %.3f s (%.1f%%)", first ? "        waited for by" : ",",
			 text_vname(t, ed->from), ed->weight / 1e9, text_pct(t, ed->weight));
		first = 0;
	}
	if (!first)
		text_put(t, "\n");
}

/* The threads the target waits for that sleep on timers while others wait
 * for them (wperf_timer_paced_threads), with who of the target waits and where
 * they sleep. */
void text_timer_paced(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	struct wperf_timer_paced *p;
	size_t n;

	if (wperf_timer_paced_threads(a, t->mine, &p, &n) < 0) {
		t->err = -ENOMEM;
		return;
	}
	if (n)
		text_put(
		    t,
		    "paced by a timer (asleep on timers while others wait for it: its sleeps set "
		    "the pace):\n");
	for (size_t i = 0; i < n && i < t->o.outside_edges; i++) {
		uint32_t timer = a->merged.vertex_of[a->timeline->timer];
		int64_t e = wperf_graph_find(&a->merged.graph, p[i].vertex, timer);

		text_put(
		    t,
		    "    %s: asleep on timers %.3f s (%.1f%%), others waiting meanwhile %.3f s "
		    "(%.1f%%)\n",
		    text_vname(t, p[i].vertex), p[i].sleep_ns / 1e9, text_pct(t, p[i].sleep_ns),
		    p[i].held_ns / 1e9, text_pct(t, p[i].held_ns));
		pacer_waiters(t, p[i].vertex);
		text_edge_sites(t, &a->merged.graph.edges[e]);
	}
	if (n)
		text_put(t, "\n");
	free(p);
}
