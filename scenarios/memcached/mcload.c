/* SPDX-License-Identifier: MIT */
/*
 * mcload: a closed-loop load generator for memcached, on libmemcached, for the
 * scenarios scenarios/memcached*.yaml.
 *
 * It opens --connections connections in each of --threads client threads
 * (one memcached_st, so one TCP connection, each), stores every one of --keys
 * keys once with a value of --value-bytes (the fill), and then keeps
 * --pipeline requests in flight on every connection, for --duration seconds
 * of which the first --warmup are not measured. A request is a get with
 * probability --get-fraction and a set otherwise, on a key drawn uniformly at
 * random. This is the workload of memaslap, which the wPerf paper ran against
 * memcached 1.4 (OSDI'18, section 5): 9 gets for a set, 1 KiB values by
 * default.
 *
 * Pipelining. A batch is --pipeline requests on one connection, all written
 * at once (one write while they fit libmemcached's 8 KiB buffer) before any
 * answer is read. The connection buffers requests
 * (MEMCACHED_BEHAVIOR_BUFFER_REQUESTS) and sends sets with "noreply"
 * (MEMCACHED_BEHAVIOR_NOREPLY):
 *   - its sets go first, each "set ... noreply": memcached_set only puts it
 *     in the connection's buffer, and the server sends nothing back;
 *   - its gets follow in one multi-get, memcached_mget ("get k1 k2 ... kN"),
 *     which writes the buffer out; memcached_fetch_result then reads the
 *     answers, one value per hit, up to the END line.
 * memcached answers the requests of a connection in order, so the END of the
 * multi-get means that the sets before it are done too: that is the end of
 * the batch. A batch without a get (every request a set) ends with a set
 * that asks for its STORED instead, written out by memcached_flush_buffers
 * and read by memcached_fetch_result (libmemcached's only way to read the
 * answer of a buffered set; it then reports MEMCACHED_NOTFOUND, "no value",
 * and leaves a failed set's error on the handle). A thread first sends one
 * batch on each of its connections and then collects them one by one, so
 * that threads * connections * pipeline requests are in flight in all.
 *
 * Counting: a request counts in the measured window when its batch completes
 * in it; a get counts as a miss when no value came back for its key. Latency
 * is a batch's, from its first write to its last answer. noreply hides the
 * errors of the sets (the server only counts them); those that end a batch
 * of sets, and one set in FILL_BATCH of the fill, are checked.
 *
 * Timing: --duration counts from the end of the set-up (connecting, the fill,
 * both printed on stderr), the first --warmup of it not measured: that is how
 * wperf-bench counts a scenario's load.duration and record.warmup.
 *
 * Output: progress on stderr, once a second; at the end on stdout
 *   throughput: N ops/s                      (the line scenarios parse)
 *   gets: N
 *   sets: N
 *   misses: N
 *   batches: N of P requests, latency p50 N us, p90 N us, p99 N us, p999 N us, max N us
 *
 * Errors: a server that cannot be reached, a failed request or a lost
 * connection end the program with a message on stderr and exit status 1 (2
 * for a usage error). SIGINT or SIGTERM end it early: what was measured is
 * printed, and the exit status is 1.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <unistd.h>

#include <libmemcached/memcached.h>

#define LOADGEN_NAME "mcload"
#include "loadgen.h"

#define MAX_VALUE_BYTES	   (1000 * 1000) /* under memcached's default item size limit (-I 1m) */
#define MAX_PIPELINE	   4096
#define KEY_BYTES	   32	 /* "key:NNNNNNNNNN" and its NUL */
#define CONNECT_TIMEOUT_MS 5000	 /* per connection */
#define POLL_TIMEOUT_MS	   30000 /* an answer may take long on a saturated, recorded machine */
#define FILL_BATCH	   256	 /* noreply sets of the fill between two checked ones */

/*
 * ---- the program's state ----
 * One connection: its handle, and the batch in flight on it.
 */
