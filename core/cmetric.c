/* SPDX-License-Identifier: MIT */
#include "cmetric.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * A thread in the sweep: it walks the thread's own segments, which are sorted
 * and disjoint, so that the sweep over all threads is a merge of sorted lists
 * rather than a sort of every boundary (and reads each segment once, in order).
 */
struct walker {
	const struct wperf_segment *seg, *end; /* its next active segment; its segments' end */
	uint64_t start;			       /* where seg starts: where the one before it ended */
	uint32_t entity;		       /* whose segments */
	uint8_t inside;	 /* 1: seg has started (its end is next), 0: its start is next */
	uint8_t done;	 /* no active segment left */
	double cm_start; /* cm when seg started */
};

/*
 * The merge picks the walker with the earliest next boundary from a loser tree
 * (a tournament: each internal node keeps the walker that lost the match
 * there) of m leaves, one per walker and the rest idle. After the winner moves
 * on, replaying its path to the root takes log2(m) comparisons, one per level,
 * where a heap would take two per level and move entries about.
 */
struct sweep {
	const struct wperf_timeline *tl;
	struct walker *w;
	uint64_t *key; /* per leaf: the time of its walker's next boundary, UINT64_MAX when done */
	uint32_t *loser; /* per internal node, 1 to m - 1 */
	size_t m;
	double cm; /* the integral of 1 / (active threads) up to now */
	uint64_t now;
	int64_t active;
	double min_parallelism;
	struct wperf_cmetric *out;
};

static int is_active(const struct wperf_segment *s)
{
	return s->state == WPERF_SEG_RUNNING || s->state == WPERF_SEG_RUNNABLE;
}

/* Moves w to its next active segment at or after seg; 0 when it has none. */
static int next_active(struct walker *w)
{
	while (w->seg < w->end && !is_active(w->seg))
		w->start = w->seg++->end;
	/* Threads take turns: by its next turn, this thread's next segments would
	 * have left the cache. */
	if (w->end - w->seg > 4)
		__builtin_prefetch(w->seg + 4);
	return w->seg < w->end;
}

/* Plays the matches of the subtree at node; returns its winner. */
static uint32_t play(struct sweep *s, size_t node)
{
	uint32_t a, b;

	if (node >= s->m)
		return (uint32_t)(node - s->m);
	a = play(s, 2 * node);
	b = play(s, 2 * node + 1);
	if (s->key[b] < s->key[a]) {
		s->loser[node] = a;
		return b;
	}
	s->loser[node] = b;
	return a;
}

/* After walker w's key changed: its path to the root again; returns the winner. */
static uint32_t replay(struct sweep *s, uint32_t w)
{
	for (size_t node = (w + s->m) / 2; node > 0; node /= 2) {
		uint32_t l = s->loser[node];

		if (s->key[l] < s->key[w]) {
			s->loser[node] = w;
			w = l;
		}
	}
	return w;
}

/*
 * A running slice [a, b) ends where the thread blocks: the next segment, a wait,
 * says where. Critical when its average parallelism (length / CMetric) is at most
 * min_parallelism: a slice that ran alone has 1.
 */
static int note_critical(const struct wperf_timeline *tl, const struct walker *w, double slice,
			 double min_parallelism, struct wperf_cmetric *out)
{
	const struct wperf_segment *s = w->seg, *next = s + 1;
	struct wperf_callsite key = {.from = w->entity,
				     .to = w->entity,
				     .waker_kstack = WPERF_NO_STACK,
				     .waker_ustack = WPERF_NO_STACK,
				     .waiter_tgid = tl->entities[w->entity].tgid};

	if (slice <= 0 || (double)(s->end - w->start) / slice > min_parallelism || next == w->end ||
	    next->state != WPERF_SEG_WAITING)
		return 0;
	key.kstack = wperf_segment_stacks(tl, next)->kstack;
	key.ustack = wperf_segment_stacks(tl, next)->ustack;
	return wperf_callsites_add(&out->critical, &key, (uint64_t)slice);
}

/*
 * Walker i's next boundary, at key[i]: cm grows up to it (boundaries at one
 * time may come in any order: cm moves only when time does), then the slice
 * starts or ends there. A running slice's CMetric is cm at its end minus cm at
 * its start (GAPP's global_cm).
 */
