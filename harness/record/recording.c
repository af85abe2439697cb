/* SPDX-License-Identifier: MIT */
/*
 * The recording lifecycle (recording.h).
 *
 * The order matters: the BPF programs are attached before the command starts
 * (its first events are in the trace), and detached before the writer drains
 * the last records (nothing arrives after the drain). The file is written as
 * FILE.part and renamed once complete, so FILE is never a half-written trace.
 */
#include "harness/record/recording.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "core/util/buf.h"
#include "core/trace/meta.h"
#include "core/trace/trace.h"
#include "harness/base/output.h"
#include "harness/base/spawn.h"
#include "harness/base/version.h"
#include "harness/record/bpf_recorder.h"
#include "harness/record/mmap_watch.h"
#include "harness/record/proc_counters.h"
#include "harness/record/device_irqs.h"
#include "harness/record/proc_info.h"
#include "harness/record/record_tables.h"
#include "harness/record/trace_sink.h"

#define STOP_GRACE_MS  5000
#define HOLD_TIMEOUT_S 300 /* --hold: the longest wait for the second signal */

/* Everything a recording holds, released in one place. */
struct recording {
	const struct record_opts *opts;
	struct record_opts armed;  /* --arm: the options with the arm file's */
	struct wperf_buf arm_text; /* what armed's strings point into */
	struct bpf_recorder *bpf;
	struct trace_sink *sink;
	struct mmap_watch *mmaps;
	struct wperf_trace_writer *writer;
	struct output_file out;
	pid_t child;
	int child_status; /* valid when child_done */
	int child_done;
	uint64_t start_ts, end_ts;
	size_t ncpu;
	int ready_file_made;
	/* the kernel's counters at the window's start and end, for COUNTERS */
	struct wperf_counters_store counters[2];
};

/* "wperf-bench record: warning: MESSAGE" on stderr. */
static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "wperf-bench record: warning: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* write_meta's name for it */
static const char *stacks_name(unsigned mode)
{
	return recording_stacks_name(mode);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * The wperf USDT probes of a program the user did not name for them (the
 * command, a -p process): whatever it is (a script, a static binary, one
 * without the notes), it is recorded; a probe that cannot attach is said in
 * one warning, not an error. label: how the user knows it (NULL: as binary).
 */
static void attach_implied(struct recording *rec, const char *binary, pid_t pid, const char *label)
{
	struct wperf_error err = {0};

	if (bpf_recorder_attach_usdt(rec->bpf, binary, pid, &err) < 0 && !rec->opts->quiet)
		warn("%s%s%s", label ? label : "", label ? ": " : "", err.msg);
}

/* Attaches the USDT probes of the command, the -p processes and --usdt binaries. */
static int attach_annotations(struct recording *rec, struct wperf_error *err)
{
	const struct record_opts *o = rec->opts;
	char path[PATH_MAX];
	int e;

	if (o->command && spawn_resolve(o->command[0], path, sizeof(path)) == 0)
		attach_implied(rec, path, -1, NULL);
	for (size_t i = 0; i < o->npids; i++) {
		char exe[64], label[32];

		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)o->pids[i]);
		snprintf(label, sizeof(label), "process %d", (int)o->pids[i]);
		if (access(exe, R_OK) != 0)
			return wperf_error_set(err, -ESRCH, "no process %d", (int)o->pids[i]);
		attach_implied(rec, exe, o->pids[i], label);
	}
	for (size_t i = 0; i < o->nusdt; i++) {
		if (access(o->usdt[i], R_OK) != 0)
			return wperf_error_set(err, -errno, "--usdt %s: %s", o->usdt[i],
					       strerror(errno));
		e = bpf_recorder_attach_usdt(rec->bpf, o->usdt[i], -1, err);
		if (e < 0)
			return e;
		if (e == 0 && !o->quiet)
			warn("%s has no wperf USDT probes", o->usdt[i]);
	}
	return 0;
}

