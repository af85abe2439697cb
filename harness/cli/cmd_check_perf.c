/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench check-perf: the gate over every scenario of a tag, for CI. With
 * --base, each scenario runs on the base commit and on the work tree in turns
 * on this machine and the head is judged against the base's runs; without, it
 * is judged against its stored baseline (whose numbers count only when it was
 * made on this machine: see gate_options). The runs of a scenario are added a
 * few at a time while its verdict is unclear (check_scenario.h).
 *
 * The false-failure rate: each scenario gets an equal part of the check's
 * alpha, its looks spend it by a plan (check_scenario.h), and its primary
 * tests are adjusted together (Holm and Tarone, in the verdict), so that
 * identical code fails the whole check with a chance of at most alpha. With
 * --strict an inconclusive scenario fails too, and an inconclusive finding
 * is one within WPERF_GATE_INCONCLUSIVE times the level: the scenarios get
 * that much less, and the same bound holds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/cli/cli_vars.h"
#include "harness/gate/check_run.h"
#include "harness/gate/check_scenario.h"
#include "harness/gate/check_select.h"
#include "harness/gate/check_shard.h"
#include "harness/gate/check_write.h"
#include "harness/gate/repo_config.h"
#include "harness/run/results.h"
#include "core/scenario/scenario.h"

#define CMD "check-perf"

#define CHECK_PERF_DIR	    "build/check-perf"
#define CHECK_PERF_TAG	    "ci"
#define CHECK_PERF_BUDGET   "15m"
#define CHECK_PERF_BUDGET_S (15 * 60)

struct check_perf {
	const char *tag, *base_ref, *target, *results;
	char *results_abs; /* --results made absolute */
	int base_mode, strict, quiet, keep_tree, merge, trust_head;
	struct gate_baseline_src baseline;
	struct check_looks looks;
	double alpha;
	double budget; /* seconds for the whole check's runs; 0: none */
	struct check_shard shard;
	struct cli_vars vars;	    /* --var and the repository's config, which holds them */
	const char *build_dir;	    /* vars' BUILD_DIR, else build (each tree's) */
	struct check_selection sel; /* the selected scenarios */
	struct base_tree *tree;	    /* --base: the base commit's tree, opened first */
};

/* Each operand: a scenario file, or a folder whose *.yaml files are scenarios
 * (check_select.h); an exit status. */
static int select_scenarios(struct check_perf *cp, char **operands, int n)
{
	struct wperf_error err = {0};

	cp->sel.tag = cp->tag;
	cp->sel.build_dir = cp->build_dir;
	cp->sel.defs = cp->vars.defs;
	cp->sel.tree = cp->trust_head ? NULL : cp->tree;
	cp->sel.shard = &cp->shard;
	if (check_select(&cp->sel, operands, (size_t)n, &err) < 0)
		return cli_error(CMD, "%s", err.msg);
	return EXIT_OK;
}

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
	cp->base_mode = 1;
	cp->base_ref = strcmp(arg, "merge-base") ? arg : NULL;
	return 0;
}

static int parse_alpha(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	double *alpha = field;
	char *end;

	(void)opt;
	*alpha = strtod(arg, &end);
	if (*end || !(*alpha > 0 && *alpha < 0.5))
		return cli_error(cmd, "--alpha wants a number above 0 and below 0.5, not '%s'",
				 arg);
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
     CLI_STRING(struct check_perf, tag)},
    {0, "var", "NAME=VALUE",
     "defines the scenario variable ${NAME} (BUILD_DIR included: relative, each tree's "
     "folder); repeatable; wins over the config's variables and the environment",
     CLI_PARSE(struct check_perf, vars.args, cli_parse_var)},
    {0, "shard", "I/N",
     "run only share I of N of the selected scenarios (those whose rank in name order is I-1 "
     "modulo N), for a CI matrix; RESULTS/" CHECK_SHARD_FILE " says which",
     CLI_PARSE(struct check_perf, shard, parse_shard)},
    {0, "merge", NULL,
     "the operands are the RESULTS folders of a check's shards (all of them): write their one "
     "summary.json, summary.md and junit.xml into RESULTS, run nothing",
     CLI_FLAG(struct check_perf, merge)},
    {0, "base", "REF",
     "judge against commit REF run in turns ('merge-base': the merge base of HEAD with the "
     "target branch)",
     CLI_PARSE_ALL(parse_base)},
    {0, "trust-head-settings", NULL,
     "with --base: run and judge the head under its own scenario files and accepted: entries "
     "(default: the base's; the head's changes are listed, and apply once merged)",
     CLI_FLAG(struct check_perf, trust_head)},
    {0, "target", "BRANCH",
     "the target branch of merge-base (default: $GITHUB_BASE_REF, "
     "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME, origin's default branch, main, master)",
     CLI_STRING(struct check_perf, target)},
    {0, "baseline-ref", "REF",
     "without --base: read the stored baselines as they are at commit REF ('merge-base' as "
     "above)",
     CLI_PARSE(struct check_perf, baseline, cli_parse_baseline_ref)},
    {'n', "runs", "N",
     "runs per side at the first look (default: each scenario's runs, at least its gate's "
     "min_runs)",
     CLI_COUNT(struct check_perf, looks.first, 2, 1000)},
    {0, "max-runs", "M", "runs per side at the most (default: N + 12)",
     CLI_COUNT(struct check_perf, looks.max, 2, 1000)},
    {0, "budget", "DURATION",
     "time for the whole check's runs (default " CHECK_PERF_BUDGET "): runs are added to a "
     "scenario that cannot yet tell its gate.detect change only while its share of what is "
     "left lasts",
     CLI_PARSE(struct check_perf, budget, parse_budget)},
    {0, "alpha", "A",
     "the chance that identical code fails (default: " CLI_STR(WPERF_GATE_ALPHA) ")",
     CLI_PARSE(struct check_perf, alpha, parse_alpha)},
    {0, "strict", NULL,
     "an inconclusive scenario fails the check too (each scenario gets half the alpha)",
     CLI_FLAG(struct check_perf, strict)},
    {'r', "results", "DIR",
     "where to leave it all (default: the config's results, else " CHECK_PERF_DIR
     " of the repository; emptied)",
     CLI_STRING(struct check_perf, results)},
    {0, "keep-tree", NULL, "keep the base's tree (its path is printed)",
     CLI_FLAG(struct check_perf, keep_tree)},
    {'q', "quiet", NULL, "only the scenarios' verdicts, warnings and errors",
     CLI_FLAG(struct check_perf, quiet)},
    {0},
};

