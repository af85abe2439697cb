/* SPDX-License-Identifier: MIT */
/*
 * The bottom of the knot search (knots.c): the knots waiting for refinement
 * and their work list, the final and background knots found, and what counts
 * as background, for the top level (knots_top.c) and refinement (knots.c)
 * alike.
 */
#include <stdlib.h>

#include "core/util/buf.h"
#include "core/analysis/knots_internal.h"

void knot_pending_free(struct knot_pending *p)
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
int knot_add_entry(struct wperf_buf *list, struct knot_pending *p, uint8_t kind)
{
	struct knot_entry e = {
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
int knot_push_work(struct knot_state *s, struct knot_pending *p)
{
	int ret = wperf_buf_append(&s->work, p, sizeof(*p));

	if (!ret)
		p->verts = NULL, p->edges = NULL;
	return ret;
}

#define DEFAULT_SINK_CPU 0.5

/* A knot without I/O that uses less than one CPU in all (section 3.3, with the
 * margin of WPERF_BACKGROUND_CPU), or a sink without I/O that is mostly idle. */
int knot_is_background(const struct knot_state *s, const struct knot_component *ci, int sink)
{
	const struct wperf_knot_opts *o = s->opts;
	double sink_cpu = o->sink_cpu > 0 ? o->sink_cpu : DEFAULT_SINK_CPU;
	double knot_cpu = o->background_cpu > 0 ? o->background_cpu : WPERF_BACKGROUND_CPU;

	return o->cpu && !ci->io && ci->cpu < (sink ? sink_cpu : knot_cpu);
}
