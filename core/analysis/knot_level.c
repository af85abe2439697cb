/* SPDX-License-Identifier: MIT */
/*
 * The level of the knot search (see knot_level.h): the middle of the widest
 * range of levels over which the final knots stay the same.
 *
 * The graph's distinct edge weights w1 < w2 < ... cut the levels (0, max]
 * into segments: a level in (w[i-1], w[i]] keeps exactly the edges of weight
 * >= w[i], so one knot search per distinct weight covers every level. Two
 * neighbouring segments whose final knots and sinks are the same vertex sets
 * join into one range; the widest range wins, the lower one on a tie (the
 * first versions cut at a fixed level near the bottom of the range).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
#include "core/analysis/knot_level.h"
#include "core/util/cmp.h"

/* The distinct weights of g's edges in (0, max], ascending, then max. */
static int level_cuts(const struct wperf_graph *g, uint64_t max, struct wperf_buf *cuts)
{
	uint64_t *w;
	size_t n = 0;

	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].weight > 0 && g->edges[i].weight < max &&
		    wperf_buf_append(cuts, &g->edges[i].weight, sizeof(uint64_t)))
			return -ENOMEM;
	if (wperf_buf_append(cuts, &max, sizeof(max)))
		return -ENOMEM;
	w = (uint64_t *)cuts->data;
	qsort(w, cuts->len / sizeof(*w), sizeof(*w), wperf_cmp_u64_items);
	for (size_t i = 0; i < cuts->len / sizeof(*w); i++)
		if (!n || w[n - 1] != w[i])
			w[n++] = w[i];
	cuts->len = n * sizeof(*w);
	return 0;
}

/* g less its edges under level. */
static int graph_from_level(const struct wperf_graph *g, uint64_t level, struct wperf_graph *out)
{
	int e = wperf_graph_init(out, g->nvertices);

	for (size_t i = 0; i < g->nedges && !e; i++)
		if (g->edges[i].weight >= level)
			e = wperf_graph_add(out, g->edges[i].from, g->edges[i].to,
					    g->edges[i].weight);
	if (!e)
		wperf_graph_finish(out);
	return e;
}

/* The final knots and sinks of s are those of t, vertex for vertex. */
static int same_answer(const struct wperf_knot_set *s, const struct wperf_knot_set *t)
{
	if (s->nfinal != t->nfinal)
		return 0;
	for (size_t i = 0; i < s->nfinal; i++) {
		const struct wperf_knot *a = &s->knots[i], *b = &t->knots[i];

		if (a->kind != b->kind || a->nvertices != b->nvertices ||
		    memcmp(a->vertices, b->vertices, a->nvertices * sizeof(*a->vertices)))
			return 0;
	}
	return 1;
}

/* The final knots of g less its edges under level, into out. */
static int knots_at(const struct wperf_graph *g, const struct wperf_knot_opts *ko, uint64_t level,
		    struct wperf_knot_set *out, struct wperf_error *err)
{
	struct wperf_graph cut = {0};
	int e = graph_from_level(g, level, &cut);

	if (e)
		e = wperf_error_set(err, e, "out of memory");
	else
		e = wperf_find_knots(&cut, ko, out, err);
	wperf_graph_release(&cut);
	return e;
}

int wperf_knot_level(const struct wperf_graph *g, const struct wperf_knot_opts *ko, uint64_t max,
		     uint64_t *level, struct wperf_error *err)
{
	struct wperf_buf cuts = {0};
	struct wperf_knot_set prev = {0}, cur = {0};
	uint64_t run_lo = 0, best_lo = 0, best_hi = 0, lo = 0;
	const uint64_t *w;
	int e;

	if (!max) {
		*level = 0;
		return 0;
	}
	if (level_cuts(g, max, &cuts) < 0)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	w = (const uint64_t *)cuts.data;
	for (size_t i = 0; i < cuts.len / sizeof(*w); lo = w[i++]) {
		/* levels (lo, w[i]] keep the edges of at least w[i] */
		e = knots_at(g, ko, w[i], &cur, err);
		if (e)
			goto out;
		if (i && !same_answer(&prev, &cur))
			run_lo = lo;
		if (w[i] - run_lo > best_hi - best_lo) {
			best_lo = run_lo;
			best_hi = w[i];
		}
		wperf_knot_set_release(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	*level = best_lo + (best_hi - best_lo) / 2;
	e = 0;
out:
	wperf_knot_set_release(&prev);
	wperf_knot_set_release(&cur);
	wperf_buf_release(&cuts);
	return e;
}
