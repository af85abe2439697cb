/* SPDX-License-Identifier: MIT */
#include "harness/record/trace_sink.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "core/util/buf.h"

#define PID_LIMIT (1u << 22) /* the kernel's PID_MAX_LIMIT on 64-bit */

/*
 * The records of one CPU not yet written, sorted by time: events[head..len).
 * The programs stage records per CPU and hand them over in batches, so the
 * CPUs' records arrive out of order with one another but nearly in order within
 * one CPU (only a record written from an interrupt that came in the middle of
 * another overtakes it).
 */
struct cpu_queue {
	struct wperf_buf events; /* struct wperf_event[] */
	size_t head;		 /* the first one not written */
};

struct trace_sink {
	struct trace_sink_opts opts;
	struct ring_buffer *rb;
	pthread_t thread;
	int started;
	atomic_int stop;
	atomic_int failed;
	atomic_uint_fast64_t written;
	struct wperf_error error; /* why it failed; read once failed is set */

	struct cpu_queue *queues; /* per CPU: the records not yet written */
	unsigned ncpu;
	uint64_t last_flush;		    /* when the programs' stages were last flushed */
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

/* Keeps q sorted: a record is rarely more than a few places late in its CPU. */
static int queue_insert(struct cpu_queue *q, const struct wperf_event *ev)
{
	struct wperf_event *events;
	size_t i;

	if (wperf_buf_append(&q->events, ev, sizeof(*ev)) < 0)
		return -ENOMEM;
	events = (struct wperf_event *)q->events.data;
	i = q->events.len / sizeof(*ev) - 1;
	for (; i > q->head && events[i - 1].hdr.ts > ev->hdr.ts; i--)
		events[i] = events[i - 1];
	events[i] = *ev;
	return 0;
}

static int take_record(struct trace_sink *s, const void *data, size_t size)
{
	struct wperf_event ev = {0};

	memcpy(&ev, data, size);
	if (ev.hdr.kind == WPERF_EV_SWITCH) {
		note_stack(s->kstack_used, s->opts.stack_ids, ev.sw.kstack);
		note_stack(s->ustack_used, s->opts.stack_ids, ev.sw.ustack);
	} else if (ev.hdr.kind == WPERF_EV_WAKEUP || ev.hdr.kind == WPERF_EV_WAKEUP_NEW) {
		note_stack(s->kstack_used, s->opts.stack_ids, ev.wake.kstack);
		note_stack(s->ustack_used, s->opts.stack_ids, ev.wake.ustack);
	}
	note_process(s, &ev);
	return queue_insert(&s->queues[ev.hdr.cpu < s->ncpu ? ev.hdr.cpu : s->ncpu - 1], &ev);
}

/* One ring-buffer sample: a record, or a CPU's batch of them (wperf_event.h). */
static int on_sample(void *ctx, void *data, size_t size)
{
	const uint8_t *p = data;

	for (size_t off = 0; off + sizeof(struct wperf_event_hdr) <= size;) {
		struct wperf_event_hdr hdr;

		memcpy(&hdr, p + off, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > sizeof(struct wperf_event) ||
		    hdr.size > size - off)
			return 0; /* not one of ours: cannot happen with our own programs */
		if (take_record(ctx, p + off, hdr.size) < 0)
			return -ENOMEM;
		off += (hdr.size + WPERF_RECORD_ALIGN - 1) & ~(size_t)(WPERF_RECORD_ALIGN - 1);
	}
	return 0;
}

/* The queue whose next record is the oldest of all, if it is older than watermark. */
static struct cpu_queue *oldest_queue(struct trace_sink *s, uint64_t watermark)
{
	struct cpu_queue *oldest = NULL;
	uint64_t oldest_ts = watermark;

	for (unsigned cpu = 0; cpu < s->ncpu; cpu++) {
		struct cpu_queue *q = &s->queues[cpu];
		const struct wperf_event *next =
		    (const struct wperf_event *)q->events.data + q->head;

		if (q->head < q->events.len / sizeof(*next) && next->hdr.ts <= oldest_ts) {
			oldest = q;
			oldest_ts = next->hdr.ts;
		}
	}
	return oldest;
}

/* Drops a queue's written records once they are half of it or more: moving
 * the rest down at every drain would cost more than writing them. */
static void queue_compact(struct cpu_queue *q)
{
	size_t n = q->events.len / sizeof(struct wperf_event);

	if (q->head == 0 || q->head < n - q->head)
		return;
	memmove(q->events.data, (struct wperf_event *)q->events.data + q->head,
		(n - q->head) * sizeof(struct wperf_event));
	q->events.len = (n - q->head) * sizeof(struct wperf_event);
	q->head = 0;
}

/* Writes the pending records older than watermark, merging the CPUs' queues. */
static int write_until(struct trace_sink *s, uint64_t watermark)
{
	struct cpu_queue *q;
	uint64_t written = 0;
	int e = 0;

	while ((q = oldest_queue(s, watermark))) {
		e = wperf_trace_writer_event(
		    s->opts.writer, (struct wperf_event *)q->events.data + q->head, &s->error);
		if (e)
			break;
		q->head++;
		written++;
	}
	for (unsigned cpu = 0; cpu < s->ncpu; cpu++)
		queue_compact(&s->queues[cpu]);
	atomic_fetch_add(&s->written, written);
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

/*
 * Has the programs hand over what the CPUs have staged. While recording a
 * failure only delays records (the next flush, or the next full batch, brings
 * them); the last flush, after the programs are detached, must succeed.
 */
static int flush(struct trace_sink *s, int last)
{
	int e;

	if (!s->opts.flush)
		return 0;
	s->last_flush = now_ns();
	e = s->opts.flush(s->opts.flush_ctx);
	if (e && last)
		return wperf_error_set(&s->error, e,
				       "cannot collect the records the CPUs staged last: %s",
				       strerror(-e));
	return 0;
}

static void *sink_main(void *arg)
{
	struct trace_sink *s = arg;
	int e = 0;

	while (!e && !atomic_load(&s->stop)) {
		/* The programs wake us only when a backlog builds up; otherwise the
		 * timeout paces the draining. */
		int n = ring_buffer__poll(s->rb, s->opts.poll_ms);

		if (n < 0 && n != -EINTR) {
			e = wperf_error_set(&s->error, n, "waiting on the BPF ring buffer: %s",
					    strerror(-n));
			break;
		}
		if (now_ns() - s->last_flush >= s->opts.flush_ns)
			flush(s, 0);
		e = drain(s, now_ns() - s->opts.reorder_ns);
	}
	if (!e)
		e = flush(s, 1);
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
	e = libbpf_num_possible_cpus();
	s->ncpu = e > 0 ? e : 1;
	s->queues = calloc(s->ncpu, sizeof(*s->queues));
	if (!s->kstack_used || !s->ustack_used || !s->mapped || !s->queues) {
		trace_sink_free(s);
		return wperf_error_set(err, -ENOMEM, "out of memory");
	}
	s->rb = ring_buffer__new(opts->ringbuf_fd, on_sample, s, NULL);
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
	for (unsigned cpu = 0; s->queues && cpu < s->ncpu; cpu++)
		wperf_buf_release(&s->queues[cpu].events);
	free(s->queues);
	proc_mappings_release(&s->mappings);
	free(s->kstack_used);
	free(s->ustack_used);
	free(s->mapped);
	free(s);
}
