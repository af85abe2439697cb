/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench bisect: the first commit between a good and a bad one whose
 * runs the gate fails against the good commit's (harness/gate/bisect.h), as
 * git bisect run would find it with the gate as its test, but with runs
 * added until each commit is clearly on one side.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/output.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_vars.h"
#include "harness/gate/bisect.h"
#include "harness/gate/check_flame.h"

#define CMD	  "bisect"
#define SHORT_OID 12

struct bisect_args {
	struct bisect_opts o;
	const char *results;
	struct cli_vars vars; /* --var and the repository's, for o.defs */
};

const struct cli_option cli_bisect_options[] = {
    {0, "good", "REF", "a commit without the change (required); its copy of SCENARIO runs",
     CLI_STRING(struct bisect_args, o.good)},
    {0, "bad", "REF", "a commit with it, descending from --good (default: HEAD)",
     CLI_STRING(struct bisect_args, o.bad)},
    {'n', "runs", "N",
     "runs per side at each commit's first look (default: the scenario's runs, at least its "
     "gate's min_runs)",
     CLI_COUNT(struct bisect_args, o.looks.first, 1, 1000)},
    {0, "max-runs", "M", "runs per side at the most (default: N + 12; N: no more runs than N)",
     CLI_COUNT(struct bisect_args, o.looks.max, 1, 1000)},
    {0, "alpha", "A",
     "the chance of naming a wrong commit by a false failure (default 0.05), split evenly "
     "between the commits judged",
     CLI_PARSE(struct bisect_args, o.alpha, cli_parse_alpha)},
    {'r', "results", "DIR",
     "the results folder (default: results/bisect-NAME-YYYYmmdd-HHMMSS); one that holds this "
     "bisection's bisect.log resumes it",
     CLI_STRING(struct bisect_args, results)},
    {0, "build-dir", "DIR", "${BUILD_DIR} in each commit's tree (default: build/)",
     CLI_STRING(struct bisect_args, o.build_dir)},
    {0, "var", "NAME=VALUE",
     "defines the scenario variable ${NAME} for every commit; repeatable, a later one "
     "winning; wins over the repository's .wperf-bench.yaml and the environment",
     CLI_PARSE(struct bisect_args, vars.args, cli_parse_var)},
    {'q', "quiet", NULL, "only warnings, errors, each commit's mark and the answer",
     CLI_FLAG(struct bisect_args, o.quiet)},
    {0},
};

/* The commits and their marks, then the answer and, for a first bad commit,
 * the verdict of its judgment (DIR/steps/OID/head/verdict.md). */
static int show(const struct bisect *b, const char *dir)
{
	char path[PATH_MAX + 64];
	struct wperf_buf md = {0};
	struct wperf_error err = {0};

	printf("bisect: %zu commits after %.*s (good) up to %.*s (bad); %zu judged in %.0f s, "
	       "each at level %.3g\n",
	       b->n, SHORT_OID, b->good, SHORT_OID, b->bad, b->judged, b->seconds, b->alpha);
	for (size_t i = 0; i < b->n; i++)
		printf("  %.*s  %-8s  %s\n", SHORT_OID, b->commits[i].oid,
		       wperf_bisect_mark_name(b->marks[i]), b->commits[i].subject);
	if (b->outcome == WPERF_BISECT_STUCK) {
		printf("\n%.*s stayed inconclusive: run again with more --max-runs and the same "
		       "--results %s to go on\n",
		       SHORT_OID, b->commits[b->at].oid, dir);
		return EXIT_FAIL;
	}
	if (b->outcome == WPERF_BISECT_NO_CHANGE) {
		printf("\nthe bad commit passes against the good one: no change to find\n");
		return EXIT_FAIL;
	}
	printf("\nthe first bad commit: %s %s\n\n", b->commits[b->at].oid,
	       b->commits[b->at].subject);
	snprintf(path, sizeof(path), "%s/steps/%.*s/head/verdict.md", dir, SHORT_OID,
		 b->commits[b->at].oid);
	if (output_read_all(path, &md, &err) == 0)
		fwrite(md.data, 1, md.len, stdout);
	else
		cli_warn(CMD, "%s", err.msg);
	snprintf(path, sizeof(path), "%s/steps/%.*s/" CHECK_FLAME_SVG, dir, SHORT_OID,
		 b->commits[b->at].oid);
	if (access(path, R_OK) == 0)
		printf("\nWhere its waits changed: %s, a differential flame graph.\n", path);
	wperf_buf_release(&md);
	return EXIT_OK;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_args args = {.o.bad = "HEAD"};
	struct bisect_opts *o = &args.o;
	struct bisect b = {0};
	struct wperf_error err = {0};
	char dir[PATH_MAX];
	int status = cli_parse(CMD, &cli_bisect_help, argc, argv, &args);

	if (status >= 0)
		return status;
	o->scenario = argv[optind];
	if (!o->good)
		return cli_usage_error(CMD, "--good REF is required: a commit without the change");
	status = cli_vars_define_looks(CMD, &args.vars, &o->looks, &o->defs, &o->build_dir);
	if (status != EXIT_OK)
		return status;
	cli_results_dir("bisect", o->scenario, args.results, dir, sizeof(dir));
	o->dir = dir;
	if (bisect_run(o, &b, &err) < 0)
		status = cli_error(CMD, "%s", err.msg);
	else
		status = show(&b, dir);
	if (!o->quiet && status != EXIT_ERROR)
		fprintf(stderr, "wperf-bench bisect: results in %s\n", dir);
	bisect_release(&b);
	cli_vars_release(&args.vars);
	return status;
}
