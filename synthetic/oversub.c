/* SPDX-License-Identifier: MIT */
/*
 * oversub: more runnable threads than cores, the "Not enough CPUs" extension
 * of the wPerf paper (OSDI'18, section 3.3, and the runnable check at the end
 * of section 4.2; in section 5.1, HBase's handlers spend more time runnable
 * as they grow in number).
 *
 * Work goes in rounds, with a barrier between the phases. Thread coord does
 * the serial phase: it merges each worker's partial result of the last round
 * (--merge-ms of CPU work per worker) and prepares the next round
 * (--serial-ms). The workers, --workers threads all named worker, wait for
 * it, then split the parallel phase evenly (--parallel-ms of CPU work per
 * round in all), while coord waits for the last of them.
 *
 * Known answer: coord and the workers form the knot (the workers wait for
 * coord's serial phase, coord waits for the last worker of each parallel
 * phase); the main thread (it only sleeps until the end) stays out. Six
 * workers on 2 cores: in the parallel phase four of them are runnable for
 * every two running, so the report gives the workers a runnable time of about
 * twice the parallel phase ("waiting for a CPU, more cores or a higher
 * priority may help", wPerf's advice). With no more cores to give, what that
 * runnable time says is that the workers beyond the second add no
 * parallelism: the parallel phase takes as long with six as with two, and
 * whatever costs per worker is lost, here coord's merge of each worker's
 * partial result. (Time-slicing pure CPU work costs little by itself: the
 * scheduler keeps both cores busy; measured here, 2% with --merge-ms 0.)
 *
 * It exercises the paper's assumption "there are more CPU cores than the
 * number of threads" (3.2) by breaking it on purpose: seven threads, six of
 * them runnable at once, on 2 cores.
 *
 * --fixed: as many workers as there are CPUs online (2 here), the same
 * parallel work per round split among them: no runnable time, a shorter
 * merge, a higher throughput.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"

struct app {
	int64_t serial_ns; /* coord's serial phase, merges included */
	int64_t share_ns;  /* each worker's share of the parallel phase */
	long nworkers;
	/* go: coord's serial phase is over; done: every worker did its share;
	 * start: everybody is up. */
	pthread_barrier_t go, done, start;
	atomic_bool stop; /* set by main */
	bool quit;	  /* coord's decision, seen by the workers after go */
	atomic_uint_fast64_t rounds;
};

/* The work, under names of their own in the stacks. */
__attribute__((noinline)) void serial_phase(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void parallel_phase(int64_t ns)
{
	synth_work_ns(ns);
}

static void *worker_main(void *arg)
{
	struct app *a = arg;

	synth_thread_begin("worker", &a->start);
	for (;;) {
		pthread_barrier_wait(&a->go);
		if (a->quit)
			break;
		parallel_phase(a->share_ns);
		pthread_barrier_wait(&a->done);
	}
	return NULL;
}

static void *coord_main(void *arg)
{
	struct app *a = arg;

	synth_thread_begin("coord", &a->start);
	for (;;) {
		serial_phase(a->serial_ns);
		/* Decided once, here: the barrier hands it to every worker. */
		a->quit = atomic_load(&a->stop);
		pthread_barrier_wait(&a->go);
		if (a->quit)
			break;
		pthread_barrier_wait(&a->done);
		atomic_fetch_add(&a->rounds, 1);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S      run for S seconds (default 5)\n"
    "      --workers N       worker threads (default 6)\n"
    "      --serial-ms MS    coord's CPU work per round, merges aside (default 0.5)\n"
    "      --merge-ms MS     coord's CPU work per round per worker, merging its\n"
    "                        partial result (default 0.5)\n"
    "      --parallel-ms MS  the workers' CPU work per round, in all (default 12)\n"
    "      --fixed           as many workers as CPUs online\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_WORKERS = 256,
		OPT_SERIAL_MS,
		OPT_MERGE_MS,
		OPT_PARALLEL_MS,
		OPT_FIXED,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"workers", required_argument, NULL, OPT_WORKERS},
	    {"serial-ms", required_argument, NULL, OPT_SERIAL_MS},
	    {"merge-ms", required_argument, NULL, OPT_MERGE_MS},
	    {"parallel-ms", required_argument, NULL, OPT_PARALLEL_MS},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct app a;
	double duration = 5, serial_ms = 0.5, merge_ms = 0.5, parallel_ms = 12;
	bool fixed = false;
	pthread_t coord, *workers;
	struct synth_window w;
	int c;

	a.nworkers = 6;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_WORKERS:
			a.nworkers = synth_opt_long("--workers", optarg, 1, 256);
			break;
		case OPT_SERIAL_MS:
			serial_ms = synth_opt_double("--serial-ms", optarg, 0, 1e6);
			break;
		case OPT_MERGE_MS:
			merge_ms = synth_opt_double("--merge-ms", optarg, 0, 1e6);
			break;
		case OPT_PARALLEL_MS:
			parallel_ms = synth_opt_double("--parallel-ms", optarg, 0, 1e6);
			break;
		case OPT_FIXED:
			fixed = true;
			break;
		}
	}
	if (fixed) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		a.nworkers = cpus > 0 ? cpus : 1;
	}
	a.serial_ns = (serial_ms + merge_ms * a.nworkers) * SYNTH_NSEC_PER_MSEC;
	a.share_ns = parallel_ms * SYNTH_NSEC_PER_MSEC / a.nworkers;
	workers = synth_calloc(a.nworkers, sizeof(*workers));
	printf("workers: %ld; per round: serial %.3f ms, parallel %.3f ms each\n", a.nworkers,
	       a.serial_ns / 1e6, a.share_ns / 1e6);

	synth_signals_init();
	pthread_barrier_init(&a.start, NULL, a.nworkers + 2);
	pthread_barrier_init(&a.go, NULL, a.nworkers + 1);
	pthread_barrier_init(&a.done, NULL, a.nworkers + 1);
	synth_thread_create(&coord, coord_main, &a);
	for (long i = 0; i < a.nworkers; i++)
		synth_thread_create(&workers[i], worker_main, &a);

	w = synth_measure(&a.start, duration, &a.rounds);
	atomic_store(&a.stop, true);
	pthread_join(coord, NULL);
	for (long i = 0; i < a.nworkers; i++)
		pthread_join(workers[i], NULL);
	synth_say_stopped(w.sig);
	free(workers);
	synth_report("rounds", w.count, w.elapsed_ns, "rounds/s");
	return 0;
}
