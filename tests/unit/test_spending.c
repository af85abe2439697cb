/* SPDX-License-Identifier: MIT */
/*
 * Alpha spending over a check's looks (core/gate/spending.h): Lan and DeMets'
 * O'Brien-Fleming-like function alpha(t) = 2 - 2 Phi(z / sqrt(t)), z =
 * Phi^-1(1 - alpha / 2), and the level of each look, the part of alpha it may
 * spend. The reference values are computed here from erfc (2 - 2 Phi(x) =
 * erfc(x / sqrt 2)) and the known quantile z_0.975 = 1.959963984540054, not
 * through the library's quantile function.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/gate/spending.h"
#include "tests/lib/assert_near.h"

#define Z975 1.959963984540054 /* Phi^-1(0.975): alpha 0.05 */

/* The function at share t of the runs for alpha 0.05, independently. */
static double obf(double t)
{
	return erfc(Z975 / sqrt(t) / M_SQRT2);
}

/* Nothing spent before the first run, all of alpha by the last; t is clamped
 * to [0, 1]. */
static void test_spent_by_ends(void **state)
{
	const double alphas[] = {0.05, 0.01, 0.05 / 51, 1e-6};

	(void)state;
	for (size_t i = 0; i < sizeof(alphas) / sizeof(*alphas); i++) {
		assert_near(wperf_spent_by(alphas[i], 1), alphas[i], 0);
		assert_near(wperf_spent_by(alphas[i], 1.5), alphas[i], 0);
		assert_near(wperf_spent_by(alphas[i], 0), 0, 0);
		assert_near(wperf_spent_by(alphas[i], -0.5), 0, 0);
	}
	/* Just under the end, just under alpha: the function is continuous there. */
	assert_near(wperf_spent_by(0.05, 1 - 1e-9), 0.05, 1e-9);
}

/* More runs never spend less: strictly increasing inside (0, 1), within
 * (0, alpha]. */
static void test_spent_by_monotone(void **state)
{
	double last = 0;

	(void)state;
	for (int i = 1; i <= 100; i++) {
		double now = wperf_spent_by(0.05, i / 100.0);

		assert_true(now > last);
		assert_true(now <= 0.05);
		last = now;
	}
}

/*
 * The reference values: at 5 of 11 runs, z sqrt(11 / 5) = 2.9071, 2 - 2 Phi =
 * 0.003648; at 8 of 11, z sqrt(11 / 8) = 2.2983, 0.021547; at half the runs,
 * z sqrt(2) = 2.7718, 0.005575 (the published 0.0056 of O'Brien-Fleming's
 * spending at half the information, alpha 0.05).
 */
static void test_spent_by_reference(void **state)
{
	(void)state;
	assert_rel(wperf_spent_by(0.05, 5.0 / 11), obf(5.0 / 11), 1e-9);
	assert_rel(wperf_spent_by(0.05, 8.0 / 11), obf(8.0 / 11), 1e-9);
	assert_rel(wperf_spent_by(0.05, 0.5), obf(0.5), 1e-9);
	assert_near(obf(5.0 / 11), 0.003648, 5e-7);
	assert_near(obf(8.0 / 11), 0.021547, 5e-7);
	assert_near(obf(0.5), 0.0056, 5e-5);
}

/*
 * Looks at 5, 8 and 11 runs of 11: each may spend what the function reached
 * less what the looks before spent, so the parts add up to alpha: 0.0036,
 * 0.0179 and 0.0285 for alpha 0.05 (spending.h's numbers), where equal parts
 * would be 0.0167 each. A look at no more runs than the last spends nothing.
 */
static void test_look_levels(void **state)
{
	double first = wperf_look_level(0.05, 0, 5, 11);
	double second = wperf_look_level(0.05, 5, 8, 11);
	double third = wperf_look_level(0.05, 8, 11, 11);

	(void)state;
	assert_rel(first, obf(5.0 / 11), 1e-9);
	assert_rel(second, obf(8.0 / 11) - obf(5.0 / 11), 1e-9);
	assert_rel(third, 0.05 - obf(8.0 / 11), 1e-9);
	assert_near(first + second + third, 0.05, 1e-15);
	assert_near(first, 0.0036, 5e-5);
	assert_near(second, 0.0179, 5e-5);
	assert_near(third, 0.0285, 5e-5);
	assert_true(first < second && second < third);
	assert_near(wperf_look_level(0.05, 8, 8, 11), 0, 0);
	/* One look at all the runs spends all of alpha. */
	assert_near(wperf_look_level(0.01, 0, 7, 7), 0.01, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spent_by_ends),
	    cmocka_unit_test(test_spent_by_monotone),
	    cmocka_unit_test(test_spent_by_reference),
	    cmocka_unit_test(test_look_levels),
	};

	return cmocka_run_group_tests_name("alpha spending", tests, NULL, NULL);
}
