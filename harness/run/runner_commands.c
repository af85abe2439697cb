/* SPDX-License-Identifier: MIT */
/*
 * The runner's processes: starting and stopping a process group, the error
 * for one that failed, and lists of commands run to their end (build, setup,
 * prepare, on_stop, teardown), each in a group of its own.
 */
#include "harness/run/runner.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "harness/base/progress.h"
#include "harness/base/spawn.h"
#include "harness/run/runner_internal.h"
#include "harness/run/stale.h"

#define COMMAND_TIMEOUT	 3600.0 /* seconds a build, setup, prepare or teardown command may take */
#define TEARDOWN_HURRY	 60.0	/* ... and a teardown command after an interrupt */
#define LEFTOVER_TIMEOUT 10.0	/* for what a command left in its group to stop */
#define TICK_S		 0.1
#define LOG_TAIL	 400

void run_nap(void)
{
	spawn_nap(TICK_S);
}

/* RUN_DIR/name into buf. */
const char *run_path(const struct run_state *st, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", st->o->run_dir, name);
	return buf;
}

int run_interrupted(const struct run_state *st, struct wperf_error *err)
{
	int sig = *st->o->interrupted;

	if (!sig)
		return 0;
	return wperf_error_set(err, -EINTR, "interrupted by SIG%s",
			       sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
}

/* "exited with status 1; the end of its output (FILE):\nTAIL" */
int run_failed(const struct service *s, const char *what, struct wperf_error *err)
{
	char status[128], tail[LOG_TAIL + 1];

	service_log_tail(s, tail, sizeof(tail));
	return wperf_error_set(err, -ECHILD, "%s %s; the end of %s:\n%s", what,
			       spawn_describe_status(s->status, status, sizeof(status)),
			       s->log_path, tail);
}

/* Starts a process group and notes it in the ledger, for a later run to clean
 * up should wperf-bench be killed (harness/run/stale.h). */
int run_start(struct run_state *st, const struct service_spec *spec, struct service *out,
	      struct wperf_error *err)
{
	int e = service_start(spec, out, err);

	if (!e)
		stale_note_group(st->o->ledger, out->pgid, spec->name, spec->argv);
	return e;
}

/* Stops a process group, saying so when it took SIGKILL. */
void run_stop(struct run_state *st, struct service *svc, int sig, double timeout)
{
	if (service_stop(svc, sig, timeout))
		progress_warn(st->o->progress,
			      "%s: %s did not stop within %g s of SIG%s: killed with SIGKILL",
			      st->o->label, svc->name, timeout,
			      sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
}

/* Runs one setup or teardown command to its end. */
static int run_command(struct run_state *st, const char *phase, size_t i,
		       const struct scenario_command *c, struct wperf_error *err)
{
	char name[64], log[PATH_MAX], what[128];
	struct service_spec spec = {.name = name, .argv = c->argv, .log_path = log};
	struct service cmd;
	int teardown = !strcmp(phase, "teardown"), e;
	double t0 = progress_now_s();

	snprintf(name, sizeof(name), "%s[%zu]", phase, i);
	snprintf(log, sizeof(log), "%s/%s.log", st->o->run_dir, phase);
	e = run_start(st, &spec, &cmd, err);
	if (e)
		return e;
	/* The teardown undoes the setup: an interrupt hurries it, never skips it. */
	for (double end =
		 progress_now_s() + (*st->o->interrupted ? TEARDOWN_HURRY : COMMAND_TIMEOUT);
	     service_running(&cmd) && progress_now_s() < end; run_nap())
		if (!teardown && (e = run_interrupted(st, err)))
			break;
	if (!cmd.exited) {
		if (!e)
			e = wperf_error_set(err, -ETIMEDOUT,
					    "%s (line %d) was still running after %g s", name,
					    c->line, progress_now_s() - t0);
		run_stop(st, &cmd, SIGTERM, LEFTOVER_TIMEOUT);
		return e;
	}
	run_stop(st, &cmd, SIGTERM, LEFTOVER_TIMEOUT); /* anything it left in its group */
	if (WIFEXITED(cmd.status) && WEXITSTATUS(cmd.status) == 0)
		return 0;
	snprintf(what, sizeof(what), "%s (line %d)", name, c->line);
	return run_failed(&cmd, what, err);
}

int run_commands(struct run_state *st, const char *phase, const struct scenario_command *cmds,
		 size_t n, struct wperf_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int e = run_command(st, phase, i, &cmds[i], err);

		if (e)
			return e;
	}
	if (n)
		progress_say(st->o->progress, "%s: %s done (%zu command%s)", st->o->label, phase, n,
			     n == 1 ? "" : "s");
	return 0;
}

int runner_commands(const struct runner_opts *o, const char *phase,
		    const struct scenario_command *cmds, size_t n, struct wperf_error *err)
{
	struct run_state st = {.o = o};

	return run_commands(&st, phase, cmds, n, err);
}
