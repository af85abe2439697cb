/* SPDX-License-Identifier: MIT */
/*
 * The gate's statistics (core/gate/stats.h) against numbers known from tables,
 * computed by hand, computed here by brute force, or computed once with mpmath:
 * Student's t and its quantile and the normal quantile, in the far tails too,
 * the paired t test, Fisher's exact test (two-sided as R's fisher.test, and
 * one-sided) against hypergeometric sums, the exact Mann-Whitney test against
 * every split of small samples, with and without ties, and against R's
 * values, its limit and the normal approximation beyond it. Each test
 * states its tolerance.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/gate/stats.h"
#include "tests/lib/assert_near.h"

/* Student's t: the two-sided 5% points of the tables, which are rounded to
 * three decimals (so 1e-4 of the table's 0.05), and the exact values of the
 * regularized incomplete beta function I_{df/(df+t^2)}(df/2, 1/2). */
static void test_student_t_p(void **state)
{
	(void)state;
	assert_near(wperf_student_t_p(2.776, 4), 0.05, 1e-4);
	assert_near(wperf_student_t_p(12.706, 1), 0.05, 1e-4);
	assert_near(wperf_student_t_p(2.228, 10), 0.05, 1e-4);
	assert_near(wperf_student_t_p(2.776, 4), 0.05002277831997641, 1e-12);
	assert_near(wperf_student_t_p(2.228, 10), 0.05001177181711137, 1e-12);
	/* df 1 is the Cauchy distribution: p = 1 - 2 atan(t) / pi. */
	assert_near(wperf_student_t_p(12.706, 1), 1 - 2 * atan(12.706) / M_PI, 1e-12);
	/* df 2: p = 1 - t / sqrt(2 + t^2); t = 1: 1 - 1 / sqrt(3). */
	assert_near(wperf_student_t_p(1, 2), 1 - 1 / sqrt(3), 1e-12);
	/* Symmetric in t; t = 0 gives 1, an infinite t 0. */
	assert_near(wperf_student_t_p(-2.776, 4), wperf_student_t_p(2.776, 4), 0);
	assert_near(wperf_student_t_p(0, 7), 1, 1e-15);
	assert_near(wperf_student_t_p(INFINITY, 3), 0, 0);
	assert_true(isnan(wperf_student_t_p(NAN, 3)));
	assert_true(isnan(wperf_student_t_p(2, 0)));
}

static void test_student_t_quantile(void **state)
{
	(void)state;
	/* The exact 97.5% points that the tables round to 2.776, 12.706, 2.228. */
	assert_near(wperf_student_t_quantile(0.975, 4), 2.7764451051977987, 1e-9);
	assert_near(wperf_student_t_quantile(0.975, 1), tan(M_PI * 0.475), 1e-9);
	assert_near(wperf_student_t_quantile(0.975, 10), 2.2281388519649385, 1e-9);
	/* It inverts wperf_student_t_p: P(T <= t) = 1 - p2(t) / 2. */
	for (double df = 1; df <= 30; df += 7)
		for (double p = 0.6; p < 0.999; p += 0.1) {
			double t = wperf_student_t_quantile(p, df);

			assert_near(1 - wperf_student_t_p(t, df) / 2, p, 1e-10);
		}
	/* Below the median: the mirror image; the median itself is 0. */
	assert_near(wperf_student_t_quantile(0.025, 4), -2.7764451051977987, 1e-9);
	assert_near(wperf_student_t_quantile(0.5, 4), 0, 1e-9);
	assert_true(isnan(wperf_student_t_quantile(0, 4)));
	assert_true(isnan(wperf_student_t_quantile(1, 4)));
	assert_true(isnan(wperf_student_t_quantile(0.9, 0)));
}

/*
 * The far tails, at the levels the gate holds its tests to (its alpha split
 * over scenarios and looks: 1e-3 to 1e-6). The references are from mpmath
 * 1.3.0 at 40 digits: the t point q with P(T > q) = p by findroot on
 * betainc(df / 2, 1 / 2, 0, df / (df + q^2)) / 2, checked against the
 * density integrated by quad (they agree to 1e-39), and the normal point
 * -sqrt(2) erfinv(1 - 2 p). The t points at 1e-3 are those of the printed
 * tables (7.173, 4.297, 3.579). The upper points (q_up) are those of 1 - p as
 * a double, which is off 1 - p by up to 1e-10 of p at 1e-6: the point of
 * 1 - 1e-6 itself, not of a tail of exactly 1e-6.
 */
