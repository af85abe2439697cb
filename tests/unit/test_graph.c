/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the wait-for graph (core/analysis/graph.c): accumulating weights,
 * merging, the sorted read-only form and its lookups.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/analysis/graph.h"

/* A small deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static void assert_sorted_unique(const struct wperf_graph *g)
{
	for (size_t e = 1; e < g->nedges; e++) {
		const struct wperf_edge *a = &g->edges[e - 1], *b = &g->edges[e];

		assert_true(a->from < b->from || (a->from == b->from && a->to < b->to));
	}
}

static void test_empty(void **state)
{
	struct wperf_graph g = {0};
	size_t first = 99, n = 99;

	(void)state;
	/* a zeroed struct is an empty graph: lookups work, release is fine */
	wperf_graph_finish(&g);
	wperf_graph_out(&g, 0, &first, &n);
	assert_int_equal(n, 0);
	assert_int_equal(wperf_graph_find(&g, 0, 0), -1);
	assert_int_equal(wperf_graph_add(&g, 0, 0, 1), -EINVAL); /* no vertices */
	wperf_graph_release(&g);
	assert_int_equal(wperf_graph_init(&g, 3), 0);
	assert_int_equal(g.nvertices, 3);
	assert_int_equal(g.nedges, 0);
	wperf_graph_release(&g);
	assert_null(g.edges);
}

static void test_accumulate(void **state)
{
	struct wperf_graph g;

	(void)state;
	assert_int_equal(wperf_graph_init(&g, 4), 0);
	assert_int_equal(wperf_graph_add(&g, 0, 1, 5), 0);
	assert_int_equal(wperf_graph_add(&g, 2, 3, 1), 0);
	assert_int_equal(wperf_graph_add(&g, 0, 1, 7), 0);
	assert_int_equal(wperf_graph_add(&g, 1, 0, 3), 0); /* the other direction is another edge */
	assert_int_equal(wperf_graph_add(&g, 0, 1, 0), 0);
	assert_int_equal(wperf_graph_add(&g, 3, 0, 0), 0); /* a zero weight still makes the edge */
	assert_int_equal(g.nedges, 4);
	assert_int_equal(wperf_graph_add(&g, 4, 0, 1), -EINVAL);
	assert_int_equal(wperf_graph_add(&g, 0, 4, 1), -EINVAL);
	assert_int_equal(g.nedges, 4);
	wperf_graph_finish(&g);
	assert_null(g.slots);
	assert_int_equal(g.nedges, 4);
	assert_int_equal(wperf_graph_find(&g, 0, 1), 0);
	assert_int_equal(g.edges[0].weight, 12);
	assert_int_equal(g.edges[wperf_graph_find(&g, 1, 0)].weight, 3);
	assert_int_equal(g.edges[wperf_graph_find(&g, 2, 3)].weight, 1);
	assert_int_equal(g.edges[wperf_graph_find(&g, 3, 0)].weight, 0);
	wperf_graph_release(&g);
}

