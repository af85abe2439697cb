/* SPDX-License-Identifier: MIT */
/*
 * The timeline builder's event dispatch (see timeline.h): one pass over the
 * events in time order, each kind driving the state machine of the threads it
 * concerns (timeline_threads.c), which append their segments as they close.
 * Devices are in timeline_devices.c, interrupt wakers in timeline_irq.c, the
 * annotations and final arrays in timeline_assemble.c.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/timeline_cpu.h"
#include "core/analysis/timeline_devices.h"
#include "core/analysis/timeline_internal.h"
#include "core/analysis/timeline_irq.h"
#include "core/analysis/timeline_threads.h"

#define MAX_IRQ_DEPTH 64

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
		tl_on_cpu_now(b, ev->hdr.tid, ev->hdr.tgid, ev);
		c = tl_cpu(b, ev->hdr.cpu);
		if (ev->hdr.tid == 0 && c->have_cur)
			idle_since = c->cur_since;
		tl_tally_switch(b, c, ev);
	}
	prev = tl_thread_of(b, ev->hdr.tid, ev->hdr.tgid);
	next = tl_thread_of(b, ev->sw.next_tid, ev->sw.next_tgid);
	if (prev != TL_NONE && (th = tl_thr(b, prev))->state != TL_DEAD) {
		uint64_t t;

		if (th->state == TL_UNKNOWN)
			tl_seen_running(b, prev, ev);
		t = tl_at(th, ev->hdr.ts);
		if (th->state == TL_RUNNING)
			tl_emit(b, prev, WPERF_SEG_RUNNING, th->since, t, 0, 0, 0);
		else
			tl_close_open(b, prev, t); /* its switch-in was lost */
		th->since = t;
		if (ev->hdr.flags & WPERF_SWITCH_PREEMPTED) {
			th->state = TL_RUNNABLE;
		} else {
			th->state = TL_WAITING;
			th->kstack = ev->sw.kstack;
			th->ustack = ev->sw.ustack;
		}
	}
	if (next != TL_NONE && (th = tl_thr(b, next))->state != TL_DEAD) {
		uint64_t t = tl_at(th, ev->hdr.ts);

		if (th->state == TL_RUNNING && th->cpu == ev->hdr.cpu)
			return; /* its switch-out was lost: it keeps running */
		if (th->state == TL_RUNNING)
			tl_moved_unseen(b, next);
		kernel_accounting(th, ev->hdr.cpu, idle_since,
				  ev->hdr.flags & WPERF_SWITCH_PREEMPTED, t);
		if (th->state == TL_UNKNOWN)
			tl_emit(b, next, WPERF_SEG_RUNNABLE, th->born, t, 0, 0, 0);
		else
			tl_close_open(b, next, t); /* runnable; or waiting with a lost wakeup */
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
		tl_on_cpu_now(b, ev->wake.waker_tid, ev->wake.waker_tgid, ev);
	if (thread_ctx && ev->wake.waker_tid != 0 && !tl_excluded(b, ev->wake.waker_tgid)) {
		waker = tl_thread_of(b, ev->wake.waker_tid, ev->wake.waker_tgid);
		tl_seen_running(b, waker, ev); /* TL_NONE (out of memory) is WPERF_NO_ENTITY */
	}
	i = tl_thread_of(b, ev->hdr.tid, ev->hdr.tgid);
	if (i == TL_NONE)
		return;
	th = tl_thr(b, i);
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
	t = tl_at(th, ev->hdr.ts);
	tl_emit(b, i, WPERF_SEG_WAITING, th->since, t, waker,
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
		tl_on_cpu_now(b, ev->wake.waker_tid, ev->wake.waker_tgid, ev);
	if (thread_ctx && !tl_excluded(b, ev->wake.waker_tgid))
		tl_seen_running(b, tl_thread_of(b, ev->wake.waker_tid, ev->wake.waker_tgid), ev);
	i = tl_thread_of(b, ev->hdr.tid, ev->hdr.tgid);
	if (i == TL_NONE || (th = tl_thr(b, i))->state != TL_UNKNOWN)
		return; /* already runnable since its fork */
	/* Its fork was not seen: it is born now, made by the thread waking it. */
	th->born = th->since = tl_clamp(b, ev->hdr.ts);
	th->creator = thread_ctx ? ev->wake.waker_tid : 0;
	th->state = TL_RUNNABLE;
}

static void on_fork(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t *slot, i;
	struct tl_thread *th;

	tl_current(b, ev); /* the parent */
	if (ev->fork.child_tid == 0 || tl_excluded(b, ev->fork.child_tgid) ||
	    !(slot = tl_tid_slot(b, ev->fork.child_tid)))
		return;
	i = *slot;
	if (i != TL_NONE && tl_thr(b, i)->state != TL_UNKNOWN) {
		/* The tid is reused (or its exit was lost): the old thread ends here. */
		th = tl_thr(b, i);
		if (th->state != TL_DEAD) {
			tl_close_open(b, i, ev->hdr.ts);
			th->died = tl_clamp(b, tl_at(th, ev->hdr.ts));
			th->state = TL_DEAD;
			tl_take_name(b, th);
		}
		i = TL_NONE;
	}
	if (i == TL_NONE) {
		i = tl_new_thread(b, ev->fork.child_tid, ev->fork.child_tgid);
		tl_set_thread(b, slot, ev->fork.child_tid, i);
		if (i == TL_NONE)
			return;
	}
	th = tl_thr(b, i);
	th->tgid = ev->fork.child_tgid;
	th->creator = ev->hdr.tid;
	th->born = th->since = tl_clamp(b, ev->hdr.ts);
	th->state = TL_RUNNABLE; /* a new thread is ready to run */
}

static void on_thread_exit(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t i;
	struct tl_thread *th;

	tl_on_cpu_now(b, ev->hdr.tid, ev->hdr.tgid, ev); /* a thread exits on its CPU */
	i = tl_thread_of(b, ev->hdr.tid, ev->hdr.tgid);

	if (i == TL_NONE || (th = tl_thr(b, i))->state == TL_DEAD)
		return; /* a duplicate exit */
	tl_seen_running(b, i, ev);
	tl_tally_exit(b, i, ev);
	tl_close_open(b, i, ev->hdr.ts);
	th->died = tl_clamp(b, th->since);
	th->state = TL_DEAD;
	tl_take_name(b, th);
}

/* Hard and soft interrupts: their time, taken out of the thread they interrupted. */
static void on_irq(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t i = tl_current(b, ev);
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
		struct tl_thread *th = tl_thr(b, c->irq_thread);
		uint64_t s = c->irq_start, e = tl_clamp(b, ev->hdr.ts);

		/* only the part inside its current running segment */
		s = tl_clamp(b, s < th->since ? th->since : s);
		if (th->state == TL_RUNNING && e > s)
			th->irq_ns += e - s;
	}
}

