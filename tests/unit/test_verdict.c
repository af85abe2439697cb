/* SPDX-License-Identifier: MIT */
/*
 * The gate (core/gate/verdict.h) on constructed run sets against a baseline made
 * from five runs; the basic statistics (core/gate/stats.h; the tests' own are in
 * test_stats.c); a run taken from a recorded analysis (core/gate/runset.h); and the
 * Markdown and JUnit writers.
 *
 * The baseline's five runs: throughput 990..1010, one knot {disk:254:0, fig1/B}
 * in each, and the edges fig1/B -> disk:254:0 (0.38..0.42 of the window, median
 * 0.40), fig1/A -> fig1/B (median 0.52) and disk:254:0 -> fig1/B (median 0.11).
 *
 * The p values and q values asserted are computed by hand from the rules in
 * verdict.h: one-sided p values (Fisher's for vertices, the exact Mann-Whitney
 * or the paired t test for edges and the throughput), adjusted by Holm's
 * step-down with Tarone's divisor, each kind its own family: the primaries
 * (vertices, the throughput, the expected answer) and the edges. At each step
 * the divisor is the smallest k such that at most k of the tests left have a
 * floor (the smallest p their runs could give) <= alpha / k; q is the running
 * maximum of p k. The floors here: a vertex in 5 of 5 runs on both sides can
 * give no p under 1; Fisher's 5 of 5 against 0 of 5 and Mann-Whitney's 5
 * against 5 can give 1 / C(10, 5) = 1 / 252 = 0.004. So the standard runs'
 * primaries (disk, B and the throughput) have divisor 1 (one floor <= 0.05),
 * their three edges divisor 3 (three floors <= 0.05 / 3 = 0.017).
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

#include "core/analysis/analysis.h"
#include "core/gate/baseline.h"
#include "core/gate/stats.h"
#include "core/trace/meta.h"
#include "core/trace/trace.h"
#include "core/gate/verdict.h"
#include "tests/lib/assert_near.h"
#include "tests/lib/runs.h"

#define N      5
#define KNOT   "disk:254:0 fig1/B"
#define B_DISK "fig1/B", "disk:254:0"
/* Mann-Whitney of two separated samples of 5, exact: 1 of the C(10, 5) = 252
 * splits is as extreme, one-sided (the gate's p); 2 of them two-sided. */
#define ONE_SIDED (1.0 / 252)
#define SEPARATED (2.0 / 252)

static const double base_tp[N] = {1000, 1010, 990, 1005, 995};
static const double base_bdisk[N] = {0.38, 0.39, 0.40, 0.41, 0.42};
static const double base_ab[N] = {0.50, 0.51, 0.52, 0.53, 0.54};
static const double base_diskb[N] = {0.10, 0.11, 0.12, 0.11, 0.10};
static const char *const base_knots[N] = {KNOT, KNOT, KNOT, KNOT, KNOT};

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
		runs_add_knots(&r, knots ? knots[i] : base_knots[i % N]);
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

/* The baseline of the runs rs: its samples in the order of the runs. */
static void baseline_of(const struct wperf_runset *rs, struct wperf_baseline *b)
{
	struct wperf_error err = {0};

	if (wperf_baseline_from_runs(rs, "synthetic-fig1", &base_env, b, &err))
		fail_msg("%s", err.msg);
}

