/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench info: what a trace holds: its header, window, event counts by
 * kind, lost events, tables, the kernel's counters and how the model agrees
 * with them, and the threads that appear in its events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/cli/cli.h"
#include "core/analysis/analysis.h"
#include "core/report/report.h"
#include "core/trace/meta.h"
#include "core/trace/thread_table.h"

#define CMD	    "info"
#define TOP_THREADS 20

struct info_args {
	int all_threads;
};

const struct cli_option cli_info_options[] = {
    {0, "threads", NULL, "every thread, not only the " CLI_STR(TOP_THREADS) " with the most events",
     CLI_FLAG(struct info_args, all_threads)},
    {0},
};

struct thread_count {
	uint32_t tid;
	uint64_t events;
};

static int by_events(const void *a, const void *b)
{
	const struct thread_count *x = a, *y = b;

	return x->events < y->events   ? 1
	       : x->events > y->events ? -1
				       : (x->tid > y->tid) - (x->tid < y->tid);
}

static void print_header(const struct wperf_trace *t)
{
	const struct wperf_trace_stats *st = wperf_trace_stats(t);
	size_t nthreads, nstacks, nmaps, nksyms, nperf, ncopies;
	uint64_t total = 0, lost = 0;

	printf("format: wperf trace %d.%u\n", WPERF_TRACE_MAJOR, wperf_trace_version_minor(t));
	for (size_t i = 0; i < wperf_trace_meta_count(t); i++) {
		const char *k, *v;

		wperf_trace_meta_at(t, i, &k, &v);
		printf("%s: %s\n", k, v);
	}
	printf("window: %.6f s (monotonic %" PRIu64 " .. %" PRIu64 ")\n",
	       (st->end_ts - st->start_ts) / 1e9, st->start_ts, st->end_ts);
	printf("events by kind:\n");
	for (unsigned k = 1; k < WPERF_EV_KIND_MAX; k++) {
		total += st->events[k];
		if (st->events[k])
			printf("  %-15s %12" PRIu64 "\n", wperf_event_kind_name(k), st->events[k]);
	}
	printf("  %-15s %12" PRIu64 "\n", "total", total);
	for (uint32_t c = 0; c < st->ncpu; c++)
		lost += st->lost[c];
	printf("lost events: %" PRIu64, lost);
	for (uint32_t c = 0; c < st->ncpu && lost; c++)
		printf("%s cpu%u %" PRIu64, c ? "," : " (", c, st->lost[c]);
	printf("%s\n", lost ? ")" : "");
	printf("stacks lost: %" PRIu64 " (map full or collided), unwalkable: %" PRIu64 "\n",
	       st->stack_lost, st->stack_fault);
	printf("events out of order: %" PRIu64 "\n", st->late_events);
	wperf_trace_threads(t, &nthreads);
	wperf_trace_stacks(t, &nstacks);
	wperf_trace_mappings(t, &nmaps);
	wperf_trace_ksyms(t, &nksyms);
	wperf_trace_perfmaps(t, &nperf);
	wperf_trace_stack_copies(t, &ncopies);
	printf("tables: %zu threads, %zu stacks", nthreads, nstacks);
	if (ncopies)
		printf(" and %zu user stacks copied (--stacks dwarf)", ncopies);
	printf(", %zu mappings, %zu kernel symbols, %zu perf maps\n", nmaps, nksyms, nperf);
}

static void print_counters(const struct wperf_trace *t)
{
	static const char *const irq_time[] = {
	    "in the running time of the thread interrupted (CONFIG_IRQ_TIME_ACCOUNTING off)",
	    "apart from the threads' (CONFIG_IRQ_TIME_ACCOUNTING on)", "not known"};
	const struct wperf_counters *s = wperf_trace_counters(t, WPERF_COUNTERS_START);
	const struct wperf_counters *e = wperf_trace_counters(t, WPERF_COUNTERS_END);

	if (!s || !e) {
		printf("counters: none in this trace (recorded before trace format 1.1)\n");
		return;
	}
	printf("counters: read at the window's start and end (wperf-bench dump --counters): "
	       "%zu disks, %zu interfaces, %zu CPUs, %zu interrupt lines, %zu softirqs, "
	       "%zu and %zu threads%s\n",
	       e->ndisks, e->nnics, e->ncpus, e->nirqs, e->nsoftirqs, s->nthreads, e->nthreads,
	       e->flags & WPERF_COUNTERS_WHOLE_MACHINE ? " (the whole machine)" : "");
	printf("kernel: tick %u Hz%s, interrupt time counted %s\n", e->hz,
	       e->hz ? "" : " (not known)", irq_time[e->irq_time % 3]);
}

