/* SPDX-License-Identifier: MIT */
/*
 * serial: GAPP's Bodytrack (ICPE'20, section 5.2, Figure 3). A parent thread
 * commands a pool of worker threads frame after frame; between two frames it
 * writes the frame's output itself (OutputBMP in Bodytrack), while the workers
 * wait on a condition variable for its next command (RecvCmd).
 *
 * Here the main thread, for every frame: send_cmd wakes the --workers workers
 * (a condition variable); they share the frame's --frame-ms of CPU work in
 * --chunks chunks taken from a ticket dispenser (process_chunk, as Bodytrack's
 * workers do), and wait_workers waits until every chunk is done. Then
 * serial_output formats the frame's output: --serial-ms of CPU work on the main
 * thread alone, while the workers wait in recv_cmd for the next command.
 *
 * Known answer: the main thread (identity "serial", the process's own name)
 * and the workers ("serial/worker-#", merged) wait for each other: the workers
 * for main's serial output and next command, main for the workers' frame. The
 * knot is {serial, serial/worker-#}; nothing else is in it. A frame takes
 * frame / workers + serial: 3 + 2 ms, 200 frames/s (about 193 measured).
 * GAPP's CMetric ranks the main thread first: its serial_output slices run
 * while no other thread of the process can.
 *
 * --fixed: double buffering, the fix GAPP applied (it moved OutputBMP to a
 * writer thread): main sends the command for frame i + 1 before writing frame
 * i's output, so the workers compute the next frame while main formats the
 * previous one. A frame then costs the CPU work over the CPUs,
 * (frame + serial) / 2 = 4 ms: 250 frames/s, 1.25x (about 236 measured).
 *
 * On 2 cores: the two workers use both CPUs while they work on a frame and only
 * main runs during its output, so the base version never has more runnable
 * threads than CPUs (the paper's assumption of enough cores). The workers are
 * pinned, worker i to CPU i (--no-pin: not), because the scheduler otherwise
 * now and then wakes both on one CPU and leaves the other idle for a tick,
 * which made the throughput vary by 25% from run to run. The fixed version runs
 * three threads on 2 CPUs: main gets half of a CPU while the workers have
 * chunks left, so it only keeps up when serial <= frame / 3, which the
 * defaults are on the edge of; the gain of the fix is bounded by that, not by
 * the knot.
 */
#include <getopt.h>

#include "synth.h"

struct app {
	/* options */
	int64_t chunk_ns, serial_ns;
	long nworkers, nchunks;
	bool fixed, pin;
	int ncpu;
	/* the command channel between main and the workers */
	pthread_mutex_t lock;
	pthread_cond_t cmd;  /* main -> workers: a new frame (or stop) */
	pthread_cond_t done; /* workers -> main: every chunk of the frame is done */
	uint64_t frame;	     /* the frame last commanded */
	long next_chunk;     /* the ticket dispenser: the next chunk of it to take */
	long chunks_done;    /* chunks of it finished */
	bool stop;
	pthread_barrier_t start;
	/* the frames' results, two buffers for --fixed */
	uint64_t result[2];
};

/* Not inlined, and not static, so that recorded stacks show them. */

/* A chunk of a frame's parallel work. */
__attribute__((noinline)) void process_chunk(int64_t ns)
{
	synth_work_ns(ns);
}

/*
 * The serial part: main formats and writes the frame's output (OutputBMP in
 * Bodytrack). CPU work that no other thread can do meanwhile.
 */
__attribute__((noinline)) void serial_output(int64_t ns, uint64_t result)
{
	uint64_t r = result;

	synth_work_ns(ns);
	__asm__ __volatile__("" : "+r"(r));
}

/*
 * RecvCmd: a worker waits for a command newer than *seen. False when told to
 * stop.
 */
__attribute__((noinline)) bool recv_cmd(struct app *app, uint64_t *seen)
{
	bool ok;

	pthread_mutex_lock(&app->lock);
	while (app->frame == *seen && !app->stop)
		pthread_cond_wait(&app->cmd, &app->lock);
	ok = !app->stop;
	*seen = app->frame;
	pthread_mutex_unlock(&app->lock);
	return ok;
}

/* The ticket dispenser: a chunk of frame to work on, or false when none is left. */
static bool take_chunk(struct app *app, uint64_t frame)
{
	bool ok;

	pthread_mutex_lock(&app->lock);
	ok = app->frame == frame && app->next_chunk < app->nchunks && !app->stop;
	if (ok)
		app->next_chunk++;
	pthread_mutex_unlock(&app->lock);
	return ok;
}

/* A worker reports a chunk done; the one that finishes the frame wakes main. */
static void chunk_done(struct app *app, uint64_t frame)
{
	pthread_mutex_lock(&app->lock);
	app->result[frame % 2] += frame;
	if (++app->chunks_done == app->nchunks)
		pthread_cond_signal(&app->done);
	pthread_mutex_unlock(&app->lock);
}

/* Main commands the next frame. */
__attribute__((noinline)) void send_cmd(struct app *app)
{
	pthread_mutex_lock(&app->lock);
	app->frame++;
	app->next_chunk = app->chunks_done = 0;
	app->result[app->frame % 2] = 0;
	pthread_cond_broadcast(&app->cmd);
	pthread_mutex_unlock(&app->lock);
}

