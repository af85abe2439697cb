/* SPDX-License-Identifier: MIT */
/*
 * Mean, spread, median, the Mann-Whitney U test, Student's t and Fisher's
 * test (see stats.h). Ranks and order statistics are found
 * by counting, so nothing is allocated or sorted. Mann-Whitney is exact up to
 * WPERF_MANN_WHITNEY_EXACT_MAX values: the splits of the pooled values are
 * counted in 64-bit integers, in a table on the stack, by U's increments over
 * the groups of ties: the normal approximation overstates the far tail
 * (0.0061 for 1 / 252 at 5 against 5, 9.1e-5 for 5.4e-6 at 10 against 10),
 * which put the gate's smaller levels out of reach of its runs. The
 * quantiles are found by bisection on the smaller tail, so that a tail of
 * 1e-6 keeps its digits.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

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

static int any_nan(const double *a, size_t na, const double *b, size_t nb)
{
	for (size_t i = 0; i < na + nb; i++)
		if (isnan(i < na ? a[i] : b[i - na]))
			return 1;
	return 0;
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

/*
 * The exact distribution. U is a multiple of 1/2 (a tie counts half), so the
 * counting is done on V = 2 U, an integer from 0 to 2 na nb, in uint64_t: the
 * number of ways to pick k of n values is at most C(60, 30) = 1.2e17 < 2^64,
 * so every count is exact and p is one division of two exact integers.
 *
 * The table of counts (k + 1 rows of picked values by w + 1 values of V up to
 * the threshold w) lives on the stack. The cheaper of the two ways to get the
 * tails (below) needs at most 31 x 901 cells for n <= 60 (30 against 30, V at
 * its middle 900: 218 KiB; checked over every na + nb <= 60 and every V); the
 * counting takes n (k + 1) (w + 1) additions, at most 1.7 million.
 */
#define EXACT_CELLS (31 * 901)
_Static_assert(WPERF_MANN_WHITNEY_EXACT_MAX == 60, "EXACT_CELLS and uint64_t hold n <= 60");

/* The next group of equal values of the pooled sample in ascending order: the
 * smallest value above *v (any, when first) into *v, how many equal it into
 * *t. 0 when there is none. O(n), which the n groups make O(n^2). */
static int next_group(const double *a, size_t na, const double *b, size_t nb, int first, double *v,
		      size_t *t)
{
	double next = INFINITY;
	int found = 0;

	for (size_t i = 0; i < na + nb; i++) {
		double x = i < na ? a[i] : b[i - na];

		if ((first || x > *v) && (!found || x < next)) {
			next = x;
			found = 1;
		}
	}
	if (!found)
		return 0;
	*v = next;
	*t = 0;
	for (size_t i = 0; i < na + nb; i++)
		*t += (i < na ? a[i] : b[i - na]) == next;
	return 1;
}

/*
 * Of the ways to pick k of the n pooled values as "side a", how many have V at
 * most w (*le) and at most w - 1 (*lt): the distribution of V conditional on
 * the ties. ways[j][s] counts the ways to pick j of the groups seen so far with
 * V so far s; groups are taken in ascending order, so picking c of a group of
 * t, with `below` values under it of which j are picked, adds for each of the
 * c the doubled count of the values not picked below it (2 (below - j)) and
 * tied with it (t - c), in C(t, c) ways. V only grows, so sums above w can be
 * dropped, which bounds the table.
 */
static void count_ways(const double *a, size_t na, const double *b, size_t nb, size_t k, size_t w,
		       uint64_t *le, uint64_t *lt)
{
	uint64_t ways[EXACT_CELLS];
	size_t width = w + 1, below = 0, t;
	double v = 0;

	memset(ways, 0, (k + 1) * width * sizeof(*ways));
	ways[0] = 1;
	for (int first = 1; next_group(a, na, b, nb, first, &v, &t); first = 0, below += t) {
		/* Row j is read before the rows above it are added to: j descends. */
		for (size_t j = below < k ? below + 1 : k + 1; j-- > 0;) {
			uint64_t binom = 1;

			for (size_t c = 1; c <= t && j + c <= k; c++) {
				size_t gain = c * (2 * (below - j) + t - c);
				const uint64_t *from = ways + j * width;
				uint64_t *to = ways + (j + c) * width;

				binom = binom * (t - c + 1) / c; /* C(t, c), exactly */
				for (size_t s = 0; s + gain <= w; s++)
					to[s + gain] += binom * from[s];
			}
		}
	}
	*le = *lt = 0;
	for (size_t s = 0; s <= w; s++) {
		*le += ways[k * width + s];
		*lt += s < w ? ways[k * width + s] : 0;
	}
}

