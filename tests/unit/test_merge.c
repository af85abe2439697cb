/* SPDX-License-Identifier: MIT */
/*
 * From threads to vertices (core/analysis/merge.h, core/analysis/short_lived.h) on hand-made
 * traces with known answers: which threads of one name are one vertex, what
 * the parts of a split name are called, and the virtual thread of short-lived
 * threads, to the nanosecond.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/analysis/analysis.h"
#include "tests/lib/trace_builder.h"

#define MS    1000000ull
#define POOLS 500
#define FEED  510

static struct wperf_analysis *analyze(struct trace_builder *b, double similar,
				      struct wperf_trace **t)
{
	struct wperf_analysis_opts o = {.merge.similar = similar};
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};

	*t = tb_open(b);
	if (wperf_analyze(*t, &o, &a, &err) < 0)
		fail_msg("%s", err.msg);
	return a;
}

static const struct wperf_vertex *find(const struct wperf_analysis *a, const char *identity)
{
	for (uint32_t v = 0; v < a->merged.nvertices; v++)
		if (!strcmp(a->merged.vertices[v].identity, identity))
			return &a->merged.vertices[v];
	fail_msg("no vertex %s", identity);
	return NULL;
}

static uint64_t weight(const struct wperf_analysis *a, const char *from, const char *to)
{
	int64_t i = wperf_graph_find(&a->merged.graph, find(a, from) - a->merged.vertices,
				     find(a, to) - a->merged.vertices);

	return i < 0 ? 0 : a->merged.graph.edges[i].weight;
}

static void finish(struct wperf_analysis *a, struct wperf_trace *t, struct trace_builder *b)
{
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(b);
}

/* How many vertices have an identity that starts with prefix. */
static int count_prefixed(const struct wperf_analysis *a, const char *prefix)
{
	int n = 0;

	for (uint32_t v = 0; v < a->merged.nvertices; v++)
		n += !strncmp(a->merged.vertices[v].identity, prefix, strlen(prefix));
	return n;
}

/* ---- two unnamed pools of one process ---- */

/*
 * The functions of process POOLS, as its JIT-style perf map names them (no
 * files: the addresses are the program's own), and its stacks, innermost frame
 * first.
 */
static const char pools_map[] = "1000 100 futex_wait\n"
				"2000 100 pthread_cond_wait\n"
				"3000 100 a_worker\n"
				"4000 100 b_worker\n"
				"5000 100 start_thread\n"
				"6000 100 nanosleep\n"
				"7000 100 main\n"
				"8000 100 futex_wake\n"
				"9000 100 pthread_cond_signal\n"
				"a000 100 feed_a\n"
				"b000 100 feed_b\n"
				"c000 100 feed_main\n"
				"d000 100 a_serve\n";
enum { US_A = 1, US_B, US_MAIN, US_CUT, US_FEED_A, US_FEED_B, US_FEED_MAIN, US_A_SERVE };
static const uint64_t stack_a[] = {0x1010, 0x2010, 0x3010, 0x5010};
static const uint64_t stack_b[] = {0x1010, 0x2010, 0x4010, 0x5010};
static const uint64_t stack_main[] = {0x6010, 0x7010};
static const uint64_t stack_cut[] = {0x1010}; /* a walk stopped in the C library */
static const uint64_t feed_a[] = {0x8010, 0x9010, 0xa010};
static const uint64_t feed_b[] = {0x8010, 0x9010, 0xb010};
static const uint64_t feed_main[] = {0x8010, 0xc010};
/* pool A's wait one call deeper: a_worker calls a_serve */
static const uint64_t stack_a_serve[] = {0x1010, 0x2010, 0xd010, 0x3010, 0x5010};

static void pools_stacks(struct trace_builder *b)
{
	tb_perfmap(b, POOLS, pools_map);
	tb_stack(b, US_A, 1, 4, stack_a);
	tb_stack(b, US_B, 1, 4, stack_b);
	tb_stack(b, US_MAIN, 1, 2, stack_main);
	tb_stack(b, US_CUT, 1, 1, stack_cut);
	tb_stack(b, US_FEED_A, 1, 3, feed_a);
	tb_stack(b, US_FEED_B, 1, 3, feed_b);
	tb_stack(b, US_FEED_MAIN, 1, 2, feed_main);
	tb_stack(b, US_A_SERVE, 1, 5, stack_a_serve);
}

