/* SPDX-License-Identifier: MIT */
#include "cascade.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_DEPTH 64

/* The issuers of one device: a range of the sorted shares, and their bytes. */
struct device_shares {
	size_t first, n;
	uint64_t total;
};

struct cascade {
	const struct wperf_timeline *tl;
	unsigned max_depth;
	struct wperf_io_share *shares;	    /* sorted by device */
	struct device_shares *by_device;    /* per entity; n == 0 for threads */
	const struct wperf_segment **waits; /* every waiting segment: the top-level work */
	size_t nwaits;
};

struct worker {
	const struct cascade *c;
	size_t first, last; /* its part of c->waits */
	struct wperf_graph graph;
	struct wperf_callsites sites;
	uint32_t *path; /* the entities on the current chain of waits */
	uint32_t *hint; /* per entity: where the last search of its segments ended */
	unsigned depth;
	int err;
	pthread_t thread;
};

static int cascade_segment(struct worker *w, const struct wperf_segment *seg, uint64_t start,
			   uint64_t end, double scale);

/* The weight of an interval for an edge reached through a device's share. */
static uint64_t scaled(uint64_t len, double scale)
{
	return scale == 1.0 ? len : (uint64_t)((double)len * scale);
}

static int add_edge(struct worker *w, uint32_t from, uint32_t to, uint64_t weight,
		    const struct wperf_segment *seg)
{
	struct wperf_callsite key = {.from = from,
				     .to = to,
				     .kstack = seg ? seg->kstack : WPERF_NO_STACK,
				     .ustack = seg ? seg->ustack : WPERF_NO_STACK,
				     .waker_kstack = seg ? seg->waker_kstack : WPERF_NO_STACK,
				     .waker_ustack = seg ? seg->waker_ustack : WPERF_NO_STACK,
				     .waiter_tgid = w->c->tl->entities[from].tgid,
				     .waker_tgid = w->c->tl->entities[to].tgid};

	if (weight == 0)
		return 0;
	if (wperf_graph_add(&w->graph, from, to, weight) < 0 ||
	    wperf_callsites_add(&w->sites, &key, weight) < 0)
		return -ENOMEM;
	return 0;
}

static int on_path(const struct worker *w, uint32_t entity)
{
	for (unsigned i = 0; i < w->depth; i++)
		if (w->path[i] == entity)
			return 1;
	return 0;
}