static const struct {
	double df, p, q, q_up;
} t_tail[] = {
    {4, 1e-3, 7.1731822197823084789, 7.1731822197823067839},
    {4, 1e-4, 13.033671720896456198, 13.033671720896822082},
    {4, 1e-5, 23.332182700829275215, 23.332182700855983954},
    {4, 1e-6, 41.577854150450974726, 41.577854150151498845},
    {9, 1e-3, 4.2968056627299184861, 4.2968056627299178805},
    {9, 1e-4, 6.0101321290814410695, 6.0101321290815309707},
    {9, 1e-5, 8.1020578793948218481, 8.1020578793994242164},
    {9, 1e-6, 10.720160409909500306, 10.72016040987282453},
    {19, 1e-3, 3.5794001489547159363, 3.5794001489547155457},
    {19, 1e-4, 4.589864596755033197, 4.5898645967550818422},
    {19, 1e-5, 5.6267662327240456428, 5.6267662327261449191},
    {19, 1e-6, 6.7233942822001863858, 6.7233942821860084815},
};

/* Relative tolerances: 1e-12 for p (the continued fraction converges to
 * 1e-15), 1e-11 for the quantiles (bisection to 1e-12 of the point). */
static void test_far_tails(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(t_tail) / sizeof(t_tail[0]); i++) {
		double df = t_tail[i].df, p = t_tail[i].p, q = t_tail[i].q;

		assert_rel(wperf_student_t_p(q, df), 2 * p, 1e-12);
		assert_rel(wperf_student_t_p(-q, df), 2 * p, 1e-12);
		assert_rel(wperf_student_t_quantile(p, df), -q, 1e-11);
		assert_rel(wperf_student_t_quantile(1 - p, df), t_tail[i].q_up, 1e-11);
	}
	/* Two-sided p at round t (mpmath as above). */
	assert_rel(wperf_student_t_p(10, 4), 5.6200362271599115571e-4, 1e-12);
	assert_rel(wperf_student_t_p(30, 4), 7.3528560976613221245e-6, 1e-12);
	assert_rel(wperf_student_t_p(8, 9), 2.213481680940015368e-5, 1e-12);
	assert_rel(wperf_student_t_p(7, 19), 1.1471555636456036483e-6, 1e-12);
	/* df 1, the Cauchy distribution, at 1e-7: 1 / tan(pi 1e-7) = 3.18e6 (of
	 * 1 - 1e-7 as a double: mpmath as above), past the bracket of a million
	 * that the quantile used to stop at. */
	assert_rel(wperf_student_t_quantile(1 - 1e-7, 1), 3183098.8635132446965, 1e-11);
	assert_rel(wperf_student_t_quantile(1e-7, 1), -3183098.8618378021397, 1e-11);
	/* The normal quantile, to 1e-12 of itself (bisection to 1e-13). */
	assert_rel(wperf_normal_quantile(1e-3), -3.0902323061678135415, 1e-12);
	assert_rel(wperf_normal_quantile(1 - 1e-3), 3.0902323061678132778, 1e-12);
	assert_rel(wperf_normal_quantile(1e-6), -4.7534243088228989482, 1e-12);
	assert_rel(wperf_normal_quantile(1 - 1e-6), 4.7534243088170877657, 1e-12);
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
	assert_near(wperf_paired_t_p(a, b, 4, &mean, &sd), 0.03535284700251739, 1e-12);
	assert_near(mean, 1.75, 1e-15);
	assert_near(sd, sqrt(2.75 / 3), 1e-15);
	assert_near(wperf_paired_t_p(a, b, 4, &mean, &sd),
		    wperf_student_t_p(1.75 / (sqrt(2.75 / 3) / 2), 3), 1e-15);
	/* The order of the sides flips the sign of the mean, not p. */
	assert_near(wperf_paired_t_p(b, a, 4, &mean, &sd), 0.03535284700251739, 1e-12);
	assert_near(mean, -1.75, 1e-15);
	/* Every pair moved by the same amount: certain; by nothing: no change. */
	assert_near(wperf_paired_t_p(a, c, 4, &mean, &sd), 0, 0);
	assert_near(mean, 1, 0);
	assert_near(sd, 0, 0);
	assert_near(wperf_paired_t_p(a, a, 4, &mean, &sd), 1, 0);
	/* One pair tells nothing. */
	assert_true(isnan(wperf_paired_t_p(a, b, 1, &mean, &sd)));
	assert_true(isnan(mean));
	assert_true(isnan(sd));
}

