/* SPDX-License-Identifier: MIT */
/*
 * What the runner's files share: the state of one run, and the steps every
 * phase takes with processes (runner_commands.c): starting and stopping a
 * process group, the error for one that failed, running a list of commands.
 */
#ifndef WPERF_RUNNER_INTERNAL_H
#define WPERF_RUNNER_INTERNAL_H

#include "harness/run/runner.h"
#include "harness/run/service.h"

/* Everything one run has started, so that one function can stop it all. */
struct run_state {
	const struct runner_opts *o;
	struct service *services; /* started, in the file's order */
	size_t nstarted;
	struct service load, recorder;
	double load_start; /* CLOCK_MONOTONIC seconds */
};

/* Sleeps one tick of the wait loops, or until a child ends (spawn_nap). */
void run_nap(void);

/* RUN_DIR/name into buf; returns buf. */
const char *run_path(const struct run_state *st, const char *name, char *buf, size_t size);

/* -EINTR with err naming the signal once one came; 0 before. */
int run_interrupted(const struct run_state *st, struct wperf_error *err);

/* "WHAT exited with status 1; the end of its output (FILE):\nTAIL" into err. */
int run_failed(const struct service *s, const char *what, struct wperf_error *err);

/* Starts a process group and notes it in the ledger, for a later run to clean
 * up should wperf-bench be killed (harness/run/stale.h). */
int run_start(struct run_state *st, const struct service_spec *spec, struct service *out,
	      struct wperf_error *err);

/* Stops a process group, warning when it took SIGKILL. */
void run_stop(struct run_state *st, struct service *svc, int sig, double timeout);

/* Runs the commands of phase ("prepare", "teardown", ...) in order, each to
 * its end, into RUN_DIR/PHASE.log; the first that fails ends them. */
int run_commands(struct run_state *st, const char *phase, const struct scenario_command *cmds,
		 size_t n, struct wperf_error *err);

#endif /* WPERF_RUNNER_INTERNAL_H */