/* At t0, waker wakes tid (from its stack us_wake); tid runs 1 ms on CPU 1 and
 * blocks at us_block. */
static void cycle(struct trace_builder *b, uint32_t tid, uint32_t waker, uint64_t t0,
		  int32_t us_wake, int32_t us_block)
{
	tb_wake(b, t0, 0, tid, waker, -1, us_wake);
	tb_switch(b, t0, 1, 0, tid, 1, -1, -1);
	tb_switch(b, t0 + MS, 1, tid, 0, 0, -1, us_block);
}

/*
 * Worker tid, woken by the feeder every 10 ms from 'offset' on (with the
 * feeder's stack us_feed), runs 1 ms and blocks again at us_block. Until its
 * first wakeup it waited for the feeder too: it waits offset + 9 * 9 ms for it
 * in all; its last wait (from 91 ms + offset) has no waker.
 */
static void worker(struct trace_builder *b, uint32_t tid, uint64_t offset, int32_t us_block,
		   int32_t us_feed)
{
	for (int c = 0; c < 10; c++)
		cycle(b, tid, FEED, c * 10 * MS + offset, us_feed, us_block);
}

/*
 * Process POOLS: every thread keeps the process's name, as a C program's do
 * unless they name themselves; its feeder named itself. Pool A (two threads)
 * blocks in a condition variable inside a_worker, pool B (two) inside
 * b_worker; the main thread sleeps until the feeder wakes it at 95 ms. tids:
 * the order in which the pools' threads come (a_first: pool A gets the
 * smaller tids, and its threads are in the thread table first).
 */
static void build_pools(struct trace_builder *b, int a_first)
{
	uint32_t a1 = a_first ? 501 : 503, a2 = a1 + 1, b1 = a_first ? 503 : 501, b2 = b1 + 1;
	uint32_t order[4] = {a1, a2, b1, b2};

	tb_init(b, 0, 100 * MS);
	pools_stacks(b);
	tb_thread(b, POOLS, POOLS, "pools");
	tb_thread(b, FEED, POOLS, "feeder");
	for (int i = 0; i < 4; i++) /* the thread table in tid order */
		tb_thread(b, order[a_first ? i : (i + 2) % 4], POOLS, "pools");
	worker(b, a1, 0, US_A, US_FEED_A);
	worker(b, a2, MS, US_A, US_FEED_A);
	worker(b, b1, 2 * MS, US_B, US_FEED_B);
	worker(b, b2, 3 * MS, US_B, US_FEED_B);
	tb_switch(b, 0, 0, POOLS, 0, 0, -1, US_MAIN);
	tb_wake(b, 95 * MS, 0, POOLS, FEED, -1, US_FEED_MAIN);
	tb_sort(b);
}

static void check_pools(const struct wperf_analysis *a)
{
	/* Three parts of one name, each named by a function no other part has. */
	assert_int_equal(count_prefixed(a, "pools"), 4); /* and pools/feeder */
	assert_int_equal(find(a, "pools@a_worker")->nmembers, 2);
	assert_int_equal(find(a, "pools@b_worker")->nmembers, 2);
	assert_int_equal(find(a, "pools@main")->nmembers, 1);
	/* Each pool's waits for the feeder: (0 + 81) + (1 + 81) ms, (2 + 81) + (3 + 81) ms. */
	assert_int_equal(weight(a, "pools@a_worker", "pools/feeder"), 163 * MS);
	assert_int_equal(weight(a, "pools@b_worker", "pools/feeder"), 167 * MS);
	assert_int_equal(weight(a, "pools@main", "pools/feeder"), 95 * MS);
	assert_int_equal(find(a, "pools@a_worker")->running_ns, 2 * 10 * MS);
}

/* Two unnamed pools of one process stay apart, whatever order their threads
 * come in: by name alone, all five threads were one vertex "pools". */
