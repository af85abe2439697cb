/* SPDX-License-Identifier: MIT */
/*
 * Knots and sinks, background knots and knot refinement (see knots.h; wPerf
 * sections 3.2, 3.3 and 4.2). The SCCs and the cut of each refinement step
 * are in knots_refine.c, the pending knots and the entries found in
 * knots_state.c; everything here works from their results and never
 * recurses.
 *
 * wperf_find_knots works in two stages:
 *
 *  1. knot_top_level(): the whole graph without the edges of ignored vertices. One
 *     SCC run; the components with no edge to another component are the knots
 *     and sinks. A background knot (no I/O vertex, under WPERF_BACKGROUND_CPU)
 *     is reported and taken away, which may close the components whose only
 *     leaving edges went into it; those are examined in turn. Taking a closed
 *     component away changes no other component (no cycle goes through it),
 *     so this needs no second SCC run.
 *
 *  2. refine(): each remaining knot waits on a work list (a stack, so there
 *     is no recursion). A knot is kept as final, or its lightest edges are
 *     trimmed until it is no longer strongly connected and the knots and
 *     sinks found inside it go back on the work list. Edges of equal weight
 *     are trimmed together, so the answer never depends on how the vertices
 *     are numbered. (Trimming one edge at a time, exactly one knot or sink
 *     could come out of each split: only the component holding the tail of
 *     the last edge removed can lose its last way out.)
 *
 * The answer is assembled at the end: finals (sorted), background knots
 * (sorted the same way), then the intermediate knots in the order they were
 * split, parents before their children.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
#include "core/analysis/knots.h"
#include "core/analysis/knots_internal.h"
#include "core/util/cmp.h"

/* Knots before sinks, heavier first, then by smallest vertex (sets are disjoint). */
static int cmp_entry(const void *a, const void *b)
{
	const struct knot_entry *x = a, *y = b;
	const uint64_t kx[] = {wperf_key_desc(x->max_weight), x->k.vertices[0]};
	const uint64_t ky[] = {wperf_key_desc(y->max_weight), y->k.vertices[0]};

	if (x->k.kind != y->k.kind)
		return x->k.kind == WPERF_SINK ? 1 : -1;
	return wperf_cmp_keys(kx, ky, 2);
}

/*
 * After a refinement cut: counts each component's inner edges (into kids) and
 * decides which are closed (s->closed). A closed component that is a mostly
 * idle sink is set aside as background, as at the top level, and the
 * components that only waited for it close in turn.
 */
static int set_aside_idle_sinks(struct knot_state *s, const struct knot_pending *p,
				const uint32_t *verts, size_t cut, uint32_t ncomp, uint32_t self,
				struct knot_pending *kids)
{
	size_t m = p->nedges, *outdeg = calloc(ncomp, sizeof(*outdeg));
	uint32_t *queue = malloc(ncomp * sizeof(*queue)), *first = calloc(ncomp, sizeof(*first));
	size_t head = 0, tail = 0;
	int ret = 0;

	if (!outdeg || !queue || !first) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t e = cut; e < m; e++) {
		uint32_t a = s->comp[s->loc[p->edges[e].from]], b = s->comp[s->loc[p->edges[e].to]];

		if (a != b)
			outdeg[a]++;
		else
			kids[a].nedges++;
	}
	for (uint32_t i = p->nverts; i-- > 0;) {
		kids[s->comp[i]].nverts++;
		first[s->comp[i]] = i; /* a component's one vertex, for sinks */
	}
	for (uint32_t k = 0; k < ncomp; k++) {
		s->closed[k] = outdeg[k] == 0;
		if (s->closed[k])
			queue[tail++] = k;
	}
	while (head < tail && !ret) {
		uint32_t k = queue[head++], v = verts[first[k]];
		struct knot_component one = {.nverts = 1,
					     .cpu = s->opts->cpu ? s->opts->cpu[v] : 0,
					     .io = s->opts->is_io && s->opts->is_io[v]};
		struct knot_pending sink = {.nverts = 1, .parent = self, .removed = cut};

		if (kids[k].nverts != 1 || kids[k].nedges || !knot_is_background(s, &one, 1))
			continue;
		sink.verts = malloc(sizeof(*sink.verts));
		if (!sink.verts) {
			ret = -ENOMEM;
			break;
		}
		sink.verts[0] = v;
		ret = knot_add_entry(&s->background, &sink, WPERF_BACKGROUND_SINK);
		knot_pending_free(&sink);
		s->closed[k] = 0; /* gone */
		for (size_t e = cut; e < m && !ret; e++) {
			uint32_t a = s->comp[s->loc[p->edges[e].from]];

			if (a != k && s->comp[s->loc[p->edges[e].to]] == k && --outdeg[a] == 0) {
				s->closed[a] = 1;
				queue[tail++] = a;
			}
		}
	}
