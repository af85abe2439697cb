/* SPDX-License-Identifier: MIT */
/*
 * syncthreads: --threads N writer threads (default 4), named writer-0,
 * writer-1, ..., each appending items to a file of its own and making every
 * item durable before the next: a per-connection or per-partition log. An item
 * is --work-us of CPU work (preparing it), then append_item: a buffered write
 * of --item-bytes to the page cache, then fdatasync (fsync with --fsync),
 * which writes the item's page and the file's grown size out and flushes the
 * disk's write cache, and returns once the disk has done all of it.
 *
 * Known answer: the writers (syncthreads/writer-#, one vertex) and the disk
 * form the knot. A writer waits for the disk in every fdatasync, and the disk
 * waits for the writers: it has nothing to do but what they issue, and the
 * cache flush that each sync ends with makes the writes of the others wait for
 * it. The throughput is bounded by the disk's latency for a write and a flush.
 *
 * The point of the program is the disk's busy time: every sync's flush is a
 * request of its own (issued at no sector, completed with no bytes), so a
 * model that pairs requests by sector keeps the disk busy to the end of the
 * recording. Read /sys/block/DEV/stat (field 10, io_ticks) around a run to
 * have the kernel's own count of the disk's busy time.
 *
 * On 2 cores: the writers use a few percent of a CPU each; they spend their
 * time waiting for the disk.
 */
#include <getopt.h>
#include <stdatomic.h>

#include "synth.h"
#include "synth_file.h"

#define MAX_THREADS 64

struct app {
	/* options */
	int nthreads;
	int64_t work_ns;
	size_t item_bytes;
	bool full_fsync;
	/* state */
	char *item;
	int fds[MAX_THREADS]; /* writer i's file */
	char paths[MAX_THREADS][4096];
	pthread_barrier_t start;
	atomic_bool stop;
	atomic_uint_fast64_t items; /* made durable */
};

/* Not inlined, and not static, so that recorded stacks show them. */
__attribute__((noinline)) void prepare_item(int64_t ns)
{
	synth_work_ns(ns);
}

/* Where a writer waits for the disk: the write, then the sync. */
__attribute__((noinline)) void append_item(int fd, const char *item, size_t len, bool full_fsync)
{
	synth_file_write(fd, item, len, false, false);
	synth_file_sync(fd, full_fsync);
}

static void *writer_main(void *arg)
{
	struct synth_worker *w = arg;
	struct app *app = w->app;

	synth_thread_begin(w->name, &app->start);
	while (!atomic_load(&app->stop)) {
		prepare_item(app->work_ns);
		append_item(app->fds[w->index], app->item, app->item_bytes, app->full_fsync);
		atomic_fetch_add(&app->items, 1);
	}
	return NULL;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --threads N         writer threads, each with its own file (default 4)\n"
    "      --work-us US        CPU work per item before it is written (default 50)\n"
    "      --item-bytes N      bytes appended per item (default 4096)\n"
    "      --dir DIR           where the files are made (default .): a disk, not\n"
    "                          a memory file system\n"
    "      --fsync             fsync instead of fdatasync\n"
    "      --keep-files        do not remove the files at exit\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum { OPT_THREADS = 256, OPT_WORK_US, OPT_ITEM_BYTES, OPT_DIR, OPT_FSYNC, OPT_KEEP };
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"work-us", required_argument, NULL, OPT_WORK_US},
	    {"item-bytes", required_argument, NULL, OPT_ITEM_BYTES},
	    {"dir", required_argument, NULL, OPT_DIR},
	    {"fsync", no_argument, NULL, OPT_FSYNC},
	    {"keep-files", no_argument, NULL, OPT_KEEP},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct app app; /* zeroed */
	struct synth_worker w[MAX_THREADS];
	double duration = 5, work_us = 50;
	const char *dir = ".";
	bool keep = false;
	struct synth_window win;
	int c;

	app.nthreads = 4;
	app.item_bytes = 4096;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_THREADS:
			app.nthreads = synth_opt_long("--threads", optarg, 1, MAX_THREADS);
			break;
		case OPT_WORK_US:
			work_us = synth_opt_double("--work-us", optarg, 0, 1e6);
			break;
		case OPT_ITEM_BYTES:
			app.item_bytes = synth_opt_long("--item-bytes", optarg, 1, 1 << 26);
			break;
		case OPT_DIR:
			dir = optarg;
			break;
		case OPT_FSYNC:
			app.full_fsync = true;
			break;
		case OPT_KEEP:
			keep = true;
			break;
		}
	}
	app.work_ns = work_us * SYNTH_NSEC_PER_USEC;
	app.item = synth_file_buffer(app.item_bytes);
	for (int i = 0; i < app.nthreads; i++) {
		synth_file_path(app.paths[i], sizeof(app.paths[i]), dir, "syncthreads", i);
		app.fds[i] = synth_file_create(app.paths[i], 0);
	}

	synth_signals_init();
	pthread_barrier_init(&app.start, NULL, app.nthreads + 1);
	synth_start_workers(w, app.nthreads, writer_main, &app, "writer-", 0);

	win = synth_measure(&app.start, duration, &app.items);
	atomic_store(&app.stop, true);
	synth_join_workers(w, app.nthreads);
	for (int i = 0; i < app.nthreads; i++)
		synth_file_close(app.fds[i], app.paths[i], keep);
	synth_say_stopped(win.sig);
	free(app.item);
	synth_report("items", win.count, win.elapsed_ns, "items/s");
	return 0;
}
