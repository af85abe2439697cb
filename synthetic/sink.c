/* SPDX-License-Identifier: MIT */
/*
 * sink: one CPU-bound producer feeding consumers that wait for it.
 *
 * Thread producer makes items (make_item: --producer-ms of CPU each) and puts
 * them in a queue; it never blocks on the queue, whose --queue slots are far
 * more than the consumers ever leave in it. Threads consumer-1 .. consumer-N
 * (--consumers) block while the queue is empty, take an item and consume it
 * (consume_item: --consumer-ms of CPU, much less than the producer's).
 *
 * It reproduces the other answer of wPerf's step 1 (OSDI'18, section 3.2.1):
 * "a graph must contain either knots or sinks or both. A sink means the
 * execution of the corresponding thread is the bottleneck, which is beyond
 * the scope of off-CPU analysis." The consumers wait for the producer; the
 * producer waits for nobody: it is on the CPU all the time.
 *
 * Known answer: NO knot. The producer (sink/producer) is a sink that runs
 * about one CPU, so it is no background sink; the consumers (sink/consumer-#,
 * merged by name) wait for it and are in no knot. GAPP's CMetric ranks the
 * producer first: it runs all the time, most of it while no other thread of
 * the program runs. Throughput is about 1 / producer, 1000 items/s by default.
 * (The producer may wait a few microseconds for the queue's mutex while a
 * consumer holds it: an edge far under the 5% that the knot search keeps.)
 *
 * Cores: the paper's model assumes more cores than threads (section 3.2).
 * The program needs 1 + consumers * consumer-ms / producer-ms CPUs (1.2 by
 * default), so on 2 cores no thread waits long for a CPU and the producer's
 * own work, not a lack of cores, bounds the throughput.
 *
 * The fix (--fixed, or --producers N): two producers. The on-CPU work is
 * split over both cores, so the throughput nearly doubles (2 * 1 ms of
 * production and 0.2 ms of consumption per 2 items: about 1800 items/s on
 * 2 cores). The two producers get one vertex (their names differ only by
 * the number) that is still a sink, now of two CPUs.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_queue.h"

/* ---- the application ---- */

#define MAX_THREADS 64

struct sink {
	/* options */
	int64_t producer_ns, consumer_ns;
	/* state */
	struct queue queue;
	pthread_barrier_t start;
	atomic_uint_fast64_t items; /* consumed */
};

/*
 * The functions the recorded stacks must show: not inlined, not static, so
 * that the compiler keeps them under these names.
 */

/* The producer's CPU work per item: the bottleneck. */
__attribute__((noinline)) void make_item(int64_t ns)
{
	synth_work_ns(ns);
}

/* A consumer's CPU work per item. */
__attribute__((noinline)) void consume_item(int64_t ns)
{
	synth_work_ns(ns);
}

/* Where a consumer waits for the producer. */
__attribute__((noinline)) bool wait_item(struct queue *q, uint64_t *item)
{
	return queue_pop(q, item);
}

static void *producer_main(void *arg)
{
	struct synth_worker *w = arg;
	struct sink *app = w->app;

	synth_thread_begin(w->name, &app->start);
	for (uint64_t item = 0;; item++) {
		make_item(app->producer_ns);
		/*
		 * Blocks while the queue is full: never, at the default sizes
		 * (the consumers keep it nearly empty). Its signal only makes a
		 * system call when a consumer waits, and the lock is held for a
		 * few instructions, so the producer pays little for the hand-off.
		 */
		if (!queue_push(&app->queue, item))
			break;
	}
	return NULL;
}

static void *consumer_main(void *arg)
{
	struct synth_worker *w = arg;
	struct sink *app = w->app;
	uint64_t item;

	synth_thread_begin(w->name, &app->start);
	while (wait_item(&app->queue, &item)) {
		consume_item(app->consumer_ns);
		atomic_fetch_add(&app->items, 1);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S       run for S seconds (default 5)\n"
    "      --producer-ms MS   a producer's CPU work per item (default 1)\n"
    "      --consumer-ms MS   a consumer's CPU work per item (default 0.1)\n"
    "      --consumers N      consumer threads (default 2)\n"
    "      --producers N      producer threads (default 1)\n"
    "      --queue K          queue slots (default 1024)\n"
    "      --fixed            two producers (--producers 2)\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_PRODUCER_MS = 256,
		OPT_CONSUMER_MS,
		OPT_CONSUMERS,
		OPT_PRODUCERS,
		OPT_QUEUE,
		OPT_FIXED,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"producer-ms", required_argument, NULL, OPT_PRODUCER_MS},
	    {"consumer-ms", required_argument, NULL, OPT_CONSUMER_MS},
	    {"consumers", required_argument, NULL, OPT_CONSUMERS},
	    {"producers", required_argument, NULL, OPT_PRODUCERS},
	    {"queue", required_argument, NULL, OPT_QUEUE},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct sink app;
	static struct synth_worker producers[MAX_THREADS], consumers[MAX_THREADS];
	double duration = 5, producer_ms = 1, consumer_ms = 0.1;
	int nproducers = 1, nconsumers = 2;
	long long queue_len = 1024;
	struct synth_window w;
	int c;

	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_PRODUCER_MS:
			producer_ms = synth_opt_double("--producer-ms", optarg, 0, 1e6);
			break;
		case OPT_CONSUMER_MS:
			consumer_ms = synth_opt_double("--consumer-ms", optarg, 0, 1e6);
			break;
		case OPT_CONSUMERS:
			nconsumers = synth_opt_long("--consumers", optarg, 1, MAX_THREADS);
			break;
		case OPT_PRODUCERS:
			nproducers = synth_opt_long("--producers", optarg, 1, MAX_THREADS);
			break;
		case OPT_QUEUE:
			queue_len = synth_opt_long("--queue", optarg, 1, 1 << 20);
			break;
		case OPT_FIXED:
			nproducers = 2;
			break;
		}
	}
	app.producer_ns = producer_ms * SYNTH_NSEC_PER_MSEC;
	app.consumer_ns = consumer_ms * SYNTH_NSEC_PER_MSEC;

	synth_signals_init();
	queue_init(&app.queue, queue_len);
	/* The producers, the consumers and main. */
	pthread_barrier_init(&app.start, NULL, nproducers + nconsumers + 1);
	/* One producer is "producer"; several are "producer-1", "producer-2"... */
	if (nproducers == 1)
		synth_start_workers(producers, 1, producer_main, &app, "producer", -1);
	else
		synth_start_workers(producers, nproducers, producer_main, &app, "producer-", 1);
	synth_start_workers(consumers, nconsumers, consumer_main, &app, "consumer-", 1);

	w = synth_measure(&app.start, duration, &app.items);
	queue_stop(&app.queue);
	synth_join_workers(producers, nproducers);
	synth_join_workers(consumers, nconsumers);
	synth_say_stopped(w.sig);

	queue_destroy(&app.queue);
	synth_report("items", w.count, w.elapsed_ns, "items/s");
	return 0;
}