static void make_baseline(struct wperf_baseline *b)
{
	struct wperf_runset rs;

	make_runs(&rs, N, NULL, NULL, NULL);
	baseline_of(&rs, b);
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

/* The first finding of kind about name (VERTEX: the vertex; EDGE: the edge's
 * head; NULL: any); NULL when there is none. */
static const struct wperf_finding *find(const struct wperf_verdict *v, enum wperf_finding_kind kind,
					const char *name)
{
	for (size_t i = 0; i < v->nfindings; i++) {
		const struct wperf_finding *f = &v->findings[i];
		const char *id = kind == WPERF_FINDING_VERTEX ? f->vertex
				 : kind == WPERF_FINDING_EDGE ? f->to
							      : NULL;

		if (f->kind == kind && (!name || (id && !strcmp(id, name))))
			return f;
	}
	return NULL;
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
	/* Exact: twice the smaller tail of U over the splits of the pooled values
	 * (given the ties). Separated 5 and 5: U = 0 in 1 split of 252, twice. */
	assert_near(wperf_mann_whitney_p(lo, 5, hi, 5), SEPARATED, 1e-15);
	assert_near(wperf_mann_whitney_p(hi, 5, lo, 5), SEPARATED, 1e-15);
	/* Ties: pooled mid-ranks 1, 3 3 3, 5.5 5.5, 7.5 7.5, 9; t1's rank sum 12.5
	 * (U = 2.5). Of the C(9, 4) = 126 picks of four ranks, sum <= 12.5 only
	 * {1, 3, 3, 3} (1 way) and {1, 3, 3, 5.5} (C(3, 2) 2 = 6 ways): P(U <=
	 * 2.5) = 7 / 126, the smaller tail; p = 14 / 126 = 1 / 9. */
	assert_near(wperf_mann_whitney_p(t1, 4, t2, 5), 1.0 / 9, 1e-15);
	/* Mid-ranks 1 2 3, 4.5 4.5, 6.5 6.5, 8.5 8.5, 10 11 12 13; u1's sum 25.5
	 * (U = 4.5). Picks of six with a sum <= 25.5, of C(13, 6) = 1716: with 1 2
	 * 3, both 4.5s and one of 6.5 6.5 8.5 8.5 10 (5), one 4.5 and 6.5 6.5 or
	 * 6.5 8.5 (2 (1 + 4) = 10); with 1 2 only, 4.5 4.5 6.5 6.5 (1): 16.
	 * p = 32 / 1716 = 8 / 429. */
	assert_near(wperf_mann_whitney_p(u1, 6, u2, 7), 8.0 / 429, 1e-15);
	/* The same sample on both sides, and all values equal: p = 1. */
	assert_near(wperf_mann_whitney_p(lo, 5, lo, 5), 1, 0);
	assert_near(wperf_mann_whitney_p(same, 3, same, 3), 1, 0);
	assert_true(isnan(wperf_mann_whitney_p(lo, 0, hi, 5)));
}

/* ---- the gate ---- */

/* The primary tests of the standard runs against the standard baseline: the
 * vertices disk:254:0 and fig1/B (5 of 5 against 5 of 5, p 1) and the
 * throughput (the same samples on both sides). The three edges are tests of
 * their own family, not counted in v.tests. */
#define STANDARD_TESTS 3

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
	assert_int_equal(v.tests, STANDARD_TESTS);
	assert_float_equal(v.alpha, WPERF_GATE_ALPHA, 0);
	assert_false(v.paired);
	assert_false(v.structure_only);
	assert_float_equal(v.throughput_before, 1000, 0);
	assert_float_equal(v.throughput_after, 1000, 0);
	assert_string_equal(v.scenario, "synthetic-fig1");
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/*
 * A knot {fig1/C, lock:x} in every run, in none of the baseline's: each of its
 * vertices joined, 5 of 5 against 0 of 5, one-sided Fisher p 1 / 252, its
 * floor too. Five primaries (four vertices, the throughput); three floors <=
 * 0.05 / 3 (C, lock:x, the throughput's 1 / 252), disk's and B's 1: divisor
 * 3 for fig1/C (first of the tie by order), q = 3 / 252; then 2 for lock:x,
 * 2 / 252, under the running maximum: q = 3 / 252 = 1 / 84 for both (plain
 * Holm: 5 / 252).
 */
static void test_new_knot_in_all_runs(void **state)
{
	const char *const knots[N] = {KNOT ";lock:x fig1/C", KNOT ";fig1/C lock:x",
				      "fig1/C lock:x;" KNOT, KNOT ";fig1/C lock:x",
				      KNOT ";lock:x fig1/C"};
	const char *const names[2] = {"fig1/C", "lock:x"};
	struct wperf_verdict v;

	(void)state;
	verdict_of(N, NULL, NULL, knots, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 1);
	assert_int_equal(v.tests, 5);
	assert_int_equal(v.nfindings, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct wperf_finding *f = &v.findings[i];

		assert_int_equal(f->kind, WPERF_FINDING_VERTEX);
		assert_int_equal(f->level, WPERF_LEVEL_FAIL);
		assert_string_equal(f->vertex, names[i]); /* equal changes: by name */
		assert_true(f->worse);
		assert_false(f->sink);
		assert_false(f->inconclusive);
		assert_int_equal(f->seen, 5);
		assert_int_equal(f->runs, 5);
		assert_int_equal(f->before_seen, 0);
		assert_int_equal(f->before_runs, 5);
		assert_float_equal(f->before, 0, 0);
		assert_float_equal(f->after, 1, 0);
		assert_float_equal(f->change, 1, 0);
		assert_near(f->p, 1.0 / 252, 1e-15);
		assert_near(f->q, 1.0 / 84, 1e-15);
		assert_null(f->from); /* no run has an edge to it */
	}
	wperf_verdict_release(&v);
}

/* 4 of 5 against 0 of 5: p C(5, 4) / C(10, 4) = 5 / 210 = 1 / 42, the floor
 * too (4 runs in all, all in the head's). Floors <= 0.05 / k: C, lock:x
 * (0.024) and the throughput (0.004) at k = 2, only the throughput at k = 3:
 * divisor 3, q = 3 / 42 = 1 / 14 = 0.071 for C; lock:x, next, divisor 2,
 * 2 / 42 under the running maximum: 1 / 14. Over alpha and within twice it:
 * inconclusive, not a failure. 2 of 5: a change of 0.4, within the tolerance
 * of 0.5, and p C(5, 2) / C(10, 2) = 10 / 45 = 0.22 not beyond the noise for
 * a warning: nothing. */
static void test_new_knot_in_few_runs(void **state)
{
	const char *const most[N] = {KNOT ";lock:x fig1/C", KNOT ";fig1/C lock:x", KNOT,
				     "fig1/C lock:x;" KNOT, KNOT ";lock:x fig1/C"};
	const char *const few[N] = {KNOT ";fig1/C lock:x", KNOT, KNOT, KNOT ";fig1/C lock:x", KNOT};
	struct wperf_verdict v;

	(void)state;
	verdict_of(N, NULL, NULL, most, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.nfindings, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(v.findings[i].kind, WPERF_FINDING_VERTEX);
		assert_int_equal(v.findings[i].level, WPERF_LEVEL_WARN);
		assert_true(v.findings[i].inconclusive);
		assert_true(v.findings[i].undecided);
		assert_int_equal(v.findings[i].seen, 4);
		assert_near(v.findings[i].change, 0.8, 1e-15);
		assert_near(v.findings[i].p, 1.0 / 42, 1e-15);
		assert_near(v.findings[i].q, 1.0 / 14, 1e-15);
	}
	wperf_verdict_release(&v);

	verdict_of(N, NULL, NULL, few, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
}

/* An accepted knot entry accepts each vertex that one of its globs matches:
 * {fig1/C} alone accepts fig1/C and leaves lock:x failing. */
static void test_accepted_knot(void **state)
{
	const char *const knots[N] = {KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x"};
	const char *const globs[] = {"fig1/C", "lock:x"}, *const partial[] = {"fig1/C"};
	struct wperf_baseline b;
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, NULL, NULL, knots);
	make_baseline(&b);
	assert_int_equal(wperf_baseline_accept(&b, 0, partial, 1, "C alone"), 0);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(v.nfindings, 2);
	assert_string_equal(v.findings[0].vertex, "lock:x"); /* the failure first */
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_FAIL);
	assert_false(v.findings[0].accepted);
	assert_string_equal(v.findings[1].vertex, "fig1/C");
	assert_int_equal(v.findings[1].level, WPERF_LEVEL_INFO);
	assert_true(v.findings[1].accepted);
	assert_string_equal(v.findings[1].note, "accepted: C alone");
	wperf_verdict_release(&v);

	assert_int_equal(wperf_baseline_accept(&b, 0, globs, 2, "the lock is known"), 0);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(v.findings[i].kind, WPERF_FINDING_VERTEX);
		assert_int_equal(v.findings[i].level, WPERF_LEVEL_INFO);
		assert_true(v.findings[i].accepted);
		assert_true(v.findings[i].worse);
	}
	/* The first entry that names a vertex accepts it. */
	assert_string_equal(v.findings[0].vertex, "fig1/C");
	assert_string_equal(v.findings[0].note, "accepted: C alone");
	assert_string_equal(v.findings[1].vertex, "lock:x");
	assert_string_equal(v.findings[1].note, "accepted: the lock is known");
	wperf_verdict_release(&v);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

/*
 * An edge alone fails nothing: fig1/B -> disk:254:0 +50%, the five runs above
 * the baseline's five: p 1 / 252 (separated), three edges with floors 1 /
 * 252 <= 0.05 / 3: q = 3 / 252 = 1 / 84, beyond the tolerance and the noise.
 * No primary got worse (the throughput and the knot are the baseline's): a
 * warning, a change of the graph's shape, and the gate passes.
 */
static void test_edge_alone_warns(void **state)
{
	const double up50[N] = {0.57, 0.585, 0.60, 0.615, 0.63};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(N, NULL, up50, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.tests, STANDARD_TESTS);
	assert_int_equal(v.nfindings, 1);
	f = &v.findings[0];
	assert_int_equal(f->kind, WPERF_FINDING_EDGE);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_true(f->worse);
	assert_false(f->inconclusive);
	assert_false(f->undecided);
	assert_string_equal(f->from, "fig1/B");
	assert_string_equal(f->to, "disk:254:0");
	assert_near(f->before, 0.40, 1e-12);
	assert_near(f->after, 0.60, 1e-12);
	assert_near(f->change, 0.5, 1e-9);
	assert_near(f->before_lo, 0.38, 0);
	assert_near(f->after_hi, 0.63, 0);
	assert_near(f->p, ONE_SIDED, 1e-15);
	assert_near(f->q, 3 * ONE_SIDED, 1e-15);
	assert_true(f->q <= WPERF_GATE_ALPHA);
	assert_non_null(strstr(f->note, "it fails nothing"));
	wperf_verdict_release(&v);
}

/* The same edge with the throughput 20% lower, every run under the baseline's:
 * the throughput fails (p 1 / 252, divisor 1: q 1 / 252), so the edge, q 3 /
 * 252 as alone, fails too: it says where the time went. */
static void test_edge_fails_with_the_throughput(void **state)
{
	const double up50[N] = {0.57, 0.585, 0.60, 0.615, 0.63};
	const double down20[N] = {800, 808, 792, 804, 796};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(N, down20, up50, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 1);
	assert_int_equal(v.nfindings, 2);
	f = find(&v, WPERF_FINDING_THROUGHPUT, NULL);
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_near(f->q, ONE_SIDED, 1e-15);
	f = find(&v, WPERF_FINDING_EDGE, "disk:254:0");
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_near(f->p, ONE_SIDED, 1e-15);
	assert_near(f->q, 3 * ONE_SIDED, 1e-15);
	assert_non_null(strstr(f->note, "part of the failure"));
	wperf_verdict_release(&v);
}

/* Fewer runs than min_runs on a side: no test, no p, nothing can fail. A
 * primary beyond the tolerance is inconclusive, with the runs that would
 * tell; an edge never is: without a p it is no finding. */
static void test_few_runs_inconclusive(void **state)
{
	const double overlap[2] = {0.41, 0.79}, apart3[3] = {0.59, 0.60, 0.61};
	const double tp2[2] = {500, 1100}, one[1] = {800};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	/* The edge +50% in 2 runs, and in 3 runs all above the baseline's range:
	 * no test, so no finding, and the gate passes with the warning. */
	verdict_of(2, NULL, overlap, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.tests, 0);
	assert_int_equal(v.nfindings, 0);
	assert_true(has_warning(&v, "2 runs against 5: a test needs 5 runs per side, so no "
				    "change can fail the gate"));
	wperf_verdict_release(&v);
	verdict_of(3, NULL, apart3, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);

	/* The throughput 1000 -> 800 (medians) in 2 runs: inconclusive. No test
	 * has a p, so the divisor is 1 and the level alpha. Pooled sd sqrt((250 +
	 * 180000) / 5) = 189.87, over 1000: 0.18987; one-sided, 2 ((1.64485 +
	 * 0.84162) 0.18987 / 0.2)^2 = 11.14: 12 runs per side. */
	verdict_of(2, tp2, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.tests, 0);
	assert_int_equal(v.nfindings, 1);
	f = &v.findings[0];
	assert_int_equal(f->kind, WPERF_FINDING_THROUGHPUT);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_true(f->inconclusive);
	assert_true(f->undecided);
	assert_near(f->change, -0.2, 1e-12);
	assert_true(isnan(f->p));
	assert_true(isnan(f->q));
	assert_int_equal(f->runs_needed, 12);
	assert_non_null(strstr(f->note, "about 12 runs per side would tell"));
	wperf_verdict_release(&v);

	/* One run cannot show its noise: the runs needed are min_runs. */
	verdict_of(1, one, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(v.nfindings, 1);
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

/* +8%: within the tolerance of 10%, beyond the warning level of 5%, and beyond
 * the noise (separated, among three edges: q = 3 p = 3 / 252): a warning. */
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
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_EDGE);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_WARN);
	assert_false(v.findings[0].inconclusive);
	assert_near(v.findings[0].change, 0.08, 1e-9);
	assert_near(v.findings[0].q, 3 * ONE_SIDED, 1e-15);
	assert_non_null(strstr(v.findings[0].note, "beyond the warning level (5%)"));
	wperf_verdict_release(&v);
	/* No warn level: nothing to say. */
	g.warn_ratio = -1;
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/*
 * Beyond the tolerance, within the noise. The edge +50% in the median, its
 * runs spread over the baseline's (0.20 0.39 0.60 0.80 0.95 against 0.38 ..
 * 0.42: U = 8.5 of 25, P(U <= 8.5) = 19 / 84 = 0.23 given the tie): no
 * finding, for an edge beyond the tolerance and not the noise says nothing.
 * The throughput -10% in the median (500 700 900 1003 1020 against 990 ..
 * 1010): U = 3 + 5 = 8 pairs the runs win, and of the 252 splits those with
 * U <= 8 number 1 1 2 3 5 7 9 11 14 for U = 0 .. 8 (partitions of U into at
 * most five parts of at most five): p = 53 / 252 = 0.21, divisor 1, q =
 * p: not even suggestive, a warning within run-to-run noise, not undecided.
 */
static void test_within_noise(void **state)
{
	const double noisy[N] = {0.20, 0.39, 0.60, 0.80, 0.95};
	const double tp[N] = {500, 700, 900, 1003, 1020};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(N, tp, noisy, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 1);
	assert_null(find(&v, WPERF_FINDING_EDGE, NULL));
	f = &v.findings[0];
	assert_int_equal(f->kind, WPERF_FINDING_THROUGHPUT);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_false(f->inconclusive);
	assert_false(f->undecided);
	assert_near(f->change, -0.1, 1e-12);
	assert_near(f->p, 53.0 / 252, 1e-15);
	assert_near(f->q, 53.0 / 252, 1e-15);
	assert_non_null(strstr(f->note, "within run-to-run noise"));
	wperf_verdict_release(&v);
}

/*
 * A new edge at 20% of the window, in no run of the baseline: its samples
 * there are zeros, and of the 252 splits of five 0s and five 0.2s only one
 * puts every 0 on the baseline's side: p 1 / 252. Four edges with floors
 * 1 / 252 <= 0.05 / 4: q = 4 / 252 (a fifth, the light edge, would make it 5 /
 * 252). No primary fails: a warning, and the gate passes.
 */
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
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.tests, STANDARD_TESTS); /* edges are not primaries */
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_WARN);
	assert_string_equal(v.findings[0].from, "fig1/A");
	assert_string_equal(v.findings[0].to, "jbd2/sda");
	assert_near(v.findings[0].before, 0, 0);
	assert_near(v.findings[0].change, 4.0, 1e-9); /* against the 5% floor */
	assert_near(v.findings[0].p, 1.0 / 252, 1e-15);
	assert_near(v.findings[0].q, 4.0 / 252, 1e-15);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

