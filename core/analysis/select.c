/* SPDX-License-Identifier: MIT */
/*
 * The analysis's queries about its target (select.h).
 */
#include "core/analysis/select.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/cmp.h"

int wperf_knot_wanted(const struct wperf_analysis *a, const struct wperf_knot *k,
		      const char *target)
{
	uint8_t *reached;
	int wanted = 0;

	if (!target || !*target)
		return 1;
	/* What the target waits for, directly or not: its knots are the target's. */
	reached = calloc(a->merged.nvertices + 1, 1);
	if (!reached || wperf_analysis_mark_reach(a, &a->knot_graph, target, reached) < 0) {
		free(reached);
		return 1; /* out of memory: better show too much than hide a knot */
	}
	for (size_t i = 0; i < k->nvertices && !wanted; i++)
		wanted = reached[k->vertices[i]];
	free(reached);
	return wanted;
}

uint32_t wperf_number_knots(const struct wperf_analysis *a, const char *target, uint32_t *knot_of)
{
	uint32_t n = 0;

	memset(knot_of, 0, a->merged.nvertices * sizeof(*knot_of));
	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (k->kind != WPERF_KNOT || !wperf_knot_wanted(a, k, target))
			continue;
		n++;
		for (size_t j = 0; j < k->nvertices; j++)
			if (!knot_of[k->vertices[j]])
				knot_of[k->vertices[j]] = n;
	}
	return n;
}

int wperf_in_knot(const struct wperf_analysis *a, uint32_t v)
{
	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (k->kind != WPERF_KNOT)
			continue;
		for (size_t j = 0; j < k->nvertices; j++)
			if (k->vertices[j] == v)
				return 1;
	}
	return 0;
}

static int most_held_first(const void *pa, const void *pb)
{
	const struct wperf_timer_paced *a = pa, *b = pb;
	const uint64_t ka[] = {wperf_key_desc(a->held_ns), a->vertex};
	const uint64_t kb[] = {wperf_key_desc(b->held_ns), b->vertex};

	return wperf_cmp_keys(ka, kb, 2);
}

int wperf_waits_on(const struct wperf_analysis *a, const uint8_t *mine, const struct wperf_edge *ed,
		   uint32_t v)
{
	return ed->to == v && ed->from != v && mine[ed->from] &&
	       a->merged.vertices[ed->from].kind == WPERF_ENTITY_THREAD &&
	       ed->weight >= a->min_edge_ns;
}

/* Does a thread of mine wait for v (wperf_waits_on)? */
static int waited_by(const struct wperf_analysis *a, const uint8_t *mine, uint32_t v)
{
	for (size_t i = 0; i < a->merged.graph.nedges; i++)
		if (wperf_waits_on(a, mine, &a->merged.graph.edges[i], v))
			return 1;
	return 0;
}

/*
 * Cascaded re-distribution (wPerf Figure 4) adds to the edge v -> timer v's
 * own sleeps on timers and, for each wait of another thread on v (or on a
 * thread waiting for v, and so on), the part of it during which v slept on a
 * timer. The weight beyond v's own sleeps is so the waiting of others that
 * v's sleeps explain: a thread that paces the throughput has much, a heartbeat
 * thread or a main thread waiting for the end has none. An idle kernel worker
 * waiting for work from v adds to it too (a main thread that syncs its file
 * once wakes one), so v must also be waited for by the target's own threads,
 * as much as the knot search keeps: then it is on the target's path.
 */
int wperf_timer_paced_threads(const struct wperf_analysis *a, const uint8_t *mine,
			      struct wperf_timer_paced **out, size_t *n)
{
	const struct wperf_timeline *tl = a->timeline;
	uint32_t timer;

	*out = NULL;
	*n = 0;
	if (tl->timer == WPERF_NO_ENTITY)
		return 0;
	timer = a->merged.vertex_of[tl->timer];
	for (uint32_t v = 0; v < a->merged.nvertices; v++) {
		const struct wperf_vertex *x = &a->merged.vertices[v];
		int64_t i = wperf_graph_find(&a->merged.graph, v, timer);
		uint64_t weight = i < 0 ? 0 : a->merged.graph.edges[i].weight;
		struct wperf_timer_paced *p;

		if (x->kind != WPERF_ENTITY_THREAD || weight <= x->timer_wait_ns ||
		    weight - x->timer_wait_ns < a->min_edge_ns || !waited_by(a, mine, v))
			continue;
		if (!(p = realloc(*out, (*n + 1) * sizeof(**out)))) {
			free(*out);
			*out = NULL;
			*n = 0;
			return -ENOMEM;
		}
		*out = p;
		p[(*n)++] = (struct wperf_timer_paced){.vertex = v,
						       .sleep_ns = x->timer_wait_ns,
						       .held_ns = weight - x->timer_wait_ns};
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), most_held_first);
	return 0;
}

int wperf_check_counts(const struct wperf_checks *c, size_t i, const char *target)
{
	const struct wperf_checks_line *l = &c->lines[i];

	return l->kind < WPERF_CHECK_THREAD_RUN || l->kind > WPERF_CHECK_THREAD_SLICES ||
	       wperf_analysis_is_target(target, l->tgid, l->process);
}

/* The lines of c that pick (c, i, target) takes, and disagree; *ok: agree. */
static size_t count_warnings(const struct wperf_checks *c, const char *target, size_t *ok,
			     int (*pick)(const struct wperf_checks *, size_t, const char *))
{
	size_t warn = 0, counted = 0;

	for (size_t i = 0; i < c->n; i++)
		if (pick(c, i, target)) {
			counted++;
			warn += c->lines[i].status == WPERF_CHECK_WARN;
		}
	if (ok)
		*ok = counted - warn;
	return warn;
}

size_t wperf_checks_warnings(const struct wperf_checks *c, const char *target, size_t *ok)
{
	return count_warnings(c, target, ok, wperf_check_counts);
}

/* A device's line: what confirms the graph (select.h). */
static int confirms(const struct wperf_checks *c, size_t i, const char *target)
{
	const struct wperf_checks_line *l = &c->lines[i];

	(void)target; /* a device serves every process */
	return l->kind == WPERF_CHECK_DISK_BUSY || l->kind == WPERF_CHECK_NIC_TX ||
	       l->kind == WPERF_CHECK_NIC_RX;
}

size_t wperf_checks_confirming(const struct wperf_checks *c, size_t *ok)
{
	return count_warnings(c, NULL, ok, confirms);
}

const struct wperf_checks_line *wperf_checks_unconfirmed(const struct wperf_checks *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->lines[i].status == WPERF_CHECK_WARN && confirms(c, i, NULL))
			return &c->lines[i];
	return NULL;
}
