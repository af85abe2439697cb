/* SPDX-License-Identifier: MIT */
/*
 * The knots and sinks that bound a recording's throughput, with the edges
 * inside each knot: a program that uses libwperf through its public
 * interface alone (include/wperf/wperf.h), as another project would.
 *
 *   cc knots.c $(pkg-config --cflags --libs --static wperf) -o knots
 *   ./knots wperf.trace
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <wperf/wperf.h>

/* Is vertex v one of knot k's? */
static int in_knot(const struct wperf_analysis *a, size_t k, size_t v)
{
	for (size_t i = 0; i < wperf_analysis_knot_size(a, k); i++)
		if (wperf_analysis_knot_vertex(a, k, i) == v)
			return 1;
	return 0;
}

static void print_knot(const struct wperf_analysis *a, size_t k)
{
	double window = (double)wperf_analysis_window_ns(a);

	printf("%s %zu:", wperf_analysis_knot_is_sink(a, k) ? "sink" : "knot", k + 1);
	for (size_t i = 0; i < wperf_analysis_knot_size(a, k); i++)
		printf(" %s", wperf_analysis_vertex_name(a, wperf_analysis_knot_vertex(a, k, i)));
	printf("\n");
	for (size_t e = 0; e < wperf_analysis_edges(a); e++) {
		size_t from, to;
		uint64_t ns;

		wperf_analysis_edge(a, e, &from, &to, &ns);
		if (from != to && in_knot(a, k, from) && in_knot(a, k, to))
			printf("  %s -> %s  %.1f%% of the window\n",
			       wperf_analysis_vertex_name(a, from),
			       wperf_analysis_vertex_name(a, to), 100.0 * (double)ns / window);
	}
}

int main(int argc, char **argv)
{
	struct wperf_error err = {0};
	struct wperf_trace *t = NULL;
	struct wperf_analysis *a = NULL;
	int status = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: knots TRACE\n");
		return 2;
	}
	if (wperf_trace_open(argv[1], &t, &err) < 0 || wperf_unwind_copies(t, &err) < 0 ||
	    wperf_analyze(t, NULL, &a, &err) < 0) {
		fprintf(stderr, "knots: %s\n", err.msg);
		goto out;
	}
	printf("%s: %zu vertices, %zu edges, %zu knots and sinks (libwperf API %d)\n", argv[1],
	       wperf_analysis_vertices(a), wperf_analysis_edges(a), wperf_analysis_knots(a),
	       WPERF_API_VERSION);
	for (size_t k = 0; k < wperf_analysis_knots(a); k++)
		print_knot(a, k);
	status = 0;
out:
	wperf_analysis_free(a);
	wperf_trace_free(t);
	return status;
}
