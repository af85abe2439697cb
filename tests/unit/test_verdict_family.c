/* SPDX-License-Identifier: MIT */
/*
 * The gate's families and levels (core/gate/verdict.h, "The rules" and
 * "Levels"; verdict_levels.c), on constructed runs against a baseline of five:
 * an improvement is never a regression (a vertex that joins while the
 * throughput improves is a warning: the bottleneck moved); Tarone's divisor
 * leaves out the tests that cannot reach the level; Holm's step-down in the
 * order of the p values with the running maximum; inconclusive (q within
 * twice alpha) against undecided (its own p under 0.05); the levels that the
 * runs needed and the detectable change are taken at.
 *
 * Every expected p and q value is derived in the comments from the rules: the
 * exact one-sided Mann-Whitney p at 5 runs against 5 is the share of the
 * C(10, 5) = 252 splits with U at most the one seen, where U (no ties) counts
 * the pairs the runs win; the counts for U = 0 .. 8 are 1 1 2 3 5 7 9 11 14
 * (partitions of U into at most five parts of at most five). Fisher's 5 of 5
 * against 0 of 5 is 1 / 252. A test's floor is the smallest p its runs could
 * give: 1 / 252 for Mann-Whitney at 5 against 5 and for Fisher with five runs
 * in all, 1 for a vertex in every run of both sides, 1 / 2 for one seen in one
 * run of ten. The divisor at each step is the smallest k such that at most k
 * of the tests left have floors <= alpha / k.
 */
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
#include "core/gate/verdict.h"
#include "tests/lib/assert_near.h"
#include "tests/lib/runs.h"

#define N    5
#define KNOT "disk:254:0 fig1/B"
#define P1   (1.0 / 252) /* separated 5 against 5, and 5 of 5 against 0 of 5 */

static const double base_tp[N] = {1000, 1010, 990, 1005, 995};
static const double base_bdisk[N] = {0.38, 0.39, 0.40, 0.41, 0.42};
static const double base_metric[N] = {10, 10.1, 9.9, 10.05, 9.95};
static const char *const metric_names[] = {"m0", "m1", "m2"};

/* One side's five runs. */
struct side {
	const double *tp;	      /* throughput of run i; NULL: base_tp */
	const double *bdisk;	      /* fig1/B -> disk:254:0; NULL: base_bdisk */
	const char *const *knots;     /* ';'-separated knots of run i; NULL: KNOT */
	size_t nmetrics;	      /* m0, m1, ...: lower is better, tolerance 5% */
	const double *const *metrics; /* metrics[m]: its values (NULL: base_metric) */
};

static void make_runs(struct wperf_runset *rs, const struct side *s)
{
	memset(rs, 0, sizeof(*rs));
	snprintf(rs->unit, sizeof(rs->unit), "requests/s");
	rs->nmetrics = s->nmetrics;
	rs->metrics = calloc(s->nmetrics + 1, sizeof(*rs->metrics));
	assert_non_null(rs->metrics);
	for (size_t m = 0; m < s->nmetrics; m++)
		rs->metrics[m] = (struct wperf_metric){.lower_is_better = 1};
	for (size_t m = 0; m < s->nmetrics; m++)
		snprintf(rs->metrics[m].name, sizeof(rs->metrics[m].name), "%s", metric_names[m]);
	for (size_t i = 0; i < N; i++) {
		struct wperf_run r;

		wperf_run_init(&r);
		r.throughput = s->tp ? s->tp[i] : base_tp[i];
		r.window_ns = 5000000000ull;
		runs_add_knots(&r, s->knots ? s->knots[i] : KNOT);
		assert_int_equal(wperf_run_add_edge(&r, "fig1/B", "disk:254:0",
						    s->bdisk ? s->bdisk[i] : base_bdisk[i]),
				 0);
		for (size_t m = 0; m < s->nmetrics; m++) {
			const double *x = s->metrics && s->metrics[m] ? s->metrics[m] : base_metric;

			assert_int_equal(wperf_run_set_metric(&r, metric_names[m], x[i]), 0);
		}
		assert_int_equal(wperf_runset_add(rs, &r), 0);
	}
}

/* The verdict of the head's side against a baseline of the base's (and its
 * runs, with_runs: the vertices counted from them). */
static void verdict_of(const struct side *base, const struct side *head, int with_runs,
		       struct wperf_verdict *v)
{
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_gate_opts g = {0};
	struct wperf_error err = {0};

