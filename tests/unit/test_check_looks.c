/* SPDX-License-Identifier: MIT */
/*
 * check-perf's looks (harness/gate/check_scenario.h): by default after N runs
 * a side and every 3 more up to N + 12; each look's level what the spending
 * plan gives it, the levels adding up to alpha; a look the clock makes the
 * last spends what the earlier ones left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/gate/spending.h"
#include "harness/gate/check_scenario.h"
#include "tests/lib/assert_near.h"

static void test_default_looks(void **state)
{
	const struct check_looks l = {0};
	const unsigned want[] = {5, 8, 11, 14, 17};
	double sum = 0;

	(void)state;
	assert_int_equal(check_looks_count(&l, 5), 5);
	for (unsigned k = 0; k < 5; k++) {
		assert_int_equal(check_looks_runs(&l, 5, k), want[k]);
		sum += check_looks_level(&l, 5, k, 0.05);
	}
	assert_near(sum, 0.05, 1e-12);
	/* O'Brien-Fleming: almost nothing at the first look */
	assert_true(check_looks_level(&l, 5, 0, 0.05) < 0.0005);
}

static void test_final_level(void **state)
{
	const struct check_looks l = {0};

	(void)state;
	/* the first look made the last: all of alpha */
	assert_near(check_looks_final_level(&l, 5, 0, 0.05), 0.05, 1e-15);
	/* after a look at 5 of 17 runs: alpha less what that look spent */
	assert_near(check_looks_final_level(&l, 5, 1, 0.05), 0.05 - wperf_spent_by(0.05, 5.0 / 17),
		    1e-15);
	assert_near(check_looks_final_level(&l, 5, 1, 0.05) + check_looks_level(&l, 5, 0, 0.05),
		    0.05, 1e-15);
	/* the planned last look is the same either way */
	assert_near(check_looks_final_level(&l, 5, 4, 0.05), check_looks_level(&l, 5, 4, 0.05),
		    1e-15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_looks),
	    cmocka_unit_test(test_final_level),
	};

	return cmocka_run_group_tests_name("check-perf's looks", tests, NULL, NULL);
}