static int parse(int argc, char **argv, struct check_perf *cp)
{
	int status = cli_parse(CMD, &cli_check_perf_help, argc, argv, cp);

	if (status >= 0)
		return status;
	cp->baseline.target = cp->target;
	if (cp->trust_head && !cp->base_mode)
		return cli_error(CMD, "--trust-head-settings goes with --base: without it, the "
				      "work tree's settings are the only ones");
	if (cp->base_mode && cp->baseline.at_commit)
		return cli_error(CMD, "--base and --baseline-ref exclude each other: with --base "
				      "the base's own runs are the baseline");
	if (cp->looks.first && cp->looks.max && cp->looks.max < cp->looks.first)
		return cli_error(CMD, "--max-runs %u is below --runs %u", cp->looks.max,
				 cp->looks.first);
	if (cp->merge && (cp->shard.of || cp->base_mode || cp->baseline.at_commit))
		return cli_error(CMD, "--merge runs nothing: --shard, --base and --baseline-ref "
				      "belong to the shards' runs");
	if (cp->merge && optind == argc)
		return cli_error(CMD, "--merge wants the RESULTS folders of the shards");
	return -1;
}

/* path as seen from here, absolute (the check moves to the root), into a new
 * string; NULL when out of memory. */
static char *from_here(const char *path)
{
	char cwd[PATH_MAX], *out;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	return asprintf(&out, "%s/%s", cwd, path) < 0 ? NULL : out;
}

/*
 * Moves to the repository's root with its config read and the operands (into
 * *ops, n of them) and --results made absolute first; the defaults from the
 * config. An exit status.
 */
static int enter_repository(struct check_perf *cp, char **operands, int n, struct wperf_buf *ops)
{
	int status = EXIT_OK;

	for (int i = 0; i < n && status == EXIT_OK; i++) {
		char *abs = from_here(operands[i]);

		if (!abs || wperf_buf_append(ops, &abs, sizeof(abs)) < 0)
			status = cli_error(CMD, "out of memory");
	}
	if (status == EXIT_OK && cp->results &&
	    !(cp->results = cp->results_abs = from_here(cp->results)))
		status = cli_error(CMD, "out of memory");
	if (status == EXIT_OK)
		status = cli_vars_define(CMD, &cp->vars, 1, NULL, NULL);
	cp->build_dir = cp->vars.build_dir ? cp->vars.build_dir : "build";
	if (status == EXIT_OK && chdir(cp->vars.config.root) < 0)
		status = cli_error(CMD, "%s: %s", cp->vars.config.root, strerror(errno));
	if (status != EXIT_OK)
		return status;
	cp->tag = cp->tag ? cp->tag : cp->vars.config.tag ? cp->vars.config.tag : CHECK_PERF_TAG;
	cp->results = cp->results		? cp->results
		      : cp->vars.config.results ? cp->vars.config.results
						: CHECK_PERF_DIR;
	cp->baseline.dir = cp->vars.config.baselines;
	for (size_t i = 0; !n && i < cp->vars.config.nscenarios; i++) {
		char *copy = strdup(cp->vars.config.scenarios[i]);

		if (!copy || wperf_buf_append(ops, &copy, sizeof(copy)) < 0)
			return cli_error(CMD, "out of memory");
	}
	if (!ops->len) {
		char *fallback = strdup("scenarios");

		if (!fallback || wperf_buf_append(ops, &fallback, sizeof(fallback)) < 0)
			return cli_error(CMD, "out of memory");
	}
	return EXIT_OK;
}

