/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench check-perf: the gate over every scenario of a tag, for CI. With
 * --base, each scenario runs on the base commit and on the work tree in turns
 * on this machine and the head is judged against the base's runs; without, it
 * is judged against its stored baseline (whose numbers count only when it was
 * made on this machine: see gate_options). The runs of a scenario are added a
 * few at a time while its verdict is unclear (check_scenario.h); the check as
 * a whole, and its false-failure rate, is harness/gate/check_perf.h's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/cli/cli_vars.h"
#include "harness/gate/check_perf.h"
#include "harness/gate/check_shard.h"
#include "core/scenario/scenario.h"

#define CMD "check-perf"

#define CHECK_PERF_DIR	    "build/check-perf"
#define CHECK_PERF_TAG	    "ci"
#define CHECK_PERF_BUDGET   "15m"
#define CHECK_PERF_BUDGET_S (15 * 60)

struct check_perf {
	struct check_perf_opts o;
	struct gate_baseline_src baseline;
	char *results_abs;    /* --results made absolute */
	struct cli_vars vars; /* --var and the repository's config, which holds them */
};

/* --budget DURATION: "15m", "900", "1h". */
static int parse_budget(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	double *budget = field;
	int unit;

	(void)opt;
	if (scenario_parse_duration(arg, budget, &unit) < 0 || !(*budget > 0))
		return cli_error(cmd, "--budget wants a duration such as 15m, 900 or 1h, not '%s'",
				 arg);
	return 0;
}

/* --base REF: the base mode, against REF or the merge base. */
static int parse_base(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	struct check_perf *cp = field;

	(void)cmd, (void)opt;
	cp->o.base_mode = 1;
	cp->o.run.base_ref = strcmp(arg, "merge-base") ? arg : NULL;
	return 0;
}

static int parse_shard(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	struct wperf_error err = {0};

	(void)opt;
	return check_shard_parse(arg, field, &err) ? cli_error(cmd, "%s", err.msg) : 0;
}

const struct cli_option cli_check_perf_options[] = {
    {'t', "tag", "TAG", "the scenarios' tag (default: the config's tag, else " CHECK_PERF_TAG ")",
     CLI_STRING(struct check_perf, o.tag)},
    {0, "var", "NAME=VALUE",
     "defines the scenario variable ${NAME} (BUILD_DIR included: relative, each tree's "
     "folder); repeatable; wins over the config's variables and the environment",
     CLI_PARSE(struct check_perf, vars.args, cli_parse_var)},
    {0, "shard", "I/N",
     "run only share I of N of the selected scenarios (those whose rank in name order is I-1 "
     "modulo N), for a CI matrix; RESULTS/" CHECK_SHARD_FILE " says which",
     CLI_PARSE(struct check_perf, o.shard, parse_shard)},
    {0, "merge", NULL,
     "the operands are the RESULTS folders of a check's shards (all of them): write their one "
     "summary.json, summary.md and junit.xml into RESULTS, run nothing",
     CLI_FLAG(struct check_perf, o.merge)},
    {0, "base", "REF",
     "judge against commit REF run in turns ('merge-base': the merge base of HEAD with the "
     "target branch)",
     CLI_PARSE_ALL(parse_base)},
    {0, "trust-head-settings", NULL,
     "with --base: run and judge the head under its own scenario files and accepted: entries "
     "(default: the base's; the head's changes are listed, and apply once merged)",
     CLI_FLAG(struct check_perf, o.run.trust_head)},
    {0, "target", "BRANCH",
     "the target branch of merge-base (default: $GITHUB_BASE_REF, "
     "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME, origin's default branch, main, master)",
     CLI_STRING(struct check_perf, o.target)},
    {0, "baseline-ref", "REF",
     "without --base: read the stored baselines as they are at commit REF ('merge-base' as "
     "above)",
     CLI_PARSE(struct check_perf, baseline, cli_parse_baseline_ref)},
    {'n', "runs", "N",
     "runs per side at the first look (default: each scenario's runs, at least its gate's "
     "min_runs)",
     CLI_COUNT(struct check_perf, o.run.looks.first, 2, 1000)},
    {0, "max-runs", "M", "runs per side at the most (default: N + 12)",
     CLI_COUNT(struct check_perf, o.run.looks.max, 2, 1000)},
    {0, "budget", "DURATION",
     "time for the whole check's runs (default " CHECK_PERF_BUDGET "): runs are added to a "
     "scenario that cannot yet tell its gate.detect change only while its share of what is "
     "left lasts, but never fewer than could fail a new vertex",
     CLI_PARSE(struct check_perf, o.run.budget, parse_budget)},
    {0, "alpha", "A",
     "the chance that identical code fails (default: " CLI_STR(WPERF_GATE_ALPHA) ")",
     CLI_PARSE(struct check_perf, o.run.alpha, cli_parse_alpha)},
    {0, "strict", NULL,
     "an inconclusive scenario fails the check too (each scenario gets half the alpha)",
     CLI_FLAG(struct check_perf, o.run.strict)},
    {'r', "results", "DIR",
     "where to leave it all (default: the config's results, else " CHECK_PERF_DIR
     " of the repository; emptied)",
     CLI_STRING(struct check_perf, o.run.results)},
    {0, "keep-tree", NULL, "keep the base's tree (its path is printed)",
     CLI_FLAG(struct check_perf, o.keep_tree)},
    {'q', "quiet", NULL, "only the scenarios' verdicts, warnings and errors",
     CLI_FLAG(struct check_perf, o.run.quiet)},
    {0},
};

