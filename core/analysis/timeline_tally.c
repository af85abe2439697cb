/* SPDX-License-Identifier: MIT */
/*
 * The timeline builder's tallies for the checks (timeline.h, checks.h): each
 * CPU's idle time and switch chain, the packets of each interface, and the
 * schedstat readings the EXIT events carry. What the kernel counts is set
 * against these, so they are counted the kernel's way: idle time without the
 * interrupts served while idle (the kernel stops its idle clock for them),
 * every packet whoever sent it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/timeline_cpu.h"
#include "core/analysis/timeline_internal.h"
#include "core/util/cmp.h"

static uint64_t clip(const struct tl_builder *b, uint64_t t)
{
	return t < b->start ? b->start : t > b->end ? b->end : t;
}

/* The CPU was idle from s to e: its idle task ran. */
static void add_idle(const struct tl_builder *b, struct tl_cpu *c, uint64_t s, uint64_t e)
{
	s = clip(b, s);
	e = clip(b, e);
	if (e > s)
		c->tally.idle_ns += e - s;
}

static void count_break(struct tl_builder *b, const struct tl_cpu *c)
{
	int added;
	int64_t i = wperf_idmap_get(&b->break_of, c->cur_tid, &added);
	struct wperf_break_tally *t;

	if (i < 0 || (added && !wperf_buf_push(&b->break_tally, sizeof(*t)))) {
		b->oom = 1;
		return;
	}
	t = &TL_AT(b->break_tally, struct wperf_break_tally, i);
	t->tid = c->cur_tid;
	t->tgid = c->cur_tgid;
	t->breaks++;
}

void tl_tally_break(struct tl_builder *b, struct tl_cpu *c, uint32_t tid, uint32_t tgid, uint64_t t,
		    uint64_t shown)
{
	c->tally.breaks++;
	c->tally.guessed_ns += clip(b, shown) - clip(b, t);
	count_break(b, c);
	if (c->cur_tid == 0)
		add_idle(b, c, c->cur_since, t);
	c->cur_tid = tid;
	c->cur_tgid = tgid;
	c->cur_since = c->cur_seen = t;
}

void tl_tally_switch(struct tl_builder *b, struct tl_cpu *c, const struct wperf_event *ev)
{
	c->tally.switches++;
	/* The idle task leaves: idle since it came (or since the window's start,
	 * at the CPU's first switch). */
	if (ev->hdr.tid == 0) {
		add_idle(b, c, c->have_cur ? c->cur_since : b->start, ev->hdr.ts);
		c->tally.idle_exits++;
	}
	c->have_cur = 1;
	c->cur_tid = ev->sw.next_tid;
	c->cur_tgid = ev->sw.next_tgid;
	c->cur_since = c->cur_seen = ev->hdr.ts;
}

void tl_tally_idle_irq(struct tl_builder *b, struct tl_cpu *c, uint64_t s, uint64_t e)
{
	s = clip(b, s);
	e = clip(b, e);
	if (e > s)
		c->idle_irq_ns += e - s;
}

void tl_tally_net(struct tl_builder *b, const struct wperf_event *ev)
{
	size_t n = TL_COUNT(b->nic_tally, struct wperf_nic_tally), i;
	struct wperf_nic_tally *t;

	if (ev->hdr.ts < b->start || ev->hdr.ts > b->end)
		return;
	/* few interfaces, and the array stays in ifindex order */
	for (i = 0;
	     i < n && TL_AT(b->nic_tally, struct wperf_nic_tally, i).ifindex < ev->net.ifindex; i++)
		;
	if (i == n || TL_AT(b->nic_tally, struct wperf_nic_tally, i).ifindex != ev->net.ifindex) {
		if (!wperf_buf_push(&b->nic_tally, sizeof(*t))) {
			b->oom = 1;
			return;
		}
		t = &TL_AT(b->nic_tally, struct wperf_nic_tally, 0);
		memmove(t + i + 1, t + i, (n - i) * sizeof(*t));
		memset(t + i, 0, sizeof(*t));
		t[i].ifindex = ev->net.ifindex;
	}
	t = &TL_AT(b->nic_tally, struct wperf_nic_tally, i);
	if (ev->hdr.kind == WPERF_EV_NET_XMIT) {
		t->tx_bytes += ev->net.bytes;
		t->tx_packets++;
	} else {
		t->rx_bytes += ev->net.bytes;
		t->rx_packets++;
	}
}