static void join_words(char *const *words, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (; words && *words && len < size; words++)
		len += snprintf(out + len, size - len, "%s%s", len ? " " : "", *words);
}

/* Writes META: the n fixed entries keys/values, then what the machine's
 * devices say (each network interface's name and speed, each disk's and
 * interface's interrupts), as many as there are. */
static int write_meta_entries(struct recording *rec, const char *const *keys,
			      const char *const *values, size_t n, struct wperf_error *err)
{
	struct wperf_buf found = {0}, all_keys = {0}, all_values = {0};
	const struct meta_entry *e;
	size_t nfound;
	int ret = proc_net_meta(&found);

	ret = ret ? ret : device_irqs_meta(&found);
	ret = ret ? ret : wperf_buf_append(&all_keys, keys, n * sizeof(*keys));
	ret = ret ? ret : wperf_buf_append(&all_values, values, n * sizeof(*values));
	e = (const struct meta_entry *)found.data;
	nfound = found.len / sizeof(*e);
	for (size_t i = 0; i < nfound && !ret; i++) {
		const char *key = e[i].key, *value = e[i].value;

		ret = wperf_buf_append(&all_keys, &key, sizeof(key));
		ret = ret ? ret : wperf_buf_append(&all_values, &value, sizeof(value));
	}
	ret = ret ? wperf_error_set(err, -ENOMEM, "out of memory")
		  : wperf_trace_writer_meta(rec->writer, (const char *const *)all_keys.data,
					    (const char *const *)all_values.data, n + nfound, err);
	meta_entries_release(&found);
	wperf_buf_release(&all_keys);
	wperf_buf_release(&all_values);
	return ret;
}

static int write_meta(struct recording *rec, char **argv, struct wperf_error *err)
{
	const struct record_opts *o = rec->opts;
	char kernel[600], ncpu[16], possible[16], start_rt[32], start_mono[32], tgid[16], rb[32];
	char command[4096], cmdline[4096] = "wperf-bench ", targets[1024] = "all", child[16] = "";
	struct wperf_buf cgroups = {0};
	struct utsname u;
	int e;

	uname(&u);
	if (proc_cgroups(&cgroups) < 0 || !cgroups.len) { /* a name less, not a trace less */
		cgroups.len = 0;
		wperf_buf_append(&cgroups, "", 1);
	}
	snprintf(kernel, sizeof(kernel), "%s %s", u.release, u.version);
	snprintf(ncpu, sizeof(ncpu), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(possible, sizeof(possible), "%zu", rec->ncpu);
	/* A pair of readings taken together maps trace times to wall-clock time. */
	snprintf(start_mono, sizeof(start_mono), "%llu", (unsigned long long)monotonic_ns());
	snprintf(start_rt, sizeof(start_rt), "%llu", (unsigned long long)realtime_ns());
	snprintf(tgid, sizeof(tgid), "%d", (int)getpid());
	snprintf(rb, sizeof(rb), "%zu", o->ringbuf_mb << 20);
	join_words(o->command, command, sizeof(command));
	if (rec->child > 0)
		snprintf(child, sizeof(child), "%d", (int)rec->child);
	join_words(argv, cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline));
	for (size_t i = 0, len = 0; i < o->npids; i++)
		len += snprintf(targets + len, sizeof(targets) - len, "%s%d", i ? "," : "",
				(int)o->pids[i]);

	const char *keys[] = {WPERF_META_FORMAT,
			      WPERF_META_RECORDER,
			      WPERF_META_KERNEL,
			      WPERF_META_MACHINE,
			      WPERF_META_HOSTNAME,
			      WPERF_META_NCPU,
			      WPERF_META_POSSIBLE_CPUS,
			      WPERF_META_CLOCK,
			      WPERF_META_START_REALTIME_NS,
			      WPERF_META_START_MONOTONIC_NS,
			      WPERF_META_COMMAND,
			      WPERF_META_CMDLINE,
			      WPERF_META_RECORDER_TGID,
			      WPERF_META_STACKS,
			      WPERF_META_TARGETS,
			      WPERF_META_HOOKS,
			      WPERF_META_RINGBUF_BYTES,
			      WPERF_META_COMMAND_PID,
			      WPERF_META_HARNESS_PIDS,
			      WPERF_META_ANALYSIS_TARGET,
			      WPERF_META_CGROUPS};
	const char *values[] = {"wperf-trace",
				"wperf-bench " WPERF_VERSION,
				kernel,
				u.machine,
				u.nodename,
				ncpu,
				possible,
				"CLOCK_MONOTONIC",
				start_rt,
				start_mono,
				command,
				cmdline,
				tgid,
				stacks_name(o->stack_mode),
				targets,
				bpf_recorder_hooks(rec->bpf),
				rb,
				child,
				o->harness_pids,
				o->target,
				cgroups.data ? (const char *)cgroups.data : ""};

	e = write_meta_entries(rec, keys, values, sizeof(keys) / sizeof(*keys), err);
	wperf_buf_release(&cgroups);
	return e;
}

