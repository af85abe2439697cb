/* SPDX-License-Identifier: MIT */
/*
 * lock: lock contention, the most common cause of a knot in the wPerf paper
 * (OSDI'18, section 3.2.1: "threads contending on the lock may wait for each
 * other"; the Memcached and MySQL case studies of section 5, where a knot of
 * worker threads was fixed with finer-grained locking).
 *
 * --workers N threads (default 4), named worker-0, worker-1, ..., loop over
 * one operation: take the one mutex that guards a shared table, update it
 * (update_locked, --cs-us of CPU work inside the critical section), release
 * it, then prepare the next operation (prepare_outside, --out-us outside). The
 * critical section is long next to the work outside it, so the workers spend
 * most of their time queued on the mutex, each woken by the one unlocking it.
 *
 * Known answer: the workers are one vertex of the graph, lock/worker-# (the
 * digits after the separator are folded to #), with a self-loop: they wait
 * for each other, and for nobody else. A vertex with a self-loop and no other
 * way out is a knot (Definition 3.4), and it is the knot. The main thread
 * (identity "lock"), which only sleeps until the run time is over, stays out.
 * The lock is held all the time, so the throughput is about 1 / cs: 1000
 * operations/s by default, however many workers there are.
 *
 * --fixed: the fix the self-loop points to, finer locking: the table is split
 * into --stripes stripes (default 4 per worker), each with its own mutex, and
 * an operation takes only the lock of the stripe it updates (a random one).
 * The workers then rarely wait for each other and the two CPUs are the limit:
 * about 2 / (cs + out), 1500 operations/s by default.
 *
 * On 2 cores: the paper's model has more cores than threads; here 4 workers
 * share 2 cores, which is fine for the base version because at most two of
 * them are ever ready (the lock holder, and one working outside the lock);
 * the others are blocked on the mutex, which is the point. The work outside
 * the lock keeps the knot above one CPU (about 1.2): a knot using less than
 * one CPU in all is the paper's heuristic for a knot of background threads
 * (section 3.3). The fixed version has all 4 workers ready on 2 cores, which
 * is what bounds its gain.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_table.h"

#define MAX_WORKERS 64

struct app {
	/* options */
	int nworkers;
	struct table_opts work;
	/* state */
	struct table table;
	atomic_bool stop;
	atomic_uint_fast64_t ops;
	pthread_barrier_t start;
};

/*
 * The work, one function each so that recorded stacks name it. Not static,
 * not inlined, so that the compiler keeps them under these names.
 */
__attribute__((noinline)) void update_locked(struct stripe *s, int64_t ns)
{
	synth_work_ns(ns);
	s->updates++;
}

__attribute__((noinline)) void prepare_outside(int64_t ns)
{
	synth_work_ns(ns);
}

static void *worker_main(void *arg)
{
	struct synth_worker *w = arg;
	struct app *app = w->app;
	uint64_t rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(w->index + 1);

	synth_thread_begin(w->name, &app->start);
	while (!atomic_load_explicit(&app->stop, memory_order_relaxed)) {
		struct stripe *s = &app->table.stripes[0];

		if (app->table.nstripes > 1) {
			/* xorshift64: which stripe this operation updates */
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			s = &app->table.stripes[rng % (uint64_t)app->table.nstripes];
		}
		pthread_mutex_lock(&s->lock);
		update_locked(s, app->work.cs_ns);
		pthread_mutex_unlock(&s->lock); /* wakes one waiter, if any */
		atomic_fetch_add_explicit(&app->ops, 1, memory_order_relaxed);
		prepare_outside(app->work.out_ns);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "  -n, --workers N         worker threads (default 4)\n" TABLE_USAGE "  -h, --help\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"workers", required_argument, NULL, 'n'},
	    TABLE_OPTIONS,
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct app app;
	static struct synth_worker workers[MAX_WORKERS];
	double duration = 5;
	struct synth_window w;
	int c;

	app.nworkers = 4;
	app.work = (struct table_opts)TABLE_OPTS_DEFAULT;
	while ((c = synth_getopt(argc, argv, "d:n:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case 'n':
			app.nworkers = synth_opt_long("--workers", optarg, 1, MAX_WORKERS);
			break;
		default:
			table_option(c, optarg, &app.work);
			break;
		}
	}
	table_init(&app.table, &app.work, app.nworkers);

	synth_signals_init();
	pthread_barrier_init(&app.start, NULL, app.nworkers + 1);
	synth_start_workers(workers, app.nworkers, worker_main, &app, "worker-", 0);

	w = synth_measure(&app.start, duration, &app.ops);
	atomic_store(&app.stop, true);
	synth_join_workers(workers, app.nworkers);
	synth_say_stopped(w.sig);

	table_release(&app.table);
	synth_report("operations", w.count, w.elapsed_ns, "operations/s");
	return 0;
}
