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
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>
#include "wperf_event.h"
#include "stack_caller.bpf.h"

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
const volatile bool filter_targets = false;  /* record only processes in targets */
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
struct irq_state {
	__s32 hardirq;
	__u32 hardirq_depth;
	__s32 softirq;
	__u32 softirq_depth;
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
 * flush_stage on it (bpf_recorder_flush), which it does every few tens of
 * milliseconds and once more after detaching. So records reach the reader out
 * of order across CPUs, and in order within one CPU but for those direct ones:
 * the reader sorts per CPU and merges.
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
 * Run by user space on each CPU (BPF_PROG_TEST_RUN with BPF_F_TEST_RUN_ON_CPU,
 * in an interrupt there): hands over what the CPU has staged. Returns 1 when a
 * program on that CPU is writing a record: try again.
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
	hand_over(st);
	return 0;
}

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
 */
#define REFRESH_EVERY 256
#define PLACES	      4 /* a power of two */

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
	__u64 ip = 0, sp = 0, syscall = 0;

	*kstack = WPERF_NO_STACK;
	*ustack = WPERF_NO_STACK;
	if (tgid == self_tgid || !stack_mode)
		return;
	if (!kthread) {
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

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
		if (slot && ++slot->uses % REFRESH_EVERY) {
			*kstack = slot->kstack;
			*ustack = slot->ustack;
			return;
		}
	}
	if (stack_mode & STACKS_KERNEL)
		*kstack = take_stack(ctx, 0);
	if ((stack_mode & STACKS_USER) && !kthread) {
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

/* What the CPU is running now: a thread, or a hard or soft interrupt (irq says which). */
static __always_inline __u8 current_context(__s32 *irq)
{
	struct irq_state *st = irq_state();

	*irq = 0;
	if (!st)
		return WPERF_CTX_THREAD;
	if (st->hardirq_depth > 0) {
		*irq = st->hardirq;
		return WPERF_CTX_HARDIRQ;
	}
	if (st->vector_depth > 0) {
		*irq = WPERF_IRQ_VECTOR;
		return WPERF_CTX_HARDIRQ;
	}
	if (st->softirq_depth > 0) {
		*irq = st->softirq;
		return WPERF_CTX_SOFTIRQ;
	}
	return WPERF_CTX_THREAD;
}

/* ---- scheduling ---- */

/*
 * The kernel never switches tasks inside an interrupt, so every depth is zero
 * here. Resetting them heals a depth that an exit we did not see left behind
 * (say, an interrupt that entered before the recording started).
 */
static __always_inline void irq_state_reset(void)
{
	struct irq_state *st = irq_state();

	if (st) {
		st->hardirq_depth = 0;
		st->softirq_depth = 0;
		st->vector_depth = 0;
	}
}

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

/* ---- thread lifetimes ---- */

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
	__u32 tgid = KREAD(btf, task, tgid);
	struct record_slot slot;
	struct wperf_event *e;

	if (!is_target(tgid))
		return 0;
	e = reserve(&slot, RECORD_SIZE(name), kind, KREAD(btf, task, pid), tgid);
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
	__u32 tgid = KREAD(btf, task, tgid);
	struct record_slot slot;
	struct wperf_event *e;

	if (!is_target(tgid))
		return 0;
	e = reserve(&slot, RECORD_SIZE(exit), WPERF_EV_EXIT, KREAD(btf, task, pid), tgid);
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

/* ---- interrupts ---- */

static __always_inline int emit_irq(__u8 kind, __s32 irq)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct record_slot slot;
	struct wperf_event *e;

	if (!is_target(id >> 32))
		return 0;
	e = reserve(&slot, RECORD_SIZE(irq), kind, (__u32)id, id >> 32);
	if (!e)
		return 0;
	e->irq.irq = irq;
	submit(&slot);
	return 0;
}

static __always_inline int on_irq_handler_entry(__u64 *ctx, const bool btf)
{
	struct irq_state *st = irq_state();
	__s32 irq = ctx[0];

	if (st) {
		st->hardirq = irq;
		st->hardirq_depth++;
	}
	return emit_irq(WPERF_EV_HARDIRQ_ENTRY, irq);
}

static __always_inline int on_irq_handler_exit(__u64 *ctx, const bool btf)
{
	struct irq_state *st = irq_state();

	if (st && st->hardirq_depth > 0)
		st->hardirq_depth--;
	return emit_irq(WPERF_EV_HARDIRQ_EXIT, ctx[0]);
}

static __always_inline int on_softirq_entry(__u64 *ctx, const bool btf)
{
	struct irq_state *st = irq_state();
	__s32 vec = ctx[0];

	if (st) {
		st->softirq = vec;
		st->softirq_depth++;
	}
	return emit_irq(WPERF_EV_SOFTIRQ_ENTRY, vec);
}

static __always_inline int on_softirq_exit(__u64 *ctx, const bool btf)
{
	struct irq_state *st = irq_state();

	if (st && st->softirq_depth > 0)
		st->softirq_depth--;
	return emit_irq(WPERF_EV_SOFTIRQ_EXIT, ctx[0]);
}

/* Timer callbacks and IPIs: interrupt context with no irq number. Nested, as a
 * timer may expire inside an interrupt that is already counted. */
static __always_inline int vector_enter(void)
{
	struct irq_state *st = irq_state();

	if (st)
		st->vector_depth++;
	return 0;
}

