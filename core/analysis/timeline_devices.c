/* SPDX-License-Identifier: MIT */
/*
 * I/O devices as pseudo-threads in the timeline (wPerf sections 3.3 and
 * 4.1).
 *
 * A disk is busy while it has requests in flight (timeline_disks.c); a NIC is
 * busy for bytes * 8 / link speed after each packet. Outside its busy time a
 * device waits for the threads that issued I/O to it (WPERF_WAKER_ISSUERS),
 * shared by the bytes each issued: for a NIC, each sent and each received (a
 * receiver that takes its data late leaves the NIC idle too).
 *
 * Loopback is no device: it moves a packet from one socket to another within
 * a send. The packet is received on the sending CPU, in the NET_RX softirq the
 * send raised, so a receiver woken there waits for the sender (timeline_irq.c).
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
#include "core/trace/meta.h"

#define DEFAULT_NIC_BPS	 1000000000ull /* 1 Gbit/s */
#define LOOPBACK_IFINDEX 1

static struct tl_device *dev(const struct tl_builder *b, uint32_t d)
{
	return &TL_AT(b->devices, struct tl_device, d);
}

void tl_devices_release(struct tl_builder *b)
{
	size_t n = TL_COUNT(b->devices, struct tl_device);

	for (size_t i = 0; i < n; i++) {
		wperf_buf_release(&dev(b, i)->reqs);
		wperf_buf_release(&dev(b, i)->busy);
		wperf_buf_release(&dev(b, i)->shares);
		wperf_idmap_release(&dev(b, i)->share_of);
	}
	wperf_buf_release(&b->devices);
	wperf_idmap_release(&b->disks);
	wperf_idmap_release(&b->nics);
	wperf_buf_release(&b->disk_index);
	wperf_buf_release(&b->nic_index);
	free(b->reqs);
	b->reqs = NULL;
}

/* The trace's name of interface ifindex (META net.N.name), or NULL. */
static const char *nic_name(const struct tl_builder *b, uint32_t ifindex)
{
	char key[48];
	const char *v;

	snprintf(key, sizeof(key), WPERF_META_NET_NAME(PRIu32), ifindex);
	v = wperf_trace_meta(b->t, key);
	return v && *v ? v : NULL;
}

static int is_loopback(const struct tl_builder *b, uint32_t ifindex)
{
	const char *name = nic_name(b, ifindex);

	return name ? strcmp(name, "lo") == 0 : ifindex == LOOPBACK_IFINDEX;
}

/* A NIC's name and link speed: the options, else the trace's META, else a default. */
static void nic_setup(struct tl_builder *b, struct tl_device *d)
{
	const char *name = nic_name(b, d->key), *v;
	char key[48];

	if (name)
		snprintf(d->name, sizeof(d->name), "nic:%.27s", name);
	else
		snprintf(d->name, sizeof(d->name), "nic:%" PRIu32, d->key);
	snprintf(key, sizeof(key), WPERF_META_NET_SPEED_BPS(PRIu32), d->key);
	v = wperf_trace_meta(b->t, key);
	if (b->opts.capacity.nic_bits_per_s) {
		d->speed_bps = b->opts.capacity.nic_bits_per_s;
		d->speed_from = "given";
	} else if (v && strtoull(v, NULL, 10) > 0) {
		d->speed_bps = strtoull(v, NULL, 10);
		d->speed_from = "from the trace";
	} else {
		d->speed_bps = DEFAULT_NIC_BPS;
		d->speed_from = "default";
	}
}

uint32_t tl_device_of(struct tl_builder *b, uint8_t kind, uint32_t key)
{
	int disk = kind == WPERF_ENTITY_DISK, added;
	struct wperf_buf *index = disk ? &b->disk_index : &b->nic_index;
	int64_t k = wperf_idmap_get(disk ? &b->disks : &b->nics, key, &added);
	size_t n = TL_COUNT(b->devices, struct tl_device);
	struct tl_device *d;
	uint32_t *slot;

	if (k < 0)
		goto oom;
	if (!added)
		return TL_AT(*index, uint32_t, k);
	if (!(slot = wperf_buf_push(index, sizeof(*slot))))
		goto oom;
	/* Looked up once per NIC: a packet is too frequent for the META's names. */
	if (!disk && is_loopback(b, key))
		return *slot = TL_LOOPBACK;
	if (n >= PV_MAX || !(d = wperf_buf_push(&b->devices, sizeof(*d))))
		goto oom;
	*slot = (uint32_t)n;
	d->kind = kind;
	d->key = key;
	if (disk)
		snprintf(d->name, sizeof(d->name), "disk:%" PRIu32 ":%" PRIu32, key >> 20,
			 key & 0xfffff);
	else
		nic_setup(b, d);
	return (uint32_t)n;
oom:
	b->oom = 1;
	return TL_NONE;
}