static int take(struct sweep *s, uint32_t i)
{
	struct walker *x = &s->w[i];
	uint64_t ts = s->key[i];
	int inside = x->inside, done = 0, e = 0; /* in registers, not read back from x */

	if (ts > s->now) {
		if (s->active > 0)
			s->cm += (double)(ts - s->now) / (double)s->active;
		s->now = ts;
	}
	if (inside) {
		s->active--;
		if (x->seg->state == WPERF_SEG_RUNNING) {
			double slice = s->cm - x->cm_start;

			s->out->per_entity[x->entity] += (uint64_t)slice;
			e = note_critical(s->tl, x, slice, s->min_parallelism, s->out);
		}
		x->start = x->seg++->end;
		done = !next_active(x);
		inside = 0;
	}
	/* a start, or the next slice starting where this one ended (runnable, then
	 * running): taken now, which spares the merge a round */
	if (!done && !inside && x->start == ts) {
		s->active++;
		x->cm_start = s->cm;
		inside = 1;
	}
	x->inside = (uint8_t)inside;
	x->done = (uint8_t)done;
	s->key[i] = done ? UINT64_MAX : inside ? x->seg->end : x->start;
	return e;
}

/* One sweep over the starts and ends of every active slice, in time order. */
static int sweep(struct sweep *s, size_t nwalkers)
{
	uint32_t w = play(s, 1);
	int e = 0;

	while (s->key[w] != UINT64_MAX && !e) {
		e = take(s, w);
		w = replay(s, w);
	}
	/* Boundaries at UINT64_MAX (a window that ends there) tie with the walkers
	 * that are done; ties may go in any order. */
	for (uint32_t i = 0; i < nwalkers && !e; i++)
		while (!s->w[i].done && !e)
			e = take(s, i);
	return e;
}

/* A walker for every thread with an active segment, then idle ones up to m. */
static size_t start_walkers(struct sweep *s)
{
	const struct wperf_timeline *tl = s->tl;
	size_t n = 0;

	for (uint32_t e = 0; e < tl->nentities; e++) {
		const struct wperf_entity *en = &tl->entities[e];

		if (en->kind != WPERF_ENTITY_THREAD || !en->nsegments)
			continue;
		s->w[n] = (struct walker){.seg = en->segments,
					  .end = en->segments + en->nsegments,
					  .start = en->born,
					  .entity = e};
		if (next_active(&s->w[n])) {
			s->key[n] = s->w[n].start;
			n++;
		}
	}
	for (size_t i = n; i < s->m; i++) {
		s->w[i] = (struct walker){.done = 1};
		s->key[i] = UINT64_MAX;
	}
	return n;
}

int wperf_cmetric_compute(const struct wperf_timeline *tl, double min_parallelism,
			  struct wperf_cmetric *out, struct wperf_error *err)
{
	struct sweep s = {.tl = tl, .m = 1, .out = out};
	int e = 0;

	memset(out, 0, sizeof(*out));
	while (s.m < tl->nentities)
		s.m *= 2;
	s.w = malloc(s.m * sizeof(*s.w));
	s.key = malloc(s.m * sizeof(*s.key));
	s.loser = malloc(s.m * sizeof(*s.loser));
	out->per_entity = calloc(tl->nentities + 1, sizeof(*out->per_entity));
	if (min_parallelism <= 0)
		min_parallelism = tl->ncpu > 2 ? tl->ncpu / 2.0 : 1.0;
	s.min_parallelism = min_parallelism;
	if (!s.w || !s.key || !s.loser || !out->per_entity)
		e = -ENOMEM;
	else
		e = sweep(&s, start_walkers(&s));
	free(s.w);
	free(s.key);
	free(s.loser);
	if (e) {
		wperf_cmetric_release(out);
		return wperf_error_set(err, e, "computing the CMetric: out of memory");
	}
	wperf_callsites_finish(&out->critical);
	return 0;
}

void wperf_cmetric_release(struct wperf_cmetric *c)
{
	free(c->per_entity);
	wperf_callsites_release(&c->critical);
	memset(c, 0, sizeof(*c));
}
