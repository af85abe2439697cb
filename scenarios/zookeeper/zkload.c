/* SPDX-License-Identifier: MIT */
/*
 * zkload: a closed-loop load generator for ZooKeeper, on the C client library
 * (libzookeeper_mt), for the scenarios scenarios/zookeeper*.yaml.
 *
 * It opens --sessions sessions (one zhandle each, each with the library's own
 * I/O and completion threads) to --server, creates --keys znodes of
 * --value-bytes under --root (or overwrites them when they are there), and
 * then keeps --window asynchronous requests in flight on every session: each
 * completion issues the next request from the library's completion thread, so
 * the load is as fast as the server answers and never more than
 * sessions * window requests are outstanding. A request is a zoo_aset of the
 * whole value with probability --write-fraction and a zoo_aget otherwise, on
 * a key drawn uniformly at random.
 *
 * This is the workload of the wPerf paper's ZooKeeper case study (OSDI'18,
 * section 5): 1 KiB values, read-only or with 0.1% writes. The writes go
 * through the server's SyncRequestProcessor, which logs them and fsyncs the
 * log; in a standalone server reads queue behind a pending flush, so a few
 * writes can hold up many reads, and the number of requests the server lets
 * in (globalOutstandingLimit) bounds how many writes one fsync batches.
 *
 * Timing: the run lasts --duration seconds from the end of the set-up
 * (connecting, creating the keys), the first --warmup of them not measured.
 * That is how wperf-bench counts a scenario's load.duration and
 * record.warmup. A request counts in the measured window when it completes
 * in it; its latency is from the call to its completion.
 *
 * Output: progress on stderr, once a second; at the end on stdout
 *   throughput: N ops/s                       (the line scenarios parse)
 *   latency: p50 N us, p99 N us, p999 N us
 *   reads: N
 *   writes: N
 *
 * Errors: a server that cannot be reached, a session that does not connect
 * or expires, and any request that fails end the program with a message on
 * stderr and exit status 1 (2 for a usage error). The library's own log is
 * off unless --verbose.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The multi-threaded library (libzookeeper_mt): declares the synchronous calls too. */
#define THREADED
#include <zookeeper/zookeeper.h>

#define LOADGEN_NAME "zkload"
#include "loadgen.h"

#define SESSION_TIMEOUT_MS 30000	 /* long enough for a saturated server on 2 cores */
#define DRAIN_TIMEOUT_S	   30.0		 /* for the requests in flight at the end */
#define MAX_VALUE_BYTES	   (1000 * 1000) /* under the server's jute.maxbuffer (1 MiB) */

/*
 * ---- the program's state ----
 * A request in flight: its slot in its session, reused by the next request.
 */
struct slot {
	struct session *session;
	int64_t start_ns; /* when the request was made */
	long key;	  /* the key it is about */
	bool write;
	uint64_t rng; /* xorshift64* state: a slot is in one thread's hands at a time */
};

/*
 * One session. Its completions all run on its handle's one completion thread,
 * so the counters and the histogram have a single writer; main reads them
 * once every slot is idle (all_idle, under the lock).
 * progress is read while the load runs, hence atomic.
 */
struct session {
	int index;
	zhandle_t *zh;
	struct slot *slots;
	uint64_t reads, writes;	       /* completed in the measured window */
	uint64_t *hist;		       /* HIST_BUCKETS latencies of the measured window */
	atomic_uint_fast64_t progress; /* requests completed, all phases */
};

/* What the load is doing; completions read it to count and to go on. */
enum phase { PHASE_SETUP, PHASE_WARMUP, PHASE_MEASURE, PHASE_STOP };

static struct {
	/* options */
	const char *server, *root;
	int sessions, window;
	int value_bytes;
	double write_fraction;
	long keys;
	double duration, warmup, connect_timeout;
	bool verbose;

	/* shared, read-only once the load runs */
	char *value;  /* value_bytes of payload for creates and writes */
	char **paths; /* the keys' paths: ROOT/key-NNNNNNN */

