// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of `wperf-bench record`: every scheduling, wakeup, interrupt,
 * block and network event of the machine, plus the USDT annotations of
 * wperf_annotate.h, as struct wperf_event records in one ring buffer.
 *
 * Cost matters more than anything here: the sched_switch and sched_waking
 * programs run hundreds of thousands of times a second on a busy machine. So
 * records are sized to their kind, the reader is not woken per record (it polls,
 * and is woken only when the buffer fills up), and stacks are taken only where
 * the analysis needs them: from a thread as it blocks and from a waker.
 *
 * Here: the maps, the staging of records and the ring buffer, and the
 * programs' list. Each kind of event is in a part of its own, included
 * below: stacks.bpf.h (the stacks of a blocking thread and its waker, with
 * stack_caller.bpf.h and stack_copy.bpf.h),
 * interrupts.bpf.h, sched.bpf.h (switches, wakeups, thread lifetimes),
 * block.bpf.h, net.bpf.h and annotations.bpf.h (USDT).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>
#include "bpf/wperf_event.h"
#include "bpf/stack_caller.bpf.h"

#define PF_KTHREAD 0x00200000

/* The system call a thread is in, from its user registers: each architecture
 * names the field its own way (PT_REGS_IP and PT_REGS_SP do the same for the
 * instruction and stack pointers). */
#if defined(__TARGET_ARCH_x86)
#define USER_SYSCALL_NR(regs) ((regs)->orig_ax)
#elif defined(__TARGET_ARCH_arm64)
#define USER_SYSCALL_NR(regs) ((regs)->syscallno)
#else
#define USER_SYSCALL_NR(regs) 0 /* the stack cache then keys on ip and sp */
#endif

/*
 * A field of a kernel object passed as a tracepoint's argument: a plain load in
 * a tp_btf program, whose arguments the verifier knows the types of, and
 * bpf_probe_read_kernel in its raw_tp twin. On the storm a probe read costs
 * about 30 ns and a load about 1, and sched_switch reads four fields.
 */
#define KREAD(btf, ptr, field) ((btf) ? (ptr)->field : BPF_CORE_READ(ptr, field))

#define STACKS_KERNEL 0x1
#define STACKS_USER   0x2

/* Set by user space between open and load. */
const volatile __u32 self_tgid = 0; /* the recorder: never take its stacks */
const volatile __u8 stack_mode = STACKS_KERNEL | STACKS_USER;
const volatile __u64 wakeup_bytes = 1 << 20; /* wake the reader at this backlog */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20); /* resized by user space */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 127 * sizeof(__u64)); /* PERF_MAX_STACK_DEPTH */
	__uint(max_entries, 16384);		 /* resized by user space */
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WPERF_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Set by user space after load, before attach: a harness loads the programs
 * before it knows the processes to record (they do not exist yet). One load
 * and a branch per event where a constant would have been folded away.
 */
bool filter_targets = false; /* record only processes in targets */

/* Processes to record when filter_targets is set; children join their parent. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/*
 * The interrupt each CPU is serving, to name the waker of an interrupt's wakeup.
 * Device interrupts and softirqs have tracepoints; the local timer and IPIs run
 * no irq_handler_entry, so their wakeups (nanosleep, timers) are caught by the
 * hrtimer tracepoints and, on x86, the irq_vectors ones: vector_depth.
 */
struct irq_level {
	__s32 irq; /* the hard irq's number, or the softirq's vector */
	__u32 depth;
};

struct irq_state {
	struct irq_level hard, soft;
	__u32 vector_depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_state);
} irq_states SEC(".maps");

/* This CPU's interrupt state. */
static __always_inline struct irq_state *irq_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&irq_states, &zero);
}

#define RECORD_SIZE(member)                                                                        \
	(sizeof(struct wperf_event_hdr) + sizeof(((struct wperf_event *)0)->member))

static __always_inline void count_n(__u32 counter, __u32 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &counter);

	if (c)
		*c += n;
}

