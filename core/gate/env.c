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

/* Whether text fields now and then agree: a CPU model or a kernel, what the
 * messages call it (noun where they quote the baseline's). They are fixed-size
 * arrays of n bytes: at most n are read, so that a full one without its NUL
 * stays inside. 1, or 0 and why. */
static int same_text(const char *now, const char *then, size_t n, const char *what,
		     const char *noun, char *why, size_t size)
{
	if (!then[0])
		return differ(why, size, "the baseline does not name its %s", what);
	if (!now[0])
		return differ(why, size, "this machine's %s is unknown", what);
	if (strncmp(now, then, n))
		return differ(why, size, "the baseline's %s is %.*s, this one %.*s", noun, (int)n,
			      then, (int)n, now);
	return 1;
}

static int known(double calibration)
{
	return isfinite(calibration) && calibration > 0;
}

int wperf_env_same_machine(const struct wperf_env *now, const struct wperf_env *then, char *why,
			   size_t size)
{
	double ratio;

	if (!same_text(now->cpu_model, then->cpu_model, sizeof(now->cpu_model), "CPU model", "CPU",
		       why, size))
		return 0;
	if (!then->cpus)
		return differ(why, size, "the baseline does not say how many CPUs it had");
	if (!now->cpus)
		return differ(why, size, "this machine's CPU count is unknown");
	if (now->cpus != then->cpus)
		return differ(why, size, "the baseline had %u CPUs, this machine has %u",
			      then->cpus, now->cpus);
	if (!same_text(now->kernel, then->kernel, sizeof(now->kernel), "kernel", "kernel", why,
		       size))
		return 0;
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
