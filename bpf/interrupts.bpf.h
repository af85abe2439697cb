// SPDX-License-Identifier: GPL-2.0
/*
 * Hard and soft interrupts and the vectors (timers, IPIs, irq work): their
 * entries and exits as records, and the per-CPU depths that say which context
 * an event comes from (included by recorder.bpf.c).
 */
#ifndef WPERF_INTERRUPTS_BPF_H
#define WPERF_INTERRUPTS_BPF_H

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

#endif /* WPERF_INTERRUPTS_BPF_H */
