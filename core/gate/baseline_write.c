/* SPDX-License-Identifier: MIT */
/*
 * Writing a baseline (see baseline.h) as YAML with the strict-document kit
 * (core/util/doc_yaml.h): strings quoted where they would read back as
 * something else, numbers exact, short lists on one line.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/baseline.h"
#include "core/gate/baseline_internal.h"
#include "core/util/doc_yaml.h"

/* Flow sequences: [a, b] and [0.5, 0.25]. */
static void strings(struct wperf_yaml_writer *w, char *const *s, size_t n)
{
	wperf_yaml_write_list(w, 1);
	for (size_t i = 0; i < n; i++)
		wperf_yaml_write_string(w, s[i]);
	wperf_yaml_write_list_end(w);
}

static void numbers(struct wperf_yaml_writer *w, const double *v, size_t n)
{
	wperf_yaml_write_list(w, 1);
	for (size_t i = 0; i < n; i++)
		wperf_yaml_write_number(w, v[i]);
	wperf_yaml_write_list_end(w);
}

static void write_env(struct wperf_yaml_writer *w, const struct wperf_env *env)
{
	wperf_yaml_write_key(w, "environment");
	/* On one line, unless it has the CPU model: that one is long, and the
	 * emitter would fold it in the middle to keep within its width. */
	wperf_yaml_write_mapping(w, !env->cpu_model[0]);
	if (env->kernel[0]) {
		wperf_yaml_write_key(w, "kernel");
		wperf_yaml_write_string(w, env->kernel);
	}
	if (env->cpus) {
		wperf_yaml_write_key(w, "cpus");
		wperf_yaml_write_count(w, env->cpus);
	}
	if (env->tool[0]) {
		wperf_yaml_write_key(w, "tool");
		wperf_yaml_write_string(w, env->tool);
	}
	if (env->cpu_model[0]) {
		wperf_yaml_write_key(w, "cpu");
		wperf_yaml_write_string(w, env->cpu_model);
	}
	if (env->calibration > 0) { /* NaN too is unknown */
		wperf_yaml_write_key(w, "calibration");
		wperf_yaml_write_number(w, env->calibration);
	}
	wperf_yaml_write_mapping_end(w);
}

static void write_throughput(struct wperf_yaml_writer *w, const struct wperf_baseline *b)
{
	wperf_yaml_write_key(w, "throughput");
	wperf_yaml_write_mapping(w, 1);
	wperf_yaml_write_key(w, "samples");
	numbers(w, b->throughput, b->nthroughput);
	if (b->unit) {
		wperf_yaml_write_key(w, "unit");
		wperf_yaml_write_string(w, b->unit);
	}
	wperf_yaml_write_mapping_end(w);
}

static void write_knots(struct wperf_yaml_writer *w, const struct wperf_baseline *b)
{
	wperf_yaml_write_key(w, "knots");
	wperf_yaml_write_list(w, !b->nknots); /* [] when empty */
	for (size_t i = 0; i < b->nknots; i++) {
		wperf_yaml_write_mapping(w, 0);
		wperf_yaml_write_key(w, "vertices");
		strings(w, b->knots[i].vertices.ids, b->knots[i].vertices.n);
		wperf_yaml_write_key(w, "seen");
		wperf_yaml_write_count(w, b->knots[i].seen);
		wperf_yaml_write_mapping_end(w);
	}
	wperf_yaml_write_list_end(w);
}

static void write_edges(struct wperf_yaml_writer *w, const struct wperf_baseline *b)
{
	wperf_yaml_write_key(w, "edges");
	wperf_yaml_write_list(w, !b->nedges);
	for (size_t i = 0; i < b->nedges; i++) {
		wperf_yaml_write_mapping(w, 0);
		wperf_yaml_write_key(w, "from");
		wperf_yaml_write_string(w, b->edges[i].from);
		wperf_yaml_write_key(w, "to");
		wperf_yaml_write_string(w, b->edges[i].to);
		wperf_yaml_write_key(w, "samples");
		numbers(w, b->edges[i].samples, b->runs);
		wperf_yaml_write_mapping_end(w);
	}
	wperf_yaml_write_list_end(w);
}

