/* SPDX-License-Identifier: MIT */
/*
 * The DOT, folded-stack and Perfetto writers (core/report/report_dot.c,
 * report_folded.c, report_perfetto.c) on one hand-made trace: threads A and B
 * of process "app" hand work to each other every 5 ms (each waits for the
 * other: the knot {A, B}), and a third thread, named c"x\y to exercise the
 * escaping, now and then waits 2 ms for A (a light edge, below the threshold).
 * Stacks are named through KSYMS and a perf map whose names have ';' and
 * spaces in them.
 *
 * The DOT goes through Graphviz's dot (skipped when it is not installed), the
 * JSON through json-c's parser.
 */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "core/analysis/analysis.h"
#include "core/report/report.h"
#include "core/analysis/symbolize.h"
#include "core/trace/trace.h"
#include "tests/lib/trace_builder.h"

#define MS    1000000ull
#define US    1000ull
#define START (5000 * MS)
#define END   (START + 1002 * MS)

#define APP 100
#define A   101
#define B   102
#define C   103

/* stack ids: where threads block (kernel, user), where they wake others */
#define KS_BLOCK 1
#define US_BLOCK 2
#define KS_WAKE	 3
#define US_WAKE	 4

static struct {
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;
	struct wperf_symbolizer *sym;
	int64_t va, vb, vc; /* vertices of A, B, C */
} g;

/* ---- the trace ---- */

/* prev blocks on cpu (where threads block), next comes in. */
static void sw(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t prev, uint32_t next)
{
	tb_switch(b, ts, cpu, prev, next, 0, prev ? KS_BLOCK : WPERF_NO_STACK,
		  prev ? US_BLOCK : WPERF_NO_STACK);
}

/* waker wakes tid, from where threads wake others. */
static void wake(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t tid, uint32_t waker)
{
	tb_wake(b, ts, cpu, tid, waker, KS_WAKE, US_WAKE)->wake.target_cpu = cpu;
}

/*
 * 100 rounds of 10 ms: A runs on CPU 0, wakes B after 5 ms and blocks 1 ms
 * later; B runs on CPU 1, wakes A 5 ms later and blocks 1 ms after that. Each
 * waits 4 ms of 10 for the other, and together they use 1.2 CPUs (under one
 * CPU, {A, B} would be a background knot). Every tenth round, C (CPU 2) blocks
 * 2 ms until A wakes it.
 */
static void build_events(struct trace_builder *b)
{
	for (uint64_t k = 0; k < 100; k++) {
		uint64_t base = START + k * 10 * MS;

		wake(b, base + 5 * MS, 0, B, A);
		sw(b, base + 5 * MS + 20 * US, 1, 0, B);
		sw(b, base + 6 * MS, 0, A, 0);
		wake(b, base + 10 * MS, 1, A, B);
		sw(b, base + 10 * MS + 20 * US, 0, 0, A);
		sw(b, base + 11 * MS, 1, B, 0);
		if (k % 10 == 0) {
			sw(b, base + 1 * MS, 2, C, 0);
			wake(b, base + 3 * MS, 0, C, A);
			sw(b, base + 3 * MS + 10 * US, 2, 0, C);
		}
	}
	tb_sort(b);
}

/* The trace: app's threads, the rounds above, and the tables that name their stacks. */
static void build_trace(struct trace_builder *b)
{
	/* each kernel stack begins, as the recorder takes it, in the recorder's own frames */
	static const uint64_t kblock[] = {0xffffffff81000010ull, 0xffffffff81000020ull,
					  0xffffffff81000110ull, 0xffffffff81000220ull,
					  0xffffffff81000330ull};
	static const uint64_t kwake[] = {0xffffffff81000030ull, 0xffffffff81000040ull,
					 0xffffffff81000440ull, 0xffffffff81000550ull};
	static const uint64_t ublock[] = {0x10010, 0x10110}, uwake[] = {0x10210, 0x10310};

	tb_init(b, START, END);
	tb_cpus(b, 8, NULL);
	tb_thread(b, APP, APP, "app");
	tb_thread(b, A, APP, "A");
	tb_thread(b, B, APP, "B");
	tb_thread(b, C, APP, "c\"x\\y");
	build_events(b);
	tb_stack(b, KS_BLOCK, 0, 5, kblock);
	tb_stack(b, US_BLOCK, 1, 2, ublock);
	tb_stack(b, KS_WAKE, 0, 4, kwake);
	tb_stack(b, US_WAKE, 1, 2, uwake);
	tb_ksym(b, 0xffffffff81000010ull, "bpf_prog_66b0cb07c508f338_tp_btf_sched_switch+0x462");
	tb_ksym(b, 0xffffffff81000020ull, "bpf_trace_run4+0xfc");
	tb_ksym(b, 0xffffffff81000030ull, "bpf_prog_6cb83f28854f23ad_tp_btf_sched_waking+0x419");
	tb_ksym(b, 0xffffffff81000040ull, "__traceiter_sched_waking+0x2b");
	tb_ksym(b, 0xffffffff81000110ull, "__schedule+0x10");
	tb_ksym(b, 0xffffffff81000220ull, "futex_wait+0x20");
	tb_ksym(b, 0xffffffff81000330ull, "do_futex+0x30");
	tb_ksym(b, 0xffffffff81000440ull, "try_to_wake_up+0x40");
	tb_ksym(b, 0xffffffff81000550ull, "futex_wake+0x50");
	tb_perfmap(b, APP,
		   "10000 100 Queue::pop;wait\n"
		   "10100 100 worker main\n"
		   "10200 100 Queue::push\n"
		   "10300 100 producer loop\n");
}

