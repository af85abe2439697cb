/* SPDX-License-Identifier: MIT */
/*
 * The report for people: the verdict first (the knots that bound the
 * throughput, with their edges and the call sites behind them), then sinks,
 * background knots, the long waits that are not the bottleneck, and the
 * CMetric ranking.
 */
#include "core/report/report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_TEXT 2048

struct text {
	const struct wperf_analysis *a;
	struct wperf_symbolizer *sym;
	struct wperf_report_opts o;
	struct wperf_buf *out;
	/* per vertex: a thread of the target (every thread without one), and the
	 * target's vertices with all they wait for in the knot search's graph */
	uint8_t *mine, *reach;
	int err;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	char line[4096];
	va_list ap;

	if (t->err)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	t->err = wperf_buf_append(t->out, line, strlen(line));
}

static const char *vname(const struct text *t, uint32_t v)
{
	return wperf_report_display(&t->o, t->a->merged.vertices[v].identity);
}

static double pct(const struct text *t, uint64_t ns)
{
	return t->a->window ? 100.0 * (double)ns / (double)t->a->window : 0;
}

/* A stack, innermost first, without the scheduler's own frames. */
static void stack_text(struct text *t, int32_t id, int user, uint32_t tgid, char *buf, size_t size)
{
	char all[STACK_TEXT];
	const char *p = all;
	wperf_symbolize_stack(t->sym, id, user, tgid, "\n", 0, all, sizeof(all));
	while (!user && *p && wperf_report_scheduler_frame(p)) {
		const char *nl = strchr(p, '\n');

		p = nl ? nl + 1 : p + strlen(p);
	}
	buf[0] = '\0';
	for (unsigned f = 0, len = 0; *p && f < t->o.frames; f++) {
		size_t n = strcspn(p, "\n");

		len += snprintf(buf + len, size > len ? size - len : 0, "%s%.*s", f ? " <- " : "",
				(int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* One line of a call site: the share on the first, the rest indented under it. */
static void site_line(struct text *t, int *first, double share, const char *label,
		      const char *frames)
{
	if (*first)
		put(t, "        %3.0f%%  %-10s %s\n", share, label, frames);
	else
		put(t, "              %-10s %s\n", label, frames);
	*first = 0;
}

static void edge_sites(struct text *t, const struct wperf_edge *ed)
{
	const struct wperf_vertex *from = &t->a->merged.vertices[ed->from];
	size_t first, n;

	if (from->kind != WPERF_ENTITY_THREAD) {
		/* wPerf 4.1: a device's idle time, split over the threads that used it. */
		put(t, "              the device idles, waiting for I/O from %s\n",
		    vname(t, ed->to));
		return;
	}
	wperf_report_edge_sites(t->a, ed->from, ed->to, &first, &n);
	for (size_t i = first; i < first + n && i < first + t->o.top_sites; i++) {
		const struct wperf_callsite *s = &t->a->merged.sites.sites[i];
		double share = ed->weight ? 100.0 * (double)s->weight / (double)ed->weight : 0;
		char stack[STACK_TEXT];
		int line = 1;

		if (s->ustack >= 0) {
			stack_text(t, s->ustack, 1, s->waiter_tgid, stack, sizeof(stack));
			site_line(t, &line, share, "blocked in", stack);
		}
		if (s->kstack >= 0) {
			stack_text(t, s->kstack, 0, 0, stack, sizeof(stack));
			site_line(t, &line, share, "kernel", stack);
		}
		if (s->waker_ustack >= 0) {
			stack_text(t, s->waker_ustack, 1, s->waker_tgid, stack, sizeof(stack));
			site_line(t, &line, share, "woken from", stack);
		}
		if (s->waker_kstack >= 0) {
			stack_text(t, s->waker_kstack, 0, 0, stack, sizeof(stack));
			site_line(t, &line, share, "waker kernel", stack);
		}
		if (line)
			site_line(t, &line, share, "(no stacks)",
				  "recorded with --stacks none, or an "
				  "interrupt woke it");
	}
}

static void knot_section(struct text *t, const struct wperf_knot *k, size_t number)
{
	const struct wperf_graph *g = &t->a->merged.graph;

	put(t, "knot %zu:", number);
	for (size_t i = 0; i < k->nvertices; i++)
		put(t, "%s %s", i ? "," : "", vname(t, k->vertices[i]));
	put(t, "\n    %s; lowest edge %.3f s (%.1f%%)%s\n",
	    k->simple_cycle ? "a simple cycle" : "strongly connected", k->min_weight / 1e9,
	    pct(t, k->min_weight),
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
			if (!inside || ed->weight < t->a->min_edge_ns)
				continue;
			put(t, "    %s -> %s  %.3f s  %.1f%% of the window%s\n", vname(t, ed->from),
			    vname(t, ed->to), ed->weight / 1e9, pct(t, ed->weight),
			    ed->weight >= t->a->threshold_ns ? "" : "  (below the threshold)");
			edge_sites(t, ed);
		}
	}
	for (size_t i = 0; i < k->nvertices; i++) {
		const struct wperf_vertex *v = &t->a->merged.vertices[k->vertices[i]];

		if (v->kind != WPERF_ENTITY_THREAD)
			continue;
		put(t, "    runnable: %s %.3f s (%.1f%%)%s\n", v->identity, v->runnable_ns / 1e9,
		    pct(t, v->runnable_ns),
		    pct(t, v->runnable_ns) > 10 ? ": waiting for a CPU, more cores or a higher "
						  "priority may help"
						: "");
	}
	put(t, "\n");
}

static void header(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	const struct wperf_timeline *tl = a->timeline;

	put(t, "wperf-bench report%s%s\n", t->o.trace_name ? ": " : "",
	    t->o.trace_name ? t->o.trace_name : "");
	put(t,
	    "window %.3f s, %u CPUs; refinement threshold %.0f%% of the window (%.3f s); "
	    "edges under %.1f%% (%.3f s) left out of the knot search\n",
	    a->window / 1e9, tl->ncpu, a->threshold * 100, a->threshold_ns / 1e9, a->min_edge * 100,
	    a->min_edge_ns / 1e9);
	if (t->o.target)
		put(t,
		    "target: %s (the knots and sinks it waits for, its own waits and CMetric; "
		    "--all: the whole machine)\n",
		    t->o.target);
	else
		put(t, "no target: every process of the machine (--target NAME|PIDS narrows it)\n");
	if (tl->lost_events)
		put(t,
		    "WARNING: %llu events were lost while recording: edges may be missing or "
		    "too light\n",
		    (unsigned long long)tl->lost_events);
	if (wperf_report_checks_warnings(&a->checks, t->o.target, NULL))
		put(t,
		    "WARNING: %zu checks of the model against the kernel's counters disagree "
		    "(listed at the end)\n",
		    wperf_report_checks_warnings(&a->checks, t->o.target, NULL));
	if (tl->capacity_note[0])
		put(t, "devices: %s\n", tl->capacity_note);
	if (tl->false_wakeups_removed || tl->spins_converted)
		put(t, "annotations: %llu false wakeups removed, %llu spins counted as waits\n",
		    (unsigned long long)tl->false_wakeups_removed,
		    (unsigned long long)tl->spins_converted);
	put(t, "\n");
}

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
static void busy_hint(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	size_t busy = 0;

	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];
		uint32_t v = k->vertices[0];

		if (k->kind != WPERF_SINK || waited_for(a, v) ||
		    a->merged.vertices[v].cpu < BUSY_CPU ||
		    !wperf_report_knot_wanted(a, k, t->o.target))
			continue;
		put(t, "busy: %s, %.2f CPUs, never waits, and nobody waits for it\n", vname(t, v),
		    a->merged.vertices[v].cpu);
		busy++;
	}
	if (busy)
		put(t,
		    "note: busy waiting (a spin lock, a polling loop) hides waits from the kernel: "
		    "if these threads spin, annotate the spins (wperf_annotate.h) and record "
		    "again\n\n");
}

/* The plural ending for n things. */
static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
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
static void set_aside(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	size_t idle = 0, knots = 0, names = 0;

	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];
		const struct wperf_vertex *v = &a->merged.vertices[k->vertices[0]];

		if (k->kind == WPERF_SINK && t->reach[k->vertices[0]] &&
		    waited_for(a, k->vertices[0]))
			put(t,
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
			put(t, "background knot (set aside: no I/O, under 0.9 CPU in all, runnable "
			       "time counted):");
			for (size_t j = 0; j < k->nvertices; j++)
				put(t, "%s %s", j ? "," : "", vname(t, k->vertices[j]));
			put(t, "\n");
		}
	}
	/* The target's idle threads by name: a user looking for one learns where
	 * it went. */
	for (size_t i = a->knots.nfinal; i < a->knots.nknots; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (k->kind == WPERF_BACKGROUND_SINK && named(t, k))
			put(t, "%s %s",
			    names++ ? "," : "set aside as mostly idle (they wait for nobody):",
			    vname(t, k->vertices[0]));
	}
	if (names)
		put(t, "\n");
	if (idle)
		put(t,
		    "%zu mostly idle thread%s that wait%s for nobody (timers, workers waiting for "
		    "work) %sset aside\n",
		    idle, plural(idle), idle == 1 ? "s" : "",
		    t->o.target ? "of other processes " : "");
	if (knots)
		put(t, "%zu background knot%s of other processes set aside\n", knots,
		    plural(knots));
}

