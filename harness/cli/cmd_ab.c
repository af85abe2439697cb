/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench ab: one scenario, the base commit against the work tree, run in
 * turns on one machine and the head judged against the base's runs (see
 * harness/gate/check_scenario.h; check-perf --base does the same for every
 * scenario of a tag).
 *
 *   RESULTS/base/   the base's results folder (a run set, as `run` makes)
 *   RESULTS/head/   the head's, with the verdict (verdict.md, junit.xml)
 *   RESULTS/base.yaml  the baseline made from the base's runs
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/cli_vars.h"
#include "harness/gate/check_scenario.h"

#define CMD "ab"

struct ab_args {
	struct check_scenario_opts o;
	const char *base_ref, *target, *results;
	int keep_tree;
	struct cli_vars vars; /* --var and the repository's, for o.defs */
};

const struct cli_option cli_ab_options[] = {
    {0, "base", "REF", "the base commit (default: the merge base of HEAD with the target branch)",
     CLI_STRING(struct ab_args, base_ref)},
    {0, "target", "BRANCH",
     "the target branch (default: $GITHUB_BASE_REF, $CI_MERGE_REQUEST_TARGET_BRANCH_NAME, "
     "origin's default branch, main, master)",
     CLI_STRING(struct ab_args, target)},
    {'n', "runs", "N",
     "runs per side at the first look (default: the scenario's runs, at least its gate's "
     "min_runs)",
     CLI_COUNT(struct ab_args, o.looks.first, 1, 1000)},
    {0, "max-runs", "M", "runs per side at the most (default: N + 12; N: no more runs than N)",
     CLI_COUNT(struct ab_args, o.looks.max, 1, 1000)},
    {'r', "results", "DIR",
     "the results folder, missing or empty (default: results/ab-NAME-YYYYmmdd-HHMMSS); base/ "
     "and head/ in it",
     CLI_STRING(struct ab_args, results)},
    {0, "build-dir", "DIR", "the head's ${BUILD_DIR} (default: build/ in the work tree)",
     CLI_STRING(struct ab_args, o.build_dir)},
    {0, "var", "NAME=VALUE",
     "defines the scenario variable ${NAME} for both sides (BUILD_DIR too, over --build-dir: "
     "relative, each tree's folder); repeatable, a later one winning; wins over the "
     "repository's .wperf-bench.yaml and the environment",
     CLI_PARSE(struct ab_args, vars.args, cli_parse_var)},
    {0, "keep-tree", NULL, "keep the base's tree (its path is printed)",
     CLI_FLAG(struct ab_args, keep_tree)},
    {'q', "quiet", NULL, "only warnings, errors and the verdict",
     CLI_FLAG(struct ab_args, o.quiet)},
    {0},
};

/* Where the head waits longer: the stacks that grew, and the picture. */
static void show_growing(const struct wperf_check_scenario *sc, const char *dir)
{
	if (!sc->flame)
		return;
	printf("\n#### Where the head waits longer\n\nThe wait stacks that grew most per "
	       "operation (all of them: %s/%s, a differential flame graph):\n\n",
	       dir, sc->flame);
	for (size_t i = 0; i < sc->ngrowing; i++)
		printf("- `%s`\n", sc->growing[i]);
}

int cmd_ab(int argc, char **argv)
{
	struct ab_args args = {0};
	struct check_scenario_opts *o = &args.o;
	struct wperf_check_scenario sc;
	struct base_tree *tree = NULL;
	struct wperf_error err = {0};
	struct wperf_buf md = {0};
	char dir[PATH_MAX];
	int status = cli_parse(CMD, &cli_ab_help, argc, argv, &args);

	if (status >= 0)
		return status;
	o->scenario = argv[optind];
	status = cli_vars_define_looks(CMD, &args.vars, &o->looks, &o->defs, &o->build_dir);
	if (status != EXIT_OK)
		return status;
	cli_results_dir("ab", o->scenario, args.results, dir, sizeof(dir));
	o->dir = dir;
	if (base_tree_open(args.base_ref, args.target, args.keep_tree, &tree, &err) < 0) {
		status = cli_error(CMD, "%s", err.msg);
		base_tree_free(tree);
		cli_vars_release(&args.vars);
		return status;
	}
	o->base = tree;
	if (check_scenario(o, &sc, &err) < 0 || sc.error) {
		status = cli_error(CMD, "%s", sc.reason ? sc.reason : err.msg);
	} else {
		if (wperf_verdict_markdown(&sc.verdict, 0, &md) == 0 && md.len)
			fwrite(md.data, 1, md.len, stdout);
		show_growing(&sc, dir);
		status = wperf_verdict_exit_code(sc.verdict.kind) ? EXIT_FAIL : EXIT_OK;
		if (!o->quiet)
			fprintf(stderr,
				"wperf-bench ab: %zu runs per side in %.0f s; results in %s\n",
				sc.pairs, sc.seconds, dir);
	}
	wperf_buf_release(&md);
	wperf_check_scenario_release(&sc);
	base_tree_free(tree);
	cli_vars_release(&args.vars);
	return status;
}
