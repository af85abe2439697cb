/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the SCCs, knots, sinks, background knots and knot refinement
 * (core/analysis/knots.c), on the paper's examples, small graphs with known answers,
 * very long chains and cycles (no recursion) and large random graphs checked
 * against the definitions.
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
#include "core/analysis/knots.h"

static int is_background_kind(uint8_t kind)
{
	return kind == WPERF_BACKGROUND_KNOT || kind == WPERF_BACKGROUND_SINK;
}

#define NONE UINT32_MAX

struct e3 {
	uint32_t from, to;
	uint64_t w;
};

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static void build(struct wperf_graph *g, uint32_t n, const struct e3 *e, size_t ne)
{
	assert_int_equal(wperf_graph_init(g, n), 0);
	for (size_t i = 0; i < ne; i++)
		assert_int_equal(wperf_graph_add(g, e[i].from, e[i].to, e[i].w), 0);
	wperf_graph_finish(g);
}

#define BUILD(g, n, edges) build(g, n, edges, sizeof(edges) / sizeof(edges[0]))

static void assert_verts(const struct wperf_knot *k, const uint32_t *v, size_t n)
{
	assert_int_equal(k->nvertices, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(k->vertices[i], v[i]);
}

#define VERTS(k, ...)                                                                              \
	do {                                                                                       \
		const uint32_t want_[] = {__VA_ARGS__};                                            \
		assert_verts(k, want_, sizeof(want_) / sizeof(want_[0]));                          \
	} while (0)

/* Checks one knot's fields besides its vertices. */
static void assert_knot(const struct wperf_knot *k, int kind, int simple, uint64_t min_weight,
			size_t removed, uint32_t parent)
{
	assert_int_equal(k->kind, kind);
	assert_int_equal(k->simple_cycle, simple);
	assert_int_equal(k->min_weight, min_weight);
	assert_int_equal(k->removed_edges, removed);
	assert_int_equal(k->parent, parent);
}

static void find(const struct wperf_graph *g, const struct wperf_knot_opts *o,
		 struct wperf_knot_set *s)
{
	struct wperf_error err = {0};

	assert_int_equal(wperf_find_knots(g, o, s, &err), 0);
	assert_int_equal(err.code, 0);
}

/* ---- SCCs ---- */

/* The graph of CLRS figure 22.9: {a,b,e} -> {c,d} -> {f,g} -> {h}, h with a self-loop. */
static void test_scc_textbook(void **state)
{
	enum { A, B, C, D, E, F, G, H };
	static const struct e3 edges[] = {{A, B, 1}, {B, C, 1}, {B, E, 1}, {B, F, 1}, {C, D, 1},
					  {C, G, 1}, {D, C, 1}, {D, H, 1}, {E, A, 1}, {E, F, 1},
					  {F, G, 1}, {G, F, 1}, {G, H, 1}, {H, H, 1}};
	struct wperf_graph g;
	uint32_t comp[8], nc;

	(void)state;
	BUILD(&g, 8, edges);
	assert_int_equal(wperf_scc(&g, NULL, comp, &nc, NULL), 0);
	assert_int_equal(nc, 4);
	/* completion order of a DFS from a: the sink component first */
	assert_int_equal(comp[H], 0);
	assert_int_equal(comp[F], 1);
	assert_int_equal(comp[G], 1);
	assert_int_equal(comp[C], 2);
	assert_int_equal(comp[D], 2);
	assert_int_equal(comp[A], 3);
	assert_int_equal(comp[B], 3);
	assert_int_equal(comp[E], 3);
	/* reverse topological: every edge between components goes to a smaller number */
	for (size_t e = 0; e < g.nedges; e++)
		assert_true(comp[g.edges[e].from] >= comp[g.edges[e].to]);
	wperf_graph_release(&g);
}

static void test_scc_dag_and_empty(void **state)
{
	static const struct e3 edges[] = {{0, 1, 1}, {1, 2, 1}, {0, 2, 1}, {3, 0, 1}};
	struct wperf_graph g, empty = {0};
	uint32_t comp[5], nc = 99;

	(void)state;
	BUILD(&g, 5, edges); /* vertex 4 has no edges */
	assert_int_equal(wperf_scc(&g, NULL, comp, &nc, NULL), 0);
	assert_int_equal(nc, 5);
	assert_int_equal(comp[2], 0);
	assert_int_equal(comp[1], 1);
	assert_int_equal(comp[0], 2);
	assert_int_equal(comp[3], 3);
	assert_int_equal(comp[4], 4);
	assert_int_equal(wperf_scc(&empty, NULL, comp, &nc, NULL), 0);
	assert_int_equal(nc, 0);
	wperf_graph_release(&g);
}

static void test_scc_removed(void **state)
{
	static const struct e3 edges[] = {{0, 1, 1}, {1, 2, 1}, {2, 0, 1}, {2, 3, 1}, {3, 2, 1}};
	struct wperf_graph g;
	uint32_t comp[4], nc;
	uint8_t removed[5] = {0};

	(void)state;
	BUILD(&g, 4, edges);
	assert_int_equal(wperf_scc(&g, removed, comp, &nc, NULL), 0);
	assert_int_equal(nc, 1);
	/* without 2 -> 0: {0}, {1}, {2,3}, in reverse topological order */
	removed[wperf_graph_find(&g, 2, 0)] = 1;
	assert_int_equal(wperf_scc(&g, removed, comp, &nc, NULL), 0);
	assert_int_equal(nc, 3);
	assert_int_equal(comp[2], comp[3]);
	assert_true(comp[0] > comp[1] && comp[1] > comp[2]);
	/* without 3 -> 2 as well: four components */
	removed[wperf_graph_find(&g, 3, 2)] = 1;
	assert_int_equal(wperf_scc(&g, removed, comp, &nc, NULL), 0);
	assert_int_equal(nc, 4);
	wperf_graph_release(&g);
}

static void test_scc_bad_edge(void **state)
{
	struct wperf_edge e = {.from = 0, .to = 7, .weight = 1};
	struct wperf_graph g = {.nvertices = 2, .edges = &e, .nedges = 1};
	struct wperf_knot_set s;
	struct wperf_error err = {0};
	uint32_t comp[2], nc;

	(void)state;
	assert_int_equal(wperf_scc(&g, NULL, comp, &nc, &err), -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	assert_int_equal(wperf_find_knots(&g, NULL, &s, &err), -EINVAL);
	assert_null(s.knots);
}

enum { BIG = 1000000 };

/* A 1M-vertex chain: a DFS 1M deep, 1M components numbered from the end. */
static void test_scc_chain_1m(void **state)
{
	struct wperf_graph g;
	uint32_t *comp = malloc(BIG * sizeof(*comp)), nc;
	struct wperf_knot_set s;

	(void)state;
	assert_non_null(comp);
	assert_int_equal(wperf_graph_init(&g, BIG), 0);
	for (uint32_t v = 0; v + 1 < BIG; v++)
		assert_int_equal(wperf_graph_add(&g, v, v + 1, 1), 0);
	wperf_graph_finish(&g);
	assert_int_equal(wperf_scc(&g, NULL, comp, &nc, NULL), 0);
	assert_int_equal(nc, BIG);
	for (uint32_t v = 0; v < BIG; v++)
		assert_int_equal(comp[v], BIG - 1 - v);
	/* the last vertex is the one sink */
	find(&g, NULL, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 1);
	assert_int_equal(s.knots[0].kind, WPERF_SINK);
	VERTS(&s.knots[0], BIG - 1);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
	free(comp);
}

/* A 1M-vertex cycle: one component, one knot, a simple cycle even if light. */
static void test_scc_cycle_1m(void **state)
{
	struct wperf_graph g;
	uint32_t *comp = malloc(BIG * sizeof(*comp)), nc;
	struct wperf_knot_opts o = {.threshold = UINT64_MAX};
	struct wperf_knot_set s;

	(void)state;
	assert_non_null(comp);
	assert_int_equal(wperf_graph_init(&g, BIG), 0);
	for (uint32_t v = 0; v < BIG; v++)
		assert_int_equal(wperf_graph_add(&g, v, (v + 1) % BIG, 1 + v % 7), 0);
	wperf_graph_finish(&g);
	assert_int_equal(wperf_scc(&g, NULL, comp, &nc, NULL), 0);
	assert_int_equal(nc, 1);
	for (uint32_t v = 0; v < BIG; v++)
		assert_int_equal(comp[v], 0);
	find(&g, &o, &s);
	assert_int_equal(s.nknots, 1);
	assert_knot(&s.knots[0], WPERF_KNOT, 1, 1, 0, NONE);
	assert_int_equal(s.knots[0].nvertices, BIG);
	wperf_knot_set_release(&s);

	/*
	 * With one chord it is no longer simple and gets refined: trimming the
	 * lightest level (weight 1: the chord and every 7th cycle edge) leaves
	 * the tails of those edges as sinks.
	 */
	assert_int_equal(wperf_graph_add(&g, 0, BIG / 2, 1), 0);
	wperf_graph_finish(&g);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, (BIG - 1) / 7 + 1);
	assert_int_equal(s.nknots, s.nfinal + 1);
	for (size_t i = 0; i < s.nfinal; i++) {
		VERTS(&s.knots[i], (uint32_t)(7 * i));
		assert_knot(&s.knots[i], WPERF_SINK, 0, 0, (BIG - 1) / 7 + 2, (uint32_t)s.nfinal);
	}
	assert_int_equal(s.knots[s.nfinal].nvertices, BIG);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
	free(comp);
}

/* ---- knots on small graphs with known answers ---- */

/* The paper's Figure 2: B and the disk form the knot; A waits for B. */
static void test_figure2(void **state)
{
	enum { A, B, DISK };
	static const struct e3 edges[] = {{A, B, 80}, {B, A, 20}, {B, DISK, 50}, {DISK, B, 50}};
	static const uint8_t io[] = {0, 0, 1};
	static const double cpu[] = {0.2, 0.3, 0};
	struct wperf_knot_opts o = {.threshold = 1000, .is_io = io, .cpu = cpu};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 3, edges);
	find(&g, &o, &s);
	/* {A, B, disk} is strongly connected; trimming B -> A leaves {B, disk} */
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 2);
	VERTS(&s.knots[0], B, DISK);
	assert_knot(&s.knots[0], WPERF_KNOT, 1, 50, 1, 1);
	VERTS(&s.knots[1], A, B, DISK);
	assert_knot(&s.knots[1], WPERF_KNOT, 0, 20, 0, NONE);
	wperf_knot_set_release(&s);

	/* with a threshold below every weight, the knot of three is the answer */
	o.threshold = 20;
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 1);
	VERTS(&s.knots[0], A, B, DISK);
	assert_knot(&s.knots[0], WPERF_KNOT, 0, 20, 0, NONE);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

