/* SPDX-License-Identifier: MIT */
/*
 * bench/gate_sim, the gate's error rates measured, on a corpus this test
 * writes with the harness's own writer (results_write): 34 runs of steady
 * code, throughputs normal with a 2% spread, the same knot in every run. The
 * false-failure rate of an A/A check must be within alpha (--assert-aa) and a
 * 10% slowdown and a vertex joining every run's bottleneck caught in at least
 * 90% of the trials (--assert-power); a check's folder pools base/ and head/;
 * a small pool is bootstrapped, and says so; a seed draws the same every time;
 * an unreachable power fails the assertion; bad usage is refused. Nothing is
 * recorded: the simulator only reads runs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "harness/run/results.h"
#include "tests/lib/e2e.h"

static struct e2e_output out;

/* A normal deviate from a fixed stream (Box-Muller on a 64-bit LCG): the
 * corpus is the same on every machine. */
static double normal(void)
{
	static uint64_t x = 42;
	double u[2];

	for (int i = 0; i < 2; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		u[i] = ((double)(x >> 11) + 0.5) * 0x1p-53;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* The results folder dir of n runs of scenario sim-steady: 1000 requests/s
 * with a spread of sd, run i moved by drift * sin(i) (a machine that drifts
 * the same way on both sides of a check); main waits for worker, worker for
 * the disk, a knot. */
static void write_drifting_runs(const char *dir, size_t n, double sd, double drift)
{
	static struct results r;
	const char *knot[] = {"steady/worker", "disk:8:0"};
	struct results_expect x = {.checked = 1, .met = 1};
	struct wperf_error err = {0};

	memset(&r, 0, sizeof(r));
	snprintf(r.dir, sizeof(r.dir), "%s", dir);
	snprintf(r.scenario, sizeof(r.scenario), "sim-steady");
	snprintf(r.runs.unit, sizeof(r.runs.unit), "requests/s");
	snprintf(r.env.kernel, sizeof(r.env.kernel), "6.1.0-test");
	snprintf(r.env.tool, sizeof(r.env.tool), "wperf-bench test");
	r.env.cpus = 2;
	r.complete = 1;
	r.gate = (struct wperf_gate_opts){
	    .edge_tolerance = 0.1, .throughput_tolerance = 0.05, .warn_ratio = 0.5, .min_runs = 5};
	for (size_t i = 0; i < n; i++) {
		struct wperf_run run;

		wperf_run_init(&run);
		run.throughput = 1000 * (1 + drift * sin((double)i)) * (1 + sd * normal());
		run.window_ns = 5000000000u;
		run.events = 100000;
		assert_int_equal(wperf_run_add_knot(&run, knot, 2), 0);
		assert_int_equal(
		    wperf_run_add_edge(&run, "steady/main", "steady/worker", 0.6 + 0.01 * normal()),
		    0);
		assert_int_equal(
		    wperf_run_add_edge(&run, "steady/worker", "disk:8:0", 0.3 + 0.01 * normal()),
		    0);
		assert_int_equal(results_add_run(&r, &run, &x), 0);
	}
	assert_int_equal(results_make_dir(dir, &err), 0);
	assert_int_equal(results_write(&r, NULL, &err), 0);
	results_release(&r);
}

/* Steady runs: a 2% spread, no drift. */
static void write_runs(const char *dir, size_t n)
{
	write_drifting_runs(dir, n, 0.02, 0);
}

/* Runs gate_sim with the arguments up to NULL into out. */
#define SIM(...) e2e_run_in(&out, ".", e2e_path("bench/gate_sim"), __VA_ARGS__, NULL)

/* The rate of the check's failures in the n-th pass of out (from 0). */
static double check_rate(int n)
{
	const char *at = out.out;
	size_t fails;
	unsigned trials;

	for (int i = 0; at && i <= n; i++)
		if ((at = strstr(at, "the check fails in ")))
			at += strlen("the check fails in ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "%zu of %u trials", &fails, &trials), 2);
	return (double)fails / trials;
}

static int write_corpus(void **state)
{
	(void)state;
	write_runs(e2e_tmp_path("steady"), 34);
	assert_int_equal(mkdir(e2e_tmp_path("check"), 0755), 0);
	write_runs(e2e_tmp_path("check/base"), 6);
	write_runs(e2e_tmp_path("check/head"), 6);
	assert_int_equal(mkdir(e2e_tmp_path("drift"), 0755), 0);
	write_drifting_runs(e2e_tmp_path("drift/base"), 20, 0.005, 0.3);
	write_drifting_runs(e2e_tmp_path("drift/head"), 20, 0.005, 0.3);
	write_drifting_runs(e2e_tmp_path("drift-pooled"), 40, 0.005, 0.3);
	return 0;
}

static void aa_within_alpha_and_changes_caught(void **state)
{
	(void)state;
	SIM("--trials", "300", "--seed", "7", "--assert-aa", "--assert-power",
	    "throughput=-0.10:0.9", "--assert-power", "vertex=1.0:0.9", e2e_tmp_path("steady"));
	if (out.status)
		fail_msg("exit %d\n%s%s", out.status, out.out, out.err);
	assert_non_null(strstr(out.out, "sim-steady: 34 runs pooled"));
	assert_null(strstr(out.out, "BOOTSTRAP"));
	assert_non_null(strstr(out.out, "A/A: identical code"));
	assert_true(check_rate(0) <= 0.05);
	assert_non_null(strstr(out.out, "effects on the head: throughput -10.0%"));
	assert_true(check_rate(1) >= 0.9);
	assert_non_null(strstr(out.out, "vertex sim/planted in 100% of the runs"));
	assert_true(check_rate(2) >= 0.9);
	assert_non_null(strstr(out.out, "checks/s"));
}

/* out.out without the lines that tell the time. */
static char *timeless(void)
{
	char *copy = strdup(out.out), *line, *save = NULL, *kept = calloc(1, strlen(out.out) + 1);

	assert_true(copy && kept);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strstr(line, " checks in ") && strncmp(line, "done in ", 8))
			strcat(strcat(kept, line), "\n");
	free(copy);
	return kept;
}

static void a_seed_draws_the_same(void **state)
{
	char *first, *second;

	(void)state;
	SIM("--trials", "40", "--seed", "3", "--effect", "vertex=0.7", e2e_tmp_path("steady"));
	assert_int_equal(out.status, 0);
	first = timeless();
	SIM("--trials", "40", "--seed", "3", "--effect", "vertex=0.7", e2e_tmp_path("steady"));
	assert_int_equal(out.status, 0);
	second = timeless();
	assert_string_equal(first, second);
	free(first);
	free(second);
}

static void a_check_pools_both_sides(void **state)
{
	(void)state;
	SIM("--trials", "20", e2e_tmp_path("check"));
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.out, "sim-steady: 12 runs pooled from "));
	assert_non_null(strstr(out.out, "(in pairs)"));
	/* 6 pairs cannot give 17 a side */
	assert_non_null(strstr(out.out, "BOOTSTRAP: 6 pairs cannot give 17 a side"));
	SIM("--trials", "20", "--max", "6", e2e_tmp_path("check"));
	assert_int_equal(out.status, 0);
	assert_null(strstr(out.out, "BOOTSTRAP"));
	assert_non_null(strstr(out.out, "looks at 5 runs per side (level "));
}

