/* SPDX-License-Identifier: MIT */
/*
 * The little statistics the gate needs to tell a change from run-to-run noise:
 * mean, sample standard deviation, median, the two-sided Mann-Whitney U test
 * (Wilcoxon rank-sum) for samples taken at different times, the paired t test
 * for runs interleaved in pairs, Fisher's exact test for how often a vertex is
 * in a knot. (The family's adjustment is the gate's: verdict_levels.c.)
 *
 * The functions allocate nothing and cannot fail: they rank and select by
 * counting, in O(n^2), which is what a handful of repeated runs needs (a gate
 * compares tens of runs, not millions of samples); the exact Mann-Whitney
 * counts in at most 1.7 million steps. The p values and quantiles are exact
 * or within about 1e-12 of themselves at the gate's sizes, down to the far
 * tails its levels reach (1e-3 to 1e-6 and below): tests/unit/test_stats.c
 * holds them to brute-force enumeration and to reference values.
 */
#ifndef WPERF_STATS_H
#define WPERF_STATS_H

#include <stddef.h>

/* The arithmetic mean; NaN when n is 0. */
double wperf_mean(const double *x, size_t n);

/* The sample standard deviation (divisor n - 1); NaN when n < 2. */
double wperf_stddev(const double *x, size_t n);

/* The median (the mean of the two middle values when n is even); NaN when n is 0. */
double wperf_median(const double *x, size_t n);

/* The smallest and the largest value; both NaN when n is 0. */
void wperf_range(const double *x, size_t n, double *lo, double *hi);

/*
 * Up to this many values on both sides together, the Mann-Whitney tests use
 * the exact distribution of U; above it, the normal approximation. The bound
 * is that of the exact counts in 64 bits and of the table the counting keeps
 * on the stack (218 KiB at 30 against 30; see stats.c).
 */
#define WPERF_MANN_WHITNEY_EXACT_MAX 60

/*
 * The two-sided p value of the Mann-Whitney U test (Wilcoxon rank-sum) that
 * samples a and b come from the same distribution.
 *
 * Up to WPERF_MANN_WHITNEY_EXACT_MAX values together it is exact: U's
 * distribution over every way to split the pooled values into sides of na and
 * nb, given the ties (tied values share their mean rank, as in the
 * statistic), and p is twice the smaller of P(U <= u) and P(U >= u), at most 1:
 * R's wilcox.test(exact = TRUE) without ties. With ties (where R falls back to
 * the approximation) the same rule on the distribution given the ties, which
 * need not be symmetric: each tail is small by chance at most half as often
 * as the level, so twice the smaller one still holds the level.
 * Two fully separated samples of 5 and 5: 2 / 252 = 0.0079 (the normal
 * approximation: 0.0122); of 5 and 11: 2 / 4368 = 4.6e-4 (0.0022).
 *
 * Above it, the normal approximation of U with the tie correction of the
 * variance and a continuity correction of 1/2, as R's wilcox.test(exact =
 * FALSE) and SciPy's mannwhitneyu(method = "asymptotic"). Samples that are all
 * equal give 1. NaN when a side is empty or a value is NaN.
 */
double wperf_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/* The one-sided p value of the same test that b tends to be greater than a,
 * P(U <= u) for a's U (exact the same way up to WPERF_MANN_WHITNEY_EXACT_MAX
 * values; R's wilcox.test(b, a, alternative = "greater")). 5 against 5, b all
 * above: 1 / 252 = 0.0040 (the normal approximation: 0.0061); 5 against 11:
 * 1 / 4368 = 2.3e-4 (0.0011); 10 against 10: 1 / 184756 = 5.4e-6 (9.1e-5). */
double wperf_mann_whitney_greater_p(const double *a, size_t na, const double *b, size_t nb);

/*
 * The quantile function of the standard normal distribution: z such that
 * P(Z <= z) = p, for 0 < p < 1 (NaN otherwise). Accurate to about 1e-12.
 */
double wperf_normal_quantile(double p);

/*
 * The two-sided p value of Student's t statistic t with df degrees of freedom,
 * P(|T| >= |t|), through the regularized incomplete beta function: to about
 * 1e-14 of itself up to df 50, in the tails too, 1e-12 at df 2000 (lgamma's
 * rounding); NaN when df <= 0 or t is NaN. (t 2.776, df 4: 0.05; t 12.71,
 * df 1: 0.05; t 41.58, df 4: 2e-6.)
 */
double wperf_student_t_p(double t, double df);

/* The quantile of Student's t with df degrees of freedom: t such that
 * P(T <= t) = p, for 0 < p < 1 (NaN otherwise); to about 1e-12 of t. */
double wperf_student_t_quantile(double p, double df);

/*
 * The paired t test of n pairs (a[i], b[i]): is the mean of b[i] - a[i] zero?
 * Returns the two-sided p value and sets *mean_diff and *sd_diff (the mean and
 * the sample standard deviation of the differences). NaN when n < 2; when every
 * difference is the same, 1 if it is 0 and 0 otherwise.
 */
double wperf_paired_t_p(const double *a, const double *b, size_t n, double *mean_diff,
			double *sd_diff);

/*
 * The two-sided p value of Fisher's exact test on the 2x2 table of a thing
 * seen in a_seen of a_runs runs on one side and b_seen of b_runs on the other:
 * the sum of the probabilities of the tables with the same margins that are
 * no more likely than this one (as R's fisher.test). 5 of 5 against 0 of 5:
 * 2 / 252 = 0.0079. Through lgamma: within about 1e-13 of the exact sum up to
 * 30 runs a side. NaN when a side has no runs or a count passes its runs.
 */
double wperf_fisher_p(size_t a_seen, size_t a_runs, size_t b_seen, size_t b_runs);

/* The one-sided p value of the same table that a has it more often than b:
 * the chance of a count at least a_seen for a (5 of 5 against 0 of 5: 1 / 252). */
double wperf_fisher_greater_p(size_t a_seen, size_t a_runs, size_t b_seen, size_t b_runs);

/*
 * The smallest shift of the mean that a one-sided t test at level alpha finds
 * with 80% power, for samples of spread sd: n pairs (paired), or n values on
 * each side, (t(1 - alpha) + t(0.8)) sd sqrt(1 or 2 / n) with n - 1 or
 * 2 n - 2 degrees of freedom. NaN when n < 2 or sd is not a number >= 0.
 */
double wperf_detectable_shift(double sd, size_t n, int paired, double alpha);

#endif /* WPERF_STATS_H */