static void test_finish_order_out_find(void **state)
{
	struct wperf_graph g;
	/* added out of order; vertex 2 and 5 have no edges out */
	static const uint32_t adds[][2] = {{4, 1}, {0, 3}, {3, 3}, {1, 0}, {0, 1}, {4, 0},
					   {3, 0}, {0, 2}, {1, 4}, {4, 5}, {3, 1}};
	static const uint32_t sorted[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 4}, {3, 0},
					     {3, 1}, {3, 3}, {4, 0}, {4, 1}, {4, 5}};
	static const size_t want_first[] = {0, 3, 5, 5, 8, 11};
	static const size_t want_n[] = {3, 2, 0, 3, 3, 0};
	size_t first, n;

	(void)state;
	assert_int_equal(wperf_graph_init(&g, 6), 0);
	for (size_t i = 0; i < sizeof(adds) / sizeof(adds[0]); i++)
		assert_int_equal(wperf_graph_add(&g, adds[i][0], adds[i][1], 10 + i), 0);
	wperf_graph_finish(&g);
	assert_int_equal(g.nedges, 11);
	for (size_t e = 0; e < g.nedges; e++) {
		assert_int_equal(g.edges[e].from, sorted[e][0]);
		assert_int_equal(g.edges[e].to, sorted[e][1]);
	}
	/* each edge keeps its weight through the sort */
	for (size_t i = 0; i < sizeof(adds) / sizeof(adds[0]); i++)
		assert_int_equal(g.edges[wperf_graph_find(&g, adds[i][0], adds[i][1])].weight,
				 10 + i);
	for (uint32_t v = 0; v < 6; v++) {
		wperf_graph_out(&g, v, &first, &n);
		assert_int_equal(n, want_n[v]);
		if (n)
			assert_int_equal(first, want_first[v]);
		for (size_t e = first; e < first + n; e++)
			assert_int_equal(g.edges[e].from, v);
	}
	/* a vertex past the end has no edges */
	wperf_graph_out(&g, 100, &first, &n);
	assert_int_equal(n, 0);
	wperf_graph_out(&g, UINT32_MAX, &first, &n);
	assert_int_equal(n, 0);
	/* find: every edge, and misses before, between and after */
	for (size_t e = 0; e < g.nedges; e++)
		assert_int_equal(wperf_graph_find(&g, sorted[e][0], sorted[e][1]), (int64_t)e);
	assert_int_equal(wperf_graph_find(&g, 0, 0), -1);
	assert_int_equal(wperf_graph_find(&g, 2, 0), -1);
	assert_int_equal(wperf_graph_find(&g, 3, 2), -1);
	assert_int_equal(wperf_graph_find(&g, 5, 5), -1);
	assert_int_equal(wperf_graph_find(&g, UINT32_MAX, UINT32_MAX), -1);
	wperf_graph_release(&g);
}

static void test_self_loops(void **state)
{
	struct wperf_graph g;
	size_t first, n;

	(void)state;
	assert_int_equal(wperf_graph_init(&g, 3), 0);
	assert_int_equal(wperf_graph_add(&g, 1, 1, 4), 0);
	assert_int_equal(wperf_graph_add(&g, 1, 2, 1), 0);
	assert_int_equal(wperf_graph_add(&g, 1, 1, 6), 0);
	assert_int_equal(wperf_graph_add(&g, 0, 1, 2), 0);
	wperf_graph_finish(&g);
	assert_int_equal(g.nedges, 3);
	assert_int_equal(wperf_graph_find(&g, 1, 1), 1);
	assert_int_equal(g.edges[1].weight, 10);
	wperf_graph_out(&g, 1, &first, &n);
	assert_int_equal(first, 1);
	assert_int_equal(n, 2);
	wperf_graph_release(&g);
}

