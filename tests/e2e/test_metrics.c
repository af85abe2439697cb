/* SPDX-License-Identifier: MIT */
/*
 * A scenario with several metrics, for real: a load that times its own sleeps
 * (tests/data/metrics/timed-sleeps.sh) prints its throughput, its slowest
 * sleep as text and its fastest and slowest as JSON. `run` reads each metric
 * into summary.json as the load printed it, `baseline update` keeps their
 * samples (format wperf-baseline/2), and `compare` of the same runs against
 * that baseline passes with a section for each metric. The oracle is the
 * kernel's timer: a 20 ms sleep never returns early.
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/run/results.h"
#include "tests/lib/e2e.h"

#define SCENARIO                                                                                   \
	"name: metrics\n"                                                                          \
	"description: 'marked %%1$s'\n"                                                            \
	"load:\n"                                                                                  \
	"  command: env %%2$s sh %s 10\n"                                                          \
	"  throughput: {regex: 'ops=([0-9]+)', unit: ops/s}\n"                                     \
	"  metrics:\n"                                                                             \
	"  - {name: slowest_us, regex: 'p99_us=([0-9]+)', unit: us, higher_is_better: false}\n"    \
	"  - name: fastest_us\n"                                                                   \
	"    json: latency.min_us\n"                                                               \
	"    unit: us\n"                                                                           \
	"    higher_is_better: false\n"                                                            \
	"    tolerance: 0.5\n"                                                                     \
	"runs: 5\n"

/* The number after key= in run i's load log. */
static double printed(const char *dir, size_t i, const char *key)
{
	struct wperf_buf b = {0};
	char path[PATH_MAX];
	const char *at;
	double v;

	snprintf(path, sizeof(path), "%s/runs/%zu/load.log", dir, i + 1);
	e2e_read_file(path, &b);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	at = strstr((const char *)b.data, key);
	assert_non_null(at);
	v = strtod(at + strlen(key), NULL);
	wperf_buf_release(&b);
	return v;
}

static void metrics_run_baseline_compare(void **state)
{
	struct e2e_output *o = malloc(sizeof(*o));
	const char *dir = e2e_tmp_path("results"), *baseline = e2e_tmp_path("baseline.yaml");
	char script[PATH_MAX], text[PATH_MAX + 2048], path[PATH_MAX + 32];
	struct results r;
	struct wperf_buf b = {0};
	struct wperf_error err = {0};

	(void)state;
	e2e_require_bpf();
	assert_non_null(realpath("tests/data/metrics/timed-sleeps.sh", script));
	snprintf(text, sizeof(text), SCENARIO, script);
	e2e_bench(o, "run", "-q", "--results", dir, e2e_scenario("metrics.yaml", text), NULL);
	if (o->status)
		fail_msg("run: %d\n%s", o->status, o->err);
	if (results_read(dir, &r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(r.runs.nmetrics, 2);
	assert_string_equal(r.runs.metrics[0].name, "slowest_us");
	assert_true(r.runs.metrics[0].lower_is_better);
	assert_true(r.runs.metrics[0].tolerance == 0.05); /* the gate's throughput_tolerance */
	assert_true(r.runs.metrics[1].tolerance == 0.5);
	for (size_t i = 0; i < r.runs.nruns; i++) {
		const struct wperf_run *run = &r.runs.runs[i];
		double slowest = wperf_run_metric(run, "slowest_us");
		double fastest = wperf_run_metric(run, "fastest_us");

		assert_true(slowest == printed(dir, i, "p99_us="));
		assert_true(fastest == printed(dir, i, "\"min_us\": "));
		assert_true(run->throughput == printed(dir, i, "ops="));
		assert_true(fastest >= 20000 && slowest >= fastest);
	}
	results_release(&r);

	e2e_bench(o, "baseline", "update", "--baseline", baseline, dir, NULL);
	if (o->status)
		fail_msg("baseline update: %d\n%s", o->status, o->err);
	e2e_read_file(baseline, &b);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	assert_non_null(strstr((const char *)b.data, "format: wperf-baseline/2\n"));
	assert_non_null(strstr((const char *)b.data, "- name: slowest_us\n  unit: us\n"
						     "  lower_is_better: true\n  samples: ["));
	wperf_buf_release(&b);

	e2e_bench(o, "compare", "--baseline", baseline, dir, NULL);
	if (o->status)
		fail_msg("compare: %d\n%s\n%s", o->status, o->out, o->err);
	snprintf(path, sizeof(path), "%s/verdict.md", dir);
	e2e_read_file(path, &b);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	assert_non_null(strstr((const char *)b.data, "#### Metric `slowest_us`\n"));
	assert_non_null(strstr((const char *)b.data, "#### Metric `fastest_us`\n"));
	wperf_buf_release(&b);
	snprintf(path, sizeof(path), "%s/junit.xml", dir);
	e2e_read_file(path, &b);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	assert_non_null(strstr((const char *)b.data, "name=\"slowest_us\""));
	wperf_buf_release(&b);
	assert_int_equal(e2e_marked_processes(), 0);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(metrics_run_baseline_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