static void on_spin(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t i = tl_current(b, ev);
	struct tl_thread *th;

	if (i == TL_NONE)
		return;
	th = tl_thr(b, i);
	if (ev->hdr.kind == WPERF_EV_SPIN_BEFORE) {
		th->spinning = 1;
		th->spin_lock = ev->usdt.lock;
		th->spin_t1 = ev->hdr.ts;
	} else if (ev->hdr.kind == WPERF_EV_SPIN_AFTER) {
		struct tl_spin *s;

		if (!th->spinning || th->spin_lock != ev->usdt.lock)
			return; /* no matching SPIN_BEFORE */
		th->spinning = 0;
		if (!(s = wperf_buf_push(&b->spins, sizeof(*s)))) {
			b->oom = 1;
			return;
		}
		*s = (struct tl_spin){i, th->spin_t1, ev->hdr.ts, ev->usdt.lock};
	} else if (ev->hdr.kind == WPERF_EV_SPIN_RELEASE) {
		struct tl_release *r = wperf_buf_push(&b->releases, sizeof(*r));

		if (!r) {
			b->oom = 1;
			return;
		}
		*r = (struct tl_release){ev->usdt.lock, ev->hdr.ts, b->release_seq++, i, TL_NONE};
	} else {
		struct tl_mark *m = wperf_buf_push(&b->marks, sizeof(*m));

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
 * share of the disk (tl_current() is TL_NONE for it).
 */
static void on_io(struct tl_builder *b, const struct wperf_event *ev)
{
	uint32_t issuer = TL_NONE;
	int block = ev->hdr.kind != WPERF_EV_NET_XMIT && ev->hdr.kind != WPERF_EV_NET_RECV;

	if (!block)
		tl_tally_net(b, ev);
	if (ev->hdr.flags == WPERF_CTX_THREAD && ev->hdr.tid != 0) {
		if (tl_excluded(b, ev->hdr.tgid) && ev->hdr.kind == WPERF_EV_NET_XMIT)
			return; /* an excluded process's packets are left out */
		issuer = tl_current(b, ev);
	}
	if (block)
		tl_block_event(b, ev, issuer);
	else
		tl_net_event(b, ev, issuer);
}

void tl_step(struct tl_builder *b, const struct wperf_event *ev)
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
		tl_current(b, ev);
		break;
	case WPERF_EV_RENAME:
		/* a thread may rename another: no sign of which runs where */
		if (wperf_thread_table_apply(&b->names, ev) < 0)
			b->oom = 1;
		tl_seen_running(b, tl_thread_of(b, ev->hdr.tid, ev->hdr.tgid), ev);
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