static void test_sink(void **state)
{
	static const struct e3 edges[] = {{0, 1, 5}};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 2, edges);
	find(&g, NULL, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 1);
	VERTS(&s.knots[0], 1);
	assert_knot(&s.knots[0], WPERF_SINK, 0, 0, 0, NONE);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);

	/* a graph with no edges: every vertex is a sink; none: nothing */
	assert_int_equal(wperf_graph_init(&g, 3), 0);
	wperf_graph_finish(&g);
	find(&g, NULL, &s);
	assert_int_equal(s.nfinal, 3);
	for (uint32_t v = 0; v < 3; v++) {
		VERTS(&s.knots[v], v);
		assert_int_equal(s.knots[v].kind, WPERF_SINK);
	}
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
	assert_int_equal(wperf_graph_init(&g, 0), 0);
	find(&g, NULL, &s);
	assert_int_equal(s.nknots, 0);
	assert_null(s.knots);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

static void test_self_loop(void **state)
{
	static const struct e3 edges[] = {{0, 0, 9}, {1, 0, 3}};
	struct wperf_knot_opts o = {.threshold = UINT64_MAX};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 2, edges);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 1);
	VERTS(&s.knots[0], 0);
	assert_knot(&s.knots[0], WPERF_KNOT, 1, 9, 0, NONE);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/* Two 2-cycles joined by two light edges of the same weight. */
