// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling: switches and wakeups, with the stacks of the thread that blocks
 * and of its waker, and the lifetimes of threads: fork, exec, rename, exit
 * (included by recorder.bpf.c).
 */
#ifndef WPERF_SCHED_BPF_H
#define WPERF_SCHED_BPF_H

static __always_inline int on_sched_switch(__u64 *ctx, const bool btf)
{
	bool preempt = ctx[0];
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];
	__u32 prev_state = ctx[3];
	__u32 prev_tgid = KREAD(btf, prev, tgid), next_tgid = KREAD(btf, next, tgid);
	bool blocked = !preempt && prev_state != 0;
	struct record_slot slot;
	struct wperf_event *e;

	irq_state_reset();
	if (!is_target(prev_tgid) && !is_target(next_tgid))
		return 0;
	e = reserve(&slot, RECORD_SIZE(sw), WPERF_EV_SWITCH, KREAD(btf, prev, pid), prev_tgid);
	if (!e)
		return 0;
	e->hdr.flags = blocked ? 0 : WPERF_SWITCH_PREEMPTED;
	e->sw.next_tid = KREAD(btf, next, pid);
	e->sw.next_tgid = next_tgid;
	e->sw.prev_state = preempt ? 0 : prev_state;
	/* prev is still current here: its stacks are the ones it blocked in. */
	if (blocked && e->hdr.tid != 0) {
		/* prev is current; a raw_tp program cannot load through it. */
		take_stacks(ctx, btf ? prev : bpf_get_current_task_btf(), prev_tgid, ROLE_BLOCK,
			    &e->sw.kstack, &e->sw.ustack);
	} else {
		e->sw.kstack = WPERF_NO_STACK;
		e->sw.ustack = WPERF_NO_STACK;
	}
	submit(&slot);
	return 0;
}

static __always_inline int on_wakeup(__u64 *ctx, const bool btf, __u8 kind)
{
	struct task_struct *p = (void *)ctx[0];
	struct task_struct *waker = bpf_get_current_task_btf();
	__u32 waker_tgid = waker->tgid;
	__u32 tgid = KREAD(btf, p, tgid);
	__s32 irq;
	__u8 context = current_context(&irq);
	struct record_slot slot;
	struct wperf_event *e;

	if (!is_target(tgid) && !(context == WPERF_CTX_THREAD && is_target(waker_tgid)))
		return 0;
	e = reserve(&slot, RECORD_SIZE(wake), kind, KREAD(btf, p, pid), tgid);
	if (!e)
		return 0;
	e->hdr.flags = context;
	e->wake.irq = irq;
	e->wake.target_cpu = KREAD(btf, p, wake_cpu);
	e->wake.kstack = WPERF_NO_STACK;
	e->wake.ustack = WPERF_NO_STACK;
	if (context == WPERF_CTX_THREAD) {
		e->wake.waker_tid = waker->pid;
		e->wake.waker_tgid = waker_tgid;
		take_stacks(ctx, waker, waker_tgid, ROLE_WAKE, &e->wake.kstack, &e->wake.ustack);
	} else {
		/* Not the interrupted thread: the interrupt is the waker. */
		e->wake.waker_tid = 0;
		e->wake.waker_tgid = 0;
	}
	submit(&slot);
	return 0;
}

static __always_inline int on_sched_waking(__u64 *ctx, const bool btf)
{
	return on_wakeup(ctx, btf, WPERF_EV_WAKEUP);
}

static __always_inline int on_sched_wakeup_new(__u64 *ctx, const bool btf)
{
	return on_wakeup(ctx, btf, WPERF_EV_WAKEUP_NEW);
}

/* Thread lifetimes. */

/* A record of task, when its process is a target; NULL otherwise, or when
 * there is no room. */
static __always_inline struct wperf_event *reserve_task(struct record_slot *slot, __u32 size,
							__u8 kind, const bool btf,
							struct task_struct *task)
{
	__u32 tgid = KREAD(btf, task, tgid);

	if (!is_target(tgid))
		return NULL;
	return reserve(slot, size, kind, KREAD(btf, task, pid), tgid);
}

static __always_inline int on_sched_process_fork(__u64 *ctx, const bool btf)
{
	struct task_struct *parent = (void *)ctx[0], *child = (void *)ctx[1];
	__u32 tgid = KREAD(btf, parent, tgid), child_tgid = KREAD(btf, child, tgid);
	struct record_slot slot;
	struct wperf_event *e;
	__u8 one = 1;

	if (!is_target(tgid))
		return 0;
	if (filter_targets)
		bpf_map_update_elem(&targets, &child_tgid, &one, BPF_ANY);
	e = reserve(&slot, RECORD_SIZE(fork), WPERF_EV_FORK, KREAD(btf, parent, pid), tgid);
	if (!e)
		return 0;
	e->fork.child_tid = KREAD(btf, child, pid);
	e->fork.child_tgid = child_tgid;
	BPF_CORE_READ_STR_INTO(&e->fork.comm, child, comm);
	submit(&slot);
	return 0;
}

static __always_inline int emit_name(const bool btf, __u8 kind, struct task_struct *task,
				     const char *comm)
{
	struct record_slot slot;
	struct wperf_event *e = reserve_task(&slot, RECORD_SIZE(name), kind, btf, task);

	if (!e)
		return 0;
	if (comm)
		bpf_probe_read_kernel_str(e->name.comm, sizeof(e->name.comm), comm);
	else
		BPF_CORE_READ_STR_INTO(&e->name.comm, task, comm);
	submit(&slot);
	return 0;
}

static __always_inline int on_sched_process_exec(__u64 *ctx, const bool btf)
{
	return emit_name(btf, WPERF_EV_EXEC, (void *)ctx[0], NULL);
}

static __always_inline int on_task_rename(__u64 *ctx, const bool btf)
{
	return emit_name(btf, WPERF_EV_RENAME, (void *)ctx[0], (const char *)ctx[1]);
}

static __always_inline int on_sched_process_exit(__u64 *ctx, const bool btf)
{
	struct task_struct *task = (void *)ctx[0];
	struct record_slot slot;
	struct wperf_event *e = reserve_task(&slot, RECORD_SIZE(exit), WPERF_EV_EXIT, btf, task);

	if (!e)
		return 0;
	/*
	 * The thread's schedstat, the kernel's own count of its time, while it is
	 * still there to read: user space cannot, a thread is reaped as it exits.
	 * The thread is current, so its running time is as of the last tick or
	 * switch (update_curr), as /proc shows it for a running thread.
	 */
	if (bpf_core_field_exists(task->sched_info)) {
		e->hdr.flags = WPERF_EXIT_SCHEDSTAT;
		e->exit.run_ns = BPF_CORE_READ(task, se.sum_exec_runtime);
		e->exit.wait_ns = BPF_CORE_READ(task, sched_info.run_delay);
		e->exit.slices = BPF_CORE_READ(task, sched_info.pcount);
	} else { /* CONFIG_SCHED_INFO off: the kernel keeps no schedstat */
		e->exit.run_ns = 0;
		e->exit.wait_ns = 0;
		e->exit.slices = 0;
	}
	submit(&slot);
	return 0;
}

#endif /* WPERF_SCHED_BPF_H */
