/* SPDX-License-Identifier: MIT */
/*
 * sqload: concurrent writers into one SQLite database in WAL mode, on
 * libsqlite3, for the scenarios scenarios/sqlite-wal*.yaml.
 *
 * --clients threads each make a transaction's worth of rows (--rows rows of
 * --row-bytes random bytes) and hand it to the writers through a queue, then
 * wait until it is committed, over and over, for --duration seconds of which
 * the first --warmup are not measured: a closed loop, as the request
 * handlers of an application that stores what it is given and answers once
 * it is stored.
 *
 * --writers threads each take what the clients have queued (at most --batch
 * of their transactions, in order) and commit it in one transaction on a
 * connection of their own: BEGIN IMMEDIATE, the inserts, COMMIT. The
 * database is in WAL mode, where one connection at a time holds the write
 * lock (readers never block it, nor it them). A writer that finds it taken
 * gets SQLITE_BUSY, and with a busy timeout (--busy-timeout, set with
 * sqlite3_busy_timeout) SQLite's default busy handler sleeps and tries again:
 * 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, then 100 ms at a time (main.c,
 * sqliteDefaultBusyCallback, with usleep where the build has it, as
 * Debian's does) until the timeout. The writer that releases the lock wakes
 * nobody: a sleeper sees it free only when its own sleep ends, and the
 * clients whose rows it holds wait meanwhile.
 *   - --writers 4 (the default): as many writers as clients, each with its
 *     connection, the way a pool of workers each writing their own requests
 *     does. Idle writers take each transaction as soon as it is queued.
 *   - --writers 1 (the fix): one writer, so that it never finds the write
 *     lock taken and never sleeps in the busy handler; it commits together
 *     the rows of every client queued while it was committing the last.
 *   - --writers 0: no queue, every client writes its rows itself on its own
 *     connection.
 *
 * Counting: rows count in the measured window when their transaction's
 * COMMIT returns in it. Latency is a client transaction's, from its hand-off
 * (or its BEGIN) to the end of the COMMIT that holds it. Lock time is the
 * time the writers spent in BEGIN IMMEDIATE (their busy handler's sleeps,
 * nearly all of it) in the measured window, as a share of their time.
 *
 * Set-up: the database file (--db) is made anew: removed with its -wal and
 * -shm files, then journal_mode=WAL and the table. --synchronous sets the
 * connections' PRAGMA synchronous (default: SQLite's, FULL in Debian's
 * build, also in WAL mode: the WAL is fsynced at every commit).
 *
 * Output: progress on stderr, once a second; at the end on stdout
 *   throughput: N rows/s                    (the line scenarios parse)
 *   transactions: N of R rows, latency p50 N us, p90 N us, p99 N us, max N us
 *   commits: N, R rows each
 *   lock waits: N s in BEGIN IMMEDIATE, X% of the writers' time
 *
 * Errors: any SQLite error other than SQLITE_BUSY handled by the busy
 * handler (a busy timeout that runs out included) ends the program with a
 * message on stderr and exit status 1 (2 for a usage error). SIGINT or
 * SIGTERM end it early: what was measured is printed, and the exit status
 * is 1.
 */
#include <errno.h>
#include <getopt.h>
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
#include <unistd.h>

#include <sqlite3.h>

#define LOADGEN_NAME "sqload"
#include "loadgen.h"

#define MAX_ROW_BYTES (1024 * 1024)

/* A client's transaction: its rows, and whether a writer has committed them. */
struct txn {
	int client;
	int64_t first_row;	  /* the row number of the first row */
	unsigned char *payload;	  /* rows * row_bytes */
	bool done;		  /* under app.lock */
	pthread_cond_t committed; /* done is true */
	struct txn *next;	  /* in the queue */
};

/* A connection of its own, with the statements of a transaction. */
struct conn {
	sqlite3 *db;
	sqlite3_stmt *begin, *insert, *commit;
};

