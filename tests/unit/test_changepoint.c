/* SPDX-License-Identifier: MIT */
/*
 * Change points (core/gate/changepoint.h): E-Divisive's q-hat against hand
 * computation and against its definition summed out by brute force; the
 * detector on synthetic histories of a scenario's throughput with noise of
 * its own seeded generator: one 10% step found, and nothing else, for 10 of
 * 10 noises; the same noises without the step found flat but for one (a
 * false change comes with 2 to 3% of noises); a regression and its fix
 * found both; long histories in windows; the edges (no value, one, two, one
 * value repeated, values that are not numbers, options out of range); and
 * how often it finds what, the figures docs/ci.md quotes.
 *
 * The noise: each value is the level times 1 + 0.02 Z, Z standard normal, a
 * spread of 2%. The synthetic scenarios' baselines spread by about 1 to 3% of
 * their mean from run to run (baselines/synthetic-fig1.yaml: 1.8%), and a
 * history's point is the median of a baseline's runs, which spreads less
 * than one run: 2% is the harder end of what such a history holds.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/gate/changepoint.h"
#include "tests/lib/assert_near.h"

#define LEVEL  1000.0 /* the throughput before any step */
#define NOISE  0.02   /* the relative spread of a point */
#define POINTS 30     /* the history */
#define SEEDS  10

/* Five standard errors of the noise on the mean of n points, relative: what
 * a mean may be off by in the histories here (a difference of two such
 * means, sqrt 2 times that). */
#define OFF_BY(n) (5 * NOISE / sqrt((double)(n)))