/* Each p is a sum of exp(lgamma ...) terms: to 1e-13 of itself (the brute
 * force below finds at most 9e-14 up to 30 runs a side). */
static void test_fisher(void **state)
{
	(void)state;
	/* 5 of 5 against 0 of 5: one table in C(10, 5) = 252 is as extreme on
	 * each side. */
	assert_rel(wperf_fisher_p(5, 5, 0, 5), 2.0 / 252, 1e-13);
	assert_rel(wperf_fisher_greater_p(5, 5, 0, 5), 1.0 / 252, 1e-13);
	assert_rel(wperf_fisher_greater_p(0, 5, 5, 5), 1, 1e-13);
	/* 8 of 8 against 0 of 8: 1 / C(16, 8). */
	assert_rel(wperf_fisher_greater_p(8, 8, 0, 8), 1.0 / 12870, 1e-13);
	/*
	 * 3 of 4 against 1 of 6, the table [[3, 1], [1, 5]] (R: fisher.test(
	 * matrix(c(3, 1, 1, 5), 2)) gives 0.1905). With the margins fixed (4
	 * seen, 4 and 6 runs) a's count x has C(4, x) C(6, 4 - x) / C(10, 4):
	 * 15, 80, 90, 24, 1 in 210 for x = 0..4. Two-sided: the tables no more
	 * likely than x = 3 (24): x = 0, 3, 4, (15 + 24 + 1) / 210; one-sided:
	 * x >= 3, 25 / 210.
	 */
	assert_rel(wperf_fisher_p(3, 4, 1, 6), 40.0 / 210, 1e-13);
	assert_rel(wperf_fisher_greater_p(3, 4, 1, 6), 25.0 / 210, 1e-13);
	/* The other way round, 1 of 6 against 3 of 4: a's count x has C(6, x)
	 * C(4, 4 - x) / 210, 1 24 90 80 15 for x = 0..4; x >= 1: 209 / 210. */
	assert_rel(wperf_fisher_greater_p(1, 6, 3, 4), 209.0 / 210, 1e-13);
	/* The same counts on both sides: nothing unusual. */
	assert_rel(wperf_fisher_p(3, 5, 3, 5), 1, 1e-13);
	/* 2 of 5 against 1 of 5: C(5,2) C(5,1) / C(10,3) + C(5,3) / C(10,3)
	 * = (50 + 10) / 120 = 0.5. */
	assert_rel(wperf_fisher_greater_p(2, 5, 1, 5), 0.5, 1e-13);
	assert_true(isnan(wperf_fisher_p(1, 0, 0, 5)));
	assert_true(isnan(wperf_fisher_p(6, 5, 0, 5)));
	assert_true(isnan(wperf_fisher_greater_p(0, 5, 0, 0)));
}

/* C(n, k) for n <= 60 by Pascal's triangle, in exact integers. */
static uint64_t pascal(size_t n, size_t k)
{
	static uint64_t c[61][61];

	if (!c[0][0])
		for (size_t i = 0; i <= 60; i++)
			for (size_t j = 0; j <= i; j++)
				c[i][j] = j == 0 || j == i ? 1 : c[i - 1][j - 1] + c[i - 1][j];
	return k <= n ? c[n][k] : 0;
}

/*
 * Fisher's test against the hypergeometric sums in exact integers: with s
 * seen in all, a's count x has C(ar, x) C(br, s - x) of C(ar + br, s) ways.
 * One-sided: the x >= a_seen; two-sided: the x no more likely than a_seen's
 * (equal counts are equally likely, exactly). Every table of up to 30 runs
 * a side in steps (p down to 1 / C(60, 30) = 8.5e-18); to 1e-11 of p.
 */