static void test_accepted_edge(void **state)
{
	const double up50[N] = {0.57, 0.585, 0.60, 0.615, 0.63};
	const char *const ends[] = {"fig1/B", "disk:254:0"};
	const char *const any_disk[] = {"fig1/B", "disk:*"};
	struct wperf_baseline b;
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, NULL, up50, NULL);
	make_baseline(&b);
	assert_int_equal(wperf_baseline_accept(&b, 1, any_disk, 2, "every disk"), -EINVAL);
	assert_int_equal(wperf_baseline_accept(&b, 1, ends, 2, "B writes more now"), 0);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_EDGE);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_INFO);
	assert_true(v.findings[0].accepted);
	assert_true(v.findings[0].worse);
	assert_string_equal(v.findings[0].note, "accepted: B writes more now");
	wperf_verdict_release(&v);
	/* who accepted it, when the caller knows the file's history */
	b.accepted[0].origin = strdup("1a2b3c4d5e6f (fig1: B writes twice)");
	judge(&rs, &b, NULL, &v);
	assert_string_equal(v.findings[0].note,
			    "accepted in 1a2b3c4d5e6f (fig1: B writes twice): B writes more now");
	wperf_verdict_release(&v);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

/* -20%, every run under the baseline's: p 1 / 252. Of the three primaries only
 * the throughput's floor (1 / 252) is <= 0.05: disk and B, in every run of both
 * sides, can give no p under 1. Divisor 1: q = p (plain Holm: 3 p). */
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
	assert_near(f->change, -0.2, 1e-12);
	assert_near(f->p, ONE_SIDED, 1e-15);
	assert_near(f->q, ONE_SIDED, 1e-15);
	assert_float_equal(v.throughput_before, 1000, 0);
	assert_float_equal(v.throughput_after, 800, 0);
	wperf_verdict_release(&v);
}

/*
 * The same drop against a baseline whose numbers were not measured beside
 * these runs (numbers_inform: a stored baseline in a check): a warning that
 * says why, and the verdict passes; a vertex that joins still fails.
 */
static void test_numbers_inform(void **state)
{
	const double down20[N] = {800, 808, 792, 804, 796};
	const char *const with_c[N] = {KNOT " C", KNOT " C", KNOT " C", KNOT " C", KNOT " C"};
	struct wperf_gate_opts g = {.numbers_inform = 1};
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, down20, NULL, NULL);
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_THROUGHPUT);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_WARN);
	assert_false(v.findings[0].inconclusive);
	assert_non_null(strstr(v.findings[0].note, "not measured beside these runs"));
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	make_runs(&rs, N, down20, NULL, with_c);
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/* +30%, every run above: p 1 / 252, and among the improvements, as among the
 * failures, divisor 1 (disk's and B's floors are 1 that way too): q = p. */
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
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_THROUGHPUT);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_INFO);
	assert_false(v.findings[0].worse);
	assert_near(v.findings[0].change, 0.3, 1e-12);
	assert_near(v.findings[0].p, ONE_SIDED, 1e-15);
	assert_near(v.findings[0].q, ONE_SIDED, 1e-15);
	wperf_verdict_release(&v);
	/* The same numbers as a latency: 30% worse. */
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_FAIL);
	assert_true(v.findings[0].worse);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/* The baseline's knot in no run: both its vertices left, 0 of 5 against 5 of
 * 5, p 1 / 252, the floor that way too. Among the improvements three floors
 * (disk, B, the throughput's 1 / 252) are <= 0.05 / 3: q = 3 / 252 for disk,
 * then 2 / 252 for B, under the running maximum: 1 / 84 for both; better
 * beyond the noise, improved. In one run of five: p C(5, 5) C(5, 1) / C(10,
 * 6) = 5 / 210 = 1 / 42, the floor (6 runs in all, 5 of them the base's);
 * 1 / 42 = 0.024 > 0.05 / 3: divisor 3, q = 3 / 42 = 0.071 > alpha: nothing. */
static void test_vertex_left_the_knots(void **state)
{
	const char *const none[N] = {"", "", "", "", ""};
	const char *const once[N] = {"", "", KNOT, "", ""};
	const char *const names[2] = {"disk:254:0", "fig1/B"};
	struct wperf_verdict v;

	(void)state;
	verdict_of(N, NULL, NULL, none, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_IMPROVED);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.nfindings, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct wperf_finding *f = &v.findings[i];

		assert_int_equal(f->kind, WPERF_FINDING_VERTEX);
		assert_int_equal(f->level, WPERF_LEVEL_INFO);
		assert_string_equal(f->vertex, names[i]);
		assert_false(f->worse);
		assert_false(f->accepted);
		assert_int_equal(f->seen, 0);
		assert_int_equal(f->before_seen, 5);
		assert_near(f->change, -1, 0);
		assert_near(f->p, 1.0 / 252, 1e-15);
		assert_near(f->q, 1.0 / 84, 1e-15);
	}
	wperf_verdict_release(&v);

	verdict_of(N, NULL, NULL, once, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
}