static const struct e3 two_pairs[] = {{0, 1, 100}, {1, 0, 90}, {2, 3, 80},
				      {3, 2, 100}, {1, 2, 1},  {3, 0, 1}};

static void test_split(void **state)
{
	struct wperf_knot_opts o = {.threshold = 1000};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 4, two_pairs);
	find(&g, &o, &s);
	/* both light edges go together: two knots, then their parent */
	assert_int_equal(s.nfinal, 2);
	assert_int_equal(s.nknots, 3);
	VERTS(&s.knots[0], 0, 1); /* heaviest edge 100, smallest vertex 0 */
	assert_knot(&s.knots[0], WPERF_KNOT, 1, 90, 2, 2);
	VERTS(&s.knots[1], 2, 3);
	assert_knot(&s.knots[1], WPERF_KNOT, 1, 80, 2, 2);
	VERTS(&s.knots[2], 0, 1, 2, 3);
	assert_knot(&s.knots[2], WPERF_KNOT, 0, 1, 0, NONE);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

static void test_threshold_stop(void **state)
{
	struct wperf_knot_opts o = {.threshold = 1};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 4, two_pairs);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 1);
	VERTS(&s.knots[0], 0, 1, 2, 3);
	assert_knot(&s.knots[0], WPERF_KNOT, 0, 1, 0, NONE);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

