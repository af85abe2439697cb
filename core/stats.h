/* SPDX-License-Identifier: MIT */
/*
 * The little statistics the gate needs to tell a change from run-to-run noise:
 * mean, sample standard deviation, median, and the two-sided Mann-Whitney U
 * test (Wilcoxon rank-sum).
 *
 * The functions allocate nothing and cannot fail: they rank and select by
 * counting, in O(n^2), which is what a handful of repeated runs needs (a gate
 * compares tens of runs, not millions of samples).
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
 * The two-sided p value of the Mann-Whitney U test that samples a and b come
 * from the same distribution.
 *
 * It uses the normal approximation of U with the tie correction of the
 * variance and a continuity correction of 1/2, as R's wilcox.test(exact =
 * FALSE) and SciPy's mannwhitneyu(method = "asymptotic") do; it is close
 * enough to the exact distribution from about 5 samples per side. For two
 * fully separated samples of 5 and 5 it gives 0.0122 (the exact test: 0.0079).
 * Samples that are all equal give 1. NaN when a side is empty.
 */
double wperf_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/*
 * The quantile function of the standard normal distribution: z such that
 * P(Z <= z) = p, for 0 < p < 1 (NaN otherwise). Accurate to about 1e-12.
 */
double wperf_normal_quantile(double p);

#endif /* WPERF_STATS_H */