/* May the list of the long waits show edge ed? */
static int long_wait(const struct text *t, const struct wperf_edge *ed)
{
	return !wperf_report_in_knot(t->a, ed->from) && !t->a->ignored[ed->to] &&
	       ed->from != ed->to;
}

/*
 * The longest waits of the target's threads outside the knots. Waits of other
 * processes, idle kernel workers waiting for work included, are counted and
 * left out: what the target waits for through others is in the knots and
 * sinks above.
 */
static void longest_waits(struct text *t)
{
	const struct wperf_graph *g = &t->a->merged.graph;
	const struct wperf_edge *other = NULL;
	size_t others = 0;
	unsigned shown = 0;

	put(t,
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
		put(t, "    %s -> %s  %.3f s  %.1f%%\n", vname(t, best->from), vname(t, best->to),
		    best->weight / 1e9, pct(t, best->weight));
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
		put(t,
		    "    (%zu wait%s of other processes left out, the longest %s -> %s %.3f s "
		    "%.1f%%: --all shows them, the JSON lists every edge)\n",
		    others, plural(others), vname(t, other->from), vname(t, other->to),
		    other->weight / 1e9, pct(t, other->weight));
}

/* Of the waits of the target's threads, the time no waker ended (a process
 * left out of the analysis, a lost wakeup, the window's end): the part the
 * graph does not explain. */
static void unexplained(struct text *t)
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
	put(t,
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

		put(t, "    %-40s %.3f s  %.1f%% of the window", vname(t, best),
		    x->no_waker_ns / 1e9, pct(t, x->no_waker_ns));
		if (x->unfinished_ns)
			put(t, " (%.3f s still waiting when it ended)", x->unfinished_ns / 1e9);
		put(t, "\n");
		above = x->no_waker_ns;
		with--;
	}
	if (with)
		put(t, "    (%zu more thread%s: the JSON has every vertex's no_waker_ns)\n", with,
		    plural(with));
}

