/* SPDX-License-Identifier: MIT */
#include "harness/run/runner.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/output.h"
#include "harness/run/runner_internal.h"
#include "harness/run/service.h"
#include "harness/base/spawn.h"
#include "harness/record/bpf_recorder.h"
#include "harness/record/recording.h"
#include "harness/run/load_metrics.h"
#include "harness/run/tcp_port.h"

#define RECORD_READY_TIMEOUT 30.0 /* from starting the recorder to its probes attached */
#define RECORD_STOP_TIMEOUT  60.0 /* for the recorder to write out the trace */
#define SHELL_FORK_TIMEOUT   1.0  /* for a command string's shell to start its command */
#define WINDOW_CLOSE_TICK    0.01 /* closing the window ends no process: no SIGCHLD to wake on */

/* In each run's folder: the recorder's files, while it is armed (its programs
 * loaded) and while its window is open. */
#define ARM_FILE   "armed"
#define READY_FILE "recording"

static int wait_ready(struct service *svc, const struct scenario_ready *r, struct wperf_error *err)
{
	switch (r->kind) {
	case SCENARIO_READY_TCP:
		return service_ready_tcp(svc, r->host, r->port, r->timeout, err);
	case SCENARIO_READY_FILE:
		return service_ready_file(svc, r->file, r->timeout, err);
	case SCENARIO_READY_LOG:
		return service_ready_log(svc, r->log, r->timeout, err);
	case SCENARIO_READY_DELAY:
		return service_ready_delay(svc, r->delay, err);
	case SCENARIO_READY_HTTP:
		return service_ready_http(svc, r->url, r->status, r->timeout, err);
	case SCENARIO_READY_NONE:
		break;
	}
	return 0;
}

static int start_services(struct run_state *st, struct wperf_error *err)
{
	const struct scenario *s = st->o->s;

	for (size_t i = 0; i < s->nservices; i++) {
		const struct scenario_service *sv = &s->services[i];
		const struct scenario_ready *r = &sv->ready;
		char log[PATH_MAX], file[128], name[128];
		struct service_spec spec = {.name = name,
					    .argv = sv->command.argv,
					    .env = sv->env,
					    .cwd = sv->cwd,
					    .log_path = log};
		double t0 = progress_now_s();
		int e;

		snprintf(name, sizeof(name), "service %s", sv->name);
		snprintf(file, sizeof(file), "service-%s.log", sv->name);
		run_path(st, file, log, sizeof(log));
		/* Another process on its port would pass its ready check. */
		if (r->kind == SCENARIO_READY_TCP &&
		    (e = tcp_port_check_free(sv->name, r->host, r->port, err)))
			return e;
		e = run_start(st, &spec, &st->services[st->nstarted], err);
		if (e)
			return e;
		st->nstarted++;
		e = wait_ready(&st->services[i], &sv->ready, err);
		if (e)
			return e == -EINTR ? run_interrupted(st, err) : e;
		progress_say(st->o->progress, "%s: service %s is ready (%.1f s)", st->o->label,
			     sv->name, progress_now_s() - t0);
	}
	return 0;
}

/* Any service that ends before the run does fails it, at once. */
static int check_services(struct run_state *st, struct wperf_error *err)
{
	for (size_t i = 0; i < st->nstarted; i++) {
		struct service *svc = &st->services[i];
		char what[128];

		if (!service_running(svc)) {
			snprintf(what, sizeof(what), "%s stopped during the run: it", svc->name);
			return run_failed(svc, what, err);
		}
	}
	return 0;
}

/* How long the load may run: load.timeout, or its duration and as much again
 * (at least 30 s: a slow start, a last flush), or an hour without a duration. */
static double load_limit(const struct scenario_load *l)
{
	if (l->timeout > 0)
		return l->timeout;
	return l->duration > 0 ? l->duration + fmax(l->duration, 30) : 3600;
}

/* What ends a run early, checked on every tick while the load runs: an
 * interrupt, a service that ended, a load that outlives its limit. */