static __always_inline void count(__u32 counter)
{
	count_n(counter, 1);
}

static __always_inline bool is_target(__u32 tgid)
{
	return !filter_targets || bpf_map_lookup_elem(&targets, &tgid);
}

/*
 * Records are staged per CPU and handed to the ring buffer a batch at a time.
 * A reservation in the ring buffer takes its spin lock and touches cache lines
 * that every CPU and the reader share; on a context-switch storm that was the
 * largest part of a record's cost. Appending to this CPU's stage touches only
 * this CPU's memory, and the lock is taken once per batch.
 *
 * A program interrupted on its CPU (softirq and fork programs run with
 * interrupts on) may have the stage half written when an interrupt's program
 * runs: that one finds the stage busy and reserves in the ring buffer directly.
 * A CPU that goes idle keeps its last records staged until user space runs
 * flush_stage on it (bpf_recorder_flush; a writer too, see there), which it
 * does every few tens of milliseconds and once more after detaching. So
 * records reach the reader out of order across CPUs, and in order within one
 * CPU but for those direct ones: the reader sorts per CPU and merges.
 */
#define STAGE_BYTES	   4096
#define RECORD_SPACE(size) (((size) + WPERF_RECORD_ALIGN - 1) & ~(WPERF_RECORD_ALIGN - 1))

struct stage {
	__u32 len;     /* bytes staged in data */
	__u32 records; /* records staged: what a failed hand-over loses */
	__u32 busy;    /* a program on this CPU is writing a record here */
	__u32 pad;
	__u8 data[STAGE_BYTES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stage);
} stages SEC(".maps");

/* Where a record being written lives: this CPU's stage, or the ring buffer. */
struct record_slot {
	struct wperf_event *e;
	struct stage *st; /* NULL: reserved in the ring buffer */
};

/* Wake the reader only when a backlog has built up: a wakeup per record costs
 * more than the record itself. */
static __always_inline __u64 wakeup_flag(void)
{
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* Hands the staged batch to the ring buffer; a full ring buffer loses it whole. */
static __always_inline void hand_over(struct stage *st)
{
	__u64 len = st->len;

	/* len never exceeds STAGE_BYTES: the test is for the verifier, and the
	 * barrier keeps the compiler from folding it into one it cannot follow. */
	barrier_var(len);
	if (len > 0 && len <= STAGE_BYTES &&
	    bpf_ringbuf_output(&events, st->data, len, wakeup_flag()))
		count_n(WPERF_CNT_LOST, st->records);
	st->len = 0;
	st->records = 0;
}

static __always_inline struct wperf_event *reserve(struct record_slot *slot, __u32 size, __u8 kind,
						   __u32 tid, __u32 tgid)
{
	__u32 zero = 0, len;
	struct stage *st = bpf_map_lookup_elem(&stages, &zero);
	struct wperf_event *e = NULL;

	slot->st = NULL;
	if (st && !st->busy) {
		/* busy before len: an interrupt's program in between sees it set, or
		 * finishes its record before this one reads len. */
		st->busy = 1;
		barrier();
		len = st->len;
		if (len <= STAGE_BYTES - sizeof(struct wperf_event)) {
			e = (void *)st->data + len;
			slot->st = st;
		} else {
			st->busy = 0; /* cannot happen: submit hands a full stage over */
		}
	}
	if (!e)
		e = bpf_ringbuf_reserve(&events, size, 0);
	if (!e) {
		count(WPERF_CNT_LOST);
		return NULL;
	}
	slot->e = e;
	e->hdr.size = size;
	e->hdr.kind = kind;
	e->hdr.flags = 0;
	e->hdr.cpu = bpf_get_smp_processor_id();
	e->hdr.ts = bpf_ktime_get_ns();
	e->hdr.tid = tid;
	e->hdr.tgid = tgid;
	return e;
}

/* A record made by the current thread; NULL when there is no room, or when
 * only_targets and its process is not a target. */
static __always_inline struct wperf_event *reserve_current(struct record_slot *slot, __u32 size,
							   __u8 kind, bool only_targets)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (only_targets && !is_target(id >> 32))
		return NULL;
	return reserve(slot, size, kind, (__u32)id, id >> 32);
}