static void test_unnamed_pools_stay_apart(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;

	(void)state;
	build_pools(&b, 1);
	a = analyze(&b, 0, &t);
	check_pools(a);
	finish(a, t, &b);

	build_pools(&b, 0);
	a = analyze(&b, 0, &t);
	check_pools(a);
	finish(a, t, &b);
}

/*
 * A part's name holds from run to run. Pool A's threads wait in a_serve,
 * called by a_worker: both functions are its own, on one call chain. In one
 * run every wait is in a_serve; in the other, one of the twenty is in
 * a_worker itself, so a_worker weighs a little more. By weight alone the
 * part was pools@a_serve in the first (a tie, then the name) and
 * pools@a_worker in the second; near ties go by name: pools@a_serve in both.
 */
static void test_part_names_hold(void **state)
{
	(void)state;
	for (int once_outside = 0; once_outside < 2; once_outside++) {
		struct trace_builder b;
		struct wperf_trace *t;
		struct wperf_analysis *a;

		tb_init(&b, 0, 100 * MS);
		pools_stacks(&b);
		tb_thread(&b, POOLS, POOLS, "pools");
		tb_thread(&b, FEED, POOLS, "feeder");
		for (uint32_t tid = 501; tid <= 504; tid++)
			tb_thread(&b, tid, POOLS, "pools");
		for (int c = 0; c < 10; c++) {
			cycle(&b, 501, FEED, c * 10 * MS, US_FEED_A,
			      once_outside && c == 0 ? US_A : US_A_SERVE);
			cycle(&b, 502, FEED, c * 10 * MS + MS, US_FEED_A, US_A_SERVE);
		}
		worker(&b, 503, 2 * MS, US_B, US_FEED_B);
		worker(&b, 504, 3 * MS, US_B, US_FEED_B);
		tb_switch(&b, 0, 0, POOLS, 0, 0, -1, US_MAIN);
		tb_wake(&b, 95 * MS, 0, POOLS, FEED, -1, US_FEED_MAIN);
		tb_sort(&b);
		a = analyze(&b, 0, &t);
		if (!find(a, "pools@a_serve"))
			fail_msg("no pools@a_serve (once outside: %d)", once_outside);
		assert_int_equal(find(a, "pools@a_serve")->nmembers, 2);
		assert_int_equal(find(a, "pools@b_worker")->nmembers, 2);
		finish(a, t, &b);
	}
}

/*
 * A pool of identical workers is one vertex, though one worker's walks all
 * stopped in the C library (only its innermost frame left) and another's did
 * two times in ten: a cut stack counts as the whole one. Compared as they are,
 * the first would be no alike to the others at all.
 */
static void test_identical_workers_merge(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;

	(void)state;
	tb_init(&b, 0, 100 * MS);
	pools_stacks(&b);
	tb_thread(&b, POOLS, POOLS, "pools");
	tb_thread(&b, FEED, POOLS, "feeder");
	for (uint32_t i = 0; i < 4; i++)
		tb_thread(&b, 501 + i, POOLS, "worker");
	worker(&b, 501, 0, US_A, US_FEED_A);
	worker(&b, 502, MS, US_A, US_FEED_A);
	worker(&b, 503, 2 * MS, US_CUT, US_FEED_A);
	for (int c = 0; c < 10; c++) /* 504: cut two times in ten */
		cycle(&b, 504, FEED, c * 10 * MS + 3 * MS, US_FEED_A, c % 5 ? US_A : US_CUT);
	tb_sort(&b);
	a = analyze(&b, 0, &t);
	assert_int_equal(count_prefixed(a, "pools/worker"), 1);
	assert_int_equal(find(a, "pools/worker")->nmembers, 4);
	assert_int_equal(weight(a, "pools/worker", "pools/feeder"), (0 + 1 + 2 + 3 + 4 * 81) * MS);
	finish(a, t, &b);
}

/*
 * Two processes of one program (server, tgids 600 and 700) have their file at
 * different addresses: their identical workers are still alike, frame for
 * frame by file and offset, and one vertex.
 */
