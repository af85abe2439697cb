/* SPDX-License-Identifier: MIT */
/*
 * What the load generators of the real-workload scenarios (scenarios/NAME/X.c)
 * share: fatal errors, option numbers, the clock, a fast random generator, a
 * latency histogram and the progress while the load runs. Header-only: each load generator is one
 * program built from one file (see the Makefile), and defines LOADGEN_NAME, its name in messages,
 * before including this.
 */
#ifndef WPERF_LOADGEN_H
#define WPERF_LOADGEN_H

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef LOADGEN_NAME
#error "define LOADGEN_NAME, the program's name in messages, before including loadgen.h"
#endif

#define NSEC_PER_SEC  1000000000LL
#define NSEC_PER_MSEC 1000000LL
#define NSEC_PER_USEC 1000LL

/* ---- errors ---- */

static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* Prints "NAME: message" on stderr and exits with status (2: usage, 1: the rest). */
static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, LOADGEN_NAME ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die(1, "out of memory");
	return p;
}

/* ---- options ---- */

static long opt_long(const char *name, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		die(2, "%s: expected an integer from %ld to %ld, got \"%s\"", name, min, max, arg);
	return v;
}

static double opt_double(const char *name, const char *arg, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= min && v <= max))
		die(2, "%s: expected a number from %g to %g, got \"%s\"", name, min, max, arg);
	return v;
}

/* ---- time and randomness ---- */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* xorshift64*: fast, and good enough to pick keys and operations; one state
 * per thread. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* A uniform double in [0, 1). */
static inline double rng_unit(uint64_t *state)
{
	return (double)(rng_next(state) >> 11) * 0x1.0p-53;
}

/*
 * ---- latency histogram ----
 * Log-linear buckets over microseconds: values under 2^HIST_SUB_BITS are
 * exact, larger ones fall into 2^(HIST_SUB_BITS - 1) buckets per power of two,
 * so a percentile is off by less than 1/64 of its value.
 */
#define HIST_SUB_BITS 7
#define HIST_HALF     (1u << (HIST_SUB_BITS - 1)) /* 64 buckets per power of two */
#define HIST_BUCKETS  ((64 - HIST_SUB_BITS + 2) * HIST_HALF)

static inline unsigned hist_bucket(uint64_t us)
{
	int msb, shift;

	if (us < (1u << HIST_SUB_BITS))
		return (unsigned)us;
	msb = 63 - __builtin_clzll(us);
	shift = msb - (HIST_SUB_BITS - 1); /* us >> shift is in [HIST_HALF, 2 * HIST_HALF) */
	return (unsigned)shift * HIST_HALF + (unsigned)(us >> shift);
}

/* The middle of a bucket's range of values, in microseconds. */
static uint64_t hist_value(unsigned bucket)
{
	unsigned shift;

	if (bucket < (1u << HIST_SUB_BITS))
		return bucket;
	shift = bucket / HIST_HALF - 1;
	return ((uint64_t)(bucket - shift * HIST_HALF) << shift) + ((1ull << shift) >> 1);
}

/* Counts a latency of us microseconds into hist and the largest, *max_us. */
static inline void hist_add(uint64_t *hist, uint64_t *max_us, uint64_t us)
{
	hist[hist_bucket(us)]++;
	if (us > *max_us)
		*max_us = us;
}

/* The value at or under which a fraction q of the count samples of hist lie. */
static uint64_t hist_percentile(const uint64_t *hist, uint64_t count, double q)
{
	uint64_t rank = (uint64_t)ceil(q * (double)count), seen = 0;

	if (rank == 0)
		rank = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank)
			return hist_value(b);
	}
	return 0;
}

/* ---- while the load runs ---- */

/* The load's window: started, measured from (the warm-up's end), ended. */
struct loadgen_window {
	int64_t start_ns, measure_ns, end_ns;
};

/*
 * Main while the load runs: the progress once a second on stderr ("NAME: 2.0
 * s: 1234 UNIT/s"), total() being the work done so far, until the window's
 * end, *stop (a thread's error: seen within 100 ms) or SIGINT/SIGTERM
 * (blocked in every thread, taken here). Returns the signal, or 0.
 */
static int loadgen_wait(const struct loadgen_window *w, atomic_bool *stop, uint64_t (*total)(void),
			const char *unit)
    __attribute__((unused)); /* a load that stops by its own clock needs none */

static int loadgen_wait(const struct loadgen_window *w, atomic_bool *stop, uint64_t (*total)(void),
			const char *unit)
{
	sigset_t sigs;
	uint64_t last = 0;
	int64_t last_ns = w->start_ns, next = w->start_ns + NSEC_PER_SEC;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	for (;;) {
		int64_t now = now_ns(), until = next < w->end_ns ? next : w->end_ns;

		if (now >= w->end_ns || atomic_load(stop))
			return 0;
		if (until > now) {
			int64_t wait =
			    until - now < 100 * NSEC_PER_MSEC ? until - now : 100 * NSEC_PER_MSEC;
			struct timespec ts = {.tv_sec = 0, .tv_nsec = wait};
			int sig = sigtimedwait(&sigs, NULL, &ts);

			if (sig > 0)
				return sig;
		}
		now = now_ns();
		if (now >= next) {
			uint64_t done = total();

			fprintf(stderr, "%s: %5.1f s: %.0f %s/s%s\n", LOADGEN_NAME,
				(double)(now - w->start_ns) / NSEC_PER_SEC,
				(double)(done - last) * NSEC_PER_SEC / (double)(now - last_ns),
				unit, now < w->measure_ns ? " (warm-up)" : "");
			last = done;
			last_ns = now;
			next += NSEC_PER_SEC;
		}
	}
}

#endif /* WPERF_LOADGEN_H */
