/* SPDX-License-Identifier: MIT */
/*
 * The machine's fingerprint (core/gate/env.h): the same machine only when the CPU
 * model, the CPU count, the kernel and the calibration (within its tolerance)
 * all match and are known on both sides, with a sentence for people otherwise.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/gate/env.h"

static const struct wperf_env base = {
    .kernel = "6.18.44-fc-v669",
    .cpus = 2,
    .tool = "wperf-bench 0.1.0",
    .cpu_model = "AMD EPYC",
    .calibration = 4.39,
};

/* wperf_env_same_machine(now, base): 0 with why, or 1 when why is NULL. */
static void expect(const struct wperf_env *now, const char *why)
{
	char text[256];
	int same;

	memset(text, 'x', sizeof(text));
	same = wperf_env_same_machine(now, &base, text, sizeof(text));
	if (same != !why || strcmp(text, why ? why : ""))
		fail_msg("%d \"%s\", expected %d \"%s\"", same, text, !why, why ? why : "");
}

static void test_same(void **state)
{
	struct wperf_env now = base;

	(void)state;
	expect(&now, NULL);
	/* The tool is not part of the fingerprint. */
	snprintf(now.tool, sizeof(now.tool), "wperf-bench 0.2.0");
	expect(&now, NULL);
	/* Within the tolerance, either way; why may be left out. */
	now.calibration = base.calibration * 1.049;
	expect(&now, NULL);
	now.calibration = base.calibration / 1.049;
	expect(&now, NULL);
	assert_int_equal(wperf_env_same_machine(&now, &base, NULL, 0), 1);
}

static void test_differs(void **state)
{
	struct wperf_env now = base;

	(void)state;
	snprintf(now.cpu_model, sizeof(now.cpu_model), "Intel(R) Xeon(R) Gold 6130");
	expect(&now, "the baseline's CPU is AMD EPYC, this one Intel(R) Xeon(R) Gold 6130");
	now = base;
	now.cpus = 4;
	expect(&now, "the baseline had 2 CPUs, this machine has 4");
	now = base;
	snprintf(now.kernel, sizeof(now.kernel), "6.18.44-fc-v670");
	expect(&now, "the baseline's kernel is 6.18.44-fc-v669, this one 6.18.44-fc-v670");
	now = base;
	now.calibration = base.calibration * 1.09;
	expect(&now, "this machine runs the calibration loop 9.0% slower than the baseline's");
	now.calibration = base.calibration / 1.09;
	expect(&now, "this machine runs the calibration loop 9.0% faster than the baseline's");
	/* Just past the tolerance. */
	now.calibration = base.calibration * 1.051;
	expect(&now, "this machine runs the calibration loop 5.1% slower than the baseline's");
	/* The first difference is the one told, and without why only the answer. */
	now.cpus = 4;
	expect(&now, "the baseline had 2 CPUs, this machine has 4");
	assert_int_equal(wperf_env_same_machine(&now, &base, NULL, 0), 0);
}

/* A field unknown on either side: not the same machine. */
static void test_unknown(void **state)
{
	static const struct {
		size_t offset, size; /* of the field, zeroed */
		int on_now;	     /* else on the baseline */
		const char *why;
	} cases[] = {
	    {offsetof(struct wperf_env, cpu_model), 1, 0,
	     "the baseline does not name its CPU model"},
	    {offsetof(struct wperf_env, cpu_model), 1, 1, "this machine's CPU model is unknown"},
	    {offsetof(struct wperf_env, cpus), sizeof(uint32_t), 0,
	     "the baseline does not say how many CPUs it had"},
	    {offsetof(struct wperf_env, cpus), sizeof(uint32_t), 1,
	     "this machine's CPU count is unknown"},
	    {offsetof(struct wperf_env, kernel), 1, 0, "the baseline does not name its kernel"},
	    {offsetof(struct wperf_env, kernel), 1, 1, "this machine's kernel is unknown"},
	    {offsetof(struct wperf_env, calibration), sizeof(double), 0,
	     "the baseline has no calibration (made before fingerprints)"},
	    {offsetof(struct wperf_env, calibration), sizeof(double), 1,
	     "this machine has no calibration (its loop could not be measured)"},
	};
	struct wperf_env now, then;
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		now = base;
		then = base;
		memset((char *)(cases[i].on_now ? &now : &then) + cases[i].offset, 0,
		       cases[i].size);
		if (wperf_env_same_machine(&now, &then, why, sizeof(why)) != 0 ||
		    strcmp(why, cases[i].why))
			fail_msg("case %zu: \"%s\", expected \"%s\"", i, why, cases[i].why);
	}
	/* Both unknown is not the same either; nor is a calibration that is not a
	 * number. */
	now = base;
	then = base;
	now.calibration = then.calibration = 0;
	assert_int_equal(wperf_env_same_machine(&now, &then, why, sizeof(why)), 0);
	now.calibration = NAN;
	then.calibration = base.calibration;
	assert_int_equal(wperf_env_same_machine(&now, &then, why, sizeof(why)), 0);
	assert_string_equal(why,
			    "this machine has no calibration (its loop could not be measured)");
	now.calibration = -4.39;
	assert_int_equal(wperf_env_same_machine(&now, &then, why, sizeof(why)), 0);
}

/* Fields filled to the last byte, without their NUL, are read within their
 * arrays; a small why is cut and ended. */
static void test_full_fields(void **state)
{
	struct wperf_env now = base, then = base;
	char why[24];

	(void)state;
	memset(now.cpu_model, 'c', sizeof(now.cpu_model));
	memset(then.cpu_model, 'c', sizeof(then.cpu_model));
	memset(now.kernel, 'k', sizeof(now.kernel));
	memset(then.kernel, 'k', sizeof(then.kernel));
	assert_int_equal(wperf_env_same_machine(&now, &then, why, sizeof(why)), 1);
	then.kernel[sizeof(then.kernel) - 1] = 'K';
	assert_int_equal(wperf_env_same_machine(&now, &then, why, sizeof(why)), 0);
	assert_string_equal(why, "the baseline's kernel i");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same),
	    cmocka_unit_test(test_differs),
	    cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_full_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
