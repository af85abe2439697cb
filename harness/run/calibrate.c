/* SPDX-License-Identifier: MIT */
/*
 * The calibration loop: a walk through a shuffled table, each step a load
 * whose address depends on integer work on the step before, so that the time
 * per step is the latency of the load plus that of the arithmetic, one after
 * the other, and neither the compiler nor the CPU can overlap steps.
 *
 * The calibrations stored in baselines were measured with this loop as the
 * Makefile compiles it (-O2): any change to the table, the steps, the
 * arithmetic or the flags (sanitizers) makes them incomparable.
 *
 * The table is 256 KiB: past L1 (32 KiB a core on the CI's VMs), in L2 (1 MiB
 * a core there). Tables of L3 size (4 and 16 MiB) were tried on those VMs: one
 * run to the next differed by up to 3 times, because the L3 is shared with
 * the host's other guests, so they tell nothing of the machine.
 *
 * Repeatability measured on a CI VM (2 vCPUs, AMD EPYC, 6.18.44-fc-v669):
 * see WPERF_ENV_CALIBRATION_TOLERANCE in core/gate/env.h.
 */
#include "harness/run/calibrate.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define TABLE_WORDS (256u * 1024 / sizeof(uint32_t)) /* a power of 2 */
#define STEPS	    (2u * 1024 * 1024)		     /* about 9 ms a repetition */
#define REPEATS	    20

/* Where the result goes, so that the compiler keeps the loop. */
static volatile uint64_t calibrate_sink;

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One cycle through every entry (Sattolo's shuffle), from a fixed seed: the
 * same table on every machine. */
static void make_table(uint32_t *next)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (uint32_t i = 0; i < TABLE_WORDS; i++)
		next[i] = i;
	for (uint32_t i = TABLE_WORDS - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(xorshift(&seed) % i), t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
}

static int64_t now_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_MONOTONIC, &t) < 0)
		return -1;
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Nanoseconds per step of one walk; < 0 without a clock. */
static double walk(const uint32_t *next)
{
	int64_t start = now_ns(), end;
	uint32_t i = 0;
	uint64_t h = 0;

	/* The top bits of the hash move the walk off the cycle: the next load
	 * waits for the multiplication. */
	for (uint32_t s = 0; s < STEPS; s++) {
		i = (next[i] + (uint32_t)(h >> 60)) & (TABLE_WORDS - 1);
		h = (h + i) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 31;
	}
	end = now_ns();
	calibrate_sink = h;
	if (start < 0 || end < 0)
		return -1;
	return (double)(end - start) / STEPS;
}

double calibrate_machine(void)
{
	uint32_t *next = malloc(TABLE_WORDS * sizeof(*next));
	double best = 0;

	if (!next)
		return 0;
	make_table(next);
	walk(next); /* warms the caches and the clock speed up; not counted */
	/* The fastest: a repetition can only be slowed down (an interrupt, a
	 * neighbour), never sped up. Many short ones rather than a few long
	 * ones: on the CI's VMs, 5 of 18 ms let one calibration in ten come out
	 * 15-25% slow, 20 of 9 ms none in 90. The thread stays in the CPU set
	 * it has: pinned to the CPU it started on, it was twice as slow when a
	 * busy neighbour ran there too. */
	for (int r = 0; r < REPEATS; r++) {
		double t = walk(next);

		if (t < 0) {
			best = 0;
			break;
		}
		if (r == 0 || t < best)
			best = t;
	}
	free(next);
	return best;
}
