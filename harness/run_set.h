/* SPDX-License-Identifier: MIT */
/*
 * A run set: a scenario run N times into one results folder (results.h), each
 * run analyzed as soon as it is recorded. Used by `run` and `baseline update`.
 *
 * SIGINT, SIGTERM and SIGHUP stop it cleanly: the run in progress stops
 * everything it started and runs its teardown, and the folder is left marked
 * incomplete with the signal as the reason.
 */
#ifndef WPERF_RUN_SET_H
#define WPERF_RUN_SET_H

#include "core/error.h"
#include "harness/results.h"
#include "harness/scenario.h"

struct run_set_opts {
	const char *scenario_path;
	const char *results_dir; /* NULL: results/NAME-YYYYmmdd-HHMMSS */
	unsigned runs;		 /* 0: the scenario's */
	const char *build_dir;	 /* ${BUILD_DIR}; NULL: the folder of this executable */
	int quiet;		 /* only warnings and errors on the terminal */
};

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