static void test_fisher_brute_force(void **state)
{
	static const size_t runs[] = {1, 3, 5, 8, 10, 17, 30};

	(void)state;
	for (size_t i = 0; i < 7; i++)
		for (size_t j = 0; j < 7; j++) {
			size_t ar = runs[i], br = runs[j];

			for (size_t as = 0; as <= ar; as++)
				for (size_t bs = 0; bs <= br; bs++) {
					size_t s = as + bs;
					uint64_t obs = pascal(ar, as) * pascal(br, bs), ge = 0,
						 two = 0;
					double total = (double)pascal(ar + br, s), p;

					for (size_t x = 0; x <= s && x <= ar; x++) {
						uint64_t w = pascal(ar, x) * pascal(br, s - x);

						ge += x >= as ? w : 0;
						two += w <= obs ? w : 0;
					}
					p = (double)ge / total;
					assert_rel(wperf_fisher_greater_p(as, ar, bs, br), p,
						   1e-12);
					p = (double)two / total;
					assert_rel(wperf_fisher_p(as, ar, bs, br), p, 1e-12);
				}
		}
	/* The far tail at 1e-6: 10 of 10 against 0 of 10, 1 / C(20, 10). */
	assert_rel(wperf_fisher_greater_p(10, 10, 0, 10), 1.0 / 184756, 1e-12);
}

/* ---- Mann-Whitney ---- */

/*
 * The exact p values by brute force, for n = na + nb <= 20: every way to take
 * na of the pooled values as side a, compared by the sum of their doubled
 * mid-ranks (2 below + equal + 1, an integer; U is that sum over 2 less
 * na (na + 1) / 2, so the order is U's). Independent of stats.c's counting,
 * which goes by U's increments over groups of ties.
 */
static void brute_force(const double *a, size_t na, const double *b, size_t nb, double *greater,
			double *two)
{
	size_t n = na + nb;
	long r2[20], obs = 0;
	uint64_t le = 0, ge = 0, total = 0;

	assert_true(n <= 20);
	for (size_t i = 0; i < n; i++) {
		double v = i < na ? a[i] : b[i - na];
		long below = 0, equal = 0;

		for (size_t j = 0; j < n; j++) {
			double w = j < na ? a[j] : b[j - na];

			below += w < v;
			equal += w == v;
		}
		r2[i] = 2 * below + equal + 1;
		obs += i < na ? r2[i] : 0;
	}
	for (uint32_t mask = 0; mask < (1u << n); mask++) {
		long sum = 0;

		if ((size_t)__builtin_popcount(mask) != na)
			continue;
		for (size_t i = 0; i < n; i++)
			sum += (mask >> i) & 1 ? r2[i] : 0;
		total++;
		le += sum <= obs;
		ge += sum >= obs;
	}
	*greater = (double)le / (double)total;
	*two = fmin(1, 2 * (double)(le < ge ? le : ge) / (double)total);
}

/* Both functions, both ways round, against brute force: each is a ratio of
 * exact integers, so only the last bits of the division may differ (1e-13). */
static void check_brute_force(const double *a, size_t na, const double *b, size_t nb)
{
	double greater, two;

	brute_force(a, na, b, nb, &greater, &two);
	assert_rel(wperf_mann_whitney_greater_p(a, na, b, nb), greater, 1e-13);
	assert_rel(wperf_mann_whitney_p(a, na, b, nb), two, 1e-13);
	brute_force(b, nb, a, na, &greater, &two);
	assert_rel(wperf_mann_whitney_greater_p(b, nb, a, na), greater, 1e-13);
	assert_rel(wperf_mann_whitney_p(b, nb, a, na), two, 1e-13);
}

/* Every pair of sizes up to 6 against 6, on values drawn from 3 levels (many
 * ties), 7 levels (some) and a continuum (none), and larger samples. */