/* The target's threads that wait for v (wperf_report_waits_on): those a
 * pacer paces. */
static void pacer_waiters(struct text *t, uint32_t v)
{
	const struct wperf_graph *g = &t->a->merged.graph;
	int first = 1;

	for (size_t i = 0; i < g->nedges; i++) {
		const struct wperf_edge *ed = &g->edges[i];

		if (!wperf_report_waits_on(t->a, t->mine, ed, v))
			continue;
		put(t, "%s %s %.3f s (%.1f%%)", first ? "        waited for by" : ",",
		    vname(t, ed->from), ed->weight / 1e9, pct(t, ed->weight));
		first = 0;
	}
	if (!first)
		put(t, "\n");
}

/* The threads the target waits for that sleep on timers while others wait
 * for them (wperf_report_timer_paced), with who of the target waits and where
 * they sleep. */
static void timer_paced(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	struct wperf_timer_paced *p;
	size_t n;

	if (wperf_report_timer_paced(a, t->mine, &p, &n) < 0) {
		t->err = -ENOMEM;
		return;
	}
	if (n)
		put(t,
		    "paced by a timer (asleep on timers while others wait for it: its sleeps set "
		    "the pace):\n");
	for (size_t i = 0; i < n && i < t->o.outside_edges; i++) {
		uint32_t timer = a->merged.vertex_of[a->timeline->timer];
		int64_t e = wperf_graph_find(&a->merged.graph, p[i].vertex, timer);

		put(t,
		    "    %s: asleep on timers %.3f s (%.1f%%), others waiting meanwhile %.3f s "
		    "(%.1f%%)\n",
		    vname(t, p[i].vertex), p[i].sleep_ns / 1e9, pct(t, p[i].sleep_ns),
		    p[i].held_ns / 1e9, pct(t, p[i].held_ns));
		pacer_waiters(t, p[i].vertex);
		edge_sites(t, &a->merged.graph.edges[e]);
	}
	if (n)
		put(t, "\n");
	free(p);
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
		stack_text(t, best->ustack, 1, best->waiter_tgid, stack, sizeof(stack));
	else if (best->kstack >= 0)
		stack_text(t, best->kstack, 0, 0, stack, sizeof(stack));
	else
		return;
	put(t, "        critical slices ended in %s\n", stack);
}

