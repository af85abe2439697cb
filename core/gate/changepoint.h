/* SPDX-License-Identifier: MIT */
/*
 * Change points: where the level of a series of measurements taken one after
 * another (a scenario's throughput at each commit that changed its baseline,
 * an edge's share, whether a vertex was in a knot) moved, and how sure that is.
 *
 * The method is E-Divisive means (Matteson and James, "A Nonparametric
 * Approach for Multiple Change Point Analysis of Multivariate Data", JASA
 * 2014) in the deterministic form of Hunter (Fleming et al., ICPE 2023), now
 * Apache Otava, which tests each split with Student's t instead of random
 * permutations, so that the same series always gives the same answer.
 *
 * A series is cut where the energy distance between what comes before and
 * what comes after is largest (q-hat, alpha = 1), then the pieces likewise,
 * as long as Student's t test of the two sides q-hat compared says the cut
 * is real, in windows of WPERF_CHANGEPOINT_WINDOW points that overlap by
 * half. The cuts are then pruned, the least sure first: each is tested
 * again between its neighbours, and one whose p is not below max_p, or whose
 * relative change is not above min_magnitude, goes, until every one left
 * passes both. The defaults are Otava's; where this differs from Otava, and
 * why: changepoint.c.
 *
 * What it finds at 30 points with 2% noise, and what it cannot: docs/ci.md.
 */
#ifndef WPERF_CHANGEPOINT_H
#define WPERF_CHANGEPOINT_H

#include <stddef.h>

#include "core/util/error.h"

/* Otava's defaults: a change point's p must be below 0.001; windows of 50 points. */
#define WPERF_CHANGEPOINT_MAX_P	 0.001
#define WPERF_CHANGEPOINT_WINDOW 50

/* A zeroed struct (or NULL) asks for the defaults. */
struct wperf_changepoint_opts {
	double max_p;	      /* p must be below it, in (0, 1]; 0: WPERF_CHANGEPOINT_MAX_P */
	double min_magnitude; /* the relative change must be above it (>= 0; Otava's magnitude:
				 the larger of |after / before - 1| and |before / after - 1|) */
	size_t window;	      /* points per window, >= 2; 0: WPERF_CHANGEPOINT_WINDOW;
				 SIZE_MAX: the whole series at once */
};

/* A change point, tested between its neighbours (or the series' ends). */
struct wperf_changepoint {
	size_t index;	    /* the first point after the change (an index into x) */
	double mean_before; /* the mean of the points from the previous change point to it */
	double mean_after;  /* ... from it to the next change point */
	double rel_change;  /* mean_after / mean_before - 1; NaN when mean_before is 0 */
	double p;	    /* two-sided, Student's t test of those two segments */
};

/*
 * The change points of x[0..n), in the order of their index, into *out (n of
 * them in *nout; free *out, NULL when there are none). Values that are not
 * finite (a commit that measured nothing) are left out: the series is the
 * others, and an index still points into x. Fewer than 3 values have no
 * change point that a t test could find.
 * Returns 0, -EINVAL for options out of range (err says which), -ENOMEM.
 */
int wperf_changepoints(const double *x, size_t n, const struct wperf_changepoint_opts *o,
		       struct wperf_changepoint **out, size_t *nout, struct wperf_error *err);

/* A split of E-Divisive: x[0..tau) against x[tau..kappa), and its q-hat. */
struct wperf_split {
	size_t tau, kappa;
	double qhat;
};

/*
 * E-Divisive's split of x[0..n): the tau (0 < tau < n) and kappa (tau <
 * kappa <= n) that maximise q-hat of X = x[0..tau) against Y = x[tau..kappa),
 * with nx values in X, ny in Y and |.| the distance:
 *
 *   q-hat = nx ny / (nx + ny) * ( 2 / (nx ny) sum |X_i - Y_j|
 *                                 - 1 / C(nx, 2) sum_{i<k} |X_i - X_k|
 *                                 - 1 / C(ny, 2) sum_{j<k} |Y_j - Y_k| )
 *
 * (a term without a pair is 0), into *best: the first maximum, by tau then
 * kappa. x's values must be finite. O(n^2) time and memory.
 * Returns 0, -EINVAL when n < 2, -ENOMEM.
 */
int wperf_edivisive_split(const double *x, size_t n, struct wperf_split *best,
			  struct wperf_error *err);

#endif /* WPERF_CHANGEPOINT_H */
