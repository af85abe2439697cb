/* SPDX-License-Identifier: MIT */
#include "core/analysis/cmetric.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/cmp.h"

/* What a segment counts as: GAPP's active threads are on a CPU or runnable. */
enum activity { INACTIVE = 0, RUNNABLE, ON_CPU };

/*
 * A thread in the sweep: it walks the thread's own segments, which are sorted
 * and disjoint, so that the sweep over all threads is a merge of sorted lists
 * rather than a sort of every boundary (and reads each segment once, in order).
 * A run of segments with the same activity is one slice (a spin between two
 * running segments is one timeslice).
 */
struct walker {
	const struct wperf_segment *seg, *end; /* its next (or current) active segment; its end */
	uint64_t start;	 /* inside a run: where it started; else where seg starts */
	uint32_t entity; /* whose segments */
	uint8_t inside;	 /* 1: a run has started (seg's end is next), 0: seg's start is next */
	uint8_t done;	 /* no active segment left */
	double cm_start; /* cm when the run started */
	uint64_t active_start; /* active_ns when the run started */
	/* A thread blocks in a few places again and again: the stacks of the wait
	 * after its last critical slice (UINT32_MAX: none yet), and that site's
	 * index in out->critical. Comparing costs less than a look-up. */
	uint32_t site_stacks, site;
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
	double cm;	    /* the integral of 1 / (active threads) up to now */
	uint64_t active_ns; /* the integral of the active threads up to now */
	uint64_t now;
	int64_t active;
	const uint8_t *app;
	struct wperf_cmetric *out;
};

static enum activity activity(const struct wperf_segment *s)
{
	if (s->state == WPERF_SEG_RUNNING || (s->state == WPERF_SEG_WAITING && s->spin))
		return ON_CPU;
	return s->state == WPERF_SEG_RUNNABLE ? RUNNABLE : INACTIVE;
}