out:
	free(outdeg);
	free(queue);
	free(first);
	return ret;
}

/* Keeps knot p as an intermediate entry, the parent of what it holds; on
 * success its vertex array belongs to the entry and p->verts is NULL. */
static int keep_intermediate(struct knot_state *s, struct knot_pending *p)
{
	struct wperf_knot k = {.kind = WPERF_KNOT,
			       .vertices = p->verts,
			       .nvertices = p->nverts,
			       .min_weight = p->edges[0].weight,
			       .removed_edges = p->removed,
			       .parent = p->parent};
	int ret = wperf_buf_append(&s->inter, &k, sizeof(k));

	if (!ret)
		p->verts = NULL;
	return ret;
}

/* The arrays of the closed components among kids (their sizes counted by
 * set_aside_idle_sinks), children of self after cut edges went; the counts
 * start again from 0 for the filling. */
static int alloc_kids(const struct knot_state *s, struct knot_pending *kids, uint32_t ncomp,
		      uint32_t self, size_t cut)
{
	for (uint32_t k = 0; k < ncomp; k++) {
		if (!s->closed[k])
			continue;
		kids[k].verts = malloc(kids[k].nverts * sizeof(uint32_t));
		kids[k].edges =
		    malloc((kids[k].nedges ? kids[k].nedges : 1) * sizeof(struct wperf_edge));
		if (!kids[k].verts || !kids[k].edges)
			return -ENOMEM;
		kids[k].parent = self;
		kids[k].removed = cut;
		kids[k].nverts = kids[k].nedges = 0; /* counted again while filling */
	}
	return 0;
}

/*
 * Refines the knot p (see the top of the file), consuming it: its arrays end
 * up in the answer, on the work list, or freed.
 */