static void test_processes_of_one_program_merge(void **state)
{
	static const uint64_t at600[] = {0x401010, 0x402010}, at700[] = {0x801010, 0x802010};
	static const uint64_t wake600[] = {0x403010}, wake700[] = {0x803010};
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;

	(void)state;
	tb_init(&b, 0, 100 * MS);
	tb_mapping(&b, 600, 0x400000, 0x404000, 0, "/opt/server/bin/server");
	tb_mapping(&b, 700, 0x800000, 0x804000, 0, "/opt/server/bin/server");
	tb_stack(&b, 1, 1, 2, at600);
	tb_stack(&b, 2, 1, 2, at700);
	tb_stack(&b, 3, 1, 1, wake600);
	tb_stack(&b, 4, 1, 1, wake700);
	for (uint32_t p = 600; p <= 700; p += 100) {
		tb_thread(&b, p, p, "server");
		tb_thread(&b, p + 1, p, "handler");
		tb_thread(&b, p + 2, p, "handler");
	}
	for (int c = 0; c < 10; c++) {
		for (uint32_t i = 0; i < 4; i++) {
			uint32_t p = i < 2 ? 600 : 700;

			cycle(&b, p + 1 + i % 2, p, c * 10 * MS + i * MS, p == 600 ? 3 : 4,
			      p == 600 ? 1 : 2);
		}
	}
	tb_sort(&b);
	a = analyze(&b, 0, &t);
	assert_int_equal(count_prefixed(a, "server/handler"), 1);
	assert_int_equal(find(a, "server/handler")->nmembers, 4);
	assert_int_equal(find(a, "server")->nmembers, 2);
	finish(a, t, &b);
}

/*
 * Two pools of one program whose waits differ only in where their waker woke
 * them: no function is a part's own, and each part is named by a hash of its
 * heaviest stack. The same program built in two folders (a base's tree and a
 * head's, /opt/a and /opt/b) must give the same names, as the gate compares
 * vertices by name: the hash is of the frames as the symbolizer writes them,
 * not of the files' paths. Names the parts of the trace whose file is at
 * path into names[2], in order.
 */
static void hashed_part_names(const char *path, char names[2][WPERF_IDENTITY_LEN])
{
	static const uint64_t block[] = {0x401010, 0x402010}, wake1[] = {0x403010},
			      wake2[] = {0x403020};
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;
	int n = 0;

	tb_init(&b, 0, 100 * MS);
	tb_mapping(&b, 600, 0x400000, 0x404000, 0, path);
	tb_stack(&b, 1, 1, 2, block);
	tb_stack(&b, 2, 1, 1, wake1);
	tb_stack(&b, 3, 1, 1, wake2);
	tb_thread(&b, 600, 600, "server");
	for (uint32_t i = 0; i < 4; i++)
		tb_thread(&b, 601 + i, 600, "worker");
	for (int c = 0; c < 10; c++)
		for (uint32_t i = 0; i < 4; i++)
			cycle(&b, 601 + i, 600, c * 10 * MS + i * MS, i < 2 ? 2 : 3, 1);
	tb_sort(&b);
	a = analyze(&b, 0, &t);
	assert_int_equal(count_prefixed(a, "server/worker"), 2);
	for (uint32_t v = 0; v < a->merged.nvertices; v++) {
		const char *id = a->merged.vertices[v].identity;

		if (!strncmp(id, "server/worker~", 14) && n++ < 2)
			snprintf(names[n - 1], WPERF_IDENTITY_LEN, "%s", id);
	}
	assert_int_equal(n, 2);
	finish(a, t, &b);
}

static void test_hashed_names_hold_across_folders(void **state)
{
	char here[2][WPERF_IDENTITY_LEN], there[2][WPERF_IDENTITY_LEN];

	(void)state;
	hashed_part_names("/opt/a/bin/server", here);
	hashed_part_names("/opt/b/bin/server", there);
	assert_string_not_equal(here[0], here[1]);
	assert_true((!strcmp(here[0], there[0]) && !strcmp(here[1], there[1])) ||
		    (!strcmp(here[0], there[1]) && !strcmp(here[1], there[0])));
}

