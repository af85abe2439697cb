/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench dump: a trace's events as text, one a line, in file order:
 *
 *   TIME CPU KIND TID/TGID NAME DETAILS
 *
 * TIME is in seconds from the start of the recording window; DETAILS are
 * what the flags mean, then the kind's fields as name=value, as the table of
 * event kinds lists them (core/trace/event_kinds.h). With --counters, the
 * kernel's counters that the trace holds instead.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "core/trace/event_kinds.h"
#include "core/trace/event_text.h"
#include "core/trace/thread_table.h"

#define CMD "dump"

static void print_row(const char *what, const uint64_t *v, uint32_t n)
{
	printf("  %s:", what);
	for (uint32_t i = 0; i < n; i++)
		printf(" %" PRIu64, v[i]);
	printf("\n");
}

static void print_irq_rows(const char *kind, const struct wperf_irq_counters *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char what[320];

		snprintf(what, sizeof(what), "%s %s%s%s%s", kind, r[i].name, *r[i].desc ? " (" : "",
			 r[i].desc, *r[i].desc ? ")" : "");
		print_row(what, r[i].counts, r[i].ncpu);
	}
}

/* Both readings of the kernel's counters, row by row. */
static int dump_counters(const struct wperf_trace *t)
{
	static const char *const irq_time[] = {"in the thread", "apart", "unknown"};
	uint64_t start = wperf_trace_stats(t)->start_ts;

	for (unsigned when = WPERF_COUNTERS_START; when <= WPERF_COUNTERS_END; when++) {
		const struct wperf_counters *c = wperf_trace_counters(t, when);

		if (!c) {
			printf("no counters in this trace (recorded before trace format 1.1)\n");
			return EXIT_OK;
		}
		printf("counters at the window's %s: read at %.6f s, tick %u Hz, /proc/stat in "
		       "1/%u s, interrupt time %s%s\n",
		       when == WPERF_COUNTERS_START ? "start" : "end",
		       ((int64_t)(c->ts - start)) / 1e9, c->hz, c->user_hz,
		       irq_time[c->irq_time % 3],
		       c->flags & WPERF_COUNTERS_WHOLE_MACHINE ? ", the whole machine" : "");
		for (size_t i = 0; i < c->ndisks; i++) {
			char what[300];

			snprintf(what, sizeof(what), "disk %u:%u %s", c->disks[i].major,
				 c->disks[i].minor, c->disks[i].name);
			print_row(what, c->disks[i].fields, c->disks[i].nfields);
		}
		for (size_t i = 0; i < c->nnics; i++) {
			char what[300];

			snprintf(what, sizeof(what), "nic %u %s (type %u)", c->nics[i].ifindex,
				 c->nics[i].name, c->nics[i].type);
			print_row(what, c->nics[i].fields, c->nics[i].nfields);
		}
		for (size_t i = 0; i < c->ncpus; i++) {
			char what[32];

			snprintf(what, sizeof(what), "cpu%u", c->cpus[i].cpu);
			print_row(what, c->cpus[i].fields, c->cpus[i].nfields);
		}
		print_irq_rows("irq", c->irqs, c->nirqs);
		print_irq_rows("softirq", c->softirqs, c->nsoftirqs);
		for (size_t i = 0; i < c->nthreads; i++) {
			const struct wperf_thread_counters *th = &c->threads[i];

			printf("  thread %u/%u at %.6f s: run %" PRIu64 " ns, wait %" PRIu64
			       " ns, %" PRIu64 " slices\n",
			       th->tid, th->tgid, ((int64_t)(th->ts - start)) / 1e9, th->run_ns,
			       th->wait_ns, th->slices);
		}
	}
	return EXIT_OK;
}

struct dump_args {
	uint8_t wanted[WPERF_EV_KIND_MAX]; /* with filter: the kinds to print */
	int filter;
	int counters;
};

/* --kind KIND[,KIND...]: more kinds into the struct dump_args. */
static int parse_kinds(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	struct dump_args *args = field;
	char copy[512], *tok, *save = NULL;

	(void)opt;
	snprintf(copy, sizeof(copy), "%s", arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned k;

		for (k = 1; k < WPERF_EV_KIND_MAX; k++)
			if (!strcmp(tok, wperf_event_kind_name(k)))
				break;
		if (k == WPERF_EV_KIND_MAX)
			return cli_error(cmd, "--kind: unknown kind '%s'", tok);
		args->wanted[k] = 1;
	}
	args->filter = 1;
	return 0;
}

const struct cli_option cli_dump_options[] = {
    {0, "kind", "KIND[,KIND...]",
     "only these kinds (switch, wakeup, wakeup_new, fork, exec, exit, rename, hardirq_entry, "
     "..., spin_before, false_wakeup)",
     CLI_PARSE_ALL(parse_kinds)},
    {0, "counters", NULL,
     "the kernel's counters instead, as read at the window's start and end: every row, the "
     "kernel's numbers in its order",
     CLI_FLAG(struct dump_args, counters)},
    {0},
};

int cmd_dump(int argc, char **argv)
{
	struct dump_args args = {0};
	int e, status = cli_parse(CMD, &cli_dump_help, argc, argv, &args);
	struct wperf_trace *t = NULL;
	struct wperf_thread_table tt = {0};
	struct wperf_event_iter *it = NULL;
	struct wperf_error err = {0};
	struct wperf_event ev;
	uint64_t start;

	if (status >= 0)
		return status;
	status = EXIT_OK;
	if (cli_open_trace(CMD, argv[optind], 0, &t))
		return EXIT_ERROR;
	if (args.counters) {
		status = dump_counters(t);
		wperf_trace_free(t);
		return status;
	}
	start = wperf_trace_stats(t)->start_ts;
	if (wperf_thread_table_init(&tt, t) < 0 || wperf_event_iter_new(t, &it, &err) < 0) {
		status = cli_error(CMD, "%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	while ((e = wperf_event_iter_next(it, &ev, &err)) == 1) {
		char details[512];

		wperf_thread_table_apply(&tt, &ev);
		if (args.filter && (ev.hdr.kind >= WPERF_EV_KIND_MAX || !args.wanted[ev.hdr.kind]))
			continue;
		wperf_event_details(details, sizeof(details), &ev, &tt);
		printf("%14.9f [%03u] %-15s %u/%u %s%s\n", ((int64_t)(ev.hdr.ts - start)) / 1e9,
		       ev.hdr.cpu, wperf_event_kind_name(ev.hdr.kind), ev.hdr.tid, ev.hdr.tgid,
		       wperf_thread_table_name(&tt, ev.hdr.tid), details);
	}
	if (e < 0)
		status = cli_error(CMD, "%s", err.msg);
out:
	wperf_event_iter_free(it);
	wperf_thread_table_release(&tt);
	wperf_trace_free(t);
	return status;
}
