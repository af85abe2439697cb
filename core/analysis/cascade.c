/* SPDX-License-Identifier: MIT */
#include "core/analysis/cascade.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/cmp.h"

#define DEFAULT_DEPTH  64
#define SLICE_SEGMENTS 4096 /* segments in a slice of time (work()): some 200 KiB */

/* The issuers of one device: a range of the sorted shares, and their bytes. */
struct device_shares {
	size_t first, n;
	uint64_t total;
};

struct cascade {
	const struct wperf_timeline *tl;
	unsigned max_depth;
	struct wperf_io_share *shares;	 /* sorted by device */
	struct device_shares *by_device; /* per entity; n == 0 for threads */
	const uint32_t *stand_in;	 /* wperf_cascade_opts */
};

/* The entity whose waits a wait for e recurses into. */
static uint32_t stand_in(const struct cascade *c, uint32_t e)
{
	return c->stand_in ? c->stand_in[e] : e;
}

/* The call site a worker added to last for an entity's waits. */
struct last_site {
	const struct wperf_segment *seg; /* the wait, or NULL */
	size_t site;			 /* its site's index in the worker's sites */
};

struct worker {
	const struct cascade *c;
	uint64_t from, until; /* its part of the window: the top-level waits that start there */
	struct wperf_callsites sites; /* the weight of each edge, by call site */
	/* per entity: a thread blocks in the same place for the same waker again
	 * and again, and comparing a wait with the last one costs less than a
	 * look-up in sites */
	struct last_site *last_site;
	uint64_t *share_weight; /* per share: the weight of its edge device -> issuer */
	uint8_t *on_path;	/* per entity: on the current chain of waits */
	uint32_t *hint;		/* per entity: where the last search of its segments ended */
	size_t *next;		/* per entity: the number of its next segment for work() */
	unsigned depth;		/* of the current chain */
	int err;
	pthread_t thread;
};

static void cascade_segment(struct worker *w, uint32_t entity, const struct wperf_segment *seg,
			    uint64_t start, uint64_t end, double scale);

/* The weight of an interval for an edge reached through a device's share. */
static uint64_t scaled(uint64_t len, double scale)
{
	return scale == 1.0 ? len : (uint64_t)((double)len * scale);
}

/* Whether two waits of one entity have the same call site. */
static int same_site(const struct wperf_segment *a, const struct wperf_segment *b)
{
	return a->waker == b->waker && a->stacks == b->stacks; /* equal indexes, equal stacks */
}

static int add_site(struct wperf_callsites *sites, const struct wperf_timeline *tl,
		    struct wperf_callsite key, uint64_t weight)
{
	key.waiter_tgid = tl->entities[key.from].tgid;
	key.waker_tgid = tl->entities[key.to].tgid;
	return wperf_callsites_add(sites, &key, weight);
}

/* Adds weight to the edge of a wait of entity (waiter -> waker) at the wait's
 * call site. */
static void add_wait(struct worker *w, uint32_t entity, const struct wperf_segment *seg,
		     uint64_t weight)
{
	const struct wperf_timeline *tl = w->c->tl;
	struct last_site *l = &w->last_site[entity];

	if (!weight)
		return;
	if (!l->seg || !same_site(l->seg, seg)) {
		const struct wperf_wait_stacks *st = wperf_segment_stacks(tl, seg);
		struct wperf_callsite key = {.from = entity,
					     .to = seg->waker,
					     .kstack = st->kstack,
					     .ustack = st->ustack,
					     .waker_kstack = st->waker_kstack,
					     .waker_ustack = st->waker_ustack,
					     .waiter_tgid = tl->entities[entity].tgid,
					     .waker_tgid = tl->entities[seg->waker].tgid};
		int64_t i = wperf_callsites_index(&w->sites, &key);

		if (i < 0) {
			w->err = (int)i;
			return;
		}
		*l = (struct last_site){seg, (size_t)i};
	}
	w->sites.sites[l->site].weight += weight;
}