static int64_t vertex(const char *identity)
{
	for (uint32_t v = 0; v < g.a->merged.nvertices; v++)
		if (!strcmp(g.a->merged.vertices[v].identity, identity))
			return v;
	return -1;
}

static uint64_t weight(int64_t from, int64_t to)
{
	int64_t i = wperf_graph_find(&g.a->merged.graph, (uint32_t)from, (uint32_t)to);

	return i < 0 ? 0 : g.a->merged.graph.edges[i].weight;
}

static int setup(void **state)
{
	/* Two or three of the three threads are active at a time: with GAPP's
	 * default (1.5), no slice would be critical for the CMetric; with 3, all are. */
	struct wperf_analysis_opts o = {.min_parallelism = 3};
	struct wperf_error err = {0};

	(void)state;
	build_trace(&g.b);
	g.t = tb_open(&g.b);
	if (wperf_analyze(g.t, &o, &g.a, &err) < 0 || wperf_symbolizer_new(g.t, &g.sym, &err) < 0) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return -1;
	}
	g.va = vertex("app/A");
	g.vb = vertex("app/B");
	g.vc = vertex("app/c\"x\\y");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tb_analysis_free(g.t, g.a, g.sym);
	tb_release(&g.b);
	return 0;
}

/* Runs a writer into a NUL-terminated string (the caller frees it). */
static char *run(int (*writer)(const struct wperf_analysis *, struct wperf_symbolizer *,
			       const struct wperf_report_opts *, struct wperf_buf *),
		 const struct wperf_report_opts *o)
{
	struct wperf_buf b = {0};

	assert_int_equal(writer(g.a, g.sym, o, &b), 0);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	return (char *)b.data;
}

/* ---- the analysis this all rests on ---- */

static void test_the_knot(void **state)
{
	const struct wperf_knot *k = NULL;

	(void)state;
	assert_true(g.va >= 0 && g.vb >= 0 && g.vc >= 0);
	for (size_t i = 0; i < g.a->knots.nfinal; i++)
		if (g.a->knots.knots[i].kind == WPERF_KNOT)
			k = &g.a->knots.knots[i];
	assert_non_null(k);
	assert_int_equal(k->nvertices, 2);
	/* one edge above the threshold each way, one below */
	assert_true(weight(g.va, g.vb) >= g.a->threshold_ns);
	assert_true(weight(g.vb, g.va) >= g.a->threshold_ns);
	assert_true(weight(g.vc, g.va) > 0 && weight(g.vc, g.va) < g.a->threshold_ns);
}

/* ---- DOT ---- */

/* Runs dot -Tsvg on text; fails unless it exits 0 with an SVG. */
static void check_dot_parses(const char *text)
{
	char path[] = "/tmp/wperf-test-graph-XXXXXX.dot", cmd[256], svg[4096];
	int fd = mkstemps(path, 4), status;
	size_t got;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "dot -Tsvg '%s' 2>&1", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	got = fread(svg, 1, sizeof(svg) - 1, f);
	svg[got] = '\0';
	while (fgetc(f) != EOF) /* the rest */
		;
	status = pclose(f);
	unlink(path);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("dot failed: %s", svg);
	assert_non_null(strstr(svg, "<svg"));
}

static int have_dot(void)
{
	return system("command -v dot >/dev/null 2>&1") == 0;
}

/* The line drawing edge from -> to, or NULL. */
static const char *edge_line(const char *dot, int64_t from, int64_t to)
{
	char key[64];

	snprintf(key, sizeof(key), "\tv%lld -> v%lld [", (long long)from, (long long)to);
	return strstr(dot, key);
}