static void test_simple_cycle(void **state)
{
	static const struct e3 edges[] = {{0, 1, 5}, {1, 2, 1}, {2, 0, 7}};
	struct wperf_knot_opts o = {.threshold = 100};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 3, edges);
	find(&g, &o, &s);
	assert_int_equal(s.nknots, 1);
	VERTS(&s.knots[0], 0, 1, 2);
	assert_knot(&s.knots[0], WPERF_KNOT, 1, 1, 0, NONE);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/* Refinement two levels deep: a parent chain, trimmed edges counted per level. */
static void test_refine_chain(void **state)
{
	static const struct e3 edges[] = {{0, 1, 100}, {1, 0, 100}, {2, 0, 50},
					  {0, 2, 10},  {3, 2, 30},  {2, 3, 5}};
	struct wperf_knot_opts o = {.threshold = 1000};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 4, edges);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 3);
	VERTS(&s.knots[0], 0, 1);
	assert_knot(&s.knots[0], WPERF_KNOT, 1, 100, 1, 2);
	VERTS(&s.knots[1], 0, 1, 2, 3); /* the top knot, split first */
	assert_knot(&s.knots[1], WPERF_KNOT, 0, 5, 0, NONE);
	VERTS(&s.knots[2], 0, 1, 2); /* without 2 -> 3, 3 waits from outside */
	assert_knot(&s.knots[2], WPERF_KNOT, 0, 10, 1, 1);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/* Refinement can end in a sink: B's only way out is light. */
static void test_refine_sink(void **state)
{
	static const struct e3 edges[] = {{0, 1, 100}, {1, 0, 1}};
	struct wperf_knot_opts o = {.threshold = 50};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 2, edges);
	find(&g, &o, &s);
	/* a 2-cycle is simple: it stops there */
	assert_int_equal(s.nknots, 1);
	assert_knot(&s.knots[0], WPERF_KNOT, 1, 1, 0, NONE);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);

	static const struct e3 edges2[] = {{0, 1, 100}, {1, 0, 1}, {0, 0, 60}};
	BUILD(&g, 2, edges2);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 2);
	VERTS(&s.knots[0], 1);
	assert_knot(&s.knots[0], WPERF_SINK, 0, 0, 1, 1);
	VERTS(&s.knots[1], 0, 1);
	assert_knot(&s.knots[1], WPERF_KNOT, 0, 1, 0, NONE);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/* Finals: knots by their heaviest edge, then sinks, each by smallest vertex. */
static void test_order(void **state)
{
	static const struct e3 edges[] = {{0, 1, 10}, {1, 0, 10}, {2, 3, 50}, {3, 2, 5},
					  {5, 4, 99}, {7, 6, 1},  {8, 8, 10}};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 9, edges);
	find(&g, NULL, &s);
	assert_int_equal(s.nfinal, 5);
	assert_int_equal(s.nknots, 5);
	VERTS(&s.knots[0], 2, 3);
	VERTS(&s.knots[1], 0, 1);
	VERTS(&s.knots[2], 8);
	VERTS(&s.knots[3], 4);
	VERTS(&s.knots[4], 6);
	assert_int_equal(s.knots[2].kind, WPERF_KNOT);
	assert_int_equal(s.knots[3].kind, WPERF_SINK);
	assert_int_equal(s.knots[4].kind, WPERF_SINK);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/* A heartbeat pair under one CPU is set aside; the worker and the disk remain. */
static void test_background(void **state)
{
	enum { H, L, W, DISK };
	static const struct e3 edges[] = {{H, L, 10}, {L, H, 10}, {W, DISK, 50}, {DISK, W, 50}};
	static const uint8_t io[] = {0, 0, 0, 1};
	static const double cpu[] = {0.1, 0.1, 0.5, 0};
	struct wperf_knot_opts o = {.threshold = 1000, .is_io = io, .cpu = cpu};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 4, edges);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 2);
	VERTS(&s.knots[0], W, DISK);
	assert_knot(&s.knots[0], WPERF_KNOT, 1, 50, 0, NONE);
	VERTS(&s.knots[1], H, L);
	assert_knot(&s.knots[1], WPERF_BACKGROUND_KNOT, 1, 10, 0, NONE);
	wperf_knot_set_release(&s);

	/* without CPU figures there are no background knots */
	o.cpu = NULL;
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 2);
	VERTS(&s.knots[0], W, DISK);
	VERTS(&s.knots[1], H, L);
	assert_int_equal(s.knots[1].kind, WPERF_KNOT);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/* Two threads that take turns add up to just under one CPU (every hand-over
 * costs a wakeup): a knot, not background; the margin is an option. */
