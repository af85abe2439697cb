/* SPDX-License-Identifier: MIT */
/*
 * pools: two pools of threads in one process that never name themselves, as
 * the threads of most C programs: every one is "pools", the process's name.
 *
 * Pool A, the loaders (--loaders N, default 2), loop in a_worker: make an item
 * (make_item: --make-us of CPU, default 100) and put it in a bounded queue
 * (--queue slots, default 8), blocking on a condition variable while it is
 * full. Pool B, the handlers (--handlers N, default 2), loop in b_worker: take
 * an item (blocking on another condition variable while the queue is empty),
 * update a table under its one mutex (update_table: --cs-us of CPU inside the
 * critical section, default 1000) and prepare the next update outside it
 * (prepare_update: --out-us, default 300).
 *
 * Known answer: the handlers' lock bounds the throughput (about 1 / cs, 1000
 * items/s by default): the handlers wait for each other, one vertex
 * "pools@b_worker" with a self-loop, a knot as in lock.c; the loaders,
 * "pools@a_worker", wait for the handlers (the queue stays full) and are
 * outside it; the main thread only sleeps until the run time is over. What
 * tells the pools apart is their code: the analyzer compares the threads' user
 * stacks (core/analysis/merge_profile.c). By name alone all of them were one vertex
 * "pools" whose self-loop held the loaders' waits too: a knot that could not
 * say which pool.
 *
 * --fixed: the fix the knot points to, finer locking: the table is split into
 * --stripes stripes (default 4 per handler), each with its own mutex, and an
 * update takes only its stripe's lock. The handlers then rarely wait for each
 * other and the two CPUs are the limit: about 2 / (cs + out + make), some 1400
 * items/s by default.
 *
 * On 2 cores: the handlers' work outside the lock keeps the knot above one CPU
 * (about 1.3), which a knot of background threads (wPerf section 3.3) is not.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_queue.h"
#include "synth_table.h"

#define MAX_THREADS 32

struct pools {
	/* options */
	int nloaders, nhandlers;
	int64_t make_ns;
	struct table_opts work;
	/* state */
	struct queue queue;
	struct table table;
	atomic_uint_fast64_t items; /* handled */
	pthread_barrier_t start;
};

/*
 * The work, one function each so that recorded stacks name it. Not static,
 * not inlined, so that the compiler keeps them under these names.
 */
__attribute__((noinline)) void make_item(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void update_table(struct stripe *s, int64_t ns)
{
	synth_work_ns(ns);
	s->updates++;
}

__attribute__((noinline)) void prepare_update(int64_t ns)
{
	synth_work_ns(ns);
}

/* A thread of a pool starts: says which it is (a test ties tids to pools), and
 * waits for the others, keeping the process's name. */
static void begin(const char *pool, struct pools *app)
{
	printf("thread %s tid %d\n", pool, (int)gettid());
	fflush(stdout);
	pthread_barrier_wait(&app->start);
}

__attribute__((noinline)) void *a_worker(void *arg)
{
	struct synth_worker *w = arg;
	struct pools *app = w->app;
	uint64_t n = 0;

	begin("loader", app);
	do
		make_item(app->make_ns);
	while (queue_push(&app->queue, n++));
	return NULL;
}

__attribute__((noinline)) void *b_worker(void *arg)
{
	struct synth_worker *w = arg;
	struct pools *app = w->app;
	uint64_t item;

	begin("handler", app);
	while (queue_pop(&app->queue, &item)) {
		struct stripe *s = &app->table.stripes[item % (uint64_t)app->table.nstripes];

		pthread_mutex_lock(&s->lock);
		update_table(s, app->work.cs_ns);
		pthread_mutex_unlock(&s->lock); /* wakes one waiter, if any */
		atomic_fetch_add_explicit(&app->items, 1, memory_order_relaxed);
		prepare_update(app->work.out_ns);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --loaders N         threads of pool A, making items (default 2)\n"
    "      --handlers N        threads of pool B, handling them (default 2)\n"
    "      --make-us US        CPU work to make an item (default 100)\n"
    "      --queue N           slots of the queue between the pools (default 8)\n" TABLE_USAGE
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum { OPT_LOADERS = 256, OPT_HANDLERS, OPT_MAKE_US, OPT_QUEUE };
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"loaders", required_argument, NULL, OPT_LOADERS},
	    {"handlers", required_argument, NULL, OPT_HANDLERS},
	    {"make-us", required_argument, NULL, OPT_MAKE_US},
	    {"queue", required_argument, NULL, OPT_QUEUE},
	    TABLE_OPTIONS,
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct pools app;
	static struct synth_worker loaders[MAX_THREADS], handlers[MAX_THREADS];
	double duration = 5, make_us = 100;
	long long queue = 8;
	struct synth_window w;
	int c;

	app.nloaders = app.nhandlers = 2;
	app.work = (struct table_opts)TABLE_OPTS_DEFAULT;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_LOADERS:
			app.nloaders = synth_opt_long("--loaders", optarg, 1, MAX_THREADS);
			break;
		case OPT_HANDLERS:
			app.nhandlers = synth_opt_long("--handlers", optarg, 1, MAX_THREADS);
			break;
		case OPT_MAKE_US:
			make_us = synth_opt_double("--make-us", optarg, 0, 1e9);
			break;
		case OPT_QUEUE:
			queue = synth_opt_long("--queue", optarg, 1, 1 << 20);
			break;
		default:
			table_option(c, optarg, &app.work);
			break;
		}
	}
	app.make_ns = make_us * SYNTH_NSEC_PER_USEC;
	table_init(&app.table, &app.work, app.nhandlers);
	queue_init(&app.queue, (size_t)queue);

	synth_signals_init();
	pthread_barrier_init(&app.start, NULL, app.nloaders + app.nhandlers + 1);
	/* the names are only for synth_worker: the threads keep the process's */
	synth_start_workers(loaders, app.nloaders, a_worker, &app, "loader", -1);
	synth_start_workers(handlers, app.nhandlers, b_worker, &app, "handler", -1);

	w = synth_measure(&app.start, duration, &app.items);
	queue_stop(&app.queue);
	synth_join_workers(loaders, app.nloaders);
	synth_join_workers(handlers, app.nhandlers);
	synth_say_stopped(w.sig);

	table_release(&app.table);
	synth_report("items", w.count, w.elapsed_ns, "items/s");
	return 0;
}