struct client {
	pthread_t thread;
	int index;
	uint64_t rng;
	struct txn txn;
	struct conn conn; /* --writers 0: it writes its rows itself */
	/* measured window only; written by the thread, read by main after joining */
	uint64_t txns, rows, max_us;
	int64_t lock_ns; /* --writers 0: in BEGIN IMMEDIATE */
	uint64_t *hist;
	atomic_uint_fast64_t progress; /* rows committed, for the progress lines */
};

struct writer {
	pthread_t thread;
	int index;
	struct conn conn;
	int64_t lock_ns;  /* in BEGIN IMMEDIATE, in the measured window */
	uint64_t commits; /* in the measured window */
};

static struct {
	const char *db_path;
	int clients, writers, rows, batch;
	long row_bytes, work;
	int busy_timeout_ms;
	const char *synchronous;
	double duration, warmup;

	int64_t start_ns, measure_ns, end_ns;
	atomic_bool stop;
	struct client *clients_v;
	struct writer *writers_v;

	/* the queue of transactions from the clients to the writers */
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	struct txn *head, **tail;

	pthread_mutex_t error_lock;
	char error[512];
} app = {
    .clients = 4,
    .writers = 4,
    .rows = 10,
    .batch = 64,
    .row_bytes = 200,
    .busy_timeout_ms = 10000,
    .duration = 30,
    .warmup = 5,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .nonempty = PTHREAD_COND_INITIALIZER,
    .error_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Wakes every thread that waits in the queue, to see app.stop. */
static void wake_all(void)
{
	pthread_mutex_lock(&app.lock);
	pthread_cond_broadcast(&app.nonempty);
	for (int i = 0; app.clients_v && i < app.clients; i++)
		pthread_cond_signal(&app.clients_v[i].txn.committed);
	pthread_mutex_unlock(&app.lock);
}

/*
 * In main: die() (loadgen.h). In a thread: keep the first error, tell everyone
 * to stop; main prints it and exits.
 */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&app.error_lock);
	if (!app.error[0]) {
		va_start(ap, fmt);
		vsnprintf(app.error, sizeof(app.error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&app.error_lock);
	atomic_store(&app.stop, true);
	wake_all();
}

/* ---- the database ---- */

static void exec_or_die(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		die(1, "%s: %s", sql, msg ? msg : sqlite3_errmsg(db));
}

/* c: a connection with the busy timeout and the statements of a transaction. */
static void open_conn(struct conn *c)
{
	char sql[64];

	if (sqlite3_open_v2(app.db_path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		die(1, "%s: %s", app.db_path, c->db ? sqlite3_errmsg(c->db) : "out of memory");
	sqlite3_busy_timeout(c->db, app.busy_timeout_ms);
	if (app.synchronous) {
		snprintf(sql, sizeof(sql), "PRAGMA synchronous=%s", app.synchronous);
		exec_or_die(c->db, sql);
	}
	if (sqlite3_prepare_v2(c->db, "BEGIN IMMEDIATE", -1, &c->begin, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "INSERT INTO rows(n, client, payload) VALUES (?, ?, ?)", -1,
			       &c->insert, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "COMMIT", -1, &c->commit, NULL) != SQLITE_OK)
		die(1, "prepare: %s", sqlite3_errmsg(c->db));
}

static void close_conn(struct conn *c)
{
	if (!c->db)
		return;
	sqlite3_finalize(c->begin);
	sqlite3_finalize(c->insert);
	sqlite3_finalize(c->commit);
	sqlite3_close(c->db);
}

/* The database file made anew, in WAL mode, with its table. */
static void create_db(void)
{
	static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
	char path[4096];
	sqlite3 *db = NULL;

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s%s", app.db_path, suffixes[i]) >=
		    sizeof(path))
			die(2, "--db: the path is too long");
		if (unlink(path) != 0 && errno != ENOENT)
			die(1, "%s: %s", path, strerror(errno));
	}
	if (sqlite3_open_v2(app.db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK)
		die(1, "%s: %s", app.db_path, db ? sqlite3_errmsg(db) : "out of memory");
	exec_or_die(db, "PRAGMA journal_mode=WAL");
	exec_or_die(db, "CREATE TABLE rows(id INTEGER PRIMARY KEY, n INTEGER, client INTEGER, "
			"payload BLOB)");
	sqlite3_close(db);
}

/* The part of [from, to) in the measured window, in ns. */
static int64_t in_window(int64_t from, int64_t to)
{
	if (from < app.measure_ns)
		from = app.measure_ns;
	if (to > app.end_ns)
		to = app.end_ns;
	return to > from ? to - from : 0;
}

/*
 * One transaction on connection c of the rows of n client transactions from
 * t on (t, t->next, ...): BEGIN IMMEDIATE (where the busy handler sleeps
 * while another connection holds the write lock), the inserts, COMMIT.
 * *lock_ns gets the part of BEGIN's time in the measured window. false on an
 * error (reported with fail()).
 */
static bool write_txn(struct conn *c, const struct txn *t, int n, int64_t *lock_ns)
{
	int64_t t0 = now_ns(), t1;
	int rc = sqlite3_step(c->begin);

	sqlite3_reset(c->begin);
	t1 = now_ns();
	*lock_ns = in_window(t0, t1);
	if (rc != SQLITE_DONE) {
		fail("BEGIN IMMEDIATE: %s (after %.0f ms)", sqlite3_errmsg(c->db),
		     (double)(t1 - t0) / NSEC_PER_MSEC);
		return false;
	}
	for (; n > 0; n--, t = t->next) {
		for (int r = 0; r < app.rows; r++) {
			sqlite3_bind_int64(c->insert, 1, t->first_row + r);
			sqlite3_bind_int(c->insert, 2, t->client);
			sqlite3_bind_blob(c->insert, 3,
					  t->payload + (size_t)r * (size_t)app.row_bytes,
					  (int)app.row_bytes, SQLITE_STATIC);
			rc = sqlite3_step(c->insert);
			sqlite3_reset(c->insert);
			if (rc != SQLITE_DONE) {
				fail("INSERT: %s", sqlite3_errmsg(c->db));
				return false;
			}
		}
	}
	rc = sqlite3_step(c->commit);
	sqlite3_reset(c->commit);
	if (rc != SQLITE_DONE) {
		fail("COMMIT: %s", sqlite3_errmsg(c->db));
		return false;
	}
	return true;
}

/* ---- the clients ---- */

/*
 * A transaction's rows: random bytes, new for each, each 8 bytes then mixed
 * --work more times (the application's own work on a row before it is
 * stored: an amount of computing, not of time, so that a client that is
 * preempted does no less).
 */
static void make_rows(struct client *c)
{
	uint64_t *p = (uint64_t *)c->txn.payload;
	size_t words = ((size_t)app.rows * (size_t)app.row_bytes + 7) / 8;

	for (size_t i = 0; i < words; i++) {
		uint64_t x = rng_next(&c->rng);

		for (long k = 0; k < app.work; k++) {
			x ^= x >> 33;
			x *= 0xff51afd7ed558ccdULL;
		}
		p[i] = x;
	}
	c->txn.first_row += app.rows;
}

/* Hands t to the writers and waits until one has committed it. */
static bool hand_over(struct txn *t)
{
	bool ok;

	pthread_mutex_lock(&app.lock);
	t->done = false;
	t->next = NULL;
	*app.tail = t;
	app.tail = &t->next;
	pthread_cond_signal(&app.nonempty);
	while (!t->done && !atomic_load(&app.stop))
		pthread_cond_wait(&t->committed, &app.lock);
	ok = t->done;
	pthread_mutex_unlock(&app.lock);
	return ok;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	char name[16];

	snprintf(name, sizeof(name), "client-%d", c->index);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&app.stop)) {
		int64_t t0, t1, lock_ns = 0;

		make_rows(c);
		t0 = now_ns();
		if (app.writers > 0) {
			if (!hand_over(&c->txn))
				break;
		} else if (!write_txn(&c->conn, &c->txn, 1, &lock_ns)) {
			break;
		}
		t1 = now_ns();
		c->lock_ns += lock_ns;
		if (t1 >= app.end_ns)
			break;
		atomic_fetch_add(&c->progress, (uint64_t)app.rows);
		if (t1 >= app.measure_ns) {
			uint64_t us = (uint64_t)(t1 - t0) / NSEC_PER_USEC;

			c->txns++;
			c->rows += (uint64_t)app.rows;
			hist_add(c->hist, &c->max_us, us);
		}
	}
	return NULL;
}

