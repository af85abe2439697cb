/* SPDX-License-Identifier: MIT */
/*
 * The analyzer on traces recorded for real and committed under tests/data/, so
 * that it is tested from real kernel events on any machine, BPF or not.
 *
 * tests/data/fig1.trace: `wperf-bench record -- synthetic/fig1 -d 2
 * --write-bytes 4194304` on a 2-CPU VM (ext4 on virtio-blk, no journal).
 * tests/data/fig1-thread.trace: `wperf-bench record -- synthetic/fig1
 * --duration 2 --device=thread`, the same VM.
 * tests/data/spin-plain.trace: `wperf-bench record -- synthetic/spin
 * --duration 1 --no-annotate`, the same VM.
 * tests/data/falsewake.trace and falsewake-plain.trace: `wperf-bench record --
 * synthetic/falsewake --duration 0.3` with --annotate and --no-annotate.
 * tests/data/syncthreads.trace: `wperf-bench record --stacks none -- sh -c
 * 'awk "{print \$10}" /sys/block/vda/stat > before; synthetic/syncthreads
 * --threads 2 -d 0.5 --dir /var/tmp; awk "{print \$10}" /sys/block/vda/stat >
 * after'`, the same VM (Linux 6.18, CONFIG_HZ 250), recorded while this format's
 * block events were being made: its header says 1.1, its block events are
 * 1.2's and it has no COUNTERS section.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/analysis/analysis.h"
#include "core/report/report.h"
#include "core/gate/runset.h"
#include "core/analysis/timeline.h"
#include "core/trace/meta.h"
#include "core/trace/trace.h"

/* A committed trace, analyzed; its run as the gate keeps it (target: the
 * recorded command), and its text report into text (NUL-terminated). */