struct conn {
	memcached_st *mc;
	memcached_result_st result; /* where the multi-get's values land */
	int64_t start_ns;	    /* when the batch's first request was written */
	size_t gets, sets;	    /* in the batch, the closing set included */
	bool closing_set;	    /* no get: the batch ends with a set that waits */
	char closing_key[KEY_BYTES];
	char (*keys)[KEY_BYTES]; /* pipeline keys of the multi-get */
	const char **key_ptrs;
	size_t *key_lens;
};

/*
 * One client thread and its connections. The measured counters and the
 * histogram have one writer, the thread, and main reads them after joining
 * it; progress is read while the load runs, hence atomic.
 */
struct worker {
	int index;
	pthread_t thread;
	struct conn *conns;
	uint64_t rng;			      /* xorshift64* state */
	uint64_t gets, sets, misses, batches; /* completed in the measured window */
	uint64_t *hist;			      /* HIST_BUCKETS batch latencies, measured window */
	uint64_t max_us;
	atomic_uint_fast64_t progress; /* requests completed, all phases */
};

static struct {
	/* options */
	char host[256];
	unsigned port;
	int threads, connections, pipeline;
	double get_fraction;
	long keys;
	long value_bytes;
	double duration, warmup;

	/* shared, read-only once the load runs */
	char *value;		    /* value_bytes of payload */
	int64_t start_ns;	    /* the end of the set-up */
	int64_t measure_ns, end_ns; /* the measured window: [measure_ns, end_ns) */
	struct worker *workers;

	/* shared */
	atomic_bool stop;
	pthread_mutex_t lock; /* protects error */
	char error[512];      /* the first error of a worker, if any */
} app = {
    .host = "127.0.0.1",
    .port = 11211,
    .threads = 2,
    .connections = 4,
    .pipeline = 1,
    .get_fraction = 0.9,
    .keys = 100000,
    .value_bytes = 1024,
    .duration = 30,
    .warmup = 5,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

/*
 * ---- errors ----
 * In main: die() (loadgen.h). In a worker: keep the first error, tell everyone
 * to stop; main prints it and exits.
 */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&app.lock);
	if (!app.error[0]) {
		va_start(ap, fmt);
		vsnprintf(app.error, sizeof(app.error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&app.lock);
	atomic_store(&app.stop, true);
}

/* The name of key i, and its length. */
static size_t key_name(char *buf, long i)
{
	return (size_t)snprintf(buf, KEY_BYTES, "key:%010ld", i);
}

/* ---- connections ---- */

/*
 * What went wrong on a connection, for people: the library's name of the
 * error, and the system's when there is one ("CONNECTION FAILURE: Connection
 * refused"). memcached_last_error_message would add a pointer and a source
 * line of the library.
 */
static const char *conn_error(const struct conn *c, memcached_return_t rc)
{
	static _Thread_local char buf[256];
	memcached_return_t last = memcached_last_error(c->mc);
	int err = memcached_last_error_errno(c->mc);

	if (last != MEMCACHED_SUCCESS)
		rc = last;
	if (err)
		snprintf(buf, sizeof(buf), "%s: %s", memcached_strerror(c->mc, rc), strerror(err));
	else
		snprintf(buf, sizeof(buf), "%s", memcached_strerror(c->mc, rc));
	return buf;
}

/*
 * Opens a connection to the server and checks it with a "version" request,
 * so that an unreachable server is an error here, at the start, not in the
 * middle of the load. Then noreply becomes the connection's default: the
 * sets of a batch are sent so.
 */
static void conn_open(struct conn *c)
{
	memcached_return_t rc;

	c->mc = memcached_create(NULL);
	if (!c->mc)
		die(1, "memcached_create failed");
	/*
	 * Behaviours that reset the connection (TCP_NODELAY, BUFFER_REQUESTS)
	 * before it opens. No Nagle: a batch is one write that must go at once.
	 */
	if (memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_TCP_NODELAY, 1) != MEMCACHED_SUCCESS ||
	    memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT, CONNECT_TIMEOUT_MS) !=
		MEMCACHED_SUCCESS ||
	    memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT, POLL_TIMEOUT_MS) !=
		MEMCACHED_SUCCESS ||
	    memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_BUFFER_REQUESTS, 1) !=
		MEMCACHED_SUCCESS)
		die(1, "memcached_behavior_set: %s", conn_error(c, MEMCACHED_FAILURE));
	rc = memcached_server_add(c->mc, app.host, (in_port_t)app.port);
	if (rc != MEMCACHED_SUCCESS)
		die(1, "%s:%u: %s", app.host, app.port, conn_error(c, rc));
	rc = memcached_version(c->mc);
	if (rc != MEMCACHED_SUCCESS)
		die(1, "cannot connect to memcached at %s:%u: %s", app.host, app.port,
		    conn_error(c, rc));
	/* Only now: a "version" sent with noreply on would leave its answer unread. */
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, 1);
	if (!memcached_result_create(c->mc, &c->result))
		die(1, "out of memory");
	c->keys = xcalloc((size_t)app.pipeline, sizeof(*c->keys));
	c->key_ptrs = xcalloc((size_t)app.pipeline, sizeof(*c->key_ptrs));
	c->key_lens = xcalloc((size_t)app.pipeline, sizeof(*c->key_lens));
}

