/* SPDX-License-Identifier: MIT */
/*
 * A disk's requests in the timeline: its busy time, as the kernel counts it.
 *
 * The kernel's count is a disk's io_ticks (/sys/block/DEV/stat field 10, what
 * iostat shows as %util), in whole jiffies. block/blk-mq.c counts a request in
 * the disk's in-flight I/O from blk_account_io_start, when a bio becomes a
 * request (before it is queued, let alone issued), to blk_account_io_done,
 * when it ends; and at each of the two, update_io_ticks (block/blk-core.c)
 * adds the jiffies since its last update if a request was in flight (at the
 * end, always). So the disk is busy while it has a request in flight, and each
 * busy period counts its last jiffy minus its first. A cache flush counts
 * through the request that asked for it (fsync's empty write with REQ_PREFLUSH,
 * a journal write with PREFLUSH or FUA): in flight until its flush sequence
 * ends (block/blk-flush.c); the flush request the kernel issues for it is not
 * counted itself (blk_account_io_done skips RQF_FLUSH_SEQ; blk_account_io_flush
 * counts only flushes and their time, not io_ticks).
 *
 * The model is the same: a request is in flight from BLOCK_START
 * (block_io_start, in blk_account_io_start) to BLOCK_DONE (block_io_done, in
 * blk_account_io_done), paired by the request (rq), and each event carries the
 * kernel's jiffies, so a disk has its busy time in ns and its io_ticks in
 * jiffies, counted the kernel's way. Where a kernel has no block_io_start
 * (before Linux 6.5), a request is in flight from its issue to its completion,
 * and a flush from the flush request's issue to its completion. Traces of
 * format 1.0 pair a request's issue and completion by sector.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/analysis/timeline_cpu.h"
#include "core/analysis/timeline_devices.h"
#include "core/analysis/timeline_internal.h"
#include "core/analysis/timeline_irq.h"
#include "core/util/cmp.h"

/* ---- block requests: open addressing on (device, key) ---- */

