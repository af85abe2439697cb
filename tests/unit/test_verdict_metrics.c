/* SPDX-License-Identifier: MIT */
/*
 * The gate's other metrics (core/gate/metric.h, verdict.h "Metrics"): each
 * tested as the throughput is, with its own direction and tolerance, each
 * finding naming it in the Markdown, the JUnit XML and a check's JSON (read
 * back the same); the baseline's metrics (format wperf-baseline/2) written and
 * read back, and refused with the place under format 1.
 *
 * The runs: throughput 1000 in each, one knot {disk:254:0, fig1/B} and the edge
 * fig1/B -> disk:254:0 at 0.40; the metrics latency_p99 (ms, lower is better)
 * of the base's five runs 9.9..10.1 (median 10) and latency_p50 (about 2).
 * Five primary tests: two vertices, the throughput, the two metrics (the
 * edge is a family of its own). The p and q values are computed by hand from
 * the rules in verdict.h (Holm's step-down with Tarone's divisor).
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/gate/baseline.h"
#include "core/gate/check.h"
#include "core/gate/verdict.h"
#include "tests/lib/assert_near.h"

#define N	  5
#define ONE_SIDED (1.0 / 252) /* exact Mann-Whitney, separated 5 and 5: 1 of C(10, 5) */

static const double base_p99[N] = {10, 10.1, 9.9, 10.05, 9.95};
static const double base_p50[N] = {2, 2.02, 1.98, 2.01, 1.99};

/* n runs with latency_p99 p99[i] times scale and latency_p50 base_p50[i]. */
static void make_runs(struct wperf_runset *rs, double scale, double tolerance)
{
	static const char *const knot[] = {"disk:254:0", "fig1/B"};

	memset(rs, 0, sizeof(*rs));
	snprintf(rs->unit, sizeof(rs->unit), "requests/s");
	rs->metrics = calloc(2, sizeof(*rs->metrics));
	assert_non_null(rs->metrics);
	rs->metrics[0] = (struct wperf_metric){"latency_p99", "ms", 1, tolerance};
	rs->metrics[1] = (struct wperf_metric){"latency_p50", "ms", 1, 0};
	rs->nmetrics = 2;
	for (size_t i = 0; i < N; i++) {
		struct wperf_run r;

		wperf_run_init(&r);
		r.throughput = 1000;
		r.window_ns = 5000000000ull;
		assert_int_equal(wperf_run_add_knot(&r, knot, 2), 0);
		assert_int_equal(wperf_run_add_edge(&r, "fig1/B", "disk:254:0", 0.40), 0);
		assert_int_equal(wperf_run_set_metric(&r, "latency_p99", base_p99[i] * scale), 0);
		assert_int_equal(wperf_run_set_metric(&r, "latency_p50", base_p50[i]), 0);
		assert_int_equal(wperf_runset_add(rs, &r), 0);
	}
}

static void verdict_of(double scale, double tolerance, struct wperf_verdict *v)
{
	struct wperf_runset base, head;
	struct wperf_baseline b;
	struct wperf_error err = {0};

	make_runs(&base, 1, 0.10);
	make_runs(&head, scale, tolerance);
	if (wperf_baseline_from_runs(&base, "synthetic-fig1", NULL, &b, &err) ||
	    wperf_verdict(&head, &b, NULL, v, &err))
		fail_msg("%s", err.msg);
	wperf_baseline_release(&b);
	wperf_runset_release(&base);
	wperf_runset_release(&head);
}

static const struct wperf_finding *finding(const struct wperf_verdict *v, const char *metric)
{
	for (size_t i = 0; i < v->nfindings; i++)
		if (v->findings[i].metric && !strcmp(v->findings[i].metric, metric))
			return &v->findings[i];
	return NULL;
}

/* p99 30% higher in every run: separated samples, one-sided p 1 / 252. Of the
 * five primaries, the throughput and the two metrics have floors 1 / 252 (5
 * runs against 5), the vertices (5 of 5 against 5 of 5) 1: three floors <=
 * 0.05 / 3, divisor 3, q = 3 / 252 = 1 / 84, beyond its tolerance of 10%: a
 * regression named by it. */
