/* SPDX-License-Identifier: MIT */
/*
 * The timeline builder's thread-state machine (timeline.h): which thread holds
 * a tid, the segments a thread appends as its state changes, and the breaks in
 * a CPU's switch chain, mended as the evidence allows. The events that drive
 * it are dispatched in timeline.c.
 */
#include <stdio.h>

#include "core/analysis/timeline_cpu.h"
#include "core/analysis/timeline_internal.h"
#include "core/analysis/timeline_threads.h"

int tl_excluded(const struct tl_builder *b, uint32_t tgid)
{
	for (size_t i = 0; i < b->opts.nexclude; i++)
		if (tgid == b->opts.exclude_tgids[i])
			return 1;
	return 0;
}

uint32_t tl_new_thread(struct tl_builder *b, uint32_t tid, uint32_t tgid)
{
	size_t n = TL_COUNT(b->threads, struct tl_thread);
	struct tl_thread *th;

	if (n >= PV_MAX || !(th = wperf_buf_push(&b->threads, sizeof(*th)))) {
		b->oom = 1;
		return TL_NONE;
	}
	th->tid = tid;
	th->tgid = tgid;
	th->state = TL_UNKNOWN;
	th->woken_on = TL_NONE;
	th->kstack = th->ustack = WPERF_NO_STACK;
	th->last_stacks = (struct wperf_wait_stacks){WPERF_NO_STACK, WPERF_NO_STACK, WPERF_NO_STACK,
						     WPERF_NO_STACK};
	th->last_stacks_id = WPERF_NO_STACKS;
	th->born = th->since = b->start;
	th->died = b->end;
	return (uint32_t)n;
}

/* The slot holding the current thread of tid (creating the slot), or NULL. */
uint32_t *tl_tid_slot(struct tl_builder *b, uint32_t tid)
{
	int64_t k = wperf_idmap_find(&b->tids, tid); /* cheaper than get for known tids */
	uint32_t *slot;

	if (k < 0) { /* a new tid: the map and tid_thread grow together */
		k = wperf_idmap_get(&b->tids, tid, NULL);
		if (k < 0 || !(slot = wperf_buf_push(&b->tid_thread, sizeof(*slot)))) {
			b->oom = 1;
			return NULL;
		}
		*slot = TL_NONE;
	}
	return &TL_AT(b->tid_thread, uint32_t, k);
}

/* Makes thread i (or TL_NONE) the current thread of tid, whose slot it is. */
void tl_set_thread(struct tl_builder *b, uint32_t *slot, uint32_t tid, uint32_t i)
{
	*slot = i;
	b->recent[tid & (TL_RECENT - 1)] = (struct tl_recent){i == TL_NONE ? 0 : tid, i};
}

/* The thread now holding tid, made when new; TL_NONE for the idle task (tid 0),
 * an excluded process, or out of memory. */
uint32_t tl_thread_of(struct tl_builder *b, uint32_t tid, uint32_t tgid)
{
	const struct tl_recent *r = &b->recent[tid & (TL_RECENT - 1)];
	uint32_t *slot;

	if (tid == 0 || tl_excluded(b, tgid))
		return TL_NONE;
	if (r->tid == tid)
		return r->thread;
	if (!(slot = tl_tid_slot(b, tid)))
		return TL_NONE;
	/* tid_slot's pointer survives new_thread: they grow different buffers */
	tl_set_thread(b, slot, tid, *slot != TL_NONE ? *slot : tl_new_thread(b, tid, tgid));
	return *slot;
}

/* Appends a segment of thread i, clipped to the window; empty ones vanish. */
void tl_emit(struct tl_builder *b, uint32_t i, uint8_t state, uint64_t start, uint64_t end,
	     uint32_t waker, int32_t wks, int32_t wus)
{
	struct tl_thread *th = tl_thr(b, i);
	struct wperf_segment *s;
	int waiting = state == WPERF_SEG_WAITING;
	uint32_t stacks;

	start = tl_clamp(b, start);
	end = tl_clamp(b, end);
	if (start >= end)
		return;
	stacks = waiting ? tl_wait_stacks(b, th, wks, wus) : WPERF_NO_STACKS;
	if (th->segs.cap - th->segs.len < sizeof(*s) &&
	    wperf_buf_reserve(&th->segs, sizeof(*s)) < 0) {
		b->oom = 1;
		return;
	}
	s = (struct wperf_segment *)(void *)(th->segs.data + th->segs.len);
	th->segs.len += sizeof(*s);
	/* The thread's next segment comes some events later, by when the cache line
	 * it goes in can be fetched: without this, writing it waits for the line. */
	__builtin_prefetch((const char *)(s + 1) + 64, 1);
	*s = (struct wperf_segment){.end = end, /* it starts where the one before ended */
				    .waker = waiting ? waker : WPERF_NO_ENTITY,
				    .state = state,
				    .stacks = stacks};
}

static uint8_t seg_state(uint8_t state)
{
	return state == TL_RUNNING    ? WPERF_SEG_RUNNING
	       : state == TL_RUNNABLE ? WPERF_SEG_RUNNABLE
				      : WPERF_SEG_WAITING;
}

/* Ends thread i's open segment at t (a wait with no known waker). */
void tl_close_open(struct tl_builder *b, uint32_t i, uint64_t t)
{
	struct tl_thread *th = tl_thr(b, i);

	if (th->state == TL_UNKNOWN || th->state == TL_DEAD)
		return;
	t = tl_at(th, t);
	tl_emit(b, i, seg_state(th->state), th->since, t, WPERF_NO_ENTITY, WPERF_NO_STACK,
		WPERF_NO_STACK);
	th->since = t;
}