static void test_background_margin(void **state)
{
	enum { B, C };
	static const struct e3 edges[] = {{B, C, 50}, {C, B, 50}};
	static const double cpu[] = {0.50, 0.46};
	struct wperf_knot_opts o = {.threshold = 1000, .cpu = cpu};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 2, edges);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	VERTS(&s.knots[0], B, C);
	assert_int_equal(s.knots[0].kind, WPERF_KNOT);
	wperf_knot_set_release(&s);

	o.background_cpu = 1.0; /* the paper's 100%, to the letter */
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 0);
	assert_int_equal(s.knots[0].kind, WPERF_BACKGROUND_KNOT);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/* Taking background knots away closes what only waited for them, in cascade. */
static void test_background_reveals(void **state)
{
	enum { H, L, X, P, Q, R, S, T, W, DISK };
	static const struct e3 edges[] = {
	    {H, L, 10},	   {L, H, 10},		     /* background */
	    {X, H, 5},				     /* X: a sink once H goes */
	    {P, Q, 20},	   {Q, P, 20},	  {P, H, 5}, /* a worker knot once H goes */
	    {R, S, 10},	   {S, R, 10},	  {R, H, 5}, /* background in turn */
	    {T, R, 1},				     /* a sink once R goes */
	    {W, DISK, 50}, {DISK, W, 50},	     /* the main knot */
	};
	static const uint8_t io[10] = {[DISK] = 1};
	static const double cpu[10] = {[H] = 0.1, [L] = 0.1, [X] = 0.9, [P] = 0.5, [Q] = 0.6,
				       [R] = 0.1, [S] = 0.1, [T] = 0.9, [W] = 0.5};
	struct wperf_knot_opts o = {.threshold = 1000, .is_io = io, .cpu = cpu};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 10, edges);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 4);
	assert_int_equal(s.nknots, 6);
	VERTS(&s.knots[0], W, DISK);
	VERTS(&s.knots[1], P, Q);
	assert_knot(&s.knots[1], WPERF_KNOT, 1, 20, 0, NONE);
	VERTS(&s.knots[2], X);
	assert_knot(&s.knots[2], WPERF_SINK, 0, 0, 0, NONE);
	VERTS(&s.knots[3], T);
	assert_int_equal(s.knots[3].kind, WPERF_SINK);
	VERTS(&s.knots[4], H, L);
	assert_int_equal(s.knots[4].kind, WPERF_BACKGROUND_KNOT);
	VERTS(&s.knots[5], R, S);
	assert_int_equal(s.knots[5].kind, WPERF_BACKGROUND_KNOT);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/* An ignored vertex (a timer) and its edges are not part of the analysis. */
static void test_ignore(void **state)
{
	enum { A, B, TIMER, C };
	static const struct e3 edges[] = {
	    {A, B, 10}, {B, A, 10}, {A, TIMER, 500}, {TIMER, B, 3}, {C, TIMER, 7}};
	static const uint8_t ignore[4] = {[TIMER] = 1};
	struct wperf_knot_opts o = {.threshold = 1000, .ignore = ignore};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	BUILD(&g, 4, edges);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 2);
	assert_int_equal(s.nknots, 2);
	VERTS(&s.knots[0], A, B);
	assert_knot(&s.knots[0], WPERF_KNOT, 1, 10, 0, NONE);
	VERTS(&s.knots[1], C); /* it only waited for the timer */
	assert_int_equal(s.knots[1].kind, WPERF_SINK);
	wperf_knot_set_release(&s);

	/*
	 * With the timer: A, B and the timer form one knot, whose lightest edge
	 * is the timer's way out, so refinement ends at the timer as a sink.
	 */
	find(&g, &(struct wperf_knot_opts){.threshold = 1000}, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.nknots, 2);
	VERTS(&s.knots[0], TIMER);
	assert_knot(&s.knots[0], WPERF_SINK, 0, 0, 1, 1);
	VERTS(&s.knots[1], A, B, TIMER);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/* ---- determinism and random graphs ---- */

static void assert_same_sets(const struct wperf_knot_set *a, const struct wperf_knot_set *b)
{
	assert_int_equal(a->nknots, b->nknots);
	assert_int_equal(a->nfinal, b->nfinal);
	for (size_t i = 0; i < a->nknots; i++) {
		const struct wperf_knot *x = &a->knots[i], *y = &b->knots[i];

		assert_knot(y, x->kind, x->simple_cycle, x->min_weight, x->removed_edges,
			    x->parent);
		assert_verts(y, x->vertices, x->nvertices);
	}
}