/* An error writing the trace (the disk is full, say): the writer knows its
 * offset, not the file's name. */
static int trace_error(const struct recording *rec, struct wperf_error *err)
{
	char msg[WPERF_ERROR_MSG_LEN];

	snprintf(msg, sizeof(msg), "%s", err->msg);
	return wperf_error_set(err, err->code ? err->code : -EIO, "%s: %s (the trace is not kept)",
			       rec->opts->output, msg);
}

/*
 * Reads the kernel's counters for the window's start or end: of every thread
 * when the whole machine is recorded, else of the processes the BPF programs
 * follow (the --pid ones and their children, as they are now).
 */
static int read_counters(struct recording *rec, unsigned when, uint64_t *edge,
			 struct wperf_error *err)
{
	struct proc_counters_opts co = {.when = when};
	struct wperf_buf tgids = {0};
	int e = 0;

	if (!rec->opts->npids)
		co.flags = WPERF_COUNTERS_WHOLE_MACHINE;
	else if (bpf_recorder_targets(rec->bpf, &tgids))
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	co.tgids = (const uint32_t *)tgids.data;
	co.ntgids = tgids.len / sizeof(uint32_t);
	if (!e)
		e = proc_counters_read(&co, &rec->counters[when], edge, err);
	wperf_buf_release(&tgids);
	return e;
}

static int finish_trace(struct recording *rec, struct recording_summary *summary,
			struct wperf_error *err)
{
	struct wperf_trace_stats stats = {0};
	uint64_t *lost = calloc(rec->ncpu, sizeof(*lost));
	int e;

	if (!lost)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	stats.start_ts = rec->start_ts;
	stats.end_ts = rec->end_ts;
	stats.ncpu = rec->ncpu;
	stats.lost = lost;
	e = bpf_recorder_counters(rec->bpf, lost, rec->ncpu, &stats.stack_lost, &stats.stack_fault);
	if (e)
		wperf_error_set(err, e, "reading the recorder's counters: %s", strerror(-e));
	if (!e && (e = wperf_trace_writer_counters(rec->writer,
						   &rec->counters[WPERF_COUNTERS_END].c, err)))
		trace_error(rec, err);
	if (!e && (e = record_write_tables(rec->writer, rec->bpf, rec->sink, err)))
		trace_error(rec, err);
	if (!e && (e = wperf_trace_writer_finish(rec->writer, &stats, err)))
		trace_error(rec, err);
	if (!e)
		e = output_commit(&rec->out, err);
	for (size_t i = 0; i < rec->ncpu; i++)
		summary->lost += lost[i];
	summary->stacks_lost = stats.stack_lost;
	free(lost);
	return e;
}

/* Waits until the command exits, the duration ends, a signal asks to stop, or
 * the writer fails. */