static void test_mann_whitney_brute_force(void **state)
{
	const double t1[] = {1, 2, 2, 3}, t2[] = {2, 3, 4, 4, 5};
	const double z1[] = {0, 0, 0, 1, 0, 0, 1, 0}, z2[] = {1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1};
	static const uint32_t levels[] = {3, 7, 1u << 20};
	double a[10], b[10];
	uint32_t seed = 12345;

	(void)state;
	check_brute_force(t1, 4, t2, 5);
	check_brute_force(z1, 8, z2, 12);
	for (size_t na = 1; na <= 6; na++)
		for (size_t nb = 1; nb <= 6; nb++)
			for (size_t l = 0; l < 3; l++) {
				for (size_t i = 0; i < 10; i++) {
					seed = seed * 1103515245 + 12345; /* an LCG */
					a[i] = (double)((seed >> 8) % levels[l]);
					seed = seed * 1103515245 + 12345;
					/* b a little higher, for some small p */
					b[i] = (double)((seed >> 8) % levels[l]) + levels[l] / 3;
				}
				check_brute_force(a, na, b, nb);
			}
	for (size_t i = 0; i < 10; i++) {
		a[i] = (double)i * 1.5;
		b[i] = (double)i * 1.1 + 4;
	}
	check_brute_force(a, 10, b, 10);
	check_brute_force(a, 7, b, 9);
}

/* The exact values that R's wilcox.test(exact = TRUE) gives: two separated
 * samples have a single split as extreme, 1 in C(na + nb, na). */