static void conn_close(struct conn *c)
{
	memcached_result_free(&c->result);
	memcached_free(c->mc);
	free(c->keys);
	free(c->key_ptrs);
	free(c->key_lens);
}

/*
 * A set that asks for the server's STORED, the end of a batch of sets: the
 * reply is turned on for it, and the buffer written out with it.
 * closing_set_wait reads the answer.
 */
static memcached_return_t closing_set_send(struct conn *c, const char *key, size_t key_len)
{
	memcached_return_t rc;

	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, 0);
	rc = memcached_set(c->mc, key, key_len, app.value, (size_t)app.value_bytes, 0, 0);
	memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_NOREPLY, 1);
	if (rc != MEMCACHED_BUFFERED && rc != MEMCACHED_SUCCESS)
		return rc;
	return memcached_flush_buffers(c->mc);
}

/*
 * Waits for the answer of closing_set_send's set. memcached_fetch_result
 * reads it and, finding no value, says MEMCACHED_NOTFOUND; a failed set (a
 * SERVER_ERROR, a time-out) leaves its error on the handle.
 */
static memcached_return_t closing_set_wait(struct conn *c)
{
	memcached_return_t rc;

	if (memcached_fetch_result(c->mc, &c->result, &rc))
		return MEMCACHED_PROTOCOL_ERROR; /* a value, for a set */
	if (memcached_last_error(c->mc) != MEMCACHED_SUCCESS)
		return memcached_last_error(c->mc);
	return rc == MEMCACHED_NOTFOUND || rc == MEMCACHED_END ? MEMCACHED_SUCCESS : rc;
}

/*
 * The fill: stores keys [from, to) on one connection, FILL_BATCH noreply
 * sets at a time, each group closed by a set that is waited for, so that the
 * server is never more than a group behind and a refused set shows.
 */
static void fill(struct conn *c, long from, long to)
{
	char key[KEY_BYTES];

	for (long i = from; i < to; i++) {
		size_t len = key_name(key, i);
		bool last = i == to - 1 || (i - from + 1) % FILL_BATCH == 0;
		memcached_return_t rc;

		if (!last)
			rc = memcached_set(c->mc, key, len, app.value, (size_t)app.value_bytes, 0,
					   0);
		else if ((rc = closing_set_send(c, key, len)) == MEMCACHED_SUCCESS)
			rc = closing_set_wait(c);
		if (rc != MEMCACHED_SUCCESS)
			die(1, "filling %s: %s", key, conn_error(c, rc));
	}
}

/* ---- the load ---- */

/*
 * Sends one batch of --pipeline requests on c without waiting for any
 * answer: its sets with noreply, then its gets in one multi-get, all from
 * the connection's buffer. A batch with no get ends with a set that asks
 * for its answer.
 */
