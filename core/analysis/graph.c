/* SPDX-License-Identifier: MIT */
/*
 * The wait-for graph (see graph.h).
 *
 * While the graph is being built, edges live in a dense array (g->edges, in
 * the order they were first seen) and an open-addressing hash table maps the
 * 64-bit key (from << 32 | to) to the edge's index. The table is g->slots:
 * g->cap entries of two uint64_t each, {key, edge index}, linear probing, at
 * most half full. An empty entry has the key UINT64_MAX, which no edge can
 * have since vertex ids are below nvertices <= UINT32_MAX. The edge array is
 * always allocated for cap / 2 edges, so it grows together with the table
 * and needs no capacity field of its own.
 *
 * wperf_graph_finish sorts the edges by (from, to) and frees the table; the
 * lookups then use binary search. Adding to a finished graph rebuilds the
 * table first, so merge and add keep working on any graph.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/graph.h"
#include "core/util/cmp.h"

#define SLOT_EMPTY    UINT64_MAX
#define TABLE_MIN_CAP 64

static inline uint64_t edge_key(uint32_t from, uint32_t to)
{
	return (uint64_t)from << 32 | to;
}

/* Mixes all 64 bits of the key into the low bits the mask keeps. */
static inline size_t slot_of(uint64_t key, size_t mask)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 32;
	return (size_t)h & mask;
}

/* The entry holding key, or the empty entry where it would go. */
static inline size_t probe(const uint64_t *slots, size_t cap, uint64_t key)
{
	size_t mask = cap - 1, i = slot_of(key, mask);

	while (slots[2 * i] != key && slots[2 * i] != SLOT_EMPTY)
		i = (i + 1) & mask;
	return i;
}

/*
 * Makes a table of newcap entries (a power of two, > 2 * nedges), grows the
 * edge array to newcap / 2 and re-inserts every edge. On failure the graph
 * is unchanged (the edge array may be larger, which is harmless).
 */
static int rebuild_table(struct wperf_graph *g, size_t newcap)
{
	uint64_t *slots;
	struct wperf_edge *edges;

	if (newcap > SIZE_MAX / (2 * sizeof(*slots)))
		return -ENOMEM;
	slots = malloc(newcap * 2 * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	edges = realloc(g->edges, newcap / 2 * sizeof(*edges));
	if (!edges) {
		free(slots);
		return -ENOMEM;
	}
	g->edges = edges;
	memset(slots, 0xff, newcap * 2 * sizeof(*slots)); /* every key UINT64_MAX */
	for (size_t e = 0; e < g->nedges; e++) {
		uint64_t key = edge_key(edges[e].from, edges[e].to);
		size_t i = probe(slots, newcap, key);

		slots[2 * i] = key;
		slots[2 * i + 1] = e;
	}
	free(g->slots);
	g->slots = slots;
	g->cap = newcap;
	return 0;
}

int wperf_graph_init(struct wperf_graph *g, uint32_t nvertices)
{
	memset(g, 0, sizeof(*g));
	g->nvertices = nvertices;
	return 0; /* the table is allocated by the first add */
}

int wperf_graph_add(struct wperf_graph *g, uint32_t from, uint32_t to, uint64_t weight)
{
	uint64_t key = edge_key(from, to);
	size_t i;
	int ret;

	if (from >= g->nvertices || to >= g->nvertices)
		return -EINVAL;
	if (!g->slots) {
		/* first add, or an add after finish: size the table for what is there */
		size_t cap = TABLE_MIN_CAP;

		while (cap / 2 <= g->nedges)
			cap *= 2;
		ret = rebuild_table(g, cap);
		if (ret)
			return ret;
	}
	/* The hot path: the edge exists, one or two probes in a cached table. */
	i = probe(g->slots, g->cap, key);
	if (g->slots[2 * i] == key) {
		g->edges[g->slots[2 * i + 1]].weight += weight;
		return 0;
	}
	if (g->nedges >= g->cap / 2) {
		ret = rebuild_table(g, g->cap * 2);
		if (ret)
			return ret;
		i = probe(g->slots, g->cap, key);
	}
	g->slots[2 * i] = key;
	g->slots[2 * i + 1] = g->nedges;
	g->edges[g->nedges].from = from;
	g->edges[g->nedges].to = to;
	g->edges[g->nedges].weight = weight;
	g->nedges++;
	return 0;
}

int wperf_graph_merge(struct wperf_graph *g, const struct wperf_graph *src)
{
	int ret;

	if (src == g) {
		/* merging a graph into itself doubles it; adding would read edges
		   that a rebuild may move */
		for (size_t e = 0; e < g->nedges; e++)
			g->edges[e].weight *= 2;
		return 0;
	}
	for (size_t e = 0; e < src->nedges; e++) {
		const struct wperf_edge *s = &src->edges[e];

		ret = wperf_graph_add(g, s->from, s->to, s->weight);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct wperf_edge *x = a, *y = b;
	uint64_t kx = edge_key(x->from, x->to), ky = edge_key(y->from, y->to);

	return wperf_cmp_u64(kx, ky);
}

void wperf_graph_finish(struct wperf_graph *g)
{
	if (g->nedges > 1)
		qsort(g->edges, g->nedges, sizeof(*g->edges), cmp_edge);
	free(g->slots);
	g->slots = NULL;
	g->cap = 0;
	if (g->nedges) {
		/* give back the table's headroom; keep the old block if that fails */
		struct wperf_edge *e = realloc(g->edges, g->nedges * sizeof(*e));

		if (e)
			g->edges = e;
	}
}

/* The first edge whose key is >= key, in a finished graph. */
static size_t lower_bound(const struct wperf_graph *g, uint64_t key)
{
	size_t lo = 0, hi = g->nedges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (edge_key(g->edges[mid].from, g->edges[mid].to) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void wperf_graph_out(const struct wperf_graph *g, uint32_t v, size_t *first, size_t *n)
{
	/* no edge has the key UINT64_MAX, so it bounds the last vertex's edges */
	uint64_t end = v == UINT32_MAX ? UINT64_MAX : edge_key(v + 1, 0);
	size_t lo = lower_bound(g, edge_key(v, 0)), hi = lower_bound(g, end);

	*first = lo;
	*n = hi - lo;
}

int64_t wperf_graph_find(const struct wperf_graph *g, uint32_t from, uint32_t to)
{
	size_t i = lower_bound(g, edge_key(from, to));

	if (i < g->nedges && g->edges[i].from == from && g->edges[i].to == to)
		return (int64_t)i;
	return -1;
}

void wperf_graph_release(struct wperf_graph *g)
{
	free(g->edges);
	free(g->slots);
	memset(g, 0, sizeof(*g));
}