/*
 * A member that joins the knot in some runs is judged alone: kworker in 3 of 5
 * runs against none (+0.6, beyond the tolerance), p C(5, 3) / C(10, 3) = 10 /
 * 120 = 1 / 12, its floor too (3 runs in all, all the head's). Its floor and
 * disk's and B's (5 of 5 against 3 of 5: 10 / 45) are over alpha: only the
 * throughput's 1 / 252 counts, divisor 1, q = p = 0.083. Inconclusive is the
 * step-down at twice alpha, 0.1, whose divisor is its own: the kworker's
 * floor (1 / 12) and the throughput's are under 0.1 (2 > 1), only the
 * throughput's under 0.1 / 2 (1 <= 2): divisor 2, 2 / 12 = 0.17 > 0.1, so
 * not inconclusive; its own p (0.083) is over 0.05, so not undecided either:
 * a warning within the run-to-run noise, and the verdict passes. Disk and B,
 * in 3 of 5 against 5 of 5 (-0.4), are within the tolerance.
 */
static void test_knot_with_a_flickering_member(void **state)
{
	const char *const bigger[N] = {KNOT " kworker/#:#H", KNOT " kworker/#:#H", "", "",
				       KNOT " kworker/#:#H"};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(N, NULL, NULL, bigger, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.tests, STANDARD_TESTS + 1);
	assert_int_equal(v.nfindings, 1);
	f = &v.findings[0];
	assert_int_equal(f->kind, WPERF_FINDING_VERTEX);
	assert_string_equal(f->vertex, "kworker/#:#H");
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_false(f->inconclusive);
	assert_false(f->undecided);
	assert_int_equal(f->seen, 3);
	assert_near(f->change, 0.6, 1e-15);
	assert_near(f->p, 1.0 / 12, 1e-15);
	assert_near(f->q, 1.0 / 12, 1e-15);
	assert_non_null(strstr(f->note, "within run-to-run noise"));
	wperf_verdict_release(&v);
}

/*
 * A kworker that flickers in and out of the knot: in 3 of 5 runs against 1 of
 * 5 of the base (docs/ci.md's example). +0.4 is within the tolerance (0.5:
 * from a minority of the runs to a majority); beyond the warning level (0.25)
 * but far from significant: Fisher's p = (C(4,3) C(6,2) + C(4,4) C(6,1)) /
 * C(10,5) = 66 / 252. No finding, and the verdict passes, against a stored
 * baseline and against the base's own runs (check-perf --base) alike.
 */
static void test_flickering_vertex_passes(void **state)
{
	const char *const base[N] = {KNOT, KNOT " kworker/#:#H", KNOT, KNOT, KNOT};
	const char *const head[N] = {KNOT " kworker/#:#H", KNOT, KNOT " kworker/#:#H", KNOT,
				     KNOT " kworker/#:#H"};
	struct wperf_gate_opts g = {.paired = 1};
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_verdict v;

	(void)state;
	assert_near(wperf_fisher_greater_p(3, 5, 1, 5), 66.0 / 252, 1e-15);
	make_runs(&brs, N, NULL, NULL, base);
	baseline_of(&brs, &b);
	make_runs(&rs, N, NULL, NULL, head);
	for (int against_runs = 0; against_runs < 2; against_runs++) {
		g.base_runs = against_runs ? &brs : NULL;
		judge(&rs, &b, against_runs ? &g : NULL, &v);
		assert_int_equal(v.kind, WPERF_VERDICT_PASS);
		assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
		assert_int_equal(v.tests, STANDARD_TESTS + 1); /* the kworker is tested */
		assert_int_equal(v.nfindings, 0);
		assert_null(find(&v, WPERF_FINDING_VERTEX, "kworker/#:#H"));
		wperf_verdict_release(&v);
	}
	wperf_runset_release(&rs);
	wperf_baseline_release(&b);
	wperf_runset_release(&brs);
}

/*
 * fig1/C joins the knot of disk and B in 8 of 8 runs, against 0 of 8: p 1 /
 * C(16, 8) = 1 / 12870, its floor too. It came with two new edges, B -> C at
 * 30% of the window and C -> disk at 6%, and A -> C at 2% (under the floor):
 * the edge that brought it is B -> C, the one that grew most. Four primaries
 * (three vertices, the throughput); floors <= 0.05 / 2: C's and the
 * throughput's (1 / 12870 at 8 against 8), not disk's and B's (1): C's q = 2 /
 * 12870. Five edges, each floor 1 / 12870; the two new ones, 8 zeros against
 * 8 equal shares, p 1 / 12870 (one split of C(16, 8)): q = 5 / 12870 for the
 * first, 4 / 12870 under the running maximum for the second; they fail with
 * C.
 */
static void test_vertex_joins_in_all_runs(void **state)
{
	const char *const joined[8] = {KNOT " fig1/C", KNOT " fig1/C", KNOT " fig1/C",
				       KNOT " fig1/C", KNOT " fig1/C", KNOT " fig1/C",
				       KNOT " fig1/C", KNOT " fig1/C"};
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	make_runs(&brs, 8, NULL, NULL, NULL);
	baseline_of(&brs, &b);
	make_runs(&rs, 8, NULL, NULL, joined);
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(wperf_run_add_edge(&rs.runs[i], "fig1/B", "fig1/C", 0.30), 0);
		assert_int_equal(wperf_run_add_edge(&rs.runs[i], "fig1/C", "disk:254:0", 0.06), 0);
		assert_int_equal(wperf_run_add_edge(&rs.runs[i], "fig1/A", "fig1/C", 0.02), 0);
	}
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(v.tests, 4);
	f = find(&v, WPERF_FINDING_VERTEX, "fig1/C");
	assert_non_null(f);
	assert_ptr_equal(f, &v.findings[0]); /* a vertex fails before edges */
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_true(f->worse);
	assert_int_equal(f->seen, 8);
	assert_int_equal(f->runs, 8);
	assert_int_equal(f->before_seen, 0);
	assert_int_equal(f->before_runs, 8);
	assert_rel(f->p, 1.0 / 12870, 1e-12);
	assert_rel(f->q, 2.0 / 12870, 1e-12);
	assert_string_equal(f->from, "fig1/B");
	assert_string_equal(f->to, "fig1/C");
	/* disk and B stayed: no finding; the two new edges fail too. */
	assert_null(find(&v, WPERF_FINDING_VERTEX, "disk:254:0"));
	assert_null(find(&v, WPERF_FINDING_VERTEX, "fig1/B"));
	assert_int_equal(v.nfindings, 3);
	f = find(&v, WPERF_FINDING_EDGE, "fig1/C");
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_rel(f->p, 1.0 / 12870, 1e-12);
	assert_rel(f->q, 5.0 / 12870, 1e-12);
	f = find(&v, WPERF_FINDING_EDGE, "disk:254:0");
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_rel(f->q, 5.0 / 12870, 1e-12);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	wperf_baseline_release(&b);
	wperf_runset_release(&brs);
}

/*
 * fig1/C in the knot of 4 of 8 runs, none of the base's: a change of 0.5, not
 * beyond the tolerance (a majority), but p C(8, 4) / C(16, 4) = 70 / 1820 =
 * 0.038 is suggestive: a vertex in 70% of the runs shows in 4 of 8 one time
 * in five. A warning, undecided (the looks go on), no failure. In 3 of 8, p
 * 56 / 560 = 0.1: nothing.
 */
static void test_vertex_in_a_minority_is_undecided(void **state)
{
	const char *half[8], *three[8];
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	for (size_t i = 0; i < 8; i++) {
		half[i] = i < 4 ? KNOT " fig1/C" : KNOT;
		three[i] = i < 3 ? KNOT " fig1/C" : KNOT;
	}
	make_runs(&brs, 8, NULL, NULL, NULL);
	baseline_of(&brs, &b);
	make_runs(&rs, 8, NULL, NULL, half);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_false(wperf_verdict_settled(&v));
	f = find(&v, WPERF_FINDING_VERTEX, "fig1/C");
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_true(f->undecided);
	assert_false(f->inconclusive);
	assert_rel(f->p, 70.0 / 1820, 1e-12);
	assert_non_null(strstr(f->note, "4 of 8 runs (0 of 8 before), not yet a majority"));
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);

	make_runs(&rs, 8, NULL, NULL, three);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_null(find(&v, WPERF_FINDING_VERTEX, "fig1/C"));
	assert_true(wperf_verdict_settled(&v));
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	wperf_baseline_release(&b);
	wperf_runset_release(&brs);
}