/* ---- the writers ---- */

/*
 * Takes what the clients have queued (at most --batch of their transactions,
 * in order), commits it in one transaction on the writer's own connection,
 * tells the clients, and again.
 */
static void *writer_main(void *arg)
{
	struct writer *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "writer-%d", w->index);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&app.lock);
	while (!atomic_load(&app.stop)) {
		struct txn *first = app.head, *t;
		int64_t lock_ns;
		int n = 0;
		bool ok;

		if (!first) {
			pthread_cond_wait(&app.nonempty, &app.lock);
			continue;
		}
		for (t = first; t && n < app.batch; t = t->next)
			n++;
		app.head = t;
		if (!app.head)
			app.tail = &app.head;
		pthread_mutex_unlock(&app.lock);
		ok = write_txn(&w->conn, first, n, &lock_ns);
		w->lock_ns += lock_ns;
		if (ok) {
			int64_t end = now_ns();

			w->commits += end >= app.measure_ns && end < app.end_ns;
		}
		pthread_mutex_lock(&app.lock);
		if (!ok)
			break;
		for (t = first; n > 0; n--) {
			struct txn *next = t->next;

			t->done = true;
			pthread_cond_signal(&t->committed);
			t = next;
		}
	}
	pthread_mutex_unlock(&app.lock);
	return NULL;
}