	make_runs(&brs, base);
	make_runs(&rs, head);
	g.base_runs = with_runs ? &brs : NULL;
	if (wperf_baseline_from_runs(&brs, "synthetic-fig1", NULL, &b, &err) ||
	    wperf_verdict(&rs, &b, &g, v, &err))
		fail_msg("%s", err.msg);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
	wperf_runset_release(&brs);
}

/* The finding of kind about name (VERTEX: the vertex; METRIC: the metric;
 * EDGE: the edge's head; else any); NULL when there is none. */
static const struct wperf_finding *find(const struct wperf_verdict *v, enum wperf_finding_kind kind,
					const char *name)
{
	for (size_t i = 0; i < v->nfindings; i++) {
		const struct wperf_finding *f = &v->findings[i];
		const char *id = kind == WPERF_FINDING_VERTEX	? f->vertex
				 : kind == WPERF_FINDING_METRIC ? f->metric
				 : kind == WPERF_FINDING_EDGE	? f->to
								: NULL;

		if (f->kind == kind && (!name || (id && !strcmp(id, name))))
			return f;
	}
	return NULL;
}

/* ---- an improvement is never a regression ---- */

static const char *const joined_c[N] = {KNOT " fig1/C", KNOT " fig1/C", KNOT " fig1/C",
					KNOT " fig1/C", KNOT " fig1/C"};
static const double up20[N] = {1200, 1212, 1188, 1206, 1194};
static const double edge_up50[N] = {0.57, 0.585, 0.60, 0.615, 0.63};

/*
 * The throughput +20%, every run above the baseline's (p 1 / 252), while
 * fig1/B -> disk grows 50% (p 1 / 252) and fig1/C joins the knot in 5 of 5
 * runs against 0 of 5 (p 1 / 252). Among the failures C's floor and the
 * throughput's are 1 / 252, disk's and B's 1: divisor 2, C's q = 2 / 252 <=
 * alpha; but the throughput improved beyond its tolerance and the noise
 * (among the improvements the same two floors: q = 2 / 252) and no measure
 * got worse: C is a warning, the bottleneck moved. The edge (the runs' only
 * one: divisor 1, q = 1 / 252) fails nothing without a failing primary. The
 * verdict: improved. With the throughput as the baseline's, the same C fails
 * (q 2 / 252) and the edge with it: new-bottleneck.
 */
static void test_improvement_is_never_a_regression(void **state)
{
	const struct side base = {0}, head = {.tp = up20, .bdisk = edge_up50, .knots = joined_c};
	struct side same = head;
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(&base, &head, 0, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_IMPROVED);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.nfindings, 3);
	f = find(&v, WPERF_FINDING_VERTEX, "fig1/C");
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_true(f->worse);
	assert_false(f->inconclusive);
	assert_false(f->undecided);
	assert_near(f->p, P1, 1e-15);
	assert_near(f->q, 2 * P1, 1e-15);
	assert_non_null(strstr(f->note, "the bottleneck moved"));
	f = find(&v, WPERF_FINDING_EDGE, "disk:254:0");
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_near(f->q, P1, 1e-15);
	assert_non_null(strstr(f->note, "it fails nothing"));
	f = find(&v, WPERF_FINDING_THROUGHPUT, NULL);
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_INFO);
	assert_false(f->worse);
	assert_near(f->q, 2 * P1, 1e-15);
	wperf_verdict_release(&v);

	same.tp = NULL;
	verdict_of(&base, &same, 0, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 1);
	f = find(&v, WPERF_FINDING_VERTEX, "fig1/C");
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_near(f->q, 2 * P1, 1e-15);
	assert_int_equal(find(&v, WPERF_FINDING_EDGE, "disk:254:0")->level, WPERF_LEVEL_FAIL);
	wperf_verdict_release(&v);
}

/*
 * The bottleneck moved only if no measure got worse: the same head with
 * metric m0 +30% (13 .. 13.4 against 9.9 .. 10.1, p 1 / 252). Among the
 * failures three floors <= 0.05 / 3 (C, m0, the throughput): C's q = 3 /
 * 252, m0's 2 / 252 under the running maximum: 3 / 252, both fail. The
 * throughput still improved (q 3 / 252 among the improvements: its floor,
 * C's and m0's), but m0 failed: C fails, new-bottleneck.
 */