/* The same edges added in another order, split into other pieces: the same answer. */
static void test_determinism(void **state)
{
	enum { N = 300, NE = 2000 };
	struct e3 *e = malloc(NE * 2 * sizeof(*e));
	uint8_t io[N];
	double cpu[N];
	uint64_t seed = 7;
	struct wperf_graph g1, g2;
	struct wperf_knot_set s1, s2;
	struct wperf_knot_opts o = {.threshold = 4, .is_io = io, .cpu = cpu};

	(void)state;
	assert_non_null(e);
	for (int i = 0; i < N; i++) {
		io[i] = rng_next(&seed) % 50 == 0;
		cpu[i] = (double)(rng_next(&seed) % 100) / 150.0;
	}
	/* few distinct weights, so ties abound; each edge in two pieces */
	for (int i = 0; i < NE; i++) {
		uint64_t r = rng_next(&seed);

		e[2 * i] =
		    (struct e3){(uint32_t)(r % N), (uint32_t)((r >> 16) % N), 1 + (r >> 40) % 3};
		e[2 * i + 1] = e[2 * i];
		e[2 * i + 1].w = (r >> 50) % 2;
	}
	build(&g1, N, e, NE * 2);
	for (int i = NE * 2 - 1; i > 0; i--) {
		int j = (int)(rng_next(&seed) % (uint64_t)(i + 1));
		struct e3 t = e[i];

		e[i] = e[j];
		e[j] = t;
	}
	build(&g2, N, e, NE * 2);
	for (int t = 0; t < 3; t++) {
		o.threshold = t == 0 ? 0 : t == 1 ? 4 : UINT64_MAX;
		find(&g1, &o, &s1);
		find(&g2, &o, &s2);
		assert_true(s1.nfinal > 0);
		assert_same_sets(&s1, &s2);
		wperf_knot_set_release(&s1);
		wperf_knot_set_release(&s2);
	}
	wperf_graph_release(&g1);
	wperf_graph_release(&g2);
	free(e);
}

static int is_ignored(const struct wperf_knot_opts *o, uint32_t v)
{
	return o->ignore && o->ignore[v];
}

/*
 * Checks a knot set against the definitions. With K a final knot and m its
 * min_weight, the edges left inside K are the edges of K weighing at least m
 * (refinement trims whole weight levels, lightest first). Then:
 *  - those edges make K strongly connected, their lightest weighs m, and K
 *    met a stopping rule (one vertex, a simple cycle, m >= threshold);
 *  - no edge weighing m or more leaves K (but for ignored vertices and
 *    background knots): it would have been left in every knot K came from,
 *    each closed, so it would end inside K. From a top-level knot or sink,
 *    no edge at all leaves;
 *  - finals and background knots are disjoint, a child is inside its
 *    parent, parents come before their children, finals are in order.
 */