/* ---- the load ---- */

static uint64_t progress_total(void)
{
	uint64_t total = 0;

	for (int i = 0; i < app.clients; i++)
		total += atomic_load(&app.clients_v[i].progress);
	return total;
}

/* ---- options ---- */

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: sqload --db PATH [options]\n"
	    "  --db PATH              the database, made anew (with its -wal and -shm files)\n"
	    "  --clients N            client threads, each a transaction at a time (default 4)\n"
	    "  --writers N            writer threads the clients hand their rows to, each\n"
	    "                         with a connection of its own (default 4); 0: every\n"
	    "                         client writes its rows itself, on its own connection\n"
	    "  --rows N               rows per client transaction (default 10)\n"
	    "  --batch N              a writer commits at most N client transactions\n"
	    "                         together, of those queued (default 64)\n"
	    "  --row-bytes N          bytes of a row's payload (default 200)\n"
	    "  --work N               rounds of mixing each 8 bytes of a row before it is\n"
	    "                         handed over, the application's work (default 0)\n"
	    "  --busy-timeout MS      sqlite3_busy_timeout of each connection (default 10000)\n"
	    "  --synchronous MODE     PRAGMA synchronous: off, normal, full, extra\n"
	    "                         (default: SQLite's, full in Debian's build)\n"
	    "  --duration SECONDS     from the end of the set-up, warm-up included (default 30)\n"
	    "  --warmup SECONDS       not measured, from the end of the set-up (default 5)\n");
}

enum {
	OPT_DB = 256,
	OPT_CLIENTS,
	OPT_WRITERS,
	OPT_ROWS,
	OPT_BATCH,
	OPT_ROW_BYTES,
	OPT_WORK,
	OPT_BUSY_TIMEOUT,
	OPT_SYNCHRONOUS,
	OPT_DURATION,
	OPT_WARMUP,
};

