/* SPDX-License-Identifier: MIT */
#include "harness/gate/check_flame.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/run_flame.h"
#include "harness/base/output.h"
#include "harness/run/analyze_run.h"

/* One side's runs' stacks into f; its operations (or seconds) into *ops. */
static int add_side(struct wperf_flame *f, enum wperf_flame_side side, const struct results *r,
		    struct wperf_flame_filter *ff, int per_op, double *ops, struct wperf_error *err)
{
	struct wperf_buf folded = {0};
	char path[PATH_MAX + 64];
	int e = 0;

	*ops = 0;
	for (size_t i = 0; i < r->runs.nruns && !e; i++) {
		const struct wperf_run *run = &r->runs.runs[i];
		double seconds = (double)run->window_ns / 1e9;

		snprintf(path, sizeof(path), "%s/runs/%zu/" ANALYZE_RUN_FOLDED, r->dir, i + 1);
		wperf_buf_clear(&folded);
		e = output_read_all(path, &folded, err);
		if (!e)
			e = wperf_flame_add_folded(f, side, ff, (const char *)folded.data,
						   folded.len, err);
		*ops += per_op ? run->throughput * seconds : seconds;
	}
	wperf_buf_release(&folded);
	return e;
}

/* The growing stacks' text (lines) as an array of strings. */
static int split_lines(const struct wperf_buf *text, char ***out, size_t *n)
{
	const char *p = (const char *)text->data, *end = p + text->len;
	char **lines = calloc(CHECK_FLAME_GROWING + 1, sizeof(*lines));

	*out = lines;
	*n = 0;
	if (!lines)
		return -ENOMEM;
	while (p < end && *n < CHECK_FLAME_GROWING) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!(lines[(*n)++] = strndup(p, len)))
			return -ENOMEM;
		p += len + 1;
	}
	return 0;
}

/* Does every run of r measure a throughput? Then the graph is per operation. */
static int all_measured(const struct results *r)
{
	for (size_t i = 0; i < r->runs.nruns; i++)
		if (!(r->runs.runs[i].throughput > 0))
			return 0;
	return r->runs.nruns > 0;
}

int check_flame(const struct results *base, const struct results *head, const char *dir,
		char ***growing, size_t *n, struct wperf_error *err)
{
	const struct results *side[2] = {base, head};
	struct wperf_flame_filter ff = {0};
	struct wperf_flame *f = NULL;
	struct wperf_flame_opts o = {.title = "Waits per operation, head against base"};
	struct wperf_buf svg = {0}, lines = {0};
	char path[PATH_MAX + 64];
	double ops[2];
	int per_op = all_measured(base) && all_measured(head);
	int e = wperf_flame_new(&f);

	*growing = NULL;
	*n = 0;
	for (int s = 0; s < 2 && !e; s++)
		for (size_t i = 0; i < side[s]->runs.nruns && !e; i++)
			e = wperf_flame_filter_add_run(&ff, &side[s]->runs.runs[i]);
	if (e)
		e = wperf_error_set(err, e, "out of memory");
	for (int s = 0; s < 2 && !e; s++)
		e = add_side(f, s ? WPERF_FLAME_B : WPERF_FLAME_A, side[s], &ff, per_op, &ops[s],
			     err);
	if (!e) {
		o.unit = per_op ? "µs/op" : "µs/s";
		o.title = per_op ? o.title : "Waits per second of window, head against base";
		o.scale_a = ops[0] > 0 ? 1 / ops[0] : 1;
		o.scale_b = ops[1] > 0 ? 1 / ops[1] : 1;
		if (wperf_flame_svg(f, &o, &svg) < 0 ||
		    wperf_flame_growing(f, &o, CHECK_FLAME_GROWING, &lines) < 0 ||
		    split_lines(&lines, growing, n) < 0)
			e = wperf_error_set(err, -ENOMEM, "out of memory");
	}
	snprintf(path, sizeof(path), "%s/" CHECK_FLAME_SVG, dir);
	if (!e)
		e = output_write(path, svg.data, svg.len, err);
	wperf_flame_filter_release(&ff);
	wperf_flame_free(f);
	wperf_buf_release(&svg);
	wperf_buf_release(&lines);
	return e;
}