/* SplitMix64: a small generator whose sequence is the same everywhere. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1), from the top 53 bits. */
static double uniform(uint64_t *state)
{
	return ((double)(next_random(state) >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal, by Box and Muller. */
static double normal(uint64_t *state)
{
	double r = sqrt(-2 * log(uniform(state)));

	return r * cos(2 * M_PI * uniform(state));
}

/*
 * A history of n points with noise from seed: LEVEL, times 1 + step[i] from
 * point at[i] on (steps add up), times 1 + NOISE Z.
 */
static void history(double *x, size_t n, uint64_t seed, const size_t *at, const double *step,
		    size_t nsteps)
{
	uint64_t state = seed * 1000003;

	for (size_t i = 0; i < n; i++) {
		double level = LEVEL;

		for (size_t s = 0; s < nsteps; s++)
			if (i >= at[s])
				level *= 1 + step[s];
		x[i] = level * (1 + NOISE * normal(&state));
	}
}

/* The change points of x[0..n) with the default options, which must succeed. */
static struct wperf_changepoint *changes(const double *x, size_t n, size_t *k)
{
	struct wperf_changepoint *cps;
	struct wperf_error err = {0};

	if (wperf_changepoints(x, n, NULL, &cps, k, &err))
		fail_msg("wperf_changepoints: %s", err.msg);
	return cps;
}

/* ---- q-hat ---- */

/*
 * By hand. {0, 0, 3}: tau 2 against kappa 3 puts {0, 0} against {3}: across
 * 3 + 3 = 6, nothing within, 2 / 3 * 6 = 4; every other split gives 0.
 * {0, 1, 5, 6}: {0, 1} against {5, 6} has 20 across and 1 within each side,
 * 2 / 4 * 20 - 2 * 2 / (4 * 1) * 1 - the same = 10 - 1 - 1 = 8, the largest
 * (tau 2 against {5} alone: 6 - 2 / 3 = 5.33; tau 1 or 3: 3.5 at most).
 */
static void test_qhat_by_hand(void **state)
{
	const double three[] = {0, 0, 3}, four[] = {0, 1, 5, 6};
	struct wperf_split s;

	(void)state;
	assert_int_equal(wperf_edivisive_split(three, 3, &s, NULL), 0);
	assert_int_equal(s.tau, 2);
	assert_int_equal(s.kappa, 3);
	assert_near(s.qhat, 4, 1e-12);
	assert_int_equal(wperf_edivisive_split(four, 4, &s, NULL), 0);
	assert_int_equal(s.tau, 2);
	assert_int_equal(s.kappa, 4);
	assert_near(s.qhat, 8, 1e-12);
	/* two values: the one split, |x0 - x1| */
	assert_int_equal(wperf_edivisive_split(four + 1, 2, &s, NULL), 0);
	assert_int_equal(s.tau, 1);
	assert_int_equal(s.kappa, 2);
	assert_near(s.qhat, 4, 1e-12);
}

/* The mean of |a_i - b_j| over the pairs of a and b (i < j when a is b). */
static double mean_distance(const double *a, size_t na, const double *b, size_t nb, int same)
{
	double sum = 0;
	size_t pairs = 0;

	for (size_t i = 0; i < na; i++)
		for (size_t j = same ? i + 1 : 0; j < nb; j++, pairs++)
			sum += fabs(a[i] - b[j]);
	return pairs ? sum / (double)pairs : 0;
}

/* Matteson and James's q-hat, from its definition: n m / (n + m) times the
 * energy distance of the means of the pairs. */
static double qhat_by_definition(const double *x, size_t tau, size_t kappa)
{
	size_t n = tau, m = kappa - tau;
	double e = 2 * mean_distance(x, n, x + tau, m, 0) - mean_distance(x, n, x, n, 1) -
		   mean_distance(x + tau, m, x + tau, m, 1);

	return (double)(n * m) / (double)(n + m) * e;
}

/* The tabulated search against every (tau, kappa) summed out afresh. */
static void test_qhat_brute_force(void **state)
{
	uint64_t rng = 7;
	double x[14];

	(void)state;
	for (size_t n = 2; n <= 14; n++)
		for (int round = 0; round < 20; round++) {
			struct wperf_split s, best = {.qhat = -INFINITY};

			for (size_t i = 0; i < n; i++)
				x[i] = normal(&rng) + (i >= n / 2 ? round % 3 : 0);
			for (size_t tau = 1; tau < n; tau++)
				for (size_t kappa = tau + 1; kappa <= n; kappa++)
					if (qhat_by_definition(x, tau, kappa) > best.qhat)
						best = (struct wperf_split){
						    tau, kappa, qhat_by_definition(x, tau, kappa)};
			assert_int_equal(wperf_edivisive_split(x, n, &s, NULL), 0);
			assert_int_equal(s.tau, best.tau);
			assert_int_equal(s.kappa, best.kappa);
			assert_near(s.qhat, best.qhat, 1e-9 * fabs(best.qhat) + 1e-12);
		}
}

static void test_split_needs_two_values(void **state)
{
	const double one = 1;
	struct wperf_error err = {0};
	struct wperf_split s;

	(void)state;
	assert_int_equal(wperf_edivisive_split(&one, 1, &s, &err), -EINVAL);
	assert_string_equal(err.msg, "a split needs at least 2 values, not 1");
}

/* ---- synthetic histories ---- */

/* One 10% drop at point 15 of 30: that point, and no other, for each noise;
 * the means either side of it within the noise of 15 points. */
static void test_one_step(void **state)
{
	const size_t at = 15;
	const double drop = -0.10;
	double x[POINTS];

	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct wperf_changepoint *cps;
		size_t k;

		history(x, POINTS, seed, &at, &drop, 1);
		cps = changes(x, POINTS, &k);
		if (k != 1 || cps[0].index != at)
			fail_msg("seed %d: %zu change points, the first at %zu, not one at 15",
				 (int)seed, k, k ? cps[0].index : 0);
		assert_true(cps[0].p < WPERF_CHANGEPOINT_MAX_P);
		assert_near(cps[0].mean_before, LEVEL, OFF_BY(15) * LEVEL);
		assert_near(cps[0].mean_after, 0.9 * LEVEL, OFF_BY(15) * LEVEL);
		assert_near(cps[0].rel_change, drop, OFF_BY(15) * M_SQRT2);
		free(cps);
	}
}

/*
 * The same histories without their step: nothing, for 9 of the 10 noises.
 * Seed 6's 12 last points are 3.4% under its 18 first (4.6 standard errors):
 * p 1e-4, a change by the t test, which the detector reports. Over 1000
 * noises a flat history shows a change in 2 to 3% of them (the level holds
 * for one test, and the cut tested is the likeliest of some 30):
 * test_detection_rate holds that rate.
 */
static void test_flat(void **state)
{
	double x[POINTS];
	int alarms = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct wperf_changepoint *cps;
		size_t k;

		history(x, POINTS, seed, NULL, NULL, 0);
		cps = changes(x, POINTS, &k);
		if (k) {
			print_message("seed %d: a change point at %zu (p %.2g) in a flat history\n",
				      (int)seed, cps[0].index, cps[0].p);
			alarms++;
		}
		free(cps);
	}
	assert_true(alarms <= 1);
}

/* A regression at 10 and its fix at 20: both, each measured between the
 * ends and the other. */
static void test_two_steps(void **state)
{
	const size_t at[] = {10, 20};
	const double step[] = {-0.10, 1 / 0.9 - 1};
	double x[POINTS];

	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct wperf_changepoint *cps;
		size_t k;

		history(x, POINTS, seed, at, step, 2);
		cps = changes(x, POINTS, &k);
		if (k != 2 || cps[0].index != 10 || cps[1].index != 20)
			fail_msg("seed %d: %zu change points, not 10 and 20", (int)seed, k);
		assert_near(cps[0].rel_change, -0.10, OFF_BY(10) * M_SQRT2);
		assert_near(cps[1].rel_change, 1 / 0.9 - 1, OFF_BY(10) * M_SQRT2);
		assert_near(cps[0].mean_after, cps[1].mean_before, 0);
		free(cps);
	}
}

