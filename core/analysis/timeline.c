/* SPDX-License-Identifier: MIT */
/*
 * The timeline builder, part 1 (see timeline.h): one pass over the events in
 * time order, driving a state machine per thread that appends its segments as
 * they close. Devices are in timeline_devices.c, interrupt wakers in
 * timeline_irq.c, the annotations and final arrays in timeline_assemble.c.
 *
 * A thread's state before its first event is unknown; the first event that
 * tells decides it, from its birth (the window start, or its fork):
 *  - a switch-out, or any event it emits itself (it is current on a CPU then):
 *    it was running;
 *  - a switch-in: it was runnable (it might have been waiting, but for whom
 *    is unknown);
 *  - a wakeup: it was waiting, for that waker.
 * A forked thread is runnable from its fork; a thread first seen in a
 * WAKEUP_NEW is born then, runnable. A tid forked again after its thread ended
 * is a new thread (entity).
 *
 * An excluded process (opts->exclude_tgids) has no entity: its switches still
 * end and start the other side's segments, a wait it ends has no waker
 * (WPERF_NO_ENTITY), its packets are left out, its block requests keep their
 * disk busy but give it no share, and a process it forks is born at the fork.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/radix.h"
#include "core/analysis/timeline_internal.h"
#include "core/trace/meta.h"

#define MAX_CPUS      65536 /* a higher cpu number is garbage: its per-CPU work is skipped */
#define MAX_IRQ_DEPTH 64

void *tl_push(struct wperf_buf *b, size_t size)
{
	void *p;

	if (wperf_buf_reserve(b, size) < 0)
		return NULL;
	p = b->data + b->len;
	memset(p, 0, size);
	b->len += size;
	return p;
}

struct tl_cpu *tl_cpu(struct tl_builder *b, uint32_t cpu)
{
	size_t n = TL_COUNT(b->cpus, struct tl_cpu);

	if (cpu >= MAX_CPUS)
		return NULL;
	for (; n <= cpu; n++) {
		struct tl_cpu *c = tl_push(&b->cpus, sizeof(*c));

		if (!c) {
			b->oom = 1;
			return NULL;
		}
		c->irq_thread = c->blk_dev = c->net_rx = c->net_tx = c->lo_sender = TL_NONE;
	}
	return &TL_AT(b->cpus, struct tl_cpu, cpu);
}

/* ---- the stacks of the waits, each combination once ---- */