	/* shared */
	atomic_int phase;
	atomic_long next_create; /* the next key to create */
	pthread_mutex_t lock;	 /* protects the fields below; cond signals changes */
	pthread_cond_t cond;
	int connected;	 /* sessions that reached the connected state */
	long idle;	 /* slots with no request in flight */
	char error[512]; /* the first error, if any */
} app = {
    .server = "127.0.0.1:2181",
    .root = "/wperf",
    .sessions = 8,
    .window = 32,
    .value_bytes = 1024,
    .write_fraction = 0,
    .keys = 1000,
    .duration = 30,
    .warmup = 5,
    .connect_timeout = 30,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
};

/*
 * ---- errors ----
 * In main: die() (loadgen.h). Elsewhere (the library's threads): keep the
 * first error and wake main, which prints it and exits.
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
	pthread_cond_broadcast(&app.cond);
	pthread_mutex_unlock(&app.lock);
}

/* In main, with the lock held: exit if a thread has failed. */
static void check_failed_locked(void)
{
	if (app.error[0]) {
		char msg[sizeof(app.error)];

		memcpy(msg, app.error, sizeof(msg));
		pthread_mutex_unlock(&app.lock);
		die(1, "%s", msg);
	}
}

/*
 * In main: wait, with the lock held, until done() is true, a thread fails
 * (then exit) or the deadline passes. Returns done().
 */
static bool wait_locked(bool (*done)(void), int64_t deadline_ns)
{
	while (!done()) {
		int64_t t = now_ns();
		struct timespec ts;

		check_failed_locked();
		if (t >= deadline_ns)
			return false;
		/* The condition variable runs on CLOCK_REALTIME: wait relative to it. */
		clock_gettime(CLOCK_REALTIME, &ts);
		t = deadline_ns - t;
		ts.tv_sec += t / NSEC_PER_SEC;
		ts.tv_nsec += t % NSEC_PER_SEC;
		if (ts.tv_nsec >= NSEC_PER_SEC) {
			ts.tv_sec++;
			ts.tv_nsec -= NSEC_PER_SEC;
		}
		pthread_cond_timedwait(&app.cond, &app.lock, &ts);
	}
	check_failed_locked();
	return true;
}

static bool never(void)
{
	return false;
}

static bool all_connected(void)
{
	return app.connected == app.sessions;
}

static bool all_idle(void)
{
	return app.idle == (long)app.sessions * app.window;
}

/* In main: sleep for seconds, or exit at once if a thread fails meanwhile. */
static void sleep_checked(double seconds)
{
	pthread_mutex_lock(&app.lock);
	wait_locked(never, now_ns() + (int64_t)(seconds * NSEC_PER_SEC));
	pthread_mutex_unlock(&app.lock);
}

/* A slot has no more requests to make: count it, and wake main when all are. */
static void slot_idle(void)
{
	pthread_mutex_lock(&app.lock);
	if (++app.idle == (long)app.sessions * app.window)
		pthread_cond_broadcast(&app.cond);
	pthread_mutex_unlock(&app.lock);
}

/*
 * ---- the session's watcher ----
 * Called on the session's completion thread for session events: connected,
 * or lost for good (expired, authentication failed). A connection that drops
 * and comes back is seen by the requests in flight, which fail with
 * ZCONNECTIONLOSS.
 */
static void session_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
	struct session *s = ctx;

	(void)zh;
	(void)path;
	if (type != ZOO_SESSION_EVENT)
		return;
	if (state == ZOO_CONNECTED_STATE) {
		pthread_mutex_lock(&app.lock);
		app.connected++;
		pthread_cond_broadcast(&app.cond);
		pthread_mutex_unlock(&app.lock);
	} else if (state == ZOO_EXPIRED_SESSION_STATE) {
		fail("session %d to %s expired", s->index, app.server);
	} else if (state == ZOO_AUTH_FAILED_STATE) {
		fail("session %d to %s: authentication failed", s->index, app.server);
	}
}

/*
 * ---- creating the keys ----
 * Every slot of every session creates keys, one at a time, taking the next
 * key number until there are none left. A key that exists already (a server
 * that kept its data) is overwritten instead, so that every value has
 * --value-bytes.
 */
static void create_done(int rc, const char *value, const void *data);
static void overwrite_done(int rc, const struct Stat *stat, const void *data);

