/* SPDX-License-Identifier: MIT */
/*
 * The scenario variables of run, ab and baseline, as check-perf has them:
 * --var NAME=VALUE (a later one winning), then the variables: of the
 * repository's .wperf-bench.yaml (harness/gate/repo_config.h), found from the
 * current folder. BUILD_DIR among them is set apart: a relative one is the
 * repository root's folder of that name (for ab, each tree's).
 *
 * Ownership: a struct cli_vars owns what it holds; cli_vars_release frees it.
 */
#ifndef WPERF_CLI_VARS_H
#define WPERF_CLI_VARS_H

#include "core/util/buf.h"
#include "harness/gate/check_scenario.h"
#include "harness/gate/repo_config.h"

struct cli_vars {
	struct wperf_buf args;	   /* const char *: --var's arguments (cli_parse_var) */
	struct repo_config config; /* the repository's, with args defined in it */
	char **defs;		   /* for scenario_vars.defs: all but BUILD_DIR; NULL-ended */
	char *build_dir;	   /* BUILD_DIR when one is defined, else NULL */
};

/*
 * Reads the repository's config, defines v->args in it and sets v->defs and
 * v->build_dir (tree_relative: a relative BUILD_DIR stays relative, each
 * tree's); then, for the command's options, *defs = v->defs and, when
 * BUILD_DIR is defined, *build_dir = v->build_dir (either pointer NULL: not
 * wanted). EXIT_OK, or the exit status after an error printed for cmd, with v
 * released (releasing it again is harmless).
 */
int cli_vars_define(const char *cmd, struct cli_vars *v, int tree_relative, char *const **defs,
		    const char **build_dir);

/*
 * For a command that judges a scenario in looks against another tree (ab,
 * bisect): --runs N and --max-runs M checked (M below N is an error; N alone
 * is exactly N runs), then cli_vars_define with tree-relative build folders.
 * EXIT_OK, or the exit status after an error printed for cmd.
 */
int cli_vars_define_looks(const char *cmd, struct cli_vars *v, struct check_looks *looks,
			  char *const **defs, const char **build_dir);

void cli_vars_release(struct cli_vars *v);

#endif /* WPERF_CLI_VARS_H */
