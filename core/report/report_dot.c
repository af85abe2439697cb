/* SPDX-License-Identifier: MIT */
/*
 * The merged wait-for graph in Graphviz DOT, drawn the way wPerf's section 5
 * draws it: edges at or above the refinement threshold solid (here also bold),
 * the others dashed; a vertex with a heavy self-loop marked with "*" (DOT also
 * draws the loop itself). The vertices of each final knot are filled and
 * grouped in a cluster "knot N", numbered as the text report numbers them;
 * sinks get another colour. Interrupt pseudo-threads (timers and the like) are
 * not part of the analysis and are left out, with their edges.
 *
 * A graph of a real server has hundreds of edges, which no layout makes
 * readable: only the heaviest edges are drawn (opts->top_edges, or 60 when the
 * graph has more than 60), always with every edge inside a knot; a vertex left
 * without an edge is not drawn.
 *
 * A legend (a cluster of its own) says what the arrows, colours, line styles
 * and shapes mean. Every edge and vertex has a tooltip, which the SVG shows on
 * hover: an edge's names its two ends ("A waits for B"), its weight and its
 * heaviest call sites (where the waiter blocked, where the waker woke it);
 * a vertex's its name, kind and knot.
 *
 * The output depends only on the analysis: vertices and edges come in index
 * order, ties in weight are broken by edge index.
 */
#include "core/report/report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/cmp.h"

#define DEFAULT_MAX_EDGES 60

#define KNOT_FILL    "#f4cccc" /* light red */
#define KNOT_LINE    "#cc0000"
#define SINK_FILL    "#cfe2f3" /* light blue */
#define DASHED_COLOR "#666666"

struct dot {
	const struct wperf_analysis *a;
	struct wperf_symbolizer *sym; /* NULL: tooltips without call sites */
	const struct wperf_report_opts *opts;
	struct wperf_buf *out;
	int err;
	uint32_t *knot_of;    /* per vertex: number (1..) of its wanted final knot, or 0 */
	uint8_t *sink;	      /* per vertex: a final sink */
	uint8_t *keep_edge;   /* per edge of the merged graph: drawn */
	uint8_t *keep_vertex; /* per vertex: has a drawn edge */
	uint8_t *heavy_loop;  /* per vertex: a drawn self-loop at or above the threshold */
	uint32_t nknots;      /* wanted final knots */
	size_t ncandidates;   /* edges not touching an irq vertex */
	size_t ndrawn;	      /* of them, drawn */
	int line_used;	      /* the tooltip line of a call site names a stack already */
};

