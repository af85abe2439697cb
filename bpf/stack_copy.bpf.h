/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `record --stacks dwarf`: the top of a user stack copied for offline unwinding
 * (included by recorder.bpf.c before stacks.bpf.h; it shares the ids of
 * stack_caller.bpf.h's recovered stacks).
 *
 * The kernel walks a user stack by frame pointers, and Debian builds its
 * libraries and servers without them: the walk stops, or reads data as return
 * addresses, inside the first function that uses the register for something
 * else. The call frame information (.eh_frame) that every binary keeps for C++
 * exceptions and for backtrace(3) says where each function's caller is, but
 * reading it needs the binary's files, so it is done offline: here the user
 * registers and the 8 KiB above the stack pointer are copied (the same amount
 * as perf's default dump), and the analysis unwinds them
 * (core/analysis/symbolize_unwind.c).
 *
 * Cost: a copy is 8 reads of 1 KiB and an 8.5 KiB map update, a few
 * microseconds, several times a frame-pointer walk; the stack cache of
 * stacks.bpf.h takes it once per place, as it does a walk. Each copy holds
 * 8.5 KiB of kernel memory until the recording ends, at most as many as the
 * stack map has entries. When there is no room left the kernel's walk is
 * taken, and the copy counts as a stack lost.
 *
 * Walks of the same stack share one id in the stack map; copies cannot be
 * compared, so a thread that blocks from more places than its cache holds
 * (MariaDB's connection threads: 160K copies in 5 s) would copy again each
 * time it comes back. So the places copied are also kept in an LRU map, by
 * process and place (the stack pointer tells the threads apart), and a place
 * found there takes its copy again only when the thread's cache says it is
 * time to (COPY_REFRESH_EVERY, stacks.bpf.h).
 */
#ifndef WPERF_STACK_COPY_BPF_H
#define WPERF_STACK_COPY_BPF_H

const volatile bool copy_user_stacks = false; /* --stacks dwarf */

/* A place copied: (process, role, ip, sp, syscall) -> its copy's id. */
struct copy_place {
	__u64 ip, sp, syscall;
	__u32 tgid, role;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1); /* resized by user space in dwarf mode */
	__type(key, struct copy_place);
	__type(value, __s32);
} copy_places SEC(".maps");

/* copy id -> the copy (sized by user space to the stack map's entries; 1 when
 * copies are not taken, as a map cannot have none). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __s32);
	__type(value, struct wperf_stack_copy_raw);
} stack_copies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wperf_stack_copy_raw);
} copy_buf SEC(".maps");

/* regs as the architecture's DWARF numbers them; returns how many were set. */
static __always_inline __u32 dwarf_regs(struct pt_regs *regs, __u64 *out)
{
#if defined(__TARGET_ARCH_x86)
	out[0] = regs->ax;
	out[1] = regs->dx;
	out[2] = regs->cx;
	out[3] = regs->bx;
	out[4] = regs->si;
	out[5] = regs->di;
	out[6] = regs->bp;
	out[7] = regs->sp;
	out[8] = regs->r8;
	out[9] = regs->r9;
	out[10] = regs->r10;
	out[11] = regs->r11;
	out[12] = regs->r12;
	out[13] = regs->r13;
	out[14] = regs->r14;
	out[15] = regs->r15;
	out[16] = regs->ip;
	return 17;
#elif defined(__TARGET_ARCH_arm64)
	for (int i = 0; i < 31; i++)
		out[i] = regs->regs[i];
	out[31] = regs->sp;
	return 32;
#else
	return 0; /* no copies: user space refuses dwarf mode here */
#endif
}

/*
 * Copies the user stack of task (its user registers regs) under a new id;
 * returns the id, or WPERF_NO_STACK when there is no room left or nothing
 * could be read.
 */
static __always_inline __s32 copy_user_stack(struct task_struct *task, __u32 tgid,
					     struct pt_regs *regs)
{
	__u32 zero = 0, n;
	struct wperf_stack_copy_raw *c = bpf_map_lookup_elem(&copy_buf, &zero);
	__s32 id;

	if (!c)
		return WPERF_NO_STACK;
	/* A full room is seen before the 8 KiB are read for nothing; the id is
	 * taken below, as two CPUs may both find one left. */
	if (recovered_taken >= recovered_room) {
		count(WPERF_CNT_STACK_LOST); /* a walk stands in */
		return WPERF_NO_STACK;
	}
	c->tgid = tgid;
	c->tid = task->pid;
	c->ip = PT_REGS_IP(regs);
	c->nregs = dwarf_regs(regs, c->regs);
	/* From the 1 KiB boundary below the stack pointer: a mapping ends on a
	 * page boundary, so a whole chunk is readable or none of it is. */
	c->base = PT_REGS_SP(regs) & ~(__u64)(WPERF_COPY_CHUNK - 1);
	c->size = 0;
	for (int k = 0; k < WPERF_COPY_CHUNKS; k++) {
		if (bpf_probe_read_user(c->bytes + k * WPERF_COPY_CHUNK, WPERF_COPY_CHUNK,
					(void *)(c->base + k * WPERF_COPY_CHUNK)))
			break;
		c->size += WPERF_COPY_CHUNK;
	}
	if (!c->size)
		return WPERF_NO_STACK;
	n = __sync_fetch_and_add(&recovered_taken, 1);
	if (n >= recovered_room) {
		count(WPERF_CNT_STACK_LOST);
		return WPERF_NO_STACK;
	}
	id = recovered_base + (__s32)n;
	if (bpf_map_update_elem(&stack_copies, &id, c, BPF_NOEXIST))
		return WPERF_NO_STACK;
	return id;
}

/*
 * The copy of task's user stack at its place (ip, sp, syscall, role): the one
 * taken there before, unless again (the thread's cache wants a fresh one), or
 * a new one.
 */
static __always_inline __s32 copied_stack(struct task_struct *task, __u32 tgid,
					  struct pt_regs *regs, __u64 syscall, __u32 role,
					  bool again)
{
	struct copy_place key = {.ip = PT_REGS_IP(regs),
				 .sp = PT_REGS_SP(regs),
				 .syscall = syscall,
				 .tgid = tgid,
				 .role = role};
	__s32 *found = again ? NULL : bpf_map_lookup_elem(&copy_places, &key);
	__s32 id;

	if (found)
		return *found;
	id = copy_user_stack(task, tgid, regs);
	if (id != WPERF_NO_STACK)
		bpf_map_update_elem(&copy_places, &key, &id, BPF_ANY);
	return id;
}

#endif /* WPERF_STACK_COPY_BPF_H */
