/* SPDX-License-Identifier: MIT */
/*
 * Cleaning up after a wperf-bench that was killed (SIGKILL, the OOM killer, a
 * CI job's timeout) in the middle of a run set, when it could not stop what it
 * had started.
 *
 * The processes a run starts get SIGTERM when wperf-bench dies
 * (PR_SET_PDEATHSIG), but only the ones it started itself, and only SIGTERM:
 * a service that ignores it, and the children of any command, keep running.
 * So a run set leaves three marks:
 *
 *   STALE_DIR/PID.N        the registry: wperf-bench's start time (against pid
 *                          reuse) and the results folder; removed at the end
 *   RESULTS/processes      one line per process group the run set started:
 *                          "PGID START NAME: COMMAND", START the leader's start
 *                          time (/proc/PID/stat field 22)
 *   STALE_MARKER=RESULTS   in the environment of every process it starts
 *
 * and every later run set sweeps the registry first: for each wperf-bench that
 * is gone, it kills the process groups it left (a group whose leader is still
 * the process started, by its start time, or that holds a process carrying the
 * marker) and any other process with the marker, marks the results folder
 * incomplete with the reason, and says so.
 *
 * BPF needs nothing of the kind: the recorder pins nothing in /sys/fs/bpf, and
 * its programs and links, held by file descriptors, go with its process, which
 * wperf-bench's death stops (SIGTERM: it finishes its trace and exits).
 */
#ifndef WPERF_STALE_H
#define WPERF_STALE_H

#include <limits.h>
#include <sys/types.h>

#include "core/util/error.h"
#include "harness/base/progress.h"

#define STALE_DIR    "/run/wperf-bench"
#define STALE_MARKER "WPERF_BENCH_RESULTS"
#define STALE_LEDGER "processes" /* in the results folder */

struct stale_entry {
	char path[PATH_MAX]; /* in STALE_DIR; empty when not registered */
};

/*
 * Registers a run set into results_dir (absolute) in the registry, which is
 * made (mode 0700) when missing. 0, or a negative errno with err (the run set
 * can go on without: only the cleaning up after a SIGKILL is lost).
 */
int stale_register(const char *results_dir, struct stale_entry *out, struct wperf_error *err);

/* Removes the entry, once the run set has stopped everything; NULL-safe. */
void stale_unregister(struct stale_entry *e);

/* Puts results_dir's marker in this process's environment, for the processes
 * started from now on (a process runs the sets of `ab` in turns). */
void stale_mark(const char *results_dir);

/* Appends the group pgid just started to the ledger (a results folder's
 * STALE_LEDGER). Best effort: the marker covers a line that cannot be written. */
void stale_note_group(const char *ledger, pid_t pgid, const char *name, char *const *argv);

/* Cleans up after every registered run set whose wperf-bench is gone, saying
 * what it did as warnings on p. */
void stale_sweep(struct progress *p);

#endif /* WPERF_STALE_H */
