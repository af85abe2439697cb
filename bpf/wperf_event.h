/* SPDX-License-Identifier: MIT */
/*
 * The event records of wperf-bench, shared by the BPF recorder (bpf/recorder.bpf.c)
 * and user space (harness/ writes them, core/ reads them back from a trace).
 *
 * Every record starts with its size and kind, so a reader can skip kinds it does not
 * know. Kinds and flag values are part of the trace format: never renumber them, only
 * add new ones at the end.
 *
 * In the ring buffer a record takes sizeof(struct wperf_event_hdr) plus the size of
 * its payload, and one ring-buffer sample holds one record or a batch of them:
 * each starts at a multiple of WPERF_RECORD_ALIGN bytes from the sample's start.
 * In memory (core/) every record is a full struct wperf_event.
 */
#ifndef WPERF_EVENT_H
#define WPERF_EVENT_H

#ifdef __bpf__
/* vmlinux.h provides the __u8 .. __u64 types on the BPF side. */
#else
#include <linux/types.h>
#endif

#define WPERF_COMM_LEN 16
#define WPERF_RECORD_ALIGN 8 /* records of a batch start at multiples of this */
#define WPERF_NO_STACK (-1) /* stack id when no stack was taken */
#define WPERF_IRQ_VECTOR (-1) /* hard interrupt with no irq number: local timer, IPI */

enum wperf_event_kind {
	WPERF_EV_SWITCH = 1, /* sched_switch: tid leaves the CPU, sw.next_tid enters */
	WPERF_EV_WAKEUP = 2, /* sched_waking: tid is woken by the waker in wake */
	WPERF_EV_WAKEUP_NEW = 3, /* sched_wakeup_new: a new thread becomes runnable */
	WPERF_EV_FORK = 4, /* tid created fork.child_tid (a thread or a process) */
	WPERF_EV_EXEC = 5, /* tid executed a program; name.comm is its new name */
	WPERF_EV_EXIT = 6, /* tid exited; exit: its schedstat then (flags WPERF_EXIT_SCHEDSTAT) */
	WPERF_EV_RENAME = 7, /* tid changed its name to name.comm */
	WPERF_EV_HARDIRQ_ENTRY = 8, /* irq.irq starts on cpu, interrupting tid */
	WPERF_EV_HARDIRQ_EXIT = 9,
	WPERF_EV_SOFTIRQ_ENTRY = 10, /* irq.irq is the softirq vector (enum wperf_softirq) */
	WPERF_EV_SOFTIRQ_EXIT = 11,
	WPERF_EV_BLOCK_ISSUE = 12, /* a block request goes to the device; tid issued it */
	WPERF_EV_BLOCK_COMPLETE = 13, /* the device completed block.bytes of a request */
	WPERF_EV_NET_XMIT = 14, /* net.bytes sent on net.ifindex by tid */
	WPERF_EV_NET_RECV = 15, /* net.bytes received on net.ifindex */
	WPERF_EV_SPIN_BEFORE = 16, /* USDT wperf:before_spin(lock) */
	WPERF_EV_SPIN_AFTER = 17, /* USDT wperf:after_spin(lock) */
	WPERF_EV_SPIN_RELEASE = 18, /* USDT wperf:spin_release(lock) */
	WPERF_EV_FALSE_WAKEUP = 19, /* USDT wperf:false_wakeup() */
	WPERF_EV_BLOCK_START = 20, /* a block request is made (block_io_start, Linux 6.5+): the
				      disk counts it in flight from now; tid made it */
	WPERF_EV_BLOCK_DONE = 21, /* the request ends (block_io_done, Linux 6.5+): the disk
				     counts it in flight up to now */
	WPERF_EV_KIND_MAX /* one past the last kind; grows as kinds are added */
};

/* flags of WPERF_EV_SWITCH */
#define WPERF_SWITCH_PREEMPTED 0x1 /* prev stays runnable (it did not block) */

/* flags of WPERF_EV_EXIT */
#define WPERF_EXIT_SCHEDSTAT 0x1 /* exit holds the thread's schedstat (trace format 1.1) */

/*
 * The context an event ran in: flags of WAKEUP, WAKEUP_NEW, BLOCK_*, NET_*.
 * For a wakeup this says who the waker is: the thread in waker_tid, or the
 * interrupt in irq (never the thread that the interrupt happened to interrupt).
 */
enum wperf_context {
	WPERF_CTX_THREAD = 0,
	WPERF_CTX_HARDIRQ = 1, /* irq: irq number, or WPERF_IRQ_VECTOR */
	WPERF_CTX_SOFTIRQ = 2, /* irq: softirq vector */
};

/* Linux's softirq vectors (include/linux/interrupt.h), in its order. */
enum wperf_softirq {
	WPERF_SOFTIRQ_HI = 0,
	WPERF_SOFTIRQ_TIMER = 1,
	WPERF_SOFTIRQ_NET_TX = 2,
	WPERF_SOFTIRQ_NET_RX = 3,
	WPERF_SOFTIRQ_BLOCK = 4,
	WPERF_SOFTIRQ_IRQ_POLL = 5,
	WPERF_SOFTIRQ_TASKLET = 6,
	WPERF_SOFTIRQ_SCHED = 7,
	WPERF_SOFTIRQ_HRTIMER = 8,
	WPERF_SOFTIRQ_RCU = 9,
};

struct wperf_event_hdr {
	__u16 size; /* bytes of the whole record, this header included */
	__u8 kind; /* enum wperf_event_kind */
	__u8 flags; /* per kind, see above */
	__u32 cpu;
	__u64 ts; /* CLOCK_MONOTONIC, nanoseconds (bpf_ktime_get_ns) */
	__u32 tid; /* the thread the event is about (see each kind) */
	__u32 tgid;
};