static void test_dot(void **state)
{
	char *dot = run(wperf_report_dot, NULL), *again = run(wperf_report_dot, NULL);
	char node[32];
	const char *cluster, *end;

	(void)state;
	assert_string_equal(dot, again); /* deterministic */
	assert_true(!strncmp(dot, "digraph wperf {", 15));
	/* the knot's cluster holds A and B, not C */
	cluster = strstr(dot, "subgraph cluster_knot1 {");
	assert_non_null(cluster);
	assert_non_null(strstr(cluster, "label=\"knot 1\""));
	end = strstr(cluster, "\n\t}\n");
	assert_non_null(end);
	snprintf(node, sizeof(node), "\t\tv%lld [", (long long)g.va);
	assert_true(strstr(cluster, node) && strstr(cluster, node) < end);
	snprintf(node, sizeof(node), "\t\tv%lld [", (long long)g.vb);
	assert_true(strstr(cluster, node) && strstr(cluster, node) < end);
	snprintf(node, sizeof(node), "\tv%lld [", (long long)g.vc);
	assert_true(strstr(dot, node) > end);
	/* the identity, escaped */
	assert_non_null(strstr(dot, "label=\"app/c\\\"x\\\\y\\n"));
	/* the legend says what an arrow is; a hover names an edge's ends and call site */
	assert_non_null(strstr(dot, "\tlegend [shape=plaintext"));
	assert_non_null(strstr(dot, "A \xe2\x86\x92 B: A waits for B"));
	assert_non_null(
	    strstr(edge_line(dot, g.va, g.vb),
		   "tooltip=\"app/A waits for app/B: 0.400 s, 39.9% of the window\\n"
		   "100%: blocked in Queue::pop;wait [jit], woken from Queue::push [jit]\""));
	assert_non_null(strstr(dot, "tooltip=\"app/A: thread, in knot 1\""));
	/* every edge: solid and bold at or above the threshold, dashed below */
	for (size_t i = 0; i < g.a->merged.graph.nedges; i++) {
		const struct wperf_edge *ed = &g.a->merged.graph.edges[i];
		const char *line = edge_line(dot, ed->from, ed->to), *eol;

		assert_non_null(line);
		eol = strchr(line, '\n');
		assert_non_null(eol);
		if (ed->weight >= g.a->threshold_ns)
			assert_true(strstr(line, "style=\"solid,bold\"") &&
				    strstr(line, "style=\"solid,bold\"") < eol);
		else
			assert_true(strstr(line, "style=\"dashed\"") &&
				    strstr(line, "style=\"dashed\"") < eol);
	}

	/* Graphviz reads it */
	if (!have_dot()) {
		free(dot);
		free(again);
		skip();
	}
	check_dot_parses(dot);
	free(dot);
	free(again);
}

/* top_edges 1: the heaviest edge and the knot's edges; C, left without one, goes. */
static void test_dot_top_edges(void **state)
{
	struct wperf_report_opts o = {.top_edges = 1};
	char *dot = run(wperf_report_dot, &o), node[32];
	size_t edges = 0;

	(void)state;
	for (const char *p = dot; (p = strstr(p, " -> ")); p++)
		edges++;
	assert_int_equal(edges, 2);
	assert_non_null(edge_line(dot, g.va, g.vb));
	assert_non_null(edge_line(dot, g.vb, g.va));
	snprintf(node, sizeof(node), "\tv%lld [", (long long)g.vc);
	assert_null(strstr(dot, node));
	assert_non_null(strstr(dot, "2 of 3 edges drawn"));
	free(dot);
}

/*
 * A graph built by hand, for what the trace above lacks: four merged workers
 * with a self-loop, a disk, a NIC, a timer (an irq vertex, left out with its
 * edges), a sink; the knot {workers, disk}.
 */
