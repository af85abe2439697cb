/* SPDX-License-Identifier: MIT */
/*
 * The timeline build as a whole (see timeline.h): every event, in time order,
 * through the dispatch of timeline.c (sorting the few that came late), then
 * what is still open closed at the window's end and the timeline assembled.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/radix.h"
#include "core/analysis/timeline_cpu.h"
#include "core/analysis/timeline_devices.h"
#include "core/analysis/timeline_internal.h"
#include "core/analysis/timeline_irq.h"
#include "core/analysis/timeline_threads.h"
#include "core/trace/meta.h"

/*
 * A trace with late events is replayed in two passes. The events are split
 * into a main sequence (each at or after every main event before it) and the
 * late ones; the first pass collects and sorts only the late ones, the second
 * merges them into the main sequence as it goes. Memory stays proportional to
 * the late events, which are few in a real recording.
 */
struct late {
	struct wperf_event ev;
	uint64_t seq; /* position in the file: equal timestamps keep file order */
};

/* First pass: the late events, and the span of all timestamps. */
static int collect_late(struct tl_builder *b, struct wperf_buf *late, uint64_t *lo, uint64_t *hi)
{
	struct wperf_event_iter *it;
	struct wperf_event ev;
	uint64_t seq = 0, max = 0;
	void *tmp;
	int ret = wperf_event_iter_new(b->t, &it, b->err);

	*lo = UINT64_MAX;
	*hi = 0;
	while (ret == 0 && (ret = wperf_event_iter_next(it, &ev, b->err)) == 1) {
		uint64_t ts = ev.hdr.ts;

		*lo = ts < *lo ? ts : *lo;
		*hi = ts > *hi ? ts : *hi;
		if (seq > 0 && ts < max) {
			struct late *l = wperf_buf_push(late, sizeof(*l));

			if (!l)
				ret = wperf_error_set(b->err, -ENOMEM,
						      "out of memory sorting events");
			else
				*l = (struct late){ev, seq};
		} else {
			max = ts;
		}
		seq++;
		ret = ret < 0 ? ret : 0;
	}
	wperf_event_iter_free(it);
	if (ret < 0 || !late->len)
		return ret < 0 ? ret : 0;
	/* by time in linear time; stable, so by file order at equal times */
	tmp = malloc(late->len);
	if (!tmp || wperf_radix_sort(late->data, TL_COUNT(*late, struct late), sizeof(struct late),
				     offsetof(struct late, ev.hdr.ts), tmp) < 0)
		ret = wperf_error_set(b->err, -ENOMEM, "out of memory sorting events");
	free(tmp);
	return ret;
}

/* Second (or only) pass: every event through tl_step(), in time order. */
static int replay(struct tl_builder *b, const struct wperf_buf *late)
{
	const struct late *l = (const struct late *)(const void *)late->data;
	size_t nlate = TL_COUNT(*late, struct late), li = 0;
	struct wperf_event_iter *it;
	struct wperf_event ev;
	uint64_t seq = 0, max = 0;
	int ret = wperf_event_iter_new(b->t, &it, b->err);

	while (ret == 0 && !b->oom && (ret = wperf_event_iter_next(it, &ev, b->err)) == 1) {
		uint64_t s = seq++;

		ret = 0;
		if (nlate) {
			if (s > 0 && ev.hdr.ts < max)
				continue; /* a late one: it comes from the sorted list */
			max = ev.hdr.ts;
			for (; li < nlate && !b->oom &&
			       (l[li].ev.hdr.ts < ev.hdr.ts ||
				(l[li].ev.hdr.ts == ev.hdr.ts && l[li].seq < s));
			     li++)
				tl_step(b, &l[li].ev);
		}
		if (!b->oom)
			tl_step(b, &ev);
	}
	for (; ret == 0 && !b->oom && li < nlate; li++)
		tl_step(b, &l[li].ev);
	wperf_event_iter_free(it);
	if (ret == 0 && b->oom)
		ret = -ENOMEM;
	if (ret == -ENOMEM && (!b->err || b->err->code != -ENOMEM))
		wperf_error_set(b->err, -ENOMEM, "out of memory building the timeline");
	return ret < 0 ? ret : 0;
}

/* ---- the whole build ---- */

