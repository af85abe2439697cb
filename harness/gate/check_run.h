/* SPDX-License-Identifier: MIT */
/*
 * A whole check-perf check: the selected scenarios of this shard, one after
 * the other, each given its part of alpha and of what is left of the time
 * budget, and the check written into its results folder (summary.json,
 * summary.md, junit.xml; shard.json with a shard). One line per scenario on
 * stderr says its verdict and what its runs could tell.
 */
#ifndef WPERF_CHECK_RUN_H
#define WPERF_CHECK_RUN_H

#include "core/gate/check.h"
#include "core/util/error.h"
#include "harness/gate/check_scenario.h"
#include "harness/gate/check_select.h"
#include "harness/gate/check_shard.h"

struct check_run_opts {
	const struct check_selection *sel; /* the scenarios, and this shard's count */
	const struct check_shard *shard;   /* which of them run here */
	struct base_tree *tree;		   /* --base: the base's tree; NULL: stored baselines */
	const char *base_ref;		   /* as named; NULL: the merge base */
	const char *results;		   /* the folder the check is written into */
	const struct gate_baseline_src *baseline;
	struct check_looks looks;
	double alpha;  /* the whole check's */
	int strict;    /* inconclusive fails too: each scenario gets less alpha */
	double budget; /* seconds for all the runs; 0: none */
	const char *build_dir;
	char *const *defs; /* scenario variables */
	int quiet, trust_head;
};

/* Runs the check into c (release it with wperf_check_release) and writes it;
 * 0, or -EINTR / -ENOMEM / an error writing, with err (c holds what was
 * done). */
int check_run(const struct check_run_opts *o, struct wperf_check *c, struct wperf_error *err);

#endif /* WPERF_CHECK_RUN_H */
