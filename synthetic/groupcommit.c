/* SPDX-License-Identifier: MIT */
/*
 * groupcommit: a write-ahead log with group commit, as databases and
 * ZooKeeper's SyncThread keep one. --writers N threads (default 4), named
 * writer-0, writer-1, ..., each prepare a record (--work-us of CPU), append it
 * to the log (a buffered write, under the log's mutex) and wait until it is
 * durable. One "syncer" thread makes the log durable a group at a time: it
 * takes every record appended so far, sync_log writes them out and waits for
 * them (sync_file_range), then fdatasync writes the file's new size and
 * flushes the disk's cache (with --no-range, fdatasync alone does all), and
 * it wakes the writers whose records the group held.
 *
 * Known answer: the syncer and the disk form the knot: the syncer waits for
 * the disk in every group, and the disk has nothing to do but the syncer's
 * writes and flush. The writers wait for the syncer (their records are made
 * durable by it): they wait on the knot, outside it. The bigger the groups,
 * the more records per flush: the throughput is bounded by the disk's latency
 * for a write and a flush, times the group size.
 *
 * On 2 cores: the writers use a few percent of a CPU each, the syncer less.
 */
#define _FILE_OFFSET_BITS 64
#include <fcntl.h>
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_file.h"

#define MAX_WRITERS 64

struct app {
	/* options */
	int nwriters;
	int64_t work_ns;
	size_t record_bytes;
	bool range;
	/* state */
	int fd;
	char *record;
	pthread_mutex_t lock;
	pthread_cond_t appended_cv, durable_cv;
	uint64_t appended, durable; /* bytes of the log: written, made durable */
	bool stop;
	pthread_barrier_t start;
	atomic_uint_fast64_t records; /* made durable */
};

/* Not inlined, and not static, so that recorded stacks show them. */
__attribute__((noinline)) void prepare_record(int64_t ns)
{
	synth_work_ns(ns);
}

/* A writer's append and its wait for the group that makes it durable. False
 * once the log is stopped. */
__attribute__((noinline)) bool commit_record(struct app *app)
{
	uint64_t end;
	bool ok;

	pthread_mutex_lock(&app->lock);
	synth_file_write(app->fd, app->record, app->record_bytes, false, false);
	end = app->appended += app->record_bytes;
	pthread_cond_signal(&app->appended_cv);
	while (app->durable < end && !app->stop)
		pthread_cond_wait(&app->durable_cv, &app->lock);
	ok = !app->stop;
	pthread_mutex_unlock(&app->lock);
	return ok;
}

/* The syncer's work for a group: the log's bytes [from, to) made durable. */
__attribute__((noinline)) void sync_log(int fd, uint64_t from, uint64_t to, bool range)
{
	if (range && sync_file_range(fd, (off_t)from, (off_t)(to - from),
				     SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
					 SYNC_FILE_RANGE_WAIT_AFTER) < 0)
		synth_die(1, "sync_file_range: %s", strerror(errno));
	synth_file_sync(fd, false);
}

static void *writer_main(void *arg)
{
	struct synth_worker *w = arg;
	struct app *app = w->app;

	synth_thread_begin(w->name, &app->start);
	for (;;) {
		prepare_record(app->work_ns);
		if (!commit_record(app))
			break;
		atomic_fetch_add(&app->records, 1);
	}
	return NULL;
}

static void *syncer_main(void *arg)
{
	struct app *app = arg;
	uint64_t from, to;

	synth_thread_begin("syncer", &app->start);
	pthread_mutex_lock(&app->lock);
	for (;;) {
		while (app->appended == app->durable && !app->stop)
			pthread_cond_wait(&app->appended_cv, &app->lock);
		if (app->stop)
			break;
		from = app->durable;
		to = app->appended;
		pthread_mutex_unlock(&app->lock);
		sync_log(app->fd, from, to, app->range);
		pthread_mutex_lock(&app->lock);
		app->durable = to;
		pthread_cond_broadcast(&app->durable_cv);
	}
	pthread_mutex_unlock(&app->lock);
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --writers N         threads that append records (default 4)\n"
    "      --work-us US        CPU work per record before it is appended (default 50)\n"
    "      --record-bytes N    bytes per record (default 512)\n"
    "      --dir DIR           where the log is made (default .): a disk, not a\n"
    "                          memory file system\n"
    "      --no-range          the syncer calls fdatasync alone, no sync_file_range\n"
    "      --keep-file         do not remove the log at exit\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum { OPT_WRITERS = 256, OPT_WORK_US, OPT_RECORD_BYTES, OPT_DIR, OPT_NO_RANGE, OPT_KEEP };
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"writers", required_argument, NULL, OPT_WRITERS},
	    {"work-us", required_argument, NULL, OPT_WORK_US},
	    {"record-bytes", required_argument, NULL, OPT_RECORD_BYTES},
	    {"dir", required_argument, NULL, OPT_DIR},
	    {"no-range", no_argument, NULL, OPT_NO_RANGE},
	    {"keep-file", no_argument, NULL, OPT_KEEP},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct app app; /* zeroed */
	struct synth_worker w[MAX_WRITERS];
	double duration = 5, work_us = 50;
	const char *dir = ".";
	char path[4096];
	bool keep = false;
	struct synth_window win;
	pthread_t syncer;
	int c;

	app.nwriters = 4;
	app.record_bytes = 512;
	app.range = true;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_WRITERS:
			app.nwriters = synth_opt_long("--writers", optarg, 1, MAX_WRITERS);
			break;
		case OPT_WORK_US:
			work_us = synth_opt_double("--work-us", optarg, 0, 1e6);
			break;
		case OPT_RECORD_BYTES:
			app.record_bytes = synth_opt_long("--record-bytes", optarg, 1, 1 << 26);
			break;
		case OPT_DIR:
			dir = optarg;
			break;
		case OPT_NO_RANGE:
			app.range = false;
			break;
		case OPT_KEEP:
			keep = true;
			break;
		}
	}
	app.work_ns = work_us * SYNTH_NSEC_PER_USEC;
	app.record = synth_file_buffer(app.record_bytes);
	synth_file_path(path, sizeof(path), dir, "groupcommit", 0);
	app.fd = synth_file_create(path, 0);

	synth_signals_init();
	pthread_mutex_init(&app.lock, NULL);
	pthread_cond_init(&app.appended_cv, NULL);
	pthread_cond_init(&app.durable_cv, NULL);
	pthread_barrier_init(&app.start, NULL, app.nwriters + 2);
	synth_thread_create(&syncer, syncer_main, &app);
	synth_start_workers(w, app.nwriters, writer_main, &app, "writer-", 0);

	win = synth_measure(&app.start, duration, &app.records);
	pthread_mutex_lock(&app.lock);
	app.stop = true;
	pthread_cond_broadcast(&app.appended_cv);
	pthread_cond_broadcast(&app.durable_cv);
	pthread_mutex_unlock(&app.lock);
	synth_join_workers(w, app.nwriters);
	pthread_join(syncer, NULL);
	synth_say_stopped(win.sig);
	synth_file_close(app.fd, path, keep);
	free(app.record);
	printf("groups: %llu bytes made durable\n", (unsigned long long)app.durable);
	synth_report("records", win.count, win.elapsed_ns, "records/s");
	return 0;
}