static void test_mann_whitney_exact_values(void **state)
{
	const double lo[] = {1, 2, 3, 4, 5}, hi[] = {6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	const double lo10[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	const double hi10[] = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
	/* R's ?wilcox.test, from Hollander and Wolfe (1973), 69f: wilcox.test(x,
	 * y, alternative = "greater") is W = 35, p = 0.1272 (382 / 3003). */
	const double x[] = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
	const double y[] = {1.15, 0.88, 0.90, 0.74, 1.21};
	const double same[] = {0.4, 0.4, 0.4};

	(void)state;
	/* 5 against 5: 1 / 252 = 0.003968 one-sided, 2 / 252 = 0.007937 (the
	 * normal approximation gave 0.0061 and 0.0122); b below: certain. */
	assert_rel(wperf_mann_whitney_greater_p(lo, 5, hi, 5), 1.0 / 252, 1e-15);
	assert_rel(wperf_mann_whitney_p(lo, 5, hi, 5), 2.0 / 252, 1e-15);
	assert_rel(wperf_mann_whitney_p(hi, 5, lo, 5), 2.0 / 252, 1e-15);
	assert_near(wperf_mann_whitney_greater_p(hi, 5, lo, 5), 1, 0);
	/* 5 against 11: 1 / 4368 (the approximation: 0.0011); 10 against 10: 1 /
	 * 184756 = 5.4e-6 (the approximation: 9.1e-5). */
	assert_rel(wperf_mann_whitney_greater_p(lo, 5, hi, 11), 1.0 / 4368, 1e-15);
	assert_rel(wperf_mann_whitney_p(hi, 11, lo, 5), 2.0 / 4368, 1e-15);
	assert_rel(wperf_mann_whitney_greater_p(lo10, 10, hi10, 10), 1.0 / 184756, 1e-15);
	assert_rel(wperf_mann_whitney_greater_p(y, 5, x, 10), 382.0 / 3003, 1e-15);
	assert_near(wperf_mann_whitney_greater_p(y, 5, x, 10), 0.1272, 5e-5);
	/* All equal: 1; an empty side or a NaN: no test. */
	assert_near(wperf_mann_whitney_greater_p(same, 3, same, 3), 1, 0);
	assert_near(wperf_mann_whitney_p(same, 3, same, 3), 1, 0);
	assert_near(wperf_mann_whitney_p(lo, 5, lo, 5), 1, 0);
	assert_true(isnan(wperf_mann_whitney_greater_p(lo, 0, hi, 5)));
	assert_true(isnan(wperf_mann_whitney_greater_p(lo, 5, hi, 0)));
	assert_true(isnan(wperf_mann_whitney_p(lo, 0, hi, 5)));
	assert_true(isnan(wperf_mann_whitney_p(x, 1, (const double[]){NAN}, 1)));
}

/* The normal approximation with the tie correction and the continuity
 * correction, written out again: what the functions use above the limit. */
static double normal_greater_p(const double *a, size_t na, const double *b, size_t nb)
{
	double n = (double)(na + nb), r1 = 0, ties = 0, u, mu, var;

	for (size_t i = 0; i < na + nb; i++) {
		double v = i < na ? a[i] : b[i - na], below = 0, equal = 0;

		for (size_t j = 0; j < na + nb; j++) {
			below += (j < na ? a[j] : b[j - na]) < v;
			equal += (j < na ? a[j] : b[j - na]) == v;
		}
		r1 += i < na ? below + (equal + 1) / 2 : 0;
		ties += equal * equal - 1; /* over a group of t: t^3 - t */
	}
	u = r1 - (double)na * ((double)na + 1) / 2;
	mu = (double)na * (double)nb / 2;
	var = (double)na * (double)nb / 12 * ((n + 1) - ties / (n * (n - 1)));
	return 0.5 * erfc(-(u - mu + 0.5) / sqrt(var) / sqrt(2));
}

/*
 * At the limit (30 against 30) the count is still exact, in the far tail
 * too; one value more and the approximation takes over. Without ties and with
 * u <= 30 the splits with U = u are the partitions of u (at most 30 parts of
 * at most 30): 1 1 2 3 5 7 11 15 22 30 42 for u = 0..10.
 */
static void test_mann_whitney_limit(void **state)
{
	double a[31], b[31], zeros[30], ones[30], exact, approx;

	(void)state;
	assert_int_equal(WPERF_MANN_WHITNEY_EXACT_MAX, 60);
	for (size_t i = 0; i < 31; i++) {
		a[i] = (double)i;
		b[i] = 100 + (double)i;
	}
	/* C(60, 30) = 118264581564861424 splits; to 1e-15 (two roundings). */
	assert_rel(wperf_mann_whitney_greater_p(a, 30, b, 30), 1 / 118264581564861424.0, 1e-15);
	assert_rel(wperf_mann_whitney_p(b, 30, a, 30), 2 / 118264581564861424.0, 1e-15);
	/* Two groups of ties, 30 zeros against 30 ones: the same single split. */
	for (size_t i = 0; i < 30; i++) {
		zeros[i] = 0;
		ones[i] = 1;
	}
	assert_rel(wperf_mann_whitney_greater_p(zeros, 30, ones, 30), 1 / 118264581564861424.0,
		   1e-15);
	a[29] = 109.5; /* above 10 of b: U = 10 */
	assert_rel(wperf_mann_whitney_greater_p(a, 30, b, 30), 139 / 118264581564861424.0, 1e-15);
	/* 30 against 31: the approximation (1.5e-11 where the exact p would be
	 * 1e-17), as written out above, to 1e-12. */
	assert_rel(wperf_mann_whitney_greater_p(a, 30, b, 31), normal_greater_p(a, 30, b, 31),
		   1e-12);
	/*
	 * Where the two meet, at about 1%: b = a shifted by 5.5 gives U = 300 of
	 * 900, p 0.0132. The approximation is then 3% above the exact p, and
	 * within 10% of it on the other side of the limit (one value more, 20,
	 * tied with a's). It is above it by more in the far tail (at 30 against
	 * 30: x1.2 at 1e-3, x3.3 at 1e-6): on the safe side.
	 */
	for (size_t i = 0; i < 30; i++) {
		a[i] = (double)i;
		b[i] = (double)i + 5.5;
	}
	b[30] = 20;
	exact = wperf_mann_whitney_greater_p(a, 30, b, 30);
	approx = normal_greater_p(a, 30, b, 30);
	assert_true(exact > 0.01 && exact < 0.015);
	assert_true(approx > exact && approx < 1.06 * exact);
	approx = wperf_mann_whitney_greater_p(a, 30, b, 31);
	assert_rel(approx, normal_greater_p(a, 30, b, 31), 1e-12);
	assert_true(fabs(approx / exact - 1) < 0.1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_student_t_p),
	    cmocka_unit_test(test_student_t_quantile),
	    cmocka_unit_test(test_far_tails),
	    cmocka_unit_test(test_paired_t),
	    cmocka_unit_test(test_fisher),
	    cmocka_unit_test(test_fisher_brute_force),
	    cmocka_unit_test(test_mann_whitney_brute_force),
	    cmocka_unit_test(test_mann_whitney_exact_values),
	    cmocka_unit_test(test_mann_whitney_limit),
	};

	return cmocka_run_group_tests_name("the gate's statistics", tests, NULL, NULL);
}
