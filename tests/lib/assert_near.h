/* SPDX-License-Identifier: MIT */
/*
 * Doubles compared as doubles, for the unit tests of the gate's numbers (p
 * values, q values, levels). cmocka 1.1's assert_float_equal converts to
 * float: any two values within about 1e-7 of each other pass, whatever the
 * tolerance, which would let a p value wrong in its eighth digit through.
 *
 * assert_near(x, ref, tol): |x - ref| <= tol; assert_rel(x, ref, rel): within
 * rel of |ref|. A NaN never passes. Include after <cmocka.h>.
 */
#ifndef WPERF_TESTS_ASSERT_NEAR_H
#define WPERF_TESTS_ASSERT_NEAR_H

#include <math.h>

#define assert_near(x, ref, tol) wperf_check_close((x), (ref), (tol), 0, #x, __FILE__, __LINE__)
#define assert_rel(x, ref, rel)	 wperf_check_close((x), (ref), 0, (rel), #x, __FILE__, __LINE__)

/* static inline: a test that uses neither macro does not warn of it. */
static inline void wperf_check_close(double x, double ref, double tol, double rel, const char *what,
				     const char *file, int line)
{
	tol += rel * fabs(ref);
	if (fabs(x - ref) <= tol) /* false for a NaN */
		return;
	print_error("%s = %.17g, not %.17g within %.3g\n", what, x, ref, tol);
	_fail(file, line);
}

#endif /* WPERF_TESTS_ASSERT_NEAR_H */