static void create_next(struct slot *sl)
{
	long key = atomic_fetch_add(&app.next_create, 1);
	int rc;

	if (key >= app.keys) {
		slot_idle();
		return;
	}
	sl->key = key;
	rc = zoo_acreate(sl->session->zh, app.paths[key], app.value, app.value_bytes,
			 &ZOO_OPEN_ACL_UNSAFE, 0, create_done, sl);
	if (rc != ZOK)
		fail("create %s: %s", app.paths[key], zerror(rc));
}

static void create_done(int rc, const char *value, const void *data)
{
	struct slot *sl = (struct slot *)data;

	(void)value;
	if (rc == ZNODEEXISTS) {
		rc = zoo_aset(sl->session->zh, app.paths[sl->key], app.value, app.value_bytes, -1,
			      overwrite_done, sl);
		if (rc != ZOK)
			fail("set %s: %s", app.paths[sl->key], zerror(rc));
		return;
	}
	if (rc != ZOK) {
		fail("create %s: %s", app.paths[sl->key], zerror(rc));
		return;
	}
	create_next(sl);
}

static void overwrite_done(int rc, const struct Stat *stat, const void *data)
{
	struct slot *sl = (struct slot *)data;

	(void)stat;
	if (rc != ZOK) {
		fail("set %s: %s", app.paths[sl->key], zerror(rc));
		return;
	}
	create_next(sl);
}

/*
 * ---- the load ----
 * issue() makes a slot's next request; its completion records it and calls
 * issue() again, until main says stop.
 */
static void get_done(int rc, const char *value, int value_len, const struct Stat *stat,
		     const void *data);
static void set_done(int rc, const struct Stat *stat, const void *data);

static void issue(struct slot *sl)
{
	struct session *s = sl->session;
	uint64_t r = rng_next(&sl->rng);
	int rc;

	sl->key = (long)(r % (uint64_t)app.keys);
	/* The top 53 bits of another draw, as a number in [0, 1). */
	sl->write = (double)(rng_next(&sl->rng) >> 11) * 0x1.0p-53 < app.write_fraction;
	sl->start_ns = now_ns();
	if (sl->write)
		rc = zoo_aset(s->zh, app.paths[sl->key], app.value, app.value_bytes, -1, set_done,
			      sl);
	else
		rc = zoo_aget(s->zh, app.paths[sl->key], 0, get_done, sl);
	if (rc != ZOK)
		fail("%s %s: %s", sl->write ? "set" : "get", app.paths[sl->key], zerror(rc));
}

/* A request completed: count it, then make the next one unless it is time to stop. */
static void completed(struct slot *sl, int rc)
{
	struct session *s = sl->session;
	int phase;

	if (rc != ZOK) {
		fail("%s %s: %s", sl->write ? "set" : "get", app.paths[sl->key], zerror(rc));
		return;
	}
	atomic_fetch_add_explicit(&s->progress, 1, memory_order_relaxed);
	phase = atomic_load_explicit(&app.phase, memory_order_relaxed);
	if (phase == PHASE_MEASURE) {
		int64_t us = (now_ns() - sl->start_ns) / NSEC_PER_USEC;

		s->hist[hist_bucket(us > 0 ? (uint64_t)us : 0)]++;
		if (sl->write)
			s->writes++;
		else
			s->reads++;
	}
	if (phase == PHASE_STOP)
		slot_idle();
	else
		issue(sl);
}

static void get_done(int rc, const char *value, int value_len, const struct Stat *stat,
		     const void *data)
{
	(void)value;
	(void)value_len;
	(void)stat;
	completed((struct slot *)data, rc);
}

static void set_done(int rc, const struct Stat *stat, const void *data)
{
	(void)stat;
	completed((struct slot *)data, rc);
}

/*
 * ---- connecting ----
 * The library retries a server that refuses forever, silently: try one plain
 * TCP connection first, so that a server that is not there is a clear error
 * at once. --server may list several HOST:PORT, separated by commas; one that
 * answers is enough.
 */