static void test_dot_shapes(void **state)
{
	struct wperf_vertex vs[5] = {
	    {.identity = "db/worker-#", .kind = WPERF_ENTITY_THREAD, .nmembers = 4, .cpu = 2.5},
	    {.identity = "disk:8:0", .kind = WPERF_ENTITY_DISK, .nmembers = 1, .cpu = 0.9},
	    {.identity = "nic:eth0", .kind = WPERF_ENTITY_NIC, .nmembers = 1, .cpu = 0.1},
	    {.identity = "timer", .kind = WPERF_ENTITY_IRQ, .nmembers = 1},
	    {.identity = "db/logger", .kind = WPERF_ENTITY_THREAD, .nmembers = 1, .cpu = 0.3},
	};
	struct wperf_edge es[] = {
	    {0, 0, 300 * MS}, {0, 1, 50 * MS}, {0, 3, 400 * MS}, {1, 0, 250 * MS}, {2, 4, 10 * MS},
	};
	uint32_t knot_vs[] = {0, 1}, sink_vs[] = {4};
	struct wperf_knot ks[] = {
	    {.kind = WPERF_KNOT, .vertices = knot_vs, .nvertices = 2, .parent = UINT32_MAX},
	    {.kind = WPERF_SINK, .vertices = sink_vs, .nvertices = 1, .parent = UINT32_MAX},
	};
	uint8_t ignored[5] = {0, 0, 0, 1, 0};
	struct wperf_analysis a = {.window = 1000 * MS, .threshold = 0.2, .threshold_ns = 200 * MS};
	struct wperf_buf b = {0};
	const char *text, *cluster_end;

	(void)state;
	a.merged.vertices = vs;
	a.merged.nvertices = 5;
	a.merged.graph = (struct wperf_graph){.nvertices = 5, .edges = es, .nedges = 5};
	a.knots = (struct wperf_knot_set){.knots = ks, .nknots = 2, .nfinal = 2};
	a.ignored = ignored;
	assert_int_equal(wperf_report_dot(&a, NULL, NULL, &b), 0);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	text = (const char *)b.data;
	cluster_end = strstr(text, "\n\t}\n");
	assert_non_null(cluster_end);
	/* merged, with a heavy self-loop: "*" and the members */
	assert_non_null(strstr(text, "\t\tv0 [label=\"db/worker-# * \xc3\x97"
				     "4\\n2.50 CPU\", shape=box"));
	assert_non_null(strstr(text, "\t\tv1 [label=\"disk:8:0\\nbusy 90%\", shape=cylinder"));
	assert_non_null(strstr(text, "\tv2 [label=\"nic:eth0\\nbusy 10%\", shape=hexagon"));
	assert_true(strstr(text, "\tv4 [label=\"db/logger") > cluster_end);
	assert_non_null(strstr(text, "fillcolor=\"#cfe2f3\"")); /* the sink */
	assert_non_null(
	    strstr(text, "\tv0 -> v0 [label=\"0.300 s\\n30.0%\", style=\"solid,bold\""));
	assert_non_null(strstr(text, "\tv0 -> v1 [label=\"0.050 s\\n5.0%\", style=\"dashed\""));
	assert_non_null(strstr(text, "\tv2 -> v4 ["));
	/* the timer and its edge are not drawn */
	assert_null(strstr(text, "timer"));
	assert_null(strstr(text, "v3"));
	if (have_dot())
		check_dot_parses(text);
	wperf_buf_release(&b);
}

/*
 * More than 60 edges and no top_edges: the 60 heaviest and the knot's. A chain
 * 0 -> 1 -> ... -> 99 weighing (v + 1) ms, and the knot {98, 99} closed by the
 * lightest edge of all, 99 -> 98.
 */
static void test_dot_default_cap(void **state)
{
	enum { N = 100 };
	struct wperf_vertex vs[N];
	struct wperf_edge es[N];
	uint8_t ignored[N] = {0};
	uint32_t knot_vs[] = {98, 99};
	struct wperf_knot k = {.kind = WPERF_KNOT, .vertices = knot_vs, .nvertices = 2};
	struct wperf_analysis a = {.window = 1000 * MS, .threshold = 0.2, .threshold_ns = 200 * MS};
	struct wperf_buf b = {0};
	size_t edges = 0;
	const char *text;

	(void)state;
	memset(vs, 0, sizeof(vs));
	for (uint32_t v = 0; v < N; v++) {
		snprintf(vs[v].identity, sizeof(vs[v].identity), "t%u", v);
		vs[v].nmembers = 1;
		es[v] = (struct wperf_edge){v, v + 1, (v + 1) * MS};
	}
	es[N - 1] = (struct wperf_edge){99, 98, 1};
	a.merged.vertices = vs;
	a.merged.nvertices = N;
	a.merged.graph = (struct wperf_graph){.nvertices = N, .edges = es, .nedges = N};
	a.knots = (struct wperf_knot_set){.knots = &k, .nknots = 1, .nfinal = 1};
	a.ignored = ignored;
	assert_int_equal(wperf_report_dot(&a, NULL, NULL, &b), 0);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	text = (const char *)b.data;
	for (const char *p = text; (p = strstr(p, " -> ")); p++)
		edges++;
	assert_int_equal(edges, 61);
	assert_non_null(strstr(text, "61 of 100 edges drawn"));
	assert_non_null(strstr(text, "\tv39 -> v40 ["));
	assert_null(strstr(text, "\tv38 -> v39 ["));
	assert_null(strstr(text, "\tv38 [")); /* left without an edge */
	assert_non_null(strstr(text, "\tv99 -> v98 [label=\"0.000 ms"));
	if (have_dot())
		check_dot_parses(text);
	wperf_buf_release(&b);
}

