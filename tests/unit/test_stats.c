/* SPDX-License-Identifier: MIT */
/*
 * The gate's statistics (core/gate/stats.h) against numbers known from tables or
 * computed by hand: Student's t and its quantile, the paired t test, Fisher's
 * exact test (two-sided as R's fisher.test, and one-sided), the one-sided
 * Mann-Whitney test and the Benjamini-Hochberg adjustment.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/gate/stats.h"

/* Student's t: the two-sided 5% points of the tables, which are rounded to
 * three decimals (so 1e-4 of the table's 0.05), and the exact values of the
 * regularized incomplete beta function I_{df/(df+t^2)}(df/2, 1/2). */
static void test_student_t_p(void **state)
{
	(void)state;
	assert_float_equal(wperf_student_t_p(2.776, 4), 0.05, 1e-4);
	assert_float_equal(wperf_student_t_p(12.706, 1), 0.05, 1e-4);
	assert_float_equal(wperf_student_t_p(2.228, 10), 0.05, 1e-4);
	assert_float_equal(wperf_student_t_p(2.776, 4), 0.05002277831997641, 1e-12);
	assert_float_equal(wperf_student_t_p(2.228, 10), 0.05001177181711137, 1e-12);
	/* df 1 is the Cauchy distribution: p = 1 - 2 atan(t) / pi. */
	assert_float_equal(wperf_student_t_p(12.706, 1), 1 - 2 * atan(12.706) / M_PI, 1e-12);
	/* df 2: p = 1 - t / sqrt(2 + t^2); t = 1: 1 - 1 / sqrt(3). */
	assert_float_equal(wperf_student_t_p(1, 2), 1 - 1 / sqrt(3), 1e-12);
	/* Symmetric in t; t = 0 gives 1, an infinite t 0. */
	assert_float_equal(wperf_student_t_p(-2.776, 4), wperf_student_t_p(2.776, 4), 0);
	assert_float_equal(wperf_student_t_p(0, 7), 1, 1e-15);
	assert_float_equal(wperf_student_t_p(INFINITY, 3), 0, 0);
	assert_true(isnan(wperf_student_t_p(NAN, 3)));
	assert_true(isnan(wperf_student_t_p(2, 0)));
}

static void test_student_t_quantile(void **state)
{
	(void)state;
	/* The exact 97.5% points that the tables round to 2.776, 12.706, 2.228. */
	assert_float_equal(wperf_student_t_quantile(0.975, 4), 2.7764451051977987, 1e-9);
	assert_float_equal(wperf_student_t_quantile(0.975, 1), tan(M_PI * 0.475), 1e-9);
	assert_float_equal(wperf_student_t_quantile(0.975, 10), 2.2281388519649385, 1e-9);
	/* It inverts wperf_student_t_p: P(T <= t) = 1 - p2(t) / 2. */
	for (double df = 1; df <= 30; df += 7)
		for (double p = 0.6; p < 0.999; p += 0.1) {
			double t = wperf_student_t_quantile(p, df);

			assert_float_equal(1 - wperf_student_t_p(t, df) / 2, p, 1e-10);
		}
	/* Below the median: the mirror image; the median itself is 0. */
	assert_float_equal(wperf_student_t_quantile(0.025, 4), -2.7764451051977987, 1e-9);
	assert_float_equal(wperf_student_t_quantile(0.5, 4), 0, 1e-9);
	assert_true(isnan(wperf_student_t_quantile(0, 4)));
	assert_true(isnan(wperf_student_t_quantile(1, 4)));
	assert_true(isnan(wperf_student_t_quantile(0.9, 0)));
}

