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
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness/cli/cli.h"
#include "harness/gate/check_scenario.h"

#define CMD "ab"

static void usage(FILE *out)
{
	fprintf(out, "usage: wperf-bench ab [OPTIONS] SCENARIO\n"
		     "\n"
		     "Runs SCENARIO on the base commit and on the work tree (uncommitted changes\n"
		     "included) in turns on this machine, base first in odd pairs and head first\n"
		     "in even ones, and judges the head's runs against the base's with paired\n"
		     "tests: the comparison that machine drift cannot fool. The base commit is\n"
		     "written into a temporary folder from git's objects; the scenario's build\n"
		     "commands build each tree first, and each side runs from its tree's root,\n"
		     "${BUILD_DIR} its build/. The accepted: entries of the head's\n"
		     "baselines/NAME.yaml still apply.\n"
		     "\n"
		     "While the verdict is inconclusive it adds pairs, 3 at a time, up to\n"
		     "--max-runs; each test is held to 0.05 divided by the number of looks.\n"
		     "\n"
		     "options:\n"
		     "      --base REF          the base commit (default: the merge base of HEAD\n"
		     "                          with the target branch)\n"
		     "      --target BRANCH     the target branch (default: $GITHUB_BASE_REF,\n"
		     "                          $CI_MERGE_REQUEST_TARGET_BRANCH_NAME, origin's\n"
		     "                          default branch, main, master)\n"
		     "  -n, --runs N            runs per side at the first look (default: the\n"
		     "                          scenario's runs, at least its gate's min_runs)\n"
		     "      --max-runs M        runs per side at the most (default: N + 6; N:\n"
		     "                          no more runs than N)\n"
		     "  -r, --results DIR       the results folder, missing or empty (default:\n"
		     "                          results/ab-NAME-YYYYmmdd-HHMMSS); base/ and head/\n"
		     "                          in it\n"
		     "      --build-dir DIR     the head's ${BUILD_DIR} (default: build/ in the\n"
		     "                          work tree)\n"
		     "      --keep-tree         keep the base's tree (its path is printed)\n"
		     "  -q, --quiet             only warnings, errors and the verdict\n"
		     "  -h, --help              this text\n"
		     "\n"
		     "Exit status: 0 the verdict is pass, improved or inconclusive; 1 it is\n"
		     "new-bottleneck or regression; 2 error or interrupted.\n");
}

/* RESULTS, or results/ab-STEM-YYYYmmdd-HHMMSS after the scenario's file. */
static void results_dir(const char *scenario, const char *given, char *dir, size_t size)
{
	const char *base = strrchr(scenario, '/') ? strrchr(scenario, '/') + 1 : scenario;
	size_t stem = strcspn(base, ".");
	char stamp[32];
	time_t now = time(NULL);

	if (given) {
		snprintf(dir, size, "%s", given);
		return;
	}
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	snprintf(dir, size, "results/ab-%.*s-%s", (int)stem, base, stamp);
}

int cmd_ab(int argc, char **argv)
{
	enum { OPT_BASE = 256, OPT_TARGET, OPT_KEEP_TREE, OPT_MAX_RUNS };
	static const struct option longopts[] = {
	    {"base", required_argument, NULL, OPT_BASE},
	    {"target", required_argument, NULL, OPT_TARGET},
	    {"runs", required_argument, NULL, 'n'},
	    {"max-runs", required_argument, NULL, OPT_MAX_RUNS},
	    {"results", required_argument, NULL, 'r'},
	    {"build-dir", required_argument, NULL, CLI_OPT_BUILD_DIR},
	    {"keep-tree", no_argument, NULL, OPT_KEEP_TREE},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct check_scenario_opts o = {0};
	struct wperf_check_scenario sc;
	const char *base_ref = NULL, *target = NULL, *results = NULL;
	struct base_tree *tree = NULL;
	struct wperf_error err = {0};
	struct wperf_buf md = {0};
	char dir[PATH_MAX];
	int c, keep = 0, status;

	while ((c = getopt_long(argc, argv, "n:r:qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_BASE:
			base_ref = optarg;
			break;
		case OPT_TARGET:
			target = optarg;
			break;
		case 'n':
			if (cli_parse_count(CMD, "--runs", optarg, 1, 1000, &o.looks.first))
				return EXIT_ERROR;
			break;
		case OPT_MAX_RUNS:
			if (cli_parse_count(CMD, "--max-runs", optarg, 1, 1000, &o.looks.max))
				return EXIT_ERROR;
			break;
		case 'r':
			results = optarg;
			break;
		case CLI_OPT_BUILD_DIR:
			o.build_dir = optarg;
			break;
		case OPT_KEEP_TREE:
			keep = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		default:
			return cli_other_option(c, usage);
		}
	}
	if (!(o.scenario = cli_one_operand(argc, argv, usage)))
		return EXIT_ERROR;
	if (o.looks.first && o.looks.max && o.looks.max < o.looks.first)
		return cli_error(CMD, "--max-runs %u is below --runs %u", o.looks.max,
				 o.looks.first);
	if (o.looks.first && !o.looks.max)
		o.looks.max = o.looks.first;
	results_dir(o.scenario, results, dir, sizeof(dir));
	o.dir = dir;
	if (base_tree_open(base_ref, target, keep, &tree, &err) < 0) {
		status = cli_error(CMD, "%s", err.msg);
		base_tree_free(tree);
		return status;
	}
	o.base = tree;
	if (check_scenario(&o, &sc, &err) < 0 || sc.error) {
		status = cli_error(CMD, "%s", sc.reason ? sc.reason : err.msg);
	} else {
		if (wperf_verdict_markdown(&sc.verdict, 0, &md) == 0 && md.len)
			fwrite(md.data, 1, md.len, stdout);
		status = wperf_verdict_exit_code(sc.verdict.kind) ? EXIT_FAIL : EXIT_OK;
		if (!o.quiet)
			fprintf(stderr,
				"wperf-bench ab: %zu runs per side in %.0f s; results in %s\n",
				sc.pairs, sc.seconds, dir);
	}
	wperf_buf_release(&md);
	wperf_check_scenario_release(&sc);
	base_tree_free(tree);
	return status;
}
