/* SPDX-License-Identifier: MIT */
/*
 * The wait-for graph (wPerf section 3.1): vertices are threads or pseudo-threads,
 * an edge A -> B means A waited for B, weighted in nanoseconds by the cascaded
 * re-distribution. Integer weights make the sums exact, so the graph is the same
 * whatever the order the additions came in (and however many workers made them).
 *
 * Ownership: a struct wperf_graph owns its arrays; wperf_graph_release frees
 * them. A zeroed struct is a valid empty graph.
 */
#ifndef WPERF_GRAPH_H
#define WPERF_GRAPH_H

#include <stddef.h>
#include <stdint.h>

struct wperf_edge {
	uint32_t from, to;
	uint64_t weight; /* ns */
};

struct wperf_graph {
	uint32_t nvertices;
	struct wperf_edge *edges; /* after wperf_graph_finish: sorted by (from, to), unique */
	size_t nedges;
	/* while adding: (from, to) -> edge index */
	uint64_t *slots;
	size_t cap;
};

/* Starts an empty graph of n vertices; 0 or -ENOMEM. */
int wperf_graph_init(struct wperf_graph *g, uint32_t nvertices);

/* Adds weight to edge from -> to, creating it; 0, -EINVAL or -ENOMEM. */
int wperf_graph_add(struct wperf_graph *g, uint32_t from, uint32_t to, uint64_t weight);

/* Adds every edge of src to g (same vertex count); 0 or -ENOMEM. */
int wperf_graph_merge(struct wperf_graph *g, const struct wperf_graph *src);

/* Sorts the edges by (from, to) and drops the lookup table: the graph is read-only. */
void wperf_graph_finish(struct wperf_graph *g);

/* After finish: the edges leaving v, as [*first, *first + n). */
void wperf_graph_out(const struct wperf_graph *g, uint32_t v, size_t *first, size_t *n);

/* After finish: the index of edge from -> to, or -1. */
int64_t wperf_graph_find(const struct wperf_graph *g, uint32_t from, uint32_t to);

void wperf_graph_release(struct wperf_graph *g);

#endif /* WPERF_GRAPH_H */
