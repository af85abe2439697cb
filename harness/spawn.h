/* SPDX-License-Identifier: MIT */
/*
 * Starting and stopping the commands that wperf-bench runs.
 */
#ifndef WPERF_SPAWN_H
#define WPERF_SPAWN_H

#include <signal.h>
#include <sys/types.h>

#include "core/error.h"

/*
 * Runs argv[0] (searched in PATH) with the signal mask of sigmask_to_restore;
 * it gets SIGTERM if wperf-bench dies first.
 * Returns 0 with *pid once the program has been executed, or an error naming
 * the program when it could not be (not found, not executable, ...).
 */
int spawn_command(char *const argv[], const sigset_t *sigmask_to_restore, pid_t *pid,
		  struct wperf_error *err);

/* The path execvp would run for file, into path; 0 or -ENOENT. */
int spawn_resolve(const char *file, char *path, size_t size);

/*
 * Stops pid: SIGTERM, then SIGKILL when it is still alive after grace_ms.
 * Reaps it; returns its wait status, or -1 if it had been reaped already.
 */
int spawn_terminate(pid_t pid, int grace_ms);

/* "exited with status 3", "killed by SIGTERM", ... for a wait status. */
const char *spawn_describe_status(int status, char *buf, size_t size);

#endif /* WPERF_SPAWN_H */
