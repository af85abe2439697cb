/* SPDX-License-Identifier: MIT */
/*
 * The whole analysis (core/analysis/analysis.h) on hand-made traces with known answers:
 * events in, knots out.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/analysis/analysis.h"
#include "core/analysis/knot_level.h"
#include "core/gate/runset.h"
#include "tests/lib/trace_builder.h"

#define MS   1000000ull
#define APP  100
#define A    101
#define B    102
#define DISK ((254u << 20) | 0)
#define SH   90 /* the shell the harness started the load with */

static struct wperf_analysis *analyze(struct trace_builder *b, unsigned jobs,
				      struct wperf_trace **t)
{
	struct wperf_analysis_opts o = {.jobs = jobs};
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};

	*t = tb_open(b);
	if (wperf_analyze(*t, &o, &a, &err) < 0)
		fail_msg("%s", err.msg);
	return a;
}

static int64_t vertex(const struct wperf_analysis *a, const char *identity)
{
	for (uint32_t v = 0; v < a->merged.nvertices; v++)
		if (!strcmp(a->merged.vertices[v].identity, identity))
			return v;
	return -1;
}

static uint64_t weight(const struct wperf_analysis *a, const char *from, const char *to)
{
	int64_t f = vertex(a, from), t = vertex(a, to), i;

	assert_true(f >= 0 && t >= 0);
	i = wperf_graph_find(&a->merged.graph, f, t);
	return i < 0 ? 0 : a->merged.graph.edges[i].weight;
}

/* The final knots (not sinks), as a sorted, space-separated list of identities each. */
static void final_knots(const struct wperf_analysis *a, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (k->kind != WPERF_KNOT)
			continue;
		len += snprintf(out + len, size - len, "%s{", len ? " " : "");
		for (size_t j = 0; j < k->nvertices; j++)
			len += snprintf(out + len, size - len, "%s%s", j ? "," : "",
					a->merged.vertices[k->vertices[j]].identity);
		len += snprintf(out + len, size - len, "}");
	}
}

/*
 * Figure 1: A (2 ms of work) fills a queue that B (5 ms of work, then a 5 ms
 * synchronous write) empties. Each 10 ms, A waits 8 ms for B and B waits 5 ms
 * for the disk, which idles while B works. The knot is {B, disk}; A waits
 * longest but is outside it.
 */
static void build_figure1(struct trace_builder *b, int cycles)
{
	tb_init(b, 0, cycles * 10 * MS);
	tb_thread(b, APP, APP, "fig1");
	tb_thread(b, A, APP, "A");
	tb_thread(b, B, APP, "B");
	for (int c = 0; c < cycles; c++) {
		uint64_t t0 = c * 10 * MS;

		if (c > 0) { /* the disk's completion wakes B */
			tb_block(b, WPERF_EV_BLOCK_COMPLETE, t0 - 10000, 0, 0, WPERF_CTX_SOFTIRQ,
				 WPERF_SOFTIRQ_BLOCK, DISK, c - 1, 4096);
			tb_wake_irq(b, t0 - 10000, 0, B, WPERF_CTX_SOFTIRQ, WPERF_SOFTIRQ_BLOCK);
		}
		tb_switch(b, t0, 0, 0, B, 1, -1, -1);
		tb_wake(b, t0 + 10000, 0, A, B, 5, 6); /* B dequeues: room for A */
		tb_switch(b, t0 + 20000, 1, 0, A, 1, -1, -1);
		tb_switch(b, t0 + 2 * MS + 20000, 1, A, 0, 0, 1, 2); /* the queue is full */
		tb_block(b, WPERF_EV_BLOCK_ISSUE, t0 + 5 * MS, 0, B, WPERF_CTX_THREAD, 0, DISK, c,
			 4096);
		tb_switch(b, t0 + 5 * MS, 0, B, 0, 0, 3, 4); /* B blocks in fsync */
	}
}

