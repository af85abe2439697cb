/* SPDX-License-Identifier: MIT */
/*
 * A run set: a scenario run N times into one results folder (results.h), each
 * run analyzed as soon as it is recorded. Used by `run` and `baseline update`
 * (run_set), and by `ab`, which interleaves the runs of two sets (open, then
 * next on each in turn, then close).
 *
 * SIGINT, SIGTERM and SIGHUP stop it cleanly: the run in progress stops
 * everything it started and runs its teardown, and the folder is left marked
 * incomplete with the signal as the reason. They are caught from open to close.
 *
 * A SIGKILL cannot be caught: run_set_open first cleans up after any run set
 * whose wperf-bench was killed, and registers its own (harness/run/stale.h).
 *
 * Ownership: run_set_open gives a struct run_set that run_set_close frees.
 */
#ifndef WPERF_RUN_SET_H
#define WPERF_RUN_SET_H

#include "core/util/error.h"
#include "harness/run/results.h"
#include "core/scenario/scenario.h"

struct run_set_opts {
	const char *scenario_path;
	const char *results_dir; /* NULL: results/NAME-YYYYmmdd-HHMMSS */
	unsigned runs;		 /* 0: the scenario's */
	const char *build_dir;	 /* ${BUILD_DIR}; NULL: the folder of this executable */
	char *const *defs;	 /* the user's variables (scenario_vars.defs); NULL: none */
	int quiet;		 /* only warnings and errors on the terminal */
	const char *workdir;	 /* the runs' working directory; NULL: this one */
	const char *label;	 /* before "run N/M" in messages ("base"); NULL: none */
	unsigned stacks;	 /* RECORD_STACKS_* instead of the scenario's record.stacks */
	int stacks_set;		 /* stacks is set */
};

struct run_set;

/*
 * Loads the scenario, makes the results folder and writes its first summary.
 * 0 and *set; otherwise a negative errno with err, and out as run_set says.
 */
int run_set_open(const struct run_set_opts *o, struct results *out, struct run_set **set,
		 struct wperf_error *err);

/* The scenario's expected answer as the gate checks it; want points into s. */
void run_set_expectation(const struct scenario *s, struct wperf_expect *want);

/* The gate options of s's scenario file (its gate: block and the throughput's
 * direction) into g, the rest of g as it was: what its results are judged
 * with. */
void run_set_gate_opts(const struct scenario *s, struct wperf_gate_opts *g);

/* How many runs the set makes: the option's, else the scenario's. */
unsigned run_set_planned(const struct run_set *set);

/* Raises the runs the set makes to runs (for a check that adds runs while its
 * verdict is unclear); never lowers it. */
void run_set_plan(struct run_set *set, unsigned runs);

/* The scenario's build commands, run in the working directory (for ab). */
int run_set_build(struct run_set *set, struct wperf_error *err);

/* The next run: recorded, analyzed, added to the results, summary.json written.
 * -EINTR when a signal came. */
int run_set_next(struct run_set *set, struct wperf_error *err);

/*
 * Ends the set after e (0: every run done): a complete folder gets the median
 * run's graph and the plots; after an error it is marked incomplete with err's
 * message. Returns e, or the error of writing the folder. *scenario gets the
 * scenario (NULL: freed). Frees set.
 */
int run_set_close(struct run_set *set, int e, struct scenario **scenario, struct wperf_error *err);

/*
 * Runs the set. Returns 0 with out complete; otherwise a negative errno with
 * err saying why (-EINTR: a signal), out->complete 0 and the folder written as
 * far as it got (out->dir empty when not even the folder could be made).
 * *scenario gets the scenario as loaded (free it with scenario_free; NULL when
 * it could not be loaded). Release out with results_release in every case.
 */
int run_set(const struct run_set_opts *o, struct results *out, struct scenario **scenario,
	    struct wperf_error *err);

#endif /* WPERF_RUN_SET_H */
