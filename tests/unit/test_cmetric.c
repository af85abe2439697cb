/* SPDX-License-Identifier: MIT */
/*
 * GAPP's CMetric (core/analysis/cmetric.h) through the whole analysis, on schedules
 * worked out by hand from GAPP's definition (section 2.1: each switching
 * interval T_i with n_i of the application's threads active adds T_i / n_i to
 * each of them that runs; section 4.2: a timeslice is critical when its
 * threads_av, the active threads averaged over its time, is at most N_min,
 * half the application's threads). GAPP's own Figure 1 is a picture with no
 * numbers, so the schedules are made so that every interval's count differs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/analysis/analysis.h"
#include "tests/lib/trace_builder.h"

#define US 1000ull

static struct wperf_analysis *analyze(struct trace_builder *b, const char *target,
				      double min_parallelism, struct wperf_trace **t)
{
	struct wperf_analysis_opts o = {.target = target, .min_parallelism = min_parallelism};
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};

	*t = tb_open(b);
	if (wperf_analyze(*t, &o, &a, &err) < 0)
		fail_msg("%s", err.msg);
	return a;
}

/* The CMetric of thread tid, ns. */
static uint64_t cmetric(const struct wperf_analysis *a, uint32_t tid)
{
	for (uint32_t e = 0; e < a->timeline->nentities; e++)
		if (a->timeline->entities[e].kind == WPERF_ENTITY_THREAD &&
		    a->timeline->entities[e].tid == tid)
			return a->cmetric.per_entity[e];
	fail_msg("no thread %u", tid);
	return 0;
}

/* The only critical site is thread tid's, at kernel stack kstack, weighing w ns. */
static void one_critical_site(const struct wperf_analysis *a, uint32_t tid, int32_t kstack,
			      uint64_t w)
{
	const struct wperf_callsite *s = a->cmetric.critical.sites;

	assert_int_equal(a->cmetric.critical.n, 1);
	assert_int_equal(a->timeline->entities[s->from].tid, tid);
	assert_int_equal(s->kstack, kstack);
	assert_int_equal(s->weight, w);
}

/*
 * Four threads of "gapp", and "process_api", another process, busy all along:
 *
 *   us:     0      600     1200    1800              4800      6000
 *   W1      run ------------------------------------ | blocks (stack 11)
 *   W2      run -------------- | blocks (22)
 *   W3      run --- | blocks (33)
 *   W4      runnable | run ------------ | blocks (44)
 *   n_i     4        3       2       1                 0
 *
 * W1's CMetric: 600 / 4 + 600 / 3 + 600 / 2 + 3000 / 1 = 3650 us; W2's 150 +
 * 200 = 350; W3's 150; W4's, runnable (active, but not running) then running,
 * 200 + 300 = 500. n = 4, N_min = 2. W1's threads_av is (4 + 3 + 2) 600 +
 * 3000 over 4800 = 1.75: critical, where it blocked. W2's is 3.5, W3's 4,
 * W4's 2.5: not.
 */
#define GAPP	    300
#define W1	    301
#define W2	    302
#define W3	    303
#define W4	    304
#define PROCESS_API 400

static void build_gapp(struct trace_builder *b)
{
	tb_init(b, 0, 6000 * US);
	tb_cpus(b, 8, NULL);
	tb_thread(b, GAPP, GAPP, "gapp");
	tb_thread(b, W1, GAPP, "W1");
	tb_thread(b, W2, GAPP, "W2");
	tb_thread(b, W3, GAPP, "W3");
	tb_thread(b, W4, GAPP, "W4");
	tb_thread(b, PROCESS_API, PROCESS_API, "process_api");
	tb_switch(b, 600 * US, 2, W3, W4, 0, 33, -1);
	tb_switch(b, 1200 * US, 1, W2, 0, 0, 22, -1);
	tb_switch(b, 1800 * US, 2, W4, 0, 0, 44, -1);
	tb_switch(b, 4800 * US, 0, W1, 0, 0, 11, -1);
	tb_switch(b, 6000 * US, 7, PROCESS_API, 0, 1, -1, -1); /* preempted at the end */
}

static void test_application_threads(void **state)
{
	static const char *const targets[] = {"gapp", "300"}; /* by name, by pid */
	struct trace_builder b;
	struct wperf_trace *t;

	(void)state;
	build_gapp(&b);
	for (size_t i = 0; i < 2; i++) {
		struct wperf_analysis *a = analyze(&b, targets[i], 0, &t);

		assert_int_equal(a->cmetric.threads, 4);
		assert_float_equal(a->cmetric.min_parallelism, 2, 0);
		assert_int_equal(cmetric(a, W1), 3650 * US);
		assert_int_equal(cmetric(a, W2), 350 * US);
		assert_int_equal(cmetric(a, W3), 150 * US);
		assert_int_equal(cmetric(a, W4), 500 * US);
		assert_int_equal(cmetric(a, PROCESS_API), 0);
		one_critical_site(a, W1, 11, 3650 * US);
		wperf_analysis_free(a);
		wperf_trace_free(t);
	}
	tb_release(&b);
}

/*
 * The same schedule over every thread of the machine: process_api is active
 * in every interval, n_i is 5, 4, 3, 2, then 1 for [4800, 6000), where it runs
 * alone. It ranks first (3170 us, against W1's 120 + 150 + 200 + 1500 = 1970):
 * what the application's own CMetric must not do. n = 5, N_min = 2.5: W1's
 * threads_av is 2.75, nothing is critical.
 */
