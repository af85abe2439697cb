/* SPDX-License-Identifier: MIT */
/*
 * What the differential flame graph's two files share (flame.h): the tree
 * (flame.c builds it and writes its text) and the options with their
 * defaults filled in (flame_svg.c draws from both). Not part of the API.
 *
 * The tree's nodes live in one array, each after its parent (so that a pass
 * from the last node to the first meets callees before their callers); each
 * node keeps its callees' indexes sorted by name, found by binary search as
 * stacks are added. Names are kept NUL-ended in one pool, which UTF-8
 * decoding needs to stop at a name's end.
 */
#ifndef WPERF_FLAME_INTERNAL_H
#define WPERF_FLAME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/report/flame.h"

#define ROOT	  0
#define ROOT_NAME "all"

/* The picture's defaults, in px, as flamegraph.pl's. */
#define IMAGE_PX     1200
#define MIN_FRAME_PX 0.1
#define PAD_X	     10

#define STR_(x) #x
#define STR(x)	STR_(x)

struct flame_node {
	uint32_t name;	       /* offset of its NUL-ended name in the tree's names */
	uint32_t parent;       /* the root's is itself */
	struct wperf_buf kids; /* uint32_t node indexes, sorted by name */
	double a, b;	       /* the time of the stacks through it, on each side */
	double self_a, self_b; /* the time of the stacks that end at it */
};

struct wperf_flame {
	struct wperf_buf nodes; /* struct flame_node, the root first */
	struct wperf_buf names;
};

static inline struct flame_node *node_at(const struct wperf_flame *f, uint32_t id)
{
	return (struct flame_node *)f->nodes.data + id;
}

static inline size_t node_count(const struct wperf_flame *f)
{
	return f->nodes.len / sizeof(struct flame_node);
}

static inline const char *name_of(const struct wperf_flame *f, const struct flame_node *n)
{
	return (const char *)f->names.data + n->name;
}

static inline const uint32_t *kids_of(const struct flame_node *n, size_t *count)
{
	*count = n->kids.len / sizeof(uint32_t);
	return (const uint32_t *)n->kids.data;
}

/* The options with their defaults filled in. */
struct flame_view {
	const struct wperf_flame *f;
	double scale_a, scale_b;
	enum wperf_flame_width width;
	double image_px, min_frame_px;
	const char *title, *unit;
};

void flame_view_init(struct flame_view *v, const struct wperf_flame *f,
		     const struct wperf_flame_opts *o);

/* A frame's B - A after scaling, its callees' time included. */
double flame_frame_change(const struct flame_view *v, const struct flame_node *n);

/* Is the change worth a colour or a line, or only rounding of the scaling? */
int flame_changed(double change, double a, double b);

/* A number as people read it: whole above 100, three digits below. */
const char *flame_number(char buf[32], double v);

#endif /* WPERF_FLAME_INTERNAL_H */
