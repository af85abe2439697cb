/* SPDX-License-Identifier: MIT */
/*
 * Where check-perf finds a repository's scenarios and baselines: the root of
 * the git work tree that holds the current folder (else the current folder),
 * and its optional .wperf-bench.yaml, read strictly (FILE:LINE:COL: key.path:
 * what was expected):
 *
 *   scenarios: [perf/scenarios]   scenario files or folders of *.yaml, relative
 *                                 to the root (default: [scenarios])
 *   baselines: perf/baselines     the baselines' folder (default: baselines)
 *   tag: ci                       the scenarios' default tag (default: ci)
 *   results: build/check-perf     check-perf's default folder (default: that)
 *   variables:                    scenario variables (${NAME}), as --var defines
 *     BUILD_DIR: out              them; --var wins over them
 *     PORT: 9000
 *
 * Paths are relative to the root, never absolute and never with a ".."
 * part: the file describes the repository, wherever it is cloned.
 *
 * Ownership: a struct repo_config owns its strings; repo_config_release frees
 * them and leaves a zeroed struct.
 */
#ifndef WPERF_REPO_CONFIG_H
#define WPERF_REPO_CONFIG_H

#include <limits.h>
#include <stddef.h>

#include "core/util/error.h"

#define REPO_CONFIG_FILE "/.wperf-bench.yaml"

struct repo_config {
	char root[PATH_MAX]; /* absolute, no trailing '/' */
	int found;	     /* the root has a .wperf-bench.yaml */
	char **scenarios;    /* nscenarios paths; NULL: the default */
	size_t nscenarios;
	char *baselines, *tag, *results; /* NULL: the defaults */
	/* "NAME=value" strings ending with NULL (scenario_vars.defs); NULL: none */
	char **vars;
	size_t nvars;
};

/* Reads the text of a .wperf-bench.yaml (len bytes; file names it in errors)
 * into *out's keys (root untouched). 0, or -EINVAL (-ENOMEM) with err; out
 * then holds what it held before. */
int repo_config_parse(const char *file, const char *text, size_t len, struct repo_config *out,
		      struct wperf_error *err);

/* Finds the root from the current folder and reads its .wperf-bench.yaml when
 * it has one. 0, or a negative errno with err. */
int repo_config_load(struct repo_config *out, struct wperf_error *err);

/* Adds NAME=VALUE (a --var's argument) to c's variables, ahead of those of the
 * file so that it wins; a later one wins over an earlier one. 0, -EINVAL
 * with err for a bad name or a reserved one, -ENOMEM. */
int repo_config_define(struct repo_config *c, const char *assignment, struct wperf_error *err);

/* The value c's variables give name, or NULL. */
const char *repo_config_var(const struct repo_config *c, const char *name);

void repo_config_release(struct repo_config *c);

#endif /* WPERF_REPO_CONFIG_H */