/* The checks of the model against the counters, as the report has them. */
static int print_checks(const struct wperf_trace *t)
{
	struct wperf_buf excluded = {0}, text = {0};
	struct wperf_timeline_opts to = {0};
	struct wperf_timeline *tl = NULL;
	struct wperf_checks checks = {0};
	struct wperf_error err = {0};
	const char *target = wperf_trace_meta(t, WPERF_META_COMMAND_PID);
	int e = wperf_analysis_excluded(t, &excluded);

	to.exclude_tgids = (const uint32_t *)excluded.data;
	to.nexclude = excluded.len / sizeof(uint32_t);
	if (!e)
		e = wperf_timeline_build(t, &to, &tl, &err);
	if (!e) {
		struct wperf_checks_opts ko = {to.exclude_tgids, to.nexclude};

		e = wperf_checks_compute(tl, wperf_trace_counters(t, WPERF_COUNTERS_START),
					 wperf_trace_counters(t, WPERF_COUNTERS_END), &ko, &checks,
					 &err);
	}
	if (!e)
		e = wperf_report_checks_text(&checks, target && *target ? target : NULL, &text);
	if (!e)
		fwrite(text.data, 1, text.len, stdout);
	else
		e = cli_error(CMD, "%s", err.msg[0] ? err.msg : "out of memory");
	wperf_checks_release(&checks);
	wperf_timeline_free(tl);
	wperf_buf_release(&text);
	wperf_buf_release(&excluded);
	return e;
}

/* Counts the events of each thread, naming threads as of the end of the trace. */
static int print_threads(const struct wperf_trace *t, int all)
{
	struct wperf_thread_table tt = {0};
	struct wperf_idmap index = {0};
	struct wperf_buf counts = {0};
	struct wperf_event_iter *it = NULL;
	struct wperf_error err = {0};
	struct wperf_event ev;
	int e;

	if (wperf_thread_table_init(&tt, t) < 0 || wperf_event_iter_new(t, &it, &err) < 0) {
		e = cli_error(CMD, "%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	while ((e = wperf_event_iter_next(it, &ev, &err)) == 1) {
		int added;
		int64_t i = wperf_idmap_get(&index, ev.hdr.tid, &added);
		struct thread_count fresh = {ev.hdr.tid, 0};

		wperf_thread_table_apply(&tt, &ev);
		if (i < 0 || (added && wperf_buf_append(&counts, &fresh, sizeof(fresh)) < 0)) {
			e = -1;
			break;
		}
		((struct thread_count *)counts.data)[i].events++;
	}
	if (e < 0) {
		e = cli_error(CMD, "%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	size_t n = counts.len / sizeof(struct thread_count);
	struct thread_count *c = (struct thread_count *)counts.data;

	qsort(c, n, sizeof(*c), by_events);
	printf("threads with events: %zu%s\n", n, all || n <= TOP_THREADS ? "" : " (the busiest:)");
	printf("  %8s %8s %-16s %12s\n", "tid", "tgid", "name", "events");
	for (size_t i = 0; i < n && (all || i < TOP_THREADS); i++) {
		const struct wperf_thread *th = wperf_thread_table_find(&tt, c[i].tid);

		printf("  %8u %8u %-16s %12" PRIu64 "\n", c[i].tid, th ? th->tgid : 0,
		       wperf_thread_table_name(&tt, c[i].tid), c[i].events);
	}
	e = EXIT_OK;
out:
	wperf_event_iter_free(it);
	wperf_idmap_release(&index);
	wperf_buf_release(&counts);
	wperf_thread_table_release(&tt);
	return e;
}

int cmd_info(int argc, char **argv)
{
	struct info_args args = {0};
	struct wperf_trace *t;
	int status = cli_parse(CMD, &cli_info_help, argc, argv, &args);

	if (status >= 0)
		return status;
	if (cli_open_trace(CMD, argv[optind], 0, &t))
		return EXIT_ERROR;
	print_header(t);
	print_counters(t);
	status = print_checks(t);
	if (status == EXIT_OK)
		status = print_threads(t, args.all_threads);
	wperf_trace_free(t);
	return status;
}
