/* SPDX-License-Identifier: MIT */
/*
 * One run of a scenario, start to finish: its prepare commands, its services in
 * the file's order (each in a process group of its own, waited for until
 * ready), the load, the recording (a `wperf-bench record` child, so that the
 * BPF programs live and die with a process of their own), then everything
 * stopped in reverse order and the teardown commands. Whatever fails or
 * interrupts it, every process group it started is stopped before it returns.
 *
 * A run's files, in its folder: prepare.log, service-NAME.log, load.log,
 * record.log, teardown.log and the trace, wperf.trace.
 */
#ifndef WPERF_RUNNER_H
#define WPERF_RUNNER_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "harness/base/progress.h"
#include "core/scenario/scenario.h"

struct runner_opts {
	const struct scenario *s;
	const char *self;    /* wperf-bench's executable, which records */
	const char *run_dir; /* this run's folder, made by the caller */
	const char *label;   /* "run 2/5", for messages */
	const char *ledger;  /* where to note the process groups started (stale.h); NULL: nowhere */
	struct progress *progress;
	/* Set by the caller's signal handler to the signal that came: the run stops
	 * at once, cleans up and fails with -EINTR. */
	const volatile sig_atomic_t *interrupted;
};

struct run_outcome {
	double throughput;		      /* NaN when the scenario reads none */
	double metrics[SCENARIO_MAX_METRICS]; /* of load.metrics, in its order */
	char trace[PATH_MAX];
	/* What the analysis is about: a process name or "PID[,PID...]" (the target's
	 * processes while it was recorded); empty: every knot of the machine. */
	char target[1024];
};

/*
 * Runs the scenario once. 0 with *out filled; otherwise a negative errno with
 * err saying what failed (-EINTR: interrupted), after everything has been
 * stopped and the teardown has run.
 */
int runner_run(const struct runner_opts *o, struct run_outcome *out, struct wperf_error *err);

/* Runs commands of the set as a whole (the scenario's build, its setup) to
 * their end, in order, from the working directory; their output goes to
 * o->run_dir/PHASE.log. 0, or an error naming the command that failed with
 * the end of its output. */
int runner_commands(const struct runner_opts *o, const char *phase,
		    const struct scenario_command *cmds, size_t n, struct wperf_error *err);

/* ---- what the runner reads from the machine (runner_read.c) ---- */

/*
 * Appends the pids of target t (as "PID,PID,...") to out: the processes of a
 * service's or the load's process group (pgid of the one started), of a
 * process name, or the pid in a pid file. 0; -ESRCH with err naming the target
 * when it has no process; -ENOMEM.
 */
int runner_target_pids(const struct scenario_target *t, pid_t pgid, struct wperf_buf *out,
		       struct wperf_error *err);

/*
 * Is leader, started as the program shell (a command string's /bin/sh), a
 * shell that waits for the command it started? True once another process runs
 * in its process group, or as its child, while leader still runs shell (the
 * wait for the shell to fork, a few milliseconds, delays the window: a
 * command that leaves the group at once must not cost the whole timeout);
 * false once it runs
 * something else (it exec'd: it is the command), is gone, or after timeout
 * seconds without either (a shell doing the work itself).
 */
bool runner_shell_waits(pid_t leader, const char *shell, double timeout);

/*
 * Reads the throughput: the first group of the last line of text that regex
 * (POSIX extended, known to compile) matches, as a number. 0 and *value, or
 * -ENOENT / -EINVAL with err saying which (source names the text in messages).
 */
int runner_parse_throughput(const char *regex, const char *text, size_t len, const char *source,
			    double *value, struct wperf_error *err);
/* The same for a number called what in messages ("metric latency_p99"). */
int runner_parse_number(const char *regex, const char *what, const char *text, size_t len,
			const char *source, double *value, struct wperf_error *err);

#endif /* WPERF_RUNNER_H */