static bool batch_send(struct worker *w, struct conn *c)
{
	memcached_return_t rc;

	c->gets = c->sets = 0;
	c->closing_set = false;
	c->start_ns = now_ns();
	for (int i = 0; i < app.pipeline; i++) {
		long k = (long)(rng_next(&w->rng) % (uint64_t)app.keys);

		if (rng_unit(&w->rng) < app.get_fraction) {
			c->key_lens[c->gets] = key_name(c->keys[c->gets], k);
			c->key_ptrs[c->gets] = c->keys[c->gets];
			c->gets++;
			continue;
		}
		/* The set before goes with noreply: this one may be the batch's last. */
		if (c->closing_set) {
			rc = memcached_set(c->mc, c->closing_key, strlen(c->closing_key), app.value,
					   (size_t)app.value_bytes, 0, 0);
			if (rc != MEMCACHED_SUCCESS) {
				fail("set %s: %s", c->closing_key, conn_error(c, rc));
				return false;
			}
		}
		key_name(c->closing_key, k);
		c->closing_set = true;
		c->sets++;
	}
	if (c->gets == 0) {
		/* Only sets: the last one asks for its STORED. */
		rc = closing_set_send(c, c->closing_key, strlen(c->closing_key));
		if (rc != MEMCACHED_SUCCESS) {
			fail("set %s: %s", c->closing_key, conn_error(c, rc));
			return false;
		}
		return true;
	}
	if (c->closing_set) {
		/* A multi-get follows: the last set need not answer either. */
		rc = memcached_set(c->mc, c->closing_key, strlen(c->closing_key), app.value,
				   (size_t)app.value_bytes, 0, 0);
		if (rc != MEMCACHED_SUCCESS) {
			fail("set %s: %s", c->closing_key, conn_error(c, rc));
			return false;
		}
		c->closing_set = false;
	}
	rc = memcached_mget(c->mc, c->key_ptrs, c->key_lens, c->gets);
	if (rc != MEMCACHED_SUCCESS) {
		fail("get of %zu keys: %s", c->gets, conn_error(c, rc));
		return false;
	}
	return true;
}

/*
 * Waits for the end of the batch in flight on c: every value of the
 * multi-get up to its END, or the STORED of the closing set. Counts it
 * when it completes in the measured window.
 */
static bool batch_collect(struct worker *w, struct conn *c, int64_t *done_ns)
{
	uint64_t hits = 0;
	memcached_return_t rc;
	int64_t end;

	if (c->closing_set) {
		rc = closing_set_wait(c);
		if (rc != MEMCACHED_SUCCESS) {
			fail("set %s: %s", c->closing_key, conn_error(c, rc));
			return false;
		}
	} else {
		while (memcached_fetch_result(c->mc, &c->result, &rc))
			hits++;
		/* END after the values; NOTFOUND when none of the keys was there. */
		if (rc != MEMCACHED_END && rc != MEMCACHED_NOTFOUND) {
			fail("get of %zu keys: %s", c->gets, conn_error(c, rc));
			return false;
		}
	}
	end = now_ns();
	*done_ns = end;
	atomic_fetch_add_explicit(&w->progress, c->gets + c->sets, memory_order_relaxed);
	if (end >= app.measure_ns && end < app.end_ns) {
		uint64_t us = (uint64_t)((end - c->start_ns) / NSEC_PER_USEC);

		w->gets += c->gets;
		w->sets += c->sets;
		w->misses += c->gets - hits;
		w->batches++;
		hist_add(w->hist, &w->max_us, us);
	}
	return true;
}

