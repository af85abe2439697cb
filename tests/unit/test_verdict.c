/* SPDX-License-Identifier: MIT */
/*
 * The gate (core/verdict.h) on constructed run sets against a baseline made
 * from five runs; its statistics (core/stats.h); a run taken from a recorded
 * analysis (core/runset.h); and the Markdown and JUnit writers.
 *
 * The baseline's five runs: throughput 990..1010, one knot {disk:254:0, fig1/B}
 * in each, and the edges fig1/B -> disk:254:0 (0.38..0.42 of the window, median
 * 0.40), fig1/A -> fig1/B (median 0.52) and disk:254:0 -> fig1/B (median 0.11).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/analysis.h"
#include "core/baseline.h"
#include "core/stats.h"
#include "core/trace.h"
#include "core/verdict.h"

#define N	  5
#define KNOT	  "disk:254:0 fig1/B"
#define B_DISK	  "fig1/B", "disk:254:0"
#define SEPARATED 0.012185780355344818 /* Mann-Whitney p of two separated samples of 5 */

static const double base_tp[N] = {1000, 1010, 990, 1005, 995};
static const double base_bdisk[N] = {0.38, 0.39, 0.40, 0.41, 0.42};
static const double base_ab[N] = {0.50, 0.51, 0.52, 0.53, 0.54};
static const double base_diskb[N] = {0.10, 0.11, 0.12, 0.11, 0.10};
static const char *const base_knots[N] = {KNOT, KNOT, KNOT, KNOT, KNOT};

/* Adds a knot per ';'-separated group of space-separated identities. */
static void add_knots(struct wperf_run *r, const char *spec)
{
	char copy[256], *group, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", spec ? spec : "");
	for (group = strtok_r(copy, ";", &save); group; group = strtok_r(NULL, ";", &save)) {
		const char *ids[16];
		char *id, *save2 = NULL;
		size_t n = 0;

		for (id = strtok_r(group, " ", &save2); id && n < 16;
		     id = strtok_r(NULL, " ", &save2))
			ids[n++] = id;
		assert_int_equal(wperf_run_add_knot(r, ids, n), 0);
	}
}

/*
 * n runs: throughput tp[i] (NULL: base_tp; NaN: none), fig1/B -> disk:254:0
 * bdisk[i] (NULL: base_bdisk), the other two edges as in the baseline, knots[i]
 * (NULL: base_knots).
 */
static void make_runs(struct wperf_runset *rs, size_t n, const double *tp, const double *bdisk,
		      const char *const *knots)
{
	memset(rs, 0, sizeof(*rs));
	snprintf(rs->unit, sizeof(rs->unit), "requests/s");
	for (size_t i = 0; i < n; i++) {
		struct wperf_run r;

		wperf_run_init(&r);
		r.throughput = tp ? tp[i] : base_tp[i % N];
		r.window_ns = 5000000000ull;
		add_knots(&r, knots ? knots[i] : base_knots[i % N]);
		assert_int_equal(
		    wperf_run_add_edge(&r, B_DISK, bdisk ? bdisk[i] : base_bdisk[i % N]), 0);
		assert_int_equal(wperf_run_add_edge(&r, "fig1/A", "fig1/B", base_ab[i % N]), 0);
		assert_int_equal(wperf_run_add_edge(&r, "disk:254:0", "fig1/B", base_diskb[i % N]),
				 0);
		assert_int_equal(wperf_runset_add(rs, &r), 0);
		assert_int_equal(r.nedges, 0); /* moved into the set */
	}
}

static const struct wperf_env base_env = {
    .kernel = "6.1.0-18-amd64", .cpus = 2, .tool = "wperf-bench 0.1.0"};

static void make_baseline(struct wperf_baseline *b)
{
	struct wperf_runset rs;
	struct wperf_error err = {0};

	make_runs(&rs, N, NULL, NULL, NULL);
	if (wperf_baseline_from_runs(&rs, "synthetic-fig1", &base_env, b, &err))
		fail_msg("%s", err.msg);
	wperf_runset_release(&rs);
}

/* The verdict of rs against the standard baseline (plus accepted entries the
 * caller added to *b, when b is given). */
static void judge(const struct wperf_runset *rs, struct wperf_baseline *b,
		  const struct wperf_gate_opts *g, struct wperf_verdict *v)
{
	struct wperf_baseline own;
	struct wperf_error err = {0};

	if (!b) {
		make_baseline(&own);
		b = &own;
	}
	if (wperf_verdict(rs, b, g, v, &err))
		fail_msg("%s", err.msg);
	if (b == &own)
		wperf_baseline_release(&own);
}

static int has_warning(const struct wperf_verdict *v, const char *part)
{
	for (size_t i = 0; i < v->nwarnings; i++)
		if (strstr(v->warnings[i], part))
			return 1;
	return 0;
}

/* Runs the case: n runs with the given samples, no options. */
static void verdict_of(size_t n, const double *tp, const double *bdisk, const char *const *knots,
		       struct wperf_verdict *v)
{
	struct wperf_runset rs;