/*
 * Three identical workers of a program built without frame pointers (as
 * Debian's memcached): past the innermost frame, each walk read the thread's
 * own stack data as return addresses, addresses in no file the process mapped
 * and different in every thread. Those frames are no evidence: the workers are
 * one vertex.
 */
static void test_walks_into_data_are_cut(void **state)
{
	static const uint64_t walks[3][3] = {{0x401010, 0x7f0012345678, 0x1a},
					     {0x401010, 0x7f00deadbeef, 0x7f0011111111},
					     {0x401010, 0x55aa00001234, 0x1e}};
	static const uint64_t wake[] = {0x402010};
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;

	(void)state;
	tb_init(&b, 0, 100 * MS);
	tb_mapping(&b, 600, 0x400000, 0x404000, 0, "/usr/bin/server");
	for (int i = 0; i < 3; i++)
		tb_stack(&b, 1 + i, 1, 3, walks[i]);
	tb_stack(&b, 4, 1, 1, wake);
	tb_thread(&b, 600, 600, "server");
	for (uint32_t i = 0; i < 3; i++)
		tb_thread(&b, 601 + i, 600, "worker");
	for (int c = 0; c < 10; c++)
		for (uint32_t i = 0; i < 3; i++)
			cycle(&b, 601 + i, 600, c * 10 * MS + i * MS, 4, 1 + (int32_t)i);
	tb_sort(&b);
	a = analyze(&b, 0, &t);
	assert_int_equal(count_prefixed(a, "server/worker"), 1);
	assert_int_equal(find(a, "server/worker")->nmembers, 3);
	finish(a, t, &b);
}

/* Told to keep every thread apart, each is a vertex named after its tid, in
 * whatever order the threads come. */
static void test_keep_apart_names_by_tid(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;

	(void)state;
	build_pools(&b, 1);
	a = analyze(&b, -1, &t);
	assert_int_equal(find(a, "pools~501")->nmembers, 1);
	assert_int_equal(weight(a, "pools~504", "pools/feeder~510"), (3 + 81) * MS);
	finish(a, t, &b);
}

/* ---- kernel workers ---- */

/* A kernel worker's identity is its pool's, whatever the CPU count. */
static void test_kworker_pools_fold(void **state)
{
	static const char *const names[][2] = {
	    {"kworker/u8:2", "kworker/u#:#"},
	    {"kworker/u16:0-events_unbound", "kworker/u#:#"},
	    {"kworker/u8:1+flush-254:0", "kworker/u#:#"},
	    {"kworker/0:1H-kblockd", "kworker/#:#H"},
	    {"kworker/63:2", "kworker/#:#"},
	    {"kworker/u17:3H", "kworker/u#:#H"},
	    {"kworker/R-kblockd", "kworker/R-kblockd"},
	    {"kworker/R-ext4-rsv-conver", "kworker/R-ext4-rsv-conver"},
	    {"NIOWorkerThread-12", "NIOWorkerThread-#"},
	    {"jbd2/vda1-8", "jbd2/vda1-#"},
	};
	char out[WPERF_IDENTITY_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		wperf_fold_name(names[i][0], out, sizeof(out));
		assert_string_equal(out, names[i][1]);
	}
}

/* ---- short-lived threads ---- */

#define DISPATCH 300
#define SERVER	 310

/* A window of this many ns, DISPATCH, which creates tasks, and SERVER. */
static void tasks_trace(struct trace_builder *b, uint64_t window)
{
	tb_init(b, 0, window);
	tb_thread(b, DISPATCH, DISPATCH, "dispatch");
	tb_thread(b, SERVER, SERVER, "server");
}

/* Task tid, created by DISPATCH at born and runnable until it runs at run. */
static void task_born(struct trace_builder *b, uint32_t tid, uint64_t born, uint64_t run,
		      uint32_t cpu)
{
	struct wperf_event *e = tb_add(b, WPERF_EV_FORK, born, 0, DISPATCH);

	e->fork.child_tid = tid;
	e->fork.child_tgid = DISPATCH;
	snprintf(e->fork.comm, sizeof(e->fork.comm), "task");
	tb_tgid(b, tid, DISPATCH);
	tb_add(b, WPERF_EV_WAKEUP_NEW, born, 0, tid);
	tb_switch(b, run, cpu, 0, tid, 1, -1, -1);
}