static void test_whole_machine(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;

	(void)state;
	build_gapp(&b);
	a = analyze(&b, NULL, 0, &t);
	assert_int_equal(a->cmetric.threads, 5);
	assert_int_equal(cmetric(a, PROCESS_API), (120 + 150 + 200 + 1500 + 1200) * US);
	assert_int_equal(cmetric(a, W1), (120 + 150 + 200 + 1500) * US);
	assert_int_equal(cmetric(a, W2), (120 + 150) * US);
	assert_int_equal(cmetric(a, W3), 120 * US);
	assert_int_equal(cmetric(a, W4), (150 + 200) * US);
	assert_int_equal(a->cmetric.critical.n, 0);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

/*
 * threads_av is GAPP's time-weighted mean of the active threads (its
 * GLOBAL_WT_TC), not the slice's length over its CMetric (a harmonic mean,
 * 4800 / 3650 = 1.32 for W1). With N_min 1.5, W1's 1.75 is not critical; with
 * 1.75 it is: at most N_min, as GAPP's implementation compares.
 */
static void test_threads_av(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;

	(void)state;
	build_gapp(&b);
	a = analyze(&b, "gapp", 1.5, &t);
	assert_float_equal(a->cmetric.min_parallelism, 1.5, 0);
	assert_int_equal(a->cmetric.critical.n, 0);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	a = analyze(&b, "gapp", 1.75, &t);
	one_critical_site(a, W1, 11, 3650 * US);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

/*
 * An annotated spin is time on a CPU: active, and running, to GAPP. S1 spins
 * over [1200, 2400) for a lock S2 releases at 2300:
 *
 *   us:     0      600     1200            2400            3600     4800
 *   S1      run ------------ spin ---------- run ---------- | blocks (66)
 *   S2      run ---------------------------- | blocks (55)
 *   S3      run --- | blocks (77)
 *   n_i     3        2       2               1               0
 *
 * S1: 200 + 300 + 600 (the spin) + 1200 = 2300 us; S2: 200 + 300 + 600 =
 * 1100; S3: 200. S1's time on the CPU, spin included, is one timeslice:
 * threads_av (3 600 + 2 1800 + 1200) / 3600 = 1.83, critical with N_min 2 for
 * all its 2300 us where it blocked (cut at the spin, its last part alone would
 * have been). S2's 2.25 is not.
 */
#define SPIN 500
#define S1   501
#define S2   502
#define S3   503
#define LOCK 0x1000

static void test_spin_is_running(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;

	(void)state;
	tb_init(&b, 0, 4800 * US);
	tb_thread(&b, SPIN, SPIN, "spin");
	tb_thread(&b, S1, SPIN, "S1");
	tb_thread(&b, S2, SPIN, "S2");
	tb_thread(&b, S3, SPIN, "S3");
	tb_switch(&b, 600 * US, 2, S3, 0, 0, 77, -1);
	tb_usdt(&b, WPERF_EV_SPIN_BEFORE, 1200 * US, 0, S1, LOCK);
	tb_usdt(&b, WPERF_EV_SPIN_RELEASE, 2300 * US, 1, S2, LOCK);
	tb_usdt(&b, WPERF_EV_SPIN_AFTER, 2400 * US, 0, S1, LOCK);
	tb_switch(&b, 2400 * US, 1, S2, 0, 0, 55, -1);
	tb_switch(&b, 3600 * US, 0, S1, 0, 0, 66, -1);
	a = analyze(&b, "spin", 2, &t);
	assert_int_equal(a->timeline->spins_converted, 1);
	assert_int_equal(cmetric(a, S1), 2300 * US);
	assert_int_equal(cmetric(a, S2), 1100 * US);
	assert_int_equal(cmetric(a, S3), 200 * US);
	one_critical_site(a, S1, 66, 2300 * US);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

/*
 * GAPP's n counts the application's threads as they are created and exit: a
 * pool that replaces its worker (one dies at 2000 as the next is born) has 2,
 * not 4. M runs all along and forks a worker at 1000, 2000 and 3000, each
 * running until the next: M's CMetric is 1000 + 3000 / 2 = 2500 us, each
 * worker's 500. N_min = 1 (n / 2, at least 1): M's threads_av, 1.75, is not
 * critical (with n = 4 it would have been).
 */
#define POOL 700

static void test_threads_alive_at_once(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;

	(void)state;
	tb_init(&b, 0, 5000 * US);
	tb_thread(&b, POOL, POOL, "pool");
	for (uint32_t k = 1; k <= 3; k++) {
		struct wperf_event *f = tb_add(&b, WPERF_EV_FORK, k * 1000 * US, 0, POOL);

		tb_tgid(&b, POOL + k, POOL);
		f->fork.child_tid = POOL + k;
		f->fork.child_tgid = POOL;
		strcpy(f->fork.comm, "worker");
		tb_switch(&b, k * 1000 * US, 1, 0, POOL + k, 1, -1, -1);
		tb_add(&b, WPERF_EV_EXIT, (k + 1) * 1000 * US, 1, POOL + k);
	}
	tb_switch(&b, 4000 * US, 0, POOL, 0, 0, 88, -1);
	a = analyze(&b, "pool", 0, &t);
	assert_int_equal(a->cmetric.threads, 2);
	assert_float_equal(a->cmetric.min_parallelism, 1, 0);
	assert_int_equal(cmetric(a, POOL), 2500 * US);
	for (uint32_t k = 1; k <= 3; k++)
		assert_int_equal(cmetric(a, POOL + k), 500 * US);
	assert_int_equal(a->cmetric.critical.n, 0);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_application_threads),
	    cmocka_unit_test(test_whole_machine),
	    cmocka_unit_test(test_threads_av),
	    cmocka_unit_test(test_spin_is_running),
	    cmocka_unit_test(test_threads_alive_at_once),
	};

	return cmocka_run_group_tests_name("cmetric", tests, NULL, NULL);
}