static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"db", required_argument, NULL, OPT_DB},
	    {"clients", required_argument, NULL, OPT_CLIENTS},
	    {"writers", required_argument, NULL, OPT_WRITERS},
	    {"rows", required_argument, NULL, OPT_ROWS},
	    {"batch", required_argument, NULL, OPT_BATCH},
	    {"row-bytes", required_argument, NULL, OPT_ROW_BYTES},
	    {"work", required_argument, NULL, OPT_WORK},
	    {"busy-timeout", required_argument, NULL, OPT_BUSY_TIMEOUT},
	    {"synchronous", required_argument, NULL, OPT_SYNCHRONOUS},
	    {"duration", required_argument, NULL, OPT_DURATION},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DB:
			app.db_path = optarg;
			break;
		case OPT_CLIENTS:
			app.clients = (int)opt_long("--clients", optarg, 1, 1024);
			break;
		case OPT_WRITERS:
			app.writers = (int)opt_long("--writers", optarg, 0, 1024);
			break;
		case OPT_ROWS:
			app.rows = (int)opt_long("--rows", optarg, 1, 100000);
			break;
		case OPT_BATCH:
			app.batch = (int)opt_long("--batch", optarg, 1, 100000);
			break;
		case OPT_ROW_BYTES:
			app.row_bytes = opt_long("--row-bytes", optarg, 1, MAX_ROW_BYTES);
			break;
		case OPT_WORK:
			app.work = opt_long("--work", optarg, 0, 1000000);
			break;
		case OPT_BUSY_TIMEOUT:
			app.busy_timeout_ms = (int)opt_long("--busy-timeout", optarg, 0, 86400000);
			break;
		case OPT_SYNCHRONOUS:
			if (strcmp(optarg, "off") && strcmp(optarg, "normal") &&
			    strcmp(optarg, "full") && strcmp(optarg, "extra"))
				die(2,
				    "--synchronous: expected off, normal, full or extra, got "
				    "\"%s\"",
				    optarg);
			app.synchronous = optarg;
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
	if (!app.db_path)
		die(2, "--db is required");
	if (app.warmup >= app.duration)
		die(2, "--warmup (%g s) must be less than --duration (%g s)", app.warmup,
		    app.duration);
}

/* ---- main ---- */

static void start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	int err = pthread_create(thread, NULL, fn, arg);

	if (err)
		die(1, "pthread_create: %s", strerror(err));
}