/* With the base's runs at hand, the sinks are compared too: fig1/A a sink in
 * every run, in none of the base's: p 1 / 252. Four primaries (disk, B, the
 * sink, the throughput), two floors <= 0.05 / 2 (the sink's and the
 * throughput's 1 / 252): q = 2 / 252. Without base_runs, no sinks. */
static void test_new_sink(void **state)
{
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_gate_opts g = {0};
	struct wperf_verdict v;
	const struct wperf_finding *f;
	const char *a = "fig1/A";

	(void)state;
	make_runs(&brs, N, NULL, NULL, NULL);
	baseline_of(&brs, &b);
	make_runs(&rs, N, NULL, NULL, NULL);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(wperf_idset_from(&a, 1, &rs.runs[i].sinks), 0);
	g.base_runs = &brs;
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 1);
	assert_int_equal(v.tests, 4);
	assert_int_equal(v.nfindings, 1);
	f = &v.findings[0];
	assert_int_equal(f->kind, WPERF_FINDING_VERTEX);
	assert_true(f->sink);
	assert_string_equal(f->vertex, "fig1/A");
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_int_equal(f->seen, 5);
	assert_int_equal(f->before_seen, 0);
	assert_near(f->p, 1.0 / 252, 1e-15);
	assert_near(f->q, 2.0 / 252, 1e-15);
	wperf_verdict_release(&v);

	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.tests, STANDARD_TESTS);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	wperf_baseline_release(&b);
	wperf_runset_release(&brs);
}

/*
 * The edge of test_edge_alone_warns is beyond the noise among three edges (q =
 * 3 / 252 = 0.012). Among 30 more edges that did not change, 33 in all, each
 * with the floor 1 / 252 of 5 runs against 5: up to k = 12 all 33 could reach
 * 0.05 / k (0.05 / 12 = 0.0042 >= 1 / 252 = 0.0040), at 13 none can: divisor
 * 13, q = 13 / 252 = 0.052 > alpha (plain Holm: 33 / 252). Not beyond the
 * noise: an edge, so no finding (never inconclusive); the 30 edges are no
 * primaries: three primary tests still, and the gate passes.
 */
static void test_adjusted_among_many_tests(void **state)
{
	const double up50[N] = {0.57, 0.585, 0.60, 0.615, 0.63};
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_verdict v;
	char name[32];

	(void)state;
	make_runs(&brs, N, NULL, NULL, NULL);
	make_runs(&rs, N, NULL, up50, NULL);
	for (size_t i = 0; i < N; i++)
		for (int e = 0; e < 30; e++) {
			double share = 0.10 + 0.01 * (double)i;

			snprintf(name, sizeof(name), "worker-%02d", e);
			assert_int_equal(wperf_run_add_edge(&brs.runs[i], name, "fig1/B", share),
					 0);
			assert_int_equal(wperf_run_add_edge(&rs.runs[i], name, "fig1/B", share), 0);
		}
	baseline_of(&brs, &b);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.tests, STANDARD_TESTS);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	wperf_baseline_release(&b);
	wperf_runset_release(&brs);
}

/* P(|T| >= t) for Student's t with 5 degrees of freedom, in closed form (odd
 * df), independent of stats.c: with phi = atan(sqrt(5) / |t|), 2 / pi (phi -
 * sin phi cos phi (1 + 2 / 3 sin^2 phi)). */
static double t5_two_sided(double t)
{
	double phi = atan(sqrt(5) / fabs(t));

	return 2 / M_PI * (phi - sin(phi) * cos(phi) * (1 + 2.0 / 3 * sin(phi) * sin(phi)));
}

/*
 * Paired (a baseline of the base's runs interleaved with these): six pairs whose
 * throughput drifts from 1000 to 2000 through the session. The head 20% lower
 * in each pair, with 2% noise (+2 -2 +1 -1 +2 -2%): the log ratios log 0.8 +
 * log(1 + noise) have mean -0.223294 and sd 0.018976, t = -28.8 with 5 degrees
 * of freedom, one-sided p 4.7e-7 (computed below). The paired t test's floor
 * is 0, disk's and B's 1: divisor 1, q = p: a failure of exp(mean) - 1 =
 * -20.0%. Not paired, the drift hides it: the head's runs beat 0 0 1 2 3 3 of
 * the base's, U = 9, and of the C(12, 6) = 924 splits 1 1 2 3 5 7 11 13 18 22
 * have U = 0 .. 9 (partitions into at most six parts of at most six): p = 83 /
 * 924 = 0.090, divisor 1, q = p, over alpha and within twice it:
 * inconclusive. (With a drift to 1500 only, U = 5, p = 19 / 924 = 0.021: the
 * exact test saw through it.) The drift alone, in both sides of each pair,
 * passes, paired or not.
 */
static void test_paired_drop_and_drift(void **state)
{
	const double base[6] = {1000, 1200, 1400, 1600, 1800, 2000};
	const double noise[6] = {0.02, -0.02, 0.01, -0.01, 0.02, -0.02};
	double drop[6], drift[6], d[6], mean = 0, ss = 0, t;
	struct wperf_gate_opts g = {.paired = 1};
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		drop[i] = 0.8 * base[i] * (1 + noise[i]);
		drift[i] = base[i] * (1 + noise[i]);
		d[i] = log(0.8) + log(1 + noise[i]);
		mean += d[i] / 6;
	}
	for (size_t i = 0; i < 6; i++)
		ss += (d[i] - mean) * (d[i] - mean);
	t = mean / (sqrt(ss / 5) / sqrt(6));
	make_runs(&brs, 6, base, NULL, NULL);
	baseline_of(&brs, &b);
	g.base_runs = &brs;

	make_runs(&rs, 6, drop, NULL, NULL);
	judge(&rs, &b, &g, &v);
	assert_true(v.paired);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(v.tests, 3);
	assert_int_equal(v.nfindings, 1);
	f = &v.findings[0];
	assert_int_equal(f->kind, WPERF_FINDING_THROUGHPUT);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_true(f->worse);
	assert_rel(f->change, expm1(mean), 1e-12);
	assert_near(t, -28.8, 0.05);
	assert_rel(f->p, t5_two_sided(t) / 2, 1e-9);
	assert_rel(f->q, t5_two_sided(t) / 2, 1e-9);
	wperf_verdict_release(&v);
	judge(&rs, &b, NULL, &v);
	assert_false(v.paired);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(v.nfindings, 1);
	assert_true(v.findings[0].inconclusive);
	assert_true(v.findings[0].undecided);
	assert_near(v.findings[0].p, 83.0 / 924, 1e-15);
	assert_near(v.findings[0].q, 83.0 / 924, 1e-15);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);

	make_runs(&rs, 6, drift, NULL, NULL);
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	wperf_baseline_release(&b);
	wperf_runset_release(&brs);
}

/* A synthetic scenario's known answer missed by most runs that checked it
 * fails; by a few, a warning; by none, nothing. */
static void test_expectation(void **state)
{
	struct wperf_gate_opts g = {.expect_missed = 3, .expect_checked = 5};
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, NULL, NULL, NULL);
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 1);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_EXPECTATION);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_FAIL);
	assert_int_equal(v.findings[0].seen, 3);
	assert_int_equal(v.findings[0].runs, 5);
	assert_string_equal(v.findings[0].note,
			    "3 of 5 runs missed the scenario's expected answer");
	wperf_verdict_release(&v);

	g.expect_missed = 1;
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_EXPECTATION);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_WARN);
	assert_string_equal(v.findings[0].note,
			    "1 of 5 runs missed the scenario's expected answer (most found it)");
	wperf_verdict_release(&v);

	g.expect_missed = 0;
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/* Against the base's runs a missed expectation counts only beyond what the
 * base missed (a machine that makes the analyzer miss does so on both sides):
 * 3 of 5 against 3 of 5 is nothing; 5 of 5 against 0 of 5 fails, p 1 / 252.
 * Four primaries (the expectation, disk, B, the throughput): floors <= 0.05 /
 * 2 the expectation's 1 / 252 and the paired t test's 0: q = 2 / 252. */
