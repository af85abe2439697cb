/* SPDX-License-Identifier: MIT */
/*
 * imbalance: load imbalance across the phases of a bulk-synchronous program,
 * the wPerf paper's third common cause of a knot (OSDI'18, section 3.2.1,
 * "Load imbalance": "suppose in phase 1, thread A executes three tasks and
 * thread B executes one task; in phase 2, A executes one task and B executes
 * three tasks: in this case, A needs to wait for B at the end of phase 1 and
 * B needs to wait for A at the end of phase 2, creating a cycle"); GAPP
 * (ICPE'20, section 5) finds the same imbalance in the barrier-synchronized
 * PARSEC programs and in Nektar++.
 *
 * Two threads, A and B, repeat two phases with a barrier after each:
 *   phase 1: A does --heavy-ms of CPU work (phase1_work), B --light-ms;
 *   phase 2: A does --light-ms (phase2_work), B --heavy-ms.
 * Whoever finishes a phase first waits at the barrier until the other
 * arrives, and is woken by it.
 *
 * Known answer: B, done first, waits for A at the end of phase 1, and A
 * waits for B at the end of phase 2. The cycle A <-> B is the knot; the main thread (identity
 * "imbalance"), which only sleeps until the run time is over, stays out. Neither thread is busy all
 * the time, so neither is a sink: each phase takes as long as its heavy part, heavy + heavy per
 * iteration, 6 ms by default.
 *
 * --fixed: the fix the knot points to, rebalancing: each thread does the
 * average, (heavy + light) / 2, in each phase, so a phase takes that long and
 * an iteration heavy + light: 4 ms by default, 1.5x the iterations per second.
 *
 * On 2 cores: two threads, so each has a CPU, the paper's assumption of
 * enough cores. The two phases overlap in CPU use (both threads work until
 * the light one is done), so the knot uses more than one CPU (about 1.3), not
 * the under-one-CPU of the paper's heuristic for background threads (section
 * 3.3).
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"

/*
 * A reusable barrier for two threads that can be stopped (pthread_barrier_t
 * cannot): the last to arrive wakes the other.
 */
struct barrier {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int waiting, parties;
	uint64_t generation;
	bool stop;
};

static void barrier_init(struct barrier *b, int parties)
{
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	b->waiting = 0;
	b->parties = parties;
	b->generation = 0;
	b->stop = false;
}

/* False once stopped. Not inlined: stacks name where the thread waited. */
__attribute__((noinline)) bool barrier_wait(struct barrier *b)
{
	bool ok;

	pthread_mutex_lock(&b->lock);
	if (++b->waiting == b->parties) {
		b->waiting = 0;
		b->generation++;
		pthread_cond_broadcast(&b->cond);
	} else {
		uint64_t gen = b->generation;

		while (gen == b->generation && !b->stop)
			pthread_cond_wait(&b->cond, &b->lock);
	}
	ok = !b->stop;
	pthread_mutex_unlock(&b->lock);
	return ok;
}

static void barrier_stop(struct barrier *b)
{
	pthread_mutex_lock(&b->lock);
	b->stop = true;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

struct app {
	int64_t heavy_ns, light_ns;
	bool fixed;
	struct barrier barrier;
	pthread_barrier_t start;
	atomic_uint_fast64_t iterations; /* counted by A */
};

struct worker {
	struct app *app;
	const char *name;
	bool is_a;
	pthread_t thread;
};

/*
 * Each phase's work, one function each so that recorded stacks name it. Not
 * static, not inlined, so that the compiler keeps them under these names.
 */
__attribute__((noinline)) void phase1_work(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void phase2_work(int64_t ns)
{
	synth_work_ns(ns);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct app *app = w->app;
	int64_t even = (app->heavy_ns + app->light_ns) / 2;
	/* Base: A heavy in phase 1, B heavy in phase 2. Fixed: even. */
	int64_t p1 = app->fixed ? even : w->is_a ? app->heavy_ns : app->light_ns;
	int64_t p2 = app->fixed ? even : w->is_a ? app->light_ns : app->heavy_ns;

	synth_thread_begin(w->name, &app->start);
	for (;;) {
		phase1_work(p1);
		if (!barrier_wait(&app->barrier))
			break;
		phase2_work(p2);
		if (!barrier_wait(&app->barrier))
			break;
		if (w->is_a)
			atomic_fetch_add(&app->iterations, 1);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --heavy-ms MS       the heavy share of a phase (default 3)\n"
    "      --light-ms MS       the light share (default 1)\n"
    "      --fixed             rebalanced: (heavy + light) / 2 each, in each phase\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum { OPT_HEAVY_MS = 256, OPT_LIGHT_MS, OPT_FIXED };
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"heavy-ms", required_argument, NULL, OPT_HEAVY_MS},
	    {"light-ms", required_argument, NULL, OPT_LIGHT_MS},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct app app;
	struct worker workers[2] = {{&app, "A", true, 0}, {&app, "B", false, 0}};
	double duration = 5, heavy_ms = 3, light_ms = 1;
	struct synth_window w;
	int c;

	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_HEAVY_MS:
			heavy_ms = synth_opt_double("--heavy-ms", optarg, 0, 1e6);
			break;
		case OPT_LIGHT_MS:
			light_ms = synth_opt_double("--light-ms", optarg, 0, 1e6);
			break;
		case OPT_FIXED:
			app.fixed = true;
			break;
		}
	}
	app.heavy_ns = heavy_ms * SYNTH_NSEC_PER_MSEC;
	app.light_ns = light_ms * SYNTH_NSEC_PER_MSEC;

	synth_signals_init();
	barrier_init(&app.barrier, 2);
	pthread_barrier_init(&app.start, NULL, 3);
	for (int i = 0; i < 2; i++)
		synth_thread_create(&workers[i].thread, worker_main, &workers[i]);

	w = synth_measure(&app.start, duration, &app.iterations);
	barrier_stop(&app.barrier);
	for (int i = 0; i < 2; i++)
		pthread_join(workers[i].thread, NULL);
	synth_say_stopped(w.sig);

	synth_report("iterations", w.count, w.elapsed_ns, "iterations/s");
	return 0;
}