/* A check's runs were made in pairs, and the machine's drift moves both of a
 * pair: drawn as pairs, the paired tests see only the 0.5% within a pair and
 * catch a 10% slowdown; runs of the same kind in one results folder have no
 * pairs, are paired at random, and the drift (30%) hides it. */
static void a_check_keeps_its_pairs(void **state)
{
	(void)state;
	SIM("--trials", "200", "--assert-aa", "--assert-power", "throughput=-0.10:0.9",
	    e2e_tmp_path("drift"));
	if (out.status)
		fail_msg("exit %d\n%s%s", out.status, out.out, out.err);
	assert_non_null(strstr(out.out, "sim-steady: 40 runs pooled from "));
	assert_non_null(strstr(out.out, "(in pairs)"));
	assert_true(check_rate(1) >= 0.9);

	SIM("--trials", "200", "--effect", "throughput=-0.10", e2e_tmp_path("drift-pooled"));
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.out, "(no pairs)"));
	assert_true(check_rate(0) < 0.5);
}

static void the_curve_and_the_edge(void **state)
{
	(void)state;
	SIM("--trials", "20", "--curve", e2e_tmp_path("steady"), e2e_tmp_path("check"));
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.out, "2 scenarios, alpha 0.05 (0.025 a scenario)"));
	assert_non_null(strstr(out.out, "tp-10%"));
	assert_non_null(strstr(out.out, "v100%"));
	assert_non_null(strstr(out.out, "(check)"));
	/* main -> worker (0.6) doubled would pass the window: the next heaviest */
	SIM("--trials", "20", "--effect", "edge=2", e2e_tmp_path("steady"));
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.out, "edge steady/worker -> disk:8:0 x2"));
}