/*
 * 200 points: a step at 130 in windows of 50 and in one piece; a dip of 8
 * points at 100 (a regression fixed soon after), which the windows find
 * both ends of.
 */
static void test_long_history(void **state)
{
	const size_t at[] = {130}, dip[] = {100, 108};
	const double step[] = {-0.10}, dip_step[] = {-0.10, 1 / 0.9 - 1};
	struct wperf_changepoint_opts whole = {.window = SIZE_MAX};
	struct wperf_changepoint *cps;
	double x[200];
	size_t k;

	(void)state;
	history(x, 200, 3, at, step, 1);
	cps = changes(x, 200, &k);
	assert_int_equal(k, 1);
	assert_int_equal(cps[0].index, 130);
	free(cps);
	assert_int_equal(wperf_changepoints(x, 200, &whole, &cps, &k, NULL), 0);
	assert_int_equal(k, 1);
	assert_int_equal(cps[0].index, 130);
	free(cps);

	history(x, 200, 3, dip, dip_step, 2);
	cps = changes(x, 200, &k);
	assert_int_equal(k, 2);
	assert_int_equal(cps[0].index, 100);
	assert_int_equal(cps[1].index, 108);
	free(cps);
}

/* ---- edges ---- */

static void test_too_few_values(void **state)
{
	const double x[] = {1, 2};
	struct wperf_changepoint *cps = (void *)1;
	size_t k = 1;

	(void)state;
	for (size_t n = 0; n <= 2; n++) {
		assert_int_equal(wperf_changepoints(n ? x : NULL, n, NULL, &cps, &k, NULL), 0);
		assert_int_equal(k, 0);
		assert_null(cps);
	}
}

/* One value repeated has no change; two such levels have one, sure (p 0). */
static void test_repeated_values(void **state)
{
	double x[POINTS];
	struct wperf_changepoint *cps;
	size_t k;

	(void)state;
	for (size_t i = 0; i < POINTS; i++)
		x[i] = 0.1;
	cps = changes(x, POINTS, &k);
	assert_int_equal(k, 0);
	for (size_t i = 12; i < POINTS; i++)
		x[i] = 0.3;
	cps = changes(x, POINTS, &k);
	assert_int_equal(k, 1);
	assert_int_equal(cps[0].index, 12);
	assert_near(cps[0].p, 0, 0);
	assert_near(cps[0].rel_change, 2, 1e-12);
	free(cps);
	/* a vertex in a knot from point 12 on: 0 then 1, no relative change */
	for (size_t i = 0; i < POINTS; i++)
		x[i] = i >= 12;
	cps = changes(x, POINTS, &k);
	assert_int_equal(k, 1);
	assert_int_equal(cps[0].index, 12);
	assert_true(isnan(cps[0].rel_change));
	free(cps);
}

