/* SPDX-License-Identifier: MIT */
/*
 * Interrupts in the timeline: who an interrupt's wakeup came from.
 *
 * It is put on a device when the interrupt can be tied to one: the BLOCK
 * softirq to the disk whose completion the CPU saw last, a hard irq number to
 * the disk (or NIC) whose I/O completes in it, the NET softirqs to the NIC of
 * the CPU's latest packet. Otherwise the wakeup names a source, resolved once
 * every event is read: a hard irq number that completed I/O somewhere is that
 * device, else the device whose interrupts the recorder listed it in (META
 * disk.*.irqs, net.*.irqs); the BLOCK and NET softirqs fall back on the
 * busiest disk or NIC;
 * anything else is an interrupt entity ("timer", "softirq:RCU", "irq:N"):
 * never a bottleneck, never waiting.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/timeline_cpu.h"
#include "core/analysis/timeline_devices.h"
#include "core/analysis/timeline_internal.h"
#include "core/analysis/timeline_irq.h"
#include "core/trace/event_kinds.h"
#include "core/trace/meta.h"

static struct tl_source *src(const struct tl_builder *b, uint32_t s)
{
	return &TL_AT(b->sources, struct tl_source, s);
}

int tl_sources_init(struct tl_builder *b)
{
	for (int i = 0; i < TL_NFIXED; i++) {
		struct tl_source *s = wperf_buf_push(&b->sources, sizeof(*s));

		if (!s)
			return -ENOMEM;
		s->ctx = 3;
		s->irq = i;
	}
	return 0;
}

void tl_sources_release(struct tl_builder *b)
{
	wperf_idmap_release(&b->source_of);
	wperf_buf_release(&b->sources);
	wperf_idmap_release(&b->vote_of);
	wperf_buf_release(&b->votes);
}

/* Hard irq numbers that complete I/O: a majority vote of their devices. */
void tl_vote(struct tl_builder *b, int32_t irq, uint32_t device)
{
	int added;
	int64_t k = wperf_idmap_get(&b->vote_of, (uint32_t)irq, &added);
	struct tl_vote *v;

	if (k < 0 || (added && !wperf_buf_push(&b->votes, sizeof(*v)))) {
		b->oom = 1;
		return;
	}
	v = &TL_AT(b->votes, struct tl_vote, k);
	if (v->count == 0)
		v->device = device;
	if (v->device == device)
		v->count++;
	else
		v->count--;
}

/* The source for an interrupt with no device to tie it to. */
static uint32_t source(struct tl_builder *b, uint8_t ctx, int32_t irq)
{
	/* hard irq numbers and softirq vectors share one map: bit 31 tells them apart */
	uint32_t key = (ctx == WPERF_CTX_SOFTIRQ ? 0x80000000u : 0) | ((uint32_t)irq & 0x7fffffffu);
	int added;
	int64_t k = wperf_idmap_get(&b->source_of, key, &added);
	struct tl_source *s;

	if (k < 0 || k + TL_NFIXED >= PV_MAX ||
	    (added && !(s = wperf_buf_push(&b->sources, sizeof(*s))))) {
		b->oom = 1;
		return WPERF_NO_ENTITY;
	}
	s = src(b, (uint32_t)k + TL_NFIXED);
	if (added) {
		s->ctx = ctx;
		s->irq = irq;
	}
	s->used = 1;
	return PV_SOURCE | ((uint32_t)k + TL_NFIXED);
}

static uint32_t fixed(struct tl_builder *b, uint32_t s)
{
	src(b, s)->used = 1;
	return PV_SOURCE | s;
}

uint32_t tl_interrupt_waker(struct tl_builder *b, const struct wperf_event *ev)
{
	const struct tl_cpu *c = tl_cpu(b, ev->hdr.cpu);
	int32_t irq = ev->wake.irq;

	if (ev->hdr.flags == WPERF_CTX_HARDIRQ) {
		if (irq < 0)
			return fixed(b, TL_SRC_TIMER); /* local timer, hrtimer callbacks, IPIs */
		if (c && c->blk_dev != TL_NONE && c->blk_ctx == WPERF_CTX_HARDIRQ &&
		    c->blk_irq == irq)
			return PV_DEVICE | c->blk_dev;
		return source(b, WPERF_CTX_HARDIRQ, irq); /* tied to a device at the end */
	}
	if (ev->hdr.flags == WPERF_CTX_THREAD)
		return fixed(b, TL_SRC_IDLE); /* the idle task, in no interrupt the recorder saw */
	if (ev->hdr.flags != WPERF_CTX_SOFTIRQ)
		return fixed(b, TL_SRC_UNKNOWN);
	switch (irq) {
	case WPERF_SOFTIRQ_TIMER:
	case WPERF_SOFTIRQ_HRTIMER:
		return fixed(b, TL_SRC_TIMER);
	case WPERF_SOFTIRQ_BLOCK:
		if (c && c->blk_dev != TL_NONE)
			return PV_DEVICE | c->blk_dev;
		break;
	case WPERF_SOFTIRQ_NET_RX:
	case WPERF_SOFTIRQ_NET_TX: {
		/* the NIC of the CPU's latest packet in that direction, else in the other */
		uint32_t rx = c ? c->net_rx : TL_NONE, tx = c ? c->net_tx : TL_NONE;
		uint32_t first = irq == WPERF_SOFTIRQ_NET_RX ? rx : tx;
		uint32_t other = irq == WPERF_SOFTIRQ_NET_RX ? tx : rx;

		/* over loopback, the receiver waits for the sender (timeline_devices.c) */
		if (irq == WPERF_SOFTIRQ_NET_RX && c && c->rx_loopback)
			return c->lo_sender != TL_NONE ? c->lo_sender
						       : source(b, WPERF_CTX_SOFTIRQ, irq);
		if (first != TL_NONE)
			return PV_DEVICE | first;
		if (other != TL_NONE)
			return PV_DEVICE | other;
		break;
	}
	default:
		break;
	}
	return source(b, WPERF_CTX_SOFTIRQ, irq);
}

