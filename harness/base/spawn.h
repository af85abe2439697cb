/* SPDX-License-Identifier: MIT */
/*
 * Starting and stopping the commands that wperf-bench runs.
 */
#ifndef WPERF_SPAWN_H
#define WPERF_SPAWN_H

#include <signal.h>
#include <sys/types.h>

#include "core/util/error.h"

struct spawn_opts {
	char *const *argv;	 /* NULL-terminated; argv[0] searched in PATH */
	const sigset_t *sigmask; /* the child's signal mask; NULL: nothing blocked */
	int new_group;		 /* lead a process group of its own */
	const char *cwd;	 /* or NULL */
	char *const *env;	 /* KEY=VALUE set in the child's environment, or NULL */
	int out_fd;		 /* standard output and error go there; -1: inherited */
	int stdout_to_stderr;	 /* with out_fd -1: standard output goes to our stderr */
};

/*
 * Runs a program; it gets SIGTERM if wperf-bench dies first, and its standard
 * input is /dev/null when out_fd is given. Returns 0 with *pid once the program
 * has been executed, or an error naming the program when it could not be (not
 * found, not executable, a bad cwd, ...).
 */
int spawn_process(const struct spawn_opts *o, pid_t *pid, struct wperf_error *err);

/* spawn_process of argv with the signal mask sigmask_to_restore; its output
 * goes to our stderr when stdout_to_stderr (our stdout carries a result). */
int spawn_command(char *const argv[], const sigset_t *sigmask_to_restore, int stdout_to_stderr,
		  pid_t *pid, struct wperf_error *err);

/* The path execvp would run for file, into path; 0 or -ENOENT. */
int spawn_resolve(const char *file, char *path, size_t size);

/*
 * Stops pid: SIGTERM, then SIGKILL when it is still alive after grace_ms.
 * Reaps it; returns its wait status, or -1 if it had been reaped already.
 */
int spawn_terminate(pid_t pid, int grace_ms);

/*
 * Sleeps up to seconds, or less: until a child of this process ends or stops
 * (SIGCHLD) or a signal with a handler arrives. The loops that poll for a
 * process to end then see it end at once, not at their next tick: a run's
 * load, its recorder and the commands between runs each cost a tick less.
 */
void spawn_nap(double seconds);

/* "exited with status 3", "was killed by signal 15 (Terminated)", ... for a wait
 * status: what follows a subject in a sentence. */
const char *spawn_describe_status(int status, char *buf, size_t size);

#endif /* WPERF_SPAWN_H */