static int watch(struct run_state *st, struct wperf_error *err)
{
	const struct scenario_load *l = &st->o->s->load;
	double limit = load_limit(l);
	char duration[64] = "";
	int e = run_interrupted(st, err);

	if (!e)
		e = check_services(st, err);
	if (e || !service_running(&st->load) || progress_now_s() - st->load_start <= limit)
		return e;
	if (l->duration > 0)
		snprintf(duration, sizeof(duration), "load.duration: %g s, ", l->duration);
	return wperf_error_set(err, -ETIMEDOUT,
			       "the load was still running %g s after it started (%sload.timeout: "
			       "%g s): stopped, SIGKILL after load.stop_timeout (%g s); see %s",
			       limit, duration, limit, l->stop_timeout, st->load.log_path);
}

/* Waits seconds while the load runs; an error if it ends or an interrupt comes. */
static int wait_with_load(struct run_state *st, double seconds, const char *what,
			  struct wperf_error *err)
{
	for (double end = progress_now_s() + seconds; progress_now_s() < end; run_nap()) {
		int e = watch(st, err);

		if (e)
			return e;
		if (!service_running(&st->load))
			return run_failed(&st->load, "the load ended during the warm-up: it", err);
		progress_status(st->o->progress, "%s: %s, %.0f s left ", st->o->label, what,
				end - progress_now_s());
	}
	return 0;
}

/* The pids of every recording target, "PID,PID,...", into pids. */
static int record_pids(struct run_state *st, struct wperf_buf *pids, struct wperf_error *err)
{
	const struct scenario_record *r = &st->o->s->record;

	for (size_t i = 0; i < r->ntargets; i++) {
		const struct scenario_target *t = &r->targets[i];
		pid_t pgid = t->kind == SCENARIO_TARGET_LOAD ? st->load.pgid : 0;
		int e;

		if (t->kind == SCENARIO_TARGET_SERVICE)
			pgid = st->services[t->service - st->o->s->services].pgid;
		e = runner_target_pids(t, pgid, pids, err);
		if (e)
			return e;
	}
	return wperf_buf_append(pids, "", 1) < 0 ? -ENOMEM : 0;
}

/* The analysis target, as wperf_run_from_analysis wants it. */
static int analysis_target(struct run_state *st, struct run_outcome *out, struct wperf_error *err)
{
	const struct scenario *s = st->o->s;
	struct scenario_target t = s->analysis.target;
	struct wperf_buf pids = {0};
	pid_t pgid = st->load.pgid;
	int e;

	if (t.kind == SCENARIO_TARGET_NONE)
		t.kind = SCENARIO_TARGET_LOAD, t.name = "load";
	if (t.kind == SCENARIO_TARGET_PROCESS) {
		snprintf(out->target, sizeof(out->target), "%s", t.name);
		return 0;
	}
	if (t.kind == SCENARIO_TARGET_SERVICE)
		pgid = st->services[t.service - s->services].pgid;
	e = runner_target_pids(&t, pgid, &pids, err);
	/* and every process the load's (or service's) leader started, which the
	 * trace knows: one that left the group (setsid) or was done before the
	 * list was taken */
	if (!e && t.kind != SCENARIO_TARGET_PIDFILE && pgid > 0 &&
	    wperf_buf_printf(&pids, ",%d+", (int)pgid) < 0)
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	if (!e && pids.len >= sizeof(out->target))
		e = wperf_error_set(err, -E2BIG, "analysis.target %s has too many processes",
				    t.name);
	if (!e)
		snprintf(out->target, sizeof(out->target), "%.*s", (int)pids.len,
			 (const char *)pids.data);
	wperf_buf_release(&pids);
	return e;
}

static int append_harness_pid(struct wperf_buf *pids, pid_t pid)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%s%d", pids->len ? "," : "", (int)pid);

	return wperf_buf_append(pids, num, n) < 0 ? -ENOMEM : 0;
}

/* Appends svc's leader to pids if it is the shell of a command string that
 * waits for its command (one that exec'd is the command itself). */
static int append_shell(struct wperf_buf *pids, const struct scenario_command *c,
			const struct service *svc)
{
	if (!c->shell || svc->pgid <= 0 ||
	    !runner_shell_waits(svc->pgid, c->argv[0], SHELL_FORK_TIMEOUT))
		return 0;
	return append_harness_pid(pids, svc->pgid);
}

/*
 * The harness's own processes that run while recording, "PID,PID,...", for
 * the trace (META harness_pids): this program, and the shells that started the
 * load and the services. They only wait, for the workload: judged with it,
 * the shell's wait for its child reads as a bottleneck.
 */