static void check_set(const struct wperf_graph *g, const struct wperf_knot_opts *o,
		      const struct wperf_knot_set *s)
{
	uint32_t n = g->nvertices, nc;
	uint32_t *owner = malloc(n * sizeof(*owner)), *comp = malloc(n * sizeof(*comp));
	uint8_t *mask = malloc(g->nedges ? g->nedges : 1), *in = calloc(n, 1);
	size_t nbg = 0, first_inter;
	uint64_t prev_max = UINT64_MAX;

	assert_true(owner && comp && mask && in);
	for (uint32_t v = 0; v < n; v++)
		owner[v] = NONE;
	for (size_t i = 0; i < s->nknots; i++)
		nbg += is_background_kind(s->knots[i].kind);
	first_inter = s->nfinal + nbg;
	for (size_t i = 0; i < s->nknots; i++) {
		const struct wperf_knot *k = &s->knots[i];

		assert_true(k->nvertices >= 1);
		for (size_t j = 1; j < k->nvertices; j++)
			assert_true(k->vertices[j - 1] < k->vertices[j]);
		if (i < s->nfinal)
			assert_true(k->kind == WPERF_KNOT || k->kind == WPERF_SINK);
		else if (i < first_inter)
			assert_true(is_background_kind(k->kind));
		else
			assert_int_equal(k->kind, WPERF_KNOT);
		if (k->parent != NONE) {
			const struct wperf_knot *p = &s->knots[k->parent];
			size_t at = 0;

			assert_true(k->parent >= first_inter && k->parent < s->nknots);
			assert_true(i < first_inter || k->parent < i);
			for (size_t j = 0; j < k->nvertices; j++) {
				while (at < p->nvertices && p->vertices[at] < k->vertices[j])
					at++;
				assert_true(at < p->nvertices && p->vertices[at] == k->vertices[j]);
			}
		}
		if (i < first_inter)
			for (size_t j = 0; j < k->nvertices; j++) {
				assert_int_equal(owner[k->vertices[j]], NONE);
				assert_false(is_ignored(o, k->vertices[j]));
				owner[k->vertices[j]] = (uint32_t)i;
			}
	}
	for (size_t i = 0; i < s->nfinal; i++) {
		const struct wperf_knot *k = &s->knots[i];
		uint64_t m = k->min_weight, maxw = 0, minw = UINT64_MAX;
		size_t inner = 0;

		for (size_t j = 0; j < k->nvertices; j++)
			in[k->vertices[j]] = 1;
		for (size_t e = 0; e < g->nedges; e++) {
			const struct wperf_edge *ed = &g->edges[e];
			int from_in = in[ed->from], to_in = in[ed->to];
			int elsewhere = is_ignored(o, ed->to) ||
					(owner[ed->to] != NONE &&
					 is_background_kind(s->knots[owner[ed->to]].kind));

			mask[e] = !(from_in && to_in && ed->weight >= m);
			if (!mask[e]) {
				inner++;
				maxw = ed->weight > maxw ? ed->weight : maxw;
				minw = ed->weight < minw ? ed->weight : minw;
			}
			if (from_in && !to_in && !elsewhere) {
				assert_true(k->parent != NONE);
				assert_true(ed->weight < m || k->kind == WPERF_SINK);
			}
		}
		if (k->kind == WPERF_SINK) {
			assert_int_equal(k->nvertices, 1);
			assert_int_equal(inner, k->parent == NONE ? 0 : inner);
		} else {
			assert_int_equal(minw, m);
			assert_int_equal(k->simple_cycle, inner == k->nvertices);
			assert_true(k->nvertices == 1 || inner == k->nvertices ||
				    m >= o->threshold);
			assert_int_equal(wperf_scc(g, mask, comp, &nc, NULL), 0);
			for (size_t j = 1; j < k->nvertices; j++)
				assert_int_equal(comp[k->vertices[j]], comp[k->vertices[0]]);
			/* order: knots by heaviest edge, descending */
			if (i > 0 && s->knots[i - 1].kind == WPERF_KNOT)
				assert_true(maxw <= prev_max);
			prev_max = maxw;
		}
		if (i > 0 && k->kind == WPERF_KNOT)
			assert_int_equal(s->knots[i - 1].kind, WPERF_KNOT);
		if (i > 0 && k->kind == WPERF_SINK && s->knots[i - 1].kind == WPERF_SINK)
			assert_true(s->knots[i - 1].vertices[0] < k->vertices[0]);
		for (size_t j = 0; j < k->nvertices; j++)
			in[k->vertices[j]] = 0;
	}
	free(owner);
	free(comp);
	free(mask);
	free(in);
}

/* A random graph of n vertices and about ne edges, weights from the given range. */
static void random_graph(struct wperf_graph *g, uint32_t n, size_t ne, uint64_t wrange,
			 uint64_t seed)
{
	assert_int_equal(wperf_graph_init(g, n), 0);
	for (size_t i = 0; i < ne; i++) {
		uint64_t r = rng_next(&seed);

		assert_int_equal(wperf_graph_add(g, (uint32_t)(r % n), (uint32_t)((r >> 20) % n),
						 1 + rng_next(&seed) % wrange),
				 0);
	}
	wperf_graph_finish(g);
}

static void test_random_graphs(void **state)
{
	static const struct {
		uint32_t n;
		size_t ne;
		uint64_t wrange;
	} cases[] = {{5000, 50000, 1ull << 40},
		     {5000, 50000, 5},
		     {2000, 3000, 100},
		     {200, 4000, 1000},
		     {50, 60, 3}};
	uint8_t *ignore = calloc(5000, 1), *io = calloc(5000, 1);
	double *cpu = calloc(5000, sizeof(*cpu));
	uint64_t seed = 99;

	(void)state;
	assert_true(ignore && io && cpu);
	for (uint32_t v = 0; v < 5000; v++) {
		ignore[v] = rng_next(&seed) % 100 == 0;
		io[v] = rng_next(&seed) % 100 == 0;
		cpu[v] = (double)(rng_next(&seed) % 150) / 100.0; /* 0 to 1.5 CPUs */
	}
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct wperf_graph g;
		struct wperf_knot_set s;

		random_graph(&g, cases[c].n, cases[c].ne, cases[c].wrange, 1000 + c);
		for (int t = 0; t < 4; t++) {
			struct wperf_knot_opts o = {.threshold = UINT64_MAX};

			if (t == 1)
				o.threshold = cases[c].wrange / 2;
			if (t >= 2)
				o.ignore = ignore, o.is_io = io;
			if (t == 3)
				o.cpu = cpu;
			find(&g, &o, &s);
			/* Every graph has a knot or a sink; with CPU figures they may all
			 * be background. */
			assert_true(s.nfinal > 0 || o.cpu);
			check_set(&g, &o, &s);
			wperf_knot_set_release(&s);
		}
		wperf_graph_release(&g);
	}
	free(ignore);
	free(io);
	free(cpu);
}