/* C(n, k), exactly for n <= 60 (each step's product stays under 2^63). */
static uint64_t choose(size_t n, size_t k)
{
	uint64_t c = 1;

	if (k > n - k)
		k = n - k;
	for (size_t i = 0; i < k; i++)
		c = c * (n - i) / (i + 1);
	return c;
}

/*
 * P(U <= u) and P(U >= u) of a's U under the exact distribution, for na + nb
 * <= WPERF_MANN_WHITNEY_EXACT_MAX. a's V is v, b's is 2 na nb - v: the lower
 * tail of a's is counted up to v, or the upper tail of a's, which is the lower
 * tail of b's, up to 2 na nb - v: whichever needs the smaller table. Each
 * count gives the other tail as its complement, in integers.
 */
static void exact_tails(const double *a, size_t na, const double *b, size_t nb, double u,
			double *lo, double *hi)
{
	size_t v = (size_t)llround(2 * u), mn2 = 2 * na * nb;
	uint64_t total = choose(na + nb, na), le, lt;

	if ((na + 1) * (v + 1) <= (nb + 1) * (mn2 - v + 1)) {
		count_ways(a, na, b, nb, na, v, &le, &lt);
		*lo = (double)le / (double)total;
		*hi = (double)(total - lt) / (double)total;
	} else {
		count_ways(a, na, b, nb, nb, mn2 - v, &le, &lt);
		*hi = (double)le / (double)total;
		*lo = (double)(total - lt) / (double)total;
	}
}

double wperf_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	double u, mu, var, z, lo, hi;

	if (na == 0 || nb == 0 || any_nan(a, na, b, nb))
		return NAN;
	mann_whitney_u(a, na, b, nb, &u, &mu, &var);
	if (!(var > 0))
		return 1; /* every value equal: nothing tells the samples apart */
	if (na + nb <= WPERF_MANN_WHITNEY_EXACT_MAX) {
		/* Twice the smaller tail. With ties the distribution need not be
		 * symmetric, but each tail is at most alpha / 2 with chance at
		 * most alpha / 2, so the test still holds its level. */
		exact_tails(a, na, b, nb, u, &lo, &hi);
		return fmin(1, 2 * fmin(lo, hi));
	}
	/* The continuity correction moves |U - mu| half a step towards the mean. */
	z = fabs(u - mu) - 0.5;
	if (z <= 0)
		return 1;
	z /= sqrt(var);
	return fmin(1, erfc(z / sqrt(2)));
}

double wperf_mann_whitney_greater_p(const double *a, size_t na, const double *b, size_t nb)
{
	double u, mu, var, lo, hi;

	if (na == 0 || nb == 0 || any_nan(a, na, b, nb))
		return NAN;
	mann_whitney_u(a, na, b, nb, &u, &mu, &var);
	if (!(var > 0))
		return 1;
	/* b greater: a's U small, P(U <= u). */
	if (na + nb <= WPERF_MANN_WHITNEY_EXACT_MAX) {
		exact_tails(a, na, b, nb, u, &lo, &hi);
		return fmin(1, lo);
	}
	/* With the continuity correction, as the two-sided test. */
	return fmin(1, 0.5 * erfc(-(u - mu + 0.5) / sqrt(var) / sqrt(2)));
}

double wperf_normal_quantile(double p)
{
	double lo = -40, hi = 0;

	if (!(p > 0 && p < 1))
		return NAN;
	/* The upper half by symmetry: 1 - p is exact there, and erfc is exact
	 * to its last bits in the lower tail, where 1 - erfc would lose them. */
	if (p > 0.5)
		return -wperf_normal_quantile(1 - p);
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
	double lo = 0, hi = 1, tail, t;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	/*
	 * Bisection on the tail beyond t >= 0, P(T > t) = p2(t) / 2, against the
	 * smaller of p and 1 - p (exact for p >= 1/2): 1 - p2(t) / 2 would keep
	 * only about 1e-10 of a tail of 1e-6. The bracket doubles until it holds
	 * the point (df 1 at 1e-7 is 3.2e6).
	 */
	tail = p < 0.5 ? p : 1 - p;
	while (wperf_student_t_p(hi, df) / 2 > tail && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 300 && hi - lo > 1e-12 * (1 + lo); i++) {
		double mid = (lo + hi) / 2;

		if (wperf_student_t_p(mid, df) / 2 > tail)
			lo = mid;
		else
			hi = mid;
	}
	t = (lo + hi) / 2;
	return p < 0.5 ? -t : t;
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

double wperf_detectable_shift(double sd, size_t n, int paired, double alpha)
{
	double df = paired ? (double)n - 1 : 2.0 * (double)n - 2;

	if (n < 2 || !(sd >= 0))
		return NAN;
	return (wperf_student_t_quantile(1 - alpha, df) + wperf_student_t_quantile(0.8, df)) * sd *
	       sqrt((paired ? 1.0 : 2.0) / (double)n);
}
