/* SPDX-License-Identifier: MIT */
#include "core/gate/env.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Writes the sentence into why; returns 0, not the same machine. */
static int differ(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int differ(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!size)
		return 0;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return 0;
}

/* The fields are fixed-size arrays: at most their size is read, so that a
 * full one without its NUL stays inside. */
#define FIELD(e, f) (int)sizeof((e)->f), (e)->f

static int known(double calibration)
{
	return isfinite(calibration) && calibration > 0;
}

int wperf_env_same_machine(const struct wperf_env *now, const struct wperf_env *then, char *why,
			   size_t size)
{
	double ratio;

	if (!then->cpu_model[0])
		return differ(why, size, "the baseline does not name its CPU model");
	if (!now->cpu_model[0])
		return differ(why, size, "this machine's CPU model is unknown");
	if (strncmp(now->cpu_model, then->cpu_model, sizeof(now->cpu_model)))
		return differ(why, size, "the baseline's CPU is %.*s, this one %.*s",
			      FIELD(then, cpu_model), FIELD(now, cpu_model));
	if (!then->cpus)
		return differ(why, size, "the baseline does not say how many CPUs it had");
	if (!now->cpus)
		return differ(why, size, "this machine's CPU count is unknown");
	if (now->cpus != then->cpus)
		return differ(why, size, "the baseline had %u CPUs, this machine has %u",
			      then->cpus, now->cpus);
	if (!then->kernel[0])
		return differ(why, size, "the baseline does not name its kernel");
	if (!now->kernel[0])
		return differ(why, size, "this machine's kernel is unknown");
	if (strncmp(now->kernel, then->kernel, sizeof(now->kernel)))
		return differ(why, size, "the baseline's kernel is %.*s, this one %.*s",
			      FIELD(then, kernel), FIELD(now, kernel));
	if (!known(then->calibration))
		return differ(why, size,
			      "the baseline has no calibration (made before fingerprints)");
	if (!known(now->calibration))
		return differ(why, size,
			      "this machine has no calibration (its loop could not be "
			      "measured)");
	/* Slower to faster, so that the tolerance is the same both ways. */
	ratio = now->calibration > then->calibration ? now->calibration / then->calibration
						     : then->calibration / now->calibration;
	if (ratio - 1 > WPERF_ENV_CALIBRATION_TOLERANCE)
		return differ(why, size,
			      "this machine runs the calibration loop %.1f%% %s than the "
			      "baseline's",
			      100 * (ratio - 1),
			      now->calibration > then->calibration ? "slower" : "faster");
	if (size)
		why[0] = '\0';
	return 1;
}