static void test_latency_regression(void **state)
{
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(1.3, 0.10, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(v.tests, 5);
	assert_int_equal(v.nfindings, 1);
	f = finding(&v, "latency_p99");
	assert_non_null(f);
	assert_int_equal(f->kind, WPERF_FINDING_METRIC);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_true(f->worse);
	assert_string_equal(f->unit, "ms");
	assert_float_equal(f->before, 10, 0);
	assert_float_equal(f->after, 13, 1e-12);
	assert_near(f->change, 0.3, 1e-12);
	assert_near(f->p, ONE_SIDED, 1e-15);
	assert_near(f->q, 3 * ONE_SIDED, 1e-15);
	assert_int_equal(v.nmetrics, 2);
	assert_string_equal(v.metrics[1].name, "latency_p50");
	assert_float_equal(v.metrics[1].before, 2, 0);
	assert_float_equal(v.metrics[1].after, 2, 0);
	wperf_verdict_release(&v);
}

/* Its own tolerance: 30% within a tolerance of 50% is only past the warning
 * level (0.5 * 50% = 25%): a warning, and the gate passes. */
static void test_own_tolerance(void **state)
{
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(1.3, 0.5, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	f = finding(&v, "latency_p99");
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	wperf_verdict_release(&v);
}

/* Its own direction: lower is better, so 30% lower is an improvement: p 1 /
 * 252, and among the improvements the same three floors <= 0.05 / 3: q = 3 /
 * 252. */
static void test_latency_improved(void **state)
{
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(0.7, 0.10, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_IMPROVED);
	f = finding(&v, "latency_p99");
	assert_non_null(f);
	assert_false(f->worse);
	assert_int_equal(f->level, WPERF_LEVEL_INFO);
	assert_near(f->p, ONE_SIDED, 1e-15);
	assert_near(f->q, 3 * ONE_SIDED, 1e-15);
	wperf_verdict_release(&v);
}

/* A metric the baseline lacks is a warning that names it, not a test. */
static void test_not_in_baseline(void **state)
{
	struct wperf_runset base, head;
	struct wperf_baseline b;
	struct wperf_verdict v;
	struct wperf_error err = {0};

	(void)state;
	make_runs(&base, 1, 0.1);
	base.nmetrics = 1; /* the base measured only latency_p99 */
	make_runs(&head, 1, 0.1);
	assert_int_equal(wperf_baseline_from_runs(&base, "s", NULL, &b, &err), 0);
	assert_int_equal(wperf_verdict(&head, &b, NULL, &v, &err), 0);
	assert_int_equal(v.nwarnings, 1);
	assert_string_equal(v.warnings[0], "the metric latency_p50 is not compared: the baseline "
					   "has none (made before the scenario measured it?)");
	assert_true(isnan(v.metrics[1].before));
	assert_float_equal(v.metrics[1].after, 2, 0);
	wperf_verdict_release(&v);
	wperf_baseline_release(&b);
	wperf_runset_release(&base);
	wperf_runset_release(&head);
}

/* The Markdown and the JUnit XML name the metric. */
static void test_writers(void **state)
{
	struct wperf_verdict v;
	const struct wperf_verdict *vs[1] = {&v};
	struct wperf_buf md = {0}, xml = {0};

	(void)state;
	verdict_of(1.3, 0.10, &v);
	assert_int_equal(wperf_verdict_markdown(&v, 0, &md), 0);
	assert_int_equal(wperf_buf_append(&md, "", 1), 0);
	assert_non_null(strstr((char *)md.data,
			       "#### Metric `latency_p99`\n10 → 13 ms (+30.0%, medians), runs "
			       "12.87–13.13 against 9.9–10.1, p 0.004: **fail**"));
	assert_non_null(strstr((char *)md.data,
			       "#### Metric `latency_p50`\n2 → 2 ms (+0.0%, medians): "
			       "within the tolerance or the noise."));
	assert_int_equal(wperf_verdict_junit(vs, 1, &xml), 0);
	assert_int_equal(wperf_buf_append(&xml, "", 1), 0);
	assert_non_null(strstr((char *)xml.data, "tests=\"4\" failures=\"1\""));
	assert_non_null(strstr((char *)xml.data,
			       "name=\"latency_p99\">\n      <failure type=\"regression\" "
			       "message=\"latency_p99 10 -&gt; 13 ms (+30.0%)"));
	wperf_buf_release(&md);
	wperf_buf_release(&xml);
	wperf_verdict_release(&v);
}

/* A check's JSON keeps the metric's finding and medians: read back, written
 * again, the same text. */
static void test_check_json(void **state)
{
	struct wperf_check c = {.alpha = 0.05}, back;
	struct wperf_error err = {0};
	struct json_object *o;
	char *first;

	(void)state;
	c.scenarios = calloc(1, sizeof(*c.scenarios));
	c.n = 1;
	c.scenarios[0].name = strdup("synthetic-fig1");
	c.scenarios[0].dir = strdup("synthetic-fig1");
	verdict_of(1.3, 0.10, &c.scenarios[0].verdict);
	assert_int_equal(wperf_check_to_json(&c, &o), 0);
	first = strdup(json_object_to_json_string(o));
	json_object_put(o);
	assert_non_null(strstr(first, "\"kind\": \"metric\""));
	assert_non_null(strstr(first, "\"metric\": \"latency_p99\", \"unit\": \"ms\""));
	if (wperf_check_from_json("c.json", first, strlen(first), &back, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(wperf_check_to_json(&back, &o), 0);
	assert_string_equal(json_object_to_json_string(o), first);
	assert_string_equal(back.scenarios[0].verdict.findings[0].metric, "latency_p99");
	json_object_put(o);
	free(first);
	wperf_check_release(&back);
	wperf_check_release(&c);
}

/* A baseline with metrics is format 2, written and read back the same; a
 * format 1 file with metrics, or a metric called throughput, is refused with
 * the place. */
static void test_baseline_metrics(void **state)
{
	static const char v1[] = "format: wperf-baseline/1\nscenario: s\nruns: 2\n"
				 "metrics:\n- {name: p99, lower_is_better: true, samples: [1]}\n";
	static const char bad_name[] = "format: wperf-baseline/2\nscenario: s\nruns: 2\n"
				       "metrics:\n- name: throughput\n  lower_is_better: true\n"
				       "  samples: [1]\n";
	static const char too_many[] = "format: wperf-baseline/2\nscenario: s\nruns: 1\n"
				       "metrics:\n- name: p99\n  lower_is_better: true\n"
				       "  samples: [1, 2]\n";
	struct wperf_runset rs;
	struct wperf_baseline b, back;
	struct wperf_buf text = {0}, again = {0};
	struct wperf_error err = {0};

	(void)state;
	make_runs(&rs, 1, 0.1);
	assert_int_equal(wperf_baseline_from_runs(&rs, "s", NULL, &b, &err), 0);
	assert_int_equal(wperf_baseline_write(&b, &text, &err), 0);
	assert_int_equal(wperf_buf_append(&text, "", 1), 0);
	assert_non_null(strstr((char *)text.data, "format: wperf-baseline/2\n"));
	assert_non_null(strstr((char *)text.data, "metrics:\n- name: latency_p99\n  unit: ms\n"
						  "  lower_is_better: true\n"
						  "  samples: [10, 10.1, 9.9, 10.05, 9.95]\n"));
	if (wperf_baseline_read("b.yaml", (char *)text.data, text.len - 1, &back, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(back.nmetrics, 2);
	assert_int_equal(wperf_baseline_write(&back, &again, &err), 0);
	assert_int_equal(wperf_buf_append(&again, "", 1), 0);
	assert_string_equal(again.data, text.data);
	wperf_baseline_release(&back);

	assert_int_equal(wperf_baseline_read("b.yaml", v1, strlen(v1), &back, &err), -EINVAL);
	assert_string_equal(err.msg, "b.yaml:5:1: metrics: metrics need format: wperf-baseline/2 "
				     "(this file says wperf-baseline/1)");
	assert_int_equal(wperf_baseline_read("b.yaml", bad_name, strlen(bad_name), &back, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "b.yaml:5:9: metrics[0].name: expected a metric's name "
				     "(letters, digits, '_', '.', '-'; not throughput or "
				     "bottlenecks), once");
	assert_int_equal(wperf_baseline_read("b.yaml", too_many, strlen(too_many), &back, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "b.yaml:7:12: metrics[0].samples: expected at most one sample "
				     "per run (1), found 2");
	wperf_buf_release(&text);
	wperf_buf_release(&again);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_latency_regression),
	    cmocka_unit_test(test_own_tolerance),
	    cmocka_unit_test(test_latency_improved),
	    cmocka_unit_test(test_not_in_baseline),
	    cmocka_unit_test(test_writers),
	    cmocka_unit_test(test_check_json),
	    cmocka_unit_test(test_baseline_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