/* Thread i is on the CPU of ev at its time: if its state was unknown, it has
 * been running since its birth (a switch-in would have told otherwise). */
void tl_seen_running(struct tl_builder *b, uint32_t i, const struct wperf_event *ev)
{
	struct tl_thread *th;

	if (i == TL_NONE)
		return;
	th = tl_thr(b, i);
	if (th->state == TL_UNKNOWN) {
		th->state = TL_RUNNING;
		th->since = th->born;
		th->cpu = ev->hdr.cpu;
	}
}

/* Thread i, running, left its CPU at t, unrecorded (timeline.h), for a wait
 * whose waker is unknown. */
static void left_unseen(struct tl_builder *b, uint32_t i, uint64_t t)
{
	struct tl_thread *th = tl_thr(b, i);

	tl_close_open(b, i, t);
	th->state = TL_WAITING;
	th->kstack = th->ustack = WPERF_NO_STACK;
}

/* When the thread that c's chain last put on it was last seen there: it left
 * at that moment at the earliest. */
static uint64_t last_seen(const struct tl_cpu *c)
{
	return c->cur_seen > c->cur_since ? c->cur_seen : c->cur_since;
}

/* Thread i, running on a CPU as far as the model knows, is seen on another:
 * it left the first unrecorded, once last seen there. */
void tl_moved_unseen(struct tl_builder *b, uint32_t i)
{
	const struct tl_thread *th = tl_thr(b, i);
	const struct tl_cpu *d = tl_cpu(b, th->cpu); /* a CPU seen before: no new one */

	left_unseen(b, i, d && d->have_cur && d->cur_tid == th->tid ? last_seen(d) : th->since);
}

/*
 * A break in cpu c's switch chain (timeline.h): tid is on it at ev (it
 * switches out, or it made the event), but the chain has another thread
 * there; the switch between them was not recorded. It is taken to have come
 * as soon as the evidence allows: when the other was last seen there. tid ran
 * since then.
 */
static void mend_break(struct tl_builder *b, uint32_t cpu, uint32_t tid, uint32_t tgid,
		       const struct wperf_event *ev)
{
	struct tl_cpu *c = tl_cpu(b, cpu);
	uint64_t t = last_seen(c) < ev->hdr.ts ? last_seen(c) : ev->hdr.ts;
	uint32_t gone = tl_thread_of(b, c->cur_tid, c->cur_tgid), now = tl_thread_of(b, tid, tgid);
	struct tl_thread *th;

	if (gone != TL_NONE && (th = tl_thr(b, gone))->state == TL_RUNNING && th->cpu == cpu) {
		left_unseen(b, gone, t);
		th->acct.guessed_ns += tl_clamp(b, ev->hdr.ts) - tl_clamp(b, t);
	}
	if (now != TL_NONE && (th = tl_thr(b, now))->state != TL_DEAD) {
		th->acct.guessed_ns += tl_clamp(b, ev->hdr.ts) - tl_clamp(b, t);
		if (th->state == TL_RUNNING && th->cpu != cpu)
			tl_moved_unseen(b, now);
		if (th->state == TL_UNKNOWN)
			tl_emit(b, now, WPERF_SEG_RUNNABLE, th->born, t, 0, 0, 0);
		else if (th->state != TL_RUNNING)
			tl_close_open(b, now, t);
		if (th->state != TL_RUNNING)
			th->since = tl_at(th, tl_clamp(b, t));
		th->state = TL_RUNNING;
		th->cpu = cpu;
		th->woken_on = TL_NONE;
	}
	tl_tally_break(b, tl_cpu(b, cpu), tid, tgid, t, ev->hdr.ts);
	/* The CPU's events from t to now were lost, a disk request's start or
	 * completion maybe among them; a recording of some processes has only
	 * their switches, and its breaks say nothing of the others' events. */
	if (b->whole_machine) {
		if (!b->lost_from || t < b->lost_from)
			b->lost_from = t;
		if (ev->hdr.ts > b->lost_until)
			b->lost_until = ev->hdr.ts;
	}
}

/* tid (of tgid) is current on ev's CPU at its time: it made the event. */
void tl_on_cpu_now(struct tl_builder *b, uint32_t tid, uint32_t tgid, const struct wperf_event *ev)
{
	struct tl_cpu *c = tl_cpu(b, ev->hdr.cpu);

	if (!c || !c->have_cur)
		return;
	if (tl_chain_broken(c, tid))
		mend_break(b, ev->hdr.cpu, tid, tgid, ev);
	tl_cpu(b, ev->hdr.cpu)->cur_seen = ev->hdr.ts;
}

/* The thread the event's hdr.tid names, running now (most kinds run in it). */
uint32_t tl_current(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t i;

	tl_on_cpu_now(b, ev->hdr.tid, ev->hdr.tgid, ev);
	i = tl_thread_of(b, ev->hdr.tid, ev->hdr.tgid);
	tl_seen_running(b, i, ev);
	return i;
}

/* Takes the name the thread has now, for a thread that leaves. */
void tl_take_name(struct tl_builder *b, struct tl_thread *th)
{
	const struct wperf_thread *t = wperf_thread_table_find(&b->names, th->tid);
	const struct wperf_thread *main;

	if (t && t->tgid)
		th->tgid = t->tgid;
	main = wperf_thread_table_find(&b->names, th->tgid);
	snprintf(th->name, sizeof(th->name), "%s", t && t->comm[0] ? t->comm : "?");
	snprintf(th->process, sizeof(th->process), "%.15s",
		 main && main->comm[0] ? main->comm : th->name);
	snprintf(th->exe, sizeof(th->exe), "%.15s", main ? main->exe : t ? t->exe : "");
	th->ppid = main ? main->ppid : t ? t->ppid : 0;
}
