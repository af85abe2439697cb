/* SPDX-License-Identifier: MIT */
/*
 * Cascaded re-distribution on hand-built timelines, with the paper's numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cascade.h"

#define MAX_ENTITIES 8
#define MAX_SEGMENTS 64

/* A timeline built by hand: entities, then each one's segments in order. */
struct fixture {
	struct wperf_timeline tl;
	struct wperf_entity entities[MAX_ENTITIES];
	struct wperf_segment segments[MAX_SEGMENTS];
	struct wperf_wait_stacks
	    stacks[MAX_SEGMENTS + 1]; /* WPERF_NO_STACKS, then one per segment */
	struct wperf_io_share shares[MAX_ENTITIES];
};

static void add_entity(struct fixture *f, uint8_t kind)
{
	struct wperf_entity *e = &f->entities[f->tl.nentities++];

	e->kind = kind;
	e->first_segment = f->tl.nsegments;
	e->segments = &f->segments[f->tl.nsegments];
}

/* Appends a segment to the entity added last, where its last one ended (or at
 * 0, its birth). */
static void add_segment(struct fixture *f, uint64_t start, uint64_t end, uint8_t state,
			uint32_t waker, int32_t kstack)
{
	uint32_t entity = f->tl.nentities - 1;
	struct wperf_segment *s = &f->segments[f->tl.nsegments++];

	assert_int_equal(start,
			 wperf_segment_start(&f->entities[entity], f->entities[entity].nsegments));
	f->stacks[f->tl.nstacks] =
	    (struct wperf_wait_stacks){kstack, WPERF_NO_STACK, WPERF_NO_STACK, WPERF_NO_STACK};
	*s = (struct wperf_segment){
	    .end = end, .waker = waker, .state = state, .stacks = (uint32_t)f->tl.nstacks++};
	f->entities[entity].nsegments++;
}

static void init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->tl.entities = f->entities;
	f->tl.shares = f->shares;
	f->stacks[WPERF_NO_STACKS] = (struct wperf_wait_stacks){WPERF_NO_STACK, WPERF_NO_STACK,
								WPERF_NO_STACK, WPERF_NO_STACK};
	f->tl.stacks = f->stacks;
	f->tl.nstacks = 1;
	f->tl.start = 0;
	f->tl.end = 1000;
}

static uint64_t weight(const struct wperf_graph *g, uint32_t from, uint32_t to)
{
	int64_t i = wperf_graph_find(g, from, to);

	return i < 0 ? 0 : g->edges[i].weight;
}

static void run(const struct fixture *f, unsigned jobs, struct wperf_graph *g,
		struct wperf_callsites *cs)
{
	struct wperf_cascade_opts o = {.jobs = jobs};
	struct wperf_error err = {0};

	memset(g, 0, sizeof(*g));
	memset(cs, 0, sizeof(*cs));
	if (wperf_cascade(&f->tl, &o, g, cs, &err) < 0)
		fail_msg("%s", err.msg);
}

enum { A, B, C, D };

/*
 * Figure 3: A waits for B over [t0, t2], B waits for C over [t0, t1]. wPerf keeps
 * t2 - t0 on A -> B and gives B -> C its own wait plus the part nested in A's:
 * 2 (t1 - t0).
 */