/* Moves w to its next active segment at or after seg; 0 when it has none. */
static int next_active(struct walker *w)
{
	while (w->seg < w->end && activity(w->seg) == INACTIVE)
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
 * A timeslice from w->start to the end of w->seg, with CMetric slice, ended:
 * critical when threads_av, its active threads averaged over its time, is at
 * most N_min. Its site is where the thread blocked: the wait after it.
 */
static int note_critical(const struct sweep *s, struct walker *w, double slice)
{
	const struct wperf_segment *next = w->seg + 1;
	uint64_t len = w->seg->end - w->start;

	if (slice <= 0 || !len ||
	    (double)(s->active_ns - w->active_start) > s->out->min_parallelism * (double)len ||
	    next == w->end || next->state != WPERF_SEG_WAITING)
		return 0;
	if (w->site_stacks != next->stacks) {
		const struct wperf_wait_stacks *st = wperf_segment_stacks(s->tl, next);
		struct wperf_callsite key = {.from = w->entity,
					     .to = w->entity,
					     .kstack = st->kstack,
					     .ustack = st->ustack,
					     .waker_kstack = WPERF_NO_STACK,
					     .waker_ustack = WPERF_NO_STACK,
					     .waiter_tgid = s->tl->entities[w->entity].tgid};
		int64_t i = wperf_callsites_index(&s->out->critical, &key);

		if (i < 0)
			return (int)i;
		w->site_stacks = next->stacks;
		w->site = (uint32_t)i;
	}
	s->out->critical.sites[w->site].weight += (uint64_t)slice;
	return 0;
}

/*
 * Walker i's next boundary, at key[i]: cm and active_ns grow up to it
 * (boundaries at one time may come in any order: they move only when time
 * does), then a run starts, goes on into a segment of the same activity, or
 * ends there. A timeslice's CMetric is cm at its end minus cm at its start
 * (GAPP's global_cm).
 */
static int take(struct sweep *s, uint32_t i)
{
	struct walker *x = &s->w[i];
	uint64_t ts = s->key[i];
	int inside = x->inside, done = 0, e = 0; /* in registers, not read back from x */

	if (ts > s->now) {
		if (s->active > 0) {
			s->cm += (double)(ts - s->now) / (double)s->active;
			s->active_ns += (ts - s->now) * (uint64_t)s->active;
		}
		s->now = ts;
	}
	if (inside && x->seg + 1 < x->end && activity(x->seg + 1) == activity(x->seg)) {
		s->key[i] = (++x->seg)->end;
		return 0;
	}
	if (inside) {
		s->active--;
		if (activity(x->seg) == ON_CPU) {
			double slice = s->cm - x->cm_start;

			s->out->per_entity[x->entity] += (uint64_t)slice;
			e = note_critical(s, x, slice);
		}
		x->start = x->seg++->end;
		done = !next_active(x);
		inside = 0;
	}
	/* a start, or the next run starting where this one ended (runnable, then
	 * on a CPU): taken now, which spares the merge a round */
	if (!done && !inside && x->start == ts) {
		s->active++;
		x->cm_start = s->cm;
		x->active_start = s->active_ns;
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

/* Is entity e one of the application's threads? */
static int in_app(const struct sweep *s, uint32_t e)
{
	return s->tl->entities[e].kind == WPERF_ENTITY_THREAD && (!s->app || s->app[e]);
}

/* A walker for every application thread with an active segment, then idle
 * ones up to m. */
static size_t start_walkers(struct sweep *s)
{
	const struct wperf_timeline *tl = s->tl;
	size_t n = 0;

	for (uint32_t e = 0; e < tl->nentities; e++) {
		const struct wperf_entity *en = &tl->entities[e];

		if (!in_app(s, e) || !en->nsegments)
			continue;
		s->w[n] = (struct walker){.seg = en->segments,
					  .end = en->segments + en->nsegments,
					  .start = en->born,
					  .entity = e,
					  .site_stacks = UINT32_MAX};
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

/* The most application threads alive at once (GAPP counts them as they are
 * created and exit), into out->threads; 0 or -ENOMEM. */
static int count_threads(const struct sweep *s)
{
	const struct wperf_timeline *tl = s->tl;
	uint64_t *born = malloc((tl->nentities + 1) * sizeof(*born));
	uint64_t *died = malloc((tl->nentities + 1) * sizeof(*died));
	size_t n = 0, alive = 0, most = 0;

	if (!born || !died) {
		free(born);
		free(died);
		return -ENOMEM;
	}
	for (uint32_t e = 0; e < tl->nentities; e++)
		if (in_app(s, e) && tl->entities[e].died > tl->entities[e].born) {
			born[n] = tl->entities[e].born;
			died[n++] = tl->entities[e].died;
		}
	qsort(born, n, sizeof(*born), wperf_cmp_u64_items);
	qsort(died, n, sizeof(*died), wperf_cmp_u64_items);
	/* A thread that dies where another is born was not alive with it. A death
	 * at or before born[i] is of a thread born before it: alive never falls
	 * under 0. */
	for (size_t i = 0, j = 0; i < n;) {
		if (died[j] <= born[i]) {
			alive--;
			j++;
		} else {
			most = ++alive > most ? alive : most;
			i++;
		}
	}
	free(born);
	free(died);
	s->out->threads = (uint32_t)most;
	return 0;
}

int wperf_cmetric_compute(const struct wperf_timeline *tl, const uint8_t *app,
			  double min_parallelism, struct wperf_cmetric *out,
			  struct wperf_error *err)
{
	struct sweep s = {.tl = tl, .m = 1, .app = app, .out = out};
	int e = 0;

	memset(out, 0, sizeof(*out));
	while (s.m < tl->nentities)
		s.m *= 2;
	/* One block, widest first: the walkers, the keys, the losers. */
	s.w = malloc(s.m * (sizeof(*s.w) + sizeof(*s.key) + sizeof(*s.loser)));
	out->per_entity = calloc(tl->nentities + 1, sizeof(*out->per_entity));
	if (!s.w || !out->per_entity || count_threads(&s) < 0) {
		e = -ENOMEM;
	} else {
		s.key = (uint64_t *)(s.w + s.m);
		s.loser = (uint32_t *)(s.key + s.m);
	}
	out->min_parallelism = min_parallelism > 0 ? min_parallelism
			       : out->threads > 2  ? out->threads / 2.0
						   : 1.0;
	if (!e)
		e = sweep(&s, start_walkers(&s));
	free(s.w); /* and key, loser */
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
