/* SPDX-License-Identifier: MIT */
/*
 * The lists of the text and JSON reports (core/report/report_text.c, report_json.c)
 * on one hand-made trace of 1 s, with exact numbers:
 *
 *  - process "app", the target: thread P paces the work with a timer. In each
 *    of 99 rounds of 10 ms it runs 1 ms, hands an item to thread C and sleeps
 *    9 ms until the timer interrupt wakes it. C runs 1 ms on each item, then
 *    waits for P: 9 ms a round, 8 of them while P sleeps on the timer. After
 *    the last item C waits until the window ends (18 ms, no waker). The main
 *    thread app waits 100 ms for a thread of the harness (left out of the
 *    analysis: no waker), runs 10 ms, then waits until the end (690 ms).
 *  - process "other", a stranger: X waits 400 ms for Y, which runs all the
 *    time (a sink nobody of the target waits for).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "core/analysis/analysis.h"
#include "core/report/report.h"
#include "core/gate/runset.h"
#include "core/analysis/symbolize.h"
#include "core/trace/trace.h"
#include "tests/lib/trace_builder.h"

#define MS    1000000ull
#define START (1000 * MS)
#define END   (START + 1000 * MS)

#define APP	100
#define P	101
#define C	102
#define OTHER	200
#define X	201
#define Y	202
#define HARNESS 300

#define ROUNDS 99

static struct {
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_analysis *a;
	struct wperf_symbolizer *sym;
} g;

static void build_trace(struct trace_builder *b)
{
	tb_init(b, START, END);
	tb_cpus(b, 5, NULL);
	tb_meta(b, WPERF_META_HARNESS_PIDS, "300");
	tb_thread(b, APP, APP, "app");
	tb_thread(b, P, APP, "P");
	tb_thread(b, C, APP, "C");
	tb_thread(b, OTHER, OTHER, "other");
	tb_thread(b, X, OTHER, "X");
	tb_thread(b, Y, OTHER, "Y");
	tb_thread(b, HARNESS, HARNESS, "runner");
	for (uint64_t k = 0; k < ROUNDS; k++) {
		uint64_t base = START + k * 10 * MS;

		/* P (CPU 0) hands C (CPU 1) an item and sleeps until the timer */
		tb_wake(b, base + 1 * MS, 0, C, P, WPERF_NO_STACK, WPERF_NO_STACK);
		tb_switch(b, base + 1 * MS, 0, P, 0, 0, WPERF_NO_STACK, WPERF_NO_STACK);
		tb_switch(b, base + 1 * MS, 1, 0, C, 0, WPERF_NO_STACK, WPERF_NO_STACK);
		tb_switch(b, base + 2 * MS, 1, C, 0, 0, WPERF_NO_STACK, WPERF_NO_STACK);
		tb_wake_irq(b, base + 10 * MS, 0, P, WPERF_CTX_HARDIRQ, WPERF_IRQ_VECTOR);
		tb_switch(b, base + 10 * MS, 0, 0, P, 0, WPERF_NO_STACK, WPERF_NO_STACK);
	}
	/* app (CPU 3): woken by the harness, which the analysis leaves out */
	tb_switch(b, START + 200 * MS, 3, APP, 0, 0, WPERF_NO_STACK, WPERF_NO_STACK);
	tb_wake(b, START + 300 * MS, 2, APP, HARNESS, WPERF_NO_STACK, WPERF_NO_STACK);
	tb_switch(b, START + 300 * MS, 3, 0, APP, 0, WPERF_NO_STACK, WPERF_NO_STACK);
	tb_switch(b, START + 310 * MS, 3, APP, 0, 0, WPERF_NO_STACK, WPERF_NO_STACK);
	/* X (CPU 2) waits for Y, which runs on CPU 4 all along */
	tb_switch(b, START + 100 * MS, 2, X, 0, 0, WPERF_NO_STACK, WPERF_NO_STACK);
	tb_wake(b, START + 500 * MS, 4, X, Y, WPERF_NO_STACK, WPERF_NO_STACK);
	tb_switch(b, START + 500 * MS, 2, 0, X, 0, WPERF_NO_STACK, WPERF_NO_STACK);
	tb_sort(b);
}

