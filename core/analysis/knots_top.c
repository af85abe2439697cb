/* SPDX-License-Identifier: MIT */
/*
 * The top-level knots (see knots.c): the whole graph without the edges of ignored
 * vertices, in one SCC run. The components with no edge to another component
 * are the knots and sinks; a background knot is reported and taken away,
 * which may close the components whose only leaving edges went into it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/knots_internal.h"
#include "core/util/cmp.h"

static int cmp_edge_weight(const void *a, const void *b)
{
	const struct wperf_edge *x = a, *y = b;
	const uint64_t kx[] = {x->weight, x->from, x->to}, ky[] = {y->weight, y->from, y->to};

	return wperf_cmp_keys(kx, ky, 3);
}

/*
 * Stage 1 scratch: the components (comp in struct knot_state), their vertices
 * cverts[cfirst[c] ..] and inner edges inner[efirst[c] ..], and who waits for
 * each vertex: rfrom[rfirst[v] ..]. The arrays sized by the counts of
 * components and vertices are one block, which ci owns.
 */
struct top {
	uint32_t nc;
	struct knot_component *ci;
	uint8_t *dead; /* per edge: dropped with an ignored vertex */
	size_t *cfirst, *efirst, *rfirst;
	uint32_t *cverts, *rfrom, *queue;
	struct wperf_edge *inner;
};

static void top_free(struct top *t)
{
	free(t->ci); /* and cfirst, efirst, rfirst, cverts, queue */
	free(t->dead);
	free(t->rfrom);
	free(t->inner);
}

/* Sizes, CPU, I/O, edge counts and the bucket arrays of struct top. */
static int top_tables(struct knot_state *s, struct top *t)
{
	const struct wperf_graph *g = s->g;
	const struct wperf_knot_opts *o = s->opts;
	uint32_t n = g->nvertices, nc = t->nc, *comp = s->comp;
	size_t m = g->nedges, ncomp = nc ? nc : 1, nvert = n ? n : 1;

	/* One zeroed block, widest first: ci, the size_t arrays, the uint32_t ones. */
	t->ci = calloc(1, ncomp * sizeof(*t->ci) + (2 * (size_t)nc + n + 3) * sizeof(size_t) +
			      (nvert + ncomp) * sizeof(uint32_t));
	if (!t->ci)
		return -ENOMEM;
	t->cfirst = (size_t *)(t->ci + ncomp); /* nc + 1 */
	t->efirst = t->cfirst + nc + 1;	       /* nc + 1 */
	t->rfirst = t->efirst + nc + 1;	       /* n + 1 */
	t->cverts = (uint32_t *)(t->rfirst + n + 1);
	t->queue = t->cverts + nvert;
	for (uint32_t v = 0; v < n; v++) {
		struct knot_component *c = &t->ci[comp[v]];

		c->nverts++;
		c->cpu += o->cpu ? o->cpu[v] : 0;
		c->io |= o->is_io && o->is_io[v];
		c->ignored = o->ignore && o->ignore[v]; /* then alone in its component */
		t->cfirst[comp[v] + 1]++;
	}
	for (size_t e = 0; e < m; e++) {
		uint32_t a = comp[g->edges[e].from], b = comp[g->edges[e].to];

		if (t->dead[e])
			continue;
		if (a != b)
			t->ci[a].outdeg++;
		else
			t->ci[a].nin++, t->efirst[a + 1]++;
		t->rfirst[g->edges[e].to + 1]++;
	}
	for (uint32_t k = 0; k < nc; k++) {
		t->cfirst[k + 1] += t->cfirst[k];
		t->efirst[k + 1] += t->efirst[k];
	}
	for (uint32_t v = 0; v < n; v++)
		t->rfirst[v + 1] += t->rfirst[v];
	t->rfrom = malloc((t->rfirst[n] ? t->rfirst[n] : 1) * sizeof(uint32_t));
	t->inner = malloc((t->efirst[nc] ? t->efirst[nc] : 1) * sizeof(*t->inner));
	if (!t->rfrom || !t->inner)
		return -ENOMEM;

	/* fill the buckets, with s->cursor as the cursors: vertices stay sorted */
	for (uint32_t k = 0; k < nc; k++)
		s->cursor[k] = t->cfirst[k];
	for (uint32_t v = 0; v < n; v++)
		t->cverts[s->cursor[comp[v]]++] = v;
	for (uint32_t v = 0; v < n; v++)
		s->cursor[v] = t->rfirst[v];
	for (size_t e = 0; e < m; e++)
		if (!t->dead[e])
			t->rfrom[s->cursor[g->edges[e].to]++] = g->edges[e].from;
	for (uint32_t k = 0; k < nc; k++)
		s->cursor[k] = t->efirst[k];
	for (size_t e = 0; e < m; e++) {
		uint32_t a = comp[g->edges[e].from];

		if (!t->dead[e] && a == comp[g->edges[e].to])
			t->inner[s->cursor[a]++] = g->edges[e];
	}
	return 0;
}

