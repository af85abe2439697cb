/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of a bisection's halving (core/gate/bisect_plan.c), driven by a
 * judge that knows where the change is: the first bad commit found wherever
 * it is, within the judgments promised; a bad commit that passes; a commit
 * that cannot be told; marks read back from a log asked for again never.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/gate/bisect_plan.h"

#define MAX_COMMITS 64

/* A bisection of n commits, the change at first_bad (n: none), the commit
 * unclear (n: none) told unclear; the marks start as given. Returns the
 * outcome, *at and the judgments made. */
static enum wperf_bisect_step bisect(enum wperf_bisect_mark *marks, size_t n, size_t first_bad,
				     size_t unclear, size_t *at, size_t *judged)
{
	enum wperf_bisect_step step;

	*judged = 0;
	while ((step = wperf_bisect_next(marks, n, at)) == WPERF_BISECT_JUDGE) {
		assert_true(*at < n);
		assert_int_equal(marks[*at], WPERF_BISECT_UNTESTED); /* never judged twice */
		marks[*at] = *at == unclear	? WPERF_BISECT_UNCLEAR
			     : *at >= first_bad ? WPERF_BISECT_BAD
						: WPERF_BISECT_GOOD;
		++*judged;
	}
	return step;
}

static void test_finds_every_first_bad(void **state)
{
	(void)state;
	for (size_t n = 1; n <= MAX_COMMITS; n++)
		for (size_t k = 0; k < n; k++) {
			enum wperf_bisect_mark marks[MAX_COMMITS] = {0};
			size_t at, judged;

			assert_int_equal(bisect(marks, n, k, n, &at, &judged), WPERF_BISECT_FOUND);
			assert_int_equal(at, k);
			assert_true(judged <= wperf_bisect_judgments(n));
		}
}

static void test_judgments(void **state)
{
	(void)state;
	assert_int_equal(wperf_bisect_judgments(1), 1);
	assert_int_equal(wperf_bisect_judgments(2), 2);
	assert_int_equal(wperf_bisect_judgments(8), 4); /* the bad one, then 3 halvings */
	assert_int_equal(wperf_bisect_judgments(9), 5);
}

/* The bad commit is judged first; when it passes, nothing else is. */
static void test_no_change(void **state)
{
	enum wperf_bisect_mark marks[8] = {0};
	size_t at, judged;

	(void)state;
	assert_int_equal(bisect(marks, 8, 8, 8, &at, &judged), WPERF_BISECT_NO_CHANGE);
	assert_int_equal(judged, 1);
	assert_int_equal(marks[7], WPERF_BISECT_GOOD);
}

/* A commit that cannot be told stops the bisection there; marked untested
 * again (more runs), the bisection goes on and finds the change. */
static void test_stuck_then_resumed(void **state)
{
	enum wperf_bisect_mark marks[8] = {0};
	size_t at, judged;

	(void)state;
	assert_int_equal(bisect(marks, 8, 5, 3, &at, &judged), WPERF_BISECT_STUCK);
	assert_int_equal(at, 3); /* the first halving's middle */
	marks[3] = WPERF_BISECT_UNTESTED;
	assert_int_equal(bisect(marks, 8, 5, 8, &at, &judged), WPERF_BISECT_FOUND);
	assert_int_equal(at, 5);
	assert_int_equal(judged, 3); /* the bad commit's mark was kept */
}

/* Marks of a log: a resumed bisection asks only for what is missing. */
static void test_resumed_from_marks(void **state)
{
	enum wperf_bisect_mark marks[8] = {[3] = WPERF_BISECT_GOOD, [7] = WPERF_BISECT_BAD};
	size_t at, judged;

	(void)state;
	assert_int_equal(bisect(marks, 8, 6, 8, &at, &judged), WPERF_BISECT_FOUND);
	assert_int_equal(at, 6);
	assert_int_equal(judged, 2); /* 5, then 6 */
}

static void test_mark_names(void **state)
{
	(void)state;
	for (int m = WPERF_BISECT_UNTESTED; m <= WPERF_BISECT_UNCLEAR; m++)
		assert_int_equal(wperf_bisect_mark_parse(wperf_bisect_mark_name(m)), m);
	assert_string_equal(wperf_bisect_mark_name(WPERF_BISECT_BAD), "bad");
	assert_int_equal(wperf_bisect_mark_parse("skip"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_finds_every_first_bad),
	    cmocka_unit_test(test_judgments),
	    cmocka_unit_test(test_no_change),
	    cmocka_unit_test(test_stuck_then_resumed),
	    cmocka_unit_test(test_resumed_from_marks),
	    cmocka_unit_test(test_mark_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