static void test_bottleneck_moved_needs_no_measure_worse(void **state)
{
	const double m0_up30[N] = {13, 13.1, 13.2, 13.3, 13.4};
	const double *const worse[1] = {m0_up30};
	const struct side base = {.nmetrics = 1};
	const struct side head = {.tp = up20, .knots = joined_c, .nmetrics = 1, .metrics = worse};
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	verdict_of(&base, &head, 0, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	f = find(&v, WPERF_FINDING_METRIC, "m0");
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_near(f->q, 3 * P1, 1e-15);
	f = find(&v, WPERF_FINDING_VERTEX, "fig1/C");
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_near(f->q, 3 * P1, 1e-15);
	assert_null(strstr(f->note, "the bottleneck moved"));
	f = find(&v, WPERF_FINDING_THROUGHPUT, NULL);
	assert_int_equal(f->level, WPERF_LEVEL_INFO);
	assert_near(f->q, 3 * P1, 1e-15);
	wperf_verdict_release(&v);
}

/* ---- Tarone's divisor ---- */

/*
 * fig1/X joins the knot in every head run (5 of 5 against 0 of 5: p 1 / 252,
 * its floor too), while twenty vertices are each in one run of one side: w-0
 * .. w-9 of the head's, b-0 .. b-9 of the base's, each 1 of 5 against 0 of 5
 * (a change of 0.2, within the tolerance). Seen in one run of ten, such a
 * vertex can give no p under 1 / 2 (Fisher: the one run on the head's side),
 * over any alpha / k: it costs the others nothing. Among the failures, of 24
 * primaries (23 vertices, the throughput) only X's and the throughput's floors
 * (1 / 252) are <= 0.05 / 2: divisor 2, X's q = 2 / 252 = 0.0079, a failure.
 * Plain Holm would divide by the 24 tests: 24 / 252 = 0.095 > alpha. The
 * detectable change is taken at alpha / 2: the throughput's pooled sd over
 * the reference, sqrt(62.5) / 1000, times sqrt(2 / 5) and the t quantiles
 * with 8 degrees of freedom, 2.306004135 (97.5%) and 0.888889518 (80%):
 * expm1 of that, 1.610%; at alpha, with 1.859548038 (95%), it would be 1.384%.
 */
static void test_tarone_divisor(void **state)
{
	char bk[N][64], hk[N][64];
	const char *bknots[N], *hknots[N];
	struct side base = {.knots = bknots}, head = {.knots = hknots};
	struct wperf_verdict v;
	const struct wperf_finding *f;
	double x = (2.306004135204166 + 0.8888895177670193) * sqrt(62.5) / 1000 * sqrt(2.0 / 5);

	(void)state;
	for (size_t i = 0; i < N; i++) {
		snprintf(bk[i], sizeof(bk[i]), KNOT ";b-%zu;b-%zu", i, i + 5);
		snprintf(hk[i], sizeof(hk[i]), KNOT " fig1/X;w-%zu;w-%zu", i, i + 5);
		bknots[i] = bk[i];
		hknots[i] = hk[i];
	}
	verdict_of(&base, &head, 1, &v);
	assert_int_equal(v.tests, 24);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(v.nfindings, 1);
	f = find(&v, WPERF_FINDING_VERTEX, "fig1/X");
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_FAIL);
	assert_near(f->p, P1, 1e-15);
	assert_near(f->q, 2 * f->p, 1e-15);
	assert_true(24 * f->p > WPERF_GATE_ALPHA); /* what plain Holm would not fail */
	assert_near(v.detectable, expm1(x), 1e-9);
	wperf_verdict_release(&v);
}

/* ---- Holm's step-down ---- */

/*
 * Three primaries, no vertex (no knots on either side): the throughput and
 * metrics m0 and m1 (lower is better), all beyond the tolerance of 5%:
 *   - the throughput 810 (median; 800 805 810 815 1002 against 990 .. 1010):
 *     1002 beats three of the base's, U = 3, p (1 + 1 + 2 + 3) / 252 = 7 / 252;
 *   - m0 13.1 (10.02 13 13.1 13.2 13.3 against 9.9 .. 10.1): the base beats
 *     10.02 twice, U = 2, p 4 / 252;
 *   - m1 13.2 (13 .. 13.4): U = 0, p 1 / 252.
 * Every floor 1 / 252, so the divisors are Holm's, 3 2 1, in the order of the
 * p values, which is the reverse of the tests' own: m1 3 / 252; m0 2 4 / 252
 * = 8 / 252; the throughput 1 7 / 252 = 7 / 252, lifted by the running
 * maximum to 8 / 252. All <= alpha: three failures. (Without the running
 * maximum the throughput's q would be 7 / 252; Bonferroni's 21 / 252 = 0.083
 * would fail nothing of it.)
 */