	make_runs(&rs, n, tp, bdisk, knots);
	judge(&rs, NULL, NULL, v);
	wperf_runset_release(&rs);
}

/* ---- statistics ---- */

static void test_stats_basics(void **state)
{
	const double x[] = {4, 1, 3, 2}, y[] = {5, 1, 5, 2, 9};

	(void)state;
	assert_float_equal(wperf_mean(x, 4), 2.5, 1e-12);
	assert_float_equal(wperf_stddev(x, 4), sqrt(5.0 / 3), 1e-12);
	assert_float_equal(wperf_median(x, 4), 2.5, 1e-12);
	assert_float_equal(wperf_median(y, 5), 5, 1e-12); /* ties: 1 2 5 5 9 */
	assert_true(isnan(wperf_mean(x, 0)));
	assert_true(isnan(wperf_stddev(x, 1)));
	assert_true(isnan(wperf_median(x, 0)));
	assert_float_equal(wperf_normal_quantile(0.975), 1.959963984540054, 1e-9);
	assert_float_equal(wperf_normal_quantile(0.8), 0.8416212335729143, 1e-9);
	assert_float_equal(wperf_normal_quantile(0.5), 0, 1e-12);
	assert_true(isnan(wperf_normal_quantile(1)));
}

static void test_mann_whitney(void **state)
{
	const double lo[] = {1, 2, 3, 4, 5}, hi[] = {6, 7, 8, 9, 10};
	const double t1[] = {1, 2, 2, 3}, t2[] = {2, 3, 4, 4, 5};
	const double u1[] = {1, 2, 3, 4, 5, 6}, u2[] = {4, 5, 6, 7, 8, 9, 10};
	const double same[] = {0.4, 0.4, 0.4};

	(void)state;
	/* Separated 5 and 5: U = 0, mean 12.5, sd sqrt(25 * 11 / 12); with the
	 * continuity correction z = 12 / 4.787 = 2.507, p = 0.01219 (exact: 0.0079). */
	assert_float_equal(wperf_mann_whitney_p(lo, 5, hi, 5), SEPARATED, 1e-12);
	assert_float_equal(wperf_mann_whitney_p(hi, 5, lo, 5), SEPARATED, 1e-12);
	/* Ties: pooled ranks 1, 3 3 3, 5.5 5.5, 7.5 7.5, 9; R1 = 12.5, U = 2.5; tie
	 * sum 24 + 6 + 6 = 36; var = 20 / 12 (10 - 36 / 72) = 15.833; z = 7 / 3.979. */
	assert_float_equal(wperf_mann_whitney_p(t1, 4, t2, 5), 0.0785458509511907, 1e-12);
	assert_float_equal(wperf_mann_whitney_p(u1, 6, u2, 7), 0.021722119820512312, 1e-12);
	/* The same sample on both sides, and all values equal: p = 1. */
	assert_float_equal(wperf_mann_whitney_p(lo, 5, lo, 5), 1, 0);
	assert_float_equal(wperf_mann_whitney_p(same, 3, same, 3), 1, 0);
	assert_true(isnan(wperf_mann_whitney_p(lo, 0, hi, 5)));
}

/* ---- the gate ---- */

