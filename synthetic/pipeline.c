/* SPDX-License-Identifier: MIT */
/*
 * pipeline: three stages joined by bounded queues, one of them slower than the
 * others, as in the task-parallel programs (Ferret, Dedup) that GAPP (ICPE'20,
 * section 5) and wPerf (OSDI'18, section 3: a thread that is itself the
 * bottleneck) look at.
 *
 *   parse --queue--> transform --queue--> emit
 *
 * parse makes an item (parse_item, --parse-ms of CPU), transform works on it
 * (transform_item, --transform-ms, the slow stage), emit finishes it
 * (emit_item, --emit-ms) and counts it. Each queue holds --queue items and is a
 * mutex with two condition variables, blocking when full or empty.
 *
 * Known answer: transform bounds the throughput (about 1 / transform-ms, 500
 * items/s by default). parse waits for transform (its output queue is full),
 * emit waits for transform (its input queue is empty), and transform waits for
 * nobody: it runs all the time. In wPerf's terms (Definition 3.4) transform is
 * a sink, not a knot: "a sink means the execution of the corresponding thread
 * is the bottleneck". parse and emit must stay out of whatever the analysis
 * reports as the bottleneck.
 *
 * --fixed: the fix the report points to: transform runs in two threads (both
 * named "transform", so they are one vertex of the graph), taking items from
 * the same queue. The stages' CPU work is then 0.25 + 2 + 0.25 ms an item on 2
 * cores: the throughput is bounded by the machine, 800 items/s at best (about
 * 780 measured, against about 490), and no longer by one thread.
 *
 * On 2 cores: the base version uses about 1.25 CPUs (transform all the time,
 * parse and emit an eighth of it each), so every stage finds a CPU when it is
 * ready, the paper's assumption of enough cores. The fixed version saturates
 * both CPUs, which is why its gain is under 2x.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_queue.h"

/* ---- the application ---- */

struct app {
	int64_t parse_ns, transform_ns, emit_ns;
	struct queue parsed, transformed;
	pthread_barrier_t start;
	atomic_uint_fast64_t items; /* emitted */
};

/* The stages' work. Not inlined, and not static, so that stacks show them. */
__attribute__((noinline)) void parse_item(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void transform_item(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void emit_item(int64_t ns)
{
	synth_work_ns(ns);
}

static void *parse_main(void *arg)
{
	struct app *app = arg;

	synth_thread_begin("parse", &app->start);
	for (uint64_t item = 0;; item++) {
		parse_item(app->parse_ns);
		if (!queue_push(&app->parsed, item))
			break;
	}
	return NULL;
}

static void *transform_main(void *arg)
{
	struct app *app = arg;
	uint64_t item;

	synth_thread_begin("transform", &app->start);
	while (queue_pop(&app->parsed, &item)) {
		transform_item(app->transform_ns);
		if (!queue_push(&app->transformed, item))
			break;
	}
	return NULL;
}

static void *emit_main(void *arg)
{
	struct app *app = arg;
	uint64_t item;

	synth_thread_begin("emit", &app->start);
	while (queue_pop(&app->transformed, &item)) {
		emit_item(app->emit_ns);
		atomic_fetch_add(&app->items, 1);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --parse-ms MS       the first stage's CPU work per item (default 0.25)\n"
    "      --transform-ms MS   the second (slow) stage's (default 2)\n"
    "      --emit-ms MS        the third stage's (default 0.25)\n"
    "      --queue K           slots of each queue (default 4)\n"
    "      --fixed             run the slow stage in two threads\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_PARSE_MS = 256,
		OPT_TRANSFORM_MS,
		OPT_EMIT_MS,
		OPT_QUEUE,
		OPT_FIXED,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"parse-ms", required_argument, NULL, OPT_PARSE_MS},
	    {"transform-ms", required_argument, NULL, OPT_TRANSFORM_MS},
	    {"emit-ms", required_argument, NULL, OPT_EMIT_MS},
	    {"queue", required_argument, NULL, OPT_QUEUE},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct app app; /* zeroed */
	double duration = 5, parse_ms = 0.25, transform_ms = 2, emit_ms = 0.25;
	long long queue_len = 4;
	bool fixed = false;
	pthread_t parse, transform[2], emit;
	int ntransform, c;
	struct synth_window w;

	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_PARSE_MS:
			parse_ms = synth_opt_double("--parse-ms", optarg, 0, 1e6);
			break;
		case OPT_TRANSFORM_MS:
			transform_ms = synth_opt_double("--transform-ms", optarg, 0, 1e6);
			break;
		case OPT_EMIT_MS:
			emit_ms = synth_opt_double("--emit-ms", optarg, 0, 1e6);
			break;
		case OPT_QUEUE:
			queue_len = synth_opt_long("--queue", optarg, 1, 1 << 20);
			break;
		case OPT_FIXED:
			fixed = true;
			break;
		}
	}
	app.parse_ns = parse_ms * SYNTH_NSEC_PER_MSEC;
	app.transform_ns = transform_ms * SYNTH_NSEC_PER_MSEC;
	app.emit_ns = emit_ms * SYNTH_NSEC_PER_MSEC;
	ntransform = fixed ? 2 : 1;

	synth_signals_init();
	queue_init(&app.parsed, queue_len);
	queue_init(&app.transformed, queue_len);
	pthread_barrier_init(&app.start, NULL, 3 + ntransform); /* the stages and main */
	synth_thread_create(&parse, parse_main, &app);
	for (int i = 0; i < ntransform; i++)
		synth_thread_create(&transform[i], transform_main, &app);
	synth_thread_create(&emit, emit_main, &app);

	w = synth_measure(&app.start, duration, &app.items);
	queue_stop(&app.parsed);
	queue_stop(&app.transformed);
	pthread_join(parse, NULL);
	for (int i = 0; i < ntransform; i++)
		pthread_join(transform[i], NULL);
	pthread_join(emit, NULL);
	synth_say_stopped(w.sig);

	queue_destroy(&app.parsed);
	queue_destroy(&app.transformed);
	synth_report("items", w.count, w.elapsed_ns, "items/s");
	return 0;
}