static void probe_server(void)
{
	char *list = strdup(app.server), *save = NULL, reason[256] = "no address given";

	if (!list)
		die(1, "out of memory");
	for (char *hp = strtok_r(list, ",", &save); hp; hp = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(hp, ':'), *host = hp;
		struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
		int e;

		if (!colon || colon == hp || !colon[1])
			die(2, "--server: expected HOST:PORT, got '%s'", hp);
		*colon = '\0';
		if (host[0] == '[' && colon[-1] == ']') { /* [::1]:2181 */
			host++;
			colon[-1] = '\0';
		}
		e = getaddrinfo(host, colon + 1, &hints, &res);
		if (e) {
			snprintf(reason, sizeof(reason), "%s: %s", host, gai_strerror(e));
			continue;
		}
		for (ai = res; ai; ai = ai->ai_next) {
			int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);

			if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
				close(fd);
				freeaddrinfo(res);
				free(list);
				return;
			}
			snprintf(reason, sizeof(reason), "%s", strerror(errno));
			if (fd >= 0)
				close(fd);
		}
		freeaddrinfo(res);
	}
	free(list);
	die(1, "cannot connect to %s: %s (is ZooKeeper running there?)", app.server, reason);
}

/*
 * Opens the sessions and waits until all are connected. A server that is
 * still starting accepts connections and closes them ("ZooKeeperServer not
 * running"); the library then tries again, but only after a pause (10 s was
 * seen, with this session timeout), hence the default --connect-timeout of 30 s.
 */
static void connect_sessions(struct session *ss)
{
	zoo_set_debug_level(app.verbose ? ZOO_LOG_LEVEL_WARN : 0); /* 0: the library logs nothing */
	probe_server();
	for (int i = 0; i < app.sessions; i++) {
		ss[i].zh = zookeeper_init(app.server, session_watcher, SESSION_TIMEOUT_MS, NULL,
					  &ss[i], 0);
		if (!ss[i].zh)
			die(1, "zookeeper_init %s: %s", app.server, strerror(errno));
	}
	pthread_mutex_lock(&app.lock);
	if (!wait_locked(all_connected, now_ns() + (int64_t)(app.connect_timeout * NSEC_PER_SEC))) {
		int n = app.connected;

		pthread_mutex_unlock(&app.lock);
		die(1, "cannot connect to %s: %d of %d sessions connected within %g s", app.server,
		    n, app.sessions, app.connect_timeout);
	}
	pthread_mutex_unlock(&app.lock);
}

/* Creates the root and then the keys, every slot of every session at work. */
static void create_keys(struct session *ss)
{
	int64_t t0 = now_ns();
	int rc = zoo_create(ss[0].zh, app.root, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);

	if (rc != ZOK && rc != ZNODEEXISTS)
		die(1, "create %s: %s", app.root, zerror(rc));
	app.idle = 0;
	for (int i = 0; i < app.sessions; i++)
		for (int j = 0; j < app.window; j++)
			create_next(&ss[i].slots[j]);
	pthread_mutex_lock(&app.lock);
	wait_locked(all_idle, INT64_MAX);
	pthread_mutex_unlock(&app.lock);
	fprintf(stderr, "zkload: %ld keys of %d bytes under %s in %.2f s\n", app.keys,
		app.value_bytes, app.root, (double)(now_ns() - t0) / NSEC_PER_SEC);
}

/* ---- results ---- */

static uint64_t total_progress(const struct session *ss)
{
	uint64_t n = 0;

	for (int i = 0; i < app.sessions; i++)
		n += atomic_load_explicit(&ss[i].progress, memory_order_relaxed);
	return n;
}

static void print_results(const struct session *ss, int64_t elapsed_ns)
{
	uint64_t *hist = xcalloc(HIST_BUCKETS, sizeof(*hist));
	uint64_t reads = 0, writes = 0, n;
	double secs = (double)elapsed_ns / NSEC_PER_SEC;

	for (int i = 0; i < app.sessions; i++) {
		reads += ss[i].reads;
		writes += ss[i].writes;
		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			hist[b] += ss[i].hist[b];
	}
	n = reads + writes;
	printf("throughput: %.1f ops/s\n", secs > 0 ? (double)n / secs : 0.0);
	printf("latency: p50 %llu us, p99 %llu us, p999 %llu us\n",
	       (unsigned long long)hist_percentile(hist, n, 0.50),
	       (unsigned long long)hist_percentile(hist, n, 0.99),
	       (unsigned long long)hist_percentile(hist, n, 0.999));
	printf("reads: %llu\n", (unsigned long long)reads);
	printf("writes: %llu\n", (unsigned long long)writes);
	fflush(stdout);
	free(hist);
}

