/* SPDX-License-Identifier: MIT */
/*
 * Assembling the timeline: once every event is read, each thread's
 * segments, the annotations applied, become its entity's, and the devices get
 * theirs.
 *
 * False wakeups (wPerf 4.1): a thread that declares one was woken for nothing.
 * The wait before it (w1), what the thread did since, and its next wait (w2)
 * become one wait: w1's start and stacks (where it first blocked), w2's end and
 * waker (who really let it go on).
 *
 * Spins: the running time between SPIN_BEFORE and SPIN_AFTER of a lock becomes
 * a wait (spin = 1) on the thread that released the lock last before the spin
 * ended. Runnable or blocked time inside the spin keeps its own state.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/timeline_devices.h"
#include "core/analysis/timeline_internal.h"
#include "core/analysis/timeline_irq.h"
#include "core/analysis/timeline_threads.h"
#include "core/util/cmp.h"

/*
 * Groups n records of size bytes by the uint32_t thread index at offset off
 * (counting sort: stable, so each group keeps time order) into out; the group
 * of thread i is [first[i], first[i + 1]). first has nthreads + 1 entries.
 */
static int group(const void *in, size_t n, size_t size, size_t off, size_t nthreads,
		 struct wperf_buf *out, size_t **firstp)
{
	size_t *first = calloc(nthreads + 2, sizeof(*first));
	const uint8_t *p = in;

	*firstp = first;
	if (!first || wperf_buf_reserve(out, n * size + 1) < 0) /* + 1: never NULL */
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t e;

		memcpy(&e, p + i * size + off, sizeof(e));
		first[e + 2]++;
	}
	for (size_t i = 2; i < nthreads + 2; i++)
		first[i] += first[i - 1];
	/* first[e + 1] is now where group e starts: fill it, moving it to its end */
	for (size_t i = 0; i < n; i++) {
		uint32_t e;

		memcpy(&e, p + i * size + off, sizeof(e));
		memcpy(out->data + first[e + 1]++ * size, p + i * size, size);
	}
	out->len = n * size;
	return 0;
}

static int by_lock(const void *pa, const void *pb)
{
	const struct tl_release *a = pa, *b = pb;
	const uint64_t ka[] = {a->lock, a->ts, a->seq}, kb[] = {b->lock, b->ts, b->seq};

	return wperf_cmp_keys(ka, kb, 3);
}

/* Sorts the releases by lock and time, and links each to the latest earlier
 * release of the same lock by another thread. */
static void prepare_releases(struct tl_builder *b)
{
	struct tl_release *r = (struct tl_release *)(void *)b->releases.data;
	size_t n = TL_COUNT(b->releases, struct tl_release);

	if (n == 0)
		return; /* qsort wants a real pointer, even for nothing */
	qsort(r, n, sizeof(*r), by_lock);
	for (size_t i = 0; i < n; i++) {
		r[i].prev_other = TL_NONE;
		if (i == 0 || r[i - 1].lock != r[i].lock || i - 1 >= TL_NONE)
			continue;
		r[i].prev_other =
		    r[i - 1].thread != r[i].thread ? (uint32_t)(i - 1) : r[i - 1].prev_other;
	}
}