/* ---- folded stacks ---- */

static void test_folded(void **state)
{
	char *text = run(wperf_report_folded, NULL), *again = run(wperf_report_folded, NULL);
	const struct wperf_graph *gr = &g.a->merged.graph;
	uint64_t *sums = calloc(gr->nedges + 1, sizeof(*sums)), cmetric_us = 0, cmetric_ns = 0;
	char *save = NULL, want[1024];
	size_t lines = 0;
	regex_t re;

	(void)state;
	assert_non_null(sums);
	assert_string_equal(text, again);
	/* the chain of A waiting for B: waiter root first, "--", waker leaf first */
	snprintf(want, sizeof(want), "%s",
		 "app/A->app/B;worker_main_[jit];Queue::pop_wait_[jit];do_futex+0x30;"
		 "futex_wait+0x20;__schedule+0x10;--;try_to_wake_up+0x40;futex_wake+0x50;"
		 "Queue::push_[jit];producer_loop_[jit] ");
	assert_non_null(strstr(text, want));
	/* B's first wait began before the window: no stacks of its own */
	assert_non_null(strstr(text, "\napp/B->app/A;--;try_to_wake_up+0x40;"));

	assert_int_equal(regcomp(&re, "^[^ ]+ [0-9]+$", REG_EXTENDED | REG_NOSUB), 0);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t root = strcspn(line, "; ");
		unsigned long long us = strtoull(strrchr(line, ' ') + 1, NULL, 10);
		int found = 0;

		if (regexec(&re, line, 0, NULL, 0) != 0)
			fail_msg("not a folded line: \"%s\"", line);
		assert_true(us > 0);
		lines++;
		if (!strncmp(line, "cmetric;", 8)) {
			cmetric_us += us;
			continue;
		}
		/* which edge: its root frame is "FROM->TO" */
		for (size_t e = 0; e < gr->nedges && !found; e++) {
			char name[256];

			snprintf(name, sizeof(name), "%s->%s",
				 g.a->merged.vertices[gr->edges[e].from].identity,
				 g.a->merged.vertices[gr->edges[e].to].identity);
			if (strlen(name) == root && !strncmp(line, name, root)) {
				sums[e] += us;
				found = 1;
			}
		}
		if (!found)
			fail_msg("no edge for \"%s\"", line);
	}
	regfree(&re);
	assert_true(lines > 0);
	/* each edge's lines sum to its weight, to the microsecond */
	for (size_t e = 0; e < gr->nedges; e++) {
		double want_us = gr->edges[e].weight / 1e3;

		if (sums[e] + 1 < want_us || sums[e] > want_us + 1)
			fail_msg("edge %zu: %llu us in the lines, weight %.3f us", e,
				 (unsigned long long)sums[e], want_us);
	}
	/* the critical slices too (rounded per thread) */
	assert_true(g.a->cmetric.critical.n > 0);
	assert_true(cmetric_us > 0);
	for (size_t i = 0; i < g.a->cmetric.critical.n; i++)
		cmetric_ns += g.a->cmetric.critical.sites[i].weight;
	assert_true(cmetric_us * 1000 <= cmetric_ns + 500 * g.a->timeline->nentities);
	assert_true(cmetric_us * 1000 + 500 * g.a->timeline->nentities >= cmetric_ns);
	free(sums);
	free(text);
	free(again);
}

/* ---- the recorder's own frames ---- */

/* The first frame of stack key of the first call site of edge from -> to. */
static const char *first_frame(json_object *report, int64_t from, int64_t to, const char *key)
{
	json_object *edges, *v;

	assert_true(json_object_object_get_ex(report, "edges", &edges));
	for (size_t i = 0; i < json_object_array_length(edges); i++) {
		json_object *e = json_object_array_get_idx(edges, i), *sites, *stack;

		json_object_object_get_ex(e, "from", &v);
		if (json_object_get_int64(v) != from)
			continue;
		json_object_object_get_ex(e, "to", &v);
		if (json_object_get_int64(v) != to)
			continue;
		assert_true(json_object_object_get_ex(e, "call_sites", &sites));
		assert_true(json_object_array_length(sites) > 0);
		assert_true(
		    json_object_object_get_ex(json_object_array_get_idx(sites, 0), key, &stack));
		return json_object_get_string(json_object_array_get_idx(stack, 0));
	}
	fail_msg("no edge %lld -> %lld", (long long)from, (long long)to);
	return NULL;
}