/* ---- options ---- */

static const char usage_text[] =
    "usage: zkload [options]\n"
    "  --server HOST:PORT[,...]  the ZooKeeper server (default 127.0.0.1:2181)\n"
    "  --sessions N              sessions (zhandles) to open (default 8)\n"
    "  --window N                asynchronous requests in flight per session (default 32)\n"
    "  --value-bytes N           size of a value (default 1024)\n"
    "  --write-fraction F        share of the requests that are writes (zoo_aset), the\n"
    "                            rest are reads (zoo_aget): 0, 0.001, ... (default 0)\n"
    "  --keys N                  znodes to create and use (default 1000)\n"
    "  --root PATH               their parent znode (default /wperf)\n"
    "  --duration S              how long to run after the set-up, warm-up included\n"
    "                            (default 30)\n"
    "  --warmup S                the first seconds, not measured (default 5)\n"
    "  --connect-timeout S       for the sessions to connect (default 30)\n"
    "  -v, --verbose             let the client library log its warnings on stderr\n"
    "  -h, --help                this help\n";

static void parse_options(int argc, char **argv)
{
	enum {
		OPT_SERVER = 256,
		OPT_SESSIONS,
		OPT_WINDOW,
		OPT_VALUE_BYTES,
		OPT_WRITE_FRACTION,
		OPT_KEYS,
		OPT_ROOT,
		OPT_DURATION,
		OPT_WARMUP,
		OPT_CONNECT_TIMEOUT,
	};
	static const struct option longopts[] = {
	    {"server", required_argument, NULL, OPT_SERVER},
	    {"sessions", required_argument, NULL, OPT_SESSIONS},
	    {"window", required_argument, NULL, OPT_WINDOW},
	    {"value-bytes", required_argument, NULL, OPT_VALUE_BYTES},
	    {"write-fraction", required_argument, NULL, OPT_WRITE_FRACTION},
	    {"keys", required_argument, NULL, OPT_KEYS},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"duration", required_argument, NULL, OPT_DURATION},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SERVER:
			app.server = optarg;
			break;
		case OPT_SESSIONS:
			app.sessions = (int)opt_long("--sessions", optarg, 1, 1024);
			break;
		case OPT_WINDOW:
			app.window = (int)opt_long("--window", optarg, 1, 100000);
			break;
		case OPT_VALUE_BYTES:
			app.value_bytes =
			    (int)opt_long("--value-bytes", optarg, 0, MAX_VALUE_BYTES);
			break;
		case OPT_WRITE_FRACTION:
			app.write_fraction = opt_double("--write-fraction", optarg, 0, 1);
			break;
		case OPT_KEYS:
			app.keys = opt_long("--keys", optarg, 1, 10000000);
			break;
		case OPT_ROOT:
			app.root = optarg;
			break;
		case OPT_DURATION:
			app.duration = opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_WARMUP:
			app.warmup = opt_double("--warmup", optarg, 0, 1e6);
			break;
		case OPT_CONNECT_TIMEOUT:
			app.connect_timeout = opt_double("--connect-timeout", optarg, 0.001, 3600);
			break;
		case 'v':
			app.verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			fputs(usage_text, stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "zkload: unexpected argument '%s'\n%s", argv[optind], usage_text);
		exit(2);
	}
	if (app.warmup >= app.duration)
		die(2, "--warmup (%g s) must be less than --duration (%g s)", app.warmup,
		    app.duration);
	if (app.root[0] != '/' || (app.root[1] && app.root[strlen(app.root) - 1] == '/'))
		die(2, "--root: expected an absolute znode path such as /wperf, got '%s'",
		    app.root);
}

/* ---- main ---- */