static void test_holm_step_down(void **state)
{
	const double tp[N] = {800, 805, 810, 815, 1002};
	const double m0[N] = {10.02, 13, 13.1, 13.2, 13.3}, m1[N] = {13, 13.1, 13.2, 13.3, 13.4};
	const double *const metrics[2] = {m0, m1};
	const char *const none[N] = {"", "", "", "", ""};
	const struct side base = {.knots = none, .nmetrics = 2};
	const struct side head = {.tp = tp, .knots = none, .nmetrics = 2, .metrics = metrics};
	struct wperf_verdict v;
	const struct wperf_finding *f[3];

	(void)state;
	verdict_of(&base, &head, 0, &v);
	assert_int_equal(v.tests, 3);
	assert_int_equal(v.kind, WPERF_VERDICT_REGRESSION);
	assert_int_equal(v.nfindings, 3);
	f[0] = find(&v, WPERF_FINDING_METRIC, "m1");
	f[1] = find(&v, WPERF_FINDING_METRIC, "m0");
	f[2] = find(&v, WPERF_FINDING_THROUGHPUT, NULL);
	for (size_t i = 0; i < 3; i++) {
		assert_non_null(f[i]);
		assert_int_equal(f[i]->level, WPERF_LEVEL_FAIL);
	}
	assert_near(f[0]->p, 1 * P1, 1e-15);
	assert_near(f[1]->p, 4 * P1, 1e-15);
	assert_near(f[2]->p, 7 * P1, 1e-15);
	assert_near(f[0]->q, 3 * P1, 1e-15);
	assert_near(f[1]->q, 8 * P1, 1e-15);
	assert_near(f[2]->q, 8 * P1, 1e-15);
	wperf_verdict_release(&v);
}

/* ---- inconclusive and undecided ---- */

/* The runs per side that could tell a relative change delta from noise of
 * spread sd with a one-sided test at the level whose normal quantile is z
 * (80% power: 0.8416212335729143), at least 5: the gate's formula, unpaired. */
static size_t runs_for(double z, double sd, double delta)
{
	double n = ceil(2 * pow((z + 0.8416212335729143) * sd / delta, 2));

	return n > 5 ? (size_t)n : 5;
}

/*
 * The throughput 810 (median; 400 600 810 815 1002 against 990 .. 1010): -19%,
 * U = 3, p 7 / 252 = 0.028, under 0.05. With one more primary, metric m0 as
 * the base's (floor 1 / 252, p 1 among the failures): divisor 2, q = 14 /
 * 252 = 0.056, over alpha and within twice it: inconclusive, undecided, the
 * verdict inconclusive, its runs needed at alpha / 2 (z 1.959963984540054):
 * the pooled sd sqrt((250 + 213303.2) / 8) / 1000 = 0.1634, 2 ((1.96 +
 * 0.842) 0.1634 / 0.19)^2 = 11.6: 12 (at alpha, 9.1: 10). With three such
 * metrics: divisor 4, q = 28 / 252 = 0.111 > 2 alpha: not inconclusive, but
 * its own p is still under 0.05: undecided (more looks would tell), a
 * warning, and the verdict passes; runs needed at alpha / 4 (z
 * 2.241402727604945): 14.06, 15.
 */
