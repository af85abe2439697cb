/* SPDX-License-Identifier: MIT */
/*
 * The timeline builder's interrupts as wakers (timeline_irq.c): the sources
 * that are no device, and the votes that tie an irq number to one.
 */
#ifndef WPERF_TIMELINE_IRQ_H
#define WPERF_TIMELINE_IRQ_H

#include "core/analysis/timeline_internal.h"

/* An interrupt that woke a thread and is not (yet) known to be a device. */
struct tl_source {
	uint8_t ctx; /* enum wperf_context, or 3 for the fixed ones below */
	int32_t irq;
	uint8_t used;
	uint32_t entity; /* final index */
};

/* The fixed sources, always present at these indexes. */
enum { TL_SRC_TIMER = 0, TL_SRC_IDLE = 1, TL_SRC_UNKNOWN = 2, TL_NFIXED = 3 };

/* Majority vote of the devices an irq number completed I/O for. */
struct tl_vote {
	uint32_t device, count;
};

int tl_sources_init(struct tl_builder *b);
void tl_sources_release(struct tl_builder *b);
/* A device's I/O completed in hard irq number irq. */
void tl_vote(struct tl_builder *b, int32_t irq, uint32_t device);
/* The provisional waker of a wakeup from an interrupt, or from the idle task
 * (marks its source used). */
uint32_t tl_interrupt_waker(struct tl_builder *b, const struct wperf_event *ev);
/* After tl_devices_entities: the used sources that are no device become
 * interrupt entities, appended from first on; returns the next free index. */
int64_t tl_sources_entities(struct tl_builder *b, uint32_t first, struct wperf_buf *entities);
/* After tl_sources_entities: the entity of the timer interrupts, or
 * WPERF_NO_ENTITY when no timer woke anybody. */
uint32_t tl_timer_entity(const struct tl_builder *b);
/* The final entity of a provisional waker. */
uint32_t tl_final_waker(const struct tl_builder *b, uint32_t pv);

#endif /* WPERF_TIMELINE_IRQ_H */
