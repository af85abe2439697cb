/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the key orders for qsort (core/util/cmp.h): the first key that
 * differs decides, largest-first and signed keys keep their numbers' order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/util/cmp.h"

static void test_cmp_u64(void **state)
{
	(void)state;
	assert_int_equal(wperf_cmp_u64(1, 2), -1);
	assert_int_equal(wperf_cmp_u64(2, 1), 1);
	assert_int_equal(wperf_cmp_u64(7, 7), 0);
	assert_int_equal(wperf_cmp_u64(0, UINT64_MAX), -1);
}

static void test_first_difference_decides(void **state)
{
	const uint64_t a[] = {3, 1, 9}, b[] = {3, 2, 0}, c[] = {3, 1, 9};

	(void)state;
	assert_int_equal(wperf_cmp_keys(a, b, 3), -1); /* second key: 1 < 2; third ignored */
	assert_int_equal(wperf_cmp_keys(b, a, 3), 1);
	assert_int_equal(wperf_cmp_keys(a, c, 3), 0);
	assert_int_equal(wperf_cmp_keys(a, b, 1), 0); /* only the first key compared */
	assert_int_equal(wperf_cmp_keys(a, b, 0), 0);
}

static void test_largest_first(void **state)
{
	(void)state;
	assert_true(wperf_key_desc(5) < wperf_key_desc(4));
	assert_true(wperf_key_desc(UINT64_MAX) < wperf_key_desc(0));
	assert_true(wperf_key_desc(9) == wperf_key_desc(9));
}

static void test_signed_keys(void **state)
{
	const int64_t v[] = {INT64_MIN, -2, -1, 0, 1, INT64_MAX};

	(void)state;
	for (size_t i = 0; i + 1 < sizeof(v) / sizeof(*v); i++)
		assert_true(wperf_key_signed(v[i]) < wperf_key_signed(v[i + 1]));
}

struct rec {
	uint32_t group;
	int32_t rank;
	uint64_t weight;
};

/* By group, heaviest first, then by rank: the shape the comparators of core/ take. */
static int by_group_weight_rank(const void *pa, const void *pb)
{
	const struct rec *x = pa, *y = pb;
	const uint64_t kx[] = {x->group, wperf_key_desc(x->weight), wperf_key_signed(x->rank)};
	const uint64_t ky[] = {y->group, wperf_key_desc(y->weight), wperf_key_signed(y->rank)};

	return wperf_cmp_keys(kx, ky, 3);
}

static void test_sorts_records(void **state)
{
	struct rec r[] = {{2, 0, 5}, {1, 3, 1}, {1, -4, 9}, {1, -5, 9}, {2, -1, 5}};

	(void)state;
	qsort(r, 5, sizeof(*r), by_group_weight_rank);
	assert_int_equal(r[0].group, 1);
	assert_int_equal(r[0].rank, -5);
	assert_int_equal(r[1].rank, -4);
	assert_int_equal(r[2].weight, 1);
	assert_int_equal(r[3].group, 2);
	assert_int_equal(r[3].rank, -1);
	assert_int_equal(r[4].rank, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cmp_u64),	  cmocka_unit_test(test_first_difference_decides),
	    cmocka_unit_test(test_largest_first), cmocka_unit_test(test_signed_keys),
	    cmocka_unit_test(test_sorts_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
