/* SPDX-License-Identifier: MIT */
/*
 * spin: lock contention through a hand-made test-and-set spin lock, the busy
 * waiting of the wPerf paper (OSDI'18, sections 3.3 "Busy waiting" and 4.1
 * "Recording information for busy waiting"; MySQL in its Table 1).
 *
 * Thread holder takes the lock for a long critical section (--hold-us of CPU
 * work, 2 ms), releases it, and does a little work outside it (--gap-us).
 * Thread spinner (--spinners of them, all named spinner) takes the same lock
 * for a shorter critical section (--cs-us) and works outside it (--out-us).
 * Whoever finds the lock taken spins on it: it runs, as far as the kernel can
 * tell, while it is logically blocked on the thread that holds the lock.
 * Every pass through the lock, by any thread, is a request. The lock is held
 * almost all the time: it is what bounds the throughput.
 *
 * Known answer: the holder and the spinner form the knot. The spinner waits
 * for the holder's long critical section (the heavy edge, the one to
 * optimize), the holder waits for the spinner's critical section when the
 * spinner took the lock while the holder was working outside. The main
 * thread (it only sleeps until the end) stays out.
 *
 *  - With the annotations (--annotate, the default): WPERF_BEFORE_SPIN,
 *    WPERF_AFTER_SPIN and WPERF_SPIN_RELEASE around the spin, as
 *    include/wperf_annotate.h says. The analyzer makes each spin a wait on
 *    the thread that released the lock, and the knot {holder, spinner}
 *    appears.
 *  - Without them (--no-annotate: the probes are still in the binary, but
 *    not reached): nobody ever blocks, so as far as the kernel knows nobody
 *    waits for anybody: no knot, two threads that use a CPU each.
 *
 * On 2 cores: one holder and one spinner, two threads that never sleep, so
 * the paper's "more CPU cores than threads" (3.2) holds and the spinner burns
 * the other core, not the holder's. With --spinners 2 it no longer holds:
 * three threads that never sleep share 2 cores, the spinners take CPU time
 * from the holder in its critical section (lock-holder preemption) and the
 * throughput falls by about 40%; --mutex then doubles it. The analyzer then
 * sets the knot aside as a background knot: with the spins counted as waits
 * and the holder runnable a third of the time, its threads run less than one
 * CPU in all (wPerf's background heuristic, 3.3), although they never sleep.
 *
 * --fixed: the holder keeps only a quarter of its critical section under the
 * lock and does the rest, which does not need it, after releasing it: the
 * same CPU work per request, a shorter critical section, as the heavy edge
 * spinner -> holder says. --mutex: a blocking pthread mutex instead of the
 * spin lock (the waits become visible to the kernel without annotations).
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "wperf_annotate.h"

struct spin_app {
	/* options */
	int64_t hold_ns, gap_ns, cs_ns, out_ns;
	bool annotate, use_mutex;
	/* the lock: a test-and-set flag, or a mutex with --mutex */
	atomic_bool flag;
	pthread_mutex_t mutex;
	/* state */
	atomic_bool stop;
	pthread_barrier_t start;
	atomic_uint_fast64_t requests, holder_requests;
};

/*
 * The spin lock. Not inlined, and not static, so that recorded stacks name
 * it. The annotations go only on the contended path: an uncontended
 * acquisition waits for nobody.
 */
__attribute__((noinline)) void spin_lock(struct spin_app *app)
{
	atomic_bool *lock = &app->flag;

	if (!atomic_exchange_explicit(lock, true, memory_order_acquire))
		return;
	if (app->annotate)
		WPERF_BEFORE_SPIN(lock);
	synth_spin_until_taken(lock);
	if (app->annotate)
		WPERF_AFTER_SPIN(lock);
}

__attribute__((noinline)) void spin_unlock(struct spin_app *app)
{
	/* Every release, so that the analyzer knows who ended a spin. */
	if (app->annotate)
		WPERF_SPIN_RELEASE(&app->flag);
	atomic_store_explicit(&app->flag, false, memory_order_release);
}

static void take(struct spin_app *app)
{
	if (app->use_mutex)
		pthread_mutex_lock(&app->mutex);
	else
		spin_lock(app);
}

static void give(struct spin_app *app)
{
	if (app->use_mutex)
		pthread_mutex_unlock(&app->mutex);
	else
		spin_unlock(app);
}

