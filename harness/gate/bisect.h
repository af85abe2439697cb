/* SPDX-License-Identifier: MIT */
/*
 * A bisection driven by the gate: the commits after a good one up to a bad
 * one, halved until the first bad commit is found (core/gate/bisect_plan.h),
 * each commit judged against
 * the good commit as `ab` judges a change (harness/gate/check_scenario.h):
 * the good commit and the commit under test run in turns on this machine,
 * both under the good commit's copy of the scenario (its load, runs and gate
 * settings), pairs added while the verdict is undecided. A commit whose
 * verdict fails (new-bottleneck, regression) is bad, one that passes (or
 * improves) is good; one still inconclusive at the most runs ends the
 * bisection there, to be resumed with more runs.
 *
 * The bad commit is judged first: when it passes, there is nothing to find.
 * Each judgment may be wrong with a chance of the level it is run at; the
 * bisection's alpha is split evenly between the judgments a bisection of its
 * commits can need (Bonferroni), so that it names a wrong commit by a false
 * failure with a chance of at most alpha.
 *
 *   DIR/bisect.log        what was asked and each commit's mark, a line each:
 *                         read back to resume (the same good, bad, scenario)
 *   DIR/trees/OID/        each commit's tree, built once, reused
 *   DIR/steps/OID/        each judgment's results (base/, head/ as ab's)
 */
#ifndef WPERF_BISECT_H
#define WPERF_BISECT_H

#include <stddef.h>

#include "core/gate/bisect_plan.h"
#include "core/util/error.h"
#include "harness/gate/check_scenario.h"
#include "harness/git/git_repo.h"

struct bisect_opts {
	const char *good, *bad; /* revisions, as git rev-parse takes them */
	const char *scenario;	/* its file in the work tree; the good commit's copy runs */
	const char *dir;	/* the results folder (see above) */
	struct check_looks looks;
	double alpha; /* the whole bisection's; 0: WPERF_GATE_ALPHA */
	const char *build_dir;
	char *const *defs; /* the user's scenario variables */
	int quiet;
};

/* What a bisection found. Ownership: bisect_run fills it, bisect_release frees
 * its members (NULL-safe). */
struct bisect {
	char good[GIT_REPO_OID_HEX], bad[GIT_REPO_OID_HEX];
	struct git_change *commits;    /* after good up to bad, oldest first */
	enum wperf_bisect_mark *marks; /* per commit */
	size_t n;
	enum wperf_bisect_step outcome; /* FOUND, NO_CHANGE or STUCK */
	size_t at;			/* the first bad commit (FOUND), the one not told (STUCK) */
	size_t judged;			/* judgments made by this call (not read from the log) */
	double alpha;			/* each judgment's level */
	double seconds;
};

/*
 * Bisects into b (release it with bisect_release): 0 with its outcome. A
 * negative errno with err for an error: a revision not
 * found, good not an ancestor of bad, a scenario the good commit lacks, a
 * folder of another bisection, a judgment that could not run, -EINTR.
 */
int bisect_run(const struct bisect_opts *o, struct bisect *b, struct wperf_error *err);

void bisect_release(struct bisect *b);

#endif /* WPERF_BISECT_H */
