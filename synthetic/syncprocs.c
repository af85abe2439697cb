/* SPDX-License-Identifier: MIT */
/*
 * syncprocs: --procs N processes (default 3), each named "appender", that
 * share one log file: each appends an item of --item-bytes with O_APPEND and
 * fsyncs the file (fdatasync with --fdatasync) before the next, as the worker
 * processes of a pre-forked server writing one journal. The main process
 * ("syncprocs") only starts them, waits for the run time and counts their
 * items, which they add up in a shared counter.
 *
 * Known answer: the appenders (one vertex, "appender": the processes' main
 * threads share the name) and the disk form the knot. Each fsync waits for
 * the disk to write the item, the file's new size and a cache flush; the
 * appenders also wait for each other: the file's lock serializes their
 * appends and its writeback their syncs. The disk has nothing to do but what
 * they issue. The main process sleeps and stays out.
 *
 * On 2 cores: the appenders use a few percent of a CPU each.
 */
#include <getopt.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "synth.h"
#include "synth_file.h"

#define MAX_PROCS 64

/* What the processes share: in a shared mapping. */
struct shared {
	atomic_uint_fast64_t items; /* made durable */
	atomic_bool go, stop;
};

/* Not inlined, and not static, so that recorded stacks show it: where an
 * appender waits for the disk (and for the others, on the file). */
__attribute__((noinline)) void append_item(int fd, const char *item, size_t len, bool full_fsync)
{
	synth_file_write(fd, item, len, false, false);
	synth_file_sync(fd, full_fsync);
}

/* An appender's life, in its own process: wait for the start, append until told to stop. */
static void appender(struct shared *sh, int fd, size_t item_bytes, bool full_fsync)
{
	char *item = synth_file_buffer(item_bytes);

	prctl(PR_SET_NAME, "appender");
	printf("thread appender tid %d\n", (int)getpid());
	fflush(stdout);
	while (!atomic_load(&sh->go) && !atomic_load(&sh->stop))
		synth_sleep_ns(SYNTH_NSEC_PER_MSEC);
	while (!atomic_load(&sh->stop)) {
		append_item(fd, item, item_bytes, full_fsync);
		atomic_fetch_add(&sh->items, 1);
	}
	free(item);
	_exit(0);
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --procs N           appender processes (default 3)\n"
    "      --item-bytes N      bytes appended per item (default 4096)\n"
    "      --dir DIR           where the log file is made (default .): a disk, not\n"
    "                          a memory file system\n"
    "      --fdatasync         fdatasync instead of fsync\n"
    "      --keep-file         do not remove the file at exit\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum { OPT_PROCS = 256, OPT_ITEM_BYTES, OPT_DIR, OPT_FDATASYNC, OPT_KEEP };
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"procs", required_argument, NULL, OPT_PROCS},
	    {"item-bytes", required_argument, NULL, OPT_ITEM_BYTES},
	    {"dir", required_argument, NULL, OPT_DIR},
	    {"fdatasync", no_argument, NULL, OPT_FDATASYNC},
	    {"keep-file", no_argument, NULL, OPT_KEEP},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	double duration = 5;
	long long nprocs = 3, item_bytes = 4096;
	const char *dir = ".";
	bool keep = false, full_fsync = true;
	char path[4096];
	pid_t pids[MAX_PROCS];
	struct shared *sh;
	int64_t t0;
	uint64_t items;
	int c, fd, sig;

	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_PROCS:
			nprocs = synth_opt_long("--procs", optarg, 1, MAX_PROCS);
			break;
		case OPT_ITEM_BYTES:
			item_bytes = synth_opt_long("--item-bytes", optarg, 1, 1 << 26);
			break;
		case OPT_DIR:
			dir = optarg;
			break;
		case OPT_FDATASYNC:
			full_fsync = false;
			break;
		case OPT_KEEP:
			keep = true;
			break;
		}
	}
	synth_file_path(path, sizeof(path), dir, "syncprocs", 0);
	fd = synth_file_create(path, O_APPEND);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		synth_die(1, "mmap: %s", strerror(errno));
	fflush(stdout); /* the children must not print what main buffered */
	for (int i = 0; i < nprocs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			synth_die(1, "fork: %s", strerror(errno));
		if (pids[i] == 0)
			appender(sh, fd, (size_t)item_bytes, full_fsync);
	}

	/* The children do not inherit the mask: they stop on the shared flag. */
	synth_signals_init();
	atomic_store(&sh->go, true);
	t0 = synth_now_ns();
	sig = synth_wait(duration);
	items = atomic_load(&sh->items);
	t0 = synth_now_ns() - t0;
	atomic_store(&sh->stop, true);
	for (int i = 0; i < nprocs; i++)
		waitpid(pids[i], NULL, 0);
	synth_say_stopped(sig);
	synth_file_close(fd, path, keep);
	synth_report("items", items, t0, "items/s");
	return 0;
}
