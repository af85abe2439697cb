/* SPDX-License-Identifier: MIT */
/*
 * core/gate/run_diff: two runs' edges side by side, each edge once, under its
 * own names. The runs are built by hand, as a recording of fig1 gives them:
 * the disk waits for B in both, for the process's main thread in one only.
 */
#include <json-c/json.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/gate/run_diff.h"

struct edge {
	const char *from, *to;
	double share;
};

static void make_run(struct wperf_run *r, const struct edge *e, size_t n)
{
	wperf_run_init(r);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(wperf_run_add_edge(r, e[i].from, e[i].to, e[i].share), 0);
}

/* The diff's edge from -> to: its shares in A and B (NAN: none), and how
 * many times it is listed. */
static int find_edge(struct json_object *edges, const char *from, const char *to, double share[2])
{
	int found = 0;

	for (size_t i = 0; i < json_object_array_length(edges); i++) {
		struct json_object *e = json_object_array_get_idx(edges, i), *v;

		if (strcmp(json_object_get_string(json_object_object_get(e, "from")), from) ||
		    strcmp(json_object_get_string(json_object_object_get(e, "to")), to))
			continue;
		found++;
		v = json_object_object_get(e, "a");
		share[0] = v ? json_object_get_double(v) : NAN;
		v = json_object_object_get(e, "b");
		share[1] = v ? json_object_get_double(v) : NAN;
	}
	return found;
}

/* B's disk -> fig1 sorts before disk -> fig1/B, which A has alone of the
 * two: the row for B's edge was printed with A's names, so that disk ->
 * fig1/B was listed twice and disk -> fig1 not at all. */
static void test_each_edge_once_under_its_names(void **state)
{
	const struct edge a_edges[] = {
	    {"disk:254:0", "fig1/B", 0.794},
	    {"fig1/A", "fig1/B", 0.627},
	    {"fig1/B", "disk:254:0", 0.549},
	};
	const struct edge b_edges[] = {
	    {"disk:254:0", "fig1", 0.013},
	    {"disk:254:0", "fig1/B", 1.458},
	    {"fig1/B", "disk:254:0", 0.529},
	};
	struct wperf_run a, b;
	struct wperf_run_diff d = {.name = {"a.trace", "b.trace"}, .run = {&a, &b}};
	struct wperf_buf json = {0}, text = {0};
	struct json_object *o, *edges;
	double share[2];

	(void)state;
	make_run(&a, a_edges, 3);
	make_run(&b, b_edges, 3);
	assert_int_equal(wperf_run_diff_json(&d, &json), 0);
	o = json_tokener_parse((const char *)json.data);
	assert_non_null(o);
	edges = json_object_object_get(o, "edges");
	assert_int_equal(json_object_array_length(edges), 4);
	assert_int_equal(find_edge(edges, "disk:254:0", "fig1/B", share), 1);
	assert_true(share[0] == 0.794 && share[1] == 1.458);
	assert_int_equal(find_edge(edges, "disk:254:0", "fig1", share), 1);
	assert_true(isnan(share[0]) && share[1] == 0.013);
	assert_int_equal(find_edge(edges, "fig1/A", "fig1/B", share), 1);
	assert_true(share[0] == 0.627 && isnan(share[1]));
	assert_int_equal(find_edge(edges, "fig1/B", "disk:254:0", share), 1);
	/* the text says the same */
	assert_int_equal(wperf_run_diff_text(&d, &text), 0);
	assert_non_null(
	    strstr((const char *)text.data, "       -     1.3%    +1.3%  disk:254:0 -> fig1\n"));
	assert_non_null(
	    strstr((const char *)text.data, "    79.4%   145.8%   +66.4%  disk:254:0 -> fig1/B\n"));
	json_object_put(o);
	wperf_buf_release(&json);
	wperf_buf_release(&text);
	wperf_run_release(&a);
	wperf_run_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_each_edge_once_under_its_names),
	};

	return cmocka_run_group_tests_name("two runs side by side", tests, NULL, NULL);
}
