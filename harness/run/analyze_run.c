/* SPDX-License-Identifier: MIT */
#include "harness/run/analyze_run.h"

#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "core/analysis/analysis.h"
#include "core/report/report.h"
#include "core/analysis/symbolize.h"
#include "harness/run/debug_cache.h"
#include "harness/run/graphviz.h"
#include "harness/base/output.h"

typedef int (*report_writer)(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			     const struct wperf_report_opts *o, struct wperf_buf *out);

/* Writes one report of a into run_dir/name, through Graphviz when render is
 * given (its output format). */
static int write_report(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			const struct wperf_report_opts *ro, report_writer writer,
			const char *render, const char *run_dir, const char *name,
			struct wperf_error *err)
{
	struct wperf_buf text = {0}, picture = {0}, *out = &text;
	char path[PATH_MAX];
	int e = writer(a, sym, ro, &text);

	snprintf(path, sizeof(path), "%s/%s", run_dir, name);
	if (e < 0)
		e = wperf_error_set(err, e, "%s: out of memory", path);
	if (!e && render) {
		e = graphviz_render((const char *)text.data, text.len, render, &picture, err);
		out = &picture;
	}
	if (!e)
		e = output_write(path, out->data, out->len, err);
	wperf_buf_release(&text);
	wperf_buf_release(&picture);
	return e;
}

static void analysis_opts(const struct scenario *s, struct wperf_analysis_opts *ao)
{
	const struct scenario_analysis *sa = &s->analysis;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	ao->threshold = sa->threshold;
	/* The scenario's 0 means no edge is left out; the analysis's 0 is "default". */
	ao->min_edge = isnan(sa->min_edge) ? 0 : sa->min_edge == 0 ? -1 : sa->min_edge;
	ao->merge.similar = sa->merge_similar;
	ao->capacity.disk_bytes_per_s = sa->disk_bytes_per_s;
	ao->capacity.disk_iops = sa->disk_iops;
	ao->capacity.nic_bits_per_s = sa->nic_bits_per_s;
	ao->jobs = cpus > 0 ? (unsigned)cpus : 1;
}

int analyze_run(const struct scenario *s, const char *trace, const char *target, double throughput,
		const char *run_dir, struct wperf_run *out, struct wperf_error *err)
{
	struct wperf_analysis_opts ao = {0};
	struct wperf_report_opts ro = {
	    .trace_name = trace,
	    .target = *target ? target : NULL,
	    .aliases = (const char *const *)s->analysis.aliases,
	    .naliases = s->analysis.naliases,
	};
	struct wperf_trace *t = NULL;
	struct wperf_analysis *a = NULL;
	struct wperf_symbolizer *sym = NULL;
	int e;

	analysis_opts(s, &ao);
	ao.target = ro.target; /* the CMetric is over its threads */
	e = wperf_trace_open(trace, &t, err);
	if (!e)
		debug_cache_use(t);
	if (!e)
		e = wperf_unwind_copies(t, err);
	if (!e)
		e = wperf_analyze(t, &ao, &a, err);
	if (!e)
		ro.target = a->target; /* a PID+ made the pids it names */
	/* A mistyped process name would judge nothing, as if it never waited.
	 * (The load's or a service's pids may have no thread in the window: a
	 * load that is done before it opens.) */
	if (!e && s->analysis.target.kind == SCENARIO_TARGET_PROCESS &&
	    (e = wperf_analysis_check_target(a, err)) < 0) {
		char msg[WPERF_ERROR_MSG_LEN];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		e = wperf_error_set(err, e, "analysis.%s", msg);
	}
	if (!e)
		e = wperf_symbolizer_new(t, &sym, err);
	if (!e)
		e = write_report(a, sym, &ro, wperf_report_json, NULL, run_dir, "report.json", err);
	if (!e)
		e = write_report(a, sym, &ro, wperf_report_text, NULL, run_dir, "report.txt", err);
	if (!e)
		e = write_report(a, sym, &ro, wperf_report_dot, "svg", run_dir, "graph.svg", err);
	if (!e) /* for the differential flame graph of a check (harness/gate/check_flame.h) */
		e = write_report(a, sym, &ro, wperf_report_folded, NULL, run_dir,
				 ANALYZE_RUN_FOLDED, err);
	if (!e)
		e = wperf_run_from_analysis(a, ro.target, throughput, sym, out, err);
	wperf_symbolizer_free(sym);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	return e;
}