void tl_tally_exit(struct tl_builder *b, uint32_t thread, const struct wperf_event *ev)
{
	struct wperf_exit_reading *r;

	if (!(ev->hdr.flags & WPERF_EXIT_SCHEDSTAT) || thread == TL_NONE)
		return;
	if (!(r = wperf_buf_push(&b->exits, sizeof(*r)))) {
		b->oom = 1;
		return;
	}
	*r = (struct wperf_exit_reading){thread, ev->hdr.ts, ev->exit.run_ns, ev->exit.wait_ns,
					 ev->exit.slices};
}

void tl_tally_finish(struct tl_builder *b)
{
	for (size_t i = 0; i < TL_COUNT(b->cpus, struct tl_cpu); i++) {
		struct tl_cpu *c = &TL_AT(b->cpus, struct tl_cpu, i);

		if (c->have_cur && c->cur_tid == 0)
			add_idle(b, c, c->cur_since, b->end);
	}
}

static int by_breaks(const void *pa, const void *pb)
{
	const struct wperf_break_tally *a = pa, *b = pb;
	const uint64_t ka[] = {wperf_key_desc(a->breaks), a->tid};
	const uint64_t kb[] = {wperf_key_desc(b->breaks), b->tid};

	return wperf_cmp_keys(ka, kb, 2);
}

/* A copy of buf's n elements of size bytes (n + 1: never NULL), or NULL. */
static void *copy(const struct wperf_buf *buf, size_t n, size_t size)
{
	void *p = calloc(n + 1, size);

	if (p && n)
		memcpy(p, buf->data, n * size);
	return p;
}

int tl_tally_assemble(struct tl_builder *b, struct wperf_timeline *tl)
{
	size_t ncpus = TL_COUNT(b->cpus, struct tl_cpu);

	tl->cpus = calloc(tl->ncpu + 1, sizeof(*tl->cpus));
	tl->nbreak_threads = TL_COUNT(b->break_tally, struct wperf_break_tally);
	tl->break_threads = copy(&b->break_tally, tl->nbreak_threads, sizeof(*tl->break_threads));
	tl->nnics = TL_COUNT(b->nic_tally, struct wperf_nic_tally);
	tl->nics = copy(&b->nic_tally, tl->nnics, sizeof(*tl->nics));
	tl->nexits = TL_COUNT(b->exits, struct wperf_exit_reading);
	tl->exits = copy(&b->exits, tl->nexits, sizeof(*tl->exits));
	if (!tl->cpus || !tl->break_threads || !tl->nics || !tl->exits)
		return -ENOMEM;
	for (size_t i = 0; i < ncpus && i < tl->ncpu; i++) {
		const struct tl_cpu *c = &TL_AT(b->cpus, struct tl_cpu, i);

		tl->cpus[i] = c->tally;
		tl->cpus[i].idle_ns -=
		    c->idle_irq_ns < c->tally.idle_ns ? c->idle_irq_ns : c->tally.idle_ns;
	}
	qsort(tl->break_threads, tl->nbreak_threads, sizeof(*tl->break_threads), by_breaks);
	return 0;
}

void tl_tally_release(struct tl_builder *b)
{
	wperf_idmap_release(&b->break_of);
	wperf_buf_release(&b->break_tally);
	wperf_buf_release(&b->nic_tally);
	wperf_buf_release(&b->exits);
}