/* Every writer begins a kernel stack at the kernel's first frame of its own. */
static void test_recorder_frames(void **state)
{
	int (*const writers[])(const struct wperf_analysis *, struct wperf_symbolizer *,
			       const struct wperf_report_opts *, struct wperf_buf *) = {
	    wperf_report_text, wperf_report_json, wperf_report_folded, wperf_report_dot};
	char *json = run(wperf_report_json, NULL), stack[256];
	json_object *report = json_tokener_parse(json);

	(void)state;
	for (size_t i = 0; i < sizeof(writers) / sizeof(*writers); i++) {
		char *text = run(writers[i], NULL);

		if (strstr(text, "bpf_") || strstr(text, "__traceiter"))
			fail_msg("writer %zu shows the recorder's frames:\n%s", i, text);
		free(text);
	}
	assert_non_null(report);
	assert_string_equal(first_frame(report, g.va, g.vb, "waiter_kernel"), "__schedule+0x10");
	assert_string_equal(first_frame(report, g.va, g.vb, "waker_kernel"), "try_to_wake_up+0x40");
	wperf_stack_text(g.sym, KS_WAKE, 0, 0, stack, sizeof(stack));
	assert_string_equal(stack, "try_to_wake_up+0x40\nfutex_wake+0x50");
	wperf_stack_text(g.sym, US_WAKE, 1, APP, stack, sizeof(stack));
	assert_string_equal(stack, "Queue::push [jit]\nproducer loop [jit]");
	json_object_put(report);
	free(json);
}

/* ---- Perfetto ---- */

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static double num(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(o));
	return json_object_get_double(v);
}

/* Every "ts" and "dur" written with exactly three decimals. */
static void check_decimals(const char *text, const char *key)
{
	for (const char *p = text; (p = strstr(p, key)); p++) {
		const char *q = p + strlen(key);
		size_t digits = strspn(q, "0123456789");

		assert_true(digits > 0);
		assert_int_equal(q[digits], '.');
		assert_int_equal(strspn(q + digits + 1, "0123456789"), 3);
	}
}

static void test_perfetto(void **state)
{
	char *text = run(wperf_report_perfetto, NULL), *again = run(wperf_report_perfetto, NULL);
	json_object *root, *events, *unit;
	int names = 0, slices = 0, waits_for_b = 0;
	/* flows by id - 1: how many starts and finishes, and their times */
	enum { MAX_FLOWS = 4096 };
	static double flow_s[MAX_FLOWS], flow_f[MAX_FLOWS];
	static int count_s[MAX_FLOWS], count_f[MAX_FLOWS];
	size_t nflows = 0;

	(void)state;
	assert_string_equal(text, again);
	root = json_tokener_parse(text);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "traceEvents", &events));
	assert_true(json_object_is_type(events, json_type_array));
	assert_true(json_object_object_get_ex(root, "displayTimeUnit", &unit));
	assert_string_equal(json_object_get_string(unit), "ms");
	check_decimals(text, "\"ts\":");
	check_decimals(text, "\"dur\":");
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *ev = json_object_array_get_idx(events, i), *args;
		const char *ph = str(ev, "ph"), *name = str(ev, "name");

		assert_non_null(ph);
		assert_non_null(name);
		if (!strcmp(ph, "M") && !strcmp(name, "thread_name")) {
			const char *tname;

			assert_true(json_object_object_get_ex(ev, "args", &args));
			tname = str(args, "name");
			/* A and B are knot 1's members, and say so; C is not */
			if ((!strcmp(tname, "A [knot 1]") && num(ev, "tid") == A) ||
			    (!strcmp(tname, "B [knot 1]") && num(ev, "tid") == B))
				names++;
			if (num(ev, "tid") == A || num(ev, "tid") == B)
				assert_true(num(ev, "pid") == APP);
			if (num(ev, "tid") == C)
				assert_string_equal(tname, "c\"x\\y");
		} else if (!strcmp(ph, "X")) {
			slices++;
			assert_true(num(ev, "dur") >= 0);
			assert_true(num(ev, "ts") >= 0);
			assert_true(num(ev, "ts") + num(ev, "dur") <= (END - START) / 1e3 + 1e-6);
			if (!strcmp(name, "waiting") && num(ev, "tid") == A) {
				assert_true(json_object_object_get_ex(ev, "args", &args));
				waits_for_b +=
				    str(args, "waker") && !strcmp(str(args, "waker"), "app/B");
			}
		} else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			int64_t id = (int64_t)num(ev, "id");

			assert_true(id > 0 && id <= MAX_FLOWS);
			assert_string_equal(name, "wakeup");
			nflows = (size_t)id > nflows ? (size_t)id : nflows;
			if (!strcmp(ph, "s")) {
				flow_s[id - 1] = num(ev, "ts");
				count_s[id - 1]++;
			} else {
				assert_string_equal(str(ev, "bp"), "e");
				flow_f[id - 1] = num(ev, "ts");
				count_f[id - 1]++;
			}
		}
	}
	assert_int_equal(names, 2);
	assert_true(slices > 400);
	assert_true(waits_for_b >= 99);
	/* ids 1..n, each one start and one finish at the same time */
	assert_true(nflows >= 200);
	for (size_t i = 0; i < nflows; i++) {
		assert_int_equal(count_s[i], 1);
		assert_int_equal(count_f[i], 1);
		assert_true(flow_s[i] == flow_f[i]);
	}
	json_object_put(root);
	free(text);
	free(again);
}

