/* SPDX-License-Identifier: MIT */
#include "trace_sink.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "core/buf.h"

#define PID_LIMIT (1u << 22) /* the kernel's PID_MAX_LIMIT on 64-bit */

struct trace_sink {
	struct trace_sink_opts opts;
	struct ring_buffer *rb;
	pthread_t thread;
	int started;
	atomic_int stop;
	atomic_int failed;
	atomic_uint_fast64_t written;
	struct wperf_error error; /* why it failed; read once failed is set */

	struct wperf_buf pending;	    /* struct wperf_event[], sorted by ts */
	uint8_t *kstack_used, *ustack_used; /* bitsets over stack ids */
	uint8_t *mapped;		    /* bitset over tgids whose mappings were read */
	struct proc_mappings mappings;
};

static int bit_test(const uint8_t *set, uint32_t i)
{
	return (set[i >> 3] >> (i & 7)) & 1;
}

static void bit_set(uint8_t *set, uint32_t i)
{
	set[i >> 3] |= 1u << (i & 7);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock of bpf_ktime_get_ns */
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void note_stack(uint8_t *used, uint32_t limit, int32_t id)
{
	if (id >= 0 && (uint32_t)id < limit)
		bit_set(used, id);
}

/*
 * Reads a process's mappings from /proc the first time it shows up in a user
 * stack. A program executed during the recording needs none: its mappings all
 * come as mmap records (without those, it is read at once, while it lives).
 */
static void note_process(struct trace_sink *s, const struct wperf_event *ev)
{
	uint32_t tgid = 0;

	if (ev->hdr.kind == WPERF_EV_EXEC) {
		if (ev->hdr.tgid < PID_LIMIT && s->opts.mmaps) {
			bit_set(s->mapped, ev->hdr.tgid);
			return;
		}
		tgid = ev->hdr.tgid;
	} else if (ev->hdr.kind == WPERF_EV_SWITCH && ev->sw.ustack >= 0) {
		tgid = ev->hdr.tgid;
	} else if (ev->hdr.kind == WPERF_EV_WAKEUP && ev->wake.ustack >= 0) {
		tgid = ev->wake.waker_tgid;
	}
	if (tgid == 0 || tgid >= PID_LIMIT)
		return;
	if (ev->hdr.kind != WPERF_EV_EXEC && bit_test(s->mapped, tgid))
		return;
	bit_set(s->mapped, tgid);
	proc_mappings_add(&s->mappings, tgid); /* a process already gone is counted there */
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct trace_sink *s = ctx;
	struct wperf_event ev = {0};
	struct wperf_event *events;
	size_t n;

	if (size < sizeof(ev.hdr) || size > sizeof(ev))
		return 0; /* not one of ours: cannot happen with our own programs */
	memcpy(&ev, data, size);
	if (ev.hdr.kind == WPERF_EV_SWITCH) {
		note_stack(s->kstack_used, s->opts.stack_ids, ev.sw.kstack);
		note_stack(s->ustack_used, s->opts.stack_ids, ev.sw.ustack);
	} else if (ev.hdr.kind == WPERF_EV_WAKEUP || ev.hdr.kind == WPERF_EV_WAKEUP_NEW) {
		note_stack(s->kstack_used, s->opts.stack_ids, ev.wake.kstack);
		note_stack(s->ustack_used, s->opts.stack_ids, ev.wake.ustack);
	}
	note_process(s, &ev);
	if (wperf_buf_append(&s->pending, &ev, sizeof(ev)) < 0)
		return -ENOMEM;
	/* Records arrive almost in order: an insertion step keeps pending sorted. */
	events = (struct wperf_event *)s->pending.data;
	n = s->pending.len / sizeof(ev);
	for (size_t i = n - 1; i > 0 && events[i - 1].hdr.ts > ev.hdr.ts; i--) {
		events[i] = events[i - 1];
		events[i - 1] = ev;
	}
	return 0;
}

/* Writes the pending records older than watermark. */
static int write_until(struct trace_sink *s, uint64_t watermark)
{
	struct wperf_event *events = (struct wperf_event *)s->pending.data;
	size_t n = s->pending.len / sizeof(*events), i;
	int e = 0;

	for (i = 0; i < n && events[i].hdr.ts <= watermark; i++) {
		e = wperf_trace_writer_event(s->opts.writer, &events[i], &s->error);
		if (e)
			break;
	}
	if (n > i) /* events is NULL while nothing is pending */
		memmove(events, events + i, (n - i) * sizeof(*events));
	s->pending.len = (n - i) * sizeof(*events);
	atomic_fetch_add(&s->written, i);
	return e;
}

static int drain(struct trace_sink *s, uint64_t watermark)
{
	int n;

	/* Mappings first: a program's mmap records come before its first stacks. */
	if (s->opts.mmaps && mmap_watch_drain(s->opts.mmaps, &s->mappings) < 0)
		return wperf_error_set(&s->error, -ENOMEM, "out of memory");
	n = ring_buffer__consume(s->rb);
	if (n < 0)
		return wperf_error_set(&s->error, n, "reading the BPF ring buffer: %s",
				       strerror(-n));
	return write_until(s, watermark);
}

static void *sink_main(void *arg)
{
	struct trace_sink *s = arg;
	int e = 0;

	while (!e && !atomic_load(&s->stop)) {
		/* The programs wake us only when a backlog builds up; otherwise the
		 * timeout paces the draining. */
		int n = ring_buffer__poll(s->rb, s->opts.poll_ms);

		if (n < 0 && n != -EINTR)
			e = wperf_error_set(&s->error, n, "waiting on the BPF ring buffer: %s",
					    strerror(-n));
		else
			e = drain(s, now_ns() - s->opts.reorder_ns);
	}
	if (!e)
		e = drain(s, UINT64_MAX);
	if (e)
		atomic_store(&s->failed, 1);
	return NULL;
}

int trace_sink_start(const struct trace_sink_opts *opts, struct trace_sink **out,
		     struct wperf_error *err)
{
	struct trace_sink *s = calloc(1, sizeof(*s));
	size_t stack_bytes = opts->stack_ids / 8 + 1;
	int e;

	if (!s)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	s->opts = *opts;
	proc_mappings_init(&s->mappings);
	s->kstack_used = calloc(1, stack_bytes);
	s->ustack_used = calloc(1, stack_bytes);
	s->mapped = calloc(1, PID_LIMIT / 8);
	if (!s->kstack_used || !s->ustack_used || !s->mapped) {
		trace_sink_free(s);
		return wperf_error_set(err, -ENOMEM, "out of memory");
	}
	s->rb = ring_buffer__new(opts->ringbuf_fd, on_record, s, NULL);
	if (!s->rb) {
		e = -errno;
		trace_sink_free(s);
		return wperf_error_set(err, e, "cannot open the BPF ring buffer: %s", strerror(-e));
	}
	e = pthread_create(&s->thread, NULL, sink_main, s);
	if (e) {
		trace_sink_free(s);
		return wperf_error_set(err, -e, "cannot start the writer thread: %s", strerror(e));
	}
	s->started = 1;
	*out = s;
	return 0;
}

uint64_t trace_sink_events(const struct trace_sink *s)
{
	return atomic_load(&((struct trace_sink *)s)->written);
}

int trace_sink_failed(struct trace_sink *s, struct wperf_error *err)
{
	if (!atomic_load(&s->failed))
		return 0;
	if (err)
		*err = s->error;
	return 1;
}

int trace_sink_stop(struct trace_sink *s, struct wperf_error *err)
{
	if (s->started) {
		atomic_store(&s->stop, 1);
		pthread_join(s->thread, NULL);
		s->started = 0;
	}
	if (trace_sink_failed(s, err))
		return err ? err->code : -EIO;
	return 0;
}

int trace_sink_stack_used(const struct trace_sink *s, int32_t id, int user)
{
	if (id < 0 || (uint32_t)id >= s->opts.stack_ids)
		return 0;
	return bit_test(user ? s->ustack_used : s->kstack_used, id);
}

struct proc_mappings *trace_sink_mappings(struct trace_sink *s)
{
	return &s->mappings;
}

void trace_sink_for_each_process(const struct trace_sink *s, void (*fn)(uint32_t tgid, void *ctx),
				 void *ctx)
{
	for (uint32_t tgid = 1; tgid < PID_LIMIT; tgid++)
		if (bit_test(s->mapped, tgid))
			fn(tgid, ctx);
}

void trace_sink_free(struct trace_sink *s)
{
	if (!s)
		return;
	if (s->started) {
		atomic_store(&s->stop, 1);
		pthread_join(s->thread, NULL);
	}
	ring_buffer__free(s->rb);
	wperf_buf_release(&s->pending);
	proc_mappings_release(&s->mappings);
	free(s->kstack_used);
	free(s->ustack_used);
	free(s->mapped);
	free(s);
}