/* ---- busy intervals ---- */

void tl_add_busy(struct tl_builder *b, struct tl_device *d, uint64_t s, uint64_t e)
{
	size_t n = d->busy.len / (2 * sizeof(uint64_t));
	uint64_t *last = n ? (uint64_t *)(void *)d->busy.data + 2 * (n - 1) : NULL;

	s = s < b->start ? b->start : s;
	e = e > b->end ? b->end : e;
	if (last && s < last[1])
		s = last[1]; /* an unsorted trace: keep them disjoint */
	if (s >= e)
		return;
	if (last && s == last[1]) {
		last[1] = e;
		return;
	}
	if (!(last = wperf_buf_push(&d->busy, 2 * sizeof(uint64_t)))) {
		b->oom = 1;
		return;
	}
	last[0] = s;
	last[1] = e;
}

void tl_add_share(struct tl_builder *b, struct tl_device *d, uint32_t thread, uint64_t bytes)
{
	int added;
	int64_t k;
	struct wperf_io_share *s;

	if (thread == TL_NONE || bytes == 0)
		return; /* a share of 0 bytes would divide the idle time by 0 */
	k = wperf_idmap_get(&d->share_of, thread, &added);
	if (k < 0 || (added && !wperf_buf_push(&d->shares, sizeof(*s)))) {
		b->oom = 1;
		return;
	}
	s = &TL_AT(d->shares, struct wperf_io_share, k);
	s->thread = thread;
	s->bytes += bytes;
}

int tl_net_event(struct tl_builder *b, const struct wperf_event *ev, uint32_t issuer)
{
	struct tl_cpu *c = tl_cpu(b, ev->hdr.cpu);
	int xmit = ev->hdr.kind == WPERF_EV_NET_XMIT;
	struct tl_device *dv;
	uint64_t s = ev->hdr.ts, e;
	uint32_t d;

	if ((d = tl_device_of(b, WPERF_ENTITY_NIC, ev->net.ifindex)) == TL_NONE)
		return -ENOMEM;
	if (d == TL_LOOPBACK) {
		if (c && xmit)
			c->lo_sender = issuer;
		else if (c)
			c->rx_loopback = 1;
		return 0;
	}
	dv = dev(b, d);
	dv->bytes += ev->net.bytes;
	dv->ios++;
	if (xmit)
		tl_add_share(b, dv, issuer, ev->net.bytes);
	if (c && xmit) {
		c->net_tx = d;
	} else if (c) {
		c->rx_bytes = c->net_rx == d ? c->rx_bytes + ev->net.bytes : ev->net.bytes;
		c->net_rx = d;
		c->rx_loopback = 0;
	}
	if (ev->hdr.flags == WPERF_CTX_HARDIRQ && ev->net.irq >= 0)
		tl_vote(b, ev->net.irq, d);
	/* The wire time of the packet; packets come in time order, so the union of
	 * their intervals builds up at the end (inflight: an interval is open). */
	e = s + tl_muldiv((uint64_t)ev->net.bytes * 8, 1000000000ull, dv->speed_bps);
	e = e < s ? UINT64_MAX : e;
	if (dv->inflight && s <= dv->busy_end) {
		dv->busy_end = e > dv->busy_end ? e : dv->busy_end;
		return 0;
	}
	if (dv->inflight)
		tl_add_busy(b, dv, dv->busy_start, dv->busy_end);
	dv->inflight = 1;
	dv->busy_start = s;
	dv->busy_end = e;
	return 0;
}

void tl_net_receiver(struct tl_builder *b, const struct wperf_event *ev, uint32_t waker,
		     uint32_t thread)
{
	struct tl_cpu *c = tl_cpu(b, ev->hdr.cpu);

	if (!c || c->net_rx == TL_NONE || waker != (PV_DEVICE | c->net_rx))
		return;
	tl_add_share(b, dev(b, c->net_rx), thread, c->rx_bytes);
	c->rx_bytes = 0;
}

