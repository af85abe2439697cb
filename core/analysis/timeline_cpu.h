/* SPDX-License-Identifier: MIT */
/*
 * The timeline builder's CPUs: what each runs and the interrupt it serves,
 * and the tallies of their switch chains for the checks (timeline_tally.c).
 */
#ifndef WPERF_TIMELINE_CPU_H
#define WPERF_TIMELINE_CPU_H

#include "core/analysis/timeline_internal.h"

/* Per CPU: the interrupt being timed, and the devices its latest I/O events
 * named (to tell which device an interrupt's wakeup came from). */
struct tl_cpu {
	uint32_t irq_depth;  /* nested hard and soft interrupts */
	uint32_t irq_thread; /* the thread they interrupted, or TL_NONE */
	uint64_t irq_start;
	uint32_t blk_dev; /* device of the latest BLOCK_COMPLETE, or TL_NONE */
	int32_t blk_irq;
	uint8_t blk_ctx;
	uint32_t net_rx, net_tx; /* devices of the latest NET_RECV and NET_XMIT */
	uint64_t rx_bytes;	 /* received on net_rx since a receiver was woken */
	/* Loopback is no device: the latest packet received here came over it
	 * (rx_loopback), sent by lo_sender (a thread, or TL_NONE). */
	uint8_t rx_loopback;
	uint32_t lo_sender;
	/* The switch chain (wperf_cpu_tally): the thread the last switch put on the
	 * CPU (when have_cur), and when; its idle time so far, and the interrupt
	 * being timed came while it was idle (irq_idle). */
	uint8_t have_cur, irq_idle;
	uint32_t cur_tid, cur_tgid;
	uint64_t cur_since, cur_seen; /* put there, and last seen there (an event it made) */
	uint64_t idle_irq_ns;	      /* interrupts served while idle: out of tally.idle_ns */
	struct wperf_cpu_tally tally;
};

/* The CPU state of cpu, or NULL for an absurd cpu number (at or above
 * TL_MAX_CPUS: its per-CPU work is skipped) or when out of memory (b->oom). */
#define TL_MAX_CPUS 65536
static inline struct tl_cpu *tl_cpu(struct tl_builder *b, uint32_t cpu)
{
	size_t n = TL_COUNT(b->cpus, struct tl_cpu);

	if (cpu >= TL_MAX_CPUS)
		return NULL;
	for (; n <= cpu; n++) {
		struct tl_cpu *c = wperf_buf_push(&b->cpus, sizeof(*c));

		if (!c) {
			b->oom = 1;
			return NULL;
		}
		c->irq_thread = c->blk_dev = c->net_rx = c->net_tx = c->lo_sender = TL_NONE;
	}
	return &TL_AT(b->cpus, struct tl_cpu, cpu);
}

/* Does a switch from prev_tid on c break the CPU's chain? */
static inline int tl_chain_broken(const struct tl_cpu *c, uint32_t prev_tid)
{
	return c->have_cur && c->cur_tid != prev_tid;
}
/* A switch on c (its chain mended first): counts it, adds the idle time it
 * ends, and makes its next the CPU's current thread. */
void tl_tally_switch(struct tl_builder *b, struct tl_cpu *c, const struct wperf_event *ev);
/* A break in c's chain mended: tid (of tgid) came on the CPU at t, unrecorded,
 * after the thread the chain had there (idle time, if it was the idle task);
 * an event at shown showed it. */
void tl_tally_break(struct tl_builder *b, struct tl_cpu *c, uint32_t tid, uint32_t tgid, uint64_t t,
		    uint64_t shown);
/* An interrupt served from s to e on c, which entered while c was idle. */
void tl_tally_idle_irq(struct tl_builder *b, struct tl_cpu *c, uint64_t s, uint64_t e);
/* A NET_* event, whoever sent it. */
void tl_tally_net(struct tl_builder *b, const struct wperf_event *ev);
/* The reading of thread's EXIT event, if it has one. */
void tl_tally_exit(struct tl_builder *b, uint32_t thread, const struct wperf_event *ev);
/* At the window's end: the idle time of the CPUs idle then. */
void tl_tally_finish(struct tl_builder *b);
/* Hands the tallies to tl; 0 or -ENOMEM. */
int tl_tally_assemble(struct tl_builder *b, struct wperf_timeline *tl);
void tl_tally_release(struct tl_builder *b);

#endif /* WPERF_TIMELINE_CPU_H */
