/* SPDX-License-Identifier: MIT */
/*
 * Knots and sinks, background knots and knot refinement (see knots.h; wPerf
 * sections 3.2, 3.3 and 4.2). The SCCs and the cut of each refinement step
 * are in knots_refine.c; everything here works from their results and never
 * recurses.
 *
 * wperf_find_knots works in two stages:
 *
 *  1. top_level(): the whole graph without the edges of ignored vertices. One
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

#define NONE UINT32_MAX

/* A knot waiting for refinement; it owns its arrays. */
struct pending {
	uint32_t *verts; /* sorted */
	size_t nverts;
	struct wperf_edge *edges; /* its inner edges, by (weight, from, to) */
	size_t nedges;
	uint32_t parent; /* index among the intermediate knots, or NONE */
	size_t removed;
};

/* A final or background knot, with the key it is sorted by. */
struct entry {
	struct wperf_knot k;
	uint64_t max_weight; /* its heaviest inner edge; 0 for a sink */
};

struct state {
	const struct wperf_graph *g;
	const struct wperf_knot_opts *opts;
	struct wperf_buf finals;     /* struct entry */
	struct wperf_buf background; /* struct entry */
	struct wperf_buf inter;	     /* struct wperf_knot: the knots refinement split */
	struct wperf_buf work;	     /* struct pending, a stack */
	/* scratch, nvertices entries each */
	uint32_t *loc; /* global vertex -> its index in the knot being refined */
	uint32_t *comp, *order;
	size_t *cursor;
	uint8_t *closed;
};

static int cmp_edge_weight(const void *a, const void *b)
{
	const struct wperf_edge *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

/* Knots before sinks, heavier first, then by smallest vertex (sets are disjoint). */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->k.kind != y->k.kind)
		return x->k.kind == WPERF_SINK ? 1 : -1;
	if (x->max_weight != y->max_weight)
		return x->max_weight > y->max_weight ? -1 : 1;
	return (x->k.vertices[0] > y->k.vertices[0]) - (x->k.vertices[0] < y->k.vertices[0]);
}

static void pending_free(struct pending *p)
{
	free(p->verts);
	free(p->edges);
	p->verts = NULL;
	p->edges = NULL;
}

/*
 * Appends a final (or background) knot or sink made of p to list; on success
 * p's vertex array belongs to the entry and p->verts is NULL.
 */
static int add_entry(struct wperf_buf *list, struct pending *p, uint8_t kind)
{
	struct entry e = {
	    .k = {.kind = kind,
		  .simple_cycle = kind != WPERF_SINK && p->nedges == p->nverts,
		  .vertices = p->verts,
		  .nvertices = p->nverts,
		  .min_weight = p->nedges ? p->edges[0].weight : 0,
		  .removed_edges = p->removed,
		  .parent = p->parent},
	    .max_weight = p->nedges ? p->edges[p->nedges - 1].weight : 0,
	};
	int ret = wperf_buf_append(list, &e, sizeof(e));

	if (!ret)
		p->verts = NULL;
	return ret;
}

/* Pushes p on the work list; on success the list owns p's arrays. */
static int push_work(struct state *s, struct pending *p)
{
	int ret = wperf_buf_append(&s->work, p, sizeof(*p));

	if (!ret)
		p->verts = NULL, p->edges = NULL;
	return ret;
}

/* What stage 1 knows of a component. */
struct cinfo {
	uint32_t nverts;
	size_t nin;    /* inner edges */
	size_t outdeg; /* edges to other components still in the analysis */
	double cpu;
	uint8_t io, ignored, gone;
};

#define DEFAULT_SINK_CPU 0.5

/* A knot without I/O that uses less than one CPU in all (section 3.3, with the
 * margin of WPERF_BACKGROUND_CPU), or a sink without I/O that is mostly idle. */
static int is_background(const struct state *s, const struct cinfo *ci, int sink)
{
	const struct wperf_knot_opts *o = s->opts;
	double sink_cpu = o->sink_cpu > 0 ? o->sink_cpu : DEFAULT_SINK_CPU;
	double knot_cpu = o->background_cpu > 0 ? o->background_cpu : WPERF_BACKGROUND_CPU;

	return o->cpu && !ci->io && ci->cpu < (sink ? sink_cpu : knot_cpu);
}

