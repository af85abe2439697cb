/* SPDX-License-Identifier: MIT */
/*
 * libwperf, the analysis library of wperf-bench: read a trace that
 * `wperf-bench record` wrote, build wPerf's wait-for graph of it, find the
 * knots and sinks that bound its throughput, walk them, and write the report.
 *
 * This header and error.h are the library's public interface, and the only
 * headers `make install` publishes (#include <wperf/wperf.h>; pkg-config
 * wperf). Within one WPERF_API_VERSION they only grow: a name here keeps its
 * meaning. Every other header of the source tree is the library's inside.
 *
 * Functions that can fail return 0 or a negative errno, with a sentence in err
 * (which may be NULL). Objects are created by one function and freed by its
 * _free, NULL-safe. A trace must outlive the analyses made of it.
 */
#ifndef WPERF_PUBLIC_H
#define WPERF_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define WPERF_API_VERSION 1

struct wperf_trace;
struct wperf_analysis;
struct wperf_analysis_opts; /* the library's own options: pass NULL for the defaults */

/* ---- a trace ---- */

/*
 * Opens and validates the trace at path (every section, its CRC, the end);
 * errors name the path and the byte offset.
 */
int wperf_trace_open(const char *path, struct wperf_trace **out, struct wperf_error *err);

/*
 * Unwinds the user stacks `record --stacks dwarf` copied into the trace, with
 * the binaries named by its mappings; call it once after wperf_trace_open,
 * before analyzing (nothing to do for other traces).
 */
int wperf_unwind_copies(struct wperf_trace *t, struct wperf_error *err);

void wperf_trace_free(struct wperf_trace *t);

/* The trace's META value of key ("kernel", "command", ...), or NULL. */
const char *wperf_trace_meta(const struct wperf_trace *t, const char *key);

/* ---- its analysis ---- */

/* The wait-for graph of the whole machine's threads, devices and interrupts,
 * its knots and sinks, as `wperf-bench report` finds them. */
int wperf_analyze(const struct wperf_trace *t, const struct wperf_analysis_opts *opts,
		  struct wperf_analysis **out, struct wperf_error *err);

void wperf_analysis_free(struct wperf_analysis *a);

/* The recording window, ns. */
uint64_t wperf_analysis_window_ns(const struct wperf_analysis *a);

/* The graph's vertices (threads merged into identities, devices, interrupts),
 * numbered 0 .. n-1, and the name of vertex v ("fig1/B", "disk:254:0"). */
size_t wperf_analysis_vertices(const struct wperf_analysis *a);
const char *wperf_analysis_vertex_name(const struct wperf_analysis *a, size_t v);

/* The graph's edges, 0 .. n-1: edge i waits from vertex *from for *to,
 * weight_ns in all (after cascaded re-distribution). */
size_t wperf_analysis_edges(const struct wperf_analysis *a);
void wperf_analysis_edge(const struct wperf_analysis *a, size_t i, size_t *from, size_t *to,
			 uint64_t *weight_ns);

/* The knots and sinks of the whole machine's graph, heaviest first, 0 .. n-1
 * (`wperf-bench report` shows those its target waits for): whether knot k is
 * a sink (one vertex that waits for nobody: a thread short of CPU), and its
 * vertices. */
size_t wperf_analysis_knots(const struct wperf_analysis *a);
int wperf_analysis_knot_is_sink(const struct wperf_analysis *a, size_t k);
size_t wperf_analysis_knot_size(const struct wperf_analysis *a, size_t k);
size_t wperf_analysis_knot_vertex(const struct wperf_analysis *a, size_t k, size_t i);

/* ---- the report ---- */

enum wperf_report_format {
	WPERF_REPORT_TEXT = 0, /* for people, as `wperf-bench report` prints it */
	WPERF_REPORT_JSON = 1, /* docs/report-schema.md */
};

/*
 * The report of a (made of trace t, whose mappings name its stacks' frames)
 * into *out, a NUL-terminated string of *len bytes for the caller to free().
 */
int wperf_report(const struct wperf_analysis *a, const struct wperf_trace *t,
		 enum wperf_report_format format, char **out, size_t *len, struct wperf_error *err);

#endif /* WPERF_PUBLIC_H */