/*
 * A point that is not a number (a commit that measured nothing) is left
 * out, and the indices stay x's: the step's first point missing, the change
 * is at the first one measured after it.
 */
static void test_missing_values(void **state)
{
	const size_t at = 15;
	const double drop = -0.10;
	double x[POINTS];
	struct wperf_changepoint *cps;
	size_t k;

	(void)state;
	history(x, POINTS, 1, &at, &drop, 1);
	x[0] = NAN;
	x[7] = INFINITY;
	x[15] = NAN;
	x[16] = NAN;
	cps = changes(x, POINTS, &k);
	assert_int_equal(k, 1);
	assert_int_equal(cps[0].index, 17);
	assert_near(cps[0].mean_before, LEVEL, 0.02 * LEVEL);
	free(cps);
	for (size_t i = 0; i < POINTS; i++)
		x[i] = NAN;
	cps = changes(x, POINTS, &k);
	assert_int_equal(k, 0);
}

static void test_options(void **state)
{
	const size_t at = 15;
	const double drop = -0.10;
	const struct {
		struct wperf_changepoint_opts o;
		const char *msg;
	} bad[] = {
	    {{.max_p = -1}, "max_p -1: expected a level in (0, 1]"},
	    {{.max_p = 2}, "max_p 2: expected a level in (0, 1]"},
	    {{.max_p = NAN}, "max_p nan: expected a level in (0, 1]"},
	    {{.min_magnitude = -0.1}, "min_magnitude -0.1: expected a number >= 0"},
	    {{.min_magnitude = NAN}, "min_magnitude nan: expected a number >= 0"},
	    {{.window = 1}, "window 1: expected at least 2 points"},
	};
	struct wperf_changepoint_opts zero = {0}, big = {.min_magnitude = 0.2},
				      strict = {.max_p = 1e-30};
	struct wperf_changepoint *cps;
	struct wperf_error err = {0};
	double x[POINTS];
	size_t k;

	(void)state;
	history(x, POINTS, 2, &at, &drop, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(wperf_changepoints(x, POINTS, &bad[i].o, &cps, &k, &err), -EINVAL);
		assert_string_equal(err.msg, bad[i].msg);
		assert_null(cps);
	}
	/* zeros are the defaults */
	assert_int_equal(wperf_changepoints(x, POINTS, &zero, &cps, &k, NULL), 0);
	assert_int_equal(k, 1);
	free(cps);
	/* a 10% step is not above a magnitude of 20%, nor below a level of 1e-30 */
	assert_int_equal(wperf_changepoints(x, POINTS, &big, &cps, &k, NULL), 0);
	assert_int_equal(k, 0);
	assert_int_equal(wperf_changepoints(x, POINTS, &strict, &cps, &k, NULL), 0);
	assert_int_equal(k, 0);
}

/* ---- what it finds ---- */

#define RATE_SEEDS 1000
#define RATE_MAX   100 /* points */

/* A kind of history whose detection rate is measured: n points, with steps
 * at at[i] by step[i]. */
struct rate_case {
	const char *what;
	size_t n, nsteps, at[2];
	double step[2];
};

/* Of RATE_SEEDS histories of case c: in how many every step is found, at
 * its point or one from it (*near), and in how many every step is found at
 * its point and nothing else is (*exact); without steps, in how many
 * anything is found (*near). */