struct wperf_switch {
	__u32 next_tid;
	__u32 next_tgid;
	__u32 prev_state; /* the kernel's task state of prev (0: running) */
	__s32 kstack; /* prev's stacks as it blocks, or WPERF_NO_STACK */
	__s32 ustack;
};

struct wperf_wakeup {
	__u32 waker_tid; /* valid when flags == WPERF_CTX_THREAD */
	__u32 waker_tgid;
	__s32 irq; /* flags HARDIRQ: irq number or WPERF_IRQ_VECTOR; SOFTIRQ: vector */
	__u32 target_cpu;
	__s32 kstack; /* the waker's stacks, or WPERF_NO_STACK */
	__s32 ustack;
};

struct wperf_fork {
	__u32 child_tid;
	__u32 child_tgid;
	char comm[WPERF_COMM_LEN];
};

struct wperf_name {
	char comm[WPERF_COMM_LEN];
};

struct wperf_irq {
	__s32 irq; /* hard irq number or softirq vector */
};

/*
 * The BLOCK_* events of one request carry the same rq: the kernel's struct
 * request, whose address is the only key that pairs them. The sector does not:
 * a cache flush is issued at sector ~0, and the request that asked for it
 * (fsync's empty write with REQ_PREFLUSH) is made (START) and completes later
 * with 0 bytes at another sector, never issued itself. Request structs are
 * reused (one per tag), so an rq names one request from its start to its end
 * only. jiffies: the kernel's, which a disk's io_ticks counts.
 */
struct wperf_block {
	__u64 sector;
	__u32 dev; /* the whole disk, kernel encoding: major << 20 | minor */
	__u32 bytes;
	__u32 op; /* REQ_OP_* in the low 8 bits, as the kernel's cmd_flags */
	__s32 irq; /* for flags != WPERF_CTX_THREAD: the interrupt completing it */
	__u64 rq; /* the request's address, an opaque id (0 before format 1.2, as jiffies) */
	__u64 jiffies; /* the kernel's jiffies then */
};

struct wperf_net {
	__u32 ifindex;
	__u32 bytes;
	__s32 irq; /* for flags != WPERF_CTX_THREAD */
};

/*
 * The exiting thread's /proc/PID/task/TID/schedstat, read as it exits (it is
 * reaped before user space could read it): its running time as the kernel
 * counts it (se.sum_exec_runtime), its time waiting on a run queue
 * (sched_info.run_delay) and the number of times it got a CPU
 * (sched_info.pcount).
 */
struct wperf_exit {
	__u64 run_ns;
	__u64 wait_ns;
	__u64 slices;
};

struct wperf_usdt {
	__u64 lock; /* the lock's address, as the application passed it */
};

struct wperf_event {
	struct wperf_event_hdr hdr;
	union {
		struct wperf_switch sw;
		struct wperf_wakeup wake;
		struct wperf_fork fork;
		struct wperf_name name;
		struct wperf_irq irq;
		struct wperf_block block;
		struct wperf_net net;
		struct wperf_usdt usdt;
		struct wperf_exit exit;
	};
};

/* Per-CPU counters the recorder keeps in its "counters" map. */
enum wperf_counter {
	WPERF_CNT_LOST = 0, /* records dropped: the ring buffer was full */
	WPERF_CNT_STACK_LOST = 1, /* stacks not stored: the stack map was full or collided */
	WPERF_CNT_STACK_FAULT = 2, /* stacks the kernel could not walk */
	WPERF_CNT_MAX
};

/*
 * A user stack the recorder recovered past a library built without frame
 * pointers (stack_caller.bpf.h), as its "recovered_stacks" map holds it under
 * ids from the stack map's size up. Unused frames are 0.
 */
#define WPERF_RECOVER_DEPTH 32

struct wperf_recovered_stack {
	__u32 nr;
	__u32 pad;
	__u64 ips[WPERF_RECOVER_DEPTH];
};

/*
 * A copy of the top of a user stack and of the user registers there, taken in
 * place of a frame-pointer walk under `record --stacks dwarf`
 * (bpf/stack_copy.bpf.h), kept in the recorder's "stack_copies" map under a
 * stack id from the stack map's size up. The analysis unwinds it offline with
 * the binaries' call frame information (core/analysis/symbolize_unwind.c), as
 * `perf --call-graph dwarf` does.
 *
 * regs are in the architecture's DWARF numbering: x86-64 0-16 (rax, rdx, rcx,
 * rbx, rsi, rdi, rbp, rsp, r8-r15, rip), arm64 0-31 (x0-x30, sp). bytes hold
 * size bytes of memory from address base, a 1 KiB boundary at or below the
 * stack pointer.
 */
#define WPERF_COPY_REGS	  32
#define WPERF_COPY_CHUNK  1024
#define WPERF_COPY_CHUNKS 8
#define WPERF_COPY_BYTES  (WPERF_COPY_CHUNK * WPERF_COPY_CHUNKS)

struct wperf_stack_copy_raw {
	__u32 tgid, tid;
	__u32 nregs; /* registers set in regs */
	__u32 size;  /* bytes copied: whole chunks, up to WPERF_COPY_BYTES */
	__u64 ip;
	__u64 base;
	__u64 regs[WPERF_COPY_REGS];
	__u8 bytes[WPERF_COPY_BYTES];
};

#endif /* WPERF_EVENT_H */
