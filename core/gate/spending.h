/* SPDX-License-Identifier: MIT */
/*
 * Alpha spending: how a check that looks at its runs several times, adding
 * runs while a change is undecided, keeps its chance of a false failure over
 * all the looks under alpha.
 *
 * Each look at a share t of the planned runs (0 < t <= 1) may spend what the
 * spending function has reached at t less what the earlier looks spent; the
 * parts add up to alpha at the last look, and a false failure at any look is
 * within their sum. The function is Lan and DeMets' O'Brien-Fleming-like one
 * (one-sided): alpha(t) = 2 - 2 Phi(z / sqrt(t)), z = Phi^-1(1 - alpha / 2).
 * It spends almost nothing on the first looks, where few runs can show only a
 * large change anyway, and keeps most of alpha for the last: with looks at
 * 5, 8 and 11 runs and alpha 0.05, 0.0036, 0.0179 and 0.0285, where equal
 * parts would give each look 0.0167.
 */
#ifndef WPERF_SPENDING_H
#define WPERF_SPENDING_H

/* What the spending function has reached at share t of the runs: 0 at 0,
 * alpha at 1 (t is clamped to [0, 1]). */
double wperf_spent_by(double alpha, double t);

/* The level of the look at runs_now runs of runs_max, after a look at
 * runs_before (0: none before it): what it may spend. */
double wperf_look_level(double alpha, unsigned runs_before, unsigned runs_now, unsigned runs_max);

#endif /* WPERF_SPENDING_H */