/*
 * A cycle A -> B -> C -> A with a light chord A -> C below the threshold:
 * refinement trims the chord and stops at the simple cycle that is left,
 * rather than going on to break the cycle (the stopping rules hold after every
 * removal, not only before the first).
 */
static void test_chord_trimmed_cycle_kept(void **state)
{
	enum { A, B, C };
	static const struct e3 edges[] = {{A, B, 10}, {B, C, 10}, {C, A, 10}, {A, C, 1}};
	struct wperf_knot_opts o = {.threshold = 5};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	build(&g, 3, edges, sizeof(edges) / sizeof(*edges));
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.knots[0].kind, WPERF_KNOT);
	assert_int_equal(s.knots[0].nvertices, 3);
	assert_true(s.knots[0].simple_cycle);
	assert_int_equal(s.knots[0].removed_edges, 1);
	assert_int_equal(s.knots[0].min_weight, 10);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

/*
 * Inside a knot {B, D, M}, M (a thread that mostly sleeps) waits for B only
 * lightly. Refinement trims M -> B; M, left waiting for nobody and hardly
 * running, is set aside as background, and {B, D}, which only waited for M
 * lightly, closes as the knot.
 */
static void test_idle_sink_in_refinement(void **state)
{
	enum { B, D, M };
	static const struct e3 edges[] = {{B, D, 50}, {D, B, 50}, {B, M, 3}, {M, B, 2}};
	static const double cpu[3] = {[B] = 0.9, [D] = 0, [M] = 0.01};
	static const uint8_t io[3] = {[D] = 1};
	struct wperf_knot_opts o = {.threshold = 10, .is_io = io, .cpu = cpu};
	struct wperf_graph g;
	struct wperf_knot_set s;

	(void)state;
	build(&g, 3, edges, sizeof(edges) / sizeof(*edges));
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.knots[0].kind, WPERF_KNOT);
	assert_int_equal(s.knots[0].nvertices, 2);
	assert_int_equal(s.knots[0].vertices[0], B);
	assert_int_equal(s.knots[0].vertices[1], D);
	assert_int_equal(s.knots[1].kind, WPERF_BACKGROUND_SINK);
	assert_int_equal(s.knots[1].vertices[0], M);
	/* Without the CPU figures M would be the answer, a sink, and {B, D} none. */
	o.cpu = NULL;
	wperf_knot_set_release(&s);
	find(&g, &o, &s);
	assert_int_equal(s.nfinal, 1);
	assert_int_equal(s.knots[0].kind, WPERF_SINK);
	assert_int_equal(s.knots[0].vertices[0], M);
	wperf_knot_set_release(&s);
	wperf_graph_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scc_textbook),
	    cmocka_unit_test(test_scc_dag_and_empty),
	    cmocka_unit_test(test_scc_removed),
	    cmocka_unit_test(test_scc_bad_edge),
	    cmocka_unit_test(test_scc_chain_1m),
	    cmocka_unit_test(test_scc_cycle_1m),
	    cmocka_unit_test(test_figure2),
	    cmocka_unit_test(test_sink),
	    cmocka_unit_test(test_self_loop),
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_threshold_stop),
	    cmocka_unit_test(test_simple_cycle),
	    cmocka_unit_test(test_refine_chain),
	    cmocka_unit_test(test_refine_sink),
	    cmocka_unit_test(test_order),
	    cmocka_unit_test(test_background),
	    cmocka_unit_test(test_background_margin),
	    cmocka_unit_test(test_background_reveals),
	    cmocka_unit_test(test_idle_sink_in_refinement),
	    cmocka_unit_test(test_chord_trimmed_cycle_kept),
	    cmocka_unit_test(test_ignore),
	    cmocka_unit_test(test_determinism),
	    cmocka_unit_test(test_random_graphs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
