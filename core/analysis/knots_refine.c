/* SPDX-License-Identifier: MIT */
/*
 * The SCC engine of knots.c: one iterative Tarjan (no recursion, so no depth
 * limit: a chain of a million vertices is fine) over graphs in compressed
 * sparse rows, behind wperf_scc and behind the cut of knot refinement,
 * wperf_knot_split, which knots.c calls for each knot it refines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/knots.h"
#include "core/analysis/knots_internal.h"

#define NONE UINT32_MAX

/*
 * A graph in compressed sparse rows: the edges leaving v are the entries
 * first[v] .. first[v + 1] - 1 of to[] (and rank[]). When rank is not NULL,
 * an entry whose rank is below cutoff counts as removed.
 */
struct csr {
	uint32_t n;
	const size_t *first;
	const uint32_t *to;
	const uint32_t *rank;
	uint32_t cutoff;
};

/* Tarjan's scratch: n entries each, allocated once for the largest graph, in
 * one block that pos owns. */
struct tarjan_ws {
	uint32_t *index, *low, *stack, *call;
	size_t *pos; /* the next out-edge entry of a vertex on the call stack */
};

static int ws_alloc(struct tarjan_ws *ws, uint32_t n)
{
	size_t k = n ? n : 1;

	/* One block, the widest array first: pos, then index, low, stack, call. */
	ws->pos = malloc(k * (sizeof(size_t) + 4 * sizeof(uint32_t)));
	if (!ws->pos)
		return -ENOMEM;
	ws->index = (uint32_t *)(ws->pos + k);
	ws->low = ws->index + k;
	ws->stack = ws->low + k;
	ws->call = ws->stack + k;
	return 0;
}

static void ws_free(struct tarjan_ws *ws)
{
	free(ws->pos); /* the block */
	memset(ws, 0, sizeof(*ws));
}

/*
 * Tarjan's algorithm with an explicit call stack. Fills comp[0 .. n) and
 * returns the number of components, numbered in the order they complete,
 * which is reverse topological order. With check_strong, it only answers
 * whether the graph is strongly connected: 1 if so, 2 if not, stopping at
 * the first component that completes (comp is then partly filled).
 */
static uint32_t tarjan(const struct csr *g, struct tarjan_ws *ws, uint32_t *comp, int check_strong)
{
	uint32_t counter = 0, ncomp = 0, sp = 0, cp;

	for (uint32_t v = 0; v < g->n; v++) {
		ws->index[v] = NONE;
		comp[v] = NONE; /* NONE with an index: still on the Tarjan stack */
	}
	for (uint32_t root = 0; root < g->n; root++) {
		if (ws->index[root] != NONE)
			continue;
		ws->index[root] = ws->low[root] = counter++;
		ws->stack[sp++] = root;
		ws->pos[root] = g->first[root];
		ws->call[0] = root;
		cp = 1;
		while (cp) {
			uint32_t v = ws->call[cp - 1], w;

			if (ws->pos[v] < g->first[v + 1]) {
				/* the next edge of v */
				size_t e = ws->pos[v]++;

				if (g->rank && g->rank[e] < g->cutoff)
					continue;
				w = g->to[e];
				if (ws->index[w] == NONE) {
					/* "recurse" into w */
					ws->index[w] = ws->low[w] = counter++;
					ws->stack[sp++] = w;
					ws->pos[w] = g->first[w];
					ws->call[cp++] = w;
				} else if (comp[w] == NONE && ws->index[w] < ws->low[v]) {
					ws->low[v] = ws->index[w];
				}
				continue;
			}
			/* v is done: "return" to its caller */
			cp--;
			if (ws->low[v] == ws->index[v]) {
				uint32_t size = 0;

				do {
					w = ws->stack[--sp];
					comp[w] = ncomp;
					size++;
				} while (w != v);
				ncomp++;
				if (check_strong)
					return size == g->n ? 1 : 2;
			}
			if (cp) {
				uint32_t u = ws->call[cp - 1];

				if (ws->low[v] < ws->low[u])
					ws->low[u] = ws->low[v];
			}
		}
	}
	return ncomp;
}

int wperf_scc(const struct wperf_graph *g, const uint8_t *removed, uint32_t *component,
	      uint32_t *ncomponents, struct wperf_error *err)
{
	uint32_t n = g->nvertices;
	size_t *first = calloc((size_t)n + 1, sizeof(*first));
	uint32_t *to = NULL;
	struct tarjan_ws ws = {0};
	struct csr c;
	int ret = -ENOMEM;

	*ncomponents = 0;
	if (!first)
		goto out;
	/* count the kept edges of each vertex, then place them */
	for (size_t e = 0; e < g->nedges; e++) {
		if (g->edges[e].from >= n || g->edges[e].to >= n) {
			ret = wperf_error_set(err, -EINVAL, "scc: edge %u -> %u out of %u vertices",
					      g->edges[e].from, g->edges[e].to, n);
			goto out;
		}
		if (!removed || !removed[e])
			first[g->edges[e].from + 1]++;
	}
	for (uint32_t v = 0; v < n; v++)
		first[v + 1] += first[v];
	to = malloc((first[n] ? first[n] : 1) * sizeof(*to));
	if (!to || ws_alloc(&ws, n))
		goto out;
	for (uint32_t v = 0; v < n; v++)
		ws.pos[v] = first[v]; /* placement cursors, before Tarjan reuses pos */
	for (size_t e = 0; e < g->nedges; e++)
		if (!removed || !removed[e])
			to[ws.pos[g->edges[e].from]++] = g->edges[e].to;
	c = (struct csr){.n = n, .first = first, .to = to};
	*ncomponents = tarjan(&c, &ws, component, 0);
	ret = 0;
out:
	if (ret == -ENOMEM)
		wperf_error_set(err, ret, "scc: out of memory for %u vertices", n);
	free(first);
	free(to);
	ws_free(&ws);
	return ret;
}