static void test_figure3(void **state)
{
	const uint64_t t0 = 100, t1 = 300, t2 = 700;
	struct fixture f;
	struct wperf_graph g;
	struct wperf_callsites cs;

	(void)state;
	init(&f);
	add_entity(&f, WPERF_ENTITY_THREAD); /* A */
	add_segment(&f, 0, t0, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	add_segment(&f, t0, t2, WPERF_SEG_WAITING, B, 11);
	add_segment(&f, t2, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* B */
	add_segment(&f, 0, t0, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	add_segment(&f, t0, t1, WPERF_SEG_WAITING, C, 22);
	add_segment(&f, t1, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* C */
	add_segment(&f, 0, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	run(&f, 1, &g, &cs);
	assert_int_equal(weight(&g, A, B), t2 - t0);
	assert_int_equal(weight(&g, B, C), 2 * (t1 - t0));
	assert_int_equal(g.nedges, 2);
	/* B -> C's weight all comes from B's wait where it blocked (stack 22). */
	for (size_t i = 0; i < cs.n; i++)
		if (cs.sites[i].from == B)
			assert_int_equal(cs.sites[i].kstack, 22);
	wperf_graph_release(&g);
	wperf_callsites_release(&cs);
}

/* Three levels: A waits for B, B for C, C for D, nested. D -> nothing. */
static void test_three_levels(void **state)
{
	struct fixture f;
	struct wperf_graph g;
	struct wperf_callsites cs;

	(void)state;
	init(&f);
	add_entity(&f, WPERF_ENTITY_THREAD); /* A */
	add_segment(&f, 0, 1000, WPERF_SEG_WAITING, B, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* B */
	add_segment(&f, 0, 500, WPERF_SEG_WAITING, C, -1);
	add_segment(&f, 500, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* C */
	add_segment(&f, 0, 200, WPERF_SEG_WAITING, D, -1);
	add_segment(&f, 200, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* D */
	add_segment(&f, 0, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	run(&f, 1, &g, &cs);
	assert_int_equal(weight(&g, A, B), 1000);
	assert_int_equal(weight(&g, B, C), 500 + 500); /* its own, and nested in A's */
	assert_int_equal(weight(&g, C, D), 200 * 3);   /* own, in B's, in B's inside A's */
	wperf_graph_release(&g);
	wperf_callsites_release(&cs);
}

/*
 * A disk idle over [0, 400) waits for its two issuers by their bytes: 3/4 and
 * 1/4. Thread B was itself waiting for C during [0, 200): the disk's share of B
 * cascades into B -> C.
 */
static void test_device_idle_split(void **state)
{
	struct fixture f;
	struct wperf_graph g;
	struct wperf_callsites cs;
	enum { DISK = 0, T1 = 1, T2 = 2, T3 = 3 };

	(void)state;
	init(&f);
	add_entity(&f, WPERF_ENTITY_DISK);
	add_segment(&f, 0, 400, WPERF_SEG_WAITING, WPERF_WAKER_ISSUERS, -1);
	add_segment(&f, 400, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* T1 */
	add_segment(&f, 0, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* T2: waits for T3 for a while */
	add_segment(&f, 0, 200, WPERF_SEG_WAITING, T3, -1);
	add_segment(&f, 200, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* T3 */
	add_segment(&f, 0, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	f.shares[0] = (struct wperf_io_share){DISK, T1, 3000};
	f.shares[1] = (struct wperf_io_share){DISK, T2, 1000};
	f.tl.nshares = 2;
	run(&f, 1, &g, &cs);
	assert_int_equal(weight(&g, DISK, T1), 300);
	assert_int_equal(weight(&g, DISK, T2), 100);
	assert_int_equal(weight(&g, T2, T3), 200 + 200 / 4);
	wperf_graph_release(&g);
	wperf_callsites_release(&cs);
}

/* A and B wait for each other at the same time (it happens after merging or with
 * imprecise wakers): the cycle guard stops the recursion. */
static void test_cycle_guard(void **state)
{
	struct fixture f;
	struct wperf_graph g;
	struct wperf_callsites cs;

	(void)state;
	init(&f);
	add_entity(&f, WPERF_ENTITY_THREAD); /* A */
	add_segment(&f, 0, 1000, WPERF_SEG_WAITING, B, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* B */
	add_segment(&f, 0, 1000, WPERF_SEG_WAITING, A, -1);
	run(&f, 1, &g, &cs);
	/* Each own wait, plus the other's nested once; never A again inside A. */
	assert_int_equal(weight(&g, A, B), 2000);
	assert_int_equal(weight(&g, B, A), 2000);
	wperf_graph_release(&g);
	wperf_callsites_release(&cs);
}

/* Many overlapping waits: any number of workers gives the same graph. */
static void test_jobs_identical(void **state)
{
	struct fixture f;
	struct wperf_graph g1, g4;
	struct wperf_callsites c1, c4;
	uint32_t seed = 7;

	(void)state;
	init(&f);
	for (int e = 0; e < MAX_ENTITIES; e++) {
		uint64_t t = 0;

		add_entity(&f, WPERF_ENTITY_THREAD);
		for (int s = 0; s < MAX_SEGMENTS / MAX_ENTITIES && t < 1000; s++) {
			uint64_t len = 1 + (seed = seed * 1103515245 + 12345) % 200;
			uint64_t end = t + len > 1000 ? 1000 : t + len;
			uint32_t waker = (e + 1 + seed % (MAX_ENTITIES - 1)) % MAX_ENTITIES;

			add_segment(&f, t, end, s % 2 ? WPERF_SEG_WAITING : WPERF_SEG_RUNNING,
				    s % 2 ? waker : WPERF_NO_ENTITY, (int32_t)(seed % 5));
			t = end;
		}
	}
	run(&f, 1, &g1, &c1);
	run(&f, 4, &g4, &c4);
	assert_true(g1.nedges > 0);
	assert_int_equal(g1.nedges, g4.nedges);
	assert_memory_equal(g1.edges, g4.edges, g1.nedges * sizeof(*g1.edges));
	assert_int_equal(c1.n, c4.n);
	assert_memory_equal(c1.sites, c4.sites, c1.n * sizeof(*c1.sites));
	wperf_graph_release(&g1);
	wperf_graph_release(&g4);
	wperf_callsites_release(&c1);
	wperf_callsites_release(&c4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_figure3),	      cmocka_unit_test(test_three_levels),
	    cmocka_unit_test(test_device_idle_split), cmocka_unit_test(test_cycle_guard),
	    cmocka_unit_test(test_jobs_identical),
	};

	return cmocka_run_group_tests_name("cascade", tests, NULL, NULL);
}