static int refine(struct knot_state *s, struct knot_pending *p)
{
	uint32_t n = (uint32_t)p->nverts, ncomp = 0, self, nkids = 0;
	size_t m = p->nedges, cut;
	struct knot_pending *kids = NULL;
	const uint32_t *verts;
	int ret;

	/* the stopping rules: one vertex, a simple cycle, or heavy enough */
	if (n == 1 || m == n || p->edges[0].weight >= s->opts->threshold) {
		ret = knot_add_entry(&s->finals, p, WPERF_KNOT);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		s->loc[p->verts[i]] = i;
	ret = wperf_knot_split(n, s->loc, p->edges, m, s->opts->threshold, s->comp, &ncomp, &cut);
	if (ret)
		goto out;

	/* keep the knot as an intermediate entry, the parent of what it holds */
	self = (uint32_t)(s->inter.len / sizeof(struct wperf_knot));
	verts = p->verts;
	ret = keep_intermediate(s, p);
	if (ret)
		goto out;

	/* the sub-knots: components with no edge left to another component */
	kids = calloc(ncomp, sizeof(*kids));
	ret = kids ? 0 : -ENOMEM;
	if (!ret)
		ret = set_aside_idle_sinks(s, p, verts, cut, ncomp, self, kids);
	if (ret)
		goto out;
	ret = alloc_kids(s, kids, ncomp, self, cut);
	if (ret)
		goto out;
	/* fill them; the knot's order keeps vertices sorted and edges by weight */
	for (uint32_t i = 0; i < n; i++) {
		struct knot_pending *kid = &kids[s->comp[i]];

		if (!s->closed[s->comp[i]])
			continue;
		if (kid->nverts == 0)
			s->order[nkids++] = s->comp[i]; /* by smallest vertex */
		kid->verts[kid->nverts++] = verts[i];
	}
	for (size_t e = cut; e < m; e++) {
		uint32_t a = s->comp[s->loc[p->edges[e].from]];

		if (s->closed[a] && a == s->comp[s->loc[p->edges[e].to]])
			kids[a].edges[kids[a].nedges++] = p->edges[e];
	}
	/* sinks are final; push knots in reverse so the smallest comes next */
	for (uint32_t j = nkids; j-- > 0;) {
		struct knot_pending *kid = &kids[s->order[j]];

		if (kid->nverts == 1 && kid->nedges == 0)
			ret = knot_add_entry(&s->finals, kid, WPERF_SINK);
		else
			ret = knot_push_work(s, kid);
		if (ret)
			goto out;
	}
out:
	if (kids)
		for (uint32_t k = 0; k < ncomp; k++)
			knot_pending_free(&kids[k]);
	free(kids);
	knot_pending_free(p);
	return ret;
}

/* ---- the answer ---- */

static void free_entries(struct wperf_buf *b)
{
	for (size_t i = 0; i < b->len / sizeof(struct knot_entry); i++)
		free(((struct knot_entry *)b->data)[i].k.vertices);
	wperf_buf_release(b);
}

static void state_free(struct knot_state *s)
{
	free_entries(&s->finals);
	free_entries(&s->background);
	for (size_t i = 0; i < s->inter.len / sizeof(struct wperf_knot); i++)
		free(((struct wperf_knot *)s->inter.data)[i].vertices);
	wperf_buf_release(&s->inter);
	for (size_t i = 0; i < s->work.len / sizeof(struct knot_pending); i++)
		knot_pending_free(&((struct knot_pending *)s->work.data)[i]);
	wperf_buf_release(&s->work);
	free(s->cursor); /* the block of the per-vertex arrays (state_alloc) */
}

static int state_alloc(struct knot_state *s)
{
	size_t n = s->g->nvertices ? s->g->nvertices : 1;

	/* One block, the widest array first: cursor, then loc, comp, order, closed. */
	s->cursor = malloc(n * (sizeof(size_t) + 3 * sizeof(uint32_t) + 1));
	if (!s->cursor)
		return -ENOMEM;
	s->loc = (uint32_t *)(s->cursor + n);
	s->comp = s->loc + n;
	s->order = s->comp + n;
	s->closed = (uint8_t *)(s->order + n);
	return 0;
}

/* Moves the entries of b (sorted) to out, from index at. */
static size_t take_entries(struct wperf_knot *out, size_t at, struct wperf_buf *b)
{
	struct knot_entry *e = (struct knot_entry *)b->data;
	size_t n = b->len / sizeof(*e);

	if (n > 1)
		qsort(e, n, sizeof(*e), cmp_entry);
	for (size_t i = 0; i < n; i++)
		out[at + i] = e[i].k;
	wperf_buf_release(b);
	return at + n;
}

int wperf_find_knots(const struct wperf_graph *g, const struct wperf_knot_opts *opts,
		     struct wperf_knot_set *out, struct wperf_error *err)
{
	static const struct wperf_knot_opts defaults = {0};
	struct knot_state s = {.g = g, .opts = opts ? opts : &defaults};
	size_t nfinal, nbg, ninter, at;
	int ret;

	memset(out, 0, sizeof(*out));
	if (g->nedges >= UINT32_MAX)
		return wperf_error_set(err, -EOVERFLOW, "knots: %zu edges, at most %u", g->nedges,
				       UINT32_MAX - 1);
	for (size_t e = 0; e < g->nedges; e++)
		if (g->edges[e].from >= g->nvertices || g->edges[e].to >= g->nvertices)
			return wperf_error_set(err, -EINVAL,
					       "knots: edge %u -> %u out of %u vertices",
					       g->edges[e].from, g->edges[e].to, g->nvertices);
	ret = state_alloc(&s);
	if (!ret)
		ret = knot_top_level(&s, err);
	while (!ret && s.work.len) {
		struct knot_pending p;

		s.work.len -= sizeof(p);
		memcpy(&p, s.work.data + s.work.len, sizeof(p));
		ret = refine(&s, &p);
	}
	if (ret)
		goto fail;

	nfinal = s.finals.len / sizeof(struct knot_entry);
	nbg = s.background.len / sizeof(struct knot_entry);
	ninter = s.inter.len / sizeof(struct wperf_knot);
	if (nfinal + nbg + ninter) {
		out->knots = malloc((nfinal + nbg + ninter) * sizeof(*out->knots));
		if (!out->knots) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	at = take_entries(out->knots, 0, &s.finals);
	at = take_entries(out->knots, at, &s.background);
	if (ninter)
		memcpy(out->knots + at, s.inter.data, ninter * sizeof(*out->knots));
	wperf_buf_release(&s.inter);
	out->nknots = nfinal + nbg + ninter;
	out->nfinal = nfinal;
	/* parents were indices among the intermediate knots */
	for (size_t i = 0; i < out->nknots; i++)
		if (out->knots[i].parent != KNOT_NONE)
			out->knots[i].parent += (uint32_t)(nfinal + nbg);
	state_free(&s);
	return 0;
fail:
	state_free(&s);
	if (ret == -ENOMEM)
		return wperf_error_set(err, ret, "knots: out of memory (%u vertices, %zu edges)",
				       g->nvertices, g->nedges);
	return ret;
}

void wperf_knot_set_release(struct wperf_knot_set *s)
{
	for (size_t i = 0; i < s->nknots; i++)
		free(s->knots[i].vertices);
	free(s->knots);
	memset(s, 0, sizeof(*s));
}