int main(int argc, char **argv)
{
	uint64_t txns = 0, rows = 0, commits = 0, max_us = 0, *hist;
	int64_t lock_ns = 0, stop_ns;
	int lockers;
	sigset_t sigs;
	double window;
	int sig;

	parse_options(argc, argv);

	/* SIGINT and SIGTERM are for main's sigtimedwait, in every thread. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	if (sqlite3_threadsafe() == 0)
		die(1, "this libsqlite3 is built without threads (SQLITE_THREADSAFE=0)");
	create_db();
	app.tail = &app.head;
	app.clients_v = xcalloc((size_t)app.clients, sizeof(*app.clients_v));
	for (int i = 0; i < app.clients; i++) {
		struct client *c = &app.clients_v[i];

		c->index = i;
		c->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1) ^ (uint64_t)now_ns();
		c->hist = xcalloc(HIST_BUCKETS, sizeof(*c->hist));
		c->txn.client = i;
		c->txn.first_row = (int64_t)i << 40;
		c->txn.payload = xcalloc(1, (size_t)app.rows * (size_t)app.row_bytes + 8);
		pthread_cond_init(&c->txn.committed, NULL);
		if (app.writers == 0)
			open_conn(&c->conn);
	}
	app.writers_v = xcalloc((size_t)(app.writers ? app.writers : 1), sizeof(*app.writers_v));
	for (int i = 0; i < app.writers; i++) {
		app.writers_v[i].index = i;
		open_conn(&app.writers_v[i].conn);
	}
	if (app.writers)
		fprintf(stderr,
			"sqload: %s in WAL mode, %d clients hand %d rows of %ld bytes a "
			"transaction to %d writer%s\n",
			app.db_path, app.clients, app.rows, app.row_bytes, app.writers,
			app.writers > 1 ? "s" : "");
	else
		fprintf(stderr,
			"sqload: %s in WAL mode, %d clients write %d rows of %ld bytes a "
			"transaction\n",
			app.db_path, app.clients, app.rows, app.row_bytes);

	/* The load: --duration from now, the first --warmup not measured. */
	app.start_ns = now_ns();
	app.measure_ns = app.start_ns + (int64_t)(app.warmup * NSEC_PER_SEC);
	app.end_ns = app.start_ns + (int64_t)(app.duration * NSEC_PER_SEC);
	for (int i = 0; i < app.writers; i++)
		start(&app.writers_v[i].thread, writer_main, &app.writers_v[i]);
	for (int i = 0; i < app.clients; i++)
		start(&app.clients_v[i].thread, client_main, &app.clients_v[i]);
	sig = loadgen_wait(&(struct loadgen_window){app.start_ns, app.measure_ns, app.end_ns},
			   &app.stop, progress_total, "rows");
	stop_ns = now_ns();
	atomic_store(&app.stop, true);
	wake_all();
	for (int i = 0; i < app.clients; i++)
		pthread_join(app.clients_v[i].thread, NULL);
	for (int i = 0; i < app.writers; i++)
		pthread_join(app.writers_v[i].thread, NULL);
	if (app.error[0])
		die(1, "%s", app.error);

	/* What the measured window saw, all threads together. */
	hist = xcalloc(HIST_BUCKETS, sizeof(*hist));
	for (int i = 0; i < app.clients; i++) {
		struct client *c = &app.clients_v[i];

		txns += c->txns;
		rows += c->rows;
		lock_ns += c->lock_ns;
		if (c->max_us > max_us)
			max_us = c->max_us;
		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			hist[b] += c->hist[b];
	}
	for (int i = 0; i < app.writers; i++) {
		lock_ns += app.writers_v[i].lock_ns;
		commits += app.writers_v[i].commits;
	}
	if (app.writers == 0)
		commits = txns;
	lockers = app.writers ? app.writers : app.clients;
	/* Cut short by a signal: the window is what was measured of it. */
	if (sig)
		stop_ns = stop_ns < app.end_ns ? stop_ns : app.end_ns;
	else
		stop_ns = app.end_ns;
	window = (double)(stop_ns - app.measure_ns) / NSEC_PER_SEC;
	printf("throughput: %.0f rows/s\n", window > 0 ? (double)rows / window : 0.0);
	printf("transactions: %llu of %d rows, latency p50 %llu us, p90 %llu us, p99 %llu us, "
	       "max %llu us\n",
	       (unsigned long long)txns, app.rows,
	       (unsigned long long)hist_percentile(hist, txns, 0.50),
	       (unsigned long long)hist_percentile(hist, txns, 0.90),
	       (unsigned long long)hist_percentile(hist, txns, 0.99), (unsigned long long)max_us);
	printf("commits: %llu, %.1f rows each\n", (unsigned long long)commits,
	       commits ? (double)rows / (double)commits : 0.0);
	printf("lock waits: %.2f s in BEGIN IMMEDIATE, %.1f%% of the %s' time\n",
	       (double)lock_ns / NSEC_PER_SEC,
	       window > 0 ? 100.0 * (double)lock_ns / NSEC_PER_SEC / (window * lockers) : 0.0,
	       app.writers ? "writers" : "clients");
	fflush(stdout);

	for (int i = 0; i < app.clients; i++) {
		close_conn(&app.clients_v[i].conn);
		free(app.clients_v[i].hist);
		free(app.clients_v[i].txn.payload);
	}
	for (int i = 0; i < app.writers; i++)
		close_conn(&app.writers_v[i].conn);
	free(app.clients_v);
	free(app.writers_v);
	free(hist);
	if (sig) {
		fprintf(stderr, "sqload: stopped by %s before the end\n", strsignal(sig));
		return 1;
	}
	return 0;
}