/* Component c as a knot or sink: copies of its vertices and inner edges by weight. */
static int top_pending(const struct top *t, uint32_t c, struct knot_pending *p)
{
	const struct knot_component *ci = &t->ci[c];

	memset(p, 0, sizeof(*p));
	p->parent = KNOT_NONE;
	p->nverts = ci->nverts;
	p->nedges = ci->nin;
	p->verts = malloc(p->nverts * sizeof(uint32_t));
	p->edges = malloc((p->nedges ? p->nedges : 1) * sizeof(struct wperf_edge));
	if (!p->verts || !p->edges) {
		knot_pending_free(p);
		return -ENOMEM;
	}
	memcpy(p->verts, t->cverts + t->cfirst[c], p->nverts * sizeof(uint32_t));
	memcpy(p->edges, t->inner + t->efirst[c], p->nedges * sizeof(struct wperf_edge));
	qsort(p->edges, p->nedges, sizeof(struct wperf_edge), cmp_edge_weight);
	return 0;
}

/*
 * The closed components, and those that close when a background knot they
 * waited for is taken away: background knots and sinks go to the answer. A
 * closed component stays closed, so the answer does not depend on the order
 * they are examined in.
 */
static int take_background(struct knot_state *s, struct top *t)
{
	uint32_t qhead = 0, qtail = 0;
	struct knot_pending p;
	int ret;

	for (uint32_t c = 0; c < t->nc; c++)
		if (t->ci[c].outdeg == 0 && !t->ci[c].ignored)
			t->queue[qtail++] = c;
	while (qhead < qtail) {
		uint32_t c = t->queue[qhead++];
		struct knot_component *ci = &t->ci[c];
		int sink = ci->nverts == 1 && ci->nin == 0;

		if (!knot_is_background(s, ci, sink))
			continue; /* a sink or a knot of the answer */
		ret = top_pending(t, c, &p);
		if (!ret)
			ret = knot_add_entry(&s->background, &p,
					     sink ? WPERF_BACKGROUND_SINK : WPERF_BACKGROUND_KNOT);
		knot_pending_free(&p);
		if (ret)
			return ret;
		ci->gone = 1;
		for (size_t i = t->cfirst[c]; i < t->cfirst[c + 1]; i++) {
			uint32_t v = t->cverts[i];

			for (size_t j = t->rfirst[v]; j < t->rfirst[v + 1]; j++) {
				uint32_t d = s->comp[t->rfrom[j]];

				if (d != c && --t->ci[d].outdeg == 0)
					t->queue[qtail++] = d;
			}
		}
	}
	return 0;
}

/*
 * Finds the knots and sinks of the graph without the ignored vertices and the
 * background knots: sinks and background knots go to the answer, knots to the
 * work list (the one with the smallest vertex on top).
 */
int knot_top_level(struct knot_state *s, struct wperf_error *err)
{
	const struct wperf_graph *g = s->g;
	const struct wperf_knot_opts *o = s->opts;
	uint32_t n = g->nvertices, nknots = 0;
	struct top t = {0};
	struct knot_pending p;
	int ret;

	t.dead = calloc(g->nedges ? g->nedges : 1, 1);
	if (!t.dead) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t e = 0; e < g->nedges; e++)
		t.dead[e] = o->ignore && (o->ignore[g->edges[e].from] || o->ignore[g->edges[e].to]);
	ret = wperf_scc(g, t.dead, s->comp, &t.nc, err);
	if (ret)
		goto out;
	ret = top_tables(s, &t);
	if (ret)
		goto out;

	ret = take_background(s, &t);
	if (ret)
		goto out;

	/* sinks to the answer, knots to the work list, by smallest vertex */
	for (uint32_t v = 0; v < n; v++) {
		uint32_t c = s->comp[v];
		const struct knot_component *ci = &t.ci[c];

		if (ci->outdeg || ci->ignored || ci->gone || t.cverts[t.cfirst[c]] != v)
			continue;
		ret = top_pending(&t, c, &p);
		if (ret)
			goto out;
		if (ci->nverts == 1 && ci->nin == 0)
			ret = knot_add_entry(&s->finals, &p, WPERF_SINK);
		else
			ret = knot_push_work(s, &p), nknots += !ret;
		knot_pending_free(&p);
		if (ret)
			goto out;
	}
	/* reverse the stack so the knot with the smallest vertex is refined first */
	for (uint32_t i = 0; i < nknots / 2; i++) {
		struct knot_pending *w = (struct knot_pending *)s->work.data, tmp = w[i];

		w[i] = w[nknots - 1 - i];
		w[nknots - 1 - i] = tmp;
	}
out:
	top_free(&t);
	return ret;
}