/* The critical sections, under their own names in the stacks. */
__attribute__((noinline)) void holder_section(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void spinner_section(int64_t ns)
{
	synth_work_ns(ns);
}

static void *holder_main(void *arg)
{
	struct spin_app *app = arg;

	synth_thread_begin("holder", &app->start);
	while (!atomic_load(&app->stop)) {
		take(app);
		holder_section(app->hold_ns);
		give(app);
		atomic_fetch_add(&app->requests, 1);
		atomic_fetch_add(&app->holder_requests, 1);
		synth_work_ns(app->gap_ns);
	}
	return NULL;
}

static void *spinner_main(void *arg)
{
	struct spin_app *app = arg;

	synth_thread_begin("spinner", &app->start);
	while (!atomic_load(&app->stop)) {
		take(app);
		spinner_section(app->cs_ns);
		give(app);
		atomic_fetch_add(&app->requests, 1);
		synth_work_ns(app->out_ns);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S      run for S seconds (default 5)\n"
    "      --spinners N      threads that contend with the holder (default 1)\n"
    "      --hold-us U       the holder's critical section, CPU work (default 2000)\n"
    "      --gap-us U        the holder's work outside the lock (default 200)\n"
    "      --cs-us U         a spinner's critical section (default 500)\n"
    "      --out-us U        a spinner's work outside the lock (default 500)\n"
    "      --annotate        mark the spins with wperf_annotate.h (the default)\n"
    "      --no-annotate     leave the marks out: the spins look like work\n"
    "      --fixed           the holder keeps only a quarter of its critical section\n"
    "                        under the lock and does the rest after releasing it\n"
    "      --mutex           a blocking pthread mutex instead of the spin lock\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_SPINNERS = 256,
		OPT_HOLD_US,
		OPT_GAP_US,
		OPT_CS_US,
		OPT_OUT_US,
		OPT_ANNOTATE,
		OPT_NO_ANNOTATE,
		OPT_FIXED,
		OPT_MUTEX,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"spinners", required_argument, NULL, OPT_SPINNERS},
	    {"hold-us", required_argument, NULL, OPT_HOLD_US},
	    {"gap-us", required_argument, NULL, OPT_GAP_US},
	    {"cs-us", required_argument, NULL, OPT_CS_US},
	    {"out-us", required_argument, NULL, OPT_OUT_US},
	    {"annotate", no_argument, NULL, OPT_ANNOTATE},
	    {"no-annotate", no_argument, NULL, OPT_NO_ANNOTATE},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"mutex", no_argument, NULL, OPT_MUTEX},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct spin_app app;
	double duration = 5, hold_us = 2000, gap_us = 200, cs_us = 500, out_us = 500;
	long long nspinners = 1;
	bool fixed = false;
	pthread_t holder, *spinners;
	struct synth_window w;
	uint64_t held;
	int c;

	app.annotate = true;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_SPINNERS:
			nspinners = synth_opt_long("--spinners", optarg, 1, 64);
			break;
		case OPT_HOLD_US:
			hold_us = synth_opt_double("--hold-us", optarg, 0, 1e9);
			break;
		case OPT_GAP_US:
			gap_us = synth_opt_double("--gap-us", optarg, 0, 1e9);
			break;
		case OPT_CS_US:
			cs_us = synth_opt_double("--cs-us", optarg, 0, 1e9);
			break;
		case OPT_OUT_US:
			out_us = synth_opt_double("--out-us", optarg, 0, 1e9);
			break;
		case OPT_ANNOTATE:
			app.annotate = true;
			break;
		case OPT_NO_ANNOTATE:
			app.annotate = false;
			break;
		case OPT_FIXED:
			fixed = true;
			break;
		case OPT_MUTEX:
			app.use_mutex = true;
			break;
		}
	}
	if (fixed) {
		/* The same work per request; three quarters of it out of the lock. */
		gap_us += hold_us * 3 / 4;
		hold_us /= 4;
	}
	app.hold_ns = hold_us * SYNTH_NSEC_PER_USEC;
	app.gap_ns = gap_us * SYNTH_NSEC_PER_USEC;
	app.cs_ns = cs_us * SYNTH_NSEC_PER_USEC;
	app.out_ns = out_us * SYNTH_NSEC_PER_USEC;
	atomic_init(&app.flag, false);
	atomic_init(&app.stop, false);
	pthread_mutex_init(&app.mutex, NULL);
	spinners = synth_calloc(nspinners, sizeof(*spinners));

	synth_signals_init();
	pthread_barrier_init(&app.start, NULL, nspinners + 2);
	synth_thread_create(&holder, holder_main, &app);
	for (long long i = 0; i < nspinners; i++)
		synth_thread_create(&spinners[i], spinner_main, &app);

	w = synth_measure(&app.start, duration, &app.requests);
	/* The holder's share of that count, read as close to it as can be. */
	held = atomic_load(&app.holder_requests);
	atomic_store(&app.stop, true);
	pthread_join(holder, NULL);
	for (long long i = 0; i < nspinners; i++)
		pthread_join(spinners[i], NULL);
	synth_say_stopped(w.sig);
	free(spinners);
	/* How the lock was shared: the holder's passes, the spinners' passes. */
	printf("holder requests: %llu spinner requests: %llu\n", (unsigned long long)held,
	       (unsigned long long)(w.count - held));
	synth_report("requests", w.count, w.elapsed_ns, "requests/s");
	return 0;
}
