/* SPDX-License-Identifier: MIT */
/*
 * shortlived: a dispatcher that starts a new thread for every task, the case
 * wPerf (OSDI'18) handles in section 3.3 by merging short-lived threads into
 * one virtual thread: a thread per task gets a new tid every time, so no single
 * task lives long enough to show up as a bottleneck, yet together they are one.
 *
 * The dispatcher works in batches of --batch tasks: for each task of the batch
 * it prepares the task (prepare_task, --prep-ms of CPU) and starts a thread for
 * it (pthread_create); then it waits for the batch's threads to end
 * (pthread_join) before the next batch. A task (run_task) does --task-ms of CPU
 * work and exits. With the defaults (2 tasks a batch, 1 ms to prepare, 2 ms to
 * run) a batch takes 1 + 1 + 2 ms (the second task is prepared while the first
 * runs): 500 tasks/s at best, about 430 measured on 2 CPUs, because the
 * scheduler starts about half of the new threads on the dispatcher's own CPU,
 * where they wait for it (the report shows it as runnable time).
 *
 * Known answer: the dispatcher waits for the tasks (in pthread_join) and the
 * tasks, merged into one virtual thread, wait for the dispatcher whenever none
 * of them is alive (while it prepares the next batch and creates the threads).
 * The analyzer folds every thread created and ended inside the window that
 * lived less than half of it into the virtual thread of its creator, whose
 * identity is the creator's with "+tasks": the knot is
 * {shortlived/dispatcher, shortlived/dispatcher+tasks}, and the process's main
 * thread (sleeping until the end) is not in it.
 *
 * --fixed: the fix the knot points to: a pool of --workers long-lived threads
 * ("worker", 2 by default) fed through a bounded queue, so that no thread is
 * created per task and the dispatcher prepares the next tasks while the
 * workers run. 3 ms of CPU a task on 2 CPUs: at most 666 tasks/s; about 570
 * measured, 1.33x. (The dispatcher and the pool are then balanced, 1 ms of
 * preparing against 2 ms of work on each of 2 workers, so they still wait for
 * each other, as a knot {dispatcher, worker}, but both CPUs are busy.)
 *
 * On 2 cores: a batch of 2 runs its tasks on both CPUs; the dispatcher's own
 * work overlaps the first task of a batch, so at most 2 threads are runnable at
 * once and the paper's assumption of enough cores holds. The process uses
 * about 1.3 CPUs. (With --batch 1, one task at a time, the dispatcher and its
 * tasks take turns and use just under one CPU in all; the analyzer's
 * background-knot heuristic of wPerf section 3.3, "no I/O and under 100% CPU in
 * all", then sets the knot aside as background: that is why the batch is 2.)
 * The fixed version has three threads runnable on 2 CPUs, the dispatcher
 * taking a third of the CPU time.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_queue.h"

/* ---- the application ---- */

struct app {
	/* options */
	int64_t prep_ns, task_ns;
	bool fixed;
	long batch, workers;
	/* state */
	struct queue queue; /* --fixed */
	pthread_barrier_t start;
	atomic_bool stop;
	atomic_uint_fast64_t tasks; /* completed */
};

