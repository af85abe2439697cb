/* SPDX-License-Identifier: MIT */
/*
 * The call sites behind a verdict's findings, for people to see where the
 * time of a worse edge goes: taken from the runs, which keep each edge's
 * heaviest sites (run_from_analysis.c), not from their reports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/verdict.h"

/* Does f want the sites of its edge, and has it none yet? */
static int wants_sites(const struct wperf_finding *f)
{
	if (f->nsites || !f->from || !f->to)
		return 0;
	if (f->kind == WPERF_FINDING_EDGE)
		return f->worse && f->level >= WPERF_LEVEL_WARN;
	return f->kind == WPERF_FINDING_VERTEX;
}

static int cmp_edge_share(const void *pa, const void *pb)
{
	const struct wperf_run_edge *a = *(const struct wperf_run_edge *const *)pa;
	const struct wperf_run_edge *b = *(const struct wperf_run_edge *const *)pb;

	return (a->share > b->share) - (a->share < b->share);
}

/* The sites of f's edge in the run whose share of it is the median (the
 * lower one of two) among the runs that have it; edges: room for one each. */
static int take_median(struct wperf_finding *f, const struct wperf_runset *rs,
		       const struct wperf_run_edge **edges)
{
	const struct wperf_run_edge *m;
	size_t n = 0;

	for (size_t r = 0; r < rs->nruns; r++) {
		const struct wperf_run_edge *e = wperf_run_edge(&rs->runs[r], f->from, f->to);

		if (e && e->share > 0)
			edges[n++] = e;
	}
	if (!n)
		return 0;
	qsort(edges, n, sizeof(*edges), cmp_edge_share);
	m = edges[(n - 1) / 2];
	if (!m->nsites)
		return 0;
	if (!(f->sites = calloc(m->nsites, sizeof(*f->sites))))
		return -ENOMEM;
	for (size_t i = 0; i < m->nsites; i++) {
		struct wperf_site *s = &f->sites[f->nsites++];

		s->share = m->sites[i].share / m->share;
		if ((m->sites[i].waiter && !(s->waiter = strdup(m->sites[i].waiter))) ||
		    (m->sites[i].waker && !(s->waker = strdup(m->sites[i].waker))))
			return -ENOMEM;
	}
	return 0;
}

int wperf_verdict_take_sites(struct wperf_verdict *v, const struct wperf_runset *rs)
{
	const struct wperf_run_edge **edges = calloc(rs->nruns + 1, sizeof(*edges));
	int ret = edges ? 0 : -ENOMEM;

	for (size_t i = 0; i < v->nfindings && !ret; i++)
		if (wants_sites(&v->findings[i]))
			ret = take_median(&v->findings[i], rs, edges);
	free(edges);
	return ret;
}