static void task_exit(struct trace_builder *b, uint32_t tid, uint64_t at, uint32_t cpu)
{
	tb_add(b, WPERF_EV_EXIT, at, cpu, tid);
	tb_switch(b, at, cpu, tid, 0, 0, -1, -1);
}

/*
 * Three tasks of DISPATCH; the first two overlap:
 *   T1 401: born 10 ms, runs 11-20, waits 20-40 (SERVER wakes it), runs 41-45.
 *   T2 402: born 12 ms, runs 13-25, waits 25-35 (SERVER wakes it), runs 36-50.
 *   T3 403: born 60 ms, runs 61-70.
 * Their virtual thread, 10-70 ms: runnable 10-11, 35-36 and 60-61 (3 ms);
 * waiting 25-35, for SERVER, whose wakeup of T2 ends it, and 50-60, with no
 * task alive, for DISPATCH, whose next task ends it (20 ms); running the rest
 * (37 ms). Summed over the tasks, as before, it waited 30 ms for SERVER (T1's
 * 20 ms and T2's 10, 5 of them at once, T2 running for the other 15) and ran
 * 48 ms.
 */
static void test_short_lived_one_virtual_thread(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;
	const struct wperf_vertex *v;

	(void)state;
	tasks_trace(&b, 100 * MS);
	task_born(&b, 401, 10 * MS, 11 * MS, 1);
	tb_switch(&b, 20 * MS, 1, 401, 0, 0, -1, -1);
	tb_wake(&b, 40 * MS, 1, 401, SERVER, -1, -1);
	tb_switch(&b, 41 * MS, 1, 0, 401, 1, -1, -1);
	task_exit(&b, 401, 45 * MS, 1);
	task_born(&b, 402, 12 * MS, 13 * MS, 0);
	tb_switch(&b, 25 * MS, 0, 402, 0, 0, -1, -1);
	tb_wake(&b, 35 * MS, 0, 402, SERVER, -1, -1);
	tb_switch(&b, 36 * MS, 0, 0, 402, 1, -1, -1);
	task_exit(&b, 402, 50 * MS, 0);
	task_born(&b, 403, 60 * MS, 61 * MS, 1);
	task_exit(&b, 403, 70 * MS, 1);
	tb_sort(&b);
	a = analyze(&b, 0, &t);
	v = find(a, "dispatch+tasks");
	assert_true(v->short_lived);
	assert_int_equal(v->nmembers, 3);
	assert_int_equal(v->running_ns, 37 * MS);
	assert_int_equal(v->runnable_ns, 3 * MS);
	assert_int_equal(v->waiting_ns, 20 * MS);
	assert_int_equal(weight(a, "dispatch+tasks", "server"), 10 * MS);
	assert_int_equal(weight(a, "dispatch+tasks", "dispatch"), 10 * MS);
	assert_int_equal(weight(a, "dispatch+tasks", "dispatch+tasks"), 0);
	/* each task keeps its own time in the timeline: T1 waited 20 ms */
	for (size_t e = 0; e < a->timeline->nentities; e++)
		if (a->timeline->entities[e].tid == 401)
			assert_int_equal(a->timeline->entities[e].waiting_ns, 20 * MS);
	finish(a, t, &b);
}

/*
 * However many tasks overlap, their virtual thread is in no state longer than
 * the window. 12 tasks, born 250 us apart from 10 ms on, each run 250 us, then
 * all wait for the server until it wakes them, 250 us apart from 100 ms on;
 * each runs 250 us more and ends. Their virtual thread runs 10-13 ms and
 * 100-103 ms, and waits 13-100 ms: one wait of 87 ms (1077 ms summed over the
 * tasks: 5.4 windows of 200 ms).
 */