static void test_figure1_knot(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	char knots[256];

	(void)state;
	build_figure1(&b, 50);
	struct wperf_analysis *a = analyze(&b, 1, &t);

	final_knots(a, knots, sizeof(knots));
	assert_string_equal(knots, "{disk:254:0,fig1/B}");
	/* A waits longer (8 ms a cycle) than B (5 ms for the disk)... */
	assert_true(a->merged.vertices[vertex(a, "fig1/A")].waiting_ns >
		    a->merged.vertices[vertex(a, "fig1/B")].waiting_ns);
	/* ...but B -> disk weighs more: its own waits plus those nested in A's. */
	assert_true(weight(a, "fig1/B", "disk:254:0") > weight(a, "fig1/A", "fig1/B"));
	assert_true(weight(a, "disk:254:0", "fig1/B") > 0);
	assert_int_equal(weight(a, "fig1/B", "fig1/A"), 0);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

/* The same trace gives the same graph with any number of cascade workers. */
static void test_jobs_do_not_matter(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t1, *t4;

	(void)state;
	build_figure1(&b, 50);
	struct wperf_analysis *a1 = analyze(&b, 1, &t1);
	struct wperf_analysis *a4 = analyze(&b, 4, &t4);

	assert_int_equal(a1->merged.graph.nedges, a4->merged.graph.nedges);
	assert_memory_equal(a1->merged.graph.edges, a4->merged.graph.edges,
			    a1->merged.graph.nedges * sizeof(struct wperf_edge));
	wperf_analysis_free(a1);
	wperf_analysis_free(a4);
	wperf_trace_free(t1);
	wperf_trace_free(t4);
	tb_release(&b);
}

/*
 * Four workers take turns on one lock: each waits for the one before it, and
 * after unlocking works on outside the lock, in parallel with the next holder
 * (1.5 CPUs in all: not a background knot). Merged into one vertex by name,
 * their waits are a self-loop: a knot of one vertex.
 */
static void test_merged_self_loop(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	char knots[256];
	const uint32_t w[4] = {201, 202, 203, 204};

	(void)state;
	tb_init(&b, 0, 300 * MS);
	tb_thread(&b, 200, 200, "pool");
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "worker-%d", i + 1);
		tb_thread(&b, w[i], 200, name);
	}
	for (int r = 0; r < 100; r++) {
		uint32_t holder = w[r % 4], next = w[(r + 1) % 4];
		uint64_t t0 = r * 3 * MS;
		uint32_t cpu = r % 2;

		tb_switch(&b, t0, cpu, 0, holder, 1, -1, -1);
		tb_wake(&b, t0 + 3 * MS - 1000, cpu, next, holder, 7, 8); /* unlock */
		tb_switch(&b, t0 + 4500000, cpu, holder, 0, 0, 9, 10);	  /* waits again */
	}
	struct wperf_analysis *a = analyze(&b, 1, &t);

	final_knots(a, knots, sizeof(knots));
	assert_string_equal(knots, "{pool/worker-#}");
	assert_true(weight(a, "pool/worker-#", "pool/worker-#") > 0);
	assert_int_equal(a->merged.vertices[vertex(a, "pool/worker-#")].nmembers, 4);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

/*
 * B and C take turns (fig1 --device=thread): each runs 4.2 ms of every 10 and
 * wakes the other, who waits 1 ms for a CPU before it runs. They use 0.84 CPU
 * and want 1.04: they are not asleep while runnable, so they are the knot, not
 * a background knot.
 */