static __always_inline void submit(struct record_slot *slot)
{
	struct stage *st = slot->st;

	if (!st) {
		bpf_ringbuf_submit(slot->e, wakeup_flag());
		return;
	}
	st->len += RECORD_SPACE(slot->e->hdr.size);
	st->records++;
	if (st->len > STAGE_BYTES - sizeof(struct wperf_event))
		hand_over(st);
	barrier();
	st->busy = 0;
}

/*
 * Run by user space on each CPU (BPF_PROG_TEST_RUN with BPF_F_TEST_RUN_ON_CPU):
 * hands over what the CPU has staged. Returns 1 when a program on that CPU is
 * writing a record: try again. On another CPU the kernel runs it in an
 * interrupt; on the CPU user space runs on it runs it in place, with
 * interrupts on. So it claims the stage as a writer does: an interrupt's
 * program that came during the hand-over, finding it free, would append a
 * record that the hand-over then drops by resetting len, uncounted (a block
 * completion's two records were lost so, and the disk looked busy to the end).
 */
SEC("raw_tp")
int flush_stage(void *ctx)
{
	__u32 zero = 0;
	struct stage *st = bpf_map_lookup_elem(&stages, &zero);

	if (!st)
		return 0;
	if (st->busy)
		return 1;
	st->busy = 1;
	barrier();
	hand_over(st);
	barrier();
	st->busy = 0;
	return 0;
}

#include "bpf/stack_copy.bpf.h"
#include "bpf/stacks.bpf.h"
#include "bpf/interrupts.bpf.h"
#include "bpf/sched.bpf.h"
#include "bpf/block.bpf.h"
#include "bpf/net.bpf.h"

/*
 * Each tracepoint gets a tp_btf program and a raw_tp twin with the same body;
 * user space loads the tp_btf one where the kernel's BTF describes the
 * tracepoint and the raw_tp one elsewhere. The bodies read fields with KREAD,
 * told which of the two they are compiled for.
 */
#define TRACEPOINT(tp)                                                                             \
	SEC("tp_btf/" #tp) int tp_btf_##tp(__u64 *ctx)                                             \
	{                                                                                          \
		return on_##tp(ctx, true);                                                         \
	}                                                                                          \
	SEC("raw_tp/" #tp) int raw_tp_##tp(__u64 *ctx)                                             \
	{                                                                                          \
		return on_##tp(ctx, false);                                                        \
	}

/* Exits come before entries: attached in this order, no entry is seen without
 * its exit while the recording starts. */
TRACEPOINT(irq_handler_exit)
TRACEPOINT(irq_handler_entry)
TRACEPOINT(softirq_exit)
TRACEPOINT(softirq_entry)
TRACEPOINT(hrtimer_expire_exit)
TRACEPOINT(hrtimer_expire_entry)
TRACEPOINT(local_timer_exit)
TRACEPOINT(local_timer_entry)
TRACEPOINT(irq_work_exit)
TRACEPOINT(irq_work_entry)
TRACEPOINT(call_function_exit)
TRACEPOINT(call_function_entry)
TRACEPOINT(call_function_single_exit)
TRACEPOINT(call_function_single_entry)
TRACEPOINT(sched_switch)
TRACEPOINT(sched_waking)
TRACEPOINT(sched_wakeup_new)
TRACEPOINT(sched_process_fork)
TRACEPOINT(sched_process_exec)
TRACEPOINT(sched_process_exit)
TRACEPOINT(task_rename)
TRACEPOINT(block_rq_issue)
TRACEPOINT(block_rq_complete)
TRACEPOINT(block_io_start)
TRACEPOINT(block_io_done)
TRACEPOINT(net_dev_xmit)
TRACEPOINT(netif_receive_skb)

#include "bpf/annotations.bpf.h"

char LICENSE[] SEC("license") = "GPL";
