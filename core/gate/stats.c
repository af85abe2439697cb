/* SPDX-License-Identifier: MIT */
/*
 * Mean, spread, median and the Mann-Whitney U test (see stats.h). Ranks and
 * order statistics are found by counting, so nothing is allocated or sorted.
 */
#include <math.h>

#include "core/gate/stats.h"

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

/*
 * U of sample a and its mean and variance under the hypothesis that a and b
 * come from one distribution, with the tie correction.
 */
static void mann_whitney_u(const double *a, size_t na, const double *b, size_t nb, double *u,
			   double *mu, double *var)
{
	double n1 = (double)na, n2 = (double)nb, n = n1 + n2;
	double r1 = 0, ties = 0;

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
	*u = r1 - n1 * (n1 + 1) / 2;
	*mu = n1 * n2 / 2;
	*var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
}

double wperf_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	double u, mu, var, z;

	if (na == 0 || nb == 0)
		return NAN;
	mann_whitney_u(a, na, b, nb, &u, &mu, &var);
	if (!(var > 0))
		return 1; /* every value equal: nothing tells the samples apart */
	/* The continuity correction moves |U - mu| half a step towards the mean. */
	z = fabs(u - mu) - 0.5;
	if (z <= 0)
		return 1;
	z /= sqrt(var);
	return fmin(1, erfc(z / sqrt(2)));
}

double wperf_mann_whitney_greater_p(const double *a, size_t na, const double *b, size_t nb)
{
	double u, mu, var;

	if (na == 0 || nb == 0)
		return NAN;
	mann_whitney_u(a, na, b, nb, &u, &mu, &var);
	if (!(var > 0))
		return 1;
	/* b greater: a's U small. P(U <= u) with the continuity correction. */
	return fmin(1, 0.5 * erfc(-(u - mu + 0.5) / sqrt(var) / sqrt(2)));
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

/*
 * The regularized incomplete beta function I_x(a, b), by its continued
 * fraction (modified Lentz), on the side where it converges fast.
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num;

		/* The even step, then the odd step, of the fraction's terms. */
		for (int odd = 0; odd < 2; odd++) {
			num = odd ? -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
				  : m * (b - m) * x / ((a + m2 - 1) * (a + m2));
			d = 1 + num * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= d * c;
		}
		if (fabs(d * c - 1) < 1e-15)
			break;
	}
	return h;
}

static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double wperf_student_t_p(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	return fmin(1, incomplete_beta(df / 2, 0.5, df / (df + t * t)));
}

double wperf_student_t_quantile(double p, double df)
{
	double lo = 0, hi = 1e6;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -wperf_student_t_quantile(1 - p, df);
	/* P(T <= t) = 1 - p2(t) / 2 for t >= 0; bisection, as for the normal. */
	for (int i = 0; i < 300 && hi - lo > 1e-12 * (1 + lo); i++) {
		double mid = (lo + hi) / 2;

		if (1 - wperf_student_t_p(mid, df) / 2 < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double wperf_paired_t_p(const double *a, const double *b, size_t n, double *mean_diff,
			double *sd_diff)
{
	double sum = 0, ss = 0, mean, sd;

	*mean_diff = *sd_diff = NAN;
	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += b[i] - a[i];
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (b[i] - a[i] - mean) * (b[i] - a[i] - mean);
	sd = sqrt(ss / (double)(n - 1));
	*mean_diff = mean;
	*sd_diff = sd;
	if (!(sd > 0))
		return mean == 0 ? 1 : 0; /* every pair moved by exactly the same amount */
	return wperf_student_t_p(mean / (sd / sqrt((double)n)), (double)(n - 1));
}

/* log C(n, k) */
static double log_choose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

/* log P(a's count is x) with the margins of the table fixed (hypergeometric). */
static double log_table(size_t x, size_t a_runs, size_t b_runs, size_t seen)
{
	return log_choose((double)a_runs, (double)x) +
	       log_choose((double)b_runs, (double)(seen - x)) -
	       log_choose((double)(a_runs + b_runs), (double)seen);
}

/* The counts a's can take with the margins fixed: [lo, hi]. */
static int table_range(size_t a_seen, size_t a_runs, size_t b_seen, size_t b_runs, size_t *lo,
		       size_t *hi)
{
	size_t seen = a_seen + b_seen;

	if (!a_runs || !b_runs || a_seen > a_runs || b_seen > b_runs)
		return -1;
	*lo = seen > b_runs ? seen - b_runs : 0;
	*hi = seen < a_runs ? seen : a_runs;
	return 0;
}

double wperf_fisher_p(size_t a_seen, size_t a_runs, size_t b_seen, size_t b_runs)
{
	size_t lo, hi, seen = a_seen + b_seen;
	double p_obs, p = 0;

	if (table_range(a_seen, a_runs, b_seen, b_runs, &lo, &hi) < 0)
		return NAN;
	/* The tables no more likely than the one observed (R's fisher.test). */
	p_obs = log_table(a_seen, a_runs, b_runs, seen);
	for (size_t x = lo; x <= hi; x++) {
		double lp = log_table(x, a_runs, b_runs, seen);

		if (lp <= p_obs + 1e-7)
			p += exp(lp);
	}
	return fmin(1, p);
}

double wperf_fisher_greater_p(size_t a_seen, size_t a_runs, size_t b_seen, size_t b_runs)
{
	size_t lo, hi, seen = a_seen + b_seen;
	double p = 0;

	if (table_range(a_seen, a_runs, b_seen, b_runs, &lo, &hi) < 0)
		return NAN;
	for (size_t x = a_seen; x <= hi; x++)
		p += exp(log_table(x, a_runs, b_runs, seen));
	return fmin(1, p);
}

void wperf_bh_adjust(const double *p, size_t n, double *q)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		m += !isnan(p[i]);
	/* q_i = min over p_j >= p_i of p_j m / rank_j, the rank of a tie its
	 * largest: counted, not sorted, for the tens of tests of a scenario. */
	for (size_t i = 0; i < n; i++) {
		q[i] = NAN;
		if (isnan(p[i]))
			continue;
		for (size_t j = 0; j < n; j++) {
			size_t rank = 0;
			double v;

			if (isnan(p[j]) || p[j] < p[i])
				continue;
			for (size_t k = 0; k < n; k++)
				rank += !isnan(p[k]) && p[k] <= p[j];
			v = fmin(1, p[j] * (double)m / (double)rank);
			if (isnan(q[i]) || v < q[i])
				q[i] = v;
		}
	}
}