/* Is the knot strongly connected without its first k edges (by weight)? */
static int strong_without(struct csr *c, struct tarjan_ws *ws, uint32_t *comp, uint32_t k)
{
	c->cutoff = k;
	return tarjan(c, ws, comp, 1) == 1;
}

/*
 * The cut of one refinement step (declared in knots_internal.h). The knot
 * has n > 1 vertices, loc maps each of them (a global id) to 0 .. n - 1, and
 * its m inner edges come sorted by (weight, from, to). Trims the lightest
 * edges until the knot is no longer strongly connected: *cut gets how many
 * went, comp[0 .. n) the components of what is left, *ncomp their number.
 *
 * Edges of equal weight go together (a weight level): which of two equal
 * edges is "lighter" would only depend on the vertex numbering. Returns 0 or
 * -ENOMEM.
 */
/*
 * Does refinement stop once the edges before cut are gone? When the knot falls
 * apart, and also (checked after every removal, not only before the first)
 * when what is left is a simple cycle or its lightest edge reaches the
 * threshold: trimming a cycle's chord must not go on to break the cycle.
 */
static int stops(struct csr *c, struct tarjan_ws *ws, uint32_t *comp,
		 const struct wperf_edge *edges, size_t m, uint32_t n, size_t cut,
		 uint64_t threshold)
{
	if (m - cut <= n || (cut < m && edges[cut].weight >= threshold))
		return 1;
	return !strong_without(c, ws, comp, cut);
}

int wperf_knot_split(uint32_t n, const uint32_t *loc, const struct wperf_edge *edges, size_t m,
		     uint64_t threshold, uint32_t *comp, uint32_t *ncomp, size_t *cut)
{
	size_t *first = calloc((size_t)n + 1, sizeof(*first));
	uint32_t *to = malloc(m * sizeof(*to)), *rank = malloc(m * sizeof(*rank));
	uint32_t *cuts = malloc(m * sizeof(*cuts));
	size_t ncuts = 0, lo, hi, step;
	struct tarjan_ws ws = {0};
	struct csr c;
	int ret = -ENOMEM;

	if (!first || !to || !rank || !cuts || ws_alloc(&ws, n))
		goto out;
	/* the knot's local graph, each edge ranked by its place in weight order */
	for (size_t e = 0; e < m; e++)
		first[loc[edges[e].from] + 1]++;
	for (uint32_t i = 0; i < n; i++) {
		first[i + 1] += first[i];
		ws.pos[i] = first[i]; /* placement cursors, before Tarjan reuses pos */
	}
	for (size_t e = 0; e < m; e++) {
		size_t at = ws.pos[loc[edges[e].from]]++;

		to[at] = loc[edges[e].to];
		rank[at] = (uint32_t)e;
	}
	c = (struct csr){.n = n, .first = first, .to = to, .rank = rank};

	/*
	 * The cuts are the level ends in the weight order; the last, all m
	 * edges, always stops. Whether a cut stops only goes from no to yes as
	 * edges go, so search for the first that does, in [lo, hi] (cut hi is
	 * known to): gallop from the lightest (a knot
	 * refined from a parent usually breaks after a few more levels), then
	 * bisect. O(log levels) Tarjan runs, not one per edge.
	 */
	for (size_t e = 1; e <= m; e++)
		if (e == m || edges[e].weight != edges[e - 1].weight)
			cuts[ncuts++] = (uint32_t)e;
	lo = 0;
	hi = ncuts - 1;
	for (step = 1; lo + step - 1 < hi; step *= 2) {
		if (stops(&c, &ws, comp, edges, m, n, cuts[lo + step - 1], threshold)) {
			hi = lo + step - 1;
			break;
		}
		lo += step;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (!stops(&c, &ws, comp, edges, m, n, cuts[mid], threshold))
			lo = mid + 1;
		else
			hi = mid;
	}
	*cut = cuts[hi];
	c.cutoff = cuts[hi];
	*ncomp = tarjan(&c, &ws, comp, 0);
	ret = 0;
out:
	free(first);
	free(to);
	free(rank);
	free(cuts);
	ws_free(&ws);
	return ret;
}