static void test_inconclusive_and_undecided(void **state)
{
	const double tp[N] = {400, 600, 810, 815, 1002};
	const char *const none[N] = {"", "", "", "", ""};
	struct side base = {.knots = none, .nmetrics = 1};
	struct side head = {.tp = tp, .knots = none, .nmetrics = 1};
	double mean = (400 + 600 + 810 + 815 + 1002) / 5.0, ss = 250, sd;
	struct wperf_verdict v;
	const struct wperf_finding *f;

	(void)state;
	for (size_t i = 0; i < N; i++)
		ss += (tp[i] - mean) * (tp[i] - mean);
	sd = sqrt(ss / 8) / 1000;
	verdict_of(&base, &head, 0, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_INCONCLUSIVE);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	f = find(&v, WPERF_FINDING_THROUGHPUT, NULL);
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_true(f->inconclusive);
	assert_true(f->undecided);
	assert_near(f->change, -0.19, 1e-12);
	assert_near(f->p, 7 * P1, 1e-15);
	assert_near(f->q, 14 * P1, 1e-15);
	assert_int_equal(f->runs_needed, runs_for(1.959963984540054, sd, 0.19));
	assert_int_equal(f->runs_needed, 12);
	wperf_verdict_release(&v);

	base.nmetrics = head.nmetrics = 3;
	verdict_of(&base, &head, 0, &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	assert_int_equal(v.nfindings, 1);
	f = find(&v, WPERF_FINDING_THROUGHPUT, NULL);
	assert_non_null(f);
	assert_int_equal(f->level, WPERF_LEVEL_WARN);
	assert_false(f->inconclusive);
	assert_true(f->undecided);
	assert_near(f->q, 28 * P1, 1e-15);
	assert_int_equal(f->runs_needed, runs_for(2.241402727604945, sd, 0.19));
	assert_int_equal(f->runs_needed, 15);
	assert_non_null(strstr(f->note, "not yet beyond the noise"));
	wperf_verdict_release(&v);
}

/*
 * The busier rule: the throughput 20% lower in every run (p 1 / 252), the
 * target's CPU time per operation flat, its runnable time per operation up.
 * When that rise is in every pair (+50%: one-sided p of the paired t test on
 * the logs far under 0.05), the machine was busier: inconclusive, not a
 * regression. When its median is up by a third but the pairs scatter both
 * ways (ratios 0.7, 1.6, 0.8, 0.8, 1.67: one-sided p about 0.4), it is no
 * evidence: the regression stands (the median alone made it "busier").
 */
static void test_busier_needs_evidence(void **state)
{
	const double down20[N] = {800, 808, 792, 804, 796};
	const double steady[N] = {1.0, 1.5, 0.5, 2.0, 1.2}; /* runnable ms/op before */
	const double grew[N] = {1.5, 2.25, 0.75, 3.0, 1.8};
	const double scattered[N] = {0.7, 2.4, 0.4, 1.6, 2.0}; /* median 1.2 -> 1.6 */
	struct wperf_gate_opts g = {.paired = 1};
	struct wperf_runset brs, rs;
	struct wperf_baseline b;
	struct wperf_error err = {0};
	struct wperf_verdict v;
	const struct side base = {.knots = NULL}, head = {.tp = down20};

	(void)state;
	for (int noisy = 0; noisy < 2; noisy++) {
		make_runs(&brs, &base);
		make_runs(&rs, &head);
		for (size_t i = 0; i < N; i++) {
			struct wperf_run *r[2] = {&brs.runs[i], &rs.runs[i]};
			const double runnable[2] = {steady[i], noisy ? scattered[i] : grew[i]};

			for (int side = 0; side < 2; side++) {
				double ops = r[side]->throughput * 5; /* a 5 s window */

				r[side]->have_time = 1;
				r[side]->running_ns = (uint64_t)(2.0 * 1e6 * ops); /* 2 ms/op */
				r[side]->runnable_ns = (uint64_t)(runnable[side] * 1e6 * ops);
			}
		}
		g.base_runs = &brs;
		if (wperf_baseline_from_runs(&brs, "synthetic-fig1", NULL, &b, &err) ||
		    wperf_verdict(&rs, &b, &g, &v, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(v.kind,
				 noisy ? WPERF_VERDICT_REGRESSION : WPERF_VERDICT_INCONCLUSIVE);
		if (!noisy)
			assert_non_null(strstr(find(&v, WPERF_FINDING_THROUGHPUT, NULL)->note,
					       "the machine was busier"));
		wperf_verdict_release(&v);
		wperf_baseline_release(&b);
		wperf_runset_release(&rs);
		wperf_runset_release(&brs);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_improvement_is_never_a_regression),
	    cmocka_unit_test(test_bottleneck_moved_needs_no_measure_worse),
	    cmocka_unit_test(test_tarone_divisor),
	    cmocka_unit_test(test_holm_step_down),
	    cmocka_unit_test(test_inconclusive_and_undecided),
	    cmocka_unit_test(test_busier_needs_evidence),
	};

	return cmocka_run_group_tests_name("the gate's families and levels", tests, NULL, NULL);
}