static void test_identical_pass(void **state)
{
	struct wperf_verdict v;
	struct wperf_runset rs;
	struct wperf_gate_opts g = {.env = &base_env};

	(void)state;
	make_runs(&rs, N, NULL, NULL, NULL);
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	assert_int_equal(v.nwarnings, 0);
	assert_int_equal(v.runs, 5);
	assert_int_equal(v.baseline_runs, 5);
	assert_float_equal(v.throughput_before, 1000, 0);
	assert_float_equal(v.throughput_after, 1000, 0);
	assert_string_equal(v.scenario, "synthetic-fig1");
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

static void test_new_knot_in_most_runs(void **state)
{
	const char *const knots[N] = {KNOT ";lock:x fig1/C", KNOT ";fig1/C lock:x", KNOT,
				      "fig1/C lock:x;" KNOT, KNOT ";lock:x fig1/C"};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(N, NULL, NULL, knots, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 1);
	assert_int_equal(v.nfindings, 1);
	f = &v.findings[0];
	assert_int_equal(f->kind, WPERF_FINDING_NEW_KNOT);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_int_equal(f->knot.n, 2);
	assert_string_equal(f->knot.ids[0], "fig1/C");
	assert_string_equal(f->knot.ids[1], "lock:x");
	assert_int_equal(f->seen, 4);
	assert_int_equal(f->runs, 5);
	wperf_verdict_release(&v);
}

static void test_new_knot_in_few_runs(void **state)
{
	const char *const knots[N] = {KNOT ";fig1/C lock:x", KNOT, KNOT, KNOT ";fig1/C lock:x",
				      KNOT};
	struct wperf_verdict v;

	(void)state;
	verdict_of(N, NULL, NULL, knots, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
}

static void test_accepted_knot(void **state)
{
	const char *const knots[N] = {KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x"};
	const char *const globs[] = {"fig1/C", "lock:*"}, *const partial[] = {"fig1/C"};
	struct wperf_baseline b;
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, NULL, NULL, knots);
	/* A glob that leaves a member uncovered does not accept the knot. */
	make_baseline(&b);
	assert_int_equal(wperf_baseline_accept(&b, 0, partial, 1, "C alone"), 0);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	wperf_verdict_release(&v);
	assert_int_equal(wperf_baseline_accept(&b, 0, globs, 2, "the lock is known"), 0);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_NEW_KNOT);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_INFO);
	assert_true(v.findings[0].accepted);
	assert_string_equal(v.findings[0].note, "accepted: the lock is known");
	wperf_verdict_release(&v);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

static void test_edge_regression(void **state)
{
	const double up50[N] = {0.57, 0.585, 0.60, 0.615, 0.63};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(N, NULL, up50, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 1);
	assert_int_equal(v.nfindings, 1);
	f = &v.findings[0];
	assert_int_equal(f->kind, WPERF_FINDING_EDGE);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_string_equal(f->from, "fig1/B");
	assert_string_equal(f->to, "disk:254:0");
	assert_float_equal(f->before, 0.40, 1e-12);
	assert_float_equal(f->after, 0.60, 1e-12);
	assert_float_equal(f->change, 0.5, 1e-9);
	assert_float_equal(f->before_lo, 0.38, 0);
	assert_float_equal(f->after_hi, 0.63, 0);
	assert_true(f->p < 0.05);
	assert_float_equal(f->p, SEPARATED, 1e-12);
	wperf_verdict_release(&v);
}

static void test_edge_few_runs_inconclusive(void **state)
{
	const double overlap[2] = {0.41, 0.79}, apart[2] = {0.59, 0.61}, one[1] = {0.60};
	const double apart3[3] = {0.59, 0.60, 0.61};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	/* +50% in the median, but the two runs' range reaches into the baseline's. */
	verdict_of(2, NULL, overlap, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.nfindings, 1);
	f = &v.findings[0];
	assert_true(f->inconclusive);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_float_equal(f->change, 0.5, 1e-9);
	/* 2 ((1.95996 + 0.84162) 0.121 / 0.2)^2 = 5.75: 6 runs per side. */
	assert_int_equal(f->runs_needed, 6);
	assert_non_null(strstr(f->note, "add runs (6 per side)"));
	assert_true(has_warning(&v, "2 runs against a baseline of 5"));
	wperf_verdict_release(&v);

	/* Two runs whose range is apart from the baseline's five: that happens by
	 * chance once in 2 / C(7, 2) = 10.5, not enough to fail. Three runs
	 * apart: once in 28, beyond the noise. */
	verdict_of(2, NULL, apart, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_true(v.findings[0].inconclusive);
	wperf_verdict_release(&v);
	verdict_of(3, NULL, apart3, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	wperf_verdict_release(&v);

	/* One run cannot show its noise. */
	verdict_of(1, NULL, one, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(v.findings[0].runs_needed, 5);
	wperf_verdict_release(&v);
}

static void test_edge_within_tolerance(void **state)
{
	const double up5[N] = {0.399, 0.4095, 0.42, 0.4305, 0.441};
	struct wperf_verdict v;

	(void)state;
	verdict_of(N, NULL, up5, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
}

static void test_edge_warn(void **state)
{
	const double up8[N] = {0.428, 0.430, 0.432, 0.434, 0.436};
	struct wperf_gate_opts g = {.warn_ratio = 0.5};
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, NULL, up8, NULL);
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_WARN);
	assert_false(v.findings[0].inconclusive);
	assert_float_equal(v.findings[0].change, 0.08, 1e-9);
	wperf_verdict_release(&v);
	/* No warn level: nothing to say. */
	g.warn_ratio = -1;
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

static void test_edge_within_noise(void **state)
{
	const double noisy[N] = {0.20, 0.39, 0.60, 0.80, 0.95};
	struct wperf_verdict v;

	(void)state;
	verdict_of(N, NULL, noisy, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_WARN);
	assert_float_equal(v.findings[0].p, 0.4633438825652173, 1e-12);
	assert_non_null(strstr(v.findings[0].note, "within run-to-run noise"));
	wperf_verdict_release(&v);
}

static void test_new_and_light_edges(void **state)
{
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, NULL, NULL, NULL);
	for (size_t i = 0; i < N; i++) {
		/* A new edge at 20% of the window; a new one at 3%, under the floor. */
		assert_int_equal(wperf_run_add_edge(&rs.runs[i], "fig1/A", "jbd2/sda", 0.20), 0);
		assert_int_equal(wperf_run_add_edge(&rs.runs[i], "fig1/A", "kworker", 0.03), 0);
	}
	judge(&rs, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(v.nfindings, 1);
	assert_string_equal(v.findings[0].to, "jbd2/sda");
	assert_float_equal(v.findings[0].before, 0, 0);
	assert_float_equal(v.findings[0].change, 4.0, 1e-9);		/* against the 5% floor */
	assert_float_equal(v.findings[0].p, 0.0039767517097886, 1e-12); /* 0s against 0.2s */
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

static void test_accepted_edge(void **state)
{
	const double up50[N] = {0.57, 0.585, 0.60, 0.615, 0.63};
	const char *const ends[] = {"fig1/B", "disk:*"};
	struct wperf_baseline b;
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, NULL, up50, NULL);
	make_baseline(&b);
	assert_int_equal(wperf_baseline_accept(&b, 1, ends, 2, "B writes more now"), 0);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_INFO);
	assert_true(v.findings[0].accepted);
	wperf_verdict_release(&v);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

static void test_throughput_regression(void **state)
{
	const double down20[N] = {800, 808, 792, 804, 796};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(N, down20, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(v.nfindings, 1);
	f = &v.findings[0];
	assert_int_equal(f->kind, WPERF_FINDING_THROUGHPUT);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_true(f->worse);
	assert_float_equal(f->before, 1000, 0);
	assert_float_equal(f->after, 800, 0);
	assert_float_equal(f->change, -0.2, 1e-12);
	assert_float_equal(f->p, SEPARATED, 1e-12);
	wperf_verdict_release(&v);
}

static void test_throughput_improved(void **state)
{
	const double up30[N] = {1300, 1313, 1287, 1306.5, 1293.5};
	struct wperf_gate_opts g = {.lower_is_better = 1};
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, up30, NULL, NULL);
	judge(&rs, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_IMPROVED);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_INFO);
	assert_false(v.findings[0].worse);
	assert_float_equal(v.findings[0].change, 0.3, 1e-12);
	wperf_verdict_release(&v);
	/* The same numbers as a latency: 30% worse. */
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

static void test_knot_gone(void **state)
{
	const char *const knots[N] = {"", "", KNOT, "", ""};
	struct wperf_verdict v;

	(void)state;
	verdict_of(N, NULL, NULL, knots, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_IMPROVED);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_KNOT_GONE);
	assert_int_equal(v.findings[0].seen, 1);
	assert_string_equal(v.findings[0].knot.ids[0], "disk:254:0");
	assert_string_equal(v.findings[0].knot.ids[1], "fig1/B");
	wperf_verdict_release(&v);
}

/* A member that joins the knot in some runs only is noise: the baseline knot
 * is not gone while a knot nested with it (inside or around) is there. */
static void test_knot_with_a_flickering_member_is_not_gone(void **state)
{
	const char *const smaller[N] = {KNOT, KNOT, KNOT, KNOT, KNOT};
	const char *const bigger[N] = {KNOT " kworker/#:#H", KNOT " kworker/#:#H", "", "",
				       KNOT " kworker/#:#H"};
	struct wperf_verdict v;

	(void)state;
	/* the baseline's knot is {disk, B}: runs with {disk, B, kworker} keep it */
	verdict_of(N, NULL, NULL, bigger, &v);
	for (size_t i = 0; i < v.nfindings; i++)
		assert_int_not_equal(v.findings[i].kind, WPERF_FINDING_KNOT_GONE);
	wperf_verdict_release(&v);
	/* runs with exactly the baseline's knot: nothing gone, nothing new */
	verdict_of(N, NULL, NULL, smaller, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	wperf_verdict_release(&v);
}

static void test_environment_and_lost_events(void **state)
{
	struct wperf_env other = {
	    .kernel = "6.5.0-1-amd64", .cpus = 4, .tool = "wperf-bench 0.1.0"};
	struct wperf_gate_opts g = {.env = &other};
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, NULL, NULL, NULL);
	for (size_t i = 0; i < N; i++)
		rs.runs[i].events = 1000000; /* under the 0.1% that stops a pass */
	rs.runs[1].lost_events = 120;
	rs.runs[3].lost_events = 3;
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nwarnings, 3);
	assert_string_equal(v.warnings[0], "environment: the runs' kernel is 6.5.0-1-amd64, the "
					   "baseline's 6.1.0-18-amd64: compare with care");
	assert_string_equal(v.warnings[1],
			    "environment: the runs had 4 CPUs, the baseline 2: compare with care");
	assert_string_equal(v.warnings[2],
			    "123 events were lost in 2 of 5 runs: their graphs may miss waits");
	assert_int_equal(v.lost_events, 123);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/* The CPU model is compared only when both sides know it. */
static void test_environment_cpu_model(void **state)
{
	static const char xeon[] = "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz";
	static const char epyc[] = "AMD EPYC 7763 64-Core Processor";
	struct wperf_env now = base_env;
	struct wperf_gate_opts g = {.env = &now};
	struct wperf_baseline b;
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_baseline(&b);
	make_runs(&rs, N, NULL, NULL, NULL);

	/* Both known, different: a warning, like the kernel's. */
	snprintf(b.env.cpu_model, sizeof(b.env.cpu_model), "%s", xeon);
	snprintf(now.cpu_model, sizeof(now.cpu_model), "%s", epyc);
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nwarnings, 1);
	assert_string_equal(
	    v.warnings[0],
	    "environment: the runs' CPU is AMD EPYC 7763 64-Core Processor, the "
	    "baseline's Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz: compare with care");
	wperf_verdict_release(&v);

	/* The same model: nothing. */
	snprintf(now.cpu_model, sizeof(now.cpu_model), "%s", xeon);
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.nwarnings, 0);
	wperf_verdict_release(&v);

	/* The runs do not know it. */
	now.cpu_model[0] = '\0';
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.nwarnings, 0);
	wperf_verdict_release(&v);

	/* The baseline does not know it (one made before it was recorded). */
	b.env.cpu_model[0] = '\0';
	snprintf(now.cpu_model, sizeof(now.cpu_model), "%s", epyc);
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.nwarnings, 0);
	assert_false(has_warning(&v, "CPU is"));
	wperf_verdict_release(&v);

	/* With the kernel and the CPU count: all three, in that order. */
	snprintf(b.env.cpu_model, sizeof(b.env.cpu_model), "%s", xeon);
	snprintf(now.kernel, sizeof(now.kernel), "6.5.0-1-amd64");
	now.cpus = 4;
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.nwarnings, 3);
	assert_true(strstr(v.warnings[0], "kernel") != NULL);
	assert_true(strstr(v.warnings[1], "4 CPUs") != NULL);
	assert_true(strstr(v.warnings[2], "the runs' CPU is AMD EPYC") != NULL);
	wperf_verdict_release(&v);

	wperf_runset_release(&rs);
	wperf_baseline_release(&b);
}