static void test_overlapping_tasks_within_the_window(void **state)
{
	const uint64_t us = 1000;
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;
	const struct wperf_vertex *v;

	(void)state;
	tasks_trace(&b, 200 * MS);
	for (uint32_t i = 0; i < 12; i++) {
		uint32_t tid = 400 + i;
		uint64_t born = 10 * MS + i * 250 * us, woken = 100 * MS + i * 250 * us;

		task_born(&b, tid, born, born, 1);
		tb_switch(&b, born + 250 * us, 1, tid, 0, 0, -1, -1);
		tb_wake(&b, woken, 1, tid, SERVER, -1, -1);
		tb_switch(&b, woken, 1, 0, tid, 1, -1, -1);
		task_exit(&b, tid, woken + 250 * us, 1);
	}
	tb_sort(&b);
	a = analyze(&b, 0, &t);
	v = find(a, "dispatch+tasks");
	assert_int_equal(v->nmembers, 12);
	assert_int_equal(v->running_ns, 6 * MS);
	assert_int_equal(v->runnable_ns, 0);
	assert_int_equal(v->waiting_ns, 87 * MS);
	assert_int_equal(weight(a, "dispatch+tasks", "server"), 87 * MS);
	finish(a, t, &b);
}

/*
 * The virtual thread's waits by what ended them, as a thread's: two tasks
 * asleep on timers. T1 (401) runs 10-11 ms, sleeps until a timer at 30 ms,
 * runs 30-31; T2 (402), born at 12 ms, runs 12-13, sleeps until a timer at
 * 40 ms, runs 40-41. Their virtual thread waits 11-12 ms for its creator (T2's
 * birth ends it), then 13-30 and 31-40 ms on timers: 26 ms of timer waits,
 * where the tasks, summed, slept 46 ms.
 */
static void test_virtual_thread_timer_waits(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;
	const struct wperf_vertex *v;

	(void)state;
	tasks_trace(&b, 100 * MS);
	task_born(&b, 401, 10 * MS, 10 * MS, 1);
	tb_switch(&b, 11 * MS, 1, 401, 0, 0, -1, -1);
	tb_wake_irq(&b, 30 * MS, 1, 401, WPERF_CTX_SOFTIRQ, WPERF_SOFTIRQ_HRTIMER);
	tb_switch(&b, 30 * MS, 1, 0, 401, 1, -1, -1);
	task_exit(&b, 401, 31 * MS, 1);
	task_born(&b, 402, 12 * MS, 12 * MS, 0);
	tb_switch(&b, 13 * MS, 0, 402, 0, 0, -1, -1);
	tb_wake_irq(&b, 40 * MS, 0, 402, WPERF_CTX_SOFTIRQ, WPERF_SOFTIRQ_HRTIMER);
	tb_switch(&b, 40 * MS, 0, 0, 402, 1, -1, -1);
	task_exit(&b, 402, 41 * MS, 0);
	tb_sort(&b);
	a = analyze(&b, 0, &t);
	v = find(a, "dispatch+tasks");
	assert_int_equal(v->waiting_ns, 27 * MS);
	assert_int_equal(v->timer_wait_ns, 26 * MS);
	assert_int_equal(v->no_waker_ns, 0);
	assert_int_equal(v->running_ns, 4 * MS);
	assert_int_equal(weight(a, "dispatch+tasks", "dispatch"), 1 * MS);
	finish(a, t, &b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unnamed_pools_stay_apart),
	    cmocka_unit_test(test_part_names_hold),
	    cmocka_unit_test(test_identical_workers_merge),
	    cmocka_unit_test(test_processes_of_one_program_merge),
	    cmocka_unit_test(test_walks_into_data_are_cut),
	    cmocka_unit_test(test_hashed_names_hold_across_folders),
	    cmocka_unit_test(test_keep_apart_names_by_tid),
	    cmocka_unit_test(test_kworker_pools_fold),
	    cmocka_unit_test(test_short_lived_one_virtual_thread),
	    cmocka_unit_test(test_overlapping_tasks_within_the_window),
	    cmocka_unit_test(test_virtual_thread_timer_waits),
	};

	return cmocka_run_group_tests_name("merge", tests, NULL, NULL);
}
