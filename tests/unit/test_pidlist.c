/* SPDX-License-Identifier: MIT */
/*
 * Lists of pids (core/util/pidlist.h): "PID[,PID...]", PID+ as PID, and
 * damage skipped without losing the rest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/util/pidlist.h"

/* The pids of list, into out (at most max); how many. */
static size_t read_all(const char *list, uint32_t *out, size_t max)
{
	size_t n = 0;
	uint32_t pid;

	while (n < max && wperf_pid_list_next(&list, &pid))
		out[n++] = pid;
	return n;
}

static void test_lists(void **state)
{
	uint32_t p[8];

	(void)state;
	assert_int_equal(read_all(NULL, p, 8), 0);
	assert_int_equal(read_all("", p, 8), 0);
	assert_int_equal(read_all("4711", p, 8), 1);
	assert_int_equal(p[0], 4711);
	assert_int_equal(read_all("12+,7,99+", p, 8), 3);
	assert_int_equal(p[0], 12);
	assert_int_equal(p[1], 7);
	assert_int_equal(p[2], 99);
	/* 0 and a pid past 32 bits are no pids; "x" is damage; the rest is read */
	assert_int_equal(read_all("0,x3,99999999999,8", p, 8), 2);
	assert_int_equal(p[0], 3);
	assert_int_equal(p[1], 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lists),
	};

	return cmocka_run_group_tests_name("pid lists", tests, NULL, NULL);
}