static size_t req_home(uint32_t dev1, uint64_t key, size_t cap)
{
	uint64_t h = (key ^ ((uint64_t)dev1 << 40)) * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

static struct tl_request *req_find(struct tl_builder *b, uint32_t dev1, uint64_t key)
{
	if (!b->reqs_cap)
		return NULL;
	for (size_t i = req_home(dev1, key, b->reqs_cap);; i = (i + 1) & (b->reqs_cap - 1)) {
		struct tl_request *r = &b->reqs[i];

		if (!r->dev)
			return NULL;
		if (r->dev == dev1 && r->key == key)
			return r;
	}
}

static struct tl_request *req_insert(struct tl_builder *b, uint32_t dev1, uint64_t key)
{
	size_t i;

	if ((b->reqs_count + 1) * 2 > b->reqs_cap) {
		size_t cap = b->reqs_cap ? b->reqs_cap * 2 : 256;
		struct tl_request *t = calloc(cap, sizeof(*t));

		if (!t) {
			b->oom = 1;
			return NULL;
		}
		for (size_t j = 0; j < b->reqs_cap; j++) {
			struct tl_request *r = &b->reqs[j];

			if (!r->dev)
				continue;
			for (i = req_home(r->dev, r->key, cap); t[i].dev; i = (i + 1) & (cap - 1))
				;
			t[i] = *r;
		}
		free(b->reqs);
		b->reqs = t;
		b->reqs_cap = cap;
	}
	for (i = req_home(dev1, key, b->reqs_cap); b->reqs[i].dev; i = (i + 1) & (b->reqs_cap - 1))
		;
	b->reqs[i] = (struct tl_request){.key = key, .dev = dev1};
	b->reqs_count++;
	return &b->reqs[i];
}

/* Removes r, shifting back the entries after it so no probe chain breaks. */
static void req_remove(struct tl_builder *b, struct tl_request *r)
{
	size_t mask = b->reqs_cap - 1, i = (size_t)(r - b->reqs), j = i;

	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!b->reqs[j].dev)
			break;
		k = req_home(b->reqs[j].dev, b->reqs[j].key, b->reqs_cap);
		/* b->reqs[j] may fill the hole at i unless its home lies in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		b->reqs[i] = b->reqs[j];
		i = j;
	}
	b->reqs[i].dev = 0;
	b->reqs_count--;
}

/* ---- disks: each request's interval ---- */

#define REQ_OP_FLUSH 2 /* the kernel's enum req_op: the same number in every kernel */
/* The start of a request whose completion was the first of its events: made
 * before the window, or its start was lost (disk_busy decides). */
#define MADE_UNSEEN 0

/* r ended at end: its interval, from when it was made, appended to its disk. */
static void req_end(struct tl_builder *b, struct tl_device *dv, struct tl_request *r,
		    struct tl_when end)
{
	struct tl_req_interval *iv = wperf_buf_push(&dv->reqs, sizeof(*iv));

	r->state = TL_REQ_ENDED;
	if (!iv) {
		b->oom = 1;
		return;
	}
	iv->start = r->start;
	iv->end = end.ns > r->start.ns ? end : r->start;
	r->iv = TL_COUNT(dv->reqs, struct tl_req_interval) - 1;
}

/*
 * A request is made (BLOCK_START): the kernel counts it in flight from now. A
 * request struct is used again only once its request has ended: if the one
 * before was issued and never completed, its completion was lost (it counts
 * up to its issue, the least it was busy); if it was never issued, it was
 * merged into another request (the kernel stops counting it then).
 */
static int block_start(struct tl_builder *b, struct tl_device *dv, uint32_t d, struct tl_request *r,
		       uint64_t key, struct tl_when now, uint32_t maker, int in_thread)
{
	if (r && r->state == TL_REQ_ISSUED) {
		b->reqs_lost++;
		req_end(b, dv, r, r->issued);
	}
	if (!r && !(r = req_insert(b, d + 1, key)))
		return -ENOMEM;
	b->reqs_made++;
	r->state = TL_REQ_MADE;
	r->start = now;
	r->owner = maker;
	r->made_by_thread = (uint8_t)in_thread;
	r->unowned = 0;
	return 0;
}

/*
 * A request goes to the device; in flight from when it was made, or from now.
 * Its bytes count for the thread that made it, not the one that issued it:
 * a request made in B's write and held in a plug, or requeued, is issued by
 * the block layer's worker (kworker/N:NH, kblockd) as often as by B, and
 * which one does is the block layer's detail, not the program's. Without
 * its start (before Linux 6.5, or made before the window) the issuer is all
 * that is known. Writeback is made by the flusher (kworker/u:N, wb_workfn)
 * for whoever dirtied the pages; the kernel does not say whom in these
 * events, so its bytes stay the flusher's.
 */
static int block_issue(struct tl_builder *b, struct tl_device *dv, uint32_t d, struct tl_request *r,
		       uint64_t key, const struct wperf_event *ev, struct tl_when now,
		       uint32_t issuer, int in_thread)
{
	if (r && r->state == TL_REQ_ISSUED)
		return 0; /* a requeued request issued again: counted already */
	if (!r && !(r = req_insert(b, d + 1, key)))
		return -ENOMEM;
	r->unowned = !in_thread && !(r->state == TL_REQ_MADE && r->made_by_thread);
	if (r->state == TL_REQ_MADE)
		issuer = r->owner; /* TL_NONE for an excluded process's: no share */
	if (r->state != TL_REQ_MADE)
		r->start = now;
	r->state = TL_REQ_ISSUED;
	r->issued = now;
	r->left = ev->block.bytes;
	dv->bytes += ev->block.bytes;
	dv->ios++;
	tl_add_share(b, dv, issuer, ev->block.bytes);
	return 0;
}

/*
 * bytes of a request completed. The completion that leaves none of an issued
 * request's bytes ends it; so does the completion of a request made and never
 * issued: the one that asked for a cache flush (fsync's empty write with
 * REQ_PREFLUSH), in flight while the flush the kernel issued for it ran, or
 * one that needed no flush. The completion of a request never seen, if the
 * device did work for it (bytes, or a flush), ends one made before the window:
 * busy from the window's start. Other completions are a request's second one,
 * at the end of its flush sequence (BLOCK_DONE ends it then). A trace of
 * format 1.0 pairs by sector: a request ends at its first completion at the
 * issue's sector, and other completions are left out.
 */
static int block_complete(struct tl_builder *b, struct tl_device *dv, uint32_t d,
			  struct tl_request *r, uint64_t key, const struct wperf_event *ev,
			  struct tl_when now)
{
	int by_rq = ev->block.rq != 0;

	dv->done_bytes += ev->block.bytes;
	if (r && r->unowned && r->state != TL_REQ_MADE)
		dv->unowned_bytes += ev->block.bytes;
	if (r && r->state == TL_REQ_ISSUED && by_rq && ev->block.bytes &&
	    ev->block.bytes < r->left) {
		r->left -= ev->block.bytes; /* a partial completion */
		return 0;
	}
	if (r && r->state != TL_REQ_ENDED) {
		req_end(b, dv, r, now);
		if (!by_rq)
			req_remove(b, r);
		return 0;
	}
	if (!by_rq || r || (ev->block.bytes == 0 && (ev->block.op & 0xff) != REQ_OP_FLUSH))
		return 0;
	if (!(r = req_insert(b, d + 1, key)))
		return -ENOMEM;
	r->start = (struct tl_when){MADE_UNSEEN, 0}; /* decided in disk_busy */
	req_end(b, dv, r, now);
	return 0;
}

/*
 * The request ends as the kernel counts it (BLOCK_DONE, blk_account_io_done):
 * after its completion, and for one that asked for a cache flush, after the
 * flush. One whose completion is missing ends now.
 */
static void block_done(struct tl_builder *b, struct tl_device *dv, struct tl_request *r,
		       struct tl_when now)
{
	struct tl_req_interval *iv;

	if (r && r->state != TL_REQ_ENDED) {
		req_end(b, dv, r, now);
	} else if (r && r->iv < TL_COUNT(dv->reqs, struct tl_req_interval)) {
		iv = &TL_AT(dv->reqs, struct tl_req_interval, r->iv);
		if (now.ns > iv->end.ns)
			iv->end = now;
	}
}

/* The first and the last block event with jiffies give the length of one. */
static void time_jiffies(struct tl_builder *b, struct tl_when now)
{
	if (!now.jiffies)
		return;
	if (!b->jiffy_first.jiffies)
		b->jiffy_first = now;
	b->jiffy_last = now;
}

int tl_block_event(struct tl_builder *b, const struct wperf_event *ev, uint32_t issuer)
{
	uint32_t d = tl_device_of(b, WPERF_ENTITY_DISK, ev->block.dev);
	struct tl_cpu *c = tl_cpu(b, ev->hdr.cpu);
	uint64_t key = ev->block.rq ? ev->block.rq : ev->block.sector;
	struct tl_when now = {ev->hdr.ts, ev->block.jiffies};
	int in_thread = ev->hdr.flags == WPERF_CTX_THREAD && ev->hdr.tid != 0;
	struct tl_device *dv;
	struct tl_request *r;

	if (d == TL_NONE)
		return -ENOMEM;
	dv = &TL_AT(b->devices, struct tl_device, d);
	r = req_find(b, d + 1, key);
	time_jiffies(b, now);
	switch (ev->hdr.kind) {
	case WPERF_EV_BLOCK_START:
		return block_start(b, dv, d, r, key, now, issuer, in_thread);
	case WPERF_EV_BLOCK_ISSUE:
		return block_issue(b, dv, d, r, key, ev, now, issuer, in_thread);
	case WPERF_EV_BLOCK_DONE:
		block_done(b, dv, r, now);
		return 0;
	}
	if (c) {
		c->blk_dev = d;
		c->blk_ctx = ev->hdr.flags;
		c->blk_irq = ev->block.irq;
	}
	if (ev->hdr.flags == WPERF_CTX_HARDIRQ && ev->block.irq >= 0)
		tl_vote(b, ev->block.irq, d);
	return block_complete(b, dv, d, r, key, ev, now);
}

static int by_start(const void *a, const void *b)
{
	uint64_t x = ((const struct tl_req_interval *)a)->start.ns;
	uint64_t y = ((const struct tl_req_interval *)b)->start.ns;

	return wperf_cmp_u64(x, y);
}

/*
 * The jiffies of a busy period [s, e), as update_io_ticks counts them: at each
 * request's start and end it adds the jiffies since its last update if a
 * request was in flight, so a period adds its last jiffy minus its first. Only
 * its part in the window counts (in proportion); a bound whose jiffies the
 * trace lacks (the window cut the period) is reckoned from the other one.
 */
static uint64_t period_jiffies(const struct tl_builder *b, struct tl_when s, struct tl_when e)
{
	uint64_t lo = s.ns > b->start ? s.ns : b->start, hi = e.ns < b->end ? e.ns : b->end;

	if (!b->jiffy_ns || hi <= lo)
		return 0;
	if (!s.jiffies)
		s.jiffies = e.jiffies - (e.ns - s.ns) / b->jiffy_ns;
	if (!e.jiffies)
		e.jiffies = s.jiffies + (e.ns - s.ns) / b->jiffy_ns;
	if (e.jiffies <= s.jiffies || e.ns <= s.ns)
		return 0;
	return tl_muldiv(e.jiffies - s.jiffies, hi - lo, e.ns - s.ns);
}

/*
 * The kernel's count of the disk's requests in flight (/sys/block/DEV/stat's
 * in_flight) as the window started or ended; UINT64_MAX when the trace has no
 * such reading (no counters, or a row without the field).
 */
static uint64_t kernel_in_flight(const struct tl_builder *b, const struct tl_device *d,
				 unsigned when)
{
	const struct wperf_counters *c = wperf_trace_counters(b->t, when);

	for (size_t i = 0; c && i < c->ndisks; i++) {
		const struct wperf_disk_counters *k = &c->disks[i];

		if (wperf_disk_counters_dev(k) == d->key && k->nfields > WPERF_DISK_IN_FLIGHT)
			return k->fields[WPERF_DISK_IN_FLIGHT];
	}
	return UINT64_MAX;
}

/* Of n times (sorted in place), the keep-th earliest, or with latest the
 * keep-th latest; 0 < keep <= n. */
static uint64_t nth_time(uint64_t *times, size_t n, uint64_t keep, int latest)
{
	qsort(times, n, sizeof(*times), wperf_cmp_u64_items);
	return latest ? times[n - keep] : times[keep - 1];
}

/*
 * The requests issued and never completed. Each is in flight to the window's
 * end, unless a CPU's events were lost after its issue: its completion may
 * have been among them, and it counts up to its issue (lost). The kernel's
 * in-flight count at the end bounds them: one issued in the window and not
 * done at the end was in flight as the last counters were read (the programs
 * are attached until after that), so beyond that count the latest issued stay
 * in flight and the others lost their completion's records. One issued after
 * the window is none of the kernel's count (the window cuts it anyway).
 */
static void disk_unfinished(struct tl_builder *b, struct tl_device *d, uint32_t dev1,
			    uint64_t *times)
{
	uint64_t at_end = kernel_in_flight(b, d, WPERF_COUNTERS_END), from = 0;
	size_t n = 0;

	for (size_t i = 0; i < b->reqs_cap; i++) /* those of the window */
		if (b->reqs[i].dev == dev1 && b->reqs[i].state == TL_REQ_ISSUED &&
		    b->lost_until <= b->reqs[i].issued.ns && b->reqs[i].issued.ns < b->end)
			times[n++] = b->reqs[i].issued.ns;
	if (at_end < n)
		from = at_end ? nth_time(times, n, at_end, 1) : UINT64_MAX;
	for (size_t i = 0; i < b->reqs_cap; i++) {
		struct tl_request *r = &b->reqs[i];

		if (r->dev != dev1 || r->state != TL_REQ_ISSUED)
			continue;
		if (b->lost_until > r->issued.ns || r->issued.ns < from) {
			b->reqs_lost++;
			req_end(b, d, r, r->issued);
		} else {
			b->reqs_unfinished++;
			req_end(b, d, r, (struct tl_when){b->end, 0});
		}
	}
}

/*
 * The requests whose completion was the first of their events. Each was made
 * before the window and is in flight from its start, unless a CPU's events
 * were lost before its completion: its start may have been among them, and it
 * counts nothing (lost). The kernel's in-flight count at the start bounds
 * them likewise (the programs were attached before the first counters were
 * read): the earliest completed in the window were in flight, the others
 * lost their start's records. One completed before the window is none of the
 * kernel's count (the window cuts it anyway).
 */
static void disk_made_unseen(struct tl_builder *b, struct tl_device *d, uint64_t *times)
{
	uint64_t at_start = kernel_in_flight(b, d, WPERF_COUNTERS_START), upto = UINT64_MAX;
	struct tl_req_interval *iv = (struct tl_req_interval *)(void *)d->reqs.data;
	size_t nreqs = TL_COUNT(d->reqs, struct tl_req_interval), n = 0;

	for (size_t k = 0; k < nreqs; k++) /* those of the window */
		if (iv[k].start.ns == MADE_UNSEEN && iv[k].end.ns > b->start &&
		    !(b->lost_from && b->lost_from < iv[k].end.ns))
			times[n++] = iv[k].end.ns;
	if (at_start < n)
		upto = at_start ? nth_time(times, n, at_start, 0) : 0;
	for (size_t k = 0; k < nreqs; k++) {
		if (iv[k].start.ns != MADE_UNSEEN)
			continue;
		if ((b->lost_from && b->lost_from < iv[k].end.ns) ||
		    (iv[k].end.ns > b->start && iv[k].end.ns > upto)) {
			b->reqs_lost++;
			iv[k].start = iv[k].end;
		} else {
			b->reqs_before++;
			iv[k].start =
			    (struct tl_when){b->start, 0}; /* its jiffies: period_jiffies */
		}
	}
}

/* The requests whose start or end the trace lacks. */
static void disk_unseen(struct tl_builder *b, struct tl_device *d, uint32_t dev1)
{
	size_t n = b->reqs_cap + TL_COUNT(d->reqs, struct tl_req_interval);
	uint64_t *times = malloc((n + 1) * sizeof(*times));

	if (!times) {
		b->oom = 1;
		return;
	}
	disk_unfinished(b, d, dev1, times);
	disk_made_unseen(b, d, times);
	free(times);
}

/*
 * The disk's busy intervals: the union of its requests' intervals, clipped to
 * the window, and the jiffies of each (io_ticks).
 */
static void disk_busy(struct tl_builder *b, struct tl_device *d, uint32_t dev1)
{
	struct tl_req_interval *iv, cur;
	size_t n;

	disk_unseen(b, d, dev1);
	n = TL_COUNT(d->reqs, struct tl_req_interval);
	if (!n)
		return;
	iv = (struct tl_req_interval *)(void *)d->reqs.data;
	qsort(iv, n, sizeof(*iv), by_start);
	cur = iv[0];
	for (size_t k = 1; k <= n; k++) {
		if (k < n && iv[k].start.ns <= cur.end.ns) {
			if (iv[k].end.ns > cur.end.ns)
				cur.end = iv[k].end;
			continue;
		}
		tl_add_busy(b, d, cur.start.ns, cur.end.ns);
		d->io_ticks += period_jiffies(b, cur.start, cur.end);
		if (k < n)
			cur = iv[k];
	}
}

void tl_disks_finish(struct tl_builder *b)
{
	size_t n = TL_COUNT(b->devices, struct tl_device);

	if (b->jiffy_last.jiffies > b->jiffy_first.jiffies)
		b->jiffy_ns = (b->jiffy_last.ns - b->jiffy_first.ns) /
			      (b->jiffy_last.jiffies - b->jiffy_first.jiffies);
	for (size_t i = 0; i < n; i++) {
		struct tl_device *d = &TL_AT(b->devices, struct tl_device, i);

		if (d->kind == WPERF_ENTITY_DISK)
			disk_busy(b, d, (uint32_t)i + 1);
	}
}
