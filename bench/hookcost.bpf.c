// SPDX-License-Identifier: GPL-2.0
/*
 * What each operation of a recorder program costs: variants of a
 * tp_btf/sched_switch program, each doing one thing more than the empty one.
 * bench/hookcost.c attaches them one at a time, runs a context-switch storm and
 * reads the kernel's run time statistics of each (kernel.bpf_stats_enabled).
 *
 * Every variant but empty adds what it computed into its slot of the per-CPU
 * array sink, so that the compiler cannot drop the work; store does that alone,
 * and is the part of every other variant's cost that is not its operation.
 * ringbuf_record and staged_record fill their records with the four loads of
 * direct_loads: their cost beyond direct_loads is the record's.
 *
 * Keep the list in step with the variants table of bench/hookcost.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

enum variant {
	V_STORE,
	V_CLOCK,
	V_TWO_CLOCKS,
	V_PROBE_READS,
	V_DIRECT_LOADS,
	V_PID_TGID,
	V_CURRENT_TASK,
	V_PT_REGS,
	V_TASK_STORAGE,
	V_RINGBUF_RECORD,
	V_STAGED_RECORD,
	V_STACK_KERNEL,
	V_MAX
};

/* 48 bytes, the size of a switch record of the recorder. */
struct hc_record {
	__u64 ts;
	__u32 prev_pid, prev_tgid;
	__u32 next_pid, next_tgid;
	__u32 cpu, flags;
	__u64 pad[2];
};

#define STAGE_BYTES 4096

struct stage {
	__u32 len;     /* bytes staged in data */
	__u32 records; /* records staged: what a failed hand-over loses */
	__u8 data[STAGE_BYTES];
};

/* Records that found the ring buffer full (read by user space: a failed
 * reservation costs less than a record, so the figure would be too low). */
__u64 ringbuf_lost = 0;
__u64 staged_lost = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, V_MAX);
	__type(key, __u32);
	__type(value, __u64);
} sink SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stage);
} stages SEC(".maps");

struct counter {
	__u64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct counter);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 127 * sizeof(__u64)); /* PERF_MAX_STACK_DEPTH */
	__uint(max_entries, 1024);
} stacks SEC(".maps");

/* Adds v to this CPU's slot of the variant: a lookup the verifier inlines, and
 * a read-modify-write. */
static __always_inline void put(__u32 variant, __u64 v)
{
	__u64 *slot = bpf_map_lookup_elem(&sink, &variant);

	if (slot)
		*slot += v;
}

static __always_inline void fill(struct hc_record *r, struct task_struct *prev,
				 struct task_struct *next)
{
	r->ts = 0;
	r->prev_pid = prev->pid;
	r->prev_tgid = prev->tgid;
	r->next_pid = next->pid;
	r->next_tgid = next->tgid;
	r->cpu = 0;
	r->flags = 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_empty)
{
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_store)
{
	put(V_STORE, 1);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_clock)
{
	put(V_CLOCK, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_two_clocks)
{
	__u64 a = bpf_ktime_get_ns();
	__u64 b = bpf_ktime_get_ns();

	put(V_TWO_CLOCKS, b - a);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_probe_reads, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 a = BPF_CORE_READ(prev, pid), b = BPF_CORE_READ(prev, tgid);
	__u32 c = BPF_CORE_READ(next, pid), d = BPF_CORE_READ(next, tgid);

	put(V_PROBE_READS, a + b + c + d);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_direct_loads, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 a = prev->pid, b = prev->tgid, c = next->pid, d = next->tgid;

	put(V_DIRECT_LOADS, a + b + c + d);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_pid_tgid)
{
	put(V_PID_TGID, bpf_get_current_pid_tgid());
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_current_task)
{
	put(V_CURRENT_TASK, bpf_get_current_task_btf()->pid);
	return 0;
}

/* The user registers of the current thread, as the recorder's stack cache
 * reads them (x86: ip, sp and the system call). */
SEC("tp_btf/sched_switch")
int BPF_PROG(hc_pt_regs)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	put(V_PT_REGS, regs->ip + regs->sp + regs->orig_ax);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_task_storage)
{
	struct counter *c = bpf_task_storage_get(&counters, bpf_get_current_task_btf(), NULL,
						 BPF_LOCAL_STORAGE_GET_F_CREATE);

	put(V_TASK_STORAGE, c ? ++c->n : 0);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hc_ringbuf_record, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct hc_record *r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);

	if (!r) {
		__sync_fetch_and_add(&ringbuf_lost, 1);
		put(V_RINGBUF_RECORD, 0);
		return 0;
	}
	fill(r, prev, next);
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	put(V_RINGBUF_RECORD, 1);
	return 0;
}

/* Hands the staged batch to the ring buffer, as recorder.bpf.c's hand_over. */
static __always_inline void hand_over(struct stage *st)
{
	__u64 len = st->len;

	/* len never exceeds STAGE_BYTES: the test is for the verifier, and the
	 * barrier keeps the compiler from folding it into one it cannot follow. */
	barrier_var(len);
	if (len > 0 && len <= STAGE_BYTES &&
	    bpf_ringbuf_output(&records, st->data, len, BPF_RB_NO_WAKEUP))
		__sync_fetch_and_add(&staged_lost, st->records);
	st->len = 0;
	st->records = 0;
}

/* A record appended to this CPU's stage; the stage goes to the ring buffer in
 * one copy when the next record would not fit. No other program uses the
 * stage, and a program does not interrupt itself on one CPU: no busy flag. */
SEC("tp_btf/sched_switch")
int BPF_PROG(hc_staged_record, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 zero = 0, len;
	struct stage *st = bpf_map_lookup_elem(&stages, &zero);

	if (!st)
		return 0;
	len = st->len;
	if (len <= STAGE_BYTES - sizeof(struct hc_record)) {
		fill((void *)st->data + len, prev, next);
		st->len = len + sizeof(struct hc_record);
		st->records++;
	}
	if (st->len > STAGE_BYTES - sizeof(struct hc_record))
		hand_over(st);
	put(V_STAGED_RECORD, st->len);
	return 0;
}

/* The kernel stack, walked on every run (the recorder caches stacks per place). */
SEC("tp_btf/sched_switch")
int BPF_PROG(hc_stack_kernel)
{
	put(V_STACK_KERNEL, bpf_get_stackid(ctx, &stacks, 0));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