static void put(struct dot *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct dot *d, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (d->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		d->err = -EINVAL;
	else
		d->err = wperf_buf_append(d->out, line,
					  (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/*
 * Appends s as the inside of a DOT double-quoted string: quotes and backslashes
 * escaped (a backslash would otherwise start an escape such as \N or \l),
 * control characters and bytes that are not UTF-8 (dot rejects them) as '?'.
 */
static void put_escaped(struct dot *d, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p && !d->err) {
		size_t n = utf8_len(p);

		if (*p == '"' || *p == '\\')
			d->err = wperf_buf_append(d->out, "\\", 1);
		if (d->err)
			break;
		if (n == 0 || *p < 0x20 || *p == 0x7f) {
			d->err = wperf_buf_append(d->out, "?", 1);
			p++;
		} else {
			d->err = wperf_buf_append(d->out, p, n);
			p += n;
		}
	}
}

static double pct(const struct wperf_analysis *a, uint64_t ns)
{
	return a->window ? 100.0 * (double)ns / (double)a->window : 0;
}

/* Is the vertex an interrupt pseudo-thread, left out of the drawing? */
static int irq_vertex(const struct wperf_analysis *a, uint32_t v)
{
	return a->ignored[v] || a->merged.vertices[v].kind == WPERF_ENTITY_IRQ;
}

/* Numbers the wanted final knots like the text report, marks sinks. */
static void mark_knots(struct dot *d, const char *target)
{
	const struct wperf_analysis *a = d->a;

	d->nknots = wperf_number_knots(a, target, d->knot_of);
	for (size_t i = 0; i < a->knots.nfinal; i++)
		if (a->knots.knots[i].kind == WPERF_SINK)
			for (size_t j = 0; j < a->knots.knots[i].nvertices; j++)
				d->sink[a->knots.knots[i].vertices[j]] = 1;
}

/* An edge to rank by weight, heaviest first, ties by index. */
struct ranked {
	uint64_t weight;
	size_t index;
};

static int by_weight(const void *pa, const void *pb)
{
	const struct ranked *x = pa, *y = pb;
	const uint64_t kx[] = {wperf_key_desc(x->weight), x->index};
	const uint64_t ky[] = {wperf_key_desc(y->weight), y->index};

	return wperf_cmp_keys(kx, ky, 2);
}

/*
 * Picks the edges to draw: the max_edges heaviest among those not touching an
 * irq vertex (all of them when max_edges is 0 and they are few), and every edge
 * inside a knot. Then the vertices they touch.
 */
static int pick_edges(struct dot *d, unsigned max_edges)
{
	const struct wperf_analysis *a = d->a;
	const struct wperf_graph *g = &a->merged.graph;
	struct ranked *order = malloc((g->nedges + 1) * sizeof(*order));
	size_t n = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < g->nedges; i++) {
		const struct wperf_edge *ed = &g->edges[i];

		if (irq_vertex(a, ed->from) || irq_vertex(a, ed->to))
			continue;
		order[n++] = (struct ranked){ed->weight, i};
		if (d->knot_of[ed->from] && d->knot_of[ed->from] == d->knot_of[ed->to])
			d->keep_edge[i] = 1;
	}
	d->ncandidates = n;
	if (max_edges == 0)
		max_edges = n <= DEFAULT_MAX_EDGES ? (unsigned)n : DEFAULT_MAX_EDGES;
	qsort(order, n, sizeof(*order), by_weight);
	for (size_t i = 0; i < n && i < max_edges; i++)
		d->keep_edge[order[i].index] = 1;
	for (size_t i = 0; i < g->nedges; i++) {
		const struct wperf_edge *ed = &g->edges[i];

		if (!d->keep_edge[i])
			continue;
		d->ndrawn++;
		d->keep_vertex[ed->from] = d->keep_vertex[ed->to] = 1;
		if (ed->from == ed->to && ed->weight >= a->threshold_ns)
			d->heavy_loop[ed->from] = 1;
	}
	free(order);
	return 0;
}

/* Edge weights read best in seconds, small ones in milliseconds. */
static void put_weight(struct dot *d, uint64_t ns)
{
	if (ns >= 1000000)
		put(d, "%.3f s", ns / 1e9);
	else
		put(d, "%.3f ms", ns / 1e6);
}

static void put_vertex(struct dot *d, uint32_t v, const char *indent)
{
	const struct wperf_vertex *x = &d->a->merged.vertices[v];
	const char *shape = x->kind == WPERF_ENTITY_DISK  ? "cylinder"
			    : x->kind == WPERF_ENTITY_NIC ? "hexagon"
							  : "box";

	put(d, "%sv%u [label=\"", indent, v);
	put_escaped(d, wperf_report_display(d->opts, x->identity));
	if (d->heavy_loop[v])
		put(d, " *");
	if (x->nmembers > 1)
		put(d, " \xc3\x97%u", x->nmembers); /* U+00D7 MULTIPLICATION SIGN */
	if (x->kind == WPERF_ENTITY_THREAD)
		put(d, "\\n%.2f CPU", x->cpu);
	else
		put(d, "\\nbusy %.0f%%", x->cpu * 100);
	put(d, "\", shape=%s", shape);
	if (d->knot_of[v])
		put(d, ", style=filled, fillcolor=\"%s\", color=\"%s\"", KNOT_FILL, KNOT_LINE);
	else if (d->sink[v])
		put(d, ", style=filled, fillcolor=\"%s\"", SINK_FILL);
	put(d, ", tooltip=\"");
	put_escaped(d, wperf_report_display(d->opts, x->identity));
	put(d, ": %s", wperf_vertex_kind_name(x->kind));
	if (x->nmembers > 1)
		put(d, ", %u threads merged", x->nmembers);
	if (d->knot_of[v])
		put(d, ", in knot %u", d->knot_of[v]);
	else if (d->sink[v])
		put(d, ", a sink: it waits for nobody");
	put(d, "\"];\n");
}

/*
 * " LABEL FRAMES" for one stack of a call site, when it has it: the innermost
 * user frame, else the first two kernel frames past the scheduler's, which
 * say most about where in a short line.
 */
static void put_where(struct dot *d, const char *label, int32_t id, int user, uint32_t tgid)
{
	char where[1024];

	if (id < 0)
		return;
	wperf_stack_brief(d->sym, id, user, tgid, user ? 1 : 2, " <- ", where,
				 sizeof(where));
	put(d, "%s %s ", d->line_used++ ? "," : "", label);
	put_escaped(d, where);
}

/* The edge's tooltip: who waits for whom, how long, and its heaviest call sites. */
static void put_edge_tooltip(struct dot *d, const struct wperf_edge *ed)
{
	const struct wperf_analysis *a = d->a;
	unsigned top = d->opts && d->opts->top_sites ? d->opts->top_sites : 3;
	size_t first, n;

	put(d, ", tooltip=\"");
	put_escaped(d, wperf_report_display(d->opts, a->merged.vertices[ed->from].identity));
	put(d, " waits for ");
	put_escaped(d, wperf_report_display(d->opts, a->merged.vertices[ed->to].identity));
	put(d, ": ");
	put_weight(d, ed->weight);
	put(d, ", %.1f%% of the window", pct(a, ed->weight));
	wperf_callsites_of_edge(&a->merged.sites, ed->from, ed->to, &first, &n);
	for (size_t i = first; d->sym && i < first + n && i < first + top; i++) {
		const struct wperf_callsite *s = &a->merged.sites.sites[i];

		put(d,
		    "\\n%.0f%%:", ed->weight ? 100.0 * (double)s->weight / (double)ed->weight : 0);
		d->line_used = 0;
		put_where(d, "blocked in", s->ustack >= 0 ? s->ustack : s->kstack, s->ustack >= 0,
			  s->waiter_tgid);
		put_where(d, "woken from", s->waker_ustack >= 0 ? s->waker_ustack : s->waker_kstack,
			  s->waker_ustack >= 0, s->waker_tgid);
		if (!d->line_used)
			put(d, " no stacks (an interrupt woke it, or --stacks none)");
	}
	put(d, "\"");
}

static void put_edge(struct dot *d, const struct wperf_edge *ed)
{
	int heavy = ed->weight >= d->a->threshold_ns;
	int inside = d->knot_of[ed->from] && d->knot_of[ed->from] == d->knot_of[ed->to];

	put(d, "\tv%u -> v%u [label=\"", ed->from, ed->to);
	put_weight(d, ed->weight);
	put(d, "\\n%.1f%%\", style=\"%s\"", pct(d->a, ed->weight), heavy ? "solid,bold" : "dashed");
	put_edge_tooltip(d, ed);
	if (inside)
		put(d, ", color=\"%s\", fontcolor=\"%s\"", KNOT_LINE, KNOT_LINE);
	else if (!heavy)
		put(d, ", color=\"%s\", fontcolor=\"%s\"", DASHED_COLOR, DASHED_COLOR);
	put(d, "];\n");
}

/* What the drawing's marks mean, as a box of its own beside the graph. */
static void put_legend(struct dot *d)
{
	static const char *const rows[] = {
	    "A \xe2\x86\x92 B: A waits for B (time, share of the window)",
	    "solid, bold: at or above the threshold; dashed, grey: below",
	    "<font color=\"" KNOT_LINE "\">red</font>, in a cluster: a knot, what bounds the "
	    "throughput",
	    "blue: a sink, which waits for nobody",
	    "box: thread; cylinder: disk; hexagon: NIC",
	    "\xc3\x97N: N threads merged; *: a heavy self-loop",
	    "hover an edge for where it waits, a vertex for what it is",
	};

	put(d,
	    "\tlegend [shape=plaintext, fontsize=9, label=<<table border=\"1\" "
	    "cellborder=\"0\" cellspacing=\"1\" color=\"%s\"><tr><td align=\"left\">"
	    "<b>legend</b></td></tr>",
	    DASHED_COLOR);
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++)
		put(d, "<tr><td align=\"left\"%s>%s</td></tr>",
		    i == 2   ? " bgcolor=\"" KNOT_FILL "\""
		    : i == 3 ? " bgcolor=\"" SINK_FILL "\""
			     : "",
		    rows[i]);
	put(d, "</table>>, tooltip=\"legend\"];\n");
}

static void header(struct dot *d, const struct wperf_report_opts *o)
{
	const struct wperf_analysis *a = d->a;

	put(d, "digraph wperf {\n\tgraph [fontname=\"Helvetica\", labelloc=t, label=\"wperf: ");
	put_escaped(d, o && o->trace_name ? o->trace_name : "wait-for graph");
	put(d, "\\nwindow ");
	put_weight(d, a->window);
	put(d, ", threshold ");
	put_weight(d, a->threshold_ns);
	put(d, " (%.0f%%): solid at or above, dashed below", a->threshold * 100);
	if (d->ndrawn < d->ncandidates)
		put(d, "\\n%zu of %zu edges drawn: the heaviest and those inside knots", d->ndrawn,
		    d->ncandidates);
	put(d, "\"];\n");
	put(d, "\tnode [fontname=\"Helvetica\", fontsize=10];\n");
	put(d, "\tedge [fontname=\"Helvetica\", fontsize=9];\n");
}

int wperf_report_dot(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
		     const struct wperf_report_opts *opts, struct wperf_buf *out)
{
	const struct wperf_graph *g = &a->merged.graph;
	uint32_t nv = a->merged.nvertices;
	struct dot d = {.a = a, .sym = sym, .opts = opts, .out = out};

	d.knot_of = malloc((nv + 1) * sizeof(*d.knot_of));
	d.sink = calloc(nv + 1, 1);
	d.keep_vertex = calloc(nv + 1, 1);
	d.heavy_loop = calloc(nv + 1, 1);
	d.keep_edge = calloc(g->nedges + 1, 1);
	if (!d.knot_of || !d.sink || !d.keep_vertex || !d.heavy_loop || !d.keep_edge) {
		d.err = -ENOMEM;
		goto out;
	}
	mark_knots(&d, opts ? opts->target : NULL);
	d.err = pick_edges(&d, opts ? opts->top_edges : 0);
	header(&d, opts);
	put_legend(&d);

	/* the knots, each a cluster of its vertices */
	for (uint32_t k = 1; k <= d.nknots; k++) {
		put(&d, "\tsubgraph cluster_knot%u {\n", k);
		put(&d, "\t\tlabel=\"knot %u\";\n\t\tstyle=\"rounded,dashed\";\n", k);
		put(&d, "\t\tcolor=\"%s\";\n\t\tfontcolor=\"%s\";\n", KNOT_LINE, KNOT_LINE);
		for (uint32_t v = 0; v < nv; v++)
			if (d.knot_of[v] == k && d.keep_vertex[v])
				put_vertex(&d, v, "\t\t");
		put(&d, "\t}\n");
	}
	/* the other vertices that have an edge drawn */
	for (uint32_t v = 0; v < nv; v++)
		if (!d.knot_of[v] && d.keep_vertex[v])
			put_vertex(&d, v, "\t");
	for (size_t i = 0; i < g->nedges; i++)
		if (d.keep_edge[i])
			put_edge(&d, &g->edges[i]);
	put(&d, "}\n");
out:
	free(d.knot_of);
	free(d.sink);
	free(d.keep_vertex);
	free(d.heavy_loop);
	free(d.keep_edge);
	return d.err ? -ENOMEM : 0;
}
