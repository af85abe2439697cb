/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of a check's differential flame graph (harness/gate/check_flame.c)
 * on results folders written by the test: the stacks that grew, per
 * operation, in order; a neighbour's waits left out; per second of window
 * when a side measures no throughput; a run without its stacks an error.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/gate/check_flame.h"
#include "harness/run/analyze_run.h"

#define NEIGHBOUR "kworker/0:1->timer;worker_thread 99999\n"

/* A results folder dir with runs whose throughputs (ops/s) are given, each a
 * window of one second, the waits B->disk and, with d, B->D, and each run's
 * folded stacks folded (with a neighbour's line the runs do not keep). */
static void side(struct results *r, const char *dir, const double *throughput, size_t n, int d,
		 const char *folded)
{
	char path[PATH_MAX];

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	for (size_t i = 0; i < n; i++) {
		struct wperf_run run;
		FILE *f;

		wperf_run_init(&run);
		run.throughput = throughput[i];
		run.window_ns = 1000000000;
		assert_int_equal(wperf_run_add_edge(&run, "app/B", "disk:8:0", 0.5), 0);
		if (d)
			assert_int_equal(wperf_run_add_edge(&run, "app/B", "app/D", 0.3), 0);
		assert_int_equal(wperf_runset_add(&r->runs, &run), 0);
		snprintf(path, sizeof(path), "mkdir -p %s/runs/%zu", dir, i + 1);
		assert_int_equal(system(path), 0);
		snprintf(path, sizeof(path), "%s/runs/%zu/" ANALYZE_RUN_FOLDED, dir, i + 1);
		assert_non_null(f = fopen(path, "w"));
		fprintf(f, "%s" NEIGHBOUR, folded);
		fclose(f);
	}
}

struct fixture {
	char dir[64];
	struct results base, head;
	char **growing;
	size_t n;
};

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));

	snprintf(x->dir, sizeof(x->dir), "/tmp/wperf-check-flame-XXXXXX");
	if (!mkdtemp(x->dir))
		return -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	char cmd[128];

	for (size_t i = 0; i < x->n; i++)
		free(x->growing[i]);
	free(x->growing);
	results_release(&x->base);
	results_release(&x->head);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
	system(cmd);
	free(x);
	return 0;
}

/* The base: 2 runs of 100 ops, B writing 1000 µs each; the head: 2 runs of
 * 50 ops, the same writes, and B waiting 2000 µs for D in each. Per
 * operation: B->disk 10 -> 20 µs, B->D 0 -> 40 µs. */
static void test_grew_per_operation(void **state)
{
	struct fixture *x = *state;
	const double base_ops[] = {100, 100}, head_ops[] = {50, 50};
	struct wperf_error err = {0};
	char dir[2][PATH_MAX], svg[PATH_MAX];
	struct stat st;

	snprintf(dir[0], sizeof(dir[0]), "%s/base", x->dir);
	snprintf(dir[1], sizeof(dir[1]), "%s/head", x->dir);
	side(&x->base, dir[0], base_ops, 2, 0, "app/B->disk:8:0;write 1000\n");
	side(&x->head, dir[1], head_ops, 2, 1,
	     "app/B->disk:8:0;write 1000\napp/B->app/D;pthread_cond_wait;--;worker 2000\n");
	assert_int_equal(check_flame(&x->base, &x->head, x->dir, &x->growing, &x->n, &err), 0);
	assert_int_equal(x->n, 2); /* the neighbour did not change, and is not kept */
	assert_string_equal(x->growing[0],
			    "+40 µs/op (0 -> 40): app/B->app/D;pthread_cond_wait;--;worker");
	assert_string_equal(x->growing[1], "+10 µs/op (10 -> 20): app/B->disk:8:0;write");
	snprintf(svg, sizeof(svg), "%s/" CHECK_FLAME_SVG, x->dir);
	assert_int_equal(stat(svg, &st), 0);
	assert_true(st.st_size > 1000);
}

/* A side without throughput: per second of window instead. */
static void test_per_second(void **state)
{
	struct fixture *x = *state;
	const double none[] = {NAN}, ops[] = {10};
	struct wperf_error err = {0};
	char dir[2][PATH_MAX];

	snprintf(dir[0], sizeof(dir[0]), "%s/base", x->dir);
	snprintf(dir[1], sizeof(dir[1]), "%s/head", x->dir);
	side(&x->base, dir[0], none, 1, 0, "app/B->disk:8:0;write 1000\n");
	side(&x->head, dir[1], ops, 1, 0, "app/B->disk:8:0;write 3000\n");
	assert_int_equal(check_flame(&x->base, &x->head, x->dir, &x->growing, &x->n, &err), 0);
	assert_int_equal(x->n, 1);
	assert_string_equal(x->growing[0], "+2000 µs/s (1000 -> 3000): app/B->disk:8:0;write");
}

static void test_missing_stacks(void **state)
{
	struct fixture *x = *state;
	const double ops[] = {10};
	struct wperf_error err = {0};
	char dir[2][PATH_MAX], path[PATH_MAX + 64];

	snprintf(dir[0], sizeof(dir[0]), "%s/base", x->dir);
	snprintf(dir[1], sizeof(dir[1]), "%s/head", x->dir);
	side(&x->base, dir[0], ops, 1, 0, "app/B->disk:8:0;write 1000\n");
	side(&x->head, dir[1], ops, 1, 0, "app/B->disk:8:0;write 1000\n");
	snprintf(path, sizeof(path), "%s/runs/1/" ANALYZE_RUN_FOLDED, dir[1]);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(check_flame(&x->base, &x->head, x->dir, &x->growing, &x->n, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, path));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_grew_per_operation, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_per_second, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_stacks, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