static int setup(void **state)
{
	(void)state;
	build_trace(&g.b);
	if (tb_analyze(&g.b, &g.t, &g.a, &g.sym) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tb_analysis_free(g.t, g.a, g.sym);
	tb_release(&g.b);
	return 0;
}

static const struct wperf_vertex *vertex(const char *identity)
{
	for (uint32_t v = 0; v < g.a->merged.nvertices; v++)
		if (!strcmp(g.a->merged.vertices[v].identity, identity))
			return &g.a->merged.vertices[v];
	fail_msg("no vertex %s", identity);
	return NULL;
}

/* A writer's output for target (NULL: --all), NUL-terminated; the caller frees it. */
static char *report(int (*writer)(const struct wperf_analysis *, struct wperf_symbolizer *,
				  const struct wperf_report_opts *, struct wperf_buf *),
		    const char *target)
{
	struct wperf_report_opts o = {.target = target};
	struct wperf_buf b = {0};

	assert_int_equal(writer(g.a, g.sym, &o, &b), 0);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	return (char *)b.data;
}

static void assert_has(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("no \"%s\" in:\n%s", line, text);
}

static void assert_lacks(const char *text, const char *what)
{
	if (strstr(text, what))
		fail_msg("\"%s\" in:\n%s", what, text);
}

/* ---- the numbers the lists come from ---- */

static void test_waits_by_what_ended_them(void **state)
{
	const struct wperf_vertex *app = vertex("app"), *p = vertex("app/P"), *c = vertex("app/C");

	(void)state;
	/* app: 100 ms for the harness, then 690 ms until the end */
	assert_int_equal(app->waiting_ns, 790 * MS);
	assert_int_equal(app->no_waker_ns, 790 * MS);
	assert_int_equal(app->unfinished_ns, 690 * MS);
	assert_int_equal(app->timer_wait_ns, 0);
	/* P: 9 ms on the timer in each round */
	assert_int_equal(p->waiting_ns, ROUNDS * 9 * MS);
	assert_int_equal(p->timer_wait_ns, ROUNDS * 9 * MS);
	assert_int_equal(p->no_waker_ns, 0);
	/* C: 1 ms before the first item, 9 ms after each but the last, then 18 */
	assert_int_equal(c->waiting_ns, (1 + (ROUNDS - 1) * 9 + 18) * MS);
	assert_int_equal(c->no_waker_ns, 18 * MS);
	assert_int_equal(c->unfinished_ns, 18 * MS);
	assert_int_equal(c->timer_wait_ns, 0);
}

static void test_timer_paced_thread_found(void **state)
{
	uint8_t *mine = calloc(g.a->merged.nvertices, 1);
	struct wperf_timer_paced *p;
	size_t n;

	(void)state;
	wperf_analysis_mark_target(g.a, "app", mine);
	assert_int_equal(wperf_timer_paced_threads(g.a, mine, &p, &n), 0);
	/* app sleeps too, but nobody waits for it */
	assert_int_equal(n, 1);
	assert_ptr_equal(&g.a->merged.vertices[p[0].vertex], vertex("app/P"));
	assert_int_equal(p[0].sleep_ns, ROUNDS * 9 * MS);
	/* C's waits while P slept: 8 ms of each of its 98 waits for the next item */
	assert_int_equal(p[0].held_ns, (ROUNDS - 1) * 8 * MS);
	free(p);
	free(mine);
}

/* The run the gate keeps, and summary.json, name it. */
static void test_timer_paced_in_the_run(void **state)
{
	struct wperf_error err = {0};
	struct wperf_run run;

	(void)state;
	assert_int_equal(wperf_run_from_analysis(g.a, "app", NAN, NULL, &run, &err), 0);
	assert_int_equal(run.timer_paced.n, 1);
	assert_string_equal(run.timer_paced.ids[0], "app/P");
	wperf_run_release(&run);
}

/* ---- the text ---- */

static void test_text_shows_the_target(void **state)
{
	char *text = report(wperf_report_text, "app");

	(void)state;
	assert_has(text, "paced by a timer");
	assert_has(text, "    app/P: asleep on timers 0.891 s (89.1%), others waiting meanwhile "
			 "0.784 s (78.4%)\n"
			 "        waited for by app/C 0.883 s (88.3%)\n");
	assert_has(text, "    app/C -> app/P  0.883 s  88.3%\n");
	/* the stranger's wait and sink are counted, not shown */
	assert_lacks(text, "other/X -> other/Y  ");
	assert_lacks(text, "sink: other/Y");
	assert_has(text, "    (1 wait of other processes left out, the longest other/X -> "
			 "other/Y 0.400 s 40.0%: --all shows them, the JSON lists every edge)\n");
	assert_has(text, "set aside as mostly idle (they wait for nobody): app, app/C, app/P\n\n"
			 "longest waits of the target's threads outside the knots");
	/* the waits the graph does not explain, most first */
	assert_has(text,
		   "waits with no waker (the graph cannot explain them): 0.808 s of the "
		   "target's threads' 2.582 s of waiting\n"
		   "    app                                      0.790 s  79.0% of the window "
		   "(0.690 s still waiting when it ended)\n"
		   "    app/C                                    0.018 s  1.8% of the window "
		   "(0.018 s still waiting when it ended)\n\n");
	/* the CMetric ranks the target's threads only */
	assert_lacks(text, "    other/Y ");
	assert_has(text, "    (2 threads of other processes left out: --all ranks them)\n");
	free(text);
}

static void test_text_all_shows_everything(void **state)
{
	char *text = report(wperf_report_text, NULL);

	(void)state;
	assert_has(text, "    other/X -> other/Y  0.400 s  40.0%\n");
	assert_has(text, "sink: other/Y, 1.00 CPUs");
	assert_lacks(text, "of other processes left out");
	assert_has(text, "    other/Y ");
	free(text);
}

/* ---- the JSON ---- */

static json_object *field(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no field %s", key);
	return v;
}

static void test_json_fields(void **state)
{
	char *text = report(wperf_report_json, "app");
	json_object *root = json_tokener_parse(text), *vs, *paced, *p;
	int checked = 0;

	(void)state;
	assert_non_null(root);
	vs = field(root, "vertices");
	for (size_t i = 0; i < json_object_array_length(vs); i++) {
		json_object *v = json_object_array_get_idx(vs, i);
		const char *id = json_object_get_string(field(v, "identity"));
		int mine = json_object_get_boolean(field(v, "target"));

		if (!strcmp(id, "app/C")) {
			assert_true(mine);
			assert_int_equal(json_object_get_uint64(field(v, "no_waker_ns")), 18 * MS);
			assert_int_equal(json_object_get_uint64(field(v, "unfinished_ns")),
					 18 * MS);
			checked++;
		} else if (!strcmp(id, "app/P")) {
			assert_true(mine);
			assert_int_equal(json_object_get_uint64(field(v, "timer_wait_ns")),
					 ROUNDS * 9 * MS);
			checked++;
		} else if (!strcmp(id, "other/X")) {
			assert_false(mine);
			checked++;
		}
	}
	assert_int_equal(checked, 3);
	paced = field(root, "timer_paced");
	assert_int_equal(json_object_array_length(paced), 1);
	p = json_object_array_get_idx(paced, 0);
	assert_string_equal(
	    json_object_get_string(
		field(json_object_array_get_idx(vs, json_object_get_int(field(p, "vertex"))),
		      "identity")),
	    "app/P");
	assert_int_equal(json_object_get_uint64(field(p, "sleep_ns")), ROUNDS * 9 * MS);
	assert_int_equal(json_object_get_uint64(field(p, "held_ns")), (ROUNDS - 1) * 8 * MS);
	json_object_put(root);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_waits_by_what_ended_them),
	    cmocka_unit_test(test_timer_paced_thread_found),
	    cmocka_unit_test(test_timer_paced_in_the_run),
	    cmocka_unit_test(test_text_shows_the_target),
	    cmocka_unit_test(test_text_all_shows_everything),
	    cmocka_unit_test(test_json_fields),
	};

	return cmocka_run_group_tests_name("report lists", tests, setup, teardown);
}
