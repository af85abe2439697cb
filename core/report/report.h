/* SPDX-License-Identifier: MIT */
/*
 * Writing an analysis for people (text) and machines (JSON, schema in
 * docs/report-schema.md). Writers append to a struct wperf_buf; printing it is
 * the caller's business.
 */
#ifndef WPERF_REPORT_H
#define WPERF_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/analysis.h"
#include "core/analysis/select.h"
#include "core/analysis/stack_text.h"
#include "core/util/buf.h"
#include "core/analysis/symbolize.h"

#define WPERF_REPORT_SCHEMA "wperf-report/1"

struct wperf_report_opts {
	const char *trace_name; /* shown in the report */
	unsigned top_sites;	/* call sites per edge; 0: 3 */
	unsigned frames;	/* frames per stack in the text; 0: 6 */
	unsigned top_edges;	/* dot, svg: the heaviest edges drawn, with every knot edge;
				   0: all up to 60 */
	unsigned outside_edges; /* text: long waits outside the knots listed; 0: 5 */
	const char *target; /* only the knots these processes wait for: a name or "PID[,PID...]" */
	const char *const *aliases; /* "IDENTITY=NAME": what people see for a vertex */
	size_t naliases;
};

int wperf_report_text(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
		      const struct wperf_report_opts *opts, struct wperf_buf *out);

int wperf_report_json(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
		      const struct wperf_report_opts *opts, struct wperf_buf *out);

/*
 * The checks of the model against the kernel's counters (checks.h) as text:
 * a table of the lines, but of the threads only those that warn and the
 * target's (NULL: the 10 that ran longest), then how interrupt time is
 * counted; "no counters in this trace" for a trace without them. For the text
 * report and `wperf-bench info`. 0 or -ENOMEM.
 */
int wperf_report_checks_text(const struct wperf_checks *c, const char *target,
			     struct wperf_buf *out);

/* ---- graph, flame graph and timeline exports (report_dot.c, report_folded.c,
 * report_perfetto.c) ---- */

/*
 * Graphviz DOT of the merged wait-for graph: final knots as clusters, edges
 * solid and bold at or above the threshold, dashed below, irq vertices left
 * out. opts->top_edges bounds the edges drawn (plus every edge inside a knot;
 * 0: all up to 60, else the 60 heaviest). opts->target picks the knots shown.
 * A legend says what the marks mean; tooltips (the SVG's hover text) name an
 * edge's ends and its opts->top_sites heaviest call sites (none when sym is NULL).
 */
int wperf_report_dot(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
		     const struct wperf_report_opts *opts, struct wperf_buf *out);

/*
 * Folded stacks for flamegraph.pl and speedscope, one "frame;frame;... COUNT"
 * line each, COUNT in microseconds: per edge and call site
 *   FROM->TO;waiter user root..leaf;waiter kernel root..leaf;--;waker kernel
 *   leaf..root;waker user leaf..root
 * then the CMetric's critical slices as "cmetric;VERTEX;frames root..leaf".
 */
int wperf_report_folded(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			const struct wperf_report_opts *opts, struct wperf_buf *out);

/* Appends text (n bytes) to line as a frame of a folded line, after a ';'
 * unless line is empty: ';', spaces and control characters, which would break
 * the line, become '_'. 0 or -ENOMEM. */
int wperf_folded_frame(struct wperf_buf *line, const char *text, size_t n);

/*
 * Chrome trace-event JSON of the timeline (Perfetto, chrome://tracing): a track
 * per thread (" [knot N]" after the names of the members of the knots that
 * opts->target waits for), a process of its own per disk and NIC, a slice per
 * segment, a flow arrow per wakeup.
 */
int wperf_report_perfetto(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			  const struct wperf_report_opts *opts, struct wperf_buf *out);

/* ---- shared by the writers ---- */

/* What people see for a vertex: its alias from opts, or its identity. */
const char *wperf_report_display(const struct wperf_report_opts *opts, const char *identity);

/* "thread", "disk", "nic", "irq". */
const char *wperf_vertex_kind_name(uint8_t kind);

#endif /* WPERF_REPORT_H */