static void found(const struct rate_case *c, int *near, int *exact)
{
	double x[RATE_MAX];

	*near = *exact = 0;
	for (uint64_t seed = 1; seed <= RATE_SEEDS; seed++) {
		struct wperf_changepoint *cps;
		size_t k, hits = 0, spot_on = 0;

		history(x, c->n, 1000 + seed, c->at, c->step, c->nsteps);
		cps = changes(x, c->n, &k);
		for (size_t s = 0; s < c->nsteps; s++)
			for (size_t i = 0; i < k; i++) {
				hits +=
				    cps[i].index + 1 >= c->at[s] && cps[i].index <= c->at[s] + 1;
				spot_on += cps[i].index == c->at[s];
			}
		*near += c->nsteps ? hits >= c->nsteps : k > 0;
		*exact += c->nsteps && spot_on == c->nsteps && k == c->nsteps;
		free(cps);
	}
}

/*
 * The figures of docs/ci.md, printed: how often a drop of 0 to 10% at the
 * middle of 30 points with 2% noise is found, then other histories: a dip
 * (a regression fixed 10 commits later), a step 2 commits before the end,
 * 10 points, 100 points (in windows of 50). Held: a flat history of 30
 * shows a change in at most 4% of the noises (about 3%: the level holds for
 * one test, and the cut tested is the likeliest of some 30), a 5% step is
 * found in at least 85% (about 93%), a 10% step alone at its point in at
 * least 95% (about 97%), both ends of the dip in at least 95% (about 99%).
 */
static void test_detection_rate(void **state)
{
	const struct rate_case more[] = {
	    {"dip: -10% from 10 to 20", POINTS, 2, {10, 20}, {-0.10, 1 / 0.9 - 1}},
	    {"-5% at 28 (2 before the end)", POINTS, 1, {28}, {-0.05}},
	    {"-10% at 28 (2 before the end)", POINTS, 1, {28}, {-0.10}},
	    {"10 points, -5% at 5", 10, 1, {5}, {-0.05}},
	    {"10 points, -10% at 5", 10, 1, {5}, {-0.10}},
	    {"100 points, flat", 100, 0, {0}, {0}},
	    {"100 points, -10% at 50", 100, 1, {50}, {-0.10}},
	};
	char header[32];
	int near, exact;

	(void)state;
	snprintf(header, sizeof(header), "%d histories, %.0f%% noise", RATE_SEEDS, 100 * NOISE);
	print_message("%-30s found (+-1)  alone at its point\n", header);
	for (int percent = 0; percent <= 10; percent++) {
		struct rate_case c = {NULL, POINTS, percent > 0, {15}, {-percent / 100.0}};
		char what[32] = "30 points, flat";

		if (percent)
			snprintf(what, sizeof(what), "30 points, -%d%% at 15", percent);
		found(&c, &near, &exact);
		print_message("%-30s %5.1f%%       %5.1f%%\n", what, 100.0 * near / RATE_SEEDS,
			      100.0 * exact / RATE_SEEDS);
		if (percent == 0)
			assert_true(near <= 0.04 * RATE_SEEDS);
		if (percent == 5)
			assert_true(near >= 0.85 * RATE_SEEDS);
		if (percent == 10)
			assert_true(exact >= 0.95 * RATE_SEEDS);
	}
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
		found(&more[i], &near, &exact);
		print_message("%-30s %5.1f%%       %5.1f%%\n", more[i].what,
			      100.0 * near / RATE_SEEDS, 100.0 * exact / RATE_SEEDS);
		if (i == 0)
			assert_true(near >= 0.95 * RATE_SEEDS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_qhat_by_hand),
	    cmocka_unit_test(test_qhat_brute_force),
	    cmocka_unit_test(test_split_needs_two_values),
	    cmocka_unit_test(test_one_step),
	    cmocka_unit_test(test_flat),
	    cmocka_unit_test(test_two_steps),
	    cmocka_unit_test(test_long_history),
	    cmocka_unit_test(test_too_few_values),
	    cmocka_unit_test(test_repeated_values),
	    cmocka_unit_test(test_missing_values),
	    cmocka_unit_test(test_options),
	    cmocka_unit_test(test_detection_rate),
	};

	return cmocka_run_group_tests_name("change points", tests, NULL, NULL);
}
