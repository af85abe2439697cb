/* SPDX-License-Identifier: MIT */
/*
 * The gate cycle on the paper's Figure 1, recorded by the kernel: `run` makes
 * five runs that find B and the disk in the knot, `baseline update` makes
 * their baseline and `compare` passes them against it; a variant with a new
 * blocking wait (B waits for a thread D) fails as a new bottleneck named by
 * fig1/D, the fix (no fsync) improves on it, and the fix judged by the
 * answer it removed misses it in every run. A trial of the gate: its
 * verdicts need 8 runs a side (make trials).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/trace/meta.h"
#include "core/trace/trace.h"
#include "harness/run/results.h"
#include "tests/lib/e2e.h"

#define FIG1_SCENARIO                                                                              \
	"name: fig1-gate\n"                                                                        \
	"description: 'marked %%1$s'\n"                                                            \
	"tags: [test]\n"                                                                           \
	"load:\n"                                                                                  \
	"  command: env %%2$s %%3$s/synthetic/fig1 --duration ${DURATION}"                         \
	" --file ${RESULTS_DIR}/fig1.data %s\n"                                                    \
	"  duration: 1\n"                                                                          \
	"  throughput:\n"                                                                          \
	"    regex: 'throughput: ([0-9.]+) requests/s'\n"                                          \
	"    unit: requests/s\n"                                                                   \
	"runs: 5\n"                                                                                \
	"analysis:\n"                                                                              \
	"  target: fig1\n"                                                                         \
	"%s"

/* Figure 1's answer. A fix changes the answer, so its scenario expects none
 * (a missed expected answer fails the gate as a change of structure). */
#define FIG1_EXPECT                                                                                \
	"expect:\n"                                                                                \
	"  knot: [fig1/B, 'disk:*']\n"                                                             \
	"  not_in_knot: [fig1/A]\n"