/* The exit status of the check c. */
static int check_status(const struct wperf_check *c, int strict)
{
	int error;
	enum wperf_verdict_kind k = wperf_check_kind(c, &error);

	if (error)
		return EXIT_ERROR;
	if (wperf_verdict_fails_check(k, strict))
		return EXIT_FAIL;
	return EXIT_OK;
}

/* Runs the shard's scenarios (all without --shard) into c and writes the
 * check; 0, or a negative errno with err. */
static int run_check(struct check_perf *cp, struct wperf_check *c, struct wperf_error *err)
{
	const struct check_run_opts o = {.sel = &cp->sel,
					 .shard = &cp->shard,
					 .tree = cp->tree,
					 .base_ref = cp->base_ref,
					 .results = cp->results,
					 .baseline = &cp->baseline,
					 .looks = cp->looks,
					 .alpha = cp->alpha,
					 .strict = cp->strict,
					 .budget = cp->budget,
					 .build_dir = cp->build_dir,
					 .defs = cp->vars.defs,
					 .quiet = cp->quiet,
					 .trust_head = cp->trust_head};

	c->base_mode = cp->base_mode;
	return check_run(&o, c, err);
}

/* Merges the shards' folders dirs (n) into one check c, written into RESULTS;
 * 0, or a negative errno with err. */
static int merge_check(struct check_perf *cp, char *const *dirs, size_t n, struct wperf_check *c,
		       struct wperf_error *err)
{
	char into[PATH_MAX], dir[PATH_MAX];
	int e = 0;

	/* RESULTS is emptied first: it must be none of the shards'. */
	for (size_t i = 0; i < n && !e; i++)
		if (realpath(dirs[i], dir) && realpath(cp->results, into) && !strcmp(dir, into))
			e = wperf_error_set(
			    err, -EINVAL,
			    "%s is one of the shards: name another folder with --results", dirs[i]);
	e = e ? e : check_write_prepare(cp->results, err);
	e = e ? e : check_merge(dirs, n, cp->results, c, err);
	return e ? e : check_write(c, cp->results, err);
}

/* The check (or the merge of its shards) into c: an exit status, EXIT_OK when
 * the check could be made, whatever its verdict. */
static int check_or_merge(struct check_perf *cp, char **operands, size_t nops,
			  struct wperf_check *c)
{
	struct wperf_error err = {0};
	int status;

	if (cp->merge)
		return merge_check(cp, operands, nops, c, &err) ? cli_error(CMD, "%s", err.msg)
								: EXIT_OK;
	/* the base's tree first: its scenario files decide the selection */
	if (cp->base_mode &&
	    base_tree_open(cp->base_ref, cp->target, cp->keep_tree, &cp->tree, &err) < 0)
		return cli_error(CMD, "%s", err.msg);
	status = select_scenarios(cp, operands, (int)nops);
	if (status == EXIT_OK && run_check(cp, c, &err))
		status = cli_error(CMD, "%s", err.msg);
	return status;
}

int cmd_check_perf(int argc, char **argv)
{
	struct check_perf cp = {.alpha = WPERF_GATE_ALPHA, .budget = CHECK_PERF_BUDGET_S};
	struct wperf_check c = {0};
	struct wperf_buf ops = {0};
	int status = parse(argc, argv, &cp);
	char **operands = NULL;
	size_t nops = 0;

	if (status >= 0)
		goto out;
	status = enter_repository(&cp, argv + optind, argc - optind, &ops);
	operands = (char **)ops.data;
	nops = ops.len / sizeof(*operands);
	if (status == EXIT_OK)
		status = check_or_merge(&cp, operands, nops, &c);
	if (status == EXIT_OK) {
		int failed_to_run = 0;
		enum wperf_verdict_kind k = wperf_check_kind(&c, &failed_to_run);

		status = check_status(&c, cp.strict);
		/* a scenario that could not run is the check's outcome, whatever the others say */
		fprintf(stderr, "check-perf: %s%s in %.0f s (%.1f min); %s/summary.md, junit.xml\n",
			failed_to_run ? "error" : wperf_verdict_name(k),
			cp.merge ? " (merged)" : "", c.seconds, c.seconds / 60, cp.results);
	}
out:
	wperf_check_release(&c);
	for (size_t i = 0; i < nops; i++)
		free(operands[i]);
	check_selection_release(&cp.sel);
	free(cp.results_abs);
	base_tree_free(cp.tree);
	cli_vars_release(&cp.vars);
	wperf_buf_release(&ops);
	return status;
}
