/* SPDX-License-Identifier: MIT */
/*
 * check-perf as a whole, what its command (harness/cli/cmd_check_perf.c) asks
 * for: the scenarios named on the command line or in the repository's
 * config, then the check run (on the base's tree with --base, against the
 * stored baselines without) or the shards' folders merged into one.
 *
 * The false-failure rate: each scenario gets an equal part of the check's
 * alpha, its looks spend it by a plan (check_scenario.h), and its primary
 * tests are adjusted together (Holm and Tarone, in the verdict), so that
 * identical code fails the whole check with a chance of at most alpha. With
 * --strict an inconclusive scenario fails too, and an inconclusive finding
 * is one within WPERF_GATE_INCONCLUSIVE times the level: the scenarios get
 * that much less, and the same bound holds.
 */
#ifndef WPERF_CHECK_PERF_H
#define WPERF_CHECK_PERF_H

#include "core/gate/check.h"
#include "core/util/buf.h"
#include "core/util/error.h"
#include "harness/gate/check_run.h"
#include "harness/gate/repo_config.h"

struct check_perf_opts {
	struct check_run_opts run; /* sel, shard and tree are set by check_perf */
	const char *tag;	   /* the scenarios' tag */
	const char *target;	   /* the target branch of the merge base */
	struct check_shard shard;
	int base_mode, keep_tree, merge;
};

/* A check's state: what check_perf made, released by check_perf_release. */
struct check_perf_state {
	struct check_selection sel;
	struct base_tree *tree;
};

/* path as seen from the current folder, made absolute, in a new string; NULL
 * when out of memory. */
char *check_path_from_here(const char *path);

/* Appends to out (char *, each owned) the config's scenario paths, or
 * "scenarios" when it names none: the operands when the command line has
 * none. 0 or -ENOMEM. */
int check_default_operands(const struct repo_config *config, struct wperf_buf *out);

/*
 * The check of the n operands (scenario files and folders) into c, written
 * into o->run.results; with o->merge, the operands are the shards' folders
 * and are merged into it instead. 0, or a negative errno with err.
 */
int check_perf(struct check_perf_opts *o, struct check_perf_state *st, char *const *operands,
	       size_t n, struct wperf_check *c, struct wperf_error *err);

/* Frees what check_perf made (NULL-safe members). */
void check_perf_release(struct check_perf_state *st);

#endif /* WPERF_CHECK_PERF_H */