/* Sets up the payload, the keys' paths and the sessions' slots. */
static struct session *prepare(void)
{
	struct session *ss = xcalloc((size_t)app.sessions, sizeof(*ss));
	uint64_t seed = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32);

	app.value = xcalloc((size_t)app.value_bytes + 1, 1);
	memset(app.value, 'v', (size_t)app.value_bytes);
	app.paths = xcalloc((size_t)app.keys, sizeof(*app.paths));
	for (long k = 0; k < app.keys; k++)
		if (asprintf(&app.paths[k], "%s/key-%07ld", strcmp(app.root, "/") ? app.root : "",
			     k) < 0)
			die(1, "out of memory");
	for (int i = 0; i < app.sessions; i++) {
		struct session *s = &ss[i];

		s->index = i;
		s->hist = xcalloc(HIST_BUCKETS, sizeof(*s->hist));
		s->slots = xcalloc((size_t)app.window, sizeof(*s->slots));
		for (int j = 0; j < app.window; j++) {
			struct slot *sl = &s->slots[j];

			sl->session = s;
			/* Distinct, non-zero seeds: a golden-ratio step per slot. */
			sl->rng = seed + 0x9E3779B97F4A7C15ULL * ((uint64_t)i * app.window + j + 1);
			if (!sl->rng)
				sl->rng = 1;
		}
	}
	return ss;
}

/* Sleeps through one phase, saying how fast it goes once a second. */
static void run_phase(struct session *ss, const char *name, double seconds, double *clock_s)
{
	int64_t end = now_ns() + (int64_t)(seconds * NSEC_PER_SEC);
	uint64_t last = total_progress(ss);

	while (now_ns() < end) {
		int64_t t0 = now_ns(), left = end - t0;
		double step = left < NSEC_PER_SEC ? (double)left / NSEC_PER_SEC : 1.0;
		uint64_t n;

		sleep_checked(step);
		n = total_progress(ss);
		*clock_s += (double)(now_ns() - t0) / NSEC_PER_SEC;
		fprintf(stderr, "zkload: %5.1f s %s: %.0f ops/s\n", *clock_s, name,
			(double)(n - last) / ((double)(now_ns() - t0) / NSEC_PER_SEC));
		last = n;
	}
}

int main(int argc, char **argv)
{
	struct session *ss;
	int64_t t_measure, elapsed;
	double clock_s = 0;

	parse_options(argc, argv);
	ss = prepare();
	fprintf(stderr,
		"zkload: %d sessions to %s, %d requests in flight each, %d-byte values, "
		"%g%% writes, %ld keys\n",
		app.sessions, app.server, app.window, app.value_bytes, app.write_fraction * 100,
		app.keys);
	connect_sessions(ss);
	create_keys(ss);

	/* The load: every slot makes requests until the stop phase. */
	atomic_store(&app.phase, PHASE_WARMUP);
	pthread_mutex_lock(&app.lock);
	app.idle = 0;
	pthread_mutex_unlock(&app.lock);
	for (int i = 0; i < app.sessions; i++)
		for (int j = 0; j < app.window; j++)
			issue(&ss[i].slots[j]);
	if (app.warmup > 0)
		run_phase(ss, "warm-up", app.warmup, &clock_s);
	atomic_store(&app.phase, PHASE_MEASURE);
	t_measure = now_ns();
	run_phase(ss, "measuring", app.duration - app.warmup, &clock_s);
	atomic_store(&app.phase, PHASE_STOP);
	elapsed = now_ns() - t_measure;

	/* Wait for the requests in flight, so that the counters are final. */
	pthread_mutex_lock(&app.lock);
	if (!wait_locked(all_idle, now_ns() + (int64_t)(DRAIN_TIMEOUT_S * NSEC_PER_SEC))) {
		pthread_mutex_unlock(&app.lock);
		die(1,
		    "requests still in flight %g s after the end (the server stopped "
		    "answering?)",
		    DRAIN_TIMEOUT_S);
	}
	pthread_mutex_unlock(&app.lock);
	for (int i = 0; i < app.sessions; i++)
		zookeeper_close(ss[i].zh);
	print_results(ss, elapsed);

	for (int i = 0; i < app.sessions; i++) {
		free(ss[i].slots);
		free(ss[i].hist);
	}
	for (long k = 0; k < app.keys; k++)
		free(app.paths[k]);
	free(app.paths);
	free(app.value);
	free(ss);
	return 0;
}
