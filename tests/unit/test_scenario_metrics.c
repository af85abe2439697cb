/* SPDX-License-Identifier: MIT */
/*
 * load.metrics of a scenario (core/scenario/scenario.h): every value of a file
 * that uses each key, the exact error (file:line:column: path: message) for
 * each broken file in tests/data/scenarios/bad-metrics-*.yaml; and the key
 * path into a load's JSON output (harness/run/load_metrics.h).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/scenario/scenario.h"
#include "harness/run/load_metrics.h"

#define DIR "tests/data/scenarios/"

static const struct scenario_vars vars = {.results_dir = "/res", .build_dir = "/bld"};

static void test_valid(void **state)
{
	struct wperf_error err = {0};
	struct scenario *s = NULL;
	const struct scenario_metric *m;

	(void)state;
	if (scenario_load(DIR "metrics-valid.yaml", &vars, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s->load.nmetrics, 3);
	m = &s->load.metrics[0];
	assert_string_equal(m->name, "latency_p50");
	assert_string_equal(m->regex, "p50=([0-9.]+)");
	assert_null(m->json);
	assert_null(m->file);
	assert_string_equal(m->unit, "ms");
	assert_false(m->higher_is_better);
	assert_true(m->tolerance == 0);
	m = &s->load.metrics[1];
	assert_string_equal(m->json, "latency.p99");
	assert_string_equal(m->file, "/res/out.json");
	assert_true(m->tolerance == 0.2);
	m = &s->load.metrics[2];
	assert_string_equal(m->name, "runs.first");
	assert_string_equal(m->json, "runs[0].ops");
	assert_true(m->higher_is_better);
	assert_null(m->unit);
	scenario_free(s);
}

struct error_case {
	const char *file;
	const char *msg; /* after "tests/data/scenarios/FILE:" */
};

static const struct error_case errors[] = {
    {"bad-metrics-both.yaml", "5:5: load.metrics[0]: expected one of regex or json, found both"},
    {"bad-metrics-neither.yaml",
     "5:5: load.metrics[0]: expected one of regex or json, found neither"},
    {"bad-metrics-path.yaml",
     "6:11: load.metrics[0].json: expected a key path like latency.p99 or runs[0].ops (names "
     "of letters, digits, '_', '-'; [INDEX] after a name)"},
    {"bad-metrics-name.yaml",
     "5:11: load.metrics[0].name: expected a metric's name: 1 to 63 letters, digits, '_', '.', "
     "'-', not throughput or bottlenecks; found \"throughput\""},
    {"bad-metrics-twice.yaml",
     "6:12: load.metrics[1].name: metric p99 is already defined (load.metrics[0])"},
    {"bad-metrics-direction.yaml", "5:5: load.metrics[0]: missing key \"higher_is_better\""},
    {"bad-metrics-tolerance.yaml",
     "8:16: load.metrics[0].tolerance: expected a number in (0, 1], found \"1.5\""},
    {"bad-metrics-empty.yaml", "4:12: load.metrics: expected 1 to 32 metrics, found 0"},
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(errors) / sizeof(*errors); i++) {
		struct wperf_error err = {0};
		struct scenario *s = NULL;
		char path[256], want[WPERF_ERROR_MSG_LEN];

		snprintf(path, sizeof(path), DIR "%s", errors[i].file);
		snprintf(want, sizeof(want), "%s:%s", path, errors[i].msg);
		assert_int_equal(scenario_load(path, &vars, &s, &err), -EINVAL);
		assert_null(s);
		if (strcmp(err.msg, want))
			fail_msg("got  %s\nwant %s", err.msg, want);
	}
}

/* A key path in the whole text as JSON, or in its last line that is JSON. */
static void test_json_path(void **state)
{
	static const char doc[] = "{\"latency\": {\"p50\": 1.5, \"p99\": 12},\n"
				  " \"runs\": [{\"ops\": 100}, {\"ops\": 200}], \"name\": \"x\"}\n";
	static const char lines[] = "starting\n{\"p99\": 3}\nwarming up\n{\"p99\": 4.25}\ndone\n";
	struct wperf_error err = {0};
	double v = NAN;

	(void)state;
	assert_int_equal(
	    load_metrics_json("latency.p99", "metric p99", doc, strlen(doc), "out", &v, &err), 0);
	assert_true(v == 12);
	assert_int_equal(
	    load_metrics_json("runs[1].ops", "metric ops", doc, strlen(doc), "out", &v, &err), 0);
	assert_true(v == 200);
	assert_int_equal(
	    load_metrics_json("p99", "metric p99", lines, strlen(lines), "load.log", &v, &err), 0);
	assert_true(v == 4.25);
	assert_int_equal(
	    load_metrics_json("runs[2].ops", "metric ops", doc, strlen(doc), "out", &v, &err),
	    -ENOENT);
	assert_string_equal(err.msg, "out: the JSON has no runs[2].ops (the metric ops)");
	assert_int_equal(load_metrics_json("name", "metric n", doc, strlen(doc), "out", &v, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "out: name (the metric n) is \"x\", not a number");
	assert_int_equal(
	    load_metrics_json("p99", "metric p99", "no json\n", 8, "load.log", &v, &err), -ENOENT);
	assert_string_equal(err.msg, "load.log: no JSON document for the metric p99 (p99)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_json_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
