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
	if (st->hard.depth > 0) {
		*irq = st->hard.irq;
		return WPERF_CTX_HARDIRQ;
	}
	if (st->vector_depth > 0) {
		*irq = WPERF_IRQ_VECTOR;
		return WPERF_CTX_HARDIRQ;
	}
	if (st->soft.depth > 0) {
		*irq = st->soft.irq;
		return WPERF_CTX_SOFTIRQ;
	}
	return WPERF_CTX_THREAD;
}

/* A record made by the current thread, or by the interrupt it is in: its
 * context in hdr.flags, the interrupt in *irq (current_context). */
static __always_inline struct wperf_event *reserve_in_context(struct record_slot *slot, __u32 size,
							      __u8 kind, __s32 *irq)
{
	struct wperf_event *e = reserve_current(slot, size, kind, false);

	if (e)
		e->hdr.flags = current_context(irq);
	return e;
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
		st->hard.depth = 0;
		st->soft.depth = 0;
		st->vector_depth = 0;
	}
}

static __always_inline int emit_irq(__u8 kind, __s32 irq)
{
	struct record_slot slot;
	struct wperf_event *e = reserve_current(&slot, RECORD_SIZE(irq), kind, true);

	if (!e)
		return 0;
	e->irq.irq = irq;
	submit(&slot);
	return 0;
}

/* Hard irq (or softirq vector, when soft) n enters: the CPU serves it now,
 * one level deeper. */
static __always_inline int irq_enter(bool soft, __u8 kind, __s32 n)
{
	struct irq_state *st = irq_state();

	if (st) {
		struct irq_level *l = soft ? &st->soft : &st->hard;

		l->irq = n;
		l->depth++;
	}
	return emit_irq(kind, n);
}

static __always_inline int irq_leave(bool soft, __u8 kind, __s32 n)
{
	struct irq_state *st = irq_state();
	struct irq_level *l = st ? (soft ? &st->soft : &st->hard) : NULL;

	if (l && l->depth > 0)
		l->depth--;
	return emit_irq(kind, n);
}

static __always_inline int on_irq_handler_entry(__u64 *ctx, const bool btf)
{
	return irq_enter(false, WPERF_EV_HARDIRQ_ENTRY, ctx[0]);
}

static __always_inline int on_irq_handler_exit(__u64 *ctx, const bool btf)
{
	return irq_leave(false, WPERF_EV_HARDIRQ_EXIT, ctx[0]);
}

static __always_inline int on_softirq_entry(__u64 *ctx, const bool btf)
{
	return irq_enter(true, WPERF_EV_SOFTIRQ_ENTRY, ctx[0]);
}

static __always_inline int on_softirq_exit(__u64 *ctx, const bool btf)
{
	return irq_leave(true, WPERF_EV_SOFTIRQ_EXIT, ctx[0]);
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
