/* SPDX-License-Identifier: MIT */
#include "harness/run/run_set.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/analyze_run.h"
#include "harness/git/git_repo.h"
#include "harness/base/output.h"
#include "harness/run/plots.h"
#include "harness/base/progress.h"
#include "harness/run/runner.h"
#include "harness/run/service.h"
#include "harness/run/stale.h"

/* The signal that asks the run set to stop: signal handlers are process-wide,
 * so this flag is too. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP (sizeof(stop_signals) / sizeof(*stop_signals))

/* No SA_RESTART: a signal cuts the naps of the wait loops short. */
static void catch_stop_signals(struct sigaction old[NSTOP])
{
	struct sigaction sa = {.sa_handler = on_stop_signal};

	stop_signal = 0;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &sa, &old[i]);
	service_cancel_on(&stop_signal);
}

static void restore_stop_signals(const struct sigaction old[NSTOP])
{
	service_cancel_on(NULL);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &old[i], NULL);
}

/* path made absolute (against the working directory), for commands that run
 * elsewhere (services with a cwd). */
static int absolute(const char *path, char *out, size_t size, struct wperf_error *err)
{
	char cwd[PATH_MAX];

	if (path[0] == '/') {
		snprintf(out, size, "%s", path);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return wperf_error_set(err, -errno, "getcwd: %s", strerror(errno));
	if ((size_t)snprintf(out, size, "%s/%s", cwd, path) >= size)
		return wperf_error_set(err, -ENAMETOOLONG, "%s/%s: path too long", cwd, path);
	return 0;
}

static int copy_file(const char *from, const char *to, struct wperf_error *err)
{
	struct wperf_buf b = {0};
	int e = output_read_all(from, &b, err);

	if (!e)
		e = output_write(to, b.data, b.len, err);
	wperf_buf_release(&b);
	return e;
}

/* Everything a run set works with. */
struct run_set {
	struct run_set_opts o;
	struct scenario *s;
	struct results *r;
	struct progress progress;
	char self[PATH_MAX], build_dir[PATH_MAX];
	char ledger[PATH_MAX];	  /* RESULTS/processes: the groups started (stale.h) */
	struct stale_entry entry; /* in the registry while the set runs */
	unsigned runs, done;
	struct sigaction old[NSTOP];
	int catching;
};

/*
 * Finds this executable, and ${BUILD_DIR} unless given: the folder of this
 * executable when make built it there, where the scenarios' programs are built
 * too (the Makefile leaves BUILD/source-tree beside it). An installed
 * wperf-bench has no such folder: ${BUILD_DIR} stays undefined (empty here),
 * and a scenario that uses it fails to load, saying how to define it.
 */
static int find_self(struct run_set *set, struct wperf_error *err)
{
	ssize_t n = readlink("/proc/self/exe", set->self, sizeof(set->self) - 1);
	char marker[PATH_MAX + 16];
	char *slash;

	if (n < 0)
		return wperf_error_set(err, -errno, "/proc/self/exe: %s", strerror(errno));
	set->self[n] = '\0';
	if (set->o.build_dir)
		return absolute(set->o.build_dir, set->build_dir, sizeof(set->build_dir), err);
	snprintf(set->build_dir, sizeof(set->build_dir), "%s", set->self);
	slash = strrchr(set->build_dir, '/');
	if (slash)
		*slash = '\0';
	snprintf(marker, sizeof(marker), "%s/source-tree", set->build_dir);
	if (access(marker, F_OK))
		set->build_dir[0] = '\0';
	return 0;
}

/*
 * Loads the scenario twice: first to learn its name (for the default results
 * folder) and to fail before making any folder, then with ${RESULTS_DIR} known.
 */
static int load_scenario(struct run_set *set, struct wperf_error *err)
{
	struct scenario_vars vars = {.results_dir = "<results>",
				     .build_dir = set->build_dir[0] ? set->build_dir : NULL,
				     .defs = set->o.defs,
				     .env = environ};
	struct results *r = set->r;
	char stamp[32];
	time_t now = time(NULL);
	int e = scenario_load(set->o.scenario_path, &vars, &set->s, err);

	if (e)
		return e;
	if (set->o.results_dir) {
		e = absolute(set->o.results_dir, r->dir, sizeof(r->dir), err);
	} else {
		char rel[PATH_MAX];

		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
		snprintf(rel, sizeof(rel), "results/%s-%s", set->s->name, stamp);
		e = absolute(rel, r->dir, sizeof(r->dir), err);
	}
	scenario_free(set->s);
	set->s = NULL;
	if (!e)
		e = results_make_dir(r->dir, err);
	if (e) {
		r->dir[0] = '\0';
		return e;
	}
	vars.results_dir = r->dir;
	return scenario_load(set->o.scenario_path, &vars, &set->s, err);
}

/* The run whose throughput is the median (the first run when there is none). */
static size_t median_run(const struct wperf_runset *rs)
{
	size_t best = 0, below_best = 0;

	for (size_t i = 0; i < rs->nruns; i++) {
		size_t below = 0, above = 0;

		if (isnan(rs->runs[i].throughput))
			continue;
		for (size_t j = 0; j < rs->nruns; j++)
			if (!isnan(rs->runs[j].throughput)) {
				below += rs->runs[j].throughput < rs->runs[i].throughput;
				above += rs->runs[j].throughput > rs->runs[i].throughput;
			}
		if (below <= above + 1 && above <= below + 1 && (!i || below >= below_best))
			best = i, below_best = below;
	}
	return best;
}

static void say_run(struct run_set *set, const char *label, const struct wperf_run *run,
		    const struct results_expect *x)
{
	struct wperf_buf line = {0};
	int e = isnan(run->throughput) ? wperf_buf_printf(&line, "%s: ", label)
				       : wperf_buf_printf(&line, "%s: %.6g %s; ", label,
							  run->throughput, set->r->runs.unit);

	for (size_t k = 0; !e && k < run->nknots; k++) {
		e = wperf_buf_printf(&line, "%s{", k ? ", " : "knots ");
		for (size_t i = 0; !e && i < run->knots[k].n; i++)
			e = wperf_buf_printf(&line, "%s%s", i ? ", " : "", run->knots[k].ids[i]);
		if (!e)
			e = wperf_buf_printf(&line, "}");
	}
	if (!e && !run->nknots)
		e = wperf_buf_printf(&line, "no knot");
	if (!e && x->checked)
		e = wperf_buf_printf(&line, "; expected answer %s", x->met ? "found" : "MISSING");
	if (!e && wperf_buf_append(&line, "", 1) == 0)
		progress_say(&set->progress, "%s", (const char *)line.data);
	if (x->checked && !x->met)
		progress_warn(&set->progress, "%s: %s", label, x->why);
	wperf_buf_release(&line);
}

void run_set_expectation(const struct scenario *s, struct wperf_expect *want)
{
	const struct scenario_expect *se = &s->expect;

	*want = (struct wperf_expect){
	    .knot = (const char *const *)se->knot,
	    .nknot = se->nknot,
	    .not_in_knot = (const char *const *)se->not_in_knot,
	    .nnot_in_knot = se->nnot_in_knot,
	    .sink = (const char *const *)se->sink,
	    .nsink = se->nsink,
	    .no_knot = se->no_knot,
	    .cmetric_first = se->cmetric_first,
	    .timer_paced = (const char *const *)se->timer_paced,
	    .ntimer_paced = se->ntimer_paced,
	};
}

/* The scenario's other metrics, each with its tolerance resolved. */
static int init_metrics(const struct scenario *s, struct wperf_runset *rs)
{
	if (!s->load.nmetrics)
		return 0;
	if (!(rs->metrics = calloc(s->load.nmetrics, sizeof(*rs->metrics))))
		return -ENOMEM;
	for (; rs->nmetrics < s->load.nmetrics; rs->nmetrics++) {
		const struct scenario_metric *m = &s->load.metrics[rs->nmetrics];
		struct wperf_metric *out = &rs->metrics[rs->nmetrics];

		snprintf(out->name, sizeof(out->name), "%s", m->name);
		snprintf(out->unit, sizeof(out->unit), "%s", m->unit ? m->unit : "");
		out->lower_is_better = !m->higher_is_better;
		out->tolerance = m->tolerance > 0 ? m->tolerance : s->gate.throughput_tolerance;
	}
	return 0;
}

/* The metrics the runner read into run, by name. */
static int set_metrics(const struct scenario *s, const struct run_outcome *out,
		       struct wperf_run *run)
{
	int e = 0;

	for (size_t i = 0; i < s->load.nmetrics && !e; i++)
		e = wperf_run_set_metric(run, s->load.metrics[i].name, out->metrics[i]);
	return e;
}

static int one_run(struct run_set *set, unsigned i, struct wperf_error *err)
{
	const struct scenario *s = set->s;
	char run_dir[PATH_MAX], label[64];
	struct runner_opts ro = {.s = s,
				 .self = set->self,
				 .run_dir = run_dir,
				 .label = label,
				 .ledger = set->ledger,
				 .progress = &set->progress,
				 .interrupted = &stop_signal};
	struct run_outcome out;
	struct wperf_run run;
	struct wperf_expect want;
	struct results_expect x = {.checked = s->expect.given};
	int e;

	run_set_expectation(s, &want);

	snprintf(label, sizeof(label), "%s%srun %u/%u", set->o.label ? set->o.label : "",
		 set->o.label ? ": " : "", i, set->runs);
	snprintf(run_dir, sizeof(run_dir), "%s/runs/%u", set->r->dir, i);
	if (mkdir(run_dir, 0755) < 0)
		return wperf_error_set(err, -errno, "cannot make %s: %s", run_dir, strerror(errno));
	stale_mark(set->r->dir);
	e = runner_run(&ro, &out, err);
	if (e)
		return e;
	progress_say(&set->progress, "%s: analyzing %s", label, out.trace);
	e = analyze_run(s, out.trace, out.target, out.throughput, run_dir, &run, err);
	if (e) {
		char msg[WPERF_ERROR_MSG_LEN];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		return wperf_error_set(err, e, "%s: %s", out.trace, msg);
	}
	if (set_metrics(s, &out, &run) < 0) {
		wperf_run_release(&run);
		return wperf_error_set(err, -ENOMEM, "out of memory");
	}
	if (x.checked)
		x.met = wperf_run_expect(&run, &want, x.why, sizeof(x.why)) >= 0;
	say_run(set, label, &run, &x);
	if (results_add_run(set->r, &run, &x) < 0) {
		wperf_run_release(&run);
		return wperf_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* What a complete run set leaves on top of its runs: the median run's graph and the plots. */
static void finish(struct run_set *set)
{
	struct wperf_error err = {0};
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/runs/%zu/graph.svg", set->r->dir,
		 median_run(&set->r->runs) + 1);
	snprintf(to, sizeof(to), "%s/graph.svg", set->r->dir);
	if (copy_file(from, to, &err) < 0)
		progress_warn(&set->progress, "%s", err.msg);
	snprintf(to, sizeof(to), "%s/plots", set->r->dir);
	if (plots_write(&set->r->runs, set->s->name, to, &err) < 0)
		progress_warn(&set->progress, "plots: %s", err.msg);
}

void run_set_gate_opts(const struct scenario *s, struct wperf_gate_opts *g)
{
	g->edge_tolerance = s->gate.edge_tolerance;
	g->throughput_tolerance = s->gate.throughput_tolerance;
	g->warn_ratio = s->gate.warn_ratio;
	g->min_runs = s->gate.min_runs;
	g->max_lost = s->gate.max_lost;
	g->detect = s->gate.detect;
	g->lower_is_better = !s->load.throughput.higher_is_better;
}

static void init_results(struct run_set *set)
{
	const struct scenario *s = set->s;
	struct results *r = set->r;

	snprintf(r->scenario, sizeof(r->scenario), "%s", s->name);
	snprintf(r->runs.unit, sizeof(r->runs.unit), "%s",
		 s->load.throughput.unit ? s->load.throughput.unit : "");
	snprintf(r->reason, sizeof(r->reason),
		 "the run set is in progress, or wperf-bench stopped without cleaning up");
	r->started = time(NULL);
	results_environment(&r->env);
	git_repo_info_of(".", &r->git);
	run_set_gate_opts(s, &r->gate);
}

/* Into the set's working directory (*back: the way back, -1: none). */
static int enter_workdir(const struct run_set *set, int *back, struct wperf_error *err)
{
	*back = -1;
	if (!set->o.workdir)
		return 0;
	*back = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*back < 0)
		return wperf_error_set(err, -errno, "the working directory: %s", strerror(errno));
	if (chdir(set->o.workdir) < 0) {
		int e = -errno;

		close(*back);
		*back = -1;
		return wperf_error_set(err, e, "%s: %s", set->o.workdir, strerror(-e));
	}
	return 0;
}

static void leave_workdir(int back)
{
	if (back < 0)
		return;
	if (fchdir(back) < 0)
		abort(); /* the folder we came from is open: this cannot fail */
	close(back);
}

int run_set_open(const struct run_set_opts *o, struct results *out, struct run_set **setp,
		 struct wperf_error *err)
{
	struct run_set *set = calloc(1, sizeof(*set));
	struct wperf_error reg = {0};
	char path[PATH_MAX];
	int e;

	memset(out, 0, sizeof(*out));
	*setp = set;
	if (!set)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	set->o = *o;
	set->r = out;
	progress_init(&set->progress, o->quiet);
	e = find_self(set, err);
	if (!e)
		e = load_scenario(set, err);
	if (e)
		return e;
	if (o->stacks_set) /* the same bits (runner.c) */
		set->s->record.stacks = (enum scenario_stacks)o->stacks;
	set->runs = o->runs ? o->runs : set->s->runs;
	init_results(set);
	if (init_metrics(set->s, &out->runs) < 0)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/log", out->dir);
	e = progress_open(&set->progress, path, err);
	if (e)
		return e;
	/* Before anything runs: what a killed run left may be in the way. */
	stale_sweep(&set->progress);
	snprintf(path, sizeof(path), "%s/scenario.yaml", out->dir);
	snprintf(set->ledger, sizeof(set->ledger), "%s/%s", out->dir, STALE_LEDGER);
	e = copy_file(set->s->file, path, err); /* the whole file, matrix and all */
	if (!e)
		e = results_write(out, NULL, err);
	if (e)
		return e;
	if (stale_register(out->dir, &set->entry, &reg) < 0)
		progress_warn(&set->progress,
			      "%s: should wperf-bench be killed, no later run could clean up "
			      "after it",
			      reg.msg);
	progress_say(&set->progress, "%s: %u run%s into %s", set->s->name, set->runs,
		     set->runs == 1 ? "" : "s", out->dir);
	catch_stop_signals(set->old);
	set->catching = 1;
	return 0;
}

unsigned run_set_planned(const struct run_set *set)
{
	return set->runs;
}

void run_set_plan(struct run_set *set, unsigned runs)
{
	if (runs > set->runs)
		set->runs = runs;
}

/* Runs commands of the whole set (build, setup) from its working directory,
 * their output in RESULTS/PHASE.log. */
static int set_commands(struct run_set *set, const char *phase, const struct scenario_command *cmds,
			size_t n, struct wperf_error *err)
{
	char label[64];
	struct runner_opts ro = {.s = set->s,
				 .self = set->self,
				 .run_dir = set->r->dir,
				 .label = label,
				 .ledger = set->ledger,
				 .progress = &set->progress,
				 .interrupted = &stop_signal};
	int back, e = enter_workdir(set, &back, err);

	snprintf(label, sizeof(label), "%s", set->o.label ? set->o.label : set->s->name);
	stale_mark(set->r->dir);
	if (!e)
		e = runner_commands(&ro, phase, cmds, n, err);
	leave_workdir(back);
	return e;
}

int run_set_build(struct run_set *set, struct wperf_error *err)
{
	if (!set->s->nbuild)
		progress_warn(&set->progress,
			      "%s: the scenario has no build commands: ${BUILD_DIR} (%s) must "
			      "hold what it runs already",
			      set->o.label ? set->o.label : set->s->name, set->build_dir);
	return set_commands(set, "build", set->s->build, set->s->nbuild, err);
}

int run_set_next(struct run_set *set, struct wperf_error *err)
{
	int back = -1, e = 0;

	/* The setup, once, before the set's first run (prepare is the runner's,
	 * before every run). */
	if (!set->done)
		e = set_commands(set, "setup", set->s->setup, set->s->nsetup, err);
	if (!e)
		e = enter_workdir(set, &back, err);
	if (!e)
		e = one_run(set, ++set->done, err);
	leave_workdir(back);
	if (!e && stop_signal)
		e = wperf_error_set(err, -EINTR, "interrupted by SIG%s", sigabbrev_np(stop_signal));
	if (!e)
		e = results_write(set->r, NULL, err);
	return e;
}

int run_set_close(struct run_set *set, int e, struct scenario **scenario, struct wperf_error *err)
{
	struct results *out = set ? set->r : NULL;

	if (scenario)
		*scenario = NULL;
	if (!set)
		return e;
	if (set->catching)
		restore_stop_signals(set->old);
	if (!e) {
		out->complete = 1;
		finish(set);
		e = results_write(out, NULL, err);
	}
	if (e && out->dir[0]) {
		struct wperf_error werr = {0};

		out->complete = 0;
		snprintf(out->reason, sizeof(out->reason), "%s", err->msg);
		progress_error(&set->progress, "%s", err->msg);
		if (results_write(out, NULL, &werr) < 0)
			progress_error(&set->progress, "%s", werr.msg);
		progress_say(&set->progress, "%s is marked incomplete", out->dir);
	}
	stale_unregister(&set->entry); /* everything it started is stopped */
	progress_close(&set->progress);
	if (scenario)
		*scenario = set->s;
	else
		scenario_free(set->s);
	free(set);
	return e;
}

int run_set(const struct run_set_opts *o, struct results *out, struct scenario **scenario,
	    struct wperf_error *err)
{
	struct run_set *set;
	int e = run_set_open(o, out, &set, err);

	for (unsigned i = 0; !e && i < set->runs; i++)
		e = run_set_next(set, err);
	return run_set_close(set, e, scenario, err);
}