static int parse(int argc, char **argv, struct check_perf *cp)
{
	int status = cli_parse(CMD, &cli_check_perf_help, argc, argv, cp);
	const struct check_perf_opts *o = &cp->o;

	if (status >= 0)
		return status;
	cp->baseline.target = o->target;
	if (o->run.trust_head && !o->base_mode)
		return cli_error(CMD, "--trust-head-settings goes with --base: without it, the "
				      "work tree's settings are the only ones");
	if (o->base_mode && cp->baseline.at_commit)
		return cli_error(CMD, "--base and --baseline-ref exclude each other: with --base "
				      "the base's own runs are the baseline");
	if (o->run.looks.first && o->run.looks.max && o->run.looks.max < o->run.looks.first)
		return cli_error(CMD, "--max-runs %u is below --runs %u", o->run.looks.max,
				 o->run.looks.first);
	if (o->merge && (o->shard.of || o->base_mode || cp->baseline.at_commit))
		return cli_error(CMD, "--merge runs nothing: --shard, --base and --baseline-ref "
				      "belong to the shards' runs");
	if (o->merge && optind == argc)
		return cli_error(CMD, "--merge wants the RESULTS folders of the shards");
	return -1;
}

/*
 * Moves to the repository's root with its config read and the operands (into
 * *ops, n of them) and --results made absolute first; the defaults from the
 * config. An exit status.
 */
static int enter_repository(struct check_perf *cp, char **operands, int n, struct wperf_buf *ops)
{
	struct check_run_opts *run = &cp->o.run;
	const struct repo_config *config = &cp->vars.config;
	int status = EXIT_OK;

	for (int i = 0; i < n && status == EXIT_OK; i++) {
		char *abs = check_path_from_here(operands[i]);

		if (!abs || wperf_buf_append(ops, &abs, sizeof(abs)) < 0)
			status = cli_error(CMD, "out of memory");
	}
	if (status == EXIT_OK && run->results &&
	    !(run->results = cp->results_abs = check_path_from_here(run->results)))
		status = cli_error(CMD, "out of memory");
	if (status == EXIT_OK)
		status = cli_vars_define(CMD, &cp->vars, 1, NULL, NULL);
	if (status == EXIT_OK && chdir(config->root) < 0)
		status = cli_error(CMD, "%s: %s", config->root, strerror(errno));
	if (status == EXIT_OK && !n && check_default_operands(config, ops) < 0)
		status = cli_error(CMD, "out of memory");
	if (status != EXIT_OK)
		return status;
	run->build_dir = cp->vars.build_dir ? cp->vars.build_dir : "build";
	run->defs = cp->vars.defs;
	run->baseline = &cp->baseline;
	cp->o.tag = cp->o.tag ? cp->o.tag : config->tag ? config->tag : CHECK_PERF_TAG;
	run->results = run->results	 ? run->results
		       : config->results ? config->results
					 : CHECK_PERF_DIR;
	cp->baseline.dir = config->baselines;
	return EXIT_OK;
}

int cmd_check_perf(int argc, char **argv)
{
	struct check_perf cp = {
	    .o.run = {.alpha = WPERF_GATE_ALPHA, .budget = CHECK_PERF_BUDGET_S}};
	struct check_perf_state st = {0};
	struct wperf_error err = {0};
	struct wperf_check c = {0};
	struct wperf_buf ops = {0};
	int status = parse(argc, argv, &cp), failed_to_run = 0;
	char **operands = NULL;
	size_t nops = 0;

	if (status >= 0)
		goto out;
	status = enter_repository(&cp, argv + optind, argc - optind, &ops);
	operands = (char **)ops.data;
	nops = ops.len / sizeof(*operands);
	if (status == EXIT_OK && check_perf(&cp.o, &st, operands, nops, &c, &err) < 0)
		status = cli_error(CMD, "%s", err.msg);
	if (status == EXIT_OK) {
		enum wperf_verdict_kind k = wperf_check_kind(&c, &failed_to_run);

		/* a scenario that could not run is the check's outcome, whatever the others say */
		status = failed_to_run					 ? EXIT_ERROR
			 : wperf_verdict_fails_check(k, cp.o.run.strict) ? EXIT_FAIL
									 : EXIT_OK;
		fprintf(stderr, "check-perf: %s%s in %.0f s (%.1f min); %s/summary.md, junit.xml\n",
			failed_to_run ? "error" : wperf_verdict_name(k),
			cp.o.merge ? " (merged)" : "", c.seconds, c.seconds / 60, cp.o.run.results);
	}
out:
	wperf_check_release(&c);
	for (size_t i = 0; i < nops; i++)
		free(operands[i]);
	check_perf_release(&st);
	free(cp.results_abs);
	cli_vars_release(&cp.vars);
	wperf_buf_release(&ops);
	return status;
}
