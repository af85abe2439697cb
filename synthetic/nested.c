/* SPDX-License-Identifier: MIT */
/*
 * nested: nested waiting, the example of the wPerf paper's Figure 3 (OSDI'18,
 * section 3.2.2, "Refining knots", and the cascade of section 4.2, Figure 4).
 *
 * In Figure 3, A waits for B from t0 to t2 and B waits for C from t0 to t1,
 * inside A's wait: C wakes B at t1, B wakes A at t2. The paper names the two
 * ways this happens, and --mode picks one:
 *
 *   --mode symmetric   C releases a lock that A and B both wait for. C holds
 *                      the lock L while it updates the shared data
 *                      (c_update, --c-ms of CPU); A and B each want L to read
 *                      it (read_locked, --a-ms / --b-ms) and then work on what
 *                      they read outside the lock (use_outside, --tail-ms).
 *                      When C unlocks, the kernel wakes one of them, say B;
 *                      B's unlock wakes A. Which of A and B goes first is up
 *                      to the order they queued on L: either, at random.
 *   --mode asymmetric  A's task depends on B's, which depends on C's: C does
 *                      task 1 (c_task1, --c-ms) and hands it to B, B does task
 *                      2 (b_task2, --b-ms) and hands it to A, A does task 3
 *                      (a_task3, --a-ms), tells C the request is done, and
 *                      does its own bookkeeping (a_tail, --tail-ms).
 *
 * Each round (one item, or one request) C waits for the round to end before
 * it starts the next one (symmetric: until A and B have both read the data;
 * asymmetric: until A says the request is done), so the three threads wait
 * for each other in a cycle, and all three are worker threads (their
 * throughput is the program's).
 *
 * Known answer: one knot {nested/A, nested/B, nested/C}; the main thread
 * (identity "nested"), which only sleeps until the run time is over, stays
 * out. What the example is for is the weights: cascaded re-distribution keeps
 * A's whole wait on A -> B and adds the part of it that B spent waiting for C
 * to B -> C again, so the upstream edge (to C) is heavier than the nested one
 * (A -> B). Per round of c + a + b (+ tail) ms, by the algorithm of Figure 4:
 *
 *   asymmetric (defaults 4, 1, 1, tail 2; a round is c + b + a = 6 ms):
 *     B -> C = a + 2c - tail = 7    A -> B = c + 2b - tail = 4
 *     C -> A = 2a + b = 3 (A's "done" closes the cycle)
 *   symmetric (a = b; a round is c + a + b + tail = 8 ms), summed over both
 *   orders (A first or B first):
 *     A -> C + B -> C = 2c + b = 9  A -> B + B -> A = c + 2b = 6
 *     C -> A + C -> B = 3b + tail = 5
 *
 * The upstream edge stays the heavier one as long as C's work outweighs
 * what B does between being woken by C and waking A: c + a > 2b in both
 * modes (with a = b, as in the symmetric mode, c > b).
 *
 * --fixed: the fix the heavy edge to C points to: C prepares the next item
 * while A and B still work on the current one, instead of A and B waiting
 * for C's work. Symmetric: C updates a copy outside the lock and only swaps
 * it in under L (a short critical section). Asymmetric: C no longer waits
 * for A's "done" before starting the next task 1 (a pipeline, one task in
 * each hand-off slot). With the defaults, about 1.3x the items per second
 * (symmetric) and 1.5x (asymmetric).
 *
 * The paper's assumptions on 2 cores: in the base version at most two threads
 * are ready at once (symmetric: whoever holds L, and the other reader working
 * outside the lock; asymmetric: C's next task 1 and A's tail), so each finds
 * a CPU, the paper's "more CPU cores than threads". The tails are there so
 * that the knot uses more than one CPU (about 1.2 symmetric, 1.3 asymmetric):
 * a knot whose threads only ever run one at a time uses less than one CPU in
 * all, which is the paper's heuristic for a knot of background threads
 * (section 3.3), set aside. The fixed version keeps both CPUs busy, which is
 * what bounds its gain.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_queue.h"

/* ---- the application ---- */

struct nested {
	/* options */
	bool symmetric, fixed;
	int64_t a_ns, b_ns, c_ns, tail_ns;
	/* symmetric mode: the data lock L, and the rounds (under round_lock) */
	pthread_mutex_t data_lock;
	pthread_mutex_t round_lock;
	pthread_cond_t new_round; /* C to the readers: a new version is out */
	pthread_cond_t all_read;  /* the last reader to C: both have read it */
	uint64_t round;		  /* the version out */
	int readers_done;	  /* readers done with it */
	bool stop;
	/*
	 * asymmetric mode: C -> B -> A, and A's "done" back to C, each a
	 * hand-off of one request at a time, a queue of one slot: the taker
	 * waits for the putter and is woken by it, which is the wait-for edge.
	 */
	struct queue to_b, to_a, done;
	pthread_barrier_t start;
	atomic_uint_fast64_t items; /* rounds (symmetric) or requests (asymmetric) done */
};