static int harness_pids(struct run_state *st, struct wperf_buf *pids)
{
	const struct scenario *s = st->o->s;
	int e = append_harness_pid(pids, getpid());

	if (!e)
		e = append_shell(pids, &s->load.command, &st->load);
	for (size_t i = 0; i < st->nstarted && !e; i++)
		e = append_shell(pids, &s->services[i].command, &st->services[i]);
	if (!e && wperf_buf_append(pids, "", 1) < 0)
		e = -ENOMEM;
	return e;
}

/* A scenario's record.stacks is the recorder's stack mode, bit for bit. */
_Static_assert(SCENARIO_STACKS_KERNEL == RECORD_STACKS_KERNEL &&
		   SCENARIO_STACKS_USER == RECORD_STACKS_USER &&
		   SCENARIO_STACKS_ALL == (RECORD_STACKS_KERNEL | RECORD_STACKS_USER) &&
		   SCENARIO_STACKS_DWARF ==
		       (RECORD_STACKS_KERNEL | RECORD_STACKS_USER | RECORD_STACKS_DWARF),
	       "scenario stacks and RECORD_STACKS_* differ");

/*
 * The program to exec as the recorder: this very executable. Its path names
 * another file once it was rebuilt or upgraded while the runs went on (or none:
 * "(deleted)"), and a check must not record half its runs with another build:
 * then /proc/self/exe, which a forked child execs as the same file.
 */
static const char *same_program(const char *self)
{
	struct stat named, running;

	if (!stat(self, &named) && !stat("/proc/self/exe", &running) &&
	    named.st_dev == running.st_dev && named.st_ino == running.st_ino)
		return self;
	return "/proc/self/exe";
}

/*
 * Starts the recorder, a child `wperf-bench record` (its BPF programs live and
 * die with it), armed: it loads its programs while the services start and
 * before the load does, so that a load that keeps the CPUs busy cannot hold
 * up the window (the verifier's work took a second beside such a load), and
 * waits for open_window. With the scenario's record: options, the ready file
 * and --hold the runner drives it by.
 */
static int arm_recorder(struct run_state *st, struct run_outcome *out, struct wperf_error *err)
{
	const struct scenario_record *r = &st->o->s->record;
	char log[PATH_MAX], ready[PATH_MAX], arm[PATH_MAX];
	struct record_opts ro;
	struct recording_argv child;
	struct service_spec spec = {.name = "the recorder", .argv = child.argv, .log_path = log};

	run_path(st, "record.log", log, sizeof(log));
	run_path(st, READY_FILE, ready, sizeof(ready));
	run_path(st, ARM_FILE, arm, sizeof(arm));
	run_path(st, "wperf.trace", out->trace, sizeof(out->trace));
	recording_opts_init(&ro);
	ro.quiet = ro.hold = 1;
	ro.output = out->trace;
	ro.stack_mode = r->stacks;
	ro.ready_file = ready;
	ro.arm_file = arm;
	ro.duration = r->window > 0 ? r->window : 0;
	ro.ringbuf_mb = r->buffer_mb ? r->buffer_mb : ro.ringbuf_mb;
	recording_argv(&ro, same_program(st->o->self), &child);
	return run_start(st, &spec, &st->recorder, err);
}

/* Waits until the recorder is armed: its programs loaded. */
static int wait_armed(struct run_state *st, struct wperf_error *err)
{
	char arm[PATH_MAX];
	int e = service_ready_file(&st->recorder, run_path(st, ARM_FILE, arm, sizeof(arm)),
				   RECORD_READY_TIMEOUT, err);

	return e == -EINTR ? run_interrupted(st, err) : e;
}

/*
 * Opens the armed recorder's window: tells it, through its arm file, what
 * only the running load makes known (the processes to record, the harness's
 * own processes and the target, for the analysis), then waits for the window.
 */
