/* SPDX-License-Identifier: MIT */
/*
 * fig1: the motivating example of the wPerf paper (OSDI'18, Figure 1).
 *
 * Thread A produces requests: funA (--a-ms of CPU), then puts the request in
 * a bounded queue of --queue slots, blocking while it is full. Thread B
 * consumes them: funB (--b-ms of CPU), then log_request writes --write-bytes
 * to a file and fsyncs it, so B and the disk never work in parallel.
 *
 * Known answer: B and the disk form a knot (B waits for the disk, the disk
 * waits for B's next write); A only waits for B and is outside it, even though
 * it waits the longest. Throughput is about 1 / (b + fsync); with --no-fsync
 * it is 1 / b, 200 requests/s by default.
 *
 * Variants:
 *   --device=thread    B hands each request to thread C and waits on a
 *                      condition variable until C has done --c-ms of CPU work:
 *                      the knot is then B <-> C (the paper's "replace the disk
 *                      with thread C").
 *   --extra-wait-ms N  B also waits, per request, for thread D to do N ms of
 *                      CPU work: a new blocking wait, so a new bottleneck.
 *   --no-fsync         write without fsync: the fixed version.
 *   --direct           write with O_DIRECT: B waits for the device without copying.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_file.h"
#include "synth_queue.h"

/*
 * ---- a helper thread (C or D) ----
 * The caller blocks on a condition variable while the helper does work_ns of
 * CPU work for it, so the caller waits for the helper and the helper waits for
 * the caller's next call: one synchronous call at a time.
 */
struct helper {
	const char *name;
	int64_t work_ns;
	pthread_mutex_t lock;
	pthread_cond_t to_helper, to_caller;
	uint64_t asked, done; /* calls made and calls served */
	bool stop;
	pthread_barrier_t *start;
	pthread_t thread;
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;