static void test_turns_count_runnable_time(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	char knots[256];
	const uint32_t c_tid = 103;

	(void)state;
	tb_init(&b, 0, 100 * 10 * MS);
	tb_thread(&b, APP, APP, "fig1");
	tb_thread(&b, B, APP, "B");
	tb_thread(&b, c_tid, APP, "C");
	for (int c = 0; c < 100; c++) {
		uint64_t t0 = c * 10 * MS;

		tb_switch(&b, t0, 0, 0, B, 1, -1, -1);
		tb_wake(&b, t0 + 4 * MS, 0, c_tid, B, 1, 2);
		tb_switch(&b, t0 + 4200000, 0, B, 0, 0, 3, 4);
		tb_switch(&b, t0 + 5 * MS, 1, 0, c_tid, 1, -1, -1);
		tb_wake(&b, t0 + 9 * MS, 1, B, c_tid, 5, 6);
		tb_switch(&b, t0 + 9200000, 1, c_tid, 0, 0, 7, 8);
	}
	struct wperf_analysis *a = analyze(&b, 1, &t);

	final_knots(a, knots, sizeof(knots));
	assert_string_equal(knots, "{fig1/B,fig1/C}");
	assert_true(a->merged.vertices[vertex(a, "fig1/B")].cpu < 0.43);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

/*
 * A dispatcher starts a thread per task; each task runs 1 ms and ends. The tasks
 * merge into one virtual thread that waits for its creator between tasks.
 */
static void test_short_lived_tasks(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;

	(void)state;
	tb_init(&b, 0, 100 * MS);
	tb_thread(&b, 300, 300, "dispatch");
	for (int i = 0; i < 20; i++) {
		uint32_t task = 400 + i;
		uint64_t t0 = i * 5 * MS + MS;
		struct wperf_event *e = tb_add(&b, WPERF_EV_FORK, t0, 0, 300);

		e->fork.child_tid = task;
		e->fork.child_tgid = 300;
		snprintf(e->fork.comm, sizeof(e->fork.comm), "task-%d", i);
		tb_add(&b, WPERF_EV_WAKEUP_NEW, t0, 0, task)->hdr.tgid = 300;
		tb_switch(&b, t0 + 1000, 1, 0, task, 1, -1, -1);
		tb_add(&b, WPERF_EV_EXIT, t0 + MS, 1, task)->hdr.tgid = 300;
		tb_switch(&b, t0 + MS + 1000, 1, task, 0, 0, -1, -1);
	}
	struct wperf_analysis *a = analyze(&b, 1, &t);
	int64_t tasks = vertex(a, "dispatch+tasks");

	assert_true(tasks >= 0);
	assert_int_equal(a->merged.vertices[tasks].nmembers, 20);
	assert_true(a->merged.vertices[tasks].short_lived);
	/* Between the first task's start and the last one's end, no task is alive
	 * for 19 gaps of about 4 ms: the virtual thread waits for its creator. */
	assert_in_range(weight(a, "dispatch+tasks", "dispatch"), 19 * 4 * MS - 19 * 100000,
			19 * 4 * MS + 19 * 100000);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

/*
 * The harness's own processes (META harness_pids; here the shell that started
 * the load and waits for it) are no part of the workload: the run kept for the
 * gate has neither their edges nor them in a knot, even with the shell among
 * the target's processes (the load's process group). Left in, the shell's
 * wait also cascades into the workload's own edges and inflates them.
 */
enum harness_shell { NO_SHELL, SHELL, SHELL_MARKED };

static void run_figure1_with(enum harness_shell shell, struct wperf_run *out)
{
	struct wperf_error err = {0};
	struct trace_builder b;
	struct wperf_trace *t;

	build_figure1(&b, 50);
	if (shell != NO_SHELL) {
		tb_thread(&b, SH, SH, "sh");
		tb_switch(&b, 500, 1, SH, 0, 0, -1, -1); /* waits for its child */
		tb_wake(&b, 49 * 10 * MS + MS, 1, SH, A, -1, -1);
		tb_sort(&b);
	}
	if (shell == SHELL_MARKED)
		tb_meta(&b, WPERF_META_HARNESS_PIDS, "1,90");
	struct wperf_analysis *a = analyze(&b, 1, &t);

	/* SH and APP: the load's processes */
	if (wperf_run_from_analysis(a, "90,100", 1, NULL, out, &err))
		fail_msg("%s", err.msg);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

static void test_harness_processes_left_out(void **state)
{
	struct wperf_run plain, unmarked, marked;

	(void)state;
	run_figure1_with(NO_SHELL, &plain);
	run_figure1_with(SHELL, &unmarked);
	run_figure1_with(SHELL_MARKED, &marked);
	/* Unmarked, the shell's wait for its child weighs almost the window. */
	assert_true(wperf_run_edge_share(&unmarked, "sh", "fig1/A") > 0.9);
	for (size_t i = 0; i < marked.nedges; i++) {
		assert_string_not_equal(marked.edges[i].from, "sh");
		assert_string_not_equal(marked.edges[i].to, "sh");
	}
	for (size_t k = 0; k < marked.nknots; k++)
		for (size_t i = 0; i < marked.knots[k].n; i++)
			assert_string_not_equal(marked.knots[k].ids[i], "sh");
	for (size_t i = 0; i < marked.sinks.n; i++)
		assert_string_not_equal(marked.sinks.ids[i], "sh");
	/* The workload's knot and edges are those of the trace without the shell. */
	assert_int_equal(marked.nknots, 1);
	assert_int_equal(marked.knots[0].n, 2);
	assert_string_equal(marked.knots[0].ids[0], "disk:254:0");
	assert_string_equal(marked.knots[0].ids[1], "fig1/B");
	assert_int_equal(marked.nedges, plain.nedges);
	assert_true(wperf_run_edge_share(&marked, "fig1/A", "fig1/B") > 0.5);
	for (size_t i = 0; i < plain.nedges; i++)
		assert_float_equal(
		    wperf_run_edge_share(&marked, plain.edges[i].from, plain.edges[i].to),
		    plain.edges[i].share, 1e-9);
	wperf_run_release(&plain);
	wperf_run_release(&unmarked);
	wperf_run_release(&marked);
}

/* The level wperf_knot_level chooses on the edges of a's graph among the
 * vertices marked in keep (NULL: every vertex), the threshold as analyze's. */
static uint64_t level_on(const struct wperf_analysis *a, const uint8_t *keep)
{
	const struct wperf_graph *g = &a->merged.graph;
	struct wperf_knot_opts ko = {0};
	struct wperf_error err = {0};
	struct wperf_graph sub;
	uint64_t level = 0;

	assert_int_equal(wperf_graph_init(&sub, a->merged.nvertices), 0);
	for (size_t i = 0; i < g->nedges; i++)
		if (!keep || (keep[g->edges[i].from] && keep[g->edges[i].to]))
			assert_int_equal(wperf_graph_add(&sub, g->edges[i].from, g->edges[i].to,
							 g->edges[i].weight),
					 0);
	wperf_graph_finish(&sub);
	if (wperf_knot_level(&sub, &ko, a->threshold_ns, &level, &err) < 0)
		fail_msg("%s", err.msg);
	wperf_graph_release(&sub);
	return level;
}

/*
 * The knot level is chosen on what the target reaches (issue 26): figure 1
 * beside another process, X and Y handing a turn back and forth (X works
 * 1 ms, Y 6 ms, on their own CPUs), whose knot {X, Y} is there at low levels
 * and gone above its lighter edge. On the whole machine the widest range of
 * one answer is another than on fig1's part; with target fig1 the analysis's
 * level is the one chosen on fig1's part alone, and without a target the
 * whole machine's (as before).
 */
static void test_level_on_the_target(void **state)
{
	struct wperf_analysis_opts o = {.target = "fig1"};
	struct wperf_analysis *a = NULL, *all;
	struct wperf_error err = {0};
	struct trace_builder b;
	struct wperf_trace *t;
	uint8_t *keep;
	uint64_t whole, mine;

	(void)state;
	build_figure1(&b, 50);
	tb_thread(&b, 300, 300, "X");
	tb_thread(&b, 301, 300, "Y");
	for (int c = 0; c < 70; c++) {
		uint64_t t0 = c * 7 * MS;

		tb_switch(&b, t0, 2, 0, 300, 1, -1, -1);
		tb_wake(&b, t0 + 1 * MS, 2, 301, 300, 1, 2);
		tb_switch(&b, t0 + 1 * MS + 1000, 2, 300, 0, 0, 3, 4);
		tb_switch(&b, t0 + 1 * MS + 2000, 3, 0, 301, 1, -1, -1);
		tb_wake(&b, t0 + 7 * MS - 2000, 3, 300, 301, 5, 6);
		tb_switch(&b, t0 + 7 * MS - 1000, 3, 301, 0, 0, 7, 8);
	}
	all = analyze(&b, 1, &t);
	if (wperf_analyze(t, &o, &a, &err) < 0)
		fail_msg("%s", err.msg);
	keep = calloc(a->merged.nvertices + 1, 1);
	assert_int_equal(wperf_analysis_mark_reach(a, &a->merged.graph, "fig1", keep), 0);
	/* X's main thread is the process's own vertex, "X" */
	assert_true(vertex(a, "X") >= 0 && vertex(a, "X/Y") >= 0);
	assert_false(keep[vertex(a, "X")] || keep[vertex(a, "X/Y")]);
	whole = level_on(all, NULL);
	mine = level_on(a, keep);
	print_message("level: whole machine %.1f%%, fig1's part %.1f%%\n",
		      100.0 * (double)whole / (double)a->window,
		      100.0 * (double)mine / (double)a->window);
	assert_true(whole != mine); /* or the case tells nothing */
	assert_int_equal(all->min_edge_ns, whole);
	assert_int_equal(a->min_edge_ns, mine);
	free(keep);
	wperf_analysis_free(a);
	wperf_analysis_free(all);
	wperf_trace_free(t);
	tb_release(&b);
}

/*
 * A target names the program people start (issue 27): ./app starts, its main
 * thread renames itself "reader" and works beside a thread "w". Target "app"
 * finds both threads, as "reader" does; a name the trace never had is still
 * refused, with the program's name among the closest.
 */
static void test_target_by_program(void **state)
{
	struct wperf_analysis_opts o = {0};
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};
	struct trace_builder b;
	struct wperf_trace *t;
	const char *targets[] = {"app", "reader"};

	(void)state;
	tb_init(&b, 0, 100 * MS);
	tb_thread(&b, 400, 400, "sh");
	tb_thread(&b, 401, 400, "w");
	tb_name(&b, WPERF_EV_EXEC, 1 * MS, 0, 400, "app");
	tb_name(&b, WPERF_EV_RENAME, 2 * MS, 0, 400, "reader");
	tb_switch(&b, 3 * MS, 0, 0, 400, 1, -1, -1);
	tb_switch(&b, 4 * MS, 1, 0, 401, 1, -1, -1);
	tb_switch(&b, 50 * MS, 0, 400, 0, 0, -1, -1);
	tb_switch(&b, 60 * MS, 1, 401, 0, 0, -1, -1);
	t = tb_open(&b);
	for (int i = 0; i < 2; i++) {
		uint8_t *mine;
		size_t n = 0;

		o.target = targets[i];
		if (wperf_analyze(t, &o, &a, &err) < 0 || wperf_analysis_check_target(a, &err) < 0)
			fail_msg("%s: %s", targets[i], err.msg);
		mine = calloc(a->merged.nvertices + 1, 1);
		wperf_analysis_mark_target(a, targets[i], mine);
		for (uint32_t v = 0; v < a->merged.nvertices; v++)
			n += mine[v];
		assert_int_equal(n, 2); /* reader, reader/w */
		free(mine);
		wperf_analysis_free(a);
	}
	o.target = "ap";
	assert_int_equal(wperf_analyze(t, &o, &a, &err), 0);
	assert_int_equal(wperf_analysis_check_target(a, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "closest names: app"));
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

/* The start of the target tests' traces: a shell (500) on CPU 0 from 1 ms,
 * which forks 501 at 2 ms, and another process (600); cgroups: the trace's
 * META cgroups, or NULL for none. */
static void shell_and_other(struct trace_builder *b, const char *cgroups)
{
	tb_init(b, 0, 100 * MS);
	if (cgroups)
		tb_meta(b, WPERF_META_CGROUPS, cgroups);
	tb_thread(b, 500, 500, "sh");
	tb_thread(b, 600, 600, "other");
	tb_switch(b, 1 * MS, 0, 0, 500, 1, -1, -1);
	tb_fork(b, 2 * MS, 0, 500, 501, 501, "sh");
}

/*
 * A recorded command's target is its process and every process it started
 * (issue 27): a shell (500) starts a server (501), which forks a daemon (502)
 * and exits; 600 is another process of the machine. "500+" is 500, 501, 502:
 * the daemon's parent is the server that made it, whoever adopted it later.
 */
static void test_target_tree(void **state)
{
	struct wperf_analysis_opts o = {.target = "500+"};
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};
	struct trace_builder b;
	struct wperf_trace *t;
	char *list;

	(void)state;
	shell_and_other(&b, NULL);
	tb_switch(&b, 3 * MS, 0, 500, 0, 0, -1, -1);
	tb_switch(&b, 4 * MS, 1, 0, 501, 1, -1, -1);
	tb_name(&b, WPERF_EV_EXEC, 5 * MS, 1, 501, "server");
	tb_fork(&b, 6 * MS, 1, 501, 502, 502, "server");
	tb_switch(&b, 7 * MS, 1, 501, 502, 0, -1, -1);
	tb_switch(&b, 8 * MS, 0, 0, 600, 1, -1, -1);
	tb_switch(&b, 90 * MS, 1, 502, 0, 0, -1, -1);
	tb_switch(&b, 95 * MS, 0, 600, 0, 0, -1, -1);
	t = tb_open(&b);
	if (wperf_analyze(t, &o, &a, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(a->target, "500,501,502");
	assert_int_equal(wperf_analysis_expand_target(a->timeline, "600+,500", NULL, &list, &err),
			 0);
	assert_string_equal(list, "600,500");
	free(list);
	assert_int_equal(wperf_analysis_expand_target(a->timeline, "other", NULL, &list, &err), 0);
	assert_null(list);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

/*
 * A control group as the target (issue 27): the trace's META cgroups has the
 * shell (500) in /bench.slice/run.scope and 600 in /system.slice. The target
 * cgroup:/bench.slice is the processes of that group and the groups below it,
 * each with the descendants born in the window (a fork stays in its parent's
 * group): 500, 501, 502. cgroup:/system.slice is 1 and 600, not 500, whose
 * parent is 1 but whose group is another. A group with no process says so,
 * with the closest groups; a trace without cgroups says that.
 */
static void test_target_cgroup(void **state)
{
	struct wperf_analysis_opts o = {.target = "cgroup:/bench.slice"};
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};
	struct trace_builder b;
	struct wperf_trace *t;
	char *list;

	(void)state;
	shell_and_other(&b, "/bench.slice/run.scope\t500\n/system.slice\t1,600\n/user.slice/x\t7");
	tb_fork(&b, 3 * MS, 0, 501, 502, 502, "sh");
	tb_switch(&b, 4 * MS, 0, 500, 600, 0, -1, -1);
	tb_switch(&b, 5 * MS, 0, 600, 0, 0, -1, -1);
	t = tb_open(&b);
	if (wperf_analyze(t, &o, &a, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(a->target, "500,501,502");
	assert_int_equal(wperf_analysis_expand_target(a->timeline, "cgroup:/system.slice/",
						      wperf_trace_meta(t, WPERF_META_CGROUPS),
						      &list, &err),
			 0);
	assert_string_equal(list, "1,600");
	free(list);
	assert_int_equal(wperf_analysis_expand_target(a->timeline, "cgroup:/system",
						      wperf_trace_meta(t, WPERF_META_CGROUPS),
						      &list, &err),
			 -ENOENT);
	assert_string_equal(err.msg, "target cgroup:/system: no process was in that control group "
				     "as the recording started; the closest groups: /system.slice, "
				     "/user.slice/x, /bench.slice/run.scope");
	assert_int_equal(wperf_analysis_expand_target(a->timeline, "cgroup:/", NULL, &list, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "the trace has no control groups"));
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_figure1_knot),
	    cmocka_unit_test(test_level_on_the_target),
	    cmocka_unit_test(test_target_by_program),
	    cmocka_unit_test(test_target_tree),
	    cmocka_unit_test(test_target_cgroup),
	    cmocka_unit_test(test_jobs_do_not_matter),
	    cmocka_unit_test(test_merged_self_loop),
	    cmocka_unit_test(test_turns_count_runnable_time),
	    cmocka_unit_test(test_short_lived_tasks),
	    cmocka_unit_test(test_harness_processes_left_out),
	};

	return cmocka_run_group_tests_name("analysis", tests, NULL, NULL);
}