static void test_paired_t(void **state)
{
	const double a[] = {10, 12, 14, 16}, b[] = {11, 14, 15, 19};
	const double c[] = {11, 13, 15, 17};
	double mean, sd;

	(void)state;
	/* Differences 1 2 1 3: mean 1.75, squares of the deviations 0.5625 +
	 * 0.0625 + 0.5625 + 1.5625 = 2.75, sd sqrt(2.75 / 3) = 0.957427, t = 1.75
	 * / (0.957427 / 2) = 3.6556 with 3 degrees of freedom: p = 0.035353. */
	assert_float_equal(wperf_paired_t_p(a, b, 4, &mean, &sd), 0.03535284700251739, 1e-12);
	assert_float_equal(mean, 1.75, 1e-15);
	assert_float_equal(sd, sqrt(2.75 / 3), 1e-15);
	assert_float_equal(wperf_paired_t_p(a, b, 4, &mean, &sd),
			   wperf_student_t_p(1.75 / (sqrt(2.75 / 3) / 2), 3), 1e-15);
	/* The order of the sides flips the sign of the mean, not p. */
	assert_float_equal(wperf_paired_t_p(b, a, 4, &mean, &sd), 0.03535284700251739, 1e-12);
	assert_float_equal(mean, -1.75, 1e-15);
	/* Every pair moved by the same amount: certain; by nothing: no change. */
	assert_float_equal(wperf_paired_t_p(a, c, 4, &mean, &sd), 0, 0);
	assert_float_equal(mean, 1, 0);
	assert_float_equal(sd, 0, 0);
	assert_float_equal(wperf_paired_t_p(a, a, 4, &mean, &sd), 1, 0);
	/* One pair tells nothing. */
	assert_true(isnan(wperf_paired_t_p(a, b, 1, &mean, &sd)));
	assert_true(isnan(mean));
	assert_true(isnan(sd));
}

static void test_fisher(void **state)
{
	(void)state;
	/* 5 of 5 against 0 of 5: one table in C(10, 5) = 252 is as extreme on
	 * each side. */
	assert_float_equal(wperf_fisher_p(5, 5, 0, 5), 2.0 / 252, 1e-15);
	assert_float_equal(wperf_fisher_greater_p(5, 5, 0, 5), 1.0 / 252, 1e-15);
	assert_float_equal(wperf_fisher_greater_p(0, 5, 5, 5), 1, 1e-15);
	/* 8 of 8 against 0 of 8: 1 / C(16, 8). */
	assert_float_equal(wperf_fisher_greater_p(8, 8, 0, 8), 1.0 / 12870, 1e-17);
	/*
	 * 3 of 4 against 1 of 6, the table [[3, 1], [1, 5]] (R: fisher.test(
	 * matrix(c(3, 1, 1, 5), 2)) gives 0.1905). With the margins fixed (4
	 * seen, 4 and 6 runs) a's count x has C(4, x) C(6, 4 - x) / C(10, 4):
	 * 15, 80, 90, 24, 1 in 210 for x = 0..4. Two-sided: the tables no more
	 * likely than x = 3 (24): x = 0, 3, 4, (15 + 24 + 1) / 210; one-sided:
	 * x >= 3, 25 / 210.
	 */
	assert_float_equal(wperf_fisher_p(3, 4, 1, 6), 40.0 / 210, 1e-15);
	assert_float_equal(wperf_fisher_greater_p(3, 4, 1, 6), 25.0 / 210, 1e-15);
	/* The other way round, 1 of 6 against 3 of 4: a's count x has C(6, x)
	 * C(4, 4 - x) / 210, 1 24 90 80 15 for x = 0..4; x >= 1: 209 / 210. */
	assert_float_equal(wperf_fisher_greater_p(1, 6, 3, 4), 209.0 / 210, 1e-15);
	/* The same counts on both sides: nothing unusual. */
	assert_float_equal(wperf_fisher_p(3, 5, 3, 5), 1, 1e-12);
	/* 2 of 5 against 1 of 5: C(5,2) C(5,1) / C(10,3) + C(5,3) / C(10,3)
	 * = (50 + 10) / 120 = 0.5. */
	assert_float_equal(wperf_fisher_greater_p(2, 5, 1, 5), 0.5, 1e-15);
	assert_true(isnan(wperf_fisher_p(1, 0, 0, 5)));
	assert_true(isnan(wperf_fisher_p(6, 5, 0, 5)));
	assert_true(isnan(wperf_fisher_greater_p(0, 5, 0, 0)));
}