static void test_expectation_paired(void **state)
{
	struct wperf_gate_opts g = {.paired = 1,
				    .expect_missed = 3,
				    .expect_checked = 5,
				    .expect_base_missed = 3,
				    .expect_base_checked = 5};
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, NULL, NULL, NULL);
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	wperf_verdict_release(&v);

	g.expect_missed = 5;
	g.expect_base_missed = 0;
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_EXPECTATION);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_FAIL);
	assert_int_equal(v.findings[0].before_seen, 0);
	assert_int_equal(v.findings[0].seen, 5);
	assert_near(v.findings[0].p, 1.0 / 252, 1e-15);
	assert_near(v.findings[0].q, 2.0 / 252, 1e-15);
	assert_non_null(strstr(v.findings[0].note, "more runs miss the expected answer"));
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/* Against numbers from another machine only the structure is compared: the
 * throughput halved and an edge doubled are no finding, not even a test (the
 * two vertices are the only tests); a vertex that joined still fails (of the
 * four vertices two have floors <= 0.05 / 2, fig1/C's and lock:x's 1 / 252:
 * q = 2 / 252 for the first, 1 / 252 under the running maximum for the
 * second), and so does a missed expectation. */
static void test_structure_only(void **state)
{
	const double half[N] = {500, 505, 495, 502.5, 497.5};
	const double up100[N] = {0.76, 0.78, 0.80, 0.82, 0.84};
	const char *const knots[N] = {KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x"};
	struct wperf_gate_opts g = {.structure_only = 1};
	struct wperf_runset rs;
	struct wperf_verdict v;

	(void)state;
	make_runs(&rs, N, half, up100, NULL);
	judge(&rs, NULL, &g, &v);
	assert_true(v.structure_only);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 0);
	assert_int_equal(v.tests, 2);
	/* The medians are shown, not compared: no throughput finding. */
	assert_false(isnan(v.throughput_before));
	assert_false(isnan(v.throughput_after));
	assert_true(has_warning(&v, "the baseline's numbers are from another machine: edge "
				    "shares and the throughput are not compared"));
	wperf_verdict_release(&v);
	/* The same runs compared in full: both fail. */
	judge(&rs, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_non_null(find(&v, WPERF_FINDING_EDGE, "disk:254:0"));
	assert_non_null(find(&v, WPERF_FINDING_THROUGHPUT, NULL));
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);

	make_runs(&rs, N, half, up100, knots);
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(v.tests, 4);
	assert_int_equal(v.nfindings, 2);
	for (size_t i = 0; i < v.nfindings; i++) {
		assert_int_equal(v.findings[i].kind, WPERF_FINDING_VERTEX);
		assert_int_equal(v.findings[i].level, WPERF_LEVEL_FAIL);
		assert_near(v.findings[i].q, 2.0 / 252, 1e-15);
	}
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);

	make_runs(&rs, N, half, up100, NULL);
	g.expect_missed = 4;
	g.expect_checked = 5;
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, WPERF_FINDING_EXPECTATION);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/* The kernel and the tool are compared with a stored baseline's (the CPU count
 * and model no more: structure_only is the caller's answer to another
 * machine); paired runs share the machine, so nothing is compared. */