static int wait_for_stop(struct recording *rec, const sigset_t *signals, struct wperf_error *err)
{
	const struct record_opts *o = rec->opts;
	uint64_t deadline = o->duration > 0 ? rec->start_ts + (uint64_t)(o->duration * 1e9) : 0;
	int progress = !o->quiet && isatty(STDERR_FILENO);

	for (;;) {
		struct timespec tick = {0, 200 * 1000 * 1000};
		uint64_t now = monotonic_ns();
		siginfo_t info;
		int sig;

		if (trace_sink_failed(rec->sink, err))
			return trace_error(rec, err);
		if (deadline && now >= deadline)
			return 0;
		if (progress)
			fprintf(stderr, "\rrecording: %.0f s, %llu events ",
				(now - rec->start_ts) / 1e9,
				(unsigned long long)trace_sink_events(rec->sink));
		sig = sigtimedwait(signals, &info, &tick);
		if (sig == SIGCHLD && rec->child > 0 &&
		    waitpid(rec->child, &rec->child_status, WNOHANG) == rec->child) {
			rec->child_done = 1;
			break;
		}
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
			break;
	}
	if (progress)
		fputc('\n', stderr);
	return 0;
}

static int flush_recorder(void *bpf)
{
	return bpf_recorder_flush(bpf);
}

/* The ready file goes as the window closes: a harness waiting for that knows
 * the events are all in, and (--hold) the tables not yet read. */
static void window_closed(struct recording *rec)
{
	if (rec->ready_file_made)
		unlink(rec->opts->ready_file);
	rec->ready_file_made = 0;
}

/* The command, if it still runs, is stopped (SIGTERM, then SIGKILL). */
static void stop_child(struct recording *rec)
{
	if (rec->child > 0 && !rec->child_done) {
		rec->child_status = spawn_terminate(rec->child, STOP_GRACE_MS);
		rec->child_done = 1;
	}
}

static void release(struct recording *rec)
{
	stop_child(rec);
	bpf_recorder_detach(rec->bpf); /* before the sink's last drain */
	trace_sink_free(rec->sink);
	mmap_watch_free(rec->mmaps);
	wperf_trace_writer_free(rec->writer);
	output_release(&rec->out); /* a trace not complete is removed */
	bpf_recorder_free(rec->bpf);
	wperf_counters_store_release(&rec->counters[WPERF_COUNTERS_START]);
	wperf_counters_store_release(&rec->counters[WPERF_COUNTERS_END]);
	wperf_buf_release(&rec->arm_text);
	window_closed(rec);
}

/*
 * Waits for a stop signal or SIGUSR1, at most timeout_s (0: no limit), while
 * the harness that started us lives (killed, its death signal stops us too).
 * Returns the signal, or 0. SIGCHLD is no reason: a command, if any, has
 * ended or has not started.
 */
static int wait_signal(const sigset_t *signals, pid_t harness, unsigned timeout_s)
{
	uint64_t end = monotonic_ns() + (uint64_t)timeout_s * 1000000000u;

	while ((!timeout_s || monotonic_ns() < end) && getppid() == harness) {
		struct timespec tick = {0, 200 * 1000 * 1000};
		siginfo_t info;
		int sig = sigtimedwait(signals, &info, &tick);

		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGUSR1)
			return sig;
	}
	return 0;
}

/* The ready and arm files are removed by us later: each must be a regular
 * file, never a device, FIFO or link that the removal would take from the
 * machine (O_NONBLOCK: a FIFO is refused, not waited on). what: "the ready
 * file"; when: "when the window closes". */
static int create_flag_file(const char *path, const char *what, const char *when,
			    struct wperf_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	struct stat st;

	if (fd < 0)
		return wperf_error_set(err, -errno, "cannot create %s %s: %s", what, path,
				       errno == ELOOP ? "it is a symbolic link" : strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return wperf_error_set(err, -EINVAL,
				       "%s %s is not a regular file: it would be removed %s", what,
				       path, when);
	}
	close(fd);
	return 0;
}