	synth_thread_begin(h->name, h->start);
	pthread_mutex_lock(&h->lock);
	for (;;) {
		while (h->done == h->asked && !h->stop)
			pthread_cond_wait(&h->to_helper, &h->lock);
		if (h->stop)
			break;
		pthread_mutex_unlock(&h->lock);
		synth_work_ns(h->work_ns);
		pthread_mutex_lock(&h->lock);
		h->done++;
		pthread_cond_signal(&h->to_caller);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static void helper_start(struct helper *h, const char *name, double ms, pthread_barrier_t *start)
{
	h->name = name;
	h->work_ns = ms * SYNTH_NSEC_PER_MSEC;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->to_helper, NULL);
	pthread_cond_init(&h->to_caller, NULL);
	h->asked = h->done = 0;
	h->stop = false;
	h->start = start;
	synth_thread_create(&h->thread, helper_main, h);
}

/* Blocks until the helper has served this call. False once it is stopped. */
static bool helper_call(struct helper *h)
{
	bool ok;

	pthread_mutex_lock(&h->lock);
	h->asked++;
	pthread_cond_signal(&h->to_helper);
	while (h->done < h->asked && !h->stop)
		pthread_cond_wait(&h->to_caller, &h->lock);
	ok = !h->stop;
	pthread_mutex_unlock(&h->lock);
	return ok;
}

static void helper_stop(struct helper *h)
{
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_broadcast(&h->to_helper);
	pthread_cond_broadcast(&h->to_caller);
	pthread_mutex_unlock(&h->lock);
}

/* ---- the application ---- */

struct fig1 {
	/* options */
	int64_t a_ns, b_ns;
	bool device_thread, do_fsync, direct;
	double extra_ms;
	size_t write_bytes;
	/* state */
	struct queue queue;
	struct helper c, d;
	int fd;
	char *buf;
	pthread_barrier_t start;
	atomic_uint_fast64_t requests; /* completed by B */
};

/*
 * The functions the paper names. Not inlined, and not static so that the
 * compiler keeps them under these names: recorded stacks must show them.
 */
__attribute__((noinline)) void funA(int64_t ns)
{
	synth_work_ns(ns);
}

__attribute__((noinline)) void funB(int64_t ns)
{
	synth_work_ns(ns);
}

/*
 * B's synchronous disk write: where B waits for the disk. With --direct the
 * data goes from buf to the device (no copy into the page cache, which is CPU
 * work) and rewrites the start of the file, which so does not grow.
 */
__attribute__((noinline)) void log_request(int fd, const char *buf, size_t len, bool do_fsync,
					   bool direct)
{
	synth_file_write(fd, buf, len, direct, do_fsync);
}

/* --device=thread: where B waits for C instead of the disk. */
__attribute__((noinline)) bool ask_device_thread(struct helper *c)
{
	return helper_call(c);
}

/* --extra-wait-ms: B's additional wait for D. */
__attribute__((noinline)) bool extra_wait(struct helper *d)
{
	return helper_call(d);
}

static void *thread_a(void *arg)
{
	struct fig1 *app = arg;

	synth_thread_begin("A", &app->start);
	for (uint64_t req = 0;; req++) {
		funA(app->a_ns);
		if (!queue_push(&app->queue, req))
			break;
	}
	return NULL;
}

static void *thread_b(void *arg)
{
	struct fig1 *app = arg;
	uint64_t req;

	synth_thread_begin("B", &app->start);
	while (queue_pop(&app->queue, &req)) {
		funB(app->b_ns);
		if (app->device_thread) {
			if (!ask_device_thread(&app->c))
				break;
		} else {
			log_request(app->fd, app->buf, app->write_bytes, app->do_fsync,
				    app->direct);
		}
		if (app->extra_ms > 0 && !extra_wait(&app->d))
			break;
		atomic_fetch_add(&app->requests, 1);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --a-ms MS           funA's CPU work per request (default 2)\n"
    "      --b-ms MS           funB's CPU work per request (default 5)\n"
    "      --queue K           queue slots between A and B (default 4)\n"
    "      --write-bytes N     bytes B writes per request (default 4096)\n"
    "      --file PATH         the file B writes and fsyncs (default fig1.data)\n"
    "      --keep-file         do not remove the file at exit\n"
    "      --no-fsync          write without fsync (the fixed version)\n"
    "      --direct            write with O_DIRECT: B waits for the device, and does\n"
    "                          no copying (--write-bytes is rounded up to 4 KiB)\n"
    "      --device=disk|thread  thread: B waits for thread C instead of the disk\n"
    "      --c-ms MS           C's CPU work per request (default 5)\n"
    "      --extra-wait-ms N   B also waits N ms per request for thread D's work\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_A_MS = 256,
		OPT_B_MS,
		OPT_C_MS,
		OPT_QUEUE,
		OPT_WRITE_BYTES,
		OPT_FILE,
		OPT_KEEP_FILE,
		OPT_NO_FSYNC,
		OPT_DIRECT,
		OPT_DEVICE,
		OPT_EXTRA_WAIT_MS,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"a-ms", required_argument, NULL, OPT_A_MS},
	    {"b-ms", required_argument, NULL, OPT_B_MS},
	    {"c-ms", required_argument, NULL, OPT_C_MS},
	    {"queue", required_argument, NULL, OPT_QUEUE},
	    {"write-bytes", required_argument, NULL, OPT_WRITE_BYTES},
	    {"file", required_argument, NULL, OPT_FILE},
	    {"keep-file", no_argument, NULL, OPT_KEEP_FILE},
	    {"no-fsync", no_argument, NULL, OPT_NO_FSYNC},
	    {"direct", no_argument, NULL, OPT_DIRECT},
	    {"device", required_argument, NULL, OPT_DEVICE},
	    {"extra-wait-ms", required_argument, NULL, OPT_EXTRA_WAIT_MS},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct fig1 app; /* zeroed; too big to want on the stack */
	double duration = 5, a_ms = 2, b_ms = 5, c_ms = 5;
	long long queue_len = 4;
	const char *path = "fig1.data";
	bool keep_file = false;
	pthread_t a, b;
	struct synth_window w;
	int c;

	app.do_fsync = true;
	app.write_bytes = 4096;
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
		case OPT_C_MS:
			c_ms = synth_opt_double("--c-ms", optarg, 0, 1e6);
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
		case OPT_DIRECT:
			app.direct = true;
			break;
		case OPT_NO_FSYNC:
			app.do_fsync = false;
			break;
		case OPT_DEVICE:
			if (strcmp(optarg, "thread") == 0)
				app.device_thread = true;
			else if (strcmp(optarg, "disk") == 0)
				app.device_thread = false;
			else
				synth_die(2, "--device: '%s' is neither disk nor thread", optarg);
			break;
		case OPT_EXTRA_WAIT_MS:
			app.extra_ms = synth_opt_double("--extra-wait-ms", optarg, 0, 1e6);
			break;
		}
	}
	app.a_ns = a_ms * SYNTH_NSEC_PER_MSEC;
	app.b_ns = b_ms * SYNTH_NSEC_PER_MSEC;

	/* The file only exists when B writes to the disk. */
	app.fd = -1;
	if (!app.device_thread) {
		app.fd = synth_file_open(path, app.direct);
		/* O_DIRECT wants whole blocks. */
		if (app.direct)
			app.write_bytes = (app.write_bytes + 4095) / 4096 * 4096;
		app.buf = synth_file_buffer(app.write_bytes);
	}

	synth_signals_init();
	queue_init(&app.queue, queue_len);
	/* A, B, the helpers in use, and main. */
	pthread_barrier_init(&app.start, NULL, 3 + app.device_thread + (app.extra_ms > 0));
	synth_thread_create(&a, thread_a, &app);
	synth_thread_create(&b, thread_b, &app);
	if (app.device_thread)
		helper_start(&app.c, "C", c_ms, &app.start);
	if (app.extra_ms > 0)
		helper_start(&app.d, "D", app.extra_ms, &app.start);

	w = synth_measure(&app.start, duration, &app.requests);
	queue_stop(&app.queue);
	if (app.device_thread)
		helper_stop(&app.c);
	if (app.extra_ms > 0)
		helper_stop(&app.d);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (app.device_thread)
		pthread_join(app.c.thread, NULL);
	if (app.extra_ms > 0)
		pthread_join(app.d.thread, NULL);
	synth_say_stopped(w.sig);

	if (app.fd >= 0)
		synth_file_close(app.fd, path, keep_file);
	free(app.buf);
	queue_destroy(&app.queue);
	synth_report("requests", w.count, w.elapsed_ns, "requests/s");
	return 0;
}
