/* SPDX-License-Identifier: MIT */
/*
 * background: the paper's Figure 1 bottleneck plus a periodic background
 * thread, to check that the analysis sets the background thread aside
 * (wPerf, OSDI'18, section 3.3: "background" knots and idle threads that wait
 * for nobody are not what bounds the throughput).
 *
 * The shape of fig1.c: thread A produces requests (funA, --a-ms of CPU) into a
 * bounded queue of --queue slots; thread B consumes them (funB, --b-ms of CPU),
 * then log_request writes --write-bytes with O_DIRECT and fsyncs, so B and the
 * disk never work in parallel. On top of it a heartbeat thread wakes every
 * --heartbeat-ms on a timer and, for --hold-us of CPU, holds the statistics
 * lock that A takes once per request (a monitoring thread sampling counters).
 *
 * Known answer: the knot is B and the disk. A waits for B (the queue is full)
 * and now and then briefly for the heartbeat (the lock); it is outside the
 * knot. The heartbeat is woken by a timer, waits for nobody and hardly runs:
 * it must be set aside as background (a "background-sink"), not reported as a
 * bottleneck and not be part of the knot. Throughput is about
 * 1 / (b + the write and fsync).
 *
 * --fixed applies the fix the report points to (B must not wait for the disk
 * for every request): buffered writes over the same 4 KiB-aligned region of the
 * file, no O_DIRECT and no fsync. B then only does its own work and the copy
 * into the page cache: about 1 / (b + the copy), 184 requests/s measured by
 * default against about 152 (the copy of 4 MiB costs about 0.4 ms).
 *
 * On 2 cores: A and B each use less than one CPU (A about 30%, B about 70% with
 * the defaults) and the heartbeat about 2%, so there is no CPU contention: the
 * paper's assumption of enough cores for the threads holds, and the only
 * bottleneck is B's synchronous wait for the disk.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_file.h"
#include "synth_queue.h"

/* ---- the application ---- */

struct app {
	/* options */
	int64_t a_ns, b_ns, heartbeat_ns, hold_ns;
	bool fixed;
	size_t write_bytes;
	/* state */
	struct queue queue;
	int fd;
	char *buf;
	pthread_barrier_t start;
	atomic_bool stop;	       /* for the heartbeat */
	atomic_uint_fast64_t requests; /* completed by B */
	/* Statistics A updates per request and the heartbeat samples. */
	pthread_mutex_t stats_lock;
	uint64_t produced, samples, last_seen;
};