/* The thread that last released lock at or before t, other than thread. */
static uint32_t releaser(const struct tl_builder *b, uint64_t lock, uint64_t t, uint32_t thread)
{
	const struct tl_release *r = (const struct tl_release *)(const void *)b->releases.data;
	size_t lo = 0, hi = TL_COUNT(b->releases, struct tl_release), j;

	/* the first release after (lock, t) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].lock < lock || (r[mid].lock == lock && r[mid].ts <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || r[lo - 1].lock != lock)
		return WPERF_NO_ENTITY;
	j = lo - 1;
	if (r[j].thread == thread) {
		if (r[j].prev_other == TL_NONE)
			return WPERF_NO_ENTITY;
		j = r[j].prev_other;
	}
	return r[j].thread;
}

/* Merges each false wakeup's wait pair in the segments s[0, n) of a thread
 * born at born, in place; returns the segments left (b->oom set when out of
 * memory). The running and runnable time merged into the wait go to acct. */
static size_t false_wakeups(struct tl_builder *b, struct wperf_segment *s, size_t n, uint64_t born,
			    const struct tl_mark *m, size_t nm, uint64_t *removed,
			    struct wperf_thread_acct *acct)
{
	size_t o = 0, mi = 0, last_wait = SIZE_MAX, pending = SIZE_MAX;
	/* where s[i] starts: where s[i - 1] ended, read before s[i - 1] was moved */
	uint64_t start = born, next;

	for (size_t i = 0; i < n; i++, start = next) {
		next = s[i].end;
		/* marks before this segment fell in the previous one */
		for (; mi < nm && m[mi].ts < start; mi++)
			if (o > 0 && s[o - 1].state != WPERF_SEG_WAITING && last_wait != SIZE_MAX)
				pending = last_wait;
		if (s[i].state == WPERF_SEG_WAITING && pending != SIZE_MAX) {
			struct wperf_segment *w1 = &s[pending];
			/* where w1 blocked, where w2's waker woke it */
			struct wperf_wait_stacks k =
			    TL_AT(b->stacks, struct wperf_wait_stacks, w1->stacks);
			const struct wperf_wait_stacks *w2 =
			    &TL_AT(b->stacks, struct wperf_wait_stacks, s[i].stacks);

			k.waker_kstack = w2->waker_kstack;
			k.waker_ustack = w2->waker_ustack;
			for (size_t j = pending + 1; j < o; j++) {
				uint64_t d = s[j].end - s[j - 1].end;

				acct->false_run_ns += s[j].state == WPERF_SEG_RUNNING ? d : 0;
				acct->false_runnable_ns += s[j].state == WPERF_SEG_RUNNABLE ? d : 0;
			}
			w1->end = s[i].end;
			w1->waker = s[i].waker;
			w1->stacks = tl_stacks_id(b, &k);
			o = pending + 1;
			pending = SIZE_MAX;
			(*removed)++;
			continue;
		}
		s[o++] = s[i];
		if (s[i].state == WPERF_SEG_WAITING)
			last_wait = o - 1;
	}
	return o;
}

/* Appends [start, end) of s to out (where the segment before it ended at start). */
static int push(struct wperf_buf *out, const struct wperf_segment *s, uint8_t state, uint64_t start,
		uint64_t end, uint32_t waker)
{
	struct wperf_segment *g;

	if (start >= end)
		return 0;
	if (!(g = wperf_buf_push(out, sizeof(*g))))
		return -ENOMEM;
	*g = *s;
	g->end = end;
	g->state = state;
	g->waker = waker;
	if (state == WPERF_SEG_WAITING && s->state != WPERF_SEG_WAITING) {
		g->spin = 1;
		g->stacks = WPERF_NO_STACKS;
	}
	return 0;
}

static uint32_t final_waker(const struct tl_builder *b, uint32_t w)
{
	/* threads keep their index; only devices, sources need a look-up */
	return (w & PV_TAG) && w < WPERF_WAKER_ISSUERS ? tl_final_waker(b, w) : w;
}

/* Appends s[0, n), the segments of a thread born at born, to out with the
 * spins' running time made waits. */
static int spin_split(const struct tl_builder *b, const struct wperf_segment *s, size_t n,
		      uint64_t born, const struct tl_spin *sp, size_t nsp, struct wperf_buf *out,
		      uint64_t *spins)
{
	size_t k = 0, counted = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		uint64_t pos = i ? s[i - 1].end : born, end = s[i].end;

		if (s[i].state != WPERF_SEG_RUNNING) {
			if (push(out, &s[i], s[i].state, pos, end, s[i].waker))
				return -ENOMEM;
			continue;
		}
		while (k < nsp && sp[k].t2 <= pos)
			k++;
		for (size_t j = k; j < nsp && sp[j].t1 < end; j++) {
			uint64_t lo = sp[j].t1 > pos ? sp[j].t1 : pos;
			uint64_t hi = sp[j].t2 < end ? sp[j].t2 : end;

			if (lo >= hi)
				continue; /* an empty spin, or overlapping an earlier one */
			if (push(out, &s[i], WPERF_SEG_RUNNING, pos, lo, WPERF_NO_ENTITY) ||
			    push(out, &s[i], WPERF_SEG_WAITING, lo, hi,
				 releaser(b, sp[j].lock, sp[j].t2, sp[j].thread)))
				return -ENOMEM;
			pos = hi;
			if (counted != j) {
				counted = j;
				(*spins)++;
			}
		}
		if (push(out, &s[i], WPERF_SEG_RUNNING, pos, end, WPERF_NO_ENTITY))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Thread i's final segments, the annotations applied, into out: the array they
 * were recorded in, or for a thread with spins, the one they are split into
 * (scratch, which gets the old array in exchange).
 */
static int thread_segments(struct tl_builder *b, uint32_t i, const struct tl_mark *m, size_t nm,
			   const struct tl_spin *sp, size_t nsp, struct wperf_buf *scratch,
			   struct wperf_timeline *tl, struct wperf_buf *out)
{
	struct tl_thread *th = &TL_AT(b->threads, struct tl_thread, i);
	struct wperf_segment *s = (struct wperf_segment *)(void *)th->segs.data;
	size_t n = TL_COUNT(th->segs, struct wperf_segment);
	struct wperf_buf old;

	if (nm) {
		n = false_wakeups(b, s, n, th->born, m, nm, &tl->false_wakeups_removed,
				  &tl->entities[i].acct); /* the entity exists already */
		th->segs.len = n * sizeof(*s);
		if (b->oom)
			return -ENOMEM;
	}
	if (nsp) {
		wperf_buf_clear(scratch);
		if (spin_split(b, s, n, th->born, sp, nsp, scratch, &tl->spins_converted) < 0)
			return -ENOMEM;
		old = th->segs;
		th->segs = *scratch;
		*scratch = old;
	}
	*out = th->segs;
	th->segs = (struct wperf_buf){0};
	return 0;
}

static int thread_entities(const struct tl_builder *b, struct wperf_buf *entities)
{
	size_t n = TL_COUNT(b->threads, struct tl_thread);

	for (size_t i = 0; i < n; i++) {
		const struct tl_thread *th = &TL_AT(b->threads, struct tl_thread, i);
		struct wperf_entity *e = wperf_buf_push(entities, sizeof(*e));

		if (!e)
			return -ENOMEM;
		e->kind = WPERF_ENTITY_THREAD;
		e->tid = th->tid;
		e->tgid = th->tgid;
		e->creator = th->creator;
		memcpy(e->name, th->name, sizeof(e->name));
		memcpy(e->process, th->process, sizeof(e->process));
		memcpy(e->exe, th->exe, sizeof(e->exe));
		e->ppid = th->ppid;
		e->born = th->born;
		e->died = th->died < th->born ? th->born : th->died;
		e->irq_ns = th->irq_ns;
		e->acct = th->acct;
	}
	return 0;
}

/* Entity e's segments get their final wakers (a device or an interrupt was a
 * provisional one), and it gets its time by state, with interrupt time taken
 * out of running time, and its waits by what ended them (wperf_entity). */
static void finish_entity(const struct tl_builder *b, struct wperf_timeline *tl, uint32_t e)
{
	struct wperf_entity *en = &tl->entities[e];
	struct wperf_segment *s = en->segments;
	uint64_t by[3] = {0, 0, 0}, start = en->born;

	for (size_t k = 0; k < en->nsegments; start = s[k++].end) {
		uint64_t len = s[k].end - start;

		by[s[k].state] += len;
		if (s[k].state != WPERF_SEG_WAITING)
			continue;
		s[k].waker = final_waker(b, s[k].waker);
		if (s[k].waker != WPERF_NO_ENTITY) {
			en->timer_wait_ns += s[k].waker == tl->timer ? len : 0;
			continue;
		}
		en->no_waker_ns += len;
		/* the last wait, closed by the window's end: nobody woke it yet */
		if (k + 1 == en->nsegments && s[k].end == tl->end)
			en->unfinished_ns = len;
	}
	en->irq_ns = en->irq_ns < by[WPERF_SEG_RUNNING] ? en->irq_ns : by[WPERF_SEG_RUNNING];
	en->running_ns = by[WPERF_SEG_RUNNING] - en->irq_ns;
	en->runnable_ns = by[WPERF_SEG_RUNNABLE];
	en->waiting_ns = by[WPERF_SEG_WAITING];
}

int tl_assemble(struct tl_builder *b, struct wperf_timeline *tl)
{
	size_t nthreads = TL_COUNT(b->threads, struct tl_thread), *mfirst = NULL, *pfirst = NULL;
	struct wperf_buf entities = {0}, marks = {0}, spins = {0}, shares = {0}, scratch = {0};
	size_t total = 0; /* segments numbered so far */
	int64_t nent;
	int ret = thread_entities(b, &entities);

	if (ret || (nent = tl_devices_entities(b, (uint32_t)nthreads, &entities)) < 0 ||
	    (nent = tl_sources_entities(b, (uint32_t)nent, &entities)) < 0 ||
	    group(b->marks.data, TL_COUNT(b->marks, struct tl_mark), sizeof(struct tl_mark),
		  offsetof(struct tl_mark, thread), nthreads, &marks, &mfirst) ||
	    group(b->spins.data, TL_COUNT(b->spins, struct tl_spin), sizeof(struct tl_spin),
		  offsetof(struct tl_spin, thread), nthreads, &spins, &pfirst)) {
		ret = -ENOMEM;
		goto out;
	}
	prepare_releases(b);
	tl->timer = tl_timer_entity(b);
	tl->entities = (struct wperf_entity *)(void *)entities.data;
	tl->nentities = (size_t)nent;
	entities.data = NULL;
	for (size_t i = 0; i < tl->nentities && !ret; i++) {
		struct wperf_entity *en = &tl->entities[i];
		struct wperf_buf segs = {0};

		if (i < nthreads)
			ret = thread_segments(
			    b, (uint32_t)i,
			    (const struct tl_mark *)(const void *)marks.data + mfirst[i],
			    mfirst[i + 1] - mfirst[i],
			    (const struct tl_spin *)(const void *)spins.data + pfirst[i],
			    pfirst[i + 1] - pfirst[i], &scratch, tl, &segs);
		else if (en->kind == WPERF_ENTITY_DISK || en->kind == WPERF_ENTITY_NIC)
			ret = tl_device_segments(b, (uint32_t)(i - nthreads), &segs);
		en->segments = (struct wperf_segment *)(void *)segs.data; /* the entity's now */
		en->first_segment = (uint32_t)total;
		total += TL_COUNT(segs, struct wperf_segment);
		if (!ret && total >= UINT32_MAX)
			ret = wperf_error_set(b->err, -E2BIG, "too many segments for one timeline");
		en->nsegments = ret ? 0 : (uint32_t)TL_COUNT(segs, struct wperf_segment);
		finish_entity(b, tl, (uint32_t)i);
	}
	if (ret || (ret = tl_device_shares(b, &shares)) < 0)
		goto out;
	tl->nsegments = total;
	tl->stacks = (struct wperf_wait_stacks *)(void *)b->stacks.data;
	tl->nstacks = TL_COUNT(b->stacks, struct wperf_wait_stacks);
	b->stacks = (struct wperf_buf){0};
	tl->shares = (struct wperf_io_share *)(void *)shares.data;
	tl->nshares = TL_COUNT(shares, struct wperf_io_share);
	shares.data = NULL;
	tl_capacity_note(b, tl->capacity_note, sizeof(tl->capacity_note));
out:
	free(mfirst);
	free(pfirst);
	wperf_buf_release(&entities);
	wperf_buf_release(&marks);
	wperf_buf_release(&spins);
	wperf_buf_release(&shares);
	wperf_buf_release(&scratch);
	return ret;
}