static int open_window(struct run_state *st, struct run_outcome *out, struct wperf_error *err)
{
	char ready[PATH_MAX], arm[PATH_MAX];
	struct record_opts ro;
	struct wperf_buf pids = {0}, harness = {0}, text = {0};
	int e = record_pids(st, &pids, err);

	recording_opts_init(&ro);
	if (!e && harness_pids(st, &harness))
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	ro.harness_pids = harness.len ? (const char *)harness.data : "";
	/* for `report` on the trace later: the lists are about the target */
	ro.target = out->target;
	if (!e && pids.len > 1 && recording_add_pids(&ro, (const char *)pids.data))
		e = wperf_error_set(err, -E2BIG, "more than %d processes to record: %s",
				    RECORDING_MAX_PIDS, (const char *)pids.data);
	if (!e && recording_arm_text(&ro, &text))
		e = wperf_error_set(err, -EINVAL, "the target %s cannot be passed to the recorder",
				    out->target);
	run_path(st, ARM_FILE, arm, sizeof(arm));
	if (!e)
		e = output_write(arm, text.data, text.len, err);
	if (!e && kill(st->recorder.pgid, SIGUSR1) < 0)
		e = wperf_error_set(err, -errno, "cannot signal the recorder: %s", strerror(errno));
	if (!e)
		e = service_ready_file(&st->recorder,
				       run_path(st, READY_FILE, ready, sizeof(ready)),
				       RECORD_READY_TIMEOUT, err);
	wperf_buf_release(&pids);
	wperf_buf_release(&harness);
	wperf_buf_release(&text);
	if (e == -EINTR)
		e = run_interrupted(st, err);
	return e;
}

/* The recorder's window is open while its ready file exists (cmd_record.c). */
static bool window_open(struct run_state *st)
{
	char ready[PATH_MAX];

	return service_running(&st->recorder) &&
	       access(run_path(st, READY_FILE, ready, sizeof(ready)), F_OK) == 0;
}

/*
 * Ends a recording started with --hold: SIGINT closes the window, if the
 * recorder has not closed it itself; while it holds, record.on_stop runs
 * (when run_on_stop), unrecorded; the second SIGINT has it write the tables.
 */
static int stop_recorder(struct run_state *st, bool run_on_stop, struct wperf_error *err)
{
	const struct scenario_record *r = &st->o->s->record;
	double end = progress_now_s() + RECORD_STOP_TIMEOUT;
	int e = 0;

	if (window_open(st))
		kill(st->recorder.pgid, SIGINT);
	while (window_open(st) && progress_now_s() < end)
		spawn_nap(WINDOW_CLOSE_TICK);
	if (run_on_stop && !window_open(st) && service_running(&st->recorder))
		e = run_commands(st, "on_stop", r->on_stop, r->non_stop, err);
	run_stop(st, &st->recorder, SIGINT, RECORD_STOP_TIMEOUT);
	return e;
}

/*
 * Records while the load runs: for the window when there is one (the recorder
 * closes it itself), else until the load ends. A load that ends before the
 * window does cuts the recording short: that is said, not an error.
 */
static int record_load(struct run_state *st, struct wperf_error *err)
{
	const struct scenario_record *r = &st->o->s->record;
	double start = progress_now_s();
	int e;

	while (window_open(st)) {
		if ((e = watch(st, err)))
			return e;
		if (!service_running(&st->load)) {
			if (r->window > 0)
				progress_warn(st->o->progress,
					      "%s: the load ended %.1f s into the %g s window",
					      st->o->label, progress_now_s() - start, r->window);
			break;
		}
		if (r->window > 0 && progress_now_s() - start > r->window + RECORD_STOP_TIMEOUT)
			return wperf_error_set(err, -ETIMEDOUT,
					       "the recording did not end after %g s",
					       r->window + RECORD_STOP_TIMEOUT);
		if (r->window > 0)
			progress_status(st->o->progress, "%s: recording, %.0f s left ",
					st->o->label, r->window - (progress_now_s() - start));
		else if (st->o->s->load.duration > 0)
			progress_status(
			    st->o->progress, "%s: recording until the load ends, %.0f s left ",
			    st->o->label,
			    fmax(0, st->o->s->load.duration - (progress_now_s() - st->load_start)));
		else
			progress_status(st->o->progress,
					"%s: recording until the load ends, %.0f s so far ",
					st->o->label, progress_now_s() - start);
		run_nap();
	}
	if ((e = stop_recorder(st, true, err)))
		return e;
	if (!WIFEXITED(st->recorder.status) || WEXITSTATUS(st->recorder.status) != 0)
		return run_failed(&st->recorder, "the recorder", err);
	progress_say(st->o->progress, "%s: recorded %.1f s", st->o->label,
		     progress_now_s() - start);
	return 0;
}