/* Closes what is still open at the window's end and names the living threads. */
static void close_all(struct tl_builder *b)
{
	size_t n = TL_COUNT(b->threads, struct tl_thread);

	for (uint32_t i = 0; i < n; i++) {
		struct tl_thread *th = tl_thr(b, i);

		if (th->state == TL_DEAD)
			continue;
		tl_close_open(b, i, b->end);
		th->died = b->end;
		tl_take_name(b, th);
	}
	tl_tally_finish(b);
}

static void release(struct tl_builder *b)
{
	wperf_thread_table_release(&b->names);
	wperf_idmap_release(&b->tids);
	wperf_buf_release(&b->tid_thread);
	for (size_t i = 0; i < TL_COUNT(b->threads, struct tl_thread); i++)
		wperf_buf_release(
		    &tl_thr(b, (uint32_t)i)->segs); /* those not given to the timeline */
	wperf_buf_release(&b->threads);
	wperf_buf_release(&b->cpus);
	wperf_buf_release(&b->spins);
	wperf_buf_release(&b->releases);
	wperf_buf_release(&b->marks);
	wperf_buf_release(&b->stacks); /* unless given to the timeline */
	free(b->stacks_slots);
	tl_devices_release(b);
	tl_sources_release(b);
	tl_tally_release(b);
}

int wperf_timeline_build(const struct wperf_trace *t, const struct wperf_timeline_opts *opts,
			 struct wperf_timeline **out, struct wperf_error *err)
{
	const struct wperf_trace_stats *st = wperf_trace_stats(t);
	struct tl_builder b = {.t = t, .err = err};
	struct wperf_buf late = {0};
	const char *targets;
	struct wperf_timeline *tl = NULL;
	int ret = 0;

	*out = NULL;
	if (opts)
		b.opts = *opts;
	b.start = st->start_ts;
	targets = wperf_trace_meta(t, WPERF_META_TARGETS);
	b.whole_machine = !targets || !strcmp(targets, "all");
	b.end = st->end_ts;
	if (wperf_thread_table_init(&b.names, t) < 0 || tl_sources_init(&b) < 0 ||
	    tl_stacks_init(&b) < 0 ||
	    (st->ncpu && !tl_cpu(&b, st->ncpu - 1 < TL_MAX_CPUS ? st->ncpu - 1 : 0)))
		ret = wperf_error_set(err, -ENOMEM, "out of memory building the timeline");
	/* Sort when the writer saw late events; with no valid window, span the events. */
	if (!ret && (st->late_events || b.end <= b.start)) {
		uint64_t lo, hi;

		ret = collect_late(&b, &late, &lo, &hi);
		if (!ret && b.end <= b.start) {
			b.start = lo <= hi ? lo : 0;
			b.end = lo <= hi ? hi : 0;
		}
	}
	if (!ret)
		ret = replay(&b, &late);
	wperf_buf_release(&late);
	if (!ret) {
		close_all(&b);
		tl_disks_finish(&b); /* the disks' busy time, which the devices' then uses */
		tl_devices_finish(&b);
		tl = calloc(1, sizeof(*tl));
		ret = tl ? 0 : -ENOMEM;
	}
	if (!ret) {
		tl->start = b.start;
		tl->end = b.end;
		tl->ncpu = st->ncpu;
		for (uint32_t c = 0; c < st->ncpu; c++)
			tl->lost_events += st->lost[c];
		for (int k = 0; k < WPERF_EV_KIND_MAX; k++)
			tl->recorded_events += st->events[k];
		tl->disk_requests_before = b.reqs_before;
		tl->disk_requests_unfinished = b.reqs_unfinished;
		tl->disk_requests_lost = b.reqs_lost;
		tl->jiffy_ns = b.jiffy_ns;
		ret = tl_assemble(&b, tl);
	}
	if (!ret)
		ret = tl_tally_assemble(&b, tl);
	if (ret == -ENOMEM && (!err || err->code != -ENOMEM))
		wperf_error_set(err, -ENOMEM, "out of memory building the timeline");
	release(&b);
	if (ret) {
		wperf_timeline_free(tl);
		return ret;
	}
	*out = tl;
	return 0;
}

void wperf_timeline_free(struct wperf_timeline *tl)
{
	if (!tl)
		return;
	for (size_t e = 0; tl->entities && e < tl->nentities; e++)
		free(tl->entities[e].segments);
	free(tl->entities);
	free(tl->shares);
	free(tl->stacks);
	free(tl->cpus);
	free(tl->break_threads);
	free(tl->nics);
	free(tl->exits);
	free(tl);
}