void tl_devices_finish(struct tl_builder *b)
{
	size_t n = TL_COUNT(b->devices, struct tl_device);
	const struct wperf_capacity *cap = &b->opts.capacity;
	uint64_t window = b->end - b->start;

	for (size_t i = 0; i < n; i++) {
		struct tl_device *d = dev(b, i);
		const uint64_t *iv;
		size_t nb;

		if (d->inflight) /* a NIC's last packet */
			tl_add_busy(b, d, d->busy_start, d->busy_end);
		d->inflight = 0;
		iv = (const uint64_t *)(const void *)d->busy.data; /* after add_busy's realloc */
		nb = d->busy.len / (2 * sizeof(uint64_t));
		for (size_t k = 0; k < nb; k++)
			d->measured_ns += iv[2 * k + 1] - iv[2 * k];
		d->busy_ns = d->measured_ns;
		if (d->kind == WPERF_ENTITY_DISK && (cap->disk_bytes_per_s || cap->disk_iops)) {
			uint64_t by_bw = tl_muldiv(d->bytes, 1000000000ull, cap->disk_bytes_per_s);
			uint64_t by_iops = tl_muldiv(d->ios, 1000000000ull, cap->disk_iops);

			d->busy_ns = by_bw > by_iops ? by_bw : by_iops;
			d->busy_ns = d->busy_ns > window ? window : d->busy_ns;
		}
	}
}

/* ---- entities and segments ---- */

int64_t tl_devices_entities(struct tl_builder *b, uint32_t first, struct wperf_buf *entities)
{
	size_t nd = TL_COUNT(b->devices, struct tl_device);

	for (size_t i = 0; i < nd; i++) {
		struct tl_device *d = dev(b, i);
		struct wperf_entity *e = wperf_buf_push(entities, sizeof(*e));

		if (!e)
			return -ENOMEM;
		e->kind = d->kind;
		e->dev = d->key;
		memcpy(e->name, d->name, sizeof(e->name));
		e->born = b->start;
		e->died = b->end;
		e->bytes = d->bytes;
		e->ios = d->ios;
		e->busy_ns = d->busy_ns;
		e->io_ticks = d->io_ticks;
		e->done_bytes = d->done_bytes;
		e->unowned_bytes = d->unowned_bytes;
		d->entity = first++;
	}
	return first;
}

struct walk {
	struct wperf_buf *out;
	uint64_t pos; /* where the next segment starts */
	int oom;
};

static void seg(struct walk *w, uint8_t state, uint64_t s, uint64_t e)
{
	struct wperf_segment *g;

	if (s >= e)
		return;
	if (!(g = wperf_buf_push(w->out, sizeof(*g)))) {
		w->oom = 1;
		return;
	}
	*g = (struct wperf_segment){.end = e, /* from w->pos, where the one before ended */
				    .waker = state == WPERF_SEG_WAITING ? WPERF_WAKER_ISSUERS
									: WPERF_NO_ENTITY,
				    .state = state,
				    .stacks = WPERF_NO_STACKS};
	w->pos = e;
}

/* Busy over [s, e), idle from the walk's position up to s. */
static void busy(struct walk *w, uint64_t s, uint64_t e)
{
	seg(w, WPERF_SEG_WAITING, w->pos, s);
	seg(w, WPERF_SEG_RUNNING, s > w->pos ? s : w->pos, e);
}

/* Idle over [s, e), busy from the walk's position up to s. */
static void idle(struct walk *w, uint64_t s, uint64_t e)
{
	seg(w, WPERF_SEG_RUNNING, w->pos, s);
	seg(w, WPERF_SEG_WAITING, s > w->pos ? s : w->pos, e);
}

/*
 * Busy time comes from the measured intervals. With a capacity model that
 * gives less busy time, each interval keeps its share of it at its start; with
 * more, each idle gap keeps its share of the idle time at its end. The shares
 * are cumulative, so the totals are exact.
 */