/*
 * --arm FILE: the programs are loaded (the slow part) before the harness
 * starts its workload. FILE says so; the harness writes into it what it has
 * learnt since (recording_read_arm_text) and sends SIGUSR1. A stop signal, or
 * the harness gone, ends the recording before its window.
 */
static int wait_armed(struct recording *rec, const sigset_t *signals, pid_t harness,
		      struct wperf_error *err)
{
	const char *path = rec->opts->arm_file;
	int e = create_flag_file(path, "the arm file", "when the window opens", err);

	if (e)
		return e;
	if (wait_signal(signals, harness, 0) != SIGUSR1)
		e = wperf_error_set(err, -ECANCELED, "stopped before the window opened");
	rec->armed = *rec->opts;
	if (!e)
		e = output_read_all(path, &rec->arm_text, err);
	if (!e && wperf_buf_append(&rec->arm_text, "", 1) < 0)
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	if (!e)
		e = recording_read_arm_text(&rec->armed, (char *)rec->arm_text.data, path, err);
	if (!e && rec->armed.command && rec->armed.npids)
		e = wperf_error_set(err, -EINVAL, "%s: give either a COMMAND or pids, not both",
				    path);
	unlink(path);
	rec->opts = &rec->armed;
	return e;
}

/* Stop signals are taken synchronously by sigtimedwait, blocked in every
 * thread; old_mask gets the mask before, for the command. */
static void block_stop_signals(sigset_t *signals, sigset_t *old_mask)
{
	/* A shell starts background jobs with SIGINT ignored, and an ignored signal
	 * never becomes pending: give the stop signals their default action first. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(signals);
	sigaddset(signals, SIGINT);
	sigaddset(signals, SIGTERM);
	sigaddset(signals, SIGHUP);
	sigaddset(signals, SIGCHLD);
	sigaddset(signals, SIGUSR1); /* --arm's: its default action is to terminate */
	pthread_sigmask(SIG_BLOCK, signals, old_mask);
}

/* The BPF programs loaded, the trace file and its writer open: what must
 * exist before anything is recorded. */
static int open_recording(struct recording *rec, struct wperf_error *err)
{
	const struct record_opts *o = rec->opts;
	struct bpf_recorder_opts bo = {
	    .stack_mode = o->stack_mode,
	    .ringbuf_bytes = o->ringbuf_mb << 20,
	    .stack_entries = o->stack_entries,
	};
	struct wperf_writer_opts wo = {.compress = o->compress};
	int e = bpf_recorder_open(&bo, &rec->bpf, err);

	if (e)
		return e;
	if (wperf_trace_writer_new(rec->out.fd, &wo, &rec->writer, err))
		return trace_error(rec, err);
	return 0;
}

/* The hooks attached for the processes to record (--pid, or every one) and
 * the mappings watched: from now on, events. */
static int attach_recording(struct recording *rec, struct wperf_error *err)
{
	const struct record_opts *o = rec->opts;
	int e = bpf_recorder_attach(rec->bpf, o->pids, o->npids, err);

	if (!e)
		e = attach_annotations(rec, err);
	if (e)
		return e;
	/* Opened before the command starts, so none of its mappings go unseen. */
	if (mmap_watch_open(&rec->mmaps, err) < 0) {
		warn("%s: mappings of short-lived processes may be missed", err->msg);
		rec->mmaps = NULL;
	}
	return 0;
}

/* The window opens: the first counters, the command, META, the threads, the
 * sink draining the ring buffer, then the ready file. */
static int open_window(struct recording *rec, char **argv, const sigset_t *old_mask,
		       struct wperf_error *err)
{
	const struct record_opts *o = rec->opts;
	struct trace_sink_opts so = {
	    .ringbuf_fd = bpf_recorder_ringbuf_fd(rec->bpf),
	    .writer = rec->writer,
	    .poll_ms = 10,
	    .reorder_ns = 100 * 1000 * 1000,
	    .flush = flush_recorder,
	    .flush_ctx = rec->bpf,
	    .flush_ns = 25 * 1000 * 1000,
	    .stack_ids = bpf_recorder_stack_ids(rec->bpf),
	};
	int e;