/* Main waits until every chunk of the frame commanded last is done. */
__attribute__((noinline)) uint64_t wait_workers(struct app *app)
{
	uint64_t result;

	pthread_mutex_lock(&app->lock);
	while (app->chunks_done < app->nchunks)
		pthread_cond_wait(&app->done, &app->lock);
	result = app->result[app->frame % 2];
	pthread_mutex_unlock(&app->lock);
	return result;
}

static void *worker_main(void *arg)
{
	struct synth_worker *w = arg;
	struct app *app = w->app;
	uint64_t seen = 0;

	synth_name_thread(w->name);
	if (app->pin)
		synth_pin_cpu(w->index % app->ncpu);
	pthread_barrier_wait(&app->start);
	while (recv_cmd(app, &seen)) {
		while (take_chunk(app, seen)) {
			process_chunk(app->chunk_ns);
			chunk_done(app, seen);
		}
	}
	return NULL;
}

/* SIGINT or SIGTERM pending? main polls between frames (synth_wait would sleep). */
static int stop_signal(void)
{
	struct timespec zero = {0, 0};
	sigset_t set;
	int sig;

	synth_stop_signals(&set);
	sig = sigtimedwait(&set, NULL, &zero);
	return sig == SIGINT || sig == SIGTERM ? sig : 0;
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S        run for S seconds (default 5)\n"
    "      --workers N         worker threads (default 2)\n"
    "      --frame-ms MS       the frame's parallel CPU work, all workers together\n"
    "                          (default 6)\n"
    "      --chunks N          chunks the workers share it in (default 12)\n"
    "      --serial-ms MS      main's serial output per frame (default 2)\n"
    "      --no-pin            do not pin worker i to CPU i (modulo the CPUs)\n"
    "      --fixed             double buffering: the workers compute the next frame\n"
    "                          while main writes the output of this one\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum {
		OPT_WORKERS = 256,
		OPT_FRAME_MS,
		OPT_CHUNKS,
		OPT_SERIAL_MS,
		OPT_FIXED,
		OPT_NO_PIN,
	};
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"workers", required_argument, NULL, OPT_WORKERS},
	    {"frame-ms", required_argument, NULL, OPT_FRAME_MS},
	    {"chunks", required_argument, NULL, OPT_CHUNKS},
	    {"serial-ms", required_argument, NULL, OPT_SERIAL_MS},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"no-pin", no_argument, NULL, OPT_NO_PIN},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct app app; /* zeroed */
	double duration = 5, frame_ms = 6, serial_ms = 2;
	struct synth_worker *workers;
	int64_t t_start, t_end, deadline;
	uint64_t frames = 0, result;
	int c, sig = 0;

	app.nworkers = 2;
	app.nchunks = 12;
	app.pin = true;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_WORKERS:
			app.nworkers = synth_opt_long("--workers", optarg, 1, 1024);
			break;
		case OPT_FRAME_MS:
			frame_ms = synth_opt_double("--frame-ms", optarg, 0, 1e6);
			break;
		case OPT_CHUNKS:
			app.nchunks = synth_opt_long("--chunks", optarg, 1, 1 << 20);
			break;
		case OPT_SERIAL_MS:
			serial_ms = synth_opt_double("--serial-ms", optarg, 0, 1e6);
			break;
		case OPT_FIXED:
			app.fixed = true;
			break;
		case OPT_NO_PIN:
			app.pin = false;
			break;
		}
	}
	app.ncpu = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	app.chunk_ns = frame_ms * SYNTH_NSEC_PER_MSEC / app.nchunks;
	app.serial_ns = serial_ms * SYNTH_NSEC_PER_MSEC;

	synth_signals_init();
	pthread_mutex_init(&app.lock, NULL);
	pthread_cond_init(&app.cmd, NULL);
	pthread_cond_init(&app.done, NULL);
	pthread_barrier_init(&app.start, NULL, app.nworkers + 1);
	workers = synth_calloc(app.nworkers, sizeof(*workers));
	synth_start_workers(workers, app.nworkers, worker_main, &app, "worker-", 0);
	pthread_barrier_wait(&app.start);
	t_start = synth_now_ns();
	deadline = t_start + (int64_t)(duration * SYNTH_NSEC_PER_SEC);

	/*
	 * The main loop is the parent thread of Bodytrack: it does the serial
	 * work itself, so it checks the time (and the stop signals) between
	 * frames instead of sleeping in synth_wait.
	 */
	if (!app.fixed) {
		while (synth_now_ns() < deadline && !(sig = stop_signal())) {
			send_cmd(&app);
			result = wait_workers(&app);
			serial_output(app.serial_ns, result);
			frames++;
		}
	} else {
		send_cmd(&app);
		while (synth_now_ns() < deadline && !(sig = stop_signal())) {
			result = wait_workers(&app);
			send_cmd(&app); /* the next frame, into the other buffer */
			serial_output(app.serial_ns, result);
			frames++;
		}
		wait_workers(&app); /* the frame commanded last, not counted */
	}
	t_end = synth_now_ns();

	pthread_mutex_lock(&app.lock);
	app.stop = true;
	pthread_cond_broadcast(&app.cmd);
	pthread_mutex_unlock(&app.lock);
	synth_join_workers(workers, app.nworkers);
	synth_say_stopped(sig);

	free(workers);
	synth_report("frames", frames, t_end - t_start, "frames/s");
	return 0;
}