/* The Perfetto writer's events for a hand-built analysis; *root (put it) owns
 * them, *text (release it) is what the writer wrote. */
static json_object *perfetto_events(const struct wperf_analysis *a, struct wperf_buf *text,
				    json_object **root)
{
	json_object *events;

	assert_int_equal(wperf_report_perfetto(a, NULL, NULL, text), 0);
	assert_int_equal(wperf_buf_append(text, "", 1), 0);
	*root = json_tokener_parse((const char *)text->data);
	assert_non_null(*root);
	assert_true(json_object_object_get_ex(*root, "traceEvents", &events));
	return events;
}

/*
 * Past 2,000,000 segments only the entities in final knots get a track: a
 * hand-built timeline of a knotted thread with 3 segments and an outsider with
 * 2,000,000.
 */
static void test_perfetto_cap(void **state)
{
	const size_t big = 2000000;
	struct wperf_entity ents[3] = {
	    {.kind = WPERF_ENTITY_THREAD,
	     .tid = 201,
	     .tgid = 200,
	     .name = "hot",
	     .process = "srv",
	     .first_segment = 0,
	     .nsegments = 3},
	    {.kind = WPERF_ENTITY_THREAD,
	     .tid = 202,
	     .tgid = 200,
	     .name = "big",
	     .process = "srv",
	     .first_segment = 3,
	     .nsegments = (uint32_t)big},
	    {.kind = WPERF_ENTITY_IRQ, .name = "timer", .first_segment = 3 + (uint32_t)big},
	};
	struct wperf_vertex vs[3] = {{.identity = "srv/hot"},
				     {.identity = "srv/big"},
				     {.identity = "timer", .kind = WPERF_ENTITY_IRQ}};
	uint32_t vertex_of[3] = {0, 1, 2}, knot_vs[] = {0};
	struct wperf_knot k = {.kind = WPERF_KNOT, .vertices = knot_vs, .nvertices = 1};
	struct wperf_timeline tl = {.start = 0, .end = 10 * MS, .entities = ents, .nentities = 3};
	struct wperf_analysis a = {.start = 0, .end = 10 * MS, .window = 10 * MS, .timeline = &tl};
	struct wperf_segment *segs = calloc(big + 3, sizeof(*segs));
	struct wperf_buf b = {0};
	json_object *root, *events;
	int notes = 0, hot = 0, slices = 0;

	(void)state;
	assert_non_null(segs);
	/* hot: [0, 2), [2, 3), [3, 10) ms; big: many short ones over [0, 10) ms */
	segs[0] = (struct wperf_segment){.end = 2 * MS, .state = WPERF_SEG_RUNNING};
	segs[1] = (struct wperf_segment){.end = 3 * MS, .waker = 1, .state = WPERF_SEG_WAITING};
	segs[2] = (struct wperf_segment){.end = 10 * MS, .waker = 0, .state = WPERF_SEG_WAITING};
	for (size_t i = 3; i < big + 3; i++)
		segs[i] = (struct wperf_segment){.end = (i - 2) * 10 * MS / big};
	ents[0].segments = segs;
	ents[1].segments = segs + 3;
	tl.nsegments = big + 3;
	a.merged.vertices = vs;
	a.merged.nvertices = 3;
	a.merged.vertex_of = vertex_of;
	a.knots = (struct wperf_knot_set){.knots = &k, .nknots = 1, .nfinal = 1};

	events = perfetto_events(&a, &b, &root);
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *ev = json_object_array_get_idx(events, i), *args;
		const char *name = str(ev, "name");

		notes += !strcmp(name, "wperf_note");
		if (!strcmp(name, "thread_name")) {
			assert_true(json_object_object_get_ex(ev, "args", &args));
			assert_string_equal(str(args, "name"), "hot [knot 1]");
			hot++;
		}
		if (!strcmp(str(ev, "ph"), "X")) {
			assert_true(num(ev, "tid") == 201);
			slices++;
		}
		/* the one wakeup by a kept track is the self-wakeup at 10 ms */
		if (!strcmp(str(ev, "ph"), "s") || !strcmp(str(ev, "ph"), "f"))
			assert_true(num(ev, "tid") == 201 && num(ev, "ts") == 10000.0);
	}
	assert_int_equal(notes, 1);
	assert_int_equal(hot, 1);
	assert_int_equal(slices, 3);
	assert_non_null(strstr((const char *)b.data, "\"waker\":\"srv/big\""));
	json_object_put(root);
	wperf_buf_release(&b);
	free(segs);
}