static void write_accepted(struct wperf_yaml_writer *w, const struct wperf_baseline *b)
{
	if (!b->naccepted)
		return;
	wperf_yaml_write_key(w, "accepted");
	wperf_yaml_write_list(w, 0);
	for (size_t i = 0; i < b->naccepted; i++) {
		const struct wperf_accepted *a = &b->accepted[i];

		wperf_yaml_write_mapping(w, 0);
		if (a->is_edge) {
			wperf_yaml_write_key(w, "edge");
			wperf_yaml_write_mapping(w, 1);
			wperf_yaml_write_key(w, "from");
			wperf_yaml_write_string(w, a->globs[0]);
			wperf_yaml_write_key(w, "to");
			wperf_yaml_write_string(w, a->globs[1]);
			wperf_yaml_write_mapping_end(w);
		} else {
			wperf_yaml_write_key(w, "knot");
			strings(w, a->globs, a->nglobs);
		}
		wperf_yaml_write_key(w, "reason");
		wperf_yaml_write_string(w, a->reason);
		wperf_yaml_write_mapping_end(w);
	}
	wperf_yaml_write_list_end(w);
}

static void write_metrics(struct wperf_yaml_writer *w, const struct wperf_baseline *b)
{
	if (!b->nmetrics)
		return;
	wperf_yaml_write_key(w, "metrics");
	wperf_yaml_write_list(w, 0);
	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct wperf_baseline_metric *m = &b->metrics[i];

		wperf_yaml_write_mapping(w, 0);
		wperf_yaml_write_key(w, "name");
		wperf_yaml_write_string(w, m->metric.name);
		if (m->metric.unit[0]) {
			wperf_yaml_write_key(w, "unit");
			wperf_yaml_write_string(w, m->metric.unit);
		}
		wperf_yaml_write_key(w, "lower_is_better");
		wperf_yaml_write_plain(w, m->metric.lower_is_better ? "true" : "false");
		wperf_yaml_write_key(w, "samples");
		numbers(w, m->samples, m->nsamples);
		wperf_yaml_write_mapping_end(w);
	}
	wperf_yaml_write_list_end(w);
}

static void write_document(struct wperf_yaml_writer *w, const struct wperf_baseline *b)
{
	wperf_yaml_write_mapping(w, 0);
	wperf_yaml_write_key(w, "format");
	wperf_yaml_write_plain(w,
			       b->nmetrics ? WPERF_BASELINE_FORMAT_METRICS : WPERF_BASELINE_FORMAT);
	wperf_yaml_write_key(w, "scenario");
	wperf_yaml_write_string(w, b->scenario);
	write_env(w, &b->env);
	wperf_yaml_write_key(w, "runs");
	wperf_yaml_write_count(w, b->runs);
	write_throughput(w, b);
	write_knots(w, b);
	write_edges(w, b);
	write_metrics(w, b);
	write_accepted(w, b);
	wperf_yaml_write_mapping_end(w);
}

int wperf_baseline_write(const struct wperf_baseline *b, struct wperf_buf *out,
			 struct wperf_error *err)
{
	struct wperf_yaml_writer w = {0};
	size_t start = out->len;
	int ret;

	if (!b->scenario)
		return wperf_error_set(err, -EINVAL, "the baseline has no scenario name");
	ret = wperf_buf_printf(out,
			       "# The wperf-bench baseline of a scenario, written by `wperf-bench "
			       "baseline update`.\n# Edit only accepted: known bottlenecks, each "
			       "with a reason.\n") < 0
		  ? -ENOMEM
		  : 0;
	if (!ret) {
		ret = wperf_yaml_writer_init(&w, out, 100);
		write_document(&w, b);
		ret = ret ? ret : wperf_yaml_writer_finish(&w);
		wperf_yaml_writer_release(&w);
	}
	if (!ret)
		return 0;
	out->len = start;
	if (ret == -ENOMEM)
		return wperf_error_set(err, -ENOMEM, "out of memory while writing a baseline");
	return wperf_error_set(err, -EINVAL, "cannot write the baseline of %s: %s", b->scenario,
			       w.infinite ? "a number is not finite"
					  : "a string is not valid UTF-8");
}