int tl_device_segments(const struct tl_builder *b, uint32_t device, struct wperf_buf *out)
{
	const struct tl_device *d = dev(b, device);
	const uint64_t *iv = (const uint64_t *)(const void *)d->busy.data;
	size_t n = d->busy.len / (2 * sizeof(uint64_t));
	struct walk w = {out, b->start, 0};
	uint64_t measured = d->measured_ns, want = d->busy_ns, cum = 0, given = 0;

	if (measured == 0 || want == measured) {
		for (size_t k = 0; k < n; k++)
			busy(&w, iv[2 * k], iv[2 * k + 1]);
	} else if (want < measured) {
		for (size_t k = 0; k < n; k++) {
			uint64_t upto;

			cum += iv[2 * k + 1] - iv[2 * k];
			upto = tl_muldiv(cum, want, measured);
			busy(&w, iv[2 * k], iv[2 * k] + (upto - given));
			given = upto;
		}
	} else {
		uint64_t gaps = (b->end - b->start) - measured, keep = (b->end - b->start) - want;

		for (size_t k = 0; k <= n; k++) {
			uint64_t gs = k ? iv[2 * k - 1] : b->start, ge = k < n ? iv[2 * k] : b->end;
			uint64_t upto;

			cum += ge - gs;
			upto = tl_muldiv(cum, keep, gaps);
			idle(&w, ge - (upto - given), ge);
			given = upto;
		}
	}
	seg(&w, WPERF_SEG_WAITING, w.pos, b->end);
	return w.oom ? -ENOMEM : 0;
}

int tl_device_shares(const struct tl_builder *b, struct wperf_buf *out)
{
	size_t nd = TL_COUNT(b->devices, struct tl_device);

	for (size_t i = 0; i < nd; i++) {
		const struct tl_device *d = dev(b, i);
		size_t n = TL_COUNT(d->shares, struct wperf_io_share);

		for (size_t k = 0; k < n; k++) {
			struct wperf_io_share *s = wperf_buf_push(out, sizeof(*s));

			if (!s)
				return -ENOMEM;
			*s = TL_AT(d->shares, struct wperf_io_share, k);
			s->device = d->entity;
		}
	}
	return 0;
}

static void speed(char *buf, size_t size, uint64_t bps)
{
	if (bps % 1000000000ull == 0)
		snprintf(buf, size, "%" PRIu64 " Gbit/s", (uint64_t)(bps / 1000000000u));
	else if (bps % 1000000ull == 0)
		snprintf(buf, size, "%" PRIu64 " Mbit/s", (uint64_t)(bps / 1000000u));
	else
		snprintf(buf, size, "%" PRIu64 " bit/s", bps);
}

/* Appends to note, truncating (with the sentence's end kept) when it is full. */
static void add(char *note, size_t size, const char *s)
{
	size_t len = strlen(note);

	if (len + 1 < size)
		snprintf(note + len, size - len, "%s", s);
}

void tl_capacity_note(const struct tl_builder *b, char *note, size_t size)
{
	const struct wperf_capacity *cap = &b->opts.capacity;
	size_t nd = TL_COUNT(b->devices, struct tl_device);
	int disks = 0, nics = 0;
	char part[128], sp[32];

	note[0] = '\0';
	for (size_t i = 0; i < nd; i++)
		disks += dev(b, i)->kind == WPERF_ENTITY_DISK;
	nics = (int)nd - disks;
	if (disks && (cap->disk_bytes_per_s || cap->disk_iops)) {
		char bw[40] = "", iops[40] = "";

		if (cap->disk_bytes_per_s)
			snprintf(bw, sizeof(bw), "bytes / %" PRIu64 " B/s", cap->disk_bytes_per_s);
		if (cap->disk_iops)
			snprintf(iops, sizeof(iops), "requests / %" PRIu64 " IOPS", cap->disk_iops);
		snprintf(part, sizeof(part), "disks: busy time = %s%s%s%s%s (given capacity)",
			 bw[0] && iops[0] ? "max(" : "", bw, bw[0] && iops[0] ? ", " : "", iops,
			 bw[0] && iops[0] ? ")" : "");
		add(note, size, part);
	} else if (disks && b->reqs_made) {
		add(note, size,
		    "disks: busy from each request's start to its end, as the kernel "
		    "counts io_ticks");
	} else if (disks) {
		add(note, size, "disks: busy time measured from request issue to completion");
	}
	for (size_t i = 0, k = 0; i < nd; i++) {
		const struct tl_device *d = dev(b, i);

		if (d->kind != WPERF_ENTITY_NIC)
			continue;
		speed(sp, sizeof(sp), d->speed_bps);
		snprintf(part, sizeof(part), "%s%s at %s (%s)",
			 k++	 ? ", "
			 : disks ? "; NICs: busy for bytes * 8 / link speed, "
				 : "NICs: busy for bytes * 8 / link speed, ",
			 d->name, sp, d->speed_from);
		add(note, size, part);
	}
	if (!disks && !nics)
		add(note, size, "no disk or network I/O recorded");
	/* one sentence: end it with a period, even when truncated */
	if (strlen(note) + 1 >= size)
		note[size - 2] = '.';
	else
		add(note, size, ".");
}
