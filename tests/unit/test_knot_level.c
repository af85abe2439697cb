/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the level of the knot search (core/analysis/knot_level.c): the
 * answer does not jump when one edge crosses a fixed cut, and it changes only
 * where two answers are about equally stable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/analysis/graph.h"
#include "core/analysis/knot_level.h"
#include "core/analysis/knots.h"

enum { A, B, X, NV };

#define WINDOW 1000
#define MAX    200 /* the refinement threshold: 20% of the window */

/*
 * A and B wait for each other (50% and 40% of the window); B also waits for
 * X, which waits for nobody, w of the window. Below w the whole graph counts
 * and X is the sink everything ends in; above, {A, B} is a knot.
 */
static void two_answers(struct wperf_graph *g, uint64_t w)
{
	assert_int_equal(wperf_graph_init(g, NV), 0);
	assert_int_equal(wperf_graph_add(g, A, B, 500), 0);
	assert_int_equal(wperf_graph_add(g, B, A, 400), 0);
	assert_int_equal(wperf_graph_add(g, B, X, w), 0);
	wperf_graph_finish(g);
}

/* The final knots of g less its edges under level: is {A, B} a knot? */
static int ab_is_the_knot(const struct wperf_graph *g, uint64_t level)
{
	struct wperf_knot_opts ko = {.threshold = MAX};
	struct wperf_graph cut;
	struct wperf_knot_set s = {0};
	struct wperf_error err = {0};
	int ab;

	assert_int_equal(wperf_graph_init(&cut, NV), 0);
	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].weight >= level)
			assert_int_equal(wperf_graph_add(&cut, g->edges[i].from, g->edges[i].to,
							 g->edges[i].weight),
					 0);
	wperf_graph_finish(&cut);
	assert_int_equal(wperf_find_knots(&cut, &ko, &s, &err), 0);
	/* {A, B} and X, which waits for nobody at any level; or X alone */
	ab = s.knots[0].kind == WPERF_KNOT && s.knots[0].nvertices == 2;
	assert_int_equal(s.nfinal, ab ? 2 : 1);
	assert_true(s.knots[ab].kind == WPERF_SINK && s.knots[ab].vertices[0] == X);
	wperf_knot_set_release(&s);
	wperf_graph_release(&cut);
	return ab;
}

static uint64_t level_of(const struct wperf_graph *g)
{
	struct wperf_knot_opts ko = {.threshold = MAX};
	struct wperf_error err = {0};
	uint64_t level = 0;

	assert_int_equal(wperf_knot_level(g, &ko, MAX, &level, &err), 0);
	assert_true(level > 0 && level <= MAX);
	return level;
}

/* B -> X at 4.9% and at 5.1% of the window: a cut at 5% answers X for one
 * and {A, B} for the other; the stable level answers {A, B} for both, the
 * middle of (w, 20%]. */
static void test_no_jump_at_a_fixed_cut(void **state)
{
	struct wperf_graph g;

	(void)state;
	for (uint64_t w = 49; w <= 51; w += 2) {
		two_answers(&g, w);
		assert_int_equal(ab_is_the_knot(&g, WINDOW / 20), w < WINDOW / 20);
		assert_int_equal(level_of(&g), w + (MAX - w) / 2);
		assert_true(ab_is_the_knot(&g, level_of(&g)));
		wperf_graph_release(&g);
	}
}

/* The answer moves with the weights: {A, B} while the range above w is the
 * wider (w under 10%); X once the range under w is as wide (a tie goes to the
 * lower range, which leaves fewer edges out): B then waits for X long enough
 * that X holds the knot's members back. */
static void test_wider_range_wins(void **state)
{
	struct wperf_graph g;

	(void)state;
	for (uint64_t w = 10; w < MAX; w += 10) {
		uint64_t level;

		two_answers(&g, w);
		level = level_of(&g);
		assert_int_equal(ab_is_the_knot(&g, level), MAX - w > w);
		assert_int_equal(level, MAX - w > w ? w + (MAX - w) / 2 : w / 2);
		wperf_graph_release(&g);
	}
}

/* No edge under the maximum, and no maximum. */
static void test_edges(void **state)
{
	struct wperf_knot_opts ko = {.threshold = MAX};
	struct wperf_error err = {0};
	struct wperf_graph g;
	uint64_t level = 1;

	(void)state;
	two_answers(&g, 300);
	assert_int_equal(wperf_knot_level(&g, &ko, MAX, &level, &err), 0);
	assert_int_equal(level, MAX / 2);
	assert_int_equal(wperf_knot_level(&g, &ko, 0, &level, &err), 0);
	assert_int_equal(level, 0);
	wperf_graph_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_jump_at_a_fixed_cut),
	    cmocka_unit_test(test_wider_range_wins),
	    cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
