/* SPDX-License-Identifier: MIT */
#include "cmetric.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A change in the number of active threads: +1 or -1 at a time. */
struct step {
	uint64_t ts;
	int32_t delta;
};

static int by_time(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int is_active(const struct wperf_timeline *tl, const struct wperf_segment *s)
{
	return tl->entities[s->entity].kind == WPERF_ENTITY_THREAD &&
	       (s->state == WPERF_SEG_RUNNING || s->state == WPERF_SEG_RUNNABLE);
}

/*
 * cm(t) = the integral from the window's start to t of 1 / (active threads):
 * a slice [a, b) has CMetric cm(b) - cm(a), as GAPP's global_cm does it. cm is
 * kept at each time the active count changes (times[], active[] after it).
 */
static double cm_at(const uint64_t *times, const double *cm, size_t n, uint64_t t,
		    const int32_t *active)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the last step at or before t */
		size_t mid = lo + (hi - lo) / 2;

		if (times[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	lo--;
	return cm[lo] + (active[lo] > 0 ? (double)(t - times[lo]) / active[lo] : 0);
}

int wperf_cmetric_compute(const struct wperf_timeline *tl, double min_parallelism,
			  struct wperf_cmetric *out, struct wperf_error *err)
{
	size_t nsteps = 0, n = 0;
	struct step *steps = malloc((2 * tl->nsegments + 1) * sizeof(*steps));
	uint64_t *times = malloc((2 * tl->nsegments + 1) * sizeof(*times));
	double *cm = malloc((2 * tl->nsegments + 1) * sizeof(*cm));
	int32_t *active = malloc((2 * tl->nsegments + 1) * sizeof(*active));
	int e = 0;

	memset(out, 0, sizeof(*out));
	out->per_entity = calloc(tl->nentities + 1, sizeof(*out->per_entity));
	if (min_parallelism <= 0)
		min_parallelism = tl->ncpu > 2 ? tl->ncpu / 2.0 : 1.0;
	if (!steps || !times || !cm || !active || !out->per_entity) {
		e = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < tl->nsegments; i++) {
		if (!is_active(tl, &tl->segments[i]))
			continue;
		steps[nsteps++] = (struct step){tl->segments[i].start, +1};
		steps[nsteps++] = (struct step){tl->segments[i].end, -1};
	}
	qsort(steps, nsteps, sizeof(*steps), by_time);
	/* Collapse the steps into times with the active count after each. */
	for (int64_t i = 0, count = 0; i < (int64_t)nsteps; i++) {
		count += steps[i].delta;
		if (n && times[n - 1] == steps[i].ts) {
			active[n - 1] = count;
			continue;
		}
		times[n] = steps[i].ts;
		cm[n] = n ? cm[n - 1] + (active[n - 1] > 0
					     ? (double)(times[n] - times[n - 1]) / active[n - 1]
					     : 0)
			  : 0;
		active[n] = count;
		n++;
	}
	for (size_t i = 0; i < tl->nsegments && !e; i++) {
		const struct wperf_segment *s = &tl->segments[i];
		double slice;

		if (s->state != WPERF_SEG_RUNNING || !is_active(tl, s))
			continue;
		slice = cm_at(times, cm, n, s->end, active) - cm_at(times, cm, n, s->start, active);
		out->per_entity[s->entity] += (uint64_t)slice;
		/* Average parallelism = length / CMetric; low means critical. The next
		 * segment, a wait, tells where the slice ended. */
		if (slice > 0 && (double)(s->end - s->start) / slice < min_parallelism &&
		    i + 1 < tl->nsegments && tl->segments[i + 1].entity == s->entity &&
		    tl->segments[i + 1].state == WPERF_SEG_WAITING) {
			struct wperf_callsite key = {.from = s->entity,
						     .to = s->entity,
						     .kstack = tl->segments[i + 1].kstack,
						     .ustack = tl->segments[i + 1].ustack,
						     .waker_kstack = WPERF_NO_STACK,
						     .waker_ustack = WPERF_NO_STACK,
						     .waiter_tgid = tl->entities[s->entity].tgid};

			e = wperf_callsites_add(&out->critical, &key, (uint64_t)slice);
		}
	}
out:
	free(steps);
	free(times);
	free(cm);
	free(active);
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
