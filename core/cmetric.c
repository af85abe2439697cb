/* SPDX-License-Identifier: MIT */
#include "cmetric.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "radix.h"

/* A slice of a thread, running or runnable, starting or ending at ts. */
struct step {
	uint64_t ts;
	uint32_t segment;
	int32_t delta; /* +1 at the start, -1 at the end */
};

static int is_active(const struct wperf_timeline *tl, const struct wperf_segment *s)
{
	return tl->entities[s->entity].kind == WPERF_ENTITY_THREAD &&
	       (s->state == WPERF_SEG_RUNNING || s->state == WPERF_SEG_RUNNABLE);
}

/*
 * A running slice [a, b) ends where the thread blocks: the next segment, a wait,
 * says where. Critical when its average parallelism (length / CMetric) is at most
 * min_parallelism: a slice that ran alone has 1.
 */
static int note_critical(const struct wperf_timeline *tl, size_t i, double slice,
			 double min_parallelism, struct wperf_cmetric *out)
{
	const struct wperf_segment *s = &tl->segments[i], *next = s + 1;
	struct wperf_callsite key = {.from = s->entity,
				     .to = s->entity,
				     .waker_kstack = WPERF_NO_STACK,
				     .waker_ustack = WPERF_NO_STACK,
				     .waiter_tgid = tl->entities[s->entity].tgid};

	if (slice <= 0 || (double)(s->end - s->start) / slice > min_parallelism ||
	    i + 1 >= tl->nsegments || next->entity != s->entity ||
	    next->state != WPERF_SEG_WAITING)
		return 0;
	key.kstack = next->kstack;
	key.ustack = next->ustack;
	return wperf_callsites_add(&out->critical, &key, (uint64_t)slice);
}

/*
 * One sweep over the starts and ends of every active slice, in time order:
 * cm, the integral of 1 / (active threads), grows between steps, and a running
 * slice's CMetric is cm at its end minus cm at its start (GAPP's global_cm).
 */
int wperf_cmetric_compute(const struct wperf_timeline *tl, double min_parallelism,
			  struct wperf_cmetric *out, struct wperf_error *err)
{
	size_t n = 0;
	struct step *steps = malloc((2 * tl->nsegments + 1) * sizeof(*steps));
	struct step *tmp = malloc((2 * tl->nsegments + 1) * sizeof(*tmp));
	double *cm_start = malloc((tl->nsegments + 1) * sizeof(*cm_start)), cm = 0;
	uint64_t now = 0;
	int64_t active = 0;
	int e = 0;

	memset(out, 0, sizeof(*out));
	out->per_entity = calloc(tl->nentities + 1, sizeof(*out->per_entity));
	if (min_parallelism <= 0)
		min_parallelism = tl->ncpu > 2 ? tl->ncpu / 2.0 : 1.0;
	if (!steps || !tmp || !cm_start || !out->per_entity) {
		e = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < tl->nsegments; i++) {
		if (!is_active(tl, &tl->segments[i]))
			continue;
		steps[n++] = (struct step){tl->segments[i].start, (uint32_t)i, +1};
		steps[n++] = (struct step){tl->segments[i].end, (uint32_t)i, -1};
	}
	e = wperf_radix_sort(steps, n, sizeof(*steps), offsetof(struct step, ts), tmp);
	for (size_t i = 0; i < n && !e; i++) {
		const struct wperf_segment *s = &tl->segments[steps[i].segment];
		double slice;

		if (steps[i].ts > now) {
			if (active > 0)
				cm += (double)(steps[i].ts - now) / (double)active;
			now = steps[i].ts;
		}
		active += steps[i].delta;
		if (steps[i].delta > 0) {
			cm_start[steps[i].segment] = cm;
			continue;
		}
		if (s->state != WPERF_SEG_RUNNING)
			continue;
		slice = cm - cm_start[steps[i].segment];
		out->per_entity[s->entity] += (uint64_t)slice;
		e = note_critical(tl, steps[i].segment, slice, min_parallelism, out);
	}
out:
	free(steps);
	free(tmp);
	free(cm_start);
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