static void cmetric(struct text *t)
{
	const struct wperf_analysis *a = t->a;
	size_t others = 0;

	put(t,
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
		put(t, "    %-40s %.3f s  (%.2f CPUs)\n", vname(t, best),
		    a->vertex_cmetric[best] / 1e9, a->merged.vertices[best].cpu);
		critical_site(t, best);
		above = a->vertex_cmetric[best];
	}
	if (others)
		put(t, "    (%zu thread%s of other processes left out: --all ranks them)\n", others,
		    plural(others));
}

/* ---- the checks against the kernel's counters ---- */

#define CHECKS_TOP_THREADS 10 /* without a target: the threads shown, by running time */

static void check_value(char *buf, size_t size, unsigned kind, int sign, uint64_t v, int64_t d)
{
	const char *unit = wperf_check_unit_name(kind);

	if (!strcmp(unit, "ns"))
		snprintf(buf, size, sign ? "%+.4f s" : "%.4f s",
			 (sign ? (double)d : (double)v) / 1e9);
	else if (sign)
		snprintf(buf, size, "%+lld%s", (long long)d, strcmp(unit, "bytes") ? "" : " B");
	else
		snprintf(buf, size, "%llu%s", (unsigned long long)v,
			 strcmp(unit, "bytes") ? "" : " B");
}

static void check_line(struct text *t, const struct wperf_checks_line *l)
{
	char model[32], kernel[32], diff[32], tol[32];

	check_value(model, sizeof(model), l->kind, 0, l->model, 0);
	check_value(kernel, sizeof(kernel), l->kind, 0, l->kernel, 0);
	check_value(diff, sizeof(diff), l->kind, 1, 0, l->diff);
	check_value(tol, sizeof(tol), l->kind, 0, l->tolerance, 0);
	put(t, "  %-13s %-36s %13s %13s %13s %13s  %s\n", wperf_check_kind_name(l->kind),
	    l->subject, model, kernel, diff, tol, l->status == WPERF_CHECK_OK ? "OK" : "WARN");
}

/* Is l the first line of a thread (its running time, then wait and slices)? */
static int thread_group(const struct wperf_checks *c, size_t i)
{
	return c->lines[i].kind == WPERF_CHECK_THREAD_RUN && i + 2 < c->n;
}

/* The running time (kernel's) that a thread must reach to be among the
 * CHECKS_TOP_THREADS shown without a target. */
static uint64_t top_threads_floor(const struct wperf_checks *c)
{
	uint64_t floor = 0;

	for (unsigned shown = 0; shown < CHECKS_TOP_THREADS; shown++) {
		uint64_t best = 0;

		for (size_t i = 0; i < c->n; i++)
			if (thread_group(c, i) && c->lines[i].kernel > best &&
			    (!floor || c->lines[i].kernel < floor))
				best = c->lines[i].kernel;
		if (!best)
			break;
		floor = best;
	}
	return floor;
}