static size_t stacks_hash(const struct wperf_wait_stacks *k)
{
	uint64_t a = (uint64_t)(uint32_t)k->kstack << 32 | (uint32_t)k->ustack;
	uint64_t c = (uint64_t)(uint32_t)k->waker_kstack << 32 | (uint32_t)k->waker_ustack;
	uint64_t h =
	    a * 0x9E3779B97F4A7C15ull ^ (c + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;

	return (size_t)(h ^ h >> 29);
}

static int same_stacks(const struct wperf_wait_stacks *a, const struct wperf_wait_stacks *b)
{
	return a->kstack == b->kstack && a->ustack == b->ustack &&
	       a->waker_kstack == b->waker_kstack && a->waker_ustack == b->waker_ustack;
}

/* The slot of k in the table: where it is, or the empty one where it goes. */
static uint32_t *stacks_slot(const struct tl_builder *b, const struct wperf_wait_stacks *k)
{
	const struct wperf_wait_stacks *all = (const void *)b->stacks.data;
	size_t mask = b->stacks_cap - 1;

	for (size_t i = stacks_hash(k) & mask;; i = (i + 1) & mask)
		if (!b->stacks_slots[i] || same_stacks(&all[b->stacks_slots[i] - 1], k))
			return &b->stacks_slots[i];
}

/* Doubles the table (or makes its first 64 slots). */
static int stacks_grow(struct tl_builder *b)
{
	size_t n = TL_COUNT(b->stacks, struct wperf_wait_stacks);
	size_t cap = b->stacks_cap ? 2 * b->stacks_cap : 64;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(b->stacks_slots);
	b->stacks_slots = slots;
	b->stacks_cap = cap;
	for (size_t i = 0; i < n; i++)
		*stacks_slot(b, &TL_AT(b->stacks, struct wperf_wait_stacks, i)) = (uint32_t)i + 1;
	return 0;
}

uint32_t tl_stacks_id(struct tl_builder *b, const struct wperf_wait_stacks *k)
{
	size_t n = TL_COUNT(b->stacks, struct wperf_wait_stacks);
	struct wperf_wait_stacks *s;
	uint32_t *slot;

	if (2 * (n + 1) > b->stacks_cap && (n >= WPERF_MAX_STACKS - 1 || stacks_grow(b) < 0)) {
		b->oom = 1;
		return WPERF_NO_STACKS;
	}
	slot = stacks_slot(b, k);
	if (*slot)
		return *slot - 1;
	if (!(s = tl_push(&b->stacks, sizeof(*s)))) {
		b->oom = 1;
		return WPERF_NO_STACKS;
	}
	*s = *k;
	*slot = (uint32_t)n + 1;
	return (uint32_t)n;
}

/* The table with its first entry, WPERF_NO_STACKS. */
static int stacks_init(struct tl_builder *b)
{
	const struct wperf_wait_stacks none = {WPERF_NO_STACK, WPERF_NO_STACK, WPERF_NO_STACK,
					       WPERF_NO_STACK};

	return tl_stacks_id(b, &none) == WPERF_NO_STACKS && !b->oom ? 0 : -ENOMEM;
}

static struct tl_thread *thr(struct tl_builder *b, uint32_t i)
{
	return &TL_AT(b->threads, struct tl_thread, i);
}

static uint64_t clamp(const struct tl_builder *b, uint64_t t)
{
	return t < b->start ? b->start : t > b->end ? b->end : t;
}

static int excluded(const struct tl_builder *b, uint32_t tgid)
{
	for (size_t i = 0; i < b->opts.nexclude; i++)
		if (tgid == b->opts.exclude_tgids[i])
			return 1;
	return 0;
}

static uint32_t new_thread(struct tl_builder *b, uint32_t tid, uint32_t tgid)
{
	size_t n = TL_COUNT(b->threads, struct tl_thread);
	struct tl_thread *th;

	if (n >= PV_MAX || !(th = tl_push(&b->threads, sizeof(*th)))) {
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
static uint32_t *tid_slot(struct tl_builder *b, uint32_t tid)
{
	int64_t k = wperf_idmap_find(&b->tids, tid); /* cheaper than get for known tids */
	uint32_t *slot;

	if (k < 0) { /* a new tid: the map and tid_thread grow together */
		k = wperf_idmap_get(&b->tids, tid, NULL);
		if (k < 0 || !(slot = tl_push(&b->tid_thread, sizeof(*slot)))) {
			b->oom = 1;
			return NULL;
		}
		*slot = TL_NONE;
	}
	return &TL_AT(b->tid_thread, uint32_t, k);
}

/* Makes thread i (or TL_NONE) the current thread of tid, whose slot it is. */
static void set_thread(struct tl_builder *b, uint32_t *slot, uint32_t tid, uint32_t i)
{
	*slot = i;
	b->recent[tid & (TL_RECENT - 1)] = (struct tl_recent){i == TL_NONE ? 0 : tid, i};
}

/* The thread now holding tid, made when new; TL_NONE for the idle task (tid 0),
 * an excluded process, or out of memory. */
static uint32_t thread_of(struct tl_builder *b, uint32_t tid, uint32_t tgid)
{
	const struct tl_recent *r = &b->recent[tid & (TL_RECENT - 1)];
	uint32_t *slot;

	if (tid == 0 || excluded(b, tgid))
		return TL_NONE;
	if (r->tid == tid)
		return r->thread;
	if (!(slot = tid_slot(b, tid)))
		return TL_NONE;
	/* tid_slot's pointer survives new_thread: they grow different buffers */
	set_thread(b, slot, tid, *slot != TL_NONE ? *slot : new_thread(b, tid, tgid));
	return *slot;
}

/* The index of the stacks of thread th's wait, woken at wks and wus. */
static uint32_t wait_stacks(struct tl_builder *b, struct tl_thread *th, int32_t wks, int32_t wus)
{
	const struct wperf_wait_stacks k = {th->kstack, th->ustack, wks, wus};

	if (!same_stacks(&k, &th->last_stacks)) {
		th->last_stacks_id = tl_stacks_id(b, &k);
		th->last_stacks = k;
	}
	return th->last_stacks_id;
}

/* Appends a segment of thread i, clipped to the window; empty ones vanish. */
static void emit(struct tl_builder *b, uint32_t i, uint8_t state, uint64_t start, uint64_t end,
		 uint32_t waker, int32_t wks, int32_t wus)
{
	struct tl_thread *th = thr(b, i);
	struct wperf_segment *s;
	int waiting = state == WPERF_SEG_WAITING;
	uint32_t stacks;

	start = clamp(b, start);
	end = clamp(b, end);
	if (start >= end)
		return;
	stacks = waiting ? wait_stacks(b, th, wks, wus) : WPERF_NO_STACKS;
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

/* Time never goes backwards for one thread, even in a trace that was not sorted. */
static uint64_t at(const struct tl_thread *th, uint64_t t)
{
	return t < th->since ? th->since : t;
}

static uint8_t seg_state(uint8_t state)
{
	return state == TL_RUNNING    ? WPERF_SEG_RUNNING
	       : state == TL_RUNNABLE ? WPERF_SEG_RUNNABLE
				      : WPERF_SEG_WAITING;
}

/* Ends thread i's open segment at t (a wait with no known waker). */
static void close_open(struct tl_builder *b, uint32_t i, uint64_t t)
{
	struct tl_thread *th = thr(b, i);

	if (th->state == TL_UNKNOWN || th->state == TL_DEAD)
		return;
	t = at(th, t);
	emit(b, i, seg_state(th->state), th->since, t, WPERF_NO_ENTITY, WPERF_NO_STACK,
	     WPERF_NO_STACK);
	th->since = t;
}

/* Thread i is on the CPU of ev at its time: if its state was unknown, it has
 * been running since its birth (a switch-in would have told otherwise). */
static void seen_running(struct tl_builder *b, uint32_t i, const struct wperf_event *ev)
{
	struct tl_thread *th;

	if (i == TL_NONE)
		return;
	th = thr(b, i);
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
	struct tl_thread *th = thr(b, i);

	close_open(b, i, t);
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
static void moved_unseen(struct tl_builder *b, uint32_t i)
{
	const struct tl_thread *th = thr(b, i);
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
	uint32_t gone = thread_of(b, c->cur_tid, c->cur_tgid), now = thread_of(b, tid, tgid);
	struct tl_thread *th;

	if (gone != TL_NONE && (th = thr(b, gone))->state == TL_RUNNING && th->cpu == cpu) {
		left_unseen(b, gone, t);
		th->acct.guessed_ns += clamp(b, ev->hdr.ts) - clamp(b, t);
	}
	if (now != TL_NONE && (th = thr(b, now))->state != TL_DEAD) {
		th->acct.guessed_ns += clamp(b, ev->hdr.ts) - clamp(b, t);
		if (th->state == TL_RUNNING && th->cpu != cpu)
			moved_unseen(b, now);
		if (th->state == TL_UNKNOWN)
			emit(b, now, WPERF_SEG_RUNNABLE, th->born, t, 0, 0, 0);
		else if (th->state != TL_RUNNING)
			close_open(b, now, t);
		if (th->state != TL_RUNNING)
			th->since = at(th, clamp(b, t));
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
static void on_cpu_now(struct tl_builder *b, uint32_t tid, uint32_t tgid,
		       const struct wperf_event *ev)
{
	struct tl_cpu *c = tl_cpu(b, ev->hdr.cpu);

	if (!c || !c->have_cur)
		return;
	if (tl_chain_broken(c, tid))
		mend_break(b, ev->hdr.cpu, tid, tgid, ev);
	tl_cpu(b, ev->hdr.cpu)->cur_seen = ev->hdr.ts;
}

/* The thread the event's hdr.tid names, running now (most kinds run in it). */
static uint32_t current(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t i;

	on_cpu_now(b, ev->hdr.tid, ev->hdr.tgid, ev);
	i = thread_of(b, ev->hdr.tid, ev->hdr.tgid);
	seen_running(b, i, ev);
	return i;
}

/* Takes the name the thread has now, for a thread that leaves. */
static void take_name(struct tl_builder *b, struct tl_thread *th)
{
	const struct wperf_thread *t = wperf_thread_table_find(&b->names, th->tid);
	const struct wperf_thread *main;

	if (t && t->tgid)
		th->tgid = t->tgid;
	main = wperf_thread_table_find(&b->names, th->tgid);
	snprintf(th->name, sizeof(th->name), "%s", t && t->comm[0] ? t->comm : "?");
	snprintf(th->process, sizeof(th->process), "%.15s",
		 main && main->comm[0] ? main->comm : th->name);
}

/*
 * Thread th comes on cpu at t after a wakeup from another CPU: is its runnable
 * time counted otherwise by the kernel (wperf_thread_acct)? When this CPU
 * idled since idle_since, the kernel handed the wakeup to it, and it queued
 * the thread only as it woke up; when the switch preempted another thread,
 * the kernel may count it at the wakeup.
 */
static void kernel_accounting(struct tl_thread *th, uint32_t cpu, uint64_t idle_since,
			      int preempted, uint64_t t)
{
	if (th->state != TL_RUNNABLE || th->woken_on == TL_NONE || th->woken_on == cpu ||
	    t <= th->since)
		return;
	if (idle_since <= th->since)
		th->acct.unqueued_ns += t - th->since;
	else if (preempted)
		th->acct.skipped_ns += t - th->since;
}

static void on_switch(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t prev, next;
	struct tl_cpu *c = tl_cpu(b, ev->hdr.cpu);
	uint64_t idle_since = UINT64_MAX; /* the idle task is on the CPU since */
	struct tl_thread *th;

	if (c) {
		c->irq_depth = 0; /* no switch happens inside an interrupt: its exit was lost */
		on_cpu_now(b, ev->hdr.tid, ev->hdr.tgid, ev);
		c = tl_cpu(b, ev->hdr.cpu);
		if (ev->hdr.tid == 0 && c->have_cur)
			idle_since = c->cur_since;
		tl_tally_switch(b, c, ev);
	}
	prev = thread_of(b, ev->hdr.tid, ev->hdr.tgid);
	next = thread_of(b, ev->sw.next_tid, ev->sw.next_tgid);
	if (prev != TL_NONE && (th = thr(b, prev))->state != TL_DEAD) {
		uint64_t t;

		if (th->state == TL_UNKNOWN)
			seen_running(b, prev, ev);
		t = at(th, ev->hdr.ts);
		if (th->state == TL_RUNNING)
			emit(b, prev, WPERF_SEG_RUNNING, th->since, t, 0, 0, 0);
		else
			close_open(b, prev, t); /* its switch-in was lost */
		th->since = t;
		if (ev->hdr.flags & WPERF_SWITCH_PREEMPTED) {
			th->state = TL_RUNNABLE;
		} else {
			th->state = TL_WAITING;
			th->kstack = ev->sw.kstack;
			th->ustack = ev->sw.ustack;
		}
	}
	if (next != TL_NONE && (th = thr(b, next))->state != TL_DEAD) {
		uint64_t t = at(th, ev->hdr.ts);

		if (th->state == TL_RUNNING && th->cpu == ev->hdr.cpu)
			return; /* its switch-out was lost: it keeps running */
		if (th->state == TL_RUNNING)
			moved_unseen(b, next);
		kernel_accounting(th, ev->hdr.cpu, idle_since,
				  ev->hdr.flags & WPERF_SWITCH_PREEMPTED, t);
		if (th->state == TL_UNKNOWN)
			emit(b, next, WPERF_SEG_RUNNABLE, th->born, t, 0, 0, 0);
		else
			close_open(b, next, t); /* runnable; or waiting with a lost wakeup */
		th->state = TL_RUNNING;
		th->since = t;
		th->cpu = ev->hdr.cpu;
		th->woken_on = TL_NONE;
	}
}

static void on_wakeup(struct tl_builder *b, const struct wperf_event *ev)
{
	int thread_ctx = ev->hdr.flags == WPERF_CTX_THREAD;
	uint32_t waker = WPERF_NO_ENTITY, i;
	struct tl_thread *th;
	uint64_t t;

	/* The waker first: it may be new, and new threads move the array. */
	if (thread_ctx)
		on_cpu_now(b, ev->wake.waker_tid, ev->wake.waker_tgid, ev);
	if (thread_ctx && ev->wake.waker_tid != 0 && !excluded(b, ev->wake.waker_tgid)) {
		waker = thread_of(b, ev->wake.waker_tid, ev->wake.waker_tgid);
		seen_running(b, waker, ev); /* TL_NONE (out of memory) is WPERF_NO_ENTITY */
	}
	i = thread_of(b, ev->hdr.tid, ev->hdr.tgid);
	if (i == TL_NONE)
		return;
	th = thr(b, i);
	if (th->state != TL_WAITING && th->state != TL_UNKNOWN)
		return; /* not blocked: nothing to wake (it had not switched out yet) */
	if (!thread_ctx || ev->wake.waker_tid == 0) {
		waker = tl_interrupt_waker(b, ev);
		tl_net_receiver(b, ev, waker, i);
	}
	if (th->state == TL_UNKNOWN) {
		th->since = th->born; /* asleep since before the window */
		th->kstack = th->ustack = WPERF_NO_STACK;
	}
	t = at(th, ev->hdr.ts);
	emit(b, i, WPERF_SEG_WAITING, th->since, t, waker,
	     thread_ctx ? ev->wake.kstack : WPERF_NO_STACK,
	     thread_ctx ? ev->wake.ustack : WPERF_NO_STACK);
	th->state = TL_RUNNABLE;
	th->since = t;
	th->woken_on = ev->hdr.cpu;
}

static void on_wakeup_new(struct tl_builder *b, const struct wperf_event *ev)
{
	int thread_ctx = ev->hdr.flags == WPERF_CTX_THREAD;
	uint32_t i;
	struct tl_thread *th;

	if (thread_ctx)
		on_cpu_now(b, ev->wake.waker_tid, ev->wake.waker_tgid, ev);
	if (thread_ctx && !excluded(b, ev->wake.waker_tgid))
		seen_running(b, thread_of(b, ev->wake.waker_tid, ev->wake.waker_tgid), ev);
	i = thread_of(b, ev->hdr.tid, ev->hdr.tgid);
	if (i == TL_NONE || (th = thr(b, i))->state != TL_UNKNOWN)
		return; /* already runnable since its fork */
	/* Its fork was not seen: it is born now, made by the thread waking it. */
	th->born = th->since = clamp(b, ev->hdr.ts);
	th->creator = thread_ctx ? ev->wake.waker_tid : 0;
	th->state = TL_RUNNABLE;
}

static void on_fork(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t *slot, i;
	struct tl_thread *th;

	current(b, ev); /* the parent */
	if (ev->fork.child_tid == 0 || excluded(b, ev->fork.child_tgid) ||
	    !(slot = tid_slot(b, ev->fork.child_tid)))
		return;
	i = *slot;
	if (i != TL_NONE && thr(b, i)->state != TL_UNKNOWN) {
		/* The tid is reused (or its exit was lost): the old thread ends here. */
		th = thr(b, i);
		if (th->state != TL_DEAD) {
			close_open(b, i, ev->hdr.ts);
			th->died = clamp(b, at(th, ev->hdr.ts));
			th->state = TL_DEAD;
			take_name(b, th);
		}
		i = TL_NONE;
	}
	if (i == TL_NONE) {
		i = new_thread(b, ev->fork.child_tid, ev->fork.child_tgid);
		set_thread(b, slot, ev->fork.child_tid, i);
		if (i == TL_NONE)
			return;
	}
	th = thr(b, i);
	th->tgid = ev->fork.child_tgid;
	th->creator = ev->hdr.tid;
	th->born = th->since = clamp(b, ev->hdr.ts);
	th->state = TL_RUNNABLE; /* a new thread is ready to run */
}

static void on_thread_exit(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t i;
	struct tl_thread *th;

	on_cpu_now(b, ev->hdr.tid, ev->hdr.tgid, ev); /* a thread exits on its CPU */
	i = thread_of(b, ev->hdr.tid, ev->hdr.tgid);

	if (i == TL_NONE || (th = thr(b, i))->state == TL_DEAD)
		return; /* a duplicate exit */
	seen_running(b, i, ev);
	tl_tally_exit(b, i, ev);
	close_open(b, i, ev->hdr.ts);
	th->died = clamp(b, th->since);
	th->state = TL_DEAD;
	take_name(b, th);
}

/* Hard and soft interrupts: their time, taken out of the thread they interrupted. */
static void on_irq(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t i = current(b, ev);
	struct tl_cpu *c = tl_cpu(b, ev->hdr.cpu);
	int entry =
	    ev->hdr.kind == WPERF_EV_HARDIRQ_ENTRY || ev->hdr.kind == WPERF_EV_SOFTIRQ_ENTRY;

	if (!c)
		return;
	if (entry) {
		if (c->irq_depth == 0) {
			c->irq_start = ev->hdr.ts;
			c->irq_thread = i;
			c->irq_idle = ev->hdr.tid == 0;
		}
		if (c->irq_depth < MAX_IRQ_DEPTH)
			c->irq_depth++;
		return;
	}
	if (c->irq_depth == 0 || --c->irq_depth > 0)
		return; /* an exit without entry, or still nested */
	if (c->irq_idle)
		tl_tally_idle_irq(b, c, c->irq_start, ev->hdr.ts);
	if (c->irq_thread != TL_NONE) {
		struct tl_thread *th = thr(b, c->irq_thread);
		uint64_t s = c->irq_start, e = clamp(b, ev->hdr.ts);

		/* only the part inside its current running segment */
		s = clamp(b, s < th->since ? th->since : s);
		if (th->state == TL_RUNNING && e > s)
			th->irq_ns += e - s;
	}
}

static void on_spin(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t i = current(b, ev);
	struct tl_thread *th;

	if (i == TL_NONE)
		return;
	th = thr(b, i);
	if (ev->hdr.kind == WPERF_EV_SPIN_BEFORE) {
		th->spinning = 1;
		th->spin_lock = ev->usdt.lock;
		th->spin_t1 = ev->hdr.ts;
	} else if (ev->hdr.kind == WPERF_EV_SPIN_AFTER) {
		struct tl_spin *s;

		if (!th->spinning || th->spin_lock != ev->usdt.lock)
			return; /* no matching SPIN_BEFORE */
		th->spinning = 0;
		if (!(s = tl_push(&b->spins, sizeof(*s)))) {
			b->oom = 1;
			return;
		}
		*s = (struct tl_spin){i, th->spin_t1, ev->hdr.ts, ev->usdt.lock};
	} else if (ev->hdr.kind == WPERF_EV_SPIN_RELEASE) {
		struct tl_release *r = tl_push(&b->releases, sizeof(*r));

		if (!r) {
			b->oom = 1;
			return;
		}
		*r = (struct tl_release){ev->usdt.lock, ev->hdr.ts, b->release_seq++, i, TL_NONE};
	} else {
		struct tl_mark *m = tl_push(&b->marks, sizeof(*m));

		if (!m) {
			b->oom = 1;
			return;
		}
		*m = (struct tl_mark){i, ev->hdr.ts};
	}
}

/*
 * BLOCK_* and NET_*: hdr.tid issued or sent the I/O only in thread context. An
 * excluded process's packets are left out; its block requests keep their disk
 * busy (the kernel's count of the disk's busy time has them) but give it no
 * share of the disk (current() is TL_NONE for it).
 */
static void on_io(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t issuer = TL_NONE;
	int block = ev->hdr.kind != WPERF_EV_NET_XMIT && ev->hdr.kind != WPERF_EV_NET_RECV;

	if (!block)
		tl_tally_net(b, ev);
	if (ev->hdr.flags == WPERF_CTX_THREAD && ev->hdr.tid != 0) {
		if (excluded(b, ev->hdr.tgid) && ev->hdr.kind == WPERF_EV_NET_XMIT)
			return; /* an excluded process's packets are left out */
		issuer = current(b, ev);
	}
	if (block)
		tl_block_event(b, ev, issuer);
	else
		tl_net_event(b, ev, issuer);
}

static void step(struct tl_builder *b, const struct wperf_event *ev)
{
	switch (ev->hdr.kind) {
	case WPERF_EV_SWITCH:
		on_switch(b, ev);
		break;
	case WPERF_EV_WAKEUP:
		on_wakeup(b, ev);
		break;
	case WPERF_EV_WAKEUP_NEW:
		on_wakeup_new(b, ev);
		break;
	case WPERF_EV_FORK:
		if (wperf_thread_table_apply(&b->names, ev) < 0)
			b->oom = 1;
		on_fork(b, ev);
		break;
	case WPERF_EV_EXEC:
		if (wperf_thread_table_apply(&b->names, ev) < 0)
			b->oom = 1;
		current(b, ev);
		break;
	case WPERF_EV_RENAME:
		/* a thread may rename another: no sign of which runs where */
		if (wperf_thread_table_apply(&b->names, ev) < 0)
			b->oom = 1;
		seen_running(b, thread_of(b, ev->hdr.tid, ev->hdr.tgid), ev);
		break;
	case WPERF_EV_EXIT:
		on_thread_exit(b, ev);
		break;
	case WPERF_EV_HARDIRQ_ENTRY:
	case WPERF_EV_HARDIRQ_EXIT:
	case WPERF_EV_SOFTIRQ_ENTRY:
	case WPERF_EV_SOFTIRQ_EXIT:
		on_irq(b, ev);
		break;
	case WPERF_EV_BLOCK_ISSUE:
	case WPERF_EV_BLOCK_COMPLETE:
	case WPERF_EV_BLOCK_START:
	case WPERF_EV_BLOCK_DONE:
	case WPERF_EV_NET_XMIT:
	case WPERF_EV_NET_RECV:
		on_io(b, ev);
		break;
	case WPERF_EV_SPIN_BEFORE:
	case WPERF_EV_SPIN_AFTER:
	case WPERF_EV_SPIN_RELEASE:
	case WPERF_EV_FALSE_WAKEUP:
		on_spin(b, ev);
		break;
	default:
		break; /* a kind this version does not use */
	}
}

/* ---- reading the events in time order ---- */

/*
 * A trace with late events is replayed in two passes. The events are split
 * into a main sequence (each at or after every main event before it) and the
 * late ones; the first pass collects and sorts only the late ones, the second
 * merges them into the main sequence as it goes. Memory stays proportional to
 * the late events, which are few in a real recording.
 */
struct late {
	struct wperf_event ev;
	uint64_t seq; /* position in the file: equal timestamps keep file order */
};

/* First pass: the late events, and the span of all timestamps. */
static int collect_late(struct tl_builder *b, struct wperf_buf *late, uint64_t *lo, uint64_t *hi)
{
	struct wperf_event_iter *it;
	struct wperf_event ev;
	uint64_t seq = 0, max = 0;
	void *tmp;
	int ret = wperf_event_iter_new(b->t, &it, b->err);

	*lo = UINT64_MAX;
	*hi = 0;
	while (ret == 0 && (ret = wperf_event_iter_next(it, &ev, b->err)) == 1) {
		uint64_t ts = ev.hdr.ts;

		*lo = ts < *lo ? ts : *lo;
		*hi = ts > *hi ? ts : *hi;
		if (seq > 0 && ts < max) {
			struct late *l = tl_push(late, sizeof(*l));

			if (!l)
				ret = wperf_error_set(b->err, -ENOMEM,
						      "out of memory sorting events");
			else
				*l = (struct late){ev, seq};
		} else {
			max = ts;
		}
		seq++;
		ret = ret < 0 ? ret : 0;
	}
	wperf_event_iter_free(it);
	if (ret < 0 || !late->len)
		return ret < 0 ? ret : 0;
	/* by time in linear time; stable, so by file order at equal times */
	tmp = malloc(late->len);
	if (!tmp || wperf_radix_sort(late->data, TL_COUNT(*late, struct late), sizeof(struct late),
				     offsetof(struct late, ev.hdr.ts), tmp) < 0)
		ret = wperf_error_set(b->err, -ENOMEM, "out of memory sorting events");
	free(tmp);
	return ret;
}

/* Second (or only) pass: every event through step(), in time order. */
static int replay(struct tl_builder *b, const struct wperf_buf *late)
{
	const struct late *l = (const struct late *)(const void *)late->data;
	size_t nlate = TL_COUNT(*late, struct late), li = 0;
	struct wperf_event_iter *it;
	struct wperf_event ev;
	uint64_t seq = 0, max = 0;
	int ret = wperf_event_iter_new(b->t, &it, b->err);

	while (ret == 0 && !b->oom && (ret = wperf_event_iter_next(it, &ev, b->err)) == 1) {
		uint64_t s = seq++;

		ret = 0;
		if (nlate) {
			if (s > 0 && ev.hdr.ts < max)
				continue; /* a late one: it comes from the sorted list */
			max = ev.hdr.ts;
			for (; li < nlate && !b->oom &&
			       (l[li].ev.hdr.ts < ev.hdr.ts ||
				(l[li].ev.hdr.ts == ev.hdr.ts && l[li].seq < s));
			     li++)
				step(b, &l[li].ev);
		}
		if (!b->oom)
			step(b, &ev);
	}
	for (; ret == 0 && !b->oom && li < nlate; li++)
		step(b, &l[li].ev);
	wperf_event_iter_free(it);
	if (ret == 0 && b->oom)
		ret = -ENOMEM;
	if (ret == -ENOMEM && (!b->err || b->err->code != -ENOMEM))
		wperf_error_set(b->err, -ENOMEM, "out of memory building the timeline");
	return ret < 0 ? ret : 0;
}

/* ---- the whole build ---- */

/* Closes what is still open at the window's end and names the living threads. */
static void close_all(struct tl_builder *b)
{
	size_t n = TL_COUNT(b->threads, struct tl_thread);

	for (uint32_t i = 0; i < n; i++) {
		struct tl_thread *th = thr(b, i);

		if (th->state == TL_DEAD)
			continue;
		close_open(b, i, b->end);
		th->died = b->end;
		take_name(b, th);
	}
	tl_tally_finish(b);
}

static void release(struct tl_builder *b)
{
	wperf_thread_table_release(&b->names);
	wperf_idmap_release(&b->tids);
	wperf_buf_release(&b->tid_thread);
	for (size_t i = 0; i < TL_COUNT(b->threads, struct tl_thread); i++)
		wperf_buf_release(&thr(b, (uint32_t)i)->segs); /* those not given to the timeline */
	wperf_buf_release(&b->threads);
	wperf_buf_release(&b->cpus);
	wperf_buf_release(&b->spins);
	wperf_buf_release(&b->releases);
	wperf_buf_release(&b->marks);
	wperf_buf_release(&b->stacks); /* unless given to the timeline */
	free(b->stacks_slots);
	tl_devices_release(b);
	tl_sources_release(b);
	tl_tally_release(b);
}

int wperf_timeline_build(const struct wperf_trace *t, const struct wperf_timeline_opts *opts,
			 struct wperf_timeline **out, struct wperf_error *err)
{
	const struct wperf_trace_stats *st = wperf_trace_stats(t);
	struct tl_builder b = {.t = t, .err = err};
	struct wperf_buf late = {0};
	const char *targets;
	struct wperf_timeline *tl = NULL;
	int ret = 0;

	*out = NULL;
	if (opts)
		b.opts = *opts;
	b.start = st->start_ts;
	targets = wperf_trace_meta(t, WPERF_META_TARGETS);
	b.whole_machine = !targets || !strcmp(targets, "all");
	b.end = st->end_ts;
	if (wperf_thread_table_init(&b.names, t) < 0 || tl_sources_init(&b) < 0 ||
	    stacks_init(&b) < 0 ||
	    (st->ncpu && !tl_cpu(&b, st->ncpu - 1 < MAX_CPUS ? st->ncpu - 1 : 0)))
		ret = wperf_error_set(err, -ENOMEM, "out of memory building the timeline");
	/* Sort when the writer saw late events; with no valid window, span the events. */
	if (!ret && (st->late_events || b.end <= b.start)) {
		uint64_t lo, hi;

		ret = collect_late(&b, &late, &lo, &hi);
		if (!ret && b.end <= b.start) {
			b.start = lo <= hi ? lo : 0;
			b.end = lo <= hi ? hi : 0;
		}
	}
	if (!ret)
		ret = replay(&b, &late);
	wperf_buf_release(&late);
	if (!ret) {
		close_all(&b);
		tl_devices_finish(&b);
		tl = calloc(1, sizeof(*tl));
		ret = tl ? 0 : -ENOMEM;
	}
	if (!ret) {
		tl->start = b.start;
		tl->end = b.end;
		tl->ncpu = st->ncpu;
		for (uint32_t c = 0; c < st->ncpu; c++)
			tl->lost_events += st->lost[c];
		for (int k = 0; k < WPERF_EV_KIND_MAX; k++)
			tl->recorded_events += st->events[k];
		tl->disk_requests_before = b.reqs_before;
		tl->disk_requests_unfinished = b.reqs_unfinished;
		tl->disk_requests_lost = b.reqs_lost;
		tl->jiffy_ns = b.jiffy_ns;
		ret = tl_assemble(&b, tl);
	}
	if (!ret)
		ret = tl_tally_assemble(&b, tl);
	if (ret == -ENOMEM && (!err || err->code != -ENOMEM))
		wperf_error_set(err, -ENOMEM, "out of memory building the timeline");
	release(&b);
	if (ret) {
		wperf_timeline_free(tl);
		return ret;
	}
	*out = tl;
	return 0;
}

void wperf_timeline_free(struct wperf_timeline *tl)
{
	if (!tl)
		return;
	for (size_t e = 0; tl->entities && e < tl->nentities; e++)
		free(tl->entities[e].segments);
	free(tl->entities);
	free(tl->shares);
	free(tl->stacks);
	free(tl->cpus);
	free(tl->break_threads);
	free(tl->nics);
	free(tl->exits);
	free(tl);
}
