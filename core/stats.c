/* SPDX-License-Identifier: MIT */
/*
 * Mean, spread, median and the Mann-Whitney U test (see stats.h). Ranks and
 * order statistics are found by counting, so nothing is allocated or sorted.
 */
#include <math.h>

#include "stats.h"

double wperf_mean(const double *x, size_t n)
{
	double sum = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double wperf_stddev(const double *x, size_t n)
{
	double mean, ss = 0;

	if (n < 2)
		return NAN;
	mean = wperf_mean(x, n);
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

/* The k-th smallest value (from 0): the x[i] with fewer than k + 1 values below
 * it and at least k + 1 values at or below it. */
static double kth(const double *x, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++) {
		size_t below = 0, equal = 0;

		for (size_t j = 0; j < n; j++) {
			below += x[j] < x[i];
			equal += x[j] == x[i];
		}
		if (below <= k && k < below + equal)
			return x[i];
	}
	return NAN; /* only when x holds NaNs */
}

double wperf_median(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	if (n % 2)
		return kth(x, n, n / 2);
	return (kth(x, n, n / 2 - 1) + kth(x, n, n / 2)) / 2;
}

void wperf_range(const double *x, size_t n, double *lo, double *hi)
{
	*lo = *hi = n ? x[0] : NAN;
	for (size_t i = 1; i < n; i++) {
		if (x[i] < *lo)
			*lo = x[i];
		if (x[i] > *hi)
			*hi = x[i];
	}
}

/* How many values of a and b are below v, and how many equal it. */
static void count(const double *a, size_t na, const double *b, size_t nb, double v, double *below,
		  double *equal)
{
	*below = *equal = 0;
	for (size_t i = 0; i < na; i++) {
		*below += a[i] < v;
		*equal += a[i] == v;
	}
	for (size_t i = 0; i < nb; i++) {
		*below += b[i] < v;
		*equal += b[i] == v;
	}
}

double wperf_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	double n1 = (double)na, n2 = (double)nb, n = n1 + n2;
	double r1 = 0, ties = 0, u, mu, var, z;

	if (na == 0 || nb == 0)
		return NAN;
	/*
	 * The rank of a value in the pooled sample is the number of values below
	 * it plus the mean position among its equals (ties share their mean rank).
	 * The tie correction sums t^3 - t over groups of t equal values, which is
	 * the sum of t^2 - 1 over every value.
	 */
	for (size_t i = 0; i < na + nb; i++) {
		double v = i < na ? a[i] : b[i - na], below, equal;

		count(a, na, b, nb, v, &below, &equal);
		if (i < na)
			r1 += below + (equal + 1) / 2;
		ties += equal * equal - 1;
	}
	u = r1 - n1 * (n1 + 1) / 2;
	mu = n1 * n2 / 2;
	var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
	if (!(var > 0))
		return 1; /* every value equal: nothing tells the samples apart */
	/* The continuity correction moves |U - mu| half a step towards the mean. */
	z = fabs(u - mu) - 0.5;
	if (z <= 0)
		return 1;
	z /= sqrt(var);
	return fmin(1, erfc(z / sqrt(2)));
}

double wperf_normal_quantile(double p)
{
	double lo = -40, hi = 40;

	if (!(p > 0 && p < 1))
		return NAN;
	/* Bisection on the distribution function, 0.5 erfc(-z / sqrt 2): slow next
	 * to a rational approximation, exact to the last bits, and called rarely. */
	for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(-mid / sqrt(2)) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
