/* SPDX-License-Identifier: MIT */
/*
 * gen_trace: writes a large synthetic trace for the analysis benchmark, shaped
 * like a busy server: worker threads in pipelines of GROUP stages hand requests
 * on (each wakes the next stage, then blocks), and a logger thread writes to a
 * disk and waits for it. Deterministic for a given size.
 *
 * The group size sets how deep waits nest, which is what the cascade's cost
 * grows with: one ring of 64 threads nests every wait 63 deep, the worst case.
 *
 *   gen_trace -n EVENTS [-t THREADS] [-g GROUP] -o FILE
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/trace/trace.h"

#define TGID 1000
#define DISK ((254u << 20) | 0)

struct gen {
	struct wperf_trace_writer *w;
	struct wperf_error err;
	uint64_t ts, written, target;
	unsigned cpu;
};

static int emit(struct gen *g, struct wperf_event *ev)
{
	ev->hdr.ts = g->ts;
	ev->hdr.cpu = g->cpu;
	g->written++;
	return wperf_trace_writer_event(g->w, ev, &g->err);
}

static int emit_switch(struct gen *g, uint32_t prev, uint32_t next, int blocked)
{
	struct wperf_event ev = {.hdr = {.kind = WPERF_EV_SWITCH, .tid = prev, .tgid = TGID}};

	ev.hdr.flags = blocked ? 0 : WPERF_SWITCH_PREEMPTED;
	ev.sw.next_tid = next;
	ev.sw.next_tgid = TGID;
	ev.sw.prev_state = blocked ? 1 : 0;
	ev.sw.kstack = blocked ? (int32_t)(prev % 7) : WPERF_NO_STACK;
	ev.sw.ustack = blocked ? (int32_t)(100 + prev % 5) : WPERF_NO_STACK;
	return emit(g, &ev);
}

static int emit_wakeup(struct gen *g, uint32_t tid, uint32_t waker, uint8_t context, int32_t irq)
{
	struct wperf_event ev = {.hdr = {.kind = WPERF_EV_WAKEUP, .tid = tid, .tgid = TGID}};

	ev.hdr.flags = context;
	ev.wake.waker_tid = context == WPERF_CTX_THREAD ? waker : 0;
	ev.wake.waker_tgid = context == WPERF_CTX_THREAD ? TGID : 0;
	ev.wake.irq = irq;
	ev.wake.kstack = context == WPERF_CTX_THREAD ? 20 : WPERF_NO_STACK;
	ev.wake.ustack = context == WPERF_CTX_THREAD ? 120 : WPERF_NO_STACK;
	return emit(g, &ev);
}

static int emit_block(struct gen *g, uint8_t kind, uint32_t tid, uint64_t sector)
{
	struct wperf_event ev = {.hdr = {.kind = kind, .tid = tid, .tgid = TGID}};

	ev.hdr.flags = kind == WPERF_EV_BLOCK_ISSUE ? WPERF_CTX_THREAD : WPERF_CTX_SOFTIRQ;
	ev.block.irq = kind == WPERF_EV_BLOCK_ISSUE ? 0 : WPERF_SOFTIRQ_BLOCK;
	ev.block.dev = DISK;
	ev.block.sector = sector;
	ev.block.bytes = 65536;
	ev.block.op = 1;
	return emit(g, &ev);
}

/*
 * One round: each worker in turn wakes the next and blocks (2 events each, a
 * few microseconds apart); every round the logger issues a write, blocks, and
 * is woken by the disk's completion.
 */
static int round_of_work(struct gen *g, unsigned threads, unsigned group, uint64_t round)
{
	const uint32_t first = TGID + 1, logger = TGID + 1 + threads;
	int e = 0;

	for (unsigned i = 0; i < threads && !e; i++) {
		uint32_t base = i / group * group,
			 size = threads - base < group ? threads - base : group;
		uint32_t me = first + i, next = first + base + (i - base + 1) % size;

		g->cpu = i & 1;
		g->ts += 2000 + (round * 7 + i * 13) % 3000;
		e = emit_wakeup(g, next, me, WPERF_CTX_THREAD, 0);
		g->ts += 500;
		if (!e)
			e = emit_switch(g, me, next, 1);
	}
	if (!e)
		e = emit_block(g, WPERF_EV_BLOCK_ISSUE, logger, round * 128);
	if (!e)
		e = emit_switch(g, logger, 0, 1);
	g->ts += 40000;
	if (!e)
		e = emit_block(g, WPERF_EV_BLOCK_COMPLETE, 0, round * 128);
	if (!e)
		e = emit_wakeup(g, logger, 0, WPERF_CTX_SOFTIRQ, WPERF_SOFTIRQ_BLOCK);
	if (!e)
		e = emit_switch(g, 0, logger, 0);
	return e;
}

static int write_tables(struct gen *g, unsigned threads)
{
	struct wperf_thread *t = calloc(threads + 2, sizeof(*t));
	const char *keys[] = {"format", "recorder", "ncpu", "clock"};
	const char *values[] = {"wperf-trace", "gen_trace", "2", "CLOCK_MONOTONIC"};
	int e;

	if (!t)
		return -ENOMEM;
	e = wperf_trace_writer_meta(g->w, keys, values, 4, &g->err);
	for (unsigned i = 0; i < threads + 2; i++) {
		t[i].tid = TGID + i;
		t[i].tgid = TGID;
		t[i].ppid = 1;
		if (i == 0)
			snprintf(t[i].comm, sizeof(t[i].comm), "server");
		else if (i <= threads)
			snprintf(t[i].comm, sizeof(t[i].comm), "worker-%u", (i - 1) % 10000);
		else
			snprintf(t[i].comm, sizeof(t[i].comm), "logger");
	}
	if (!e)
		e = wperf_trace_writer_threads(g->w, t, threads + 2, &g->err);
	free(t);
	return e;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	unsigned threads = 64, group = 4;
	struct gen g = {.ts = 1000000000};
	uint64_t lost[2] = {0, 0}, start;
	int c, fd, e;

	while ((c = getopt(argc, argv, "n:t:g:o:")) != -1) {
		if (c == 'n')
			g.target = strtoull(optarg, NULL, 10);
		else if (c == 't')
			threads = strtoul(optarg, NULL, 10);
		else if (c == 'g')
			group = strtoul(optarg, NULL, 10);
		else if (c == 'o')
			out = optarg;
	}
	if (!out || !g.target || threads < 2 || group < 2) {
		fprintf(stderr,
			"usage: gen_trace -n EVENTS [-t THREADS >= 2] [-g GROUP >= 2] -o FILE\n");
		return 2;
	}
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "gen_trace: %s: %s\n", out, strerror(errno));
		return 2;
	}
	e = wperf_trace_writer_new(fd, NULL, &g.w, &g.err);
	if (!e)
		e = write_tables(&g, threads);
	start = g.ts;
	for (uint64_t round = 0; !e && g.written < g.target; round++)
		e = round_of_work(&g, threads, group, round);
	if (!e) {
		struct wperf_trace_stats st = {
		    .start_ts = start, .end_ts = g.ts + 1, .ncpu = 2, .lost = lost};

		e = wperf_trace_writer_finish(g.w, &st, &g.err);
	}
	wperf_trace_writer_free(g.w);
	close(fd);
	if (e) {
		fprintf(stderr, "gen_trace: %s\n", g.err.msg);
		return 2;
	}
	printf("%llu events\n", (unsigned long long)g.written);
	return 0;
}