/*
 * The first of segs[0, n) that ends after t, n if none (segments are sorted,
 * disjoint). Waits are cascaded in time order, slice by slice, so it is near
 * where the last search in this entity ended (hint): just past it, or a slice
 * of time back when a search from another entity's waits starts over. A search
 * that gallops away from hint (1, 2, 4, ... segments) and then bisects reads
 * only segments near it, still in the cache, where bisecting the whole array
 * would read some far away.
 */
static size_t seek(const struct wperf_segment *segs, size_t n, size_t hint, uint64_t t)
{
	size_t lo, hi, step = 1;

	if (hint < n && segs[hint].end <= t) { /* after hint */
		lo = hint + 1;
		while (lo + step <= n && segs[lo + step - 1].end <= t) {
			lo += step;
			step *= 2;
		}
		hi = lo + step <= n ? lo + step - 1 : n;
	} else { /* at or before hint */
		hi = hint < n ? hint : n;
		while (hi >= step && segs[hi - step].end > t) {
			hi -= step;
			step *= 2;
		}
		lo = hi >= step ? hi - step + 1 : 0;
	}
	while (lo < hi) { /* the answer is in [lo, hi] */
		size_t mid = lo + (hi - lo) / 2;

		if (segs[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Cascades the waits of entity that overlap [start, end), clipped to it. */
static void recurse_into(struct worker *w, uint32_t entity, uint64_t start, uint64_t end,
			 double scale)
{
	const struct wperf_timeline *tl = w->c->tl;
	const struct wperf_segment *segs;
	size_t n, lo;
	uint64_t from; /* where segs[i] starts */

	if (w->depth >= w->c->max_depth || w->on_path[entity] || w->err)
		return; /* a cycle on this chain, or nesting too deep to matter */
	segs = wperf_timeline_segments(tl, entity, &n);
	lo = seek(segs, n, w->hint[entity], start);
	w->hint[entity] = (uint32_t)lo;
	w->on_path[entity] = 1;
	w->depth++;
	from = wperf_segment_start(&tl->entities[entity], lo);
	for (size_t i = lo; i < n && from < end; from = segs[i++].end) {
		if (segs[i].state != WPERF_SEG_WAITING)
			continue;
		cascade_segment(w, entity, &segs[i], from > start ? from : start,
				segs[i].end < end ? segs[i].end : end, scale);
	}
	w->depth--;
	w->on_path[entity] = 0;
}

/* Figure 4's cascade(), for the part [start, end) of a waiting segment of entity. */
static void cascade_segment(struct worker *w, uint32_t entity, const struct wperf_segment *seg,
			    uint64_t start, uint64_t end, double scale)
{
	const struct device_shares *d;

	if (seg->waker == WPERF_NO_ENTITY)
		return; /* the window ended before anything woke it */
	if (seg->waker != WPERF_WAKER_ISSUERS) {
		add_wait(w, entity, seg, scaled(end - start, scale));
		recurse_into(w, stand_in(w->c, seg->waker), start, end, scale);
		return;
	}
	/* A device's idle time: it waits for each issuer by its share of the bytes. */
	d = &w->c->by_device[entity];
	for (size_t i = d->first; i < d->first + d->n; i++) {
		const struct wperf_io_share *s = &w->c->shares[i];
		double share = scale * (double)s->bytes / (double)d->total;

		w->share_weight[i] += scaled(end - start, share);
		recurse_into(w, stand_in(w->c, s->thread), start, end, share);
	}
}

/* Where each entity's top-level waits for w begin: its first segment that
 * starts at or after w->from (every segment for the first worker). */
static void start_at(struct worker *w)
{
	const struct wperf_timeline *tl = w->c->tl;

	for (uint32_t e = 0; e < tl->nentities; e++) {
		const struct wperf_entity *en = &tl->entities[e];
		size_t k = 0;

		if (w->from) {
			k = seek(en->segments, en->nsegments, 0, w->from);
			if (k < en->nsegments && wperf_segment_start(en, k) < w->from)
				k++; /* it started in the worker before */
		}
		w->next[e] = en->first_segment + k;
	}
}

/*
 * The worker's top-level waits, a slice of time at a time: each slice takes the
 * waits that start in it from every entity, so that what a cascade reads (the
 * waiter's segments, its waker's, theirs) is a short stretch of time, still in
 * the cache from the waits before. Entity by entity, a waker's segments would
 * come from memory again for every thread it woke. Slices hold some
 * SLICE_SEGMENTS segments, and are at most nsegments / nentities, so that going
 * over the entities in each costs no more than the segments. Workers split the
 * window, not the entities: a few busy threads would leave one worker all the
 * work.
 */
static void *work(void *arg)
{
	struct worker *w = arg;
	const struct wperf_timeline *tl = w->c->tl;
	uint64_t lo = w->from > tl->start ? w->from : tl->start;
	uint64_t hi = w->until < tl->end ? w->until : tl->end;
	uint64_t span = hi > lo ? hi - lo : 0;
	size_t nslices = tl->nsegments / SLICE_SEGMENTS;

	if (nslices > tl->nsegments / (tl->nentities + 1))
		nslices = tl->nsegments / (tl->nentities + 1);
	nslices = nslices ? nslices : 1;
	start_at(w);
	for (size_t slice = 1; slice <= nslices && !w->err; slice++) {
		uint64_t until = slice == nslices
				     ? w->until
				     : lo + (uint64_t)((unsigned __int128)span * slice / nslices);

		for (uint32_t e = 0; e < tl->nentities; e++) {
			const struct wperf_entity *en = &tl->entities[e];
			size_t k = w->next[e], end = (size_t)en->first_segment + en->nsegments;
			uint64_t from; /* where segment k starts */

			if (k >= end || stand_in(w->c, e) != e)
				continue;
			from = wperf_segment_start(en, k - en->first_segment);
			for (; k < end && from < until; k++) {
				const struct wperf_segment *s =
				    &en->segments[k - en->first_segment];

				if (s->state == WPERF_SEG_WAITING) {
					w->on_path[e] = 1;
					w->depth = 1;
					cascade_segment(w, e, s, from, s->end, 1.0);
					w->on_path[e] = 0;
				}
				from = s->end;
			}
			w->next[e] = k;
		}
	}
	return NULL;
}

static int by_device(const void *a, const void *b)
{
	const struct wperf_io_share *x = a, *y = b;
	const uint64_t kx[] = {x->device, x->thread}, ky[] = {y->device, y->thread};

	return wperf_cmp_keys(kx, ky, 2);
}

static int prepare(struct cascade *c, const struct wperf_timeline *tl,
		   const struct wperf_cascade_opts *opts)
{
	c->tl = tl;
	c->max_depth = opts && opts->max_depth ? opts->max_depth : DEFAULT_DEPTH;
	c->stand_in = opts ? opts->stand_in : NULL;
	c->shares = malloc((tl->nshares + 1) * sizeof(*c->shares));
	c->by_device = calloc(tl->nentities + 1, sizeof(*c->by_device));
	if (!c->shares || !c->by_device)
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
	return 0;
}

static int worker_init(struct worker *w, const struct cascade *c, unsigned j, unsigned jobs)
{
	const struct wperf_timeline *tl = c->tl;
	uint64_t span = tl->end > tl->start ? tl->end - tl->start : 0;

	w->c = c;
	/* Each worker the waits that start in [from, until): one after another,
	 * the first also taking what starts before the window, the last what
	 * starts after it. */
	w->from = j ? tl->start + (uint64_t)((unsigned __int128)span * j / jobs) : 0;
	w->until = j + 1 < jobs ? tl->start + (uint64_t)((unsigned __int128)span * (j + 1) / jobs)
				: UINT64_MAX;
	w->last_site = calloc(tl->nentities + 1, sizeof(*w->last_site));
	w->share_weight = calloc(tl->nshares + 1, sizeof(*w->share_weight));
	w->on_path = calloc(tl->nentities + 1, sizeof(*w->on_path));
	w->hint = calloc(tl->nentities + 1, sizeof(*w->hint));
	w->next = calloc(tl->nentities + 1, sizeof(*w->next));
	return w->last_site && w->share_weight && w->on_path && w->hint && w->next ? 0 : -ENOMEM;
}

/* The workers' call sites and device shares, summed into sites; the graph from
 * them. */
static int build(const struct cascade *c, struct worker *workers, unsigned jobs,
		 struct wperf_graph *graph, struct wperf_callsites *sites)
{
	const struct wperf_timeline *tl = c->tl;
	int e = 0;

	*sites = workers[0].sites;
	workers[0].sites = (struct wperf_callsites){0};
	/* Integer sums: the result does not depend on how the work was split. */
	for (unsigned j = 1; j < jobs && !e; j++) {
		e = wperf_callsites_merge(sites, &workers[j].sites);
		for (size_t i = 0; i < tl->nshares; i++)
			workers[0].share_weight[i] += workers[j].share_weight[i];
	}
	for (size_t i = 0; i < tl->nshares && !e; i++)
		if (workers[0].share_weight[i])
			e = add_site(sites, tl,
				     (struct wperf_callsite){.from = c->shares[i].device,
							     .to = c->shares[i].thread,
							     .kstack = WPERF_NO_STACK,
							     .ustack = WPERF_NO_STACK,
							     .waker_kstack = WPERF_NO_STACK,
							     .waker_ustack = WPERF_NO_STACK},
				     workers[0].share_weight[i]);
	if (e)
		return e;
	wperf_callsites_finish(sites);
	/* An edge weighs what its call sites do. */
	for (size_t i = 0; i < sites->n && !e; i++)
		e = wperf_graph_add(graph, sites->sites[i].from, sites->sites[i].to,
				    sites->sites[i].weight);
	return e;
}

int wperf_cascade(const struct wperf_timeline *tl, const struct wperf_cascade_opts *opts,
		  struct wperf_graph *graph, struct wperf_callsites *sites, struct wperf_error *err)
{
	unsigned jobs = opts && opts->jobs ? opts->jobs : 1;
	struct cascade c = {0};
	struct worker *workers = calloc(jobs, sizeof(*workers));
	unsigned started = 0;
	int e = prepare(&c, tl, opts);

	if (!workers)
		e = -ENOMEM;
	for (unsigned j = 0; j < jobs && !e; j++)
		e = worker_init(&workers[j], &c, j, jobs);
	/* Worker 0 runs on the calling thread; the others get their own. */
	for (unsigned j = 1; j < jobs && !e; j++) {
		if (pthread_create(&workers[j].thread, NULL, work, &workers[j]))
			e = -EAGAIN;
		else
			started++; /* only what started is joined */
	}
	if (!e)
		work(&workers[0]);
	for (unsigned j = 1; j <= started; j++)
		pthread_join(workers[j].thread, NULL);
	for (unsigned j = 0; j < jobs && !e; j++)
		e = workers[j].err;
	if (!e)
		e = wperf_graph_init(graph, tl->nentities);
	if (!e)
		e = build(&c, workers, jobs, graph, sites);
	for (unsigned j = 0; workers && j < jobs; j++) {
		wperf_callsites_release(&workers[j].sites);
		free(workers[j].last_site);
		free(workers[j].share_weight);
		free(workers[j].on_path);
		free(workers[j].hint);
		free(workers[j].next);
	}
	free(workers);
	free(c.shares);
	free(c.by_device);
	if (e)
		return wperf_error_set(err, e, "cascading the waits: %s",
				       e == -EAGAIN ? "cannot start a worker thread"
						    : "out of memory");
	wperf_graph_finish(graph);
	return 0;
}
