/* SPDX-License-Identifier: MIT */
/*
 * The results folder of `wperf-bench run`: what a run set leaves for people,
 * for `compare` and for `baseline update`.
 *
 *   RESULTS/summary.json   status (complete or incomplete, with the reason),
 *                          scenario, environment, git commit, gate options,
 *                          the verdict and its baseline (once judged), and
 *                          per run: throughput, knots, edges, expectation met
 *   RESULTS/summary.md     the same for people (and the verdict, when gated)
 *   RESULTS/verdict.md     the verdict for people, junit.xml for CI (once judged)
 *   RESULTS/INCOMPLETE     the reason, while the run set is not complete
 *   RESULTS/scenario.yaml  the scenario file as it was run
 *   RESULTS/log            every step, with times
 *   RESULTS/graph.svg      the wait-for graph of the median run
 *   RESULTS/plots/         throughput and edge weights per run (SVG, PNG)
 *   RESULTS/runs/N/        run N: wperf.trace, report.json, report.txt,
 *                          graph.svg and the logs of its processes
 *
 * summary.json is rewritten (atomically) after every run, so that a run set
 * cut short by a crash still says how far it got.
 *
 * Ownership: struct results owns its runs; results_release frees them.
 */
#ifndef WPERF_RESULTS_H
#define WPERF_RESULTS_H

#include <limits.h>
#include <time.h>

#include "core/gate/baseline.h"
#include "core/util/error.h"
#include "core/gate/runset.h"
#include "core/gate/verdict.h"
#include "harness/git/git_repo.h"

#define RESULTS_FORMAT "wperf-results/1"

/* What a run's expectation (the scenario's expect block) came to. */
struct results_expect {
	int checked; /* the scenario has an expectation */
	int met;
	char why[512]; /* when not met */
};

/* Room for the names of the files in a results folder after its own. */
#define RESULTS_DIR_MAX (PATH_MAX - 256)

struct results {
	char dir[RESULTS_DIR_MAX];
	char scenario[128];
	int complete;
	char reason[1024]; /* why not complete */
	time_t started;
	struct wperf_env env;
	struct wperf_gate_opts gate;   /* the scenario's (env left NULL) */
	struct wperf_runset runs;      /* in order: run i is runs/i+1 */
	struct results_expect *expect; /* per run */
	struct git_info git;	       /* the commit run; empty outside a repository */
	/* Set by the gate (gate_judge); empty when the runs were not judged. */
	char verdict[32];	      /* wperf_verdict_name */
	char baseline_from[PATH_MAX]; /* the baseline's file, and its commit when read from one */
};

/*
 * Makes the folder dir (with its parents), which must be missing or empty, and
 * its runs/ and plots/ folders. 0 or a negative errno with err.
 */
int results_make_dir(const char *dir, struct wperf_error *err);

/* The environment this program runs in: kernel, CPU model, CPUs, tool, and
 * the calibration (harness/run/calibrate.h), which takes about 200 ms. */
void results_environment(struct wperf_env *env);

/* Moves *run into r with its expectation; 0 or -ENOMEM. */
int results_add_run(struct results *r, struct wperf_run *run, const struct results_expect *x);

/*
 * Writes summary.json and summary.md (verdict_md appended when not NULL), and
 * creates or removes INCOMPLETE to match r->complete (results_summary.c). 0 or
 * a negative errno.
 */
int results_write(const struct results *r, const char *verdict_md, struct wperf_error *err);

/* Writes b to r->dir/name atomically; 0 or a negative errno. */
int results_write_file(const struct results *r, const char *name, const struct wperf_buf *b,
		       struct wperf_error *err);

/* summary.json of r into out (results_json.c, its one writer and reader);
 * 0, -ENOMEM or -EINVAL (a run that is not one of runset.h). */
int results_summary_json(const struct results *r, struct wperf_buf *out);

/* Reads dir/summary.json back (results_json.c); errors name the file, the key
 * path and what was expected: "DIR/summary.json: gate.min_runs: expected ...". */
int results_read(const char *dir, struct results *out, struct wperf_error *err);

/* Reads the text of dir/summary.json (its path into file, of size) into
 * text; a missing one is "FILE: no such file (is DIR WHAT?)", what saying
 * which command's folder was wanted. 0 or a negative errno with err. */
int results_read_summary_text(const char *dir, const char *what, char *file, size_t size,
			      struct wperf_buf *text, struct wperf_error *err);

void results_release(struct results *r);

#endif /* WPERF_RESULTS_H */