/*
 * The work, one function each so that recorded stacks name it. Not static,
 * not inlined, so that the compiler keeps them under these names.
 */
__attribute__((noinline)) void c_update(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void read_locked(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void use_outside(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void c_task1(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void b_task2(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void a_task3(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void a_tail(int64_t ns)
{
	synth_work_ns(ns);
}

/* ---- symmetric: C releases the lock that A and B both wait for ---- */

/* In C: wait until both readers are done with the last version. False once stopped. */
static bool wait_all_read(struct nested *app)
{
	while (app->readers_done < 2 && !app->stop)
		pthread_cond_wait(&app->all_read, &app->round_lock);
	app->readers_done = 0;
	return !app->stop;
}

static void *sym_c(void *arg)
{
	struct nested *app = arg;

	synth_thread_begin("C", &app->start);
	for (;;) {
		if (app->fixed) {
			/*
			 * The fix: update a copy outside the lock, while A and B
			 * still read the last version, then swap it in under L.
			 */
			c_update(app->c_ns);
			pthread_mutex_lock(&app->round_lock);
			if (!wait_all_read(app)) {
				pthread_mutex_unlock(&app->round_lock);
				break;
			}
			pthread_mutex_lock(&app->data_lock);
			app->round++; /* the swap: nothing else to do */
			pthread_mutex_unlock(&app->data_lock);
			pthread_cond_broadcast(&app->new_round);
			pthread_mutex_unlock(&app->round_lock);
			continue;
		}
		pthread_mutex_lock(&app->round_lock);
		if (!wait_all_read(app)) {
			pthread_mutex_unlock(&app->round_lock);
			break;
		}
		/*
		 * Take L before announcing the round: A and B, woken by the
		 * broadcast, then both queue on L and wait until C is done.
		 */
		pthread_mutex_lock(&app->data_lock);
		app->round++;
		pthread_cond_broadcast(&app->new_round);
		pthread_mutex_unlock(&app->round_lock);
		c_update(app->c_ns);
		pthread_mutex_unlock(&app->data_lock); /* wakes one of A and B */
	}
	return NULL;
}

struct reader {
	struct nested *app;
	const char *name;
	int64_t locked_ns;
	pthread_t thread;
};

static void *sym_reader(void *arg)
{
	struct reader *r = arg;
	struct nested *app = r->app;
	uint64_t seen = 0;
	bool stop;

	synth_thread_begin(r->name, &app->start);
	for (;;) {
		pthread_mutex_lock(&app->round_lock);
		while (app->round == seen && !app->stop)
			pthread_cond_wait(&app->new_round, &app->round_lock);
		seen = app->round;
		stop = app->stop;
		pthread_mutex_unlock(&app->round_lock);
		if (stop)
			break;
		/* Waits for C (or for the other reader, whom C woke first). */
		pthread_mutex_lock(&app->data_lock);
		read_locked(r->locked_ns);
		pthread_mutex_unlock(&app->data_lock);
		use_outside(app->tail_ns);
		pthread_mutex_lock(&app->round_lock);
		if (++app->readers_done == 2) {
			atomic_fetch_add(&app->items, 1);
			pthread_cond_signal(&app->all_read);
		}
		pthread_mutex_unlock(&app->round_lock);
	}
	return NULL;
}

/* ---- asymmetric: A's task depends on B's, which depends on C's ---- */

static void *asym_c(void *arg)
{
	struct nested *app = arg;

	synth_thread_begin("C", &app->start);
	for (uint64_t req = 0;; req++) {
		uint64_t done;

		/* Base: one request at a time; the fix starts the next at once. */
		if (!app->fixed && !queue_pop(&app->done, &done))
			break;
		c_task1(app->c_ns);
		if (!queue_push(&app->to_b, req))
			break;
	}
	return NULL;
}

static void *asym_b(void *arg)
{
	struct nested *app = arg;
	uint64_t req;

	synth_thread_begin("B", &app->start);
	while (queue_pop(&app->to_b, &req)) {
		b_task2(app->b_ns);
		if (!queue_push(&app->to_a, req))
			break;
	}
	return NULL;
}

static void *asym_a(void *arg)
{
	struct nested *app = arg;
	uint64_t req;

	synth_thread_begin("A", &app->start);
	while (queue_pop(&app->to_a, &req)) {
		a_task3(app->a_ns);
		atomic_fetch_add(&app->items, 1);
		if (!app->fixed && !queue_push(&app->done, req))
			break;
		a_tail(app->tail_ns);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --mode symmetric|asymmetric\n"
    "                          symmetric (default): C releases a lock A and B wait for;\n"
    "                          asymmetric: A's task needs B's, which needs C's\n"
    "      --c-ms MS           C's work per item: under the lock, or task 1 (default 4)\n"
    "      --b-ms MS           B's work: under the lock, or task 2 (default 1)\n"
    "      --a-ms MS           A's work: under the lock, or task 3 (default 1)\n"
    "      --tail-ms MS        work after that, outside the lock (A and B) or\n"
    "                          after telling C the request is done (A) (default 2)\n"
    "      --fixed             C prepares the next item while A and B work on this one\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum { OPT_MODE = 256, OPT_A_MS, OPT_B_MS, OPT_C_MS, OPT_TAIL_MS, OPT_FIXED };
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"mode", required_argument, NULL, OPT_MODE},
	    {"a-ms", required_argument, NULL, OPT_A_MS},
	    {"b-ms", required_argument, NULL, OPT_B_MS},
	    {"c-ms", required_argument, NULL, OPT_C_MS},
	    {"tail-ms", required_argument, NULL, OPT_TAIL_MS},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct nested app;
	double duration = 5, a_ms = 1, b_ms = 1, c_ms = 4, tail_ms = 2;
	struct reader readers[2];
	pthread_t c_thread, a_thread, b_thread;
	struct synth_window w;
	int c;

	app.symmetric = true;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_MODE:
			if (strcmp(optarg, "symmetric") == 0)
				app.symmetric = true;
			else if (strcmp(optarg, "asymmetric") == 0)
				app.symmetric = false;
			else
				synth_die(2, "--mode: '%s' is neither symmetric nor asymmetric",
					  optarg);
			break;
		case OPT_A_MS:
			a_ms = synth_opt_double("--a-ms", optarg, 0, 1e6);
			break;
		case OPT_B_MS:
			b_ms = synth_opt_double("--b-ms", optarg, 0, 1e6);
			break;
		case OPT_C_MS:
			c_ms = synth_opt_double("--c-ms", optarg, 0, 1e6);
			break;
		case OPT_TAIL_MS:
			tail_ms = synth_opt_double("--tail-ms", optarg, 0, 1e6);
			break;
		case OPT_FIXED:
			app.fixed = true;
			break;
		}
	}
	app.a_ns = a_ms * SYNTH_NSEC_PER_MSEC;
	app.b_ns = b_ms * SYNTH_NSEC_PER_MSEC;
	app.c_ns = c_ms * SYNTH_NSEC_PER_MSEC;
	app.tail_ns = tail_ms * SYNTH_NSEC_PER_MSEC;

	synth_signals_init();
	pthread_mutex_init(&app.data_lock, NULL);
	pthread_mutex_init(&app.round_lock, NULL);
	pthread_cond_init(&app.new_round, NULL);
	pthread_cond_init(&app.all_read, NULL);
	app.readers_done = 2; /* nothing to read yet: C may start */
	pthread_barrier_init(&app.start, NULL, 4);
	if (app.symmetric) {
		readers[0] = (struct reader){&app, "A", app.a_ns, 0};
		readers[1] = (struct reader){&app, "B", app.b_ns, 0};
		synth_thread_create(&c_thread, sym_c, &app);
		for (int i = 0; i < 2; i++)
			synth_thread_create(&readers[i].thread, sym_reader, &readers[i]);
	} else {
		queue_init(&app.to_b, 1);
		queue_init(&app.to_a, 1);
		queue_init(&app.done, 1);
		queue_push(&app.done, 0); /* one request in flight */
		synth_thread_create(&c_thread, asym_c, &app);
		synth_thread_create(&b_thread, asym_b, &app);
		synth_thread_create(&a_thread, asym_a, &app);
	}

	w = synth_measure(&app.start, duration, &app.items);
	if (app.symmetric) {
		pthread_mutex_lock(&app.round_lock);
		app.stop = true;
		pthread_cond_broadcast(&app.new_round);
		pthread_cond_broadcast(&app.all_read);
		pthread_mutex_unlock(&app.round_lock);
		pthread_join(c_thread, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(readers[i].thread, NULL);
	} else {
		queue_stop(&app.done);
		queue_stop(&app.to_b);
		queue_stop(&app.to_a);
		pthread_join(c_thread, NULL);
		pthread_join(b_thread, NULL);
		pthread_join(a_thread, NULL);
		queue_destroy(&app.done);
		queue_destroy(&app.to_b);
		queue_destroy(&app.to_a);
	}
	synth_say_stopped(w.sig);

	synth_report("items", w.count, w.elapsed_ns, "items/s");
	return 0;
}