static void gate_cycle_on_figure_1(void **state)
{
	char text[2048];
	const char *plain, *worse, *better, *wrong, *base = e2e_tmp_path("base"),
						    *head = e2e_tmp_path("head");
	const char *fixed = e2e_tmp_path("fixed");
	const char *baseline = e2e_tmp_path("baselines/fig1-gate.yaml");
	struct e2e_output *o = malloc(sizeof(*o));
	struct results r;
	struct wperf_trace *t;
	struct wperf_error err = {0};
	struct wperf_buf gp = {0};
	char path[600];

	(void)state;
	e2e_require_bpf();
	snprintf(text, sizeof(text), FIG1_SCENARIO, "--direct --write-bytes 4194304", FIG1_EXPECT);
	plain = e2e_scenario("fig1.yaml", text);
	/* B now also waits for a thread D to do 8 ms of work per request. */
	snprintf(text, sizeof(text), FIG1_SCENARIO,
		 "--direct --write-bytes 4194304 --extra-wait-ms 8", FIG1_EXPECT);
	worse = e2e_scenario("fig1-worse.yaml", text);
	/* Buffered writes without fsync: B no longer waits for the disk. (With
	 * O_DIRECT every write still would.) */
	snprintf(text, sizeof(text), FIG1_SCENARIO, "--no-fsync --write-bytes 65536", "");
	better = e2e_scenario("fig1-better.yaml", text);
	snprintf(text, sizeof(text), FIG1_SCENARIO, "--no-fsync --write-bytes 65536", FIG1_EXPECT);
	wrong = e2e_scenario("fig1-better-expecting-fig1.yaml", text);

	e2e_bench(o, "run", "-q", "--results", base, plain, NULL);
	if (o->status)
		fail_msg("run: %d\n%s", o->status, o->err);
	if (results_read(base, &r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(r.complete);
	assert_int_equal(r.runs.nruns, 5);
	assert_string_equal(r.runs.unit, "requests/s");
	for (size_t i = 0; i < r.runs.nruns; i++) {
		e2e_expect_met(base, &r, i);
		assert_true(r.runs.runs[i].throughput > 0);
		snprintf(path, sizeof(path), "%s/runs/%zu/report.json", base, i + 1);
		assert_true(e2e_exists(path));
		snprintf(path, sizeof(path), "%s/runs/%zu/wperf.trace", base, i + 1);
		assert_true(e2e_exists(path));
	}
	/* the trace names the target, for `report` on it later */
	assert_int_equal(wperf_trace_open(path, &t, &err), 0);
	assert_string_equal(wperf_trace_meta(t, WPERF_META_ANALYSIS_TARGET), "fig1");
	wperf_trace_free(t);
	results_release(&r);
	snprintf(path, sizeof(path), "%s/graph.svg", base);
	assert_true(e2e_exists(path));
	snprintf(path, sizeof(path), "%s/plots/throughput.png", base);
	assert_true(e2e_exists(path));
	snprintf(path, sizeof(path), "%s/INCOMPLETE", base);
	assert_false(e2e_exists(path));
	assert_int_equal(e2e_marked_processes(), 0);

	/* the baseline, then the same runs against it: a pass */
	e2e_bench(o, "baseline", "update", "--baseline", baseline, base, NULL);
	if (o->status)
		fail_msg("baseline update: %d\n%s", o->status, o->err);
	assert_true(e2e_exists(baseline));
	e2e_bench(o, "compare", "--baseline", baseline, base, NULL);
	assert_int_equal(o->status, 0);
	assert_non_null(strstr(o->out, "pass"));
	/* judged, the throughput plot shows the baseline's runs behind its own */
	snprintf(path, sizeof(path), "%s/plots/throughput.gp", base);
	e2e_read_file(path, &gp);
	assert_non_null(strstr((const char *)gp.data, "with filledcurves"));
	assert_non_null(strstr((const char *)gp.data, "title 'baseline: 5 runs, "));
	wperf_buf_release(&gp);
	/* a stored baseline was measured in another session: the same runs
	 * against one whose throughput was five times theirs warn, not fail
	 * (numbers are compared only beside each other) */
	snprintf(path, sizeof(path), "%s.fast", baseline);
	e2e_shell("sed 's/^throughput: {samples: \\[[^]]*\\]/throughput: {samples: "
		  "[700, 710, 690, 705, 695]/' '%s' > '%s'",
		  baseline, path);
	e2e_bench(o, "compare", "--baseline", path, base, NULL);
	if (o->status != 0 || !strstr(o->out, "not measured beside these runs"))
		fail_msg("compare: %d\n%s\n%s", o->status, o->out, o->err);

	/* a new blocking wait: the gate fails with a new bottleneck. 8 runs, so
	 * that one run that misses D (a slow ASan build, a busy disk) still leaves
	 * the vertex's test beyond the noise: 7 of 8 against 0 of 5 is p 0.005,
	 * where 4 of 5 (p 1 / 42) is over the level once the family's other
	 * primaries that could reach it count */
	e2e_bench(o, "run", "-q", "-n", "8", "--results", head, worse, NULL);
	if (o->status == 2)
		fail_msg("run: %d\n%s", o->status, o->err);
	e2e_bench(o, "compare", "--baseline", baseline, head, NULL);
	if (o->status != 1 || !strstr(o->out, "new-bottleneck"))
		fail_msg("compare: %d\n%s\n%s", o->status, o->out, o->err);
	assert_non_null(strstr(o->out, "fig1/D"));
	snprintf(path, sizeof(path), "%s/junit.xml", head);
	assert_true(e2e_exists(path));

	/* the fix (no fsync): B and the disk no longer bound it, and it is faster */
	e2e_bench(o, "run", "-q", "--results", fixed, better, NULL);
	assert_int_equal(o->status, 0);
	e2e_bench(o, "compare", "--baseline", baseline, fixed, NULL);
	if (o->status != 0 || !strstr(o->out, "improved"))
		fail_msg("compare: %d\n%s\n%s", o->status, o->out, o->err);
	assert_non_null(strstr(o->out, "`fig1/B` left the knots"));

	/* the fix with Figure 1's answer still expected: its runs miss it */
	e2e_bench(o, "run", "-q", "-n", "2", "--results", e2e_tmp_path("wrong"), wrong, NULL);
	assert_int_equal(o->status, 1);
	assert_non_null(strstr(o->err, "2 of 2 runs missed the expected answer"));
	free(o);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(gate_cycle_on_figure_1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