/* Waits for the load to end by itself, within its limit (load_limit). */
static int finish_load(struct run_state *st, struct wperf_error *err)
{
	int e;

	while (service_running(&st->load)) {
		if ((e = watch(st, err)))
			return e;
		progress_status(st->o->progress, "%s: waiting for the load to end ", st->o->label);
		run_nap();
	}
	if (!WIFEXITED(st->load.status) || WEXITSTATUS(st->load.status) != 0)
		return run_failed(&st->load, "the load", err);
	return 0;
}

/* The throughput and the other metrics the load left. */
static int read_measures(struct run_state *st, struct run_outcome *out, struct wperf_error *err)
{
	return load_measures_read(&st->o->s->load, st->load.log_path, &out->throughput,
				  out->metrics, err);
}

/* Stops whatever still runs, newest first. */
static void stop_everything(struct run_state *st)
{
	stop_recorder(st, false, NULL);
	run_stop(st, &st->load, SIGTERM, st->o->s->load.stop_timeout);
	while (st->nstarted > 0) {
		const struct scenario_service *sv = &st->o->s->services[--st->nstarted];

		run_stop(st, &st->services[st->nstarted], sv->stop_signal, sv->stop_timeout);
	}
}

static int run_load(struct run_state *st, struct run_outcome *out, struct wperf_error *err)
{
	const struct scenario *s = st->o->s;
	char log[PATH_MAX];
	struct service_spec spec = {.name = "the load",
				    .argv = s->load.command.argv,
				    .env = s->load.env,
				    .cwd = s->load.cwd,
				    .log_path = run_path(st, "load.log", log, sizeof(log))};
	int e;

	if ((e = wait_armed(st, err)))
		return e;
	st->load_start = progress_now_s();
	e = run_start(st, &spec, &st->load, err);
	if (e)
		return e;
	progress_say(st->o->progress, "%s: load started%s", st->o->label,
		     s->record.warmup > 0 ? ", warming up" : "");
	if (s->record.warmup > 0 && (e = wait_with_load(st, s->record.warmup, "warm-up", err)))
		return e;
	e = analysis_target(st, out, err);
	/* A load that failed at once leaves no process to target: its exit status
	 * and its log say why, the missing target does not. */
	if (e == -ESRCH && !service_running(&st->load) &&
	    (!WIFEXITED(st->load.status) || WEXITSTATUS(st->load.status) != 0))
		return run_failed(&st->load, "the load", err);
	if (e || (e = open_window(st, out, err)))
		return e;
	progress_say(st->o->progress, "%s: recording", st->o->label);
	if ((e = record_load(st, err)) || (e = finish_load(st, err)))
		return e;
	if ((e = check_services(st, err)) || (e = read_measures(st, out, err)))
		return e;
	return 0;
}

int runner_run(const struct runner_opts *o, struct run_outcome *out, struct wperf_error *err)
{
	const struct scenario *s = o->s;
	struct run_state st = {.o = o};
	struct wperf_error teardown_err = {0};
	int e, te;

	memset(out, 0, sizeof(*out));
	out->throughput = NAN;
	st.services = calloc(s->nservices + 1, sizeof(*st.services));
	if (!st.services)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	e = run_commands(&st, "prepare", s->prepare, s->nprepare, err);
	if (!e)
		e = arm_recorder(&st, out, err);
	if (!e)
		e = start_services(&st, err);
	if (!e)
		e = check_services(&st, err); /* one that ended while a later one started */
	if (!e)
		e = run_load(&st, out, err);
	stop_everything(&st);
	if (e == -EINTR || (!e && (e = run_interrupted(&st, err))))
		progress_warn(o->progress, "%s: %s; everything it started is stopped", o->label,
			      err->msg);
	/* The teardown runs after a failure too: it undoes what the setup did. */
	te = run_commands(&st, "teardown", s->teardown, s->nteardown, &teardown_err);
	if (te && !e)
		e = wperf_error_set(err, te, "%s", teardown_err.msg);
	else if (te)
		progress_warn(o->progress, "%s: %s", o->label, teardown_err.msg);
	if (!e && (e = run_interrupted(&st, err))) /* during the teardown: no analysis */
		progress_warn(o->progress, "%s: %s during the teardown", o->label, err->msg);
	free(st.services);
	return e;
}