/*
 * Each disk and NIC is a process of its own, named after it, with a pid no
 * thread has: never pid 0, where viewers would lump them together.
 */
static void test_perfetto_devices(void **state)
{
	struct wperf_segment segs[3] = {
	    {.end = 4 * MS, .state = WPERF_SEG_RUNNING},
	    {.end = 4 * MS, .state = WPERF_SEG_RUNNING},
	    {.end = 4 * MS, .state = WPERF_SEG_RUNNING},
	};
	struct wperf_entity ents[3] = {
	    {.kind = WPERF_ENTITY_THREAD,
	     .tid = 301,
	     .tgid = 300,
	     .name = "main",
	     .process = "srv",
	     .segments = segs,
	     .nsegments = 1},
	    {.kind = WPERF_ENTITY_DISK, .name = "disk:8:0", .segments = segs + 1, .nsegments = 1},
	    {.kind = WPERF_ENTITY_NIC, .name = "nic:eth0", .segments = segs + 2, .nsegments = 1},
	};
	struct wperf_vertex vs[3] = {{.identity = "srv"},
				     {.identity = "disk:8:0", .kind = WPERF_ENTITY_DISK},
				     {.identity = "nic:eth0", .kind = WPERF_ENTITY_NIC}};
	uint32_t vertex_of[3] = {0, 1, 2};
	struct wperf_timeline tl = {
	    .end = 4 * MS, .entities = ents, .nentities = 3, .nsegments = 3};
	struct wperf_analysis a = {.end = 4 * MS, .window = 4 * MS, .timeline = &tl};
	double pid_of[3] = {0}; /* thread, disk, NIC: pid of the process named so */
	struct wperf_buf b = {0};
	json_object *root, *events;

	(void)state;
	a.merged.vertices = vs;
	a.merged.nvertices = 3;
	a.merged.vertex_of = vertex_of;
	events = perfetto_events(&a, &b, &root);
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *ev = json_object_array_get_idx(events, i), *args;
		const char *name;

		assert_true(num(ev, "pid") != 0);
		if (strcmp(str(ev, "name"), "process_name"))
			continue;
		assert_true(json_object_object_get_ex(ev, "args", &args));
		name = str(args, "name");
		for (int k = 0; k < 3; k++)
			if (!strcmp(name, k ? ents[k].name : "srv"))
				pid_of[k] = num(ev, "pid");
	}
	assert_true(pid_of[0] == 300);
	assert_true(pid_of[1] > 301 && pid_of[2] > 301 && pid_of[1] != pid_of[2]);
	/* each device's slice is on its own process's track */
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *ev = json_object_array_get_idx(events, i);

		if (!strcmp(str(ev, "ph"), "X") && num(ev, "pid") != 300)
			assert_true((num(ev, "pid") == pid_of[1] || num(ev, "pid") == pid_of[2]) &&
				    num(ev, "tid") == num(ev, "pid"));
	}
	json_object_put(root);
	wperf_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_the_knot),	    cmocka_unit_test(test_dot),
	    cmocka_unit_test(test_dot_top_edges),   cmocka_unit_test(test_dot_shapes),
	    cmocka_unit_test(test_dot_default_cap), cmocka_unit_test(test_folded),
	    cmocka_unit_test(test_recorder_frames), cmocka_unit_test(test_perfetto),
	    cmocka_unit_test(test_perfetto_cap),    cmocka_unit_test(test_perfetto_devices),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
