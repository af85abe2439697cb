/* SPDX-License-Identifier: MIT */
/*
 * libwperf's public interface (include/wperf/wperf.h) over the library: the
 * trace and analysis functions are the library's own, declared there as they
 * are here; what a caller walks (vertices, edges, knots) and the reports are
 * read out of the analysis here, so that its layout stays the library's.
 */
#include "include/wperf/wperf.h"

#include <errno.h>
#include <stdlib.h>

#include "core/analysis/analysis.h"
#include "core/analysis/symbolize.h"
#include "core/report/report.h"
#include "core/trace/trace.h"

uint64_t wperf_analysis_window_ns(const struct wperf_analysis *a)
{
	return a->window;
}

size_t wperf_analysis_vertices(const struct wperf_analysis *a)
{
	return a->merged.nvertices;
}

const char *wperf_analysis_vertex_name(const struct wperf_analysis *a, size_t v)
{
	return v < a->merged.nvertices ? a->merged.vertices[v].identity : NULL;
}

size_t wperf_analysis_edges(const struct wperf_analysis *a)
{
	return a->merged.graph.nedges;
}

void wperf_analysis_edge(const struct wperf_analysis *a, size_t i, size_t *from, size_t *to,
			 uint64_t *weight_ns)
{
	const struct wperf_edge *e = &a->merged.graph.edges[i];

	*from = e->from;
	*to = e->to;
	*weight_ns = e->weight;
}

size_t wperf_analysis_knots(const struct wperf_analysis *a)
{
	return a->knots.nfinal;
}

int wperf_analysis_knot_is_sink(const struct wperf_analysis *a, size_t k)
{
	return a->knots.knots[k].kind == WPERF_SINK;
}

size_t wperf_analysis_knot_size(const struct wperf_analysis *a, size_t k)
{
	return a->knots.knots[k].nvertices;
}

size_t wperf_analysis_knot_vertex(const struct wperf_analysis *a, size_t k, size_t i)
{
	return a->knots.knots[k].vertices[i];
}

int wperf_report(const struct wperf_analysis *a, const struct wperf_trace *t,
		 enum wperf_report_format format, char **out, size_t *len, struct wperf_error *err)
{
	struct wperf_symbolizer *sym = NULL;
	struct wperf_report_opts ro = {0};
	struct wperf_buf b = {0};
	int e;

	*out = NULL;
	*len = 0;
	if (format != WPERF_REPORT_TEXT && format != WPERF_REPORT_JSON)
		return wperf_error_set(err, -EINVAL, "no report format %d", (int)format);
	e = wperf_symbolizer_new(t, &sym, err);
	if (e)
		return e;
	e = format == WPERF_REPORT_JSON ? wperf_report_json(a, sym, &ro, &b)
					: wperf_report_text(a, sym, &ro, &b);
	if (!e)
		e = wperf_buf_append(&b, "", 1); /* the NUL, not counted */
	wperf_symbolizer_free(sym);
	if (e) {
		wperf_buf_release(&b);
		return wperf_error_set(err, e, "writing the report: %s",
				       e == -ENOMEM ? "out of memory" : "failed");
	}
	*len = b.len - 1;
	*out = (char *)b.data; /* the caller frees it: a buffer's memory is malloc's */
	return 0;
}
