/* SPDX-License-Identifier: MIT */
/*
 * The machine that runs were made on, and its fingerprint: whether two sets of
 * numbers (throughputs, edge shares) come from the same machine and may be
 * compared. Numbers from another machine of the same kind (another host,
 * slower that day, another kernel build) are not: only the structure is.
 *
 * The fingerprint is the CPU model, the CPU count, the kernel release (uname
 * -r, which names the build) and the calibration: the speed of a fixed loop
 * of integer work and loads from L2 (harness/run/calibrate.h), which must match
 * within WPERF_ENV_CALIBRATION_TOLERANCE.
 */
#ifndef WPERF_ENV_H
#define WPERF_ENV_H

#include <stddef.h>
#include <stdint.h>

/*
 * How far two calibrations of one machine may be apart, as the ratio of the
 * slower to the faster, minus 1: above what one machine spreads, quiet or
 * busy (3.3% measured, docs/scenarios.md), and no more than the gate's
 * default throughput tolerance.
 */
#define WPERF_ENV_CALIBRATION_TOLERANCE 0.05

/* The machine the runs were made on; empty strings and 0 mean unknown. */
struct wperf_env {
	char kernel[128]; /* uname -r */
	uint32_t cpus;
	char tool[64];	     /* "wperf-bench 0.1.0" */
	char cpu_model[128]; /* "model name" of /proc/cpuinfo; empty: unknown */
	double calibration;  /* ns a step of the calibration loop; 0: unknown */
};

/*
 * Whether now and then (a baseline's) come from the same machine: the same
 * CPU model, CPU count and kernel release, and calibrations within
 * WPERF_ENV_CALIBRATION_TOLERANCE. A field unknown on either side is not the
 * same: a number that cannot be vouched for is not compared. The tool is not
 * part of the fingerprint.
 *
 * 1, with why (size bytes, may be NULL when size is 0) empty; or 0, with why a
 * sentence for people on the first difference, which calls now "this machine"
 * and then "the baseline": "the baseline's CPU is X, this one Y", "this
 * machine runs the calibration loop 9.0% slower than the baseline's".
 */
int wperf_env_same_machine(const struct wperf_env *now, const struct wperf_env *then, char *why,
			   size_t size);

#endif /* WPERF_ENV_H */