static void test_mann_whitney_greater(void **state)
{
	const double lo[] = {1, 2, 3, 4, 5}, hi[] = {6, 7, 8, 9, 10};
	const double t1[] = {1, 2, 2, 3}, t2[] = {2, 3, 4, 4, 5};
	const double same[] = {0.4, 0.4, 0.4};

	(void)state;
	/* Separated 5 and 5, b above: U = 0, mean 12.5, sd sqrt(25 * 11 / 12) =
	 * 4.787; z = (0 - 12.5 + 0.5) / 4.787 = -2.507, p = Phi(-2.507), half of
	 * the two-sided 0.012186. b below: U = 25, Phi((12.5 + 0.5) / 4.787). */
	assert_float_equal(wperf_mann_whitney_greater_p(lo, 5, hi, 5), 0.006092890177672409, 1e-12);
	assert_float_equal(wperf_mann_whitney_greater_p(lo, 5, hi, 5),
			   wperf_mann_whitney_p(lo, 5, hi, 5) / 2, 1e-15);
	assert_float_equal(wperf_mann_whitney_greater_p(hi, 5, lo, 5), 0.9966923245172357, 1e-12);
	/* Ties (see test_verdict's test_mann_whitney): U = 2.5, mean 10, var
	 * 15.833; z = (2.5 - 10 + 0.5) / 3.979 = -1.759. */
	assert_float_equal(wperf_mann_whitney_greater_p(t1, 4, t2, 5), 0.03927292547559535, 1e-12);
	assert_float_equal(wperf_mann_whitney_greater_p(t2, 5, t1, 4), 0.9778107863272566, 1e-12);
	assert_float_equal(wperf_mann_whitney_greater_p(same, 3, same, 3), 1, 0);
	assert_true(isnan(wperf_mann_whitney_greater_p(lo, 0, hi, 5)));
	assert_true(isnan(wperf_mann_whitney_greater_p(lo, 5, hi, 0)));
}

static void test_bh_adjust(void **state)
{
	/* Ranks 2 4 3 1 of 4: 0.01 * 4 / 2 = 0.02, 0.04 * 4 / 4 = 0.04, 0.03 *
	 * 4 / 3 = 0.04, 0.005 * 4 / 1 = 0.02. */
	const double p[] = {0.01, 0.04, 0.03, 0.005};
	const double with_nan[] = {0.01, NAN, 0.04, 0.03, 0.005, NAN};
	/* 0.02 * 3 / 1 = 0.06, but a larger p brings it down: 0.03 * 3 / 2. */
	const double down[] = {0.02, 0.03, 0.9};
	const double big[] = {0.5, 0.9, 0.8}, ties[] = {0.02, 0.02, 0.5};
	double q[6];

	(void)state;
	wperf_bh_adjust(p, 4, q);
	assert_float_equal(q[0], 0.02, 1e-15);
	assert_float_equal(q[1], 0.04, 1e-15);
	assert_float_equal(q[2], 0.04, 1e-15);
	assert_float_equal(q[3], 0.02, 1e-15);
	/* A NaN p is no test: m stays 4 and its q is NaN. */
	wperf_bh_adjust(with_nan, 6, q);
	assert_float_equal(q[0], 0.02, 1e-15);
	assert_true(isnan(q[1]));
	assert_float_equal(q[2], 0.04, 1e-15);
	assert_float_equal(q[3], 0.04, 1e-15);
	assert_float_equal(q[4], 0.02, 1e-15);
	assert_true(isnan(q[5]));
	wperf_bh_adjust(down, 3, q);
	assert_float_equal(q[0], 0.045, 1e-15);
	assert_float_equal(q[1], 0.045, 1e-15);
	assert_float_equal(q[2], 0.9, 1e-15);
	/* 0.5 * 3 = 1.5 passes 1; the largest p, of rank m, brings every q down
	 * to it. Ties take the larger rank: 0.02 * 3 / 2. */
	wperf_bh_adjust(big, 3, q);
	assert_float_equal(q[0], 0.9, 1e-15);
	assert_float_equal(q[1], 0.9, 1e-15);
	assert_float_equal(q[2], 0.9, 1e-15);
	wperf_bh_adjust(ties, 3, q);
	assert_float_equal(q[0], 0.03, 1e-15);
	assert_float_equal(q[1], 0.03, 1e-15);
	assert_float_equal(q[2], 0.5, 1e-15);
	/* One test: q = p. */
	wperf_bh_adjust(p, 1, q);
	assert_float_equal(q[0], 0.01, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_student_t_p),
	    cmocka_unit_test(test_student_t_quantile),
	    cmocka_unit_test(test_paired_t),
	    cmocka_unit_test(test_fisher),
	    cmocka_unit_test(test_mann_whitney_greater),
	    cmocka_unit_test(test_bh_adjust),
	};

	return cmocka_run_group_tests_name("the gate's statistics", tests, NULL, NULL);
}