	/*
	 * The command starts now, so that META can name it; its first events wait in
	 * the ring buffers until the writer thread starts, a moment later.
	 */
	/* The window starts as its first counters are read (and ends as the last
	 * are): the checks set the counters' change against the whole window. */
	e = read_counters(rec, WPERF_COUNTERS_START, &rec->start_ts, err);
	if (!e && o->command)
		e = spawn_command(o->command, old_mask, rec->out.is_stdout, &rec->child, err);
	if (!e)
		e = write_meta(rec, argv, err);
	if (!e &&
	    wperf_trace_writer_counters(rec->writer, &rec->counters[WPERF_COUNTERS_START].c, err))
		e = trace_error(rec, err);
	if (!e)
		e = record_write_threads(rec->writer, err);
	so.mmaps = rec->mmaps;
	if (!e)
		e = trace_sink_start(&so, &rec->sink, err);
	if (!e && o->ready_file &&
	    !(e = create_flag_file(o->ready_file, "the ready file", "when the window closes", err)))
		rec->ready_file_made = 1;
	if (!e && !o->quiet)
		fprintf(stderr, "wperf-bench record: recording to %s%s\n", rec->out.name,
			o->command ? "" : " (Ctrl-C to stop)");
	return e;
}

/* The window closes at the stop: the last counters, the command stopped, the
 * programs detached, the ring buffer drained, the ready file removed. */
static int close_window(struct recording *rec, const sigset_t *signals, struct wperf_error *err)
{
	int e = wait_for_stop(rec, signals, err);

	rec->end_ts = monotonic_ns(); /* should the reading fail */
	if (!e)
		e = read_counters(rec, WPERF_COUNTERS_END, &rec->end_ts, err);
	stop_child(rec);
	bpf_recorder_detach(rec->bpf);
	if (!e && (e = trace_sink_stop(rec->sink, err)))
		e = trace_error(rec, err);
	window_closed(rec);
	return e;
}

int recording_run(const struct record_opts *o, char **argv, struct recording_summary *summary,
		  struct wperf_error *err)
{
	struct recording rec = {.opts = o, .out = {.fd = -1}};
	sigset_t signals, old_mask;
	pid_t harness = getppid(); /* --hold: who sends the second signal */
	int e;

	*summary = (struct recording_summary){0};
	/* Before the stop signals are blocked, so that Ctrl-C ends the wait for a
	 * FIFO's reader. */
	e = output_open(&rec.out, o->output, ".part", err);
	if (e)
		return e;
	block_stop_signals(&signals, &old_mask);
	rec.ncpu = libbpf_num_possible_cpus();
	e = open_recording(&rec, err);
	if (!e && o->arm_file)
		e = wait_armed(&rec, &signals, harness, err);
	if (!e)
		e = attach_recording(&rec, err);
	if (!e)
		e = open_window(&rec, argv, &old_mask, err);
	if (!e)
		e = close_window(&rec, &signals, err);
	if (!e && o->hold) /* time for a JIT to write its perf map, unrecorded */
		wait_signal(&signals, harness, HOLD_TIMEOUT_S);
	if (!e)
		e = finish_trace(&rec, summary, err);
	if (!e) {
		summary->seconds = (rec.end_ts - rec.start_ts) / 1e9;
		summary->events = trace_sink_events(rec.sink);
		summary->bytes = wperf_trace_writer_offset(rec.writer);
		summary->mappings_missed = trace_sink_mappings(rec.sink)->missed;
		summary->child_status = rec.child_status;
	}
	release(&rec);
	/* The stop signals stay blocked to the end: one that comes now (a
	 * harness's second SIGINT after a failure closed the window) has nothing
	 * left to stop, and unblocked it would kill us before the error is said. */
	return e;
}