/*
 * A client thread: a batch on each of its connections, then their
 * answers, round after round, until the measured window is over, a signal
 * came or another thread failed.
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "mcload-%d", w->index);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		int64_t done = 0;

		for (int i = 0; i < app.connections; i++)
			if (!batch_send(w, &w->conns[i]))
				return NULL;
		for (int i = 0; i < app.connections; i++)
			if (!batch_collect(w, &w->conns[i], &done))
				return NULL;
		if (done >= app.end_ns || atomic_load_explicit(&app.stop, memory_order_relaxed))
			return NULL;
	}
}

static uint64_t progress_total(void)
{
	uint64_t n = 0;

	for (int t = 0; t < app.threads; t++)
		n += atomic_load_explicit(&app.workers[t].progress, memory_order_relaxed);
	return n;
}

/* ---- options ---- */

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: mcload [options]\n"
	    "  --server HOST:PORT     memcached to load (default 127.0.0.1:11211)\n"
	    "  --threads N            client threads (default 2)\n"
	    "  --connections N        connections per thread (default 4)\n"
	    "  --pipeline N           requests in flight per connection (default 1)\n"
	    "  --get-fraction F       share of gets, the rest are sets (default 0.9)\n"
	    "  --keys N               keys, each stored once before the load (default 100000)\n"
	    "  --value-bytes N        bytes of a value (default 1024)\n"
	    "  --duration SECONDS     from the end of the set-up, warm-up included (default 30)\n"
	    "  --warmup SECONDS       not measured, from the end of the set-up (default 5)\n");
}

/* HOST:PORT, the port after the last colon; an IPv6 address in brackets. */
static void opt_server(const char *arg)
{
	const char *colon = strrchr(arg, ':');
	const char *host = arg;
	size_t len;

	if (!colon || colon == arg)
		die(2, "--server: expected HOST:PORT, got \"%s\"", arg);
	len = (size_t)(colon - arg);
	if (host[0] == '[' && len >= 2 && host[len - 1] == ']') {
		host++;
		len -= 2;
	}
	if (len == 0 || len >= sizeof(app.host))
		die(2, "--server: expected HOST:PORT, got \"%s\"", arg);
	memcpy(app.host, host, len);
	app.host[len] = '\0';
	app.port = (unsigned)opt_long("--server port", colon + 1, 1, 65535);
}

enum {
	OPT_SERVER = 256,
	OPT_THREADS,
	OPT_CONNECTIONS,
	OPT_PIPELINE,
	OPT_GET_FRACTION,
	OPT_KEYS,
	OPT_VALUE_BYTES,
	OPT_DURATION,
	OPT_WARMUP,
};

static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"server", required_argument, NULL, OPT_SERVER},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"connections", required_argument, NULL, OPT_CONNECTIONS},
	    {"pipeline", required_argument, NULL, OPT_PIPELINE},
	    {"get-fraction", required_argument, NULL, OPT_GET_FRACTION},
	    {"keys", required_argument, NULL, OPT_KEYS},
	    {"value-bytes", required_argument, NULL, OPT_VALUE_BYTES},
	    {"duration", required_argument, NULL, OPT_DURATION},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SERVER:
			opt_server(optarg);
			break;
		case OPT_THREADS:
			app.threads = (int)opt_long("--threads", optarg, 1, 1024);
			break;
		case OPT_CONNECTIONS:
			app.connections = (int)opt_long("--connections", optarg, 1, 1024);
			break;
		case OPT_PIPELINE:
			app.pipeline = (int)opt_long("--pipeline", optarg, 1, MAX_PIPELINE);
			break;
		case OPT_GET_FRACTION:
			app.get_fraction = opt_double("--get-fraction", optarg, 0, 1);
			break;
		case OPT_KEYS:
			app.keys = opt_long("--keys", optarg, 1, 100000000);
			break;
		case OPT_VALUE_BYTES:
			app.value_bytes = opt_long("--value-bytes", optarg, 0, MAX_VALUE_BYTES);
			break;
		case OPT_DURATION:
			app.duration = opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_WARMUP:
			app.warmup = opt_double("--warmup", optarg, 0, 1e6);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc)
		die(2, "unexpected argument \"%s\"", argv[optind]);
	if (app.warmup >= app.duration)
		die(2, "--warmup (%g s) must be less than --duration (%g s)", app.warmup,
		    app.duration);
}

/* ---- main ---- */