static void an_unreachable_power_fails(void **state)
{
	(void)state;
	SIM("--trials", "50", "--assert-power", "throughput=-0.02:0.99", e2e_tmp_path("steady"));
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.out, "assert-power: FAILED: sim-steady: power"));
}

/*
 * The committed corpus (tests/data/corpus, a part of bench/gate_trials.sh
 * corpus): three ci scenarios, 20 runs a side each of identical code recorded
 * by check-perf --base HEAD, 20 pairs each, judged under the tree's
 * scenario files. A check of the three (the synthetic ones that spread most)
 * judges identical code falsely at most alpha of the time (its interval),
 * and catches a 10% slower throughput and a vertex new in 70% of the head's
 * runs in each scenario at least 90% of the time (its interval reaching it).
 */
static void the_recorded_corpus(void **state)
{
	static const char *const dirs[] = {"tests/data/corpus/synthetic-fig1",
					   "tests/data/corpus/synthetic-pipeline",
					   "tests/data/corpus/synthetic-background"};

	(void)state;
	SIM("--trials", "1000", "--assert-aa", "--assert-power", "throughput=-0.10:0.9",
	    "--assert-power", "vertex=0.7:0.9", dirs[0], dirs[1], dirs[2]);
	if (out.status)
		fail_msg("exit %d\n%s%s", out.status, out.out, out.err);
	assert_null(strstr(out.out, "BOOTSTRAP"));
	assert_non_null(strstr(out.out, "synthetic-fig1: 40 runs pooled from "
					"tests/data/corpus/synthetic-fig1 (in pairs), accepted "
					"entries: baselines/synthetic-fig1.yaml, settings: "
					"scenarios/synthetic-fig1.yaml"));
	assert_non_null(strstr(out.out, "synthetic-pipeline: 40 runs pooled"));
	assert_non_null(strstr(out.out, "synthetic-background: 40 runs pooled"));
	assert_true(check_rate(0) <= 0.05);
	assert_non_null(strstr(out.out, "effects on the head: throughput -10.0%"));
	assert_non_null(strstr(out.out, "vertex sim/planted in 70% of the runs"));
}

static void bad_usage_is_refused(void **state)
{
	(void)state;
	SIM("--trials", "5");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "no folder of runs"));
	SIM("--effect", "speed=1", e2e_tmp_path("steady"));
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "bad value 'speed=1' of --effect"));
	SIM("--assert-aa", "--effect", "vertex=1", e2e_tmp_path("steady"));
	assert_int_equal(out.status, 2);
	SIM("--first", "6", "--max", "5", e2e_tmp_path("steady"));
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "--max is below --first"));
	SIM("--alpha", "0.7", e2e_tmp_path("steady"));
	assert_int_equal(out.status, 2);
	SIM(e2e_tmp_path("none"));
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "gate_sim: error:"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(aa_within_alpha_and_changes_caught),
	    cmocka_unit_test(a_seed_draws_the_same),
	    cmocka_unit_test(a_check_pools_both_sides),
	    cmocka_unit_test(a_check_keeps_its_pairs),
	    cmocka_unit_test(the_curve_and_the_edge),
	    cmocka_unit_test(an_unreachable_power_fails),
	    cmocka_unit_test(the_recorded_corpus),
	    cmocka_unit_test(bad_usage_is_refused),
	};

	return cmocka_run_group_tests(tests, write_corpus, NULL);
}