/* Against a baseline from another CPU, a measure that got worse beyond the
 * tolerance and the noise cannot be told from the machine: inconclusive, not a
 * failure. A new knot still fails: it is the program's shape, not its speed. */
static void test_other_machine(void **state)
{
	const double down20[N] = {800, 808, 792, 804, 796};
	const char *const knots[N] = {KNOT ";lock:x fig1/C", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x", KNOT};
	struct wperf_env now = base_env;
	struct wperf_gate_opts g = {.env = &now};
	struct wperf_baseline b;
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_baseline(&b);
	snprintf(now.cpu_model, sizeof(now.cpu_model), "AMD EPYC");
	snprintf(b.env.cpu_model, sizeof(b.env.cpu_model), "Intel(R) Xeon(R) Processor");
	make_runs(&rs, N, down20, NULL, NULL);
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_WARN);
	assert_non_null(strstr(v.findings[0].note, "the baseline is from another machine"));
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);

	make_runs(&rs, N, NULL, NULL, knots);
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);

	/* the same CPU: the slowdown fails */
	snprintf(now.cpu_model, sizeof(now.cpu_model), "%s", b.env.cpu_model);
	make_runs(&rs, N, down20, NULL, NULL);
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	wperf_baseline_release(&b);
}

static void test_names_and_errors(void **state)
{
	struct wperf_runset empty = {0};
	struct wperf_baseline b;
	struct wperf_verdict v;
	struct wperf_error err = {0};

	(void)state;
	assert_string_equal(wperf_verdict_name(WPERF_VERDICT_PASS), "pass");
	assert_string_equal(wperf_verdict_name(WPERF_VERDICT_IMPROVED), "improved");
	assert_string_equal(wperf_verdict_name(WPERF_VERDICT_NEW_BOTTLENECK), "new-bottleneck");
	assert_string_equal(wperf_verdict_name(WPERF_VERDICT_REGRESSION), "regression");
	assert_string_equal(wperf_verdict_name(WPERF_VERDICT_INCONCLUSIVE), "inconclusive");
	assert_int_equal(wperf_verdict_exit_code(WPERF_VERDICT_INCONCLUSIVE), 0);
	assert_int_equal(wperf_verdict_exit_code(WPERF_VERDICT_IMPROVED), 0);
	make_baseline(&b);
	assert_int_equal(wperf_verdict(&empty, &b, NULL, &v, &err), -EINVAL);
	assert_string_equal(err.msg, "no runs to compare with the baseline");
	wperf_baseline_release(&b);
}