int main(int argc, char **argv)
{
	uint64_t gets = 0, sets = 0, misses = 0, batches = 0, max_us = 0;
	uint64_t *hist;
	sigset_t sigs;
	int64_t t0, stop_ns;
	double window;
	int sig;

	parse_options(argc, argv);

	/* SIGINT and SIGTERM are for main's sigtimedwait, in every thread. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	app.value = xcalloc(1, (size_t)app.value_bytes + 1);
	memset(app.value, 'v', (size_t)app.value_bytes);

	/* Set-up: every connection opened and checked, then the fill. */
	t0 = now_ns();
	app.workers = xcalloc((size_t)app.threads, sizeof(*app.workers));
	for (int t = 0; t < app.threads; t++) {
		struct worker *w = &app.workers[t];

		w->index = t;
		w->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(t + 1) ^ (uint64_t)t0;
		w->hist = xcalloc(HIST_BUCKETS, sizeof(*w->hist));
		w->conns = xcalloc((size_t)app.connections, sizeof(*w->conns));
		for (int i = 0; i < app.connections; i++)
			conn_open(&w->conns[i]);
	}
	fprintf(stderr, "mcload: %d connections to %s:%u open\n", app.threads * app.connections,
		app.host, app.port);
	fill(&app.workers[0].conns[0], 0, app.keys);
	fprintf(stderr, "mcload: %ld keys of %ld bytes stored in %.2f s\n", app.keys,
		app.value_bytes, (double)(now_ns() - t0) / NSEC_PER_SEC);

	/* The load: --duration from now, the first --warmup not measured. */
	app.start_ns = now_ns();
	app.measure_ns = app.start_ns + (int64_t)(app.warmup * NSEC_PER_SEC);
	app.end_ns = app.start_ns + (int64_t)(app.duration * NSEC_PER_SEC);
	for (int t = 0; t < app.threads; t++) {
		int err =
		    pthread_create(&app.workers[t].thread, NULL, worker_main, &app.workers[t]);

		if (err)
			die(1, "pthread_create: %s", strerror(err));
	}
	sig = loadgen_wait(&(struct loadgen_window){app.start_ns, app.measure_ns, app.end_ns},
			   &app.stop, progress_total, "ops");
	stop_ns = now_ns();
	atomic_store(&app.stop, true);
	for (int t = 0; t < app.threads; t++)
		pthread_join(app.workers[t].thread, NULL);
	if (app.error[0])
		die(1, "%s", app.error);

	/* What the measured window saw, all threads together. */
	hist = xcalloc(HIST_BUCKETS, sizeof(*hist));
	for (int t = 0; t < app.threads; t++) {
		struct worker *w = &app.workers[t];

		gets += w->gets;
		sets += w->sets;
		misses += w->misses;
		batches += w->batches;
		if (w->max_us > max_us)
			max_us = w->max_us;
		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			hist[b] += w->hist[b];
	}
	/* Cut short by a signal: the window is what was measured of it. */
	if (sig)
		stop_ns = stop_ns < app.end_ns ? stop_ns : app.end_ns;
	else
		stop_ns = app.end_ns;
	window = (double)(stop_ns - app.measure_ns) / NSEC_PER_SEC;
	printf("throughput: %.0f ops/s\n", window > 0 ? (double)(gets + sets) / window : 0.0);
	printf("gets: %llu\n", (unsigned long long)gets);
	printf("sets: %llu\n", (unsigned long long)sets);
	printf("misses: %llu\n", (unsigned long long)misses);
	printf("batches: %llu of %d requests, latency p50 %llu us, p90 %llu us, p99 %llu us, "
	       "p999 %llu us, max %llu us\n",
	       (unsigned long long)batches, app.pipeline,
	       (unsigned long long)hist_percentile(hist, batches, 0.50),
	       (unsigned long long)hist_percentile(hist, batches, 0.90),
	       (unsigned long long)hist_percentile(hist, batches, 0.99),
	       (unsigned long long)hist_percentile(hist, batches, 0.999),
	       (unsigned long long)max_us);
	fflush(stdout);

	for (int t = 0; t < app.threads; t++) {
		for (int i = 0; i < app.connections; i++)
			conn_close(&app.workers[t].conns[i]);
		free(app.workers[t].conns);
		free(app.workers[t].hist);
	}
	free(app.workers);
	free(hist);
	free(app.value);
	if (sig) {
		fprintf(stderr, "mcload: stopped by %s before the end\n", strsignal(sig));
		return 1;
	}
	return 0;
}