static __always_inline int vector_leave(void)
{
	struct irq_state *st = irq_state();

	if (st && st->vector_depth > 0)
		st->vector_depth--;
	return 0;
}

#define on_hrtimer_expire_entry(ctx, btf)	vector_enter()
#define on_hrtimer_expire_exit(ctx, btf)	vector_leave()
#define on_local_timer_entry(ctx, btf)		vector_enter()
#define on_local_timer_exit(ctx, btf)		vector_leave()
#define on_irq_work_entry(ctx, btf)		vector_enter()
#define on_irq_work_exit(ctx, btf)		vector_leave()
#define on_call_function_entry(ctx, btf)	vector_enter()
#define on_call_function_exit(ctx, btf)		vector_leave()
#define on_call_function_single_entry(ctx, btf) vector_enter()
#define on_call_function_single_exit(ctx, btf)	vector_leave()

/* ---- block devices ---- */

static __always_inline int emit_block(const bool btf, __u8 kind, struct request *rq, __u32 bytes)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct request_queue *q = KREAD(btf, rq, q);
	struct gendisk *disk = KREAD(btf, q, disk);
	struct record_slot slot;
	struct wperf_event *e;
	__s32 irq;

	e = reserve(&slot, RECORD_SIZE(block), kind, (__u32)id, id >> 32);
	if (!e)
		return 0;
	e->hdr.flags = current_context(&irq);
	e->block.irq = irq;
	e->block.sector = KREAD(btf, rq, __sector);
	e->block.dev = (KREAD(btf, disk, major) << 20) | KREAD(btf, disk, first_minor);
	e->block.bytes = bytes;
	e->block.op = KREAD(btf, rq, cmd_flags);
	e->block.rq = (__u64)(unsigned long)rq;
	e->block.jiffies = bpf_jiffies64();
	submit(&slot);
	return 0;
}

static __always_inline int on_block_rq_issue(__u64 *ctx, const bool btf)
{
	struct request *rq = (void *)ctx[0];

	return emit_block(btf, WPERF_EV_BLOCK_ISSUE, rq, KREAD(btf, rq, __data_len));
}

static __always_inline int on_block_rq_complete(__u64 *ctx, const bool btf)
{
	return emit_block(btf, WPERF_EV_BLOCK_COMPLETE, (void *)ctx[0], ctx[2]);
}

/* Where the kernel starts counting the request in the disk's io_ticks
 * (blk_account_io_start): before it is queued, let alone issued. */
static __always_inline int on_block_io_start(__u64 *ctx, const bool btf)
{
	struct request *rq = (void *)ctx[0];

	return emit_block(btf, WPERF_EV_BLOCK_START, rq, KREAD(btf, rq, __data_len));
}

/* Where it stops (blk_account_io_done): after its completion, and for a
 * request that asked for a cache flush, after the flush. */
static __always_inline int on_block_io_done(__u64 *ctx, const bool btf)
{
	struct request *rq = (void *)ctx[0];

	return emit_block(btf, WPERF_EV_BLOCK_DONE, rq, KREAD(btf, rq, __data_len));
}

/* ---- network interfaces ---- */

static __always_inline int emit_net(const bool btf, __u8 kind, struct net_device *dev, __u32 bytes)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct record_slot slot;
	struct wperf_event *e;
	__s32 irq;

	e = reserve(&slot, RECORD_SIZE(net), kind, (__u32)id, id >> 32);
	if (!e)
		return 0;
	e->hdr.flags = current_context(&irq);
	e->net.irq = irq;
	e->net.ifindex = KREAD(btf, dev, ifindex);
	e->net.bytes = bytes;
	submit(&slot);
	return 0;
}

static __always_inline int on_net_dev_xmit(__u64 *ctx, const bool btf)
{
	if ((int)ctx[1] != 0) /* not sent (NETDEV_TX_BUSY) */
		return 0;
	return emit_net(btf, WPERF_EV_NET_XMIT, (void *)ctx[2], ctx[3]);
}

static __always_inline int on_netif_receive_skb(__u64 *ctx, const bool btf)
{
	struct sk_buff *skb = (void *)ctx[0];

	return emit_net(btf, WPERF_EV_NET_RECV, KREAD(btf, skb, dev), KREAD(btf, skb, len));
}

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

/* ---- USDT annotations (include/wperf_annotate.h) ---- */

static __always_inline int emit_usdt(__u8 kind, __u64 lock)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct record_slot slot;
	struct wperf_event *e;

	if (!is_target(id >> 32))
		return 0;
	e = reserve(&slot, RECORD_SIZE(usdt), kind, (__u32)id, id >> 32);
	if (!e)
		return 0;
	e->usdt.lock = lock;
	submit(&slot);
	return 0;
}

SEC("usdt")
int BPF_USDT(usdt_before_spin, __u64 lock)
{
	return emit_usdt(WPERF_EV_SPIN_BEFORE, lock);
}

SEC("usdt")
int BPF_USDT(usdt_after_spin, __u64 lock)
{
	return emit_usdt(WPERF_EV_SPIN_AFTER, lock);
}

SEC("usdt")
int BPF_USDT(usdt_spin_release, __u64 lock)
{
	return emit_usdt(WPERF_EV_SPIN_RELEASE, lock);
}

SEC("usdt")
int BPF_USDT(usdt_false_wakeup)
{
	return emit_usdt(WPERF_EV_FALSE_WAKEUP, 0);
}

char LICENSE[] SEC("license") = "GPL";