/* ---- writers ---- */

static char *text_of(struct wperf_buf *b)
{
	assert_int_equal(wperf_buf_append(b, "", 1), 0);
	b->len--;
	return (char *)b->data;
}

static void test_markdown(void **state)
{
	const char *const knots[N] = {KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x", KNOT};
	const double down20[N] = {800, 808, 792, 804, 796};
	const double up50[N] = {0.57, 0.585, 0.60, 0.615, 0.63};
	struct wperf_buf md = {0};
	struct wperf_verdict v;
	char *text;

	(void)state;
	verdict_of(N, down20, up50, knots, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(wperf_verdict_markdown(&v, 0, &md), 0);
	text = text_of(&md);
	assert_true(!strncmp(text, "### wperf-bench `synthetic-fig1`: **new-bottleneck**\n",
			     strlen("### wperf-bench `synthetic-fig1`: **new-bottleneck**\n")));
	assert_non_null(strstr(text, "- **new** knot in 4 of 5 runs: `fig1/C`, `lock:x` — "));
	assert_non_null(strstr(text, "| **fail** | `fig1/B` → `disk:254:0` | 40.0% (38.0–42.0) | "
				     "60.0% (57.0–63.0) | +50.0% | 0.012 |"));
	assert_non_null(strstr(text, "1000 → 800 requests/s (-20.0%, medians)"));
	assert_null(strstr(text, "left out"));
	wperf_buf_release(&md);
	wperf_verdict_release(&v);
}

static void test_markdown_truncated(void **state)
{
	struct wperf_runset rs;
	struct wperf_verdict v;
	struct wperf_buf md = {0};
	char name[64], *text, *note;

	(void)state;
	make_runs(&rs, N, NULL, NULL, NULL);
	for (size_t i = 0; i < N; i++)
		for (int e = 0; e < 2000; e++) {
			snprintf(name, sizeof(name), "worker-%04d|`x`", e);
			assert_int_equal(wperf_run_add_edge(&rs.runs[i], "fig1/A", name, 0.3), 0);
		}
	judge(&rs, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(v.nfindings, 2000);
	assert_int_equal(wperf_verdict_markdown(&v, 0, &md), 0);
	assert_true(md.len <= WPERF_VERDICT_MD_MAX);
	text = text_of(&md);
	/* The last table row before the note is whole. */
	note = strstr(text, "|\n\n_");
	assert_non_null(note);
	assert_non_null(
	    strstr(note, " more lines left out: this summary stops at 60000 characters"));
	/* Table cells stay in their column: | and ` in names are escaped. */
	assert_non_null(strstr(text, "`worker-0000\\|'x'`"));
	wperf_buf_release(&md);
	assert_int_equal(wperf_verdict_markdown(&v, 5000, &md), 0);
	assert_true(md.len <= 5000);
	wperf_buf_release(&md);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/* Is text well-formed XML? xmllint says, when it is installed. */
static int xmllint(const char *text)
{
	char path[] = "/tmp/wperf-junit-XXXXXX", cmd[128];
	int fd = mkstemp(path), rc;
	FILE *p;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(cmd, sizeof(cmd), p))
		fprintf(stderr, "xmllint: %s", cmd);
	rc = pclose(p);
	unlink(path);
	return rc;
}

static void test_junit(void **state)
{
	const char *const knots[N] = {KNOT ";fig1/C <a&b>", KNOT ";fig1/C <a&b>",
				      KNOT ";fig1/C <a&b>", KNOT ";fig1/C <a&b>", KNOT};
	const double overlap[2] = {0.41, 0.79};
	struct wperf_verdict v1, v2, v3;
	const struct wperf_verdict *all[3] = {&v1, &v2, &v3};
	struct wperf_runset rs;
	struct wperf_buf x = {0};
	char *text;

	(void)state;
	verdict_of(N, NULL, NULL, knots, &v1);
	/* Names with quotes, a control character and bytes that are not UTF-8. */
	make_runs(&rs, N, NULL, NULL, NULL);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(
		    wperf_run_add_edge(&rs.runs[i], "q\"'\x01\xff", "]]> \xef\xbf\xbf", 0.4), 0);
	judge(&rs, NULL, NULL, &v2);
	free(v2.scenario);
	v2.scenario = strdup("weird \"<scenario>\" & 'co'");
	wperf_runset_release(&rs);
	verdict_of(2, NULL, overlap, NULL, &v3);
	assert_int_equal(wperf_verdict_junit(all, 3, &x), 0);
	text = text_of(&x);
	assert_non_null(strstr(text, "<testsuites name=\"wperf-bench\" tests=\"6\" failures=\"2\" "
				     "errors=\"0\" skipped=\"1\">"));
	assert_non_null(strstr(text, "<testsuite name=\"synthetic-fig1\" tests=\"2\" "
				     "failures=\"1\""));
	assert_non_null(strstr(text, "name=\"bottlenecks\""));
	assert_non_null(strstr(text, "name=\"throughput\""));
	assert_non_null(strstr(text, "<failure type=\"new-bottleneck\" message=\"new knot "
				     "{&lt;a&amp;b&gt;, fig1/C} in 4 of 5 runs"));
	assert_non_null(strstr(text, "weird &quot;&lt;scenario&gt;&quot; &amp; &apos;co&apos;"));
	assert_non_null(strstr(text, "q&quot;&apos;??"));
	assert_non_null(strstr(text, "<skipped message=\"inconclusive: edge fig1/B"));
	assert_null(strstr(text, "\x01"));
	assert_null(strstr(text, "\xff"));
	assert_null(strstr(text, "]]>"));
	if (access("/usr/bin/xmllint", X_OK) == 0 || system("command -v xmllint >/dev/null") == 0)
		assert_int_equal(xmllint(text), 0);
	wperf_buf_release(&x);
	wperf_verdict_release(&v1);
	wperf_verdict_release(&v2);
	wperf_verdict_release(&v3);
}

/* ---- runs from an analysis ---- */

/* Is the vertex of this identity an ignored (interrupt) one? */
static int ignored(const struct wperf_analysis *a, const char *identity)
{
	for (uint32_t v = 0; v < a->merged.nvertices; v++)
		if (!strcmp(a->merged.vertices[v].identity, identity))
			return a->ignored[v];
	fail_msg("no vertex %s", identity);
	return 1;
}

/* tests/data/fig1.trace (see test_data.c): the knot fig1 waits for holds B and
 * the disk; no edge of a run is under 1% of the window or touches an irq, and
 * with a target none lies outside what the target waits for. */
static void test_run_from_analysis(void **state)
{
	struct wperf_trace *t = NULL;
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};
	struct wperf_run r, all;
	const char *pid;
	int b_disk = 0;
	size_t kept = 0, irq_edges = 0;

	(void)state;
	if (wperf_trace_open("tests/data/fig1.trace", &t, &err) < 0 ||
	    wperf_analyze(t, NULL, &a, &err) < 0)
		fail_msg("%s", err.msg);
	pid = wperf_trace_meta(t, "command_pid");
	assert_non_null(pid);
	if (wperf_run_from_analysis(a, pid, 123.5, &r, &err) ||
	    wperf_run_from_analysis(a, NULL, NAN, &all, &err))
		fail_msg("%s", err.msg);
	assert_float_equal(r.throughput, 123.5, 0);
	assert_true(isnan(all.throughput));
	assert_int_equal(r.window_ns, a->window);
	assert_int_equal(r.lost_events, a->timeline->lost_events);
	assert_int_equal(r.nknots, 1);
	assert_true(all.nknots >= r.nknots);
	assert_true(r.knots[0].n >= 2);
	for (size_t i = 0; i < r.knots[0].n; i++) {
		if (i)
			assert_true(strcmp(r.knots[0].ids[i - 1], r.knots[0].ids[i]) < 0);
		assert_null(strstr(r.knots[0].ids[i], "fig1/A"));
	}
	assert_string_equal(r.knots[0].ids[0], "disk:254:0");
	/* With the target, only the edges of what fig1 waits for: a subset of all,
	 * and what is left out never starts at fig1. */
	assert_true(r.nedges < all.nedges);
	for (size_t i = 0; i < all.nedges; i++) {
		const struct wperf_run_edge *e = &all.edges[i];

		if (wperf_run_edge_share(&r, e->from, e->to) == 0)
			assert_null(strstr(e->from, "fig1/"));
		else
			assert_float_equal(wperf_run_edge_share(&r, e->from, e->to), e->share, 0);
	}
	for (size_t i = 0; i < r.nedges; i++) {
		const struct wperf_run_edge *e = &r.edges[i];

		assert_true(e->share >= WPERF_RUN_MIN_SHARE);
		assert_false(ignored(a, e->from));
		assert_false(ignored(a, e->to));
		if (i)
			assert_true(strcmp(r.edges[i - 1].from, e->from) < 0 ||
				    (!strcmp(r.edges[i - 1].from, e->from) &&
				     strcmp(r.edges[i - 1].to, e->to) < 0));
		b_disk |= !strcmp(e->from, "fig1/B") && !strcmp(e->to, "disk:254:0");
	}
	assert_true(b_disk);
	/* Every edge of the merged graph that passes the share and touches no irq. */
	for (size_t i = 0; i < a->merged.graph.nedges; i++) {
		const struct wperf_edge *ge = &a->merged.graph.edges[i];

		if (!a->ignored[ge->from] && !a->ignored[ge->to] &&
		    (double)ge->weight / (double)a->window >= WPERF_RUN_MIN_SHARE)
			kept++;
		irq_edges += a->ignored[ge->from] || a->ignored[ge->to];
	}
	assert_int_equal(all.nedges, kept);
	assert_true(irq_edges > 0); /* so that leaving them out was tested */
	assert_true(wperf_run_edge_share(&r, B_DISK) >= WPERF_RUN_MIN_SHARE);
	wperf_run_release(&r);
	wperf_run_release(&all);
	wperf_analysis_free(a);
	wperf_trace_free(t);
}

static void test_run_building(void **state)
{
	const char *ids[] = {"b", "a\xff", "b", "c"};
	struct wperf_run r;

	(void)state;
	wperf_run_init(&r);
	assert_true(isnan(r.throughput));
	assert_int_equal(wperf_run_add_knot(&r, ids, 4), 0);
	assert_int_equal(r.knots[0].n, 3);
	assert_string_equal(r.knots[0].ids[0], "a?");
	assert_string_equal(r.knots[0].ids[1], "b");
	assert_int_equal(wperf_run_add_edge(&r, "z", "a", 0.1), 0);
	assert_int_equal(wperf_run_add_edge(&r, "a", "z", 0.2), 0);
	assert_int_equal(wperf_run_add_edge(&r, "m", "m", 0.3), 0);
	assert_int_equal(wperf_run_add_edge(&r, "a", "z", 0.05), 0);
	assert_int_equal(wperf_run_add_edge(&r, "a", "b", NAN), -EINVAL);
	assert_int_equal(wperf_run_add_edge(&r, "a", "b", -1), -EINVAL);
	assert_int_equal(r.nedges, 3);
	assert_string_equal(r.edges[0].from, "a");
	assert_float_equal(r.edges[0].share, 0.25, 1e-15);
	assert_string_equal(r.edges[1].from, "m");
	assert_string_equal(r.edges[2].from, "z");
	assert_float_equal(wperf_run_edge_share(&r, "z", "a"), 0.1, 0);
	assert_float_equal(wperf_run_edge_share(&r, "z", "b"), 0, 0);
	wperf_run_release(&r);
	assert_int_equal(r.nknots, 0);
}

/* Runs that lost more than max_lost of their events cannot make the gate pass. */
static void test_lost_events(void **state)
{
	struct wperf_runset rs;
	struct wperf_verdict v;
	struct wperf_gate_opts g = {0};
	struct wperf_buf xml = {0};
	const struct wperf_verdict *one = &v;

	(void)state;
	/* 1 lost in 10,000 (0.01%): under the 0.1% limit, a pass with a warning */
	make_runs(&rs, N, NULL, NULL, NULL);
	for (size_t i = 0; i < N; i++)
		rs.runs[i].events = 9999, rs.runs[i].lost_events = 1;
	judge(&rs, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.lossy_runs, 0);
	assert_true(has_warning(&v, "5 events were lost in 5 of 5 runs"));
	wperf_verdict_release(&v);

	/* one run lost 2%: inconclusive, with what to do, and skipped in JUnit */
	rs.runs[2].lost_events = 204;
	judge(&rs, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.lossy_runs, 1);
	assert_true(has_warning(&v, "1 of 5 runs lost more than 0.1% of their events: the gate "
				    "cannot pass on them"));
	assert_int_equal(wperf_verdict_junit(&one, 1, &xml), 0);
	assert_int_equal(wperf_buf_append(&xml, "", 1), 0);
	assert_non_null(strstr((char *)xml.data, "skipped=\"1\""));
	assert_non_null(strstr((char *)xml.data, "inconclusive: 1 of 5 runs lost too many events"));
	wperf_verdict_release(&v);

	/* a limit of 5% lets it pass; no limit at all too */
	g.max_lost = 0.05;
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	wperf_verdict_release(&v);
	g.max_lost = -1;
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	wperf_verdict_release(&v);

	/* a run that does not say how many it recorded, yet lost some, is not trusted */
	rs.runs[2].events = 0;
	rs.runs[2].lost_events = 1;
	judge(&rs, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	wperf_verdict_release(&v);

	/* a new knot still fails */
	wperf_runset_release(&rs);
	make_runs(&rs, N, NULL, NULL, (const char *const[]){KNOT " fig1/D", KNOT " fig1/D",
							       KNOT " fig1/D", KNOT, KNOT});
	for (size_t i = 0; i < N; i++)
		rs.runs[i].events = 1000, rs.runs[i].lost_events = 500;
	judge(&rs, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	wperf_buf_release(&xml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stats_basics),
	    cmocka_unit_test(test_mann_whitney),
	    cmocka_unit_test(test_identical_pass),
	    cmocka_unit_test(test_new_knot_in_most_runs),
	    cmocka_unit_test(test_new_knot_in_few_runs),
	    cmocka_unit_test(test_accepted_knot),
	    cmocka_unit_test(test_edge_regression),
	    cmocka_unit_test(test_edge_few_runs_inconclusive),
	    cmocka_unit_test(test_edge_within_tolerance),
	    cmocka_unit_test(test_edge_warn),
	    cmocka_unit_test(test_edge_within_noise),
	    cmocka_unit_test(test_new_and_light_edges),
	    cmocka_unit_test(test_accepted_edge),
	    cmocka_unit_test(test_throughput_regression),
	    cmocka_unit_test(test_throughput_improved),
	    cmocka_unit_test(test_knot_gone),
	    cmocka_unit_test(test_knot_with_a_flickering_member_is_not_gone),
	    cmocka_unit_test(test_environment_and_lost_events),
	    cmocka_unit_test(test_environment_cpu_model),
	    cmocka_unit_test(test_other_machine),
	    cmocka_unit_test(test_lost_events),
	    cmocka_unit_test(test_names_and_errors),
	    cmocka_unit_test(test_markdown),
	    cmocka_unit_test(test_markdown_truncated),
	    cmocka_unit_test(test_junit),
	    cmocka_unit_test(test_run_from_analysis),
	    cmocka_unit_test(test_run_building),
	};

	return cmocka_run_group_tests_name("the gate", tests, NULL, NULL);
}
