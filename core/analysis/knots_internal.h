/* SPDX-License-Identifier: MIT */
/*
 * Shared by knots.c (refinement and the answer), knots_top.c (the top level: the
 * whole graph), knots_refine.c (SCCs and cuts) and knots_state.c (pending
 * knots, the work list, the entries found); not part of libwperf's API.
 */
#ifndef WPERF_KNOTS_INTERNAL_H
#define WPERF_KNOTS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/analysis/graph.h"
#include "core/analysis/knots.h"

#define KNOT_NONE UINT32_MAX /* no parent knot */

/* A knot waiting for refinement; it owns its arrays. */
struct knot_pending {
	uint32_t *verts; /* sorted */
	size_t nverts;
	struct wperf_edge *edges; /* its inner edges, by (weight, from, to) */
	size_t nedges;
	uint32_t parent; /* index among the intermediate knots, or KNOT_NONE */
	size_t removed;
};

/* A final or background knot, with the key it is sorted by. */
struct knot_entry {
	struct wperf_knot k;
	uint64_t max_weight; /* its heaviest inner edge; 0 for a sink */
};

struct knot_state {
	const struct wperf_graph *g;
	const struct wperf_knot_opts *opts;
	struct wperf_buf finals;     /* struct knot_entry */
	struct wperf_buf background; /* struct knot_entry */
	struct wperf_buf inter;	     /* struct wperf_knot: the knots refinement split */
	struct wperf_buf work;	     /* struct knot_pending, a stack */
	/* scratch, nvertices entries each, in one block that cursor owns (state_alloc) */
	uint32_t *loc; /* global vertex -> its index in the knot being refined */
	uint32_t *comp, *order;
	size_t *cursor;
	uint8_t *closed;
};

/* What the top level knows of a component. */
struct knot_component {
	uint32_t nverts;
	size_t nin;    /* inner edges */
	size_t outdeg; /* edges to other components still in the analysis */
	double cpu;
	uint8_t io, ignored, gone;
};

/* ---- knots_state.c ---- */
/* Frees p's arrays (NULL after). */
void knot_pending_free(struct knot_pending *p);
/* Appends a final (or background) knot or sink made of p to list; on success
 * p's vertex array belongs to the entry and p->verts is NULL. */
int knot_add_entry(struct wperf_buf *list, struct knot_pending *p, uint8_t kind);
/* Pushes p on the work list; on success the list owns p's arrays. */
int knot_push_work(struct knot_state *s, struct knot_pending *p);
/* A knot without I/O that uses less than one CPU in all, or a sink without
 * I/O that is mostly idle. */
int knot_is_background(const struct knot_state *s, const struct knot_component *ci, int sink);
/* knots_top.c: the top level; sinks and background knots go to the answer, knots to
 * the work list (the one with the smallest vertex on top). */
int knot_top_level(struct knot_state *s, struct wperf_error *err);

/*
 * One refinement step. The knot has n > 1 vertices, loc maps each of them (a
 * global id) to 0 .. n - 1, and its m inner edges come sorted by (weight, from,
 * to). Trims the lightest weight levels until the knot is no longer strongly
 * connected, or what is left is a simple cycle or has no edge lighter than
 * threshold: *cut gets how many edges went, comp[0 .. n) the components of
 * what is left, *ncomp their number (1: the knot stays whole, to be reported
 * with its remaining edges). Returns 0 or -ENOMEM.
 */
int wperf_knot_split(uint32_t n, const uint32_t *loc, const struct wperf_edge *edges, size_t m,
		     uint64_t threshold, uint32_t *comp, uint32_t *ncomp, size_t *cut);

#endif /* WPERF_KNOTS_INTERNAL_H */