static void test_merge(void **state)
{
	struct wperf_graph a, b, c = {0};

	(void)state;
	assert_int_equal(wperf_graph_init(&a, 4), 0);
	assert_int_equal(wperf_graph_init(&b, 4), 0);
	assert_int_equal(wperf_graph_add(&a, 0, 1, 10), 0);
	assert_int_equal(wperf_graph_add(&a, 1, 2, 20), 0);
	assert_int_equal(wperf_graph_add(&b, 1, 2, 5), 0);
	assert_int_equal(wperf_graph_add(&b, 3, 3, 7), 0);
	assert_int_equal(wperf_graph_add(&b, 2, 0, 1), 0);
	assert_int_equal(wperf_graph_merge(&a, &b), 0);
	assert_int_equal(a.nedges, 4);
	/* merging an empty graph changes nothing */
	assert_int_equal(wperf_graph_merge(&a, &c), 0);
	wperf_graph_finish(&a);
	assert_int_equal(a.nedges, 4);
	assert_sorted_unique(&a);
	assert_int_equal(a.edges[wperf_graph_find(&a, 0, 1)].weight, 10);
	assert_int_equal(a.edges[wperf_graph_find(&a, 1, 2)].weight, 25);
	assert_int_equal(a.edges[wperf_graph_find(&a, 3, 3)].weight, 7);
	assert_int_equal(a.edges[wperf_graph_find(&a, 2, 0)].weight, 1);

	/* a finished graph takes more edges (its table is rebuilt), and finishes again */
	wperf_graph_finish(&b);
	assert_int_equal(wperf_graph_merge(&a, &b), 0);
	assert_int_equal(wperf_graph_add(&a, 3, 0, 2), 0);
	wperf_graph_finish(&a);
	assert_int_equal(a.nedges, 5);
	assert_sorted_unique(&a);
	assert_int_equal(a.edges[wperf_graph_find(&a, 1, 2)].weight, 30);
	assert_int_equal(a.edges[wperf_graph_find(&a, 3, 3)].weight, 14);
	assert_int_equal(a.edges[wperf_graph_find(&a, 3, 0)].weight, 2);

	/* merging a graph into itself doubles it */
	assert_int_equal(wperf_graph_merge(&a, &a), 0);
	assert_int_equal(a.edges[wperf_graph_find(&a, 1, 2)].weight, 60);

	/* a source with more vertices than the target */
	assert_int_equal(wperf_graph_init(&c, 9), 0);
	assert_int_equal(wperf_graph_add(&c, 8, 0, 1), 0);
	assert_int_equal(wperf_graph_merge(&a, &c), -EINVAL);
	wperf_graph_release(&a);
	wperf_graph_release(&b);
	wperf_graph_release(&c);
}

/* 1M random adds over 300 vertices against a plain matrix of sums. */
static void test_random_adds(void **state)
{
	enum { N = 300, ADDS = 1000000 };
	uint64_t *sum = calloc((size_t)N * N, sizeof(*sum));
	uint8_t *seen = calloc((size_t)N * N, 1);
	uint64_t seed = 42;
	size_t distinct = 0;
	struct wperf_graph g;
	size_t first, n, total = 0;

	(void)state;
	assert_non_null(sum);
	assert_non_null(seen);
	assert_int_equal(wperf_graph_init(&g, N), 0);
	for (int i = 0; i < ADDS; i++) {
		uint64_t r = rng_next(&seed);
		/* skewed: most adds go to a few hundred hot edges, the rest anywhere */
		uint32_t from = (uint32_t)(r % N), to = (uint32_t)((r >> 20) % N);
		uint64_t w = (r >> 40) & 0xffff;

		if ((r >> 60) < 12)
			to = (from * 7 + (uint32_t)((r >> 56) & 3)) % N;
		assert_int_equal(wperf_graph_add(&g, from, to, w), 0);
		sum[(size_t)from * N + to] += w;
		distinct += !seen[(size_t)from * N + to];
		seen[(size_t)from * N + to] = 1;
	}
	assert_int_equal(g.nedges, distinct);
	wperf_graph_finish(&g);
	assert_int_equal(g.nedges, distinct);
	assert_sorted_unique(&g);
	for (size_t e = 0; e < g.nedges; e++)
		assert_int_equal(g.edges[e].weight,
				 sum[(size_t)g.edges[e].from * N + g.edges[e].to]);
	for (uint32_t from = 0; from < N; from++) {
		wperf_graph_out(&g, from, &first, &n);
		total += n;
		for (uint32_t to = 0; to < N; to++) {
			int64_t e = wperf_graph_find(&g, from, to);

			if (!seen[(size_t)from * N + to]) {
				assert_int_equal(e, -1);
				continue;
			}
			assert_true(e >= (int64_t)first && e < (int64_t)(first + n));
			assert_int_equal(g.edges[e].weight, sum[(size_t)from * N + to]);
		}
	}
	assert_int_equal(total, g.nedges);
	wperf_graph_release(&g);
	free(sum);
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_accumulate),
	    cmocka_unit_test(test_finish_order_out_find),
	    cmocka_unit_test(test_self_loops),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_random_adds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