/* Not inlined, and not static, so that recorded stacks show them. */
__attribute__((noinline)) void prepare_task(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void run_task(int64_t ns)
{
	synth_work_ns(ns);
}

/*
 * A short-lived task thread. Named "task" so that people looking at the trace
 * can tell it from the dispatcher, but without synth_name_thread's line on
 * stdout: thousands of them would drown the output. Its identity in the graph
 * does not come from its name anyway, but from its creator's.
 */
static void *task_main(void *arg)
{
	struct app *app = arg;

	pthread_setname_np(pthread_self(), "task");
	run_task(app->task_ns);
	atomic_fetch_add(&app->tasks, 1);
	return NULL;
}

/*
 * A batch: prepare each task and start its thread, then wait for them all.
 * threads has room for app->batch of them.
 */
__attribute__((noinline)) void run_batch(struct app *app, pthread_t *threads)
{
	for (long i = 0; i < app->batch; i++) {
		prepare_task(app->prep_ns);
		synth_thread_create(&threads[i], task_main, app);
	}
	for (long i = 0; i < app->batch; i++)
		synth_check(pthread_join(threads[i], NULL), "pthread_join");
}

/* --fixed: a long-lived worker of the pool. */
static void *worker_main(void *arg)
{
	struct app *app = arg;
	uint64_t task;

	synth_thread_begin("worker", &app->start);
	while (queue_pop(&app->queue, &task)) {
		run_task(app->task_ns);
		atomic_fetch_add(&app->tasks, 1);
	}
	return NULL;
}

static void *dispatcher_main(void *arg)
{
	struct app *app = arg;
	pthread_t *threads = NULL;

	synth_name_thread("dispatcher");
	if (!app->fixed)
		threads = synth_calloc(app->batch, sizeof(*threads));
	pthread_barrier_wait(&app->start);
	for (uint64_t task = 0; !atomic_load(&app->stop); task++) {
		if (!app->fixed) {
			run_batch(app, threads);
			continue;
		}
		prepare_task(app->prep_ns);
		if (!queue_push(&app->queue, task))
			break;
	}
	free(threads);
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --prep-ms MS        the dispatcher's CPU work per task (default 1)\n"
    "      --task-ms MS        a task's CPU work (default 2)\n"
    "      --batch N           tasks started before waiting for them (default 2)\n"
    "      --fixed             a pool of long-lived workers fed by a queue instead\n"
    "                          of a thread per task\n"
    "      --workers N         workers of the pool (--fixed; default 2)\n"
    "      --queue K           queue slots before the pool (--fixed; default 4)\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_PREP_MS = 256,
		OPT_TASK_MS,
		OPT_BATCH,
		OPT_FIXED,
		OPT_WORKERS,
		OPT_QUEUE,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"prep-ms", required_argument, NULL, OPT_PREP_MS},
	    {"task-ms", required_argument, NULL, OPT_TASK_MS},
	    {"batch", required_argument, NULL, OPT_BATCH},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"workers", required_argument, NULL, OPT_WORKERS},
	    {"queue", required_argument, NULL, OPT_QUEUE},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct app app; /* zeroed */
	double duration = 5, prep_ms = 1, task_ms = 2;
	long long queue_len = 4;
	pthread_t dispatcher, *workers = NULL;
	struct synth_window w;
	int c;

	app.workers = 2;
	app.batch = 2;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_PREP_MS:
			prep_ms = synth_opt_double("--prep-ms", optarg, 0, 1e6);
			break;
		case OPT_TASK_MS:
			task_ms = synth_opt_double("--task-ms", optarg, 0, 1e6);
			break;
		case OPT_BATCH:
			app.batch = synth_opt_long("--batch", optarg, 1, 1024);
			break;
		case OPT_FIXED:
			app.fixed = true;
			break;
		case OPT_WORKERS:
			app.workers = synth_opt_long("--workers", optarg, 1, 1024);
			break;
		case OPT_QUEUE:
			queue_len = synth_opt_long("--queue", optarg, 1, 1 << 20);
			break;
		}
	}
	app.prep_ns = prep_ms * SYNTH_NSEC_PER_MSEC;
	app.task_ns = task_ms * SYNTH_NSEC_PER_MSEC;

	synth_signals_init();
	/* The dispatcher, the pool's workers (--fixed) and main. */
	pthread_barrier_init(&app.start, NULL, 2 + (app.fixed ? app.workers : 0));
	if (app.fixed) {
		queue_init(&app.queue, queue_len);
		workers = synth_calloc(app.workers, sizeof(*workers));
		for (long i = 0; i < app.workers; i++)
			synth_thread_create(&workers[i], worker_main, &app);
	}
	synth_thread_create(&dispatcher, dispatcher_main, &app);

	w = synth_measure(&app.start, duration, &app.tasks);
	atomic_store(&app.stop, true);
	if (app.fixed)
		queue_stop(&app.queue);
	pthread_join(dispatcher, NULL);
	for (long i = 0; app.fixed && i < app.workers; i++)
		pthread_join(workers[i], NULL);
	synth_say_stopped(w.sig);

	if (app.fixed)
		queue_destroy(&app.queue);
	free(workers);
	synth_report("tasks", w.count, w.elapsed_ns, "tasks/s");
	return 0;
}
