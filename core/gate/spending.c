/* SPDX-License-Identifier: MIT */
/*
 * Alpha spending over a check's looks (see spending.h).
 */
#include <math.h>

#include "core/gate/spending.h"
#include "core/gate/stats.h"

double wperf_spent_by(double alpha, double t)
{
	double z = wperf_normal_quantile(1 - alpha / 2);

	if (t <= 0)
		return 0;
	if (t >= 1)
		return alpha;
	/* 2 - 2 Phi(x) = erfc(x / sqrt(2)) */
	return erfc(z / sqrt(t) / M_SQRT2);
}

double wperf_look_level(double alpha, unsigned runs_before, unsigned runs_now, unsigned runs_max)
{
	double max = runs_max ? runs_max : 1;

	return wperf_spent_by(alpha, runs_now / max) - wperf_spent_by(alpha, runs_before / max);
}