/* Cascades the waits of entity that overlap [start, end), clipped to it. */
static int recurse_into(struct worker *w, uint32_t entity, uint64_t start, uint64_t end,
			double scale)
{
	const struct wperf_timeline *tl = w->c->tl;
	const struct wperf_segment *segs;
	size_t n, lo = 0, hi;
	int e = 0;

	if (w->depth >= w->c->max_depth || on_path(w, entity))
		return 0; /* a cycle on this chain, or nesting too deep to matter */
	segs = wperf_timeline_segments(tl, entity, &n);
	/*
	 * The first segment that ends after start (segments are sorted, disjoint).
	 * Waits are cascaded in time order, so it is usually where the last search
	 * in this entity ended, or just past it: check there before bisecting.
	 */
	lo = w->hint[entity];
	while (lo < n && segs[lo].end <= start && lo < (size_t)w->hint[entity] + 4)
		lo++;
	if (!(lo < n && segs[lo].end > start && (lo == 0 || segs[lo - 1].end <= start))) {
		lo = 0;
		hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (segs[mid].end <= start)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	w->hint[entity] = (uint32_t)lo;
	w->path[w->depth++] = entity;
	for (size_t i = lo; i < n && segs[i].start < end && !e; i++) {
		if (segs[i].state != WPERF_SEG_WAITING)
			continue;
		e = cascade_segment(w, &segs[i], segs[i].start > start ? segs[i].start : start,
				    segs[i].end < end ? segs[i].end : end, scale);
	}
	w->depth--;
	return e;
}

/* Figure 4's cascade(), for the part [start, end) of a waiting segment. */
static int cascade_segment(struct worker *w, const struct wperf_segment *seg, uint64_t start,
			   uint64_t end, double scale)
{
	const struct device_shares *d;
	int e = 0;

	if (seg->waker == WPERF_NO_ENTITY)
		return 0; /* the window ended before anything woke it */
	if (seg->waker != WPERF_WAKER_ISSUERS) {
		e = add_edge(w, seg->entity, seg->waker, scaled(end - start, scale), seg);
		return e ? e : recurse_into(w, seg->waker, start, end, scale);
	}
	/* A device's idle time: it waits for each issuer by its share of the bytes. */
	d = &w->c->by_device[seg->entity];
	for (size_t i = d->first; i < d->first + d->n && !e; i++) {
		const struct wperf_io_share *s = &w->c->shares[i];
		double share = scale * (double)s->bytes / (double)d->total;

		e = add_edge(w, seg->entity, s->thread, scaled(end - start, share), NULL);
		if (!e)
			e = recurse_into(w, s->thread, start, end, share);
	}
	return e;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	for (size_t i = w->first; i < w->last && !w->err; i++) {
		const struct wperf_segment *seg = w->c->waits[i];

		w->path[0] = seg->entity;
		w->depth = 1;
		w->err = cascade_segment(w, seg, seg->start, seg->end, 1.0);
	}
	return NULL;
}

static int by_device(const void *a, const void *b)
{
	const struct wperf_io_share *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

static int prepare(struct cascade *c, const struct wperf_timeline *tl, unsigned max_depth)
{
	size_t nwaits = 0;

	c->tl = tl;
	c->max_depth = max_depth ? max_depth : DEFAULT_DEPTH;
	c->shares = malloc((tl->nshares + 1) * sizeof(*c->shares));
	c->by_device = calloc(tl->nentities + 1, sizeof(*c->by_device));
	for (size_t i = 0; i < tl->nsegments; i++)
		nwaits += tl->segments[i].state == WPERF_SEG_WAITING;
	c->waits = malloc((nwaits + 1) * sizeof(*c->waits));
	if (!c->shares || !c->by_device || !c->waits)
		return -ENOMEM;
	if (tl->nshares) { /* shares may be NULL when there was no I/O */
		memcpy(c->shares, tl->shares, tl->nshares * sizeof(*c->shares));
		qsort(c->shares, tl->nshares, sizeof(*c->shares), by_device);
	}
	for (size_t i = 0; i < tl->nshares; i++) {
		struct device_shares *d = &c->by_device[c->shares[i].device];

		if (d->n == 0)
			d->first = i;
		d->n++;
		d->total += c->shares[i].bytes;
	}
	for (size_t i = 0; i < tl->nsegments; i++)
		if (tl->segments[i].state == WPERF_SEG_WAITING)
			c->waits[c->nwaits++] = &tl->segments[i];
	return 0;
}

int wperf_cascade(const struct wperf_timeline *tl, const struct wperf_cascade_opts *opts,
		  struct wperf_graph *graph, struct wperf_callsites *sites, struct wperf_error *err)
{
	unsigned jobs = opts && opts->jobs ? opts->jobs : 1;
	struct cascade c = {0};
	struct worker *workers = calloc(jobs, sizeof(*workers));
	unsigned started = 0;
	int e = prepare(&c, tl, opts ? opts->max_depth : 0);

	if (!workers)
		e = -ENOMEM;
	for (unsigned j = 0; j < jobs && !e; j++) {
		struct worker *w = &workers[j];

		w->c = &c;
		w->first = c.nwaits * j / jobs;
		w->last = c.nwaits * (j + 1) / jobs;
		w->path = malloc((c.max_depth + 1) * sizeof(*w->path));
		w->hint = calloc(tl->nentities + 1, sizeof(*w->hint));
		if (!w->path || !w->hint || wperf_graph_init(&w->graph, tl->nentities) < 0)
			e = -ENOMEM;
	}
	/* Worker 0 runs on the calling thread; the others get their own. */
	for (unsigned j = 1; j < jobs && !e; j++, started++)
		if (pthread_create(&workers[j].thread, NULL, work, &workers[j]))
			e = -EAGAIN;
	if (!e)
		work(&workers[0]);
	for (unsigned j = 1; j <= started; j++)
		pthread_join(workers[j].thread, NULL);
	if (!e)
		e = wperf_graph_init(graph, tl->nentities);
	for (unsigned j = 0; j < jobs && !e; j++) {
		e = workers[j].err;
		if (!e && (wperf_graph_merge(graph, &workers[j].graph) < 0 ||
			   wperf_callsites_merge(sites, &workers[j].sites) < 0))
			e = -ENOMEM;
	}
	for (unsigned j = 0; workers && j < jobs; j++) {
		wperf_graph_release(&workers[j].graph);
		wperf_callsites_release(&workers[j].sites);
		free(workers[j].path);
		free(workers[j].hint);
	}
	free(workers);
	free(c.shares);
	free(c.by_device);
	free(c.waits);
	if (e)
		return wperf_error_set(err, e, "cascading the waits: %s",
				       e == -EAGAIN ? "cannot start a worker thread"
						    : "out of memory");
	wperf_graph_finish(graph);
	wperf_callsites_finish(sites);
	return 0;
}
