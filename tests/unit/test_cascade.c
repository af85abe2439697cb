/* SPDX-License-Identifier: MIT */
/*
 * Cascaded re-distribution on hand-built timelines, with the paper's numbers.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/analysis/cascade.h"
#include "tests/lib/trace_builder.h"

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

/* A thread that runs all the window but [start, end), where it waits for waker
 * (start == end: it only runs). Like a real timeline's, no segment is empty. */
static void add_thread(struct fixture *f, uint64_t start, uint64_t end, uint32_t waker)
{
	add_entity(f, WPERF_ENTITY_THREAD);
	if (start > 0)
		add_segment(f, 0, start, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	if (end > start)
		add_segment(f, start, end, WPERF_SEG_WAITING, waker, -1);
	if (end < 1000)
		add_segment(f, end, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
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

/*
 * Figure 4's clipping (lines 11-14): A waits for B over [200, 600); B's waits
 * for C that overlap it are cut to it before they are cascaded. Each case is
 * B's waits, by hand: B -> C gets each wait's own length (line 8, as a wait
 * of its own) plus its part inside [200, 600) (line 8 again, inside A's).
 */
struct clip_case {
	const char *what;
	uint64_t waits[2][2]; /* B's waits for C, [start, end); {0, 0}: none */
	uint64_t b_c;	      /* B -> C */
};

static const struct clip_case clip_cases[] = {
    /* starts before: cut to [200, 400), 300 + 200 */
    {"starts before the outer wait", {{100, 400}, {0, 0}}, 500},
    /* ends after: cut to [400, 600), 500 + 200 */
    {"ends after the outer wait", {{400, 900}, {0, 0}}, 700},
    /* both: cut to [200, 600), 800 + 400 */
    {"spans the outer wait", {{100, 900}, {0, 0}}, 1200},
    /* one cut at each end of the same outer wait: 200 + 100, 300 + 100 */
    {"two waits, the first starts before, the second ends after", {{100, 300}, {500, 800}}, 700},
    /* [0, 200) ends where it starts and [600, 800) starts where it ends:
     * half-open intervals do not overlap, nothing is nested */
    {"two waits that only touch it", {{0, 200}, {600, 800}}, 400},
};

static void test_figure4_clipping(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(clip_cases) / sizeof(*clip_cases); k++) {
		const struct clip_case *cc = &clip_cases[k];
		struct fixture f;
		struct wperf_graph g;
		struct wperf_callsites cs;
		uint64_t t = 0;

		init(&f);
		add_thread(&f, 200, 600, B);	     /* A */
		add_entity(&f, WPERF_ENTITY_THREAD); /* B */
		for (size_t i = 0; i < 2 && cc->waits[i][1]; i++) {
			if (cc->waits[i][0] > t)
				add_segment(&f, t, cc->waits[i][0], WPERF_SEG_RUNNING,
					    WPERF_NO_ENTITY, -1);
			add_segment(&f, cc->waits[i][0], cc->waits[i][1], WPERF_SEG_WAITING, C, -1);
			t = cc->waits[i][1];
		}
		add_segment(&f, t, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
		add_thread(&f, 0, 0, WPERF_NO_ENTITY); /* C */
		run(&f, 1, &g, &cs);
		if (weight(&g, A, B) != 400 || weight(&g, B, C) != cc->b_c || g.nedges != 2)
			fail_msg("%s: A -> B %llu (400), B -> C %llu (%llu), %zu edges (2)",
				 cc->what, (unsigned long long)weight(&g, A, B),
				 (unsigned long long)weight(&g, B, C), (unsigned long long)cc->b_c,
				 g.nedges);
		wperf_graph_release(&g);
		wperf_callsites_release(&cs);
	}
}

/*
 * A cut wait is cascaded with its cut interval (Figure 4 sets segment.start
 * and segment.end before line 15): A waits for B over [200, 600), B for C over
 * [100, 500), C for D over the whole window.
 *  - A's wait: A -> B 400; B's, cut to [200, 500): B -> C 300; C's, cut to
 *    [200, 500) (not to A's [200, 600)): C -> D 300.
 *  - B's wait: B -> C 400; C's, cut to [100, 500): C -> D 400.
 *  - C's wait: C -> D 1000.
 */
static void test_figure4_cut_interval_cascades(void **state)
{
	struct fixture f;
	struct wperf_graph g;
	struct wperf_callsites cs;

	(void)state;
	init(&f);
	add_thread(&f, 200, 600, B);	       /* A */
	add_thread(&f, 100, 500, C);	       /* B */
	add_thread(&f, 0, 1000, D);	       /* C */
	add_thread(&f, 0, 0, WPERF_NO_ENTITY); /* D */
	run(&f, 1, &g, &cs);
	assert_int_equal(weight(&g, A, B), 400);
	assert_int_equal(weight(&g, B, C), 400 + 300);
	assert_int_equal(weight(&g, C, D), 1000 + 400 + 300);
	assert_int_equal(g.nedges, 3);
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

/*
 * pthread_create and pthread_join as the analyzer sees them: the C library's,
 * except that create number fail_create (1 for the first; 0: none) fails as
 * when the process is out of threads, and both are counted. Defined here, they
 * take the library's place for core/analysis/cascade.c.
 */
static unsigned fail_create, creates, joins;

int pthread_join(pthread_t thread, void **ret)
{
	int (*real)(pthread_t, void **) =
	    (int (*)(pthread_t, void **))dlsym(RTLD_NEXT, "pthread_join");

	joins++;
	return real(thread, ret);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
	int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
	    (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(
		RTLD_NEXT, "pthread_create");

	if (fail_create && ++creates == fail_create)
		return EAGAIN;
	return real(thread, attr, start, arg);
}

/* A worker thread that cannot be created fails the cascade cleanly: the ones
 * that started are joined, the one that did not is not (it once was, a join
 * of a thread that never existed). */
static void test_thread_not_created(void **state)
{
	struct wperf_cascade_opts o = {.jobs = 4};
	struct wperf_error err = {0};
	struct wperf_callsites cs = {0};
	struct wperf_graph g = {0};
	struct fixture f;

	(void)state;
	init(&f);
	add_entity(&f, WPERF_ENTITY_THREAD); /* A */
	add_segment(&f, 0, 1000, WPERF_SEG_WAITING, B, -1);
	add_entity(&f, WPERF_ENTITY_THREAD); /* B */
	add_segment(&f, 0, 1000, WPERF_SEG_RUNNING, WPERF_NO_ENTITY, -1);
	fail_create = 2; /* the second of three workers */
	creates = joins = 0;
	assert_int_equal(wperf_cascade(&f.tl, &o, &g, &cs, &err), -EAGAIN);
	fail_create = 0;
	assert_int_equal(creates, 2); /* none tried after the failure */
	assert_int_equal(joins, 1);   /* the one that started */
	wperf_graph_release(&g);
	wperf_callsites_release(&cs);
}

/*
 * Figure 1, recorded: A (2 ms of work) fills a queue that B (5 ms of work, then
 * a 5 ms sync) empties, so every 10 ms cycle, from B's dequeue at t0:
 *  - A runs [t0, t0 + 2) and waits for B over [t0 + 2, t0 + 10) (the queue is
 *    full until B's next dequeue): 80% of its time, as the paper says;
 *  - B runs [t0, t0 + 5) and waits for the disk over [t0 + 5, t0 + 10);
 *  - the disk is busy [t0 + 5, t0 + 10) and idle, waiting for B (who issued
 *    all its I/O), over [t0, t0 + 5).
 * Cascaded, per cycle: A -> B 8 ms; B -> disk 5 ms of its own plus the 5 ms
 * nested in A's wait (the disk was busy then: nothing deeper); disk -> B 5 ms
 * (B was running then: nothing deeper). The window holds whole cycles: it
 * starts at a dequeue and ends at one.
 */
#define MS	     1000000ull
#define FIG1_CYCLES  20
#define FIG1_PROCESS 100
#define FIG1_A	     101
#define FIG1_B	     102
#define FIG1_DISK    ((254u << 20) | 0)

static void build_figure1(struct trace_builder *b)
{
	tb_init(b, 0, FIG1_CYCLES * 10 * MS);
	tb_thread(b, FIG1_PROCESS, FIG1_PROCESS, "fig1");
	tb_thread(b, FIG1_A, FIG1_PROCESS, "A");
	tb_thread(b, FIG1_B, FIG1_PROCESS, "B");
	for (uint64_t c = 0; c <= FIG1_CYCLES; c++) {
		uint64_t t0 = c * 10 * MS;

		if (c > 0) { /* the sync's write completes: the disk wakes B */
			tb_block(b, WPERF_EV_BLOCK_COMPLETE, t0, 0, 0, WPERF_CTX_SOFTIRQ,
				 WPERF_SOFTIRQ_BLOCK, FIG1_DISK, c - 1, 4096);
			tb_wake_irq(b, t0, 0, FIG1_B, WPERF_CTX_SOFTIRQ, WPERF_SOFTIRQ_BLOCK);
		}
		tb_switch(b, t0, 0, 0, FIG1_B, 1, -1, -1);
		tb_wake(b, t0, 0, FIG1_A, FIG1_B, -1, -1); /* B dequeues: room for A */
		tb_switch(b, t0, 1, 0, FIG1_A, 1, -1, -1);
		if (c == FIG1_CYCLES)
			break; /* the window ends at this dequeue */
		tb_switch(b, t0 + 2 * MS, 1, FIG1_A, 0, 0, -1, -1); /* the queue is full */
		tb_block(b, WPERF_EV_BLOCK_ISSUE, t0 + 5 * MS, 0, FIG1_B, WPERF_CTX_THREAD, 0,
			 FIG1_DISK, c, 4096);
		tb_switch(b, t0 + 5 * MS, 0, FIG1_B, 0, 0, -1, -1); /* sync */
	}
}

/* The entity of a thread (tid) or of the disk (tid 0). */
static uint32_t entity_of(const struct wperf_timeline *tl, uint32_t tid)
{
	for (uint32_t e = 0; e < tl->nentities; e++)
		if (tid ? tl->entities[e].kind == WPERF_ENTITY_THREAD && tl->entities[e].tid == tid
			: tl->entities[e].kind == WPERF_ENTITY_DISK)
			return e;
	fail_msg("no entity for tid %u", tid);
	return WPERF_NO_ENTITY;
}

static void test_figure1_per_cycle_weights(void **state)
{
	struct trace_builder b;
	struct wperf_trace *t;
	struct wperf_timeline *tl;
	struct wperf_graph g = {0};
	struct wperf_callsites cs = {0};
	struct wperf_error err = {0};
	uint32_t a, bb, disk;

	(void)state;
	build_figure1(&b);
	t = tb_open(&b);
	if (wperf_timeline_build(t, NULL, &tl, &err) < 0 ||
	    wperf_cascade(tl, NULL, &g, &cs, &err) < 0)
		fail_msg("%s", err.msg);
	a = entity_of(tl, FIG1_A);
	bb = entity_of(tl, FIG1_B);
	disk = entity_of(tl, 0);
	assert_int_equal(tl->entities[a].waiting_ns, FIG1_CYCLES * 8 * MS);
	assert_int_equal(tl->entities[bb].waiting_ns, FIG1_CYCLES * 5 * MS);
	assert_int_equal(tl->entities[disk].busy_ns, FIG1_CYCLES * 5 * MS);
	assert_int_equal(weight(&g, a, bb), FIG1_CYCLES * 8 * MS);
	assert_int_equal(weight(&g, bb, disk), FIG1_CYCLES * (5 + 5) * MS);
	assert_int_equal(weight(&g, disk, bb), FIG1_CYCLES * 5 * MS);
	assert_int_equal(g.nedges, 3);
	wperf_graph_release(&g);
	wperf_callsites_release(&cs);
	wperf_timeline_free(tl);
	wperf_trace_free(t);
	tb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_figure3),
	    cmocka_unit_test(test_three_levels),
	    cmocka_unit_test(test_device_idle_split),
	    cmocka_unit_test(test_cycle_guard),
	    cmocka_unit_test(test_jobs_identical),
	    cmocka_unit_test(test_thread_not_created),
	    cmocka_unit_test(test_figure4_clipping),
	    cmocka_unit_test(test_figure4_cut_interval_cascades),
	    cmocka_unit_test(test_figure1_per_cycle_weights),
	};

	return cmocka_run_group_tests_name("cascade", tests, NULL, NULL);
}