static void test_environment_and_lost_events(void **state)
{
	struct wperf_env other = {
	    .kernel = "6.5.0-1-amd64", .cpus = 4, .tool = "wperf-bench 0.2.0"};
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
	assert_int_equal(v.lossy_runs, 0);
	assert_int_equal(v.nwarnings, 3);
	assert_string_equal(v.warnings[0], "environment: the runs' kernel is 6.5.0-1-amd64, the "
					   "baseline's 6.1.0-18-amd64");
	assert_string_equal(v.warnings[1], "environment: the runs were analyzed by wperf-bench "
					   "0.2.0, the baseline by wperf-bench 0.1.0");
	assert_string_equal(v.warnings[2],
			    "123 events were lost in 2 of 5 runs: their graphs may miss waits");
	assert_int_equal(v.lost_events, 123);
	wperf_verdict_release(&v);

	/* The same kernel and tool, other CPUs: nothing to say. */
	snprintf(other.kernel, sizeof(other.kernel), "%s", base_env.kernel);
	snprintf(other.tool, sizeof(other.tool), "%s", base_env.tool);
	snprintf(other.cpu_model, sizeof(other.cpu_model), "AMD EPYC 7763 64-Core Processor");
	judge(&rs, NULL, &g, &v);
	assert_int_equal(v.nwarnings, 1);
	assert_true(has_warning(&v, "123 events were lost"));
	wperf_verdict_release(&v);

	/* Paired: the kernel is not compared. */
	snprintf(other.kernel, sizeof(other.kernel), "6.5.0-1-amd64");
	g.paired = 1;
	judge(&rs, NULL, &g, &v);
	assert_false(has_warning(&v, "environment"));
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
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

/* Gives run i's edge fig1/B -> disk:254:0 two call sites: where B's fsync
 * waits (0.9 of the edge) and, told apart by its waker, run i's own (0.1). */
static void add_disk_sites(struct wperf_runset *rs)
{
	for (size_t i = 0; i < rs->nruns; i++) {
		struct wperf_run_edge *e = wperf_run_edge(&rs->runs[i], B_DISK);
		char own[32];

		snprintf(own, sizeof(own), "run %zu", i);
		assert_int_equal(wperf_run_edge_add_site(e,
							 "fsync (fsync.c:27) <- writer (fig1.c:88)",
							 "blk_mq_end_request+0x1c", 0.9 * e->share),
				 0);
		assert_int_equal(wperf_run_edge_add_site(e, NULL, own, 0.1 * e->share), 0);
	}
}

/* A worse edge shows where its time goes: the sites of the run whose share
 * of it is the median (run 2 of up50), in the Markdown under its row. */
static void test_call_sites_of_a_worse_edge(void **state)
{
	const double up50[N] = {0.63, 0.57, 0.60, 0.615, 0.585};
	const double down20[N] = {800, 808, 792, 804, 796};
	struct wperf_runset rs;
	struct wperf_buf md = {0};
	struct wperf_verdict v;
	const struct wperf_finding *f;
	char *text;

	(void)state;
	make_runs(&rs, N, down20, up50, NULL);
	add_disk_sites(&rs);
	judge(&rs, NULL, NULL, &v);
	f = find(&v, WPERF_FINDING_EDGE, "disk:254:0");
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_int_equal(f->nsites, 2);
	assert_string_equal(f->sites[0].waiter, "fsync (fsync.c:27) <- writer (fig1.c:88)");
	assert_string_equal(f->sites[0].waker, "blk_mq_end_request+0x1c");
	assert_near(f->sites[0].share, 0.9, 1e-12);
	assert_null(f->sites[1].waiter);
	assert_string_equal(f->sites[1].waker, "run 2");
	assert_near(f->sites[1].share, 0.1, 1e-12);
	/* the throughput has no edge, and no sites */
	assert_int_equal(find(&v, WPERF_FINDING_THROUGHPUT, NULL)->nsites, 0);
	assert_int_equal(wperf_verdict_markdown(&v, 0, &md), 0);
	text = text_of(&md);
	assert_non_null(strstr(text, "  - 90%: blocked in `fsync (fsync.c:27) <- writer "
				     "(fig1.c:88)`, woken from `blk_mq_end_request+0x1c`\n"));
	wperf_buf_release(&md);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

/* Which findings take sites: the worse edges at warn and fail and the vertices
 * with an edge, from the runs that have it; one with sites keeps them. */
static void test_take_sites(void **state)
{
	static const struct {
		enum wperf_finding_kind kind;
		enum wperf_level level;
		int worse;
		const char *from, *to;
		size_t nsites;
	} cases[] = {
	    {WPERF_FINDING_EDGE, WPERF_LEVEL_WARN, 1, B_DISK, 2},
	    {WPERF_FINDING_EDGE, WPERF_LEVEL_WARN, 0, B_DISK, 0},   /* better */
	    {WPERF_FINDING_EDGE, WPERF_LEVEL_INFO, 1, B_DISK, 0},   /* no matter */
	    {WPERF_FINDING_VERTEX, WPERF_LEVEL_INFO, 0, B_DISK, 2}, /* it left: still shown */
	    {WPERF_FINDING_VERTEX, WPERF_LEVEL_FAIL, 1, NULL, NULL, 0},
	    {WPERF_FINDING_EDGE, WPERF_LEVEL_FAIL, 1, "fig1/B", "nobody", 0},
	    {WPERF_FINDING_EDGE, WPERF_LEVEL_FAIL, 1, "fig1/A", "fig1/B", 0}, /* no sites kept */
	};
	const size_t n = sizeof(cases) / sizeof(*cases);
	struct wperf_verdict v = {.findings = calloc(n + 1, sizeof(*v.findings)), .nfindings = n};
	struct wperf_runset rs;

	(void)state;
	make_runs(&rs, 4, NULL, NULL, NULL);
	add_disk_sites(&rs);
	assert_non_null(v.findings);
	for (size_t i = 0; i < n; i++) {
		struct wperf_finding *f = &v.findings[i];

		*f = (struct wperf_finding){
		    .kind = cases[i].kind, .level = cases[i].level, .worse = cases[i].worse};
		f->from = cases[i].from ? strdup(cases[i].from) : NULL;
		f->to = cases[i].to ? strdup(cases[i].to) : NULL;
	}
	assert_int_equal(wperf_verdict_take_sites(&v, &rs), 0);
	for (size_t i = 0; i < n; i++)
		if (v.findings[i].nsites != cases[i].nsites)
			fail_msg("finding %zu: %zu sites, expected %zu", i, v.findings[i].nsites,
				 cases[i].nsites);
	/* 4 runs of B -> disk: 0.38 0.39 0.40 0.41, the lower median is run 1's */
	assert_string_equal(v.findings[0].sites[1].waker, "run 1");
	/* filled already: left alone */
	free(v.findings[0].sites[1].waker);
	v.findings[0].sites[1].waker = strdup("mine");
	assert_int_equal(wperf_verdict_take_sites(&v, &rs), 0);
	assert_string_equal(v.findings[0].sites[1].waker, "mine");
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
}

static void test_markdown(void **state)
{
	const char *const knots[N] = {KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x", KNOT ";fig1/C lock:x",
				      KNOT ";fig1/C lock:x"};
	const double down20[N] = {800, 808, 792, 804, 796};
	const double up50[N] = {0.57, 0.585, 0.60, 0.615, 0.63};
	struct wperf_buf md = {0};
	struct wperf_verdict v;
	char *text;

	(void)state;
	/* Five primaries: fig1/C, lock:x and the throughput at p 1 / 252, their
	 * floors too, disk and B at floor 1: divisors 3, 2, 1 down the three,
	 * products 3, 2, 1 / 252, so every q is the running maximum 3 / 252 =
	 * 0.012. The edge: p 1 / 252 among three edges, q 3 / 252, failing with
	 * the primaries. */
	verdict_of(N, down20, up50, knots, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(v.nfindings, 4);
	for (size_t i = 0; i < v.nfindings; i++) {
		assert_int_equal(v.findings[i].level, WPERF_LEVEL_FAIL);
		assert_near(v.findings[i].q, 3 * ONE_SIDED, 1e-15);
	}
	assert_int_equal(wperf_verdict_markdown(&v, 0, &md), 0);
	text = text_of(&md);
	assert_true(!strncmp(text, "### wperf-bench `synthetic-fig1`: **new-bottleneck**\n",
			     strlen("### wperf-bench `synthetic-fig1`: **new-bottleneck**\n")));
	assert_non_null(strstr(text, "5 runs against a baseline of 5; 5 primary tests, held to "
				     "0.05 together (Holm and Tarone)"));
	assert_non_null(strstr(text, "- **fail**: `fig1/C` **joined** the knots: in 5 of 5 runs, "
				     "was 0 of 5 (p 0.004, q 0.012) — more runs have it in the "
				     "bottleneck beyond the tolerance (50%) and the noise (q 0.012 "
				     "&lt;= 0.05)\n"));
	assert_non_null(strstr(text, "- **fail**: `lock:x` **joined** the knots"));
	assert_non_null(strstr(text, "| **fail** | `fig1/B` → `disk:254:0` | 40.0% (38.0–42.0) | "
				     "60.0% (57.0–63.0) | +50.0% | 0.004 | 0.012 |"));
	assert_non_null(strstr(text, "1000 → 800 requests/s (-20.0%, medians), runs 792–808 "
				     "against 990–1010, p 0.004: **fail**"));
	assert_null(strstr(text, "left out"));
	wperf_buf_release(&md);
	wperf_verdict_release(&v);
}

/* 2000 new edges, each a warning: at 10 runs against 10 a new edge's p is
 * 1 / C(20, 10) = 1 / 184756, its floor too, and 2003 edges (the baseline's
 * three) can all reach 0.05 / 2003: q = 2003 / 184756 = 0.011. (At 5 against
 * 5 no edge of so many could: floors 1 / 252 > 0.05 / 13.) */
static void test_markdown_truncated(void **state)
{
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_verdict v;
	struct wperf_buf md = {0};
	char name[64], *text, *note;

	(void)state;
	make_runs(&brs, 10, NULL, NULL, NULL);
	baseline_of(&brs, &b);
	make_runs(&rs, 10, NULL, NULL, NULL);
	for (size_t i = 0; i < 10; i++)
		for (int e = 0; e < 2000; e++) {
			snprintf(name, sizeof(name), "worker-%04d|`x`", e);
			assert_int_equal(wperf_run_add_edge(&rs.runs[i], "fig1/A", name, 0.3), 0);
		}
	judge(&rs, &b, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.nfindings, 2000);
	assert_int_equal(v.findings[0].level, WPERF_LEVEL_WARN);
	assert_rel(v.findings[0].q, 2003.0 / 184756, 1e-12);
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
	wperf_baseline_release(&b);
	wperf_runset_release(&brs);
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
				      KNOT ";fig1/C <a&b>", KNOT ";fig1/C <a&b>",
				      KNOT ";fig1/C <a&b>"};
	const double down20[N] = {800, 808, 792, 804, 796}, tp2[2] = {500, 1100};
	struct wperf_verdict v1, v2, v3;
	const struct wperf_verdict *all[3] = {&v1, &v2, &v3};
	struct wperf_runset rs;
	struct wperf_buf x = {0};
	char *text;

	(void)state;
	verdict_of(N, NULL, NULL, knots, &v1);
	assert_int_equal(v1.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	/* Names with quotes, a control character and bytes that are not UTF-8, on
	 * a new edge that fails with the throughput (alone it would warn). */
	make_runs(&rs, N, down20, NULL, NULL);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(
		    wperf_run_add_edge(&rs.runs[i], "q\"'\x01\xff", "]]> \xef\xbf\xbf", 0.4), 0);
	judge(&rs, NULL, NULL, &v2);
	assert_int_equal(v2.kind, WPERF_VERDICT_REGRESSION);
	free(v2.scenario);
	v2.scenario = strdup("weird \"<scenario>\" & 'co'");
	wperf_runset_release(&rs);
	/* The throughput -20% in 2 runs: no test, inconclusive (test_few_runs_inconclusive). */
	verdict_of(2, tp2, NULL, NULL, &v3);
	assert_int_equal(v3.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(wperf_verdict_junit(all, 3, &x), 0);
	text = text_of(&x);
	assert_non_null(strstr(text, "<testsuites name=\"wperf-bench\" tests=\"6\" failures=\"3\" "
				     "errors=\"0\" skipped=\"1\">"));
	assert_non_null(strstr(text, "<testsuite name=\"synthetic-fig1\" tests=\"2\" "
				     "failures=\"1\""));
	assert_non_null(strstr(text, "name=\"bottlenecks\""));
	assert_non_null(strstr(text, "name=\"throughput\""));
	/* The first failure of v1: the vertices sort by name, '<' before 'f'. */
	assert_non_null(strstr(text, "<failure type=\"new-bottleneck\" message=\"&lt;a&amp;b&gt; "
				     "joined the knots in 5 of 5 runs (was 0 of 5), p 0.00397: "));
	assert_non_null(strstr(text, "fig1/C joined the knots in 5 of 5 runs (was 0 of 5)"));
	assert_non_null(
	    strstr(text, "<failure type=\"regression\" message=\"edge q&quot;&apos;??"));
	assert_non_null(strstr(text, "weird &quot;&lt;scenario&gt;&quot; &amp; &apos;co&apos;"));
	assert_non_null(strstr(text, "q&quot;&apos;??"));
	assert_non_null(strstr(text, "<skipped message=\"inconclusive: throughput 1000 -&gt; 800 "
				     "requests/s (-20.0%)"));
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

/* The run's span is from the first of process pid's threads to start (fig1's
 * fork, 4 ms into the window) to the last to end (its exit, 1 ms before the
 * window's end): what its operations are counted over. */
static void assert_span(const struct wperf_analysis *a, const char *pid, const struct wperf_run *r)
{
	const struct wperf_timeline *tl = a->timeline;
	uint64_t first = UINT64_MAX, last = 0;

	for (size_t e = 0; e < tl->nentities; e++)
		if (tl->entities[e].kind == WPERF_ENTITY_THREAD &&
		    tl->entities[e].tgid == (uint32_t)atoi(pid)) {
			first = tl->entities[e].born < first ? tl->entities[e].born : first;
			last = tl->entities[e].died > last ? tl->entities[e].died : last;
		}
	assert_true(first > tl->start && last < tl->end);
	assert_int_equal(r->span_ns, last - first);
	assert_true(r->have_time && r->running_ns > 0);
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
	pid = wperf_trace_meta(t, WPERF_META_COMMAND_PID);
	assert_non_null(pid);
	if (wperf_run_from_analysis(a, pid, 123.5, NULL, &r, &err) ||
	    wperf_run_from_analysis(a, NULL, NAN, NULL, &all, &err))
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
	assert_span(a, pid, &r);
	assert_int_equal(all.span_ns, a->window); /* some thread lives past each end */
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

	/* a vertex that joined the knot still fails (5 of 5 against 0 of 5, q
	 * 2 / 252: its floor and the throughput's are 1 / 252, disk's and B's 1) */
	wperf_runset_release(&rs);
	make_runs(&rs, N, NULL, NULL,
		  (const char *const[]){KNOT " fig1/D", KNOT " fig1/D", KNOT " fig1/D",
					KNOT " fig1/D", KNOT " fig1/D"});
	for (size_t i = 0; i < N; i++)
		rs.runs[i].events = 1000, rs.runs[i].lost_events = 500;
	judge(&rs, NULL, NULL, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(v.lossy_runs, 5);
	assert_string_equal(find(&v, WPERF_FINDING_VERTEX, "fig1/D")->vertex, "fig1/D");
	assert_near(v.findings[0].q, 2.0 / 252, 1e-15);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	wperf_buf_release(&xml);
}

/* A run whose graph the kernel's counters contradict (a check WARN) vouches for
 * nothing: on either side, a pass becomes inconclusive; a failure stays. */
static void test_unconfirmed_runs(void **state)
{
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_verdict v;
	struct wperf_gate_opts g = {.paired = 1};
	struct wperf_buf xml = {0};
	const struct wperf_verdict *one = &v;

	(void)state;
	make_runs(&brs, N, NULL, NULL, NULL);
	baseline_of(&brs, &b);
	g.base_runs = &brs;
	make_runs(&rs, N, NULL, NULL, NULL);
	for (size_t i = 0; i < N; i++) {
		rs.runs[i].have_checks = brs.runs[i].have_checks = 1;
		rs.runs[i].checks_ok = brs.runs[i].checks_ok = 12;
	}
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(v.unconfirmed_runs, 0);
	wperf_verdict_release(&v);

	brs.runs[3].checks_warn = 1;
	rs.runs[1].checks_warn = 2;
	rs.runs[1].checks_first = strdup("disk busy disk:254:0 vda: 2.437 s by the model");
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(v.unconfirmed_runs, 2);
	assert_true(has_warning(&v, "(the first: disk busy disk:254:0 vda: 2.437 s by the model)"));
	assert_true(has_warning(&v, "2 of 10 runs of the two sides disagree with the kernel's own "
				    "counters"));
	assert_int_equal(wperf_verdict_junit(&one, 1, &xml), 0);
	assert_int_equal(wperf_buf_append(&xml, "", 1), 0);
	assert_non_null(strstr((char *)xml.data, "inconclusive: 2 runs disagree with the kernel"));
	wperf_verdict_release(&v);

	/* a vertex that joined the knot in every run still fails */
	wperf_runset_release(&rs);
	make_runs(&rs, N, NULL, NULL,
		  (const char *const[]){KNOT " fig1/D", KNOT " fig1/D", KNOT " fig1/D",
					KNOT " fig1/D", KNOT " fig1/D"});
	rs.runs[0].have_checks = 1;
	rs.runs[0].checks_warn = 1;
	judge(&rs, &b, &g, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(v.unconfirmed_runs, 2);
	wperf_verdict_release(&v);
	wperf_runset_release(&rs);
	wperf_runset_release(&brs);
	wperf_baseline_release(&b);
	wperf_buf_release(&xml);
}

/* An accepted knot entry matches a knot when every glob names a member and
 * every member is named by a glob: one glob left over, or one member, and it
 * does not. */
static void test_accepted_matches_knot(void **state)
{
	char *globs[] = {"pool@*", "lock@main"};
	char *members[] = {"lock@main", "pool@a", "pool@b"};
	char *strangers[] = {"lock@main", "pool@a", "timer@main"};
	struct wperf_accepted a = {.globs = globs, .nglobs = 2, .reason = "known"};
	struct wperf_idset knot = {.ids = members, .n = 3};
	struct wperf_idset other = {.ids = strangers, .n = 3};
	struct wperf_idset alone = {.ids = members, .n = 1};

	(void)state;
	assert_true(wperf_accepted_matches_knot(&a, &knot));
	assert_false(wperf_accepted_matches_knot(&a, &other)); /* timer@main named by none */
	assert_false(wperf_accepted_matches_knot(&a, &alone)); /* pool@* names no member */
	a.is_edge = 1;
	assert_false(wperf_accepted_matches_knot(&a, &knot));
}

/* Runs that lost too many events, or that the kernel's counters contradict,
 * leave a verdict untrusted, whichever of the two it is. */
static void test_untrusted(void **state)
{
	struct wperf_verdict v = {0};

	(void)state;
	assert_false(wperf_verdict_untrusted(&v));
	v.lossy_runs = 1;
	assert_true(wperf_verdict_untrusted(&v));
	v.lossy_runs = 0;
	v.unconfirmed_runs = 2;
	assert_true(wperf_verdict_untrusted(&v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stats_basics),
	    cmocka_unit_test(test_mann_whitney),
	    cmocka_unit_test(test_identical_pass),
	    cmocka_unit_test(test_new_knot_in_all_runs),
	    cmocka_unit_test(test_new_knot_in_few_runs),
	    cmocka_unit_test(test_accepted_knot),
	    cmocka_unit_test(test_edge_alone_warns),
	    cmocka_unit_test(test_edge_fails_with_the_throughput),
	    cmocka_unit_test(test_call_sites_of_a_worse_edge),
	    cmocka_unit_test(test_take_sites),
	    cmocka_unit_test(test_few_runs_inconclusive),
	    cmocka_unit_test(test_edge_within_tolerance),
	    cmocka_unit_test(test_edge_warn),
	    cmocka_unit_test(test_within_noise),
	    cmocka_unit_test(test_new_and_light_edges),
	    cmocka_unit_test(test_accepted_edge),
	    cmocka_unit_test(test_throughput_regression),
	    cmocka_unit_test(test_numbers_inform),
	    cmocka_unit_test(test_throughput_improved),
	    cmocka_unit_test(test_vertex_left_the_knots),
	    cmocka_unit_test(test_knot_with_a_flickering_member),
	    cmocka_unit_test(test_flickering_vertex_passes),
	    cmocka_unit_test(test_vertex_joins_in_all_runs),
	    cmocka_unit_test(test_vertex_in_a_minority_is_undecided),
	    cmocka_unit_test(test_new_sink),
	    cmocka_unit_test(test_adjusted_among_many_tests),
	    cmocka_unit_test(test_paired_drop_and_drift),
	    cmocka_unit_test(test_expectation),
	    cmocka_unit_test(test_expectation_paired),
	    cmocka_unit_test(test_structure_only),
	    cmocka_unit_test(test_environment_and_lost_events),
	    cmocka_unit_test(test_lost_events),
	    cmocka_unit_test(test_unconfirmed_runs),
	    cmocka_unit_test(test_names_and_errors),
	    cmocka_unit_test(test_markdown),
	    cmocka_unit_test(test_markdown_truncated),
	    cmocka_unit_test(test_junit),
	    cmocka_unit_test(test_run_from_analysis),
	    cmocka_unit_test(test_run_building),
	    cmocka_unit_test(test_accepted_matches_knot),
	    cmocka_unit_test(test_untrusted),
	};

	return cmocka_run_group_tests_name("the gate", tests, NULL, NULL);
}