static void analyze_file(const char *path, struct wperf_run *run, struct wperf_buf *text)
{
	struct wperf_trace *t = NULL;
	struct wperf_analysis *a = NULL;
	struct wperf_symbolizer *sym = NULL;
	struct wperf_error err = {0};
	const char *pid;

	if (wperf_trace_open(path, &t, &err) < 0 || wperf_analyze(t, NULL, &a, &err) < 0 ||
	    wperf_symbolizer_new(t, &sym, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	pid = wperf_trace_meta(t, WPERF_META_COMMAND_PID);
	assert_non_null(pid);
	struct wperf_report_opts o = {.target = pid};

	if (wperf_run_from_analysis(a, pid, NAN, sym, run, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(wperf_report_text(a, sym, &o, text), 0);
	assert_int_equal(wperf_buf_append(text, "", 1), 0);
	wperf_symbolizer_free(sym);
	wperf_analysis_free(a);
	wperf_trace_free(t);
}

static int knot_has(const struct wperf_analysis *a, const struct wperf_knot *k, const char *prefix)
{
	for (size_t i = 0; i < k->nvertices; i++)
		if (!strncmp(a->merged.vertices[k->vertices[i]].identity, prefix, strlen(prefix)))
			return 1;
	return 0;
}

/* The knot that fig1 waits for holds B and the disk (with the kernel's writeback
 * workers that carry its fsync); A, which waits longest, is outside. */
static void test_fig1_trace(void **state)
{
	struct wperf_trace *t = NULL;
	struct wperf_analysis *a = NULL;
	struct wperf_symbolizer *sym = NULL;
	struct wperf_error err = {0};
	struct wperf_buf text = {0};
	const char *pid;
	int found = 0;

	(void)state;
	if (wperf_trace_open("tests/data/fig1.trace", &t, &err) < 0 ||
	    wperf_analyze(t, NULL, &a, &err) < 0 || wperf_symbolizer_new(t, &sym, &err) < 0)
		fail_msg("%s", err.msg);
	pid = wperf_trace_meta(t, WPERF_META_COMMAND_PID);
	assert_non_null(pid);
	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (k->kind != WPERF_KNOT || !wperf_knot_wanted(a, k, pid))
			continue;
		assert_true(knot_has(a, k, "fig1/B"));
		assert_true(knot_has(a, k, "disk:"));
		assert_false(knot_has(a, k, "fig1/A"));
		found++;
	}
	assert_int_equal(found, 1);
	struct wperf_report_opts o = {.target = pid};

	assert_int_equal(wperf_report_text(a, sym, &o, &text), 0);
	assert_int_equal(wperf_buf_append(&text, "", 1), 0);
	assert_non_null(strstr((char *)text.data, "verdict: 1 knot bounds the throughput"));
	/* recorded in format 1.0, before the kernel's counters were kept */
	assert_int_equal(wperf_trace_version_minor(t), 0);
	assert_null(wperf_trace_counters(t, WPERF_COUNTERS_START));
	assert_null(wperf_trace_counters(t, WPERF_COUNTERS_END));
	assert_false(a->checks.have_counters);
	assert_non_null(strstr((char *)text.data, "checks: no counters in this trace"));
	wperf_buf_release(&text);
	wperf_symbolizer_free(sym);
	wperf_analysis_free(a);
	wperf_trace_free(t);
}

/* The run keeps where its edges' time went, in the text a finding shows:
 * fig1/B waits for the writeback worker in fsync, woken from the page it
 * waited for (the worker's kernel stack, past the scheduler's frames); the
 * analysis's sites that read the same are one. The kernel's frames are read
 * from the trace's own symbol table, so they are the same on any machine;
 * user frames depend on this machine's libc and fig1 build, and only their
 * presence is checked. */
static void test_fig1_call_sites(void **state)
{
	struct wperf_buf text = {0};
	const struct wperf_run_edge *e;
	struct wperf_run run;

	(void)state;
	analyze_file("tests/data/fig1.trace", &run, &text);
	e = wperf_run_edge(&run, "fig1/B", "kworker/u#:#");
	assert_non_null(e);
	assert_int_equal(e->nsites, 1);
	assert_non_null(e->sites[0].waiter);
	assert_string_equal(e->sites[0].waker, "try_to_wake_up+0x3a4 <- wake_page_function+0x7d");
	assert_true(e->sites[0].share / e->share > 0.99);
	e = wperf_run_edge(&run, "kworker/#:#H", "fig1/B");
	assert_non_null(e);
	assert_true(e->nsites >= 1 && e->nsites <= WPERF_RUN_SITES);
	assert_string_equal(e->sites[0].waiter, "worker_thread+0x98 <- kthread+0xf8");
	assert_true(e->sites[0].share / e->share > 0.9);
	for (size_t i = 1; i < e->nsites; i++)
		assert_true(e->sites[i].share <= e->sites[i - 1].share);
	/* an edge of the disk: no stacks on its side, none on the other */
	e = wperf_run_edge(&run, "disk:254:0", "fig1/B");
	assert_non_null(e);
	assert_int_equal(e->nsites, 0);
	wperf_buf_release(&text);
	wperf_run_release(&run);
}

/* B and C take turns, and their CPU adds up to just under one: they are the
 * knot, not a background knot set aside (knots.h, WPERF_BACKGROUND_CPU). */
static void test_fig1_thread_trace(void **state)
{
	static const char *const knot[] = {"fig1/B", "fig1/C"}, *const out[] = {"fig1/A"};
	const struct wperf_expect x = {
	    .knot = knot, .nknot = 2, .not_in_knot = out, .nnot_in_knot = 1};
	struct wperf_buf text = {0};
	struct wperf_run run;
	char why[256];

	(void)state;
	analyze_file("tests/data/fig1-thread.trace", &run, &text);
	if (wperf_run_expect(&run, &x, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(run.nknots, 1);
	assert_non_null(strstr((char *)text.data, "knot 1: fig1/B, fig1/C"));
	assert_null(strstr((char *)text.data, "runnable time counted): fig1/"));
	wperf_run_release(&run);
	wperf_buf_release(&text);
}

/* A spin lock without annotations: the kernel sees no wait, so no knot; the
 * two spinning threads are busy sinks, and the report says what may hide. */
static void test_spin_plain_trace(void **state)
{
	static const char *const sinks[] = {"spin/holder", "spin/spinner"};
	const struct wperf_expect x = {.sink = sinks, .nsink = 2, .no_knot = 1};
	struct wperf_buf text = {0};
	struct wperf_run run;
	char why[256];

	(void)state;
	analyze_file("tests/data/spin-plain.trace", &run, &text);
	if (wperf_run_expect(&run, &x, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_non_null(strstr((char *)text.data, "verdict: 0 knots bound the throughput"));
	assert_non_null(strstr((char *)text.data, "busy: spin/holder"));
	assert_non_null(strstr((char *)text.data, "busy: spin/spinner"));
	assert_non_null(strstr((char *)text.data, "busy waiting (a spin lock, a polling loop) "
						  "hides waits from the kernel"));
	wperf_run_release(&run);
	wperf_buf_release(&text);
}

/* The share of the buyers' waiting time that ended with a buyer's wakeup, and
 * how many false wakeups the analysis removed. */
static double buyer_woken_by_buyer(const char *path, uint64_t *removed)
{
	struct wperf_trace *t = NULL;
	struct wperf_timeline *tl = NULL;
	struct wperf_error err = {0};
	uint64_t by_buyer = 0, all = 0;

	if (wperf_trace_open(path, &t, &err) < 0 || wperf_timeline_build(t, NULL, &tl, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	for (uint32_t i = 0; i < tl->nentities; i++) {
		const struct wperf_entity *e = &tl->entities[i];

		for (size_t k = 0; k < e->nsegments; k++) {
			const struct wperf_segment *s = &e->segments[k];
			uint64_t start = wperf_segment_start(e, k);

			if (s->state != WPERF_SEG_WAITING || e->kind != WPERF_ENTITY_THREAD ||
			    strcmp(e->name, "buyer") || s->waker >= tl->nentities)
				continue;
			all += s->end - start;
			if (!strcmp(tl->entities[s->waker].name, "buyer"))
				by_buyer += s->end - start;
		}
	}
	*removed = tl->false_wakeups_removed;
	wperf_timeline_free(tl);
	wperf_trace_free(t);
	assert_true(all > 0);
	return (double)by_buyer / (double)all;
}

/*
 * The ticket seller (wPerf 4.1): every broadcast wakes every buyer, and all but
 * one find nothing. Unannotated, 74% of the buyers' waiting seems to be for
 * other buyers (their "paid" broadcasts); with WPERF_FALSE_WAKEUP those waits
 * are removed and joined to the wait for the seller's next ticket, leaving the
 * buyers' real waits for each other, on the mutex (30%). The seller and the
 * buyers are then the knot.
 */
static void test_falsewake_traces(void **state)
{
	static const char *const knot[] = {"falsewake/seller", "falsewake/buyer"};
	const struct wperf_expect x = {.knot = knot, .nknot = 2};
	struct wperf_buf text = {0};
	struct wperf_run run;
	uint64_t removed;
	char why[256];

	(void)state;
	assert_true(buyer_woken_by_buyer("tests/data/falsewake-plain.trace", &removed) > 0.6);
	assert_int_equal(removed, 0);
	assert_true(buyer_woken_by_buyer("tests/data/falsewake.trace", &removed) < 0.4);
	assert_true(removed > 1000);

	analyze_file("tests/data/falsewake.trace", &run, &text);
	if (wperf_run_expect(&run, &x, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_non_null(strstr((char *)text.data, "false wakeups removed"));
	wperf_run_release(&run);
	wperf_buf_release(&text);
}

/*
 * The kernel's own count of the disk's busy time while syncthreads ran, read
 * around it from /sys/block/vda/stat (field 10, io_ticks, in ms): 1511216
 * before, 1511428 after. The VM's CONFIG_HZ is 250: 4 ms a jiffy.
 */
#define SYNCTHREADS_IO_TICKS_MS (1511428 - 1511216)
#define VM_JIFFY_MS		4

/*
 * Two threads fdatasync 4 KiB appends (issue 16's program): each sync ends
 * with a cache flush, issued at no sector and completed with no bytes. Every
 * flush is paired with its completion by its request, but one issued again
 * before it completed (its completion was lost); none is left in flight, and
 * the disk, idle between syncs, is idle at the window's end, as it was. Its
 * busy time, counted in jiffies as the kernel counts io_ticks, is what the
 * kernel counted, within 3% of the window. The trace lost completions (a
 * CPU's events, while the VM's agent ran on it): left in flight, one kept the
 * disk busy to the window's end (152 ms more than the kernel counted, 29% of
 * the window). The busy time in ns is 5.6% of the window above io_ticks: its
 * 5610 short busy periods count 0 or 1 jiffy each in io_ticks.
 */
static void test_syncthreads_disk_trace(void **state)
{
	const char *path = "tests/data/syncthreads.trace";
	struct wperf_trace *t = NULL;
	struct wperf_event_iter *it = NULL;
	struct wperf_timeline *tl = NULL;
	struct wperf_error err = {0};
	struct wperf_event ev;
	uint64_t flush_rq = 0, flushes = 0, paired = 0, unpaired = 0, first_done = 0;
	uint64_t last_issue = 0;
	uint64_t window_ms, ticks_ms;
	int idled = 0;
	const struct wperf_entity *disk = NULL;
	const struct wperf_segment *segs;
	size_t n;
	int e;

	(void)state;
	if (wperf_trace_open(path, &t, &err) < 0 || wperf_event_iter_new(t, &it, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
	while ((e = wperf_event_iter_next(it, &ev, &err)) == 1) {
		if ((ev.block.op & 0xff) != 2 ||
		    (ev.hdr.kind != WPERF_EV_BLOCK_ISSUE && ev.hdr.kind != WPERF_EV_BLOCK_COMPLETE))
			continue; /* not a flush */
		if (ev.hdr.kind == WPERF_EV_BLOCK_ISSUE) {
			assert_true(ev.block.sector == UINT64_MAX);
			unpaired += flush_rq != 0; /* issued again: a lost completion */
			flushes++;
			flush_rq = ev.block.rq;
			last_issue = ev.hdr.ts;
		} else if (flush_rq && ev.block.rq == flush_rq) {
			paired++;
			flush_rq = 0;
			first_done = first_done ? first_done : ev.hdr.ts;
		}
	}
	assert_int_equal(e, 0);
	assert_true(paired > 1000);
	assert_int_equal(paired + unpaired + (flush_rq != 0), flushes);

	if (wperf_timeline_build(t, NULL, &tl, &err) < 0)
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < tl->nentities; i++)
		if (!strcmp(tl->entities[i].name, "disk:254:0"))
			disk = &tl->entities[i];
	assert_non_null(disk);
	assert_int_equal(tl->disk_requests_unfinished, 0);
	assert_true(tl->disk_requests_lost > 0);
	/* idle after a flush, not in flight from the first to the window's end */
	segs = wperf_timeline_segments(tl, (uint32_t)(disk - tl->entities), &n);
	for (size_t k = 0; k < n; k++) {
		uint64_t from = wperf_segment_start(disk, k);

		idled |=
		    segs[k].state == WPERF_SEG_WAITING && from > first_done && from < last_issue;
	}
	assert_true(idled);
	assert_int_equal(segs[n - 1].state, WPERF_SEG_WAITING);
	window_ms = (tl->end - tl->start) / 1000000;
	ticks_ms = disk->io_ticks * VM_JIFFY_MS;
	assert_true(llabs((long long)ticks_ms - SYNCTHREADS_IO_TICKS_MS) * 100 <=
		    3 * (long long)window_ms);
	/* the jiffy the trace measures is the VM's */
	assert_true(llabs((long long)tl->jiffy_ns - VM_JIFFY_MS * 1000000) * 100 <=
		    VM_JIFFY_MS * 1000000);
	wperf_timeline_free(tl);
	wperf_event_iter_free(it);
	wperf_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fig1_trace),	      cmocka_unit_test(test_fig1_call_sites),
	    cmocka_unit_test(test_fig1_thread_trace), cmocka_unit_test(test_spin_plain_trace),
	    cmocka_unit_test(test_falsewake_traces),  cmocka_unit_test(test_syncthreads_disk_trace),
	};

	return cmocka_run_group_tests_name("recorded traces", tests, NULL, NULL);
}
