/* SPDX-License-Identifier: MIT */
/*
 * One scenario of a check: its runs, made a few at a time until the verdict is
 * clear, and its verdict.
 *
 * With a base tree (harness/git/base_tree.h), the base and the head run in turns
 * on this machine, pair by pair, base first in odd pairs and head first in
 * even ones (a warm cache or a drifting machine favours neither side), and
 * the head is judged against a baseline made from the base's runs with paired
 * tests. Without, the head's runs are judged against the stored baseline.
 *
 * The looks: after `first` runs per side, then every `step` more, up to
 * `max`. After each look the runs are judged; when no finding is undecided
 * (core/gate/verdict.h) and the runs are not underpowered the scenario ends,
 * otherwise the next look comes (also after a failure: a vertex joining the
 * bottleneck in 4 of 5 runs may settle it as a new bottleneck rather than a
 * regression), unless its runs so far say it would end past the deadline.
 * Each look is a chance of a false failure, so each look spends a part of the
 * scenario's alpha by O'Brien and Fleming's plan (core/gate/spending.h):
 * little on the first looks, most on the last; the parts add up to alpha.
 *
 *   DIR/            without a base: the head's results folder (as `run`)
 *   DIR/base/, DIR/head/, DIR/base.yaml   with a base
 *
 * The base decides the bar: with a base, both sides run the base's scenario
 * file (its load, runs, metrics and gate settings), and the accepted: entries
 * are those of the base's stored baseline; what the head's copies change is
 * listed in the scenario's settings_changed, not applied (unless trust_head).
 *
 * A scenario that the base commit lacks (the change adds it) is, with new_ok,
 * run on the head alone into DIR/ and compared with nothing: its verdict is
 * its expected answer's, and its reason says it is new.
 */
#ifndef WPERF_CHECK_SCENARIO_H
#define WPERF_CHECK_SCENARIO_H

#include "core/gate/check.h"
#include "core/util/error.h"
#include "harness/git/base_tree.h"
#include "harness/gate/gate.h"

/* When to look at the runs. A zeroed struct: the defaults. */
struct check_looks {
	unsigned first; /* runs per side before the first look; 0: the scenario's runs,
			 * at least its gate's min_runs */
	unsigned step;	/* runs per side added before each further look; 0: 3 */
	unsigned max;	/* runs per side at the most; 0: first + 4 steps */
};

/* How many looks l makes for a scenario whose first look is at first runs. */
unsigned check_looks_count(const struct check_looks *l, unsigned first);
/* The runs per side at look k (from 0) of the same. */
unsigned check_looks_runs(const struct check_looks *l, unsigned first, unsigned k);
/* The level of look k of the same, for a scenario whose alpha is alpha: the
 * part the spending plan gives it (core/gate/spending.h). */
double check_looks_level(const struct check_looks *l, unsigned first, unsigned k, double alpha);
/* The level of look k when the plan ends there (no time for the next): what
 * the earlier looks left of alpha. */
double check_looks_final_level(const struct check_looks *l, unsigned first, unsigned k,
			       double alpha);

struct check_scenario_opts {
	const char *scenario;	/* its file, in the work tree */
	const char *dir;	/* the results folder (see above) */
	struct base_tree *base; /* NULL: against the stored baseline */
	/* With a base: the head's tree, another commit's (bisect's commit under
	 * test), run as the base's is; NULL: the work tree. */
	const struct base_tree *head;
	const struct gate_baseline_src
	    *baseline; /* without a base; with one, its dir only
			* (the accepted entries); NULL: baselines/NAME.yaml */
	struct check_looks looks;
	/* After this time (progress_now_s), no look is added that its runs so
	 * far say would end later: the check's budget. 0: none. */
	double deadline;
	double alpha; /* the rate of false failures allowed this scenario, over its
		       * looks and tests; 0: WPERF_GATE_ALPHA */
	/* ${BUILD_DIR}: relative, each tree's folder of that name with a base
	 * (the base's and the work tree's), else from here; absolute, the head's
	 * (the base's is its build/). NULL: build/ of each tree with a base,
	 * else the folder of this program. */
	const char *build_dir;
	char *const *defs; /* the user's variables, for both sides (scenario_vars.defs) */
	int quiet;
	/* With a base that lacks the scenario (a change that adds it): run the
	 * head alone, compare nothing, check its expected answer; else an error. */
	int new_ok;
	/* With a base: run and judge the head under its own scenario file and
	 * accepted: entries, not the base's (--trust-head-settings). */
	int trust_head;
};

/*
 * Runs and judges one scenario into *out (release it with
 * wperf_check_scenario_release): its name (its file's stem when it could not
 * be loaded), folder (the last part of o->dir: the check's summary names it
 * relative to the check's folder), runs per side,
 * seconds, and its verdict; or out->error with out->reason when it could not
 * run or be judged (a service that never became ready, a missing baseline):
 * that is the scenario's outcome, and 0 is returned. A negative errno only
 * for what must stop the whole check: -EINTR (a signal), -ENOMEM.
 */
int check_scenario(const struct check_scenario_opts *o, struct wperf_check_scenario *out,
		   struct wperf_error *err);

#endif /* WPERF_CHECK_SCENARIO_H */