static void checks_block(struct text *t, const struct wperf_checks *c, const char *target)
{
	uint64_t floor = target ? 0 : top_threads_floor(c);
	size_t ok, warn = wperf_report_checks_warnings(c, target, &ok), others = 0, others_warn = 0;

	if (!c->have_counters) {
		put(t, "checks: no counters in this trace (recorded before trace format 1.1): "
		       "the model is not checked against the kernel's\n");
		return;
	}
	put(t, "checks against the kernel's counters: %zu OK, %zu WARN\n", ok, warn);
	put(t, "  %-13s %-36s %13s %13s %13s %13s\n", "check", "of", "model", "kernel", "diff",
	    "tolerance");
	for (size_t i = 0; i < c->n; i++) {
		const struct wperf_checks_line *l = &c->lines[i];

		if (thread_group(c, i)) {
			int warns = l[0].status || l[1].status || l[2].status;

			if (!wperf_report_check_counts(c, i, target)) {
				others++;
				others_warn += warns;
				i += 2;
				continue;
			}
			if (!target && !warns && !(floor && l->kernel >= floor)) {
				others++;
				i += 2;
				continue;
			}
		}
		check_line(t, l);
	}
	if (others)
		put(t,
		    "  and %zu more threads%s, %zu of which disagree (the JSON report lists every "
		    "line)\n",
		    others, target ? " (not the target's)" : "", others_warn);
	if (!c->cpus_checked)
		put(t,
		    "  CPUs not checked: the recording has only the --pid processes' switches\n");
	if (c->threads_unread)
		put(t, "  %zu threads not checked: their schedstat was not read at both ends\n",
		    c->threads_unread);
	if (c->irq_time == WPERF_IRQ_TIME_APART)
		put(t, "interrupts: this kernel counts interrupt time apart from the threads "
		       "(CONFIG_IRQ_TIME_ACCOUNTING), as the graph does: the thread lines leave "
		       "it out too\n");
	else
		put(t,
		    "interrupts: this kernel counts an interrupt's time as the running time of the "
		    "thread it interrupted (CONFIG_IRQ_TIME_ACCOUNTING %s), and so do the thread "
		    "lines (%.4f s in all); the graph gives that time to the interrupt\n",
		    c->irq_time == WPERF_IRQ_TIME_IN_THREAD ? "off" : "not known, taken as off",
		    c->irq_in_threads_ns / 1e9);
	if (c->steal_ns)
		put(t,
		    "steal: the hypervisor took %.2f s of the CPUs, which the kernel leaves out of "
		    "the threads' running time and the trace cannot see\n",
		    c->steal_ns / 1e9);
}

int wperf_report_checks_text(const struct wperf_checks *c, const char *target,
			     struct wperf_buf *out)
{
	struct text t = {.out = out};

	checks_block(&t, c, target);
	return t.err ? -ENOMEM : 0;
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
	    wperf_report_mark_reach(a, &a->knot_graph, t.o.target, t.reach) < 0) {
		free(t.mine);
		free(t.reach);
		return -ENOMEM;
	}
	wperf_report_mark_target(a, t.o.target, t.mine);
	t.o.top_sites = t.o.top_sites ? t.o.top_sites : 3;
	t.o.frames = t.o.frames ? t.o.frames : 6;
	t.o.outside_edges = t.o.outside_edges ? t.o.outside_edges : 5;
	header(&t);
	for (size_t i = 0; i < a->knots.nfinal; i++)
		knots += a->knots.knots[i].kind == WPERF_KNOT &&
			 wperf_report_knot_wanted(a, &a->knots.knots[i], t.o.target);
	put(&t, "verdict: %zu knot%s bound%s the throughput%s\n\n", knots, knots == 1 ? "" : "s",
	    knots == 1 ? "s" : "", knots ? ":" : " (no knot: look at the sinks and the CMetric)");
	for (size_t i = 0, n = 0; i < a->knots.nfinal; i++)
		if (a->knots.knots[i].kind == WPERF_KNOT &&
		    wperf_report_knot_wanted(a, &a->knots.knots[i], t.o.target))
			knot_section(&t, &a->knots.knots[i], ++n);
	if (!knots)
		busy_hint(&t);
	timer_paced(&t);
	set_aside(&t);
	longest_waits(&t);
	unexplained(&t);
	cmetric(&t);
	put(&t, "\n");
	checks_block(&t, &a->checks, t.o.target);
	free(t.mine);
	free(t.reach);
	return t.err ? -ENOMEM : 0;
}