/* A test of a device, given the builder and an argument. */
typedef int device_test(const struct tl_builder *b, const struct tl_device *d, const void *arg);

/* The device with the most I/O (requests for disks, bytes for NICs) of those
 * that pass test, or TL_NONE. */
static uint32_t busiest(const struct tl_builder *b, device_test *test, const void *arg)
{
	size_t n = TL_COUNT(b->devices, struct tl_device);
	uint32_t best = TL_NONE;
	uint64_t best_v = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tl_device *d = &TL_AT(b->devices, struct tl_device, i);
		uint64_t v = d->kind == WPERF_ENTITY_DISK ? d->ios : d->bytes;

		if (test(b, d, arg) && (best == TL_NONE || v > best_v)) {
			best = (uint32_t)i;
			best_v = v;
		}
	}
	return best;
}

/* Is d of the kind (uint8_t) at arg? */
static int of_kind(const struct tl_builder *b, const struct tl_device *d, const void *kind)
{
	(void)b;
	return d->kind == *(const uint8_t *)kind;
}

/* Is irq among the comma-separated numbers of list? */
static int irq_listed(const char *list, int32_t irq)
{
	const char *p = list;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || (*end && *end != ','))
			return 0; /* not a list of numbers */
		if (v == irq)
			return 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* Is the irq (int32_t) at arg one of d's, as the recorder read them from sysfs? */
static int has_irq(const struct tl_builder *b, const struct tl_device *d, const void *irq)
{
	char key[64], id[32];
	const char *list;

	if (d->kind == WPERF_ENTITY_DISK) {
		snprintf(id, sizeof(id), "%" PRIu32 ":%" PRIu32, d->key >> 20, d->key & 0xfffff);
		snprintf(key, sizeof(key), WPERF_META_DISK_IRQS("s"), id);
	} else {
		snprintf(key, sizeof(key), WPERF_META_NET_IRQS(PRIu32), d->key);
	}
	list = wperf_trace_meta(b->t, key);
	return list && irq_listed(list, *(const int32_t *)irq);
}

/* The device an unresolved source stands for, or TL_NONE; else its name. */
static uint32_t resolve(const struct tl_builder *b, const struct tl_source *s, uint32_t idx,
			char *name, size_t size)
{
	uint32_t d = TL_NONE;

	if (idx < TL_NFIXED) {
		snprintf(name, size, "%s",
			 idx == TL_SRC_TIMER  ? "timer"
			 : idx == TL_SRC_IDLE ? "idle"
					      : "unknown");
		return TL_NONE;
	}
	if (s->ctx == WPERF_CTX_HARDIRQ) {
		int64_t k = wperf_idmap_find(&b->vote_of, (uint32_t)s->irq);

		if (k >= 0)
			return TL_AT(b->votes, struct tl_vote, k).device;
		snprintf(name, size, "irq:%" PRId32, s->irq);
		return busiest(b, has_irq, &s->irq);
	}
	if (s->irq == WPERF_SOFTIRQ_BLOCK)
		d = busiest(b, of_kind, &(const uint8_t){WPERF_ENTITY_DISK});
	else if (s->irq == WPERF_SOFTIRQ_NET_RX || s->irq == WPERF_SOFTIRQ_NET_TX)
		d = busiest(b, of_kind, &(const uint8_t){WPERF_ENTITY_NIC});
	if (wperf_softirq_name(s->irq))
		snprintf(name, size, "softirq:%s", wperf_softirq_name(s->irq));
	else
		snprintf(name, size, "softirq:%" PRId32, s->irq);
	return d;
}

int64_t tl_sources_entities(struct tl_builder *b, uint32_t first, struct wperf_buf *entities)
{
	size_t ns = TL_COUNT(b->sources, struct tl_source);
	char name[32];

	for (size_t i = 0; i < ns; i++) {
		struct tl_source *s = src(b, i);
		struct wperf_entity *e;
		uint32_t d;

		if (!s->used)
			continue;
		d = resolve(b, s, (uint32_t)i, name, sizeof(name));
		if (d != TL_NONE) {
			s->entity = TL_AT(b->devices, struct tl_device, d).entity;
			continue;
		}
		if (!(e = wperf_buf_push(entities, sizeof(*e))))
			return -ENOMEM;
		e->kind = WPERF_ENTITY_IRQ;
		snprintf(e->name, sizeof(e->name), "%s", name);
		e->born = b->start;
		e->died = b->end;
		s->entity = first++;
	}
	return first;
}

uint32_t tl_timer_entity(const struct tl_builder *b)
{
	const struct tl_source *s = src(b, TL_SRC_TIMER);

	return s->used ? s->entity : WPERF_NO_ENTITY;
}

uint32_t tl_final_waker(const struct tl_builder *b, uint32_t pv)
{
	if (pv == WPERF_NO_ENTITY || pv == WPERF_WAKER_ISSUERS)
		return pv;
	switch (pv & PV_TAG) {
	case PV_DEVICE:
		return TL_AT(b->devices, struct tl_device, pv & ~PV_TAG).entity;
	case PV_SOURCE:
		return src(b, pv & ~PV_TAG)->entity;
	default:
		return pv; /* threads keep their index */
	}
}