/*
 * After a refinement cut: counts each component's inner edges (into kids) and
 * decides which are closed (s->closed). A closed component that is a mostly
 * idle sink is set aside as background, as at the top level, and the
 * components that only waited for it close in turn.
 */
static int set_aside_idle_sinks(struct state *s, const struct pending *p, const uint32_t *verts,
				size_t cut, uint32_t ncomp, uint32_t self, struct pending *kids)
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
		struct cinfo one = {.nverts = 1,
				    .cpu = s->opts->cpu ? s->opts->cpu[v] : 0,
				    .io = s->opts->is_io && s->opts->is_io[v]};
		struct pending sink = {.nverts = 1, .parent = self, .removed = cut};

		if (kids[k].nverts != 1 || kids[k].nedges || !is_background(s, &one, 1))
			continue;
		sink.verts = malloc(sizeof(*sink.verts));
		if (!sink.verts) {
			ret = -ENOMEM;
			break;
		}
		sink.verts[0] = v;
		ret = add_entry(&s->background, &sink, WPERF_BACKGROUND_SINK);
		pending_free(&sink);
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

/*
 * Refines the knot p (see the top of the file), consuming it: its arrays end
 * up in the answer, on the work list, or freed.
 */
static int refine(struct state *s, struct pending *p)
{
	uint32_t n = (uint32_t)p->nverts, ncomp = 0, self, nkids = 0;
	size_t m = p->nedges, cut;
	struct pending *kids = NULL;
	const uint32_t *verts;
	int ret;

	/* the stopping rules: one vertex, a simple cycle, or heavy enough */
	if (n == 1 || m == n || p->edges[0].weight >= s->opts->threshold) {
		ret = add_entry(&s->finals, p, WPERF_KNOT);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		s->loc[p->verts[i]] = i;
	ret = wperf_knot_split(n, s->loc, p->edges, m, s->opts->threshold, s->comp, &ncomp, &cut);
	if (ret)
		goto out;

	/* keep the knot as an intermediate entry, the parent of what it holds */
	self = (uint32_t)(s->inter.len / sizeof(struct wperf_knot));
	{
		struct wperf_knot k = {.kind = WPERF_KNOT,
				       .vertices = p->verts,
				       .nvertices = n,
				       .min_weight = p->edges[0].weight,
				       .removed_edges = p->removed,
				       .parent = p->parent};

		ret = wperf_buf_append(&s->inter, &k, sizeof(k));
		if (ret)
			goto out;
		verts = p->verts;
		p->verts = NULL;
	}

	/* the sub-knots: components with no edge left to another component */
	kids = calloc(ncomp, sizeof(*kids));
	ret = kids ? 0 : -ENOMEM;
	if (!ret)
		ret = set_aside_idle_sinks(s, p, verts, cut, ncomp, self, kids);
	if (ret)
		goto out;
	for (uint32_t k = 0; k < ncomp; k++) {
		if (!s->closed[k])
			continue;
		kids[k].verts = malloc(kids[k].nverts * sizeof(uint32_t));
		kids[k].edges =
		    malloc((kids[k].nedges ? kids[k].nedges : 1) * sizeof(struct wperf_edge));
		if (!kids[k].verts || !kids[k].edges) {
			ret = -ENOMEM;
			goto out;
		}
		kids[k].parent = self;
		kids[k].removed = cut;
		kids[k].nverts = kids[k].nedges = 0; /* counted again while filling */
	}
	/* fill them; the knot's order keeps vertices sorted and edges by weight */
	for (uint32_t i = 0; i < n; i++) {
		struct pending *kid = &kids[s->comp[i]];

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
		struct pending *kid = &kids[s->order[j]];

		if (kid->nverts == 1 && kid->nedges == 0)
			ret = add_entry(&s->finals, kid, WPERF_SINK);
		else
			ret = push_work(s, kid);
		if (ret)
			goto out;
	}
out:
	if (kids)
		for (uint32_t k = 0; k < ncomp; k++)
			pending_free(&kids[k]);
	free(kids);
	pending_free(p);
	return ret;
}

/* ---- stage 1: the whole graph ---- */

/*
 * Stage 1 scratch: the components (comp in struct state), their vertices
 * cverts[cfirst[c] ..] and inner edges inner[efirst[c] ..], and who waits for
 * each vertex: rfrom[rfirst[v] ..].
 */
struct top {
	uint32_t nc;
	struct cinfo *ci;
	uint8_t *dead; /* per edge: dropped with an ignored vertex */
	size_t *cfirst, *efirst, *rfirst;
	uint32_t *cverts, *rfrom, *queue;
	struct wperf_edge *inner;
};

static void top_free(struct top *t)
{
	free(t->ci);
	free(t->dead);
	free(t->cfirst);
	free(t->efirst);
	free(t->rfirst);
	free(t->cverts);
	free(t->rfrom);
	free(t->queue);
	free(t->inner);
}

/* Sizes, CPU, I/O, edge counts and the bucket arrays of struct top. */
static int top_tables(struct state *s, struct top *t)
{
	const struct wperf_graph *g = s->g;
	const struct wperf_knot_opts *o = s->opts;
	uint32_t n = g->nvertices, nc = t->nc, *comp = s->comp;
	size_t m = g->nedges;

	t->ci = calloc(nc ? nc : 1, sizeof(*t->ci));
	t->cfirst = calloc((size_t)nc + 1, sizeof(size_t));
	t->efirst = calloc((size_t)nc + 1, sizeof(size_t));
	t->rfirst = calloc((size_t)n + 1, sizeof(size_t));
	t->cverts = malloc((n ? n : 1) * sizeof(uint32_t));
	t->queue = malloc((nc ? nc : 1) * sizeof(uint32_t));
	if (!t->ci || !t->cfirst || !t->efirst || !t->rfirst || !t->cverts || !t->queue)
		return -ENOMEM;
	for (uint32_t v = 0; v < n; v++) {
		struct cinfo *c = &t->ci[comp[v]];

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
static int top_pending(const struct top *t, uint32_t c, struct pending *p)
{
	const struct cinfo *ci = &t->ci[c];

	memset(p, 0, sizeof(*p));
	p->parent = NONE;
	p->nverts = ci->nverts;
	p->nedges = ci->nin;
	p->verts = malloc(p->nverts * sizeof(uint32_t));
	p->edges = malloc((p->nedges ? p->nedges : 1) * sizeof(struct wperf_edge));
	if (!p->verts || !p->edges) {
		pending_free(p);
		return -ENOMEM;
	}
	memcpy(p->verts, t->cverts + t->cfirst[c], p->nverts * sizeof(uint32_t));
	memcpy(p->edges, t->inner + t->efirst[c], p->nedges * sizeof(struct wperf_edge));
	qsort(p->edges, p->nedges, sizeof(struct wperf_edge), cmp_edge_weight);
	return 0;
}

/*
 * Finds the knots and sinks of the graph without the ignored vertices and the
 * background knots: sinks and background knots go to the answer, knots to the
 * work list (the one with the smallest vertex on top).
 */
static int top_level(struct state *s, struct wperf_error *err)
{
	const struct wperf_graph *g = s->g;
	const struct wperf_knot_opts *o = s->opts;
	uint32_t n = g->nvertices, qhead = 0, qtail = 0, nknots = 0;
	struct top t = {0};
	struct pending p;
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

	/*
	 * The closed components, and those that close when a background knot
	 * they waited for is taken away. A closed component stays closed, so the
	 * answer does not depend on the order they are examined in.
	 */
	for (uint32_t c = 0; c < t.nc; c++)
		if (t.ci[c].outdeg == 0 && !t.ci[c].ignored)
			t.queue[qtail++] = c;
	while (qhead < qtail) {
		uint32_t c = t.queue[qhead++];
		struct cinfo *ci = &t.ci[c];

		int sink = ci->nverts == 1 && ci->nin == 0;

		if (!is_background(s, ci, sink))
			continue; /* a sink or a knot of the answer */
		ret = top_pending(&t, c, &p);
		if (!ret)
			ret = add_entry(&s->background, &p,
					sink ? WPERF_BACKGROUND_SINK : WPERF_BACKGROUND_KNOT);
		pending_free(&p);
		if (ret)
			goto out;
		ci->gone = 1;
		for (size_t i = t.cfirst[c]; i < t.cfirst[c + 1]; i++) {
			uint32_t v = t.cverts[i];

			for (size_t j = t.rfirst[v]; j < t.rfirst[v + 1]; j++) {
				uint32_t d = s->comp[t.rfrom[j]];

				if (d != c && --t.ci[d].outdeg == 0)
					t.queue[qtail++] = d;
			}
		}
	}

	/* sinks to the answer, knots to the work list, by smallest vertex */
	for (uint32_t v = 0; v < n; v++) {
		uint32_t c = s->comp[v];
		const struct cinfo *ci = &t.ci[c];

		if (ci->outdeg || ci->ignored || ci->gone || t.cverts[t.cfirst[c]] != v)
			continue;
		ret = top_pending(&t, c, &p);
		if (ret)
			goto out;
		if (ci->nverts == 1 && ci->nin == 0)
			ret = add_entry(&s->finals, &p, WPERF_SINK);
		else
			ret = push_work(s, &p), nknots += !ret;
		pending_free(&p);
		if (ret)
			goto out;
	}
	/* reverse the stack so the knot with the smallest vertex is refined first */
	for (uint32_t i = 0; i < nknots / 2; i++) {
		struct pending *w = (struct pending *)s->work.data, tmp = w[i];

		w[i] = w[nknots - 1 - i];
		w[nknots - 1 - i] = tmp;
	}
out:
	top_free(&t);
	return ret;
}

/* ---- the answer ---- */

static void free_entries(struct wperf_buf *b)
{
	for (size_t i = 0; i < b->len / sizeof(struct entry); i++)
		free(((struct entry *)b->data)[i].k.vertices);
	wperf_buf_release(b);
}

static void state_free(struct state *s)
{
	free_entries(&s->finals);
	free_entries(&s->background);
	for (size_t i = 0; i < s->inter.len / sizeof(struct wperf_knot); i++)
		free(((struct wperf_knot *)s->inter.data)[i].vertices);
	wperf_buf_release(&s->inter);
	for (size_t i = 0; i < s->work.len / sizeof(struct pending); i++)
		pending_free(&((struct pending *)s->work.data)[i]);
	wperf_buf_release(&s->work);
	free(s->loc);
	free(s->comp);
	free(s->order);
	free(s->cursor);
	free(s->closed);
}

static int state_alloc(struct state *s)
{
	size_t n = s->g->nvertices ? s->g->nvertices : 1;

	s->loc = malloc(n * sizeof(uint32_t));
	s->comp = malloc(n * sizeof(uint32_t));
	s->order = malloc(n * sizeof(uint32_t));
	s->cursor = malloc(n * sizeof(size_t));
	s->closed = malloc(n);
	if (!s->loc || !s->comp || !s->order || !s->cursor || !s->closed)
		return -ENOMEM;
	return 0;
}

/* Moves the entries of b (sorted) to out, from index at. */
static size_t take_entries(struct wperf_knot *out, size_t at, struct wperf_buf *b)
{
	struct entry *e = (struct entry *)b->data;
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
	struct state s = {.g = g, .opts = opts ? opts : &defaults};
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
		ret = top_level(&s, err);
	while (!ret && s.work.len) {
		struct pending p;

		s.work.len -= sizeof(p);
		memcpy(&p, s.work.data + s.work.len, sizeof(p));
		ret = refine(&s, &p);
	}
	if (ret)
		goto fail;

	nfinal = s.finals.len / sizeof(struct entry);
	nbg = s.background.len / sizeof(struct entry);
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
		if (out->knots[i].parent != NONE)
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