/* Not inlined, and not static, so that recorded stacks show them. */
__attribute__((noinline)) void funA(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void funB(int64_t ns)
{
	synth_work_ns(ns);
}

/* A counts what it produced, under the lock the heartbeat also takes. */
__attribute__((noinline)) void count_produced(struct app *app)
{
	pthread_mutex_lock(&app->stats_lock);
	app->produced++;
	pthread_mutex_unlock(&app->stats_lock);
}

/*
 * B's synchronous disk write, where B waits for the disk: with O_DIRECT the data
 * goes from buf to the device, then fsync. Both versions rewrite the start of
 * the file, which so does not grow; the fixed version only dirties the page
 * cache, which the kernel writes back in the background.
 */
__attribute__((noinline)) void log_request(int fd, const char *buf, size_t len, bool sync)
{
	synth_file_write(fd, buf, len, true, sync);
}

/*
 * The heartbeat's sample: holds the statistics lock for hold_ns of CPU, long
 * enough that A sometimes finds it taken and blocks on it.
 */
__attribute__((noinline)) void sample_stats(struct app *app)
{
	pthread_mutex_lock(&app->stats_lock);
	synth_work_ns(app->hold_ns);
	app->samples++;
	app->last_seen = app->produced;
	pthread_mutex_unlock(&app->stats_lock);
}

static void *thread_a(void *arg)
{
	struct app *app = arg;

	synth_thread_begin("A", &app->start);
	for (uint64_t req = 0;; req++) {
		funA(app->a_ns);
		count_produced(app);
		if (!queue_push(&app->queue, req))
			break;
	}
	return NULL;
}

static void *thread_b(void *arg)
{
	struct app *app = arg;
	uint64_t req;

	synth_thread_begin("B", &app->start);
	while (queue_pop(&app->queue, &req)) {
		funB(app->b_ns);
		log_request(app->fd, app->buf, app->write_bytes, !app->fixed);
		atomic_fetch_add(&app->requests, 1);
	}
	return NULL;
}

/* Wakes on a timer every heartbeat_ns, samples the statistics, sleeps again. */
static void *thread_heartbeat(void *arg)
{
	struct app *app = arg;

	synth_thread_begin("heartbeat", &app->start);
	while (!atomic_load(&app->stop)) {
		synth_sleep_ns(app->heartbeat_ns);
		sample_stats(app);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --a-ms MS           funA's CPU work per request (default 2)\n"
    "      --b-ms MS           funB's CPU work per request (default 5)\n"
    "      --queue K           queue slots between A and B (default 4)\n"
    "      --write-bytes N     bytes B writes per request, rounded up to 4 KiB\n"
    "                          (default 4194304)\n"
    "      --file PATH         the file B writes (default background.data)\n"
    "      --keep-file         do not remove the file at exit\n"
    "      --heartbeat-ms MS   the heartbeat's period (default 5)\n"
    "      --hold-us US        CPU work the heartbeat does holding A's lock (default 100)\n"
    "      --fixed             buffered writes without fsync: B no longer waits for\n"
    "                          the disk\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_A_MS = 256,
		OPT_B_MS,
		OPT_QUEUE,
		OPT_WRITE_BYTES,
		OPT_FILE,
		OPT_KEEP_FILE,
		OPT_HEARTBEAT_MS,
		OPT_HOLD_US,
		OPT_FIXED,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"a-ms", required_argument, NULL, OPT_A_MS},
	    {"b-ms", required_argument, NULL, OPT_B_MS},
	    {"queue", required_argument, NULL, OPT_QUEUE},
	    {"write-bytes", required_argument, NULL, OPT_WRITE_BYTES},
	    {"file", required_argument, NULL, OPT_FILE},
	    {"keep-file", no_argument, NULL, OPT_KEEP_FILE},
	    {"heartbeat-ms", required_argument, NULL, OPT_HEARTBEAT_MS},
	    {"hold-us", required_argument, NULL, OPT_HOLD_US},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct app app; /* zeroed */
	double duration = 5, a_ms = 2, b_ms = 5, heartbeat_ms = 5, hold_us = 100;
	long long queue_len = 4;
	const char *path = "background.data";
	bool keep_file = false;
	pthread_t a, b, hb;
	struct synth_window w;
	int c;

	app.write_bytes = 4194304;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_A_MS:
			a_ms = synth_opt_double("--a-ms", optarg, 0, 1e6);
			break;
		case OPT_B_MS:
			b_ms = synth_opt_double("--b-ms", optarg, 0, 1e6);
			break;
		case OPT_QUEUE:
			queue_len = synth_opt_long("--queue", optarg, 1, 1 << 20);
			break;
		case OPT_WRITE_BYTES:
			app.write_bytes = synth_opt_long("--write-bytes", optarg, 1, 1 << 30);
			break;
		case OPT_FILE:
			path = optarg;
			break;
		case OPT_KEEP_FILE:
			keep_file = true;
			break;
		case OPT_HEARTBEAT_MS:
			heartbeat_ms = synth_opt_double("--heartbeat-ms", optarg, 0.01, 1e6);
			break;
		case OPT_HOLD_US:
			hold_us = synth_opt_double("--hold-us", optarg, 0, 1e6);
			break;
		case OPT_FIXED:
			app.fixed = true;
			break;
		}
	}
	app.a_ns = a_ms * SYNTH_NSEC_PER_MSEC;
	app.b_ns = b_ms * SYNTH_NSEC_PER_MSEC;
	app.heartbeat_ns = heartbeat_ms * SYNTH_NSEC_PER_MSEC;
	app.hold_ns = hold_us * SYNTH_NSEC_PER_USEC;

	app.fd = synth_file_open(path, !app.fixed);
	/* O_DIRECT wants whole blocks; the fixed version writes the same region. */
	app.write_bytes = (app.write_bytes + 4095) / 4096 * 4096;
	app.buf = synth_file_buffer(app.write_bytes);

	synth_signals_init();
	queue_init(&app.queue, queue_len);
	pthread_mutex_init(&app.stats_lock, NULL);
	pthread_barrier_init(&app.start, NULL, 4); /* A, B, heartbeat, main */
	synth_thread_create(&a, thread_a, &app);
	synth_thread_create(&b, thread_b, &app);
	synth_thread_create(&hb, thread_heartbeat, &app);

	w = synth_measure(&app.start, duration, &app.requests);
	atomic_store(&app.stop, true);
	queue_stop(&app.queue);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(hb, NULL);
	synth_say_stopped(w.sig);

	synth_file_close(app.fd, path, keep_file);
	free(app.buf);
	queue_destroy(&app.queue);
	printf("heartbeat samples: %llu\n", (unsigned long long)app.samples);
	synth_report("requests", w.count, w.elapsed_ns, "requests/s");
	return 0;
}
