// SPDX-License-Identifier: GPL-2.0
/*
 * The stacks of a thread as it blocks and of its waker, walked once per place
 * and kept in the thread's task storage (included by recorder.bpf.c).
 */
#ifndef WPERF_STACKS_BPF_H
#define WPERF_STACKS_BPF_H

static __always_inline __s32 take_stack(void *ctx, __u64 flags)
{
	long id = bpf_get_stackid(ctx, &stacks, flags);

	if (id >= 0)
		return id;
	count(id == -EFAULT ? WPERF_CNT_STACK_FAULT : WPERF_CNT_STACK_LOST);
	return WPERF_NO_STACK;
}

/*
 * Walking a stack costs a microsecond or two, far more than the rest of an
 * event, and a thread blocks (or wakes others) from the same few places over and
 * over. So each thread keeps, in its task storage, the stacks of the last
 * PLACES places it blocked or woke from: a place is its role (blocking or
 * waking), its user instruction and stack pointers and its system call. Task
 * storage is found from the task itself, with no hashing, and goes with the
 * thread. Every REFRESH_EVERY-th use of a place walks again anyway, so that
 * another caller reaching the same place at the same depth, or a kernel path
 * that changed below the same system call, is seen too. (Reading the caller's
 * return address would tell callers apart, but without frame pointers, as in
 * glibc, that read faults, and a fault costs more than the walk it would save.)
 * A copy of the stack (--stacks dwarf) costs more than a walk, in time and in
 * the room for copies, so a copied place is taken again only every
 * COPY_REFRESH_EVERY-th use: on the storm, 256 would fill the 16K copies in
 * three seconds.
 */
#define REFRESH_EVERY	   256
#define COPY_REFRESH_EVERY 65536
#define PLACES		   4 /* a power of two */

enum stack_role { ROLE_BLOCK = 0, ROLE_WAKE = 1 };

struct stack_place {
	__u64 ip, sp, syscall;
	__s32 kstack, ustack;
	__u32 role;
	__u32 uses; /* 0: an empty entry */
};

struct thread_places {
	struct stack_place place[PLACES];
	__u32 next; /* the entry to replace next */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_places);
} stack_cache SEC(".maps");

/* The stacks of task, the current thread (the blocking one, or the waker), as
 * far as the policy wants them. */
static __always_inline void take_stacks(void *ctx, struct task_struct *task, __u32 tgid, __u32 role,
					__s32 *kstack, __s32 *ustack)
{
	bool kthread = task->flags & PF_KTHREAD;
	struct thread_places *places = NULL;
	struct stack_place *slot = NULL;
	struct pt_regs *regs = NULL;
	__u64 ip = 0, sp = 0, syscall = 0;

	*kstack = WPERF_NO_STACK;
	*ustack = WPERF_NO_STACK;
	if (tgid == self_tgid || !stack_mode)
		return;
	if (!kthread) {
		regs = (struct pt_regs *)bpf_task_pt_regs(task);
		/* A typed pointer from a helper: plain loads, in raw_tp programs too. */
		ip = PT_REGS_IP(regs);
		sp = PT_REGS_SP(regs);
		syscall = USER_SYSCALL_NR(regs);
		/* NULL when the storage is busy on this CPU (a program that
		 * interrupted another): the walk is taken, uncached. */
		places =
		    bpf_task_storage_get(&stack_cache, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	}
	if (places) {
		for (int i = 0; i < PLACES; i++) {
			struct stack_place *p = &places->place[i];

			if (p->uses && p->ip == ip && p->sp == sp && p->syscall == syscall &&
			    p->role == role) {
				slot = p;
				break;
			}
		}
		__u32 refresh = copy_user_stacks ? COPY_REFRESH_EVERY : REFRESH_EVERY;

		if (slot && ++slot->uses & (refresh - 1)) {
			*kstack = slot->kstack;
			*ustack = slot->ustack;
			return;
		}
	}
	if (stack_mode & STACKS_KERNEL)
		*kstack = take_stack(ctx, 0);
	if ((stack_mode & STACKS_USER) && !kthread) {
		if (copy_user_stacks)
			*ustack = copied_stack(task, tgid, regs, syscall, role, slot != NULL);
		else
			*ustack = recovered_stack_id(task, ip, sp);
		if (*ustack == WPERF_NO_STACK)
			*ustack = take_stack(ctx, BPF_F_USER_STACK);
	}
	if (!places)
		return;
	if (!slot) {
		slot = &places->place[places->next++ & (PLACES - 1)];
		slot->ip = ip;
		slot->sp = sp;
		slot->syscall = syscall;
		slot->role = role;
		slot->uses = 1;
	}
	slot->kstack = *kstack;
	slot->ustack = *ustack;
}

#endif /* WPERF_STACKS_BPF_H */
