/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench run: runs a scenario (docs/scenarios.md) as many times as it
 * says, records and analyzes every run, writes the results folder, and with
 * --gate judges the runs against the scenario's baseline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/cli_vars.h"
#include "harness/gate/gate.h"
#include "harness/base/output.h"
#include "harness/run/run_set.h"

#define CMD "run"

struct run_args {
	struct run_set_opts o;
	int gate;
	struct gate_baseline_src baseline;
	struct cli_vars vars; /* --var and the repository's, for o.defs */
};

static int parse_run_stacks(const char *cmd, const struct cli_option *opt, const char *arg,
			    void *field)
{
	struct run_args *a = field;

	a->o.stacks_set = 1;
	return cli_parse_stacks(cmd, opt, arg, &a->o.stacks);
}

const struct cli_option cli_run_options[] = {
    {'n', "runs", "N", "run N times instead of the scenario's runs",
     CLI_COUNT(struct run_args, o.runs, 1, 1000)},
    {'r', "results", "DIR",
     "the results folder, missing or empty (default: results/NAME-YYYYmmdd-HHMMSS)",
     CLI_STRING(struct run_args, o.results_dir)},
    {'g', "gate", NULL,
     "judge the runs against the baseline and print the verdict (also written as verdict.md "
     "and junit.xml)",
     CLI_FLAG(struct run_args, gate)},
    {CLI_GROUP(struct run_args, baseline, cli_baseline_src_options), .heading = "with --gate:"},
    {0, "build-dir", "DIR",
     "${BUILD_DIR} of the scenario (default: the folder of this wperf-bench, when make built "
     "it in a source tree)",
     CLI_STRING(struct run_args, o.build_dir), .heading = "other options:"},
    {0, "var", "NAME=VALUE",
     "defines the scenario variable ${NAME} (BUILD_DIR too, over --build-dir; relative, in "
     "the repository's root); repeatable, a later one winning; wins over the repository's "
     ".wperf-bench.yaml and the environment",
     CLI_PARSE(struct run_args, vars.args, cli_parse_var)},
    {0, "stacks", "MODE",
     "record the stacks as record --stacks MODE does (none, kernel, user, all or dwarf) "
     "instead of as the scenario's record.stacks says",
     CLI_PARSE_ALL(parse_run_stacks)},
    {'q', "quiet", NULL, "only warnings, errors and the verdict",
     CLI_FLAG(struct run_args, o.quiet)},
    {0},
};

/* The gate's verdict on r, printed; the exit status it gives. */
static int judge(struct results *r, const struct gate_baseline_src *src)
{
	struct wperf_verdict v;
	struct wperf_error err = {0};
	struct wperf_buf md = {0};
	int status;

	if (gate_judge_from(r, src, &v, &err) < 0)
		return cli_error(CMD, "%s", err.msg);
	if (wperf_verdict_markdown(&v, 0, &md) == 0 && md.len)
		fwrite(md.data, 1, md.len, stdout);
	status = wperf_verdict_exit_code(v.kind) ? EXIT_FAIL : EXIT_OK;
	wperf_buf_release(&md);
	wperf_verdict_release(&v);
	return status;
}

/* summary.md on standard output: the table of the runs. */
static void print_summary(const struct results *r)
{
	struct wperf_buf md = {0};
	struct wperf_error err = {0};
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/summary.md", r->dir);
	if (output_read_all(path, &md, &err) == 0 && md.len)
		fwrite(md.data, 1, md.len, stdout);
	else if (md.len == 0)
		cli_warn(CMD, "%s", err.msg[0] ? err.msg : "summary.md is empty");
	wperf_buf_release(&md);
}

/* How many runs missed the scenario's expected answer. */
static size_t expectations_missed(const struct results *r)
{
	size_t missed = 0;

	for (size_t i = 0; i < r->runs.nruns; i++)
		missed += r->expect[i].checked && !r->expect[i].met;
	return missed;
}

/* One scenario (one variant of a matrix) from its run set to its exit status. */
static int run_one(struct run_args *args)
{
	struct run_set_opts *o = &args->o;
	struct results r;
	struct scenario *s;
	struct wperf_error err = {0};
	int status;
	size_t missed;

	if (run_set(o, &r, &s, &err) < 0) {
		status = r.dir[0] ? cli_error(CMD, "%s is incomplete: %s", r.dir, err.msg)
				  : cli_error(CMD, "%s", err.msg);
		goto out;
	}
	status = args->gate ? judge(&r, &args->baseline) : EXIT_OK;
	missed = expectations_missed(&r);
	if (missed) {
		cli_warn(CMD, "%zu of %zu runs missed the expected answer (see %s/summary.md)",
			 missed, r.runs.nruns, r.dir);
		if (status == EXIT_OK)
			status = EXIT_FAIL;
	}
	if (!o->quiet && !args->gate)
		print_summary(&r);
	if (!o->quiet)
		fprintf(stderr, "wperf-bench run: results in %s\n", r.dir);
out:
	results_release(&r);
	scenario_free(s);
	return status;
}

int cmd_run(int argc, char **argv)
{
	struct run_args args = {0};
	const struct gate_baseline_src *baseline = &args.baseline;
	const char *results = NULL;
	struct wperf_error err = {0};
	char **variants = NULL, dir[PATH_MAX];
	size_t n = 0;
	int status = cli_parse(CMD, &cli_run_help, argc, argv, &args);

	if (status >= 0)
		return status;
	if ((baseline->path || baseline->at_commit || baseline->target) && !args.gate)
		return cli_error(CMD, "--baseline, --baseline-ref and --target are for --gate");
	status = cli_vars_define(CMD, &args.vars, 0, &args.o.defs, &args.o.build_dir);
	if (status != EXIT_OK || scenario_variants(argv[optind], &variants, &n, &err) < 0) {
		cli_vars_release(&args.vars);
		return status != EXIT_OK ? status : cli_error(CMD, "%s", err.msg);
	}
	/* A matrix: every variant (or those selected), --results DIR/NAME=VALUE,... each. */
	results = args.o.results_dir;
	status = EXIT_OK;
	for (size_t i = 0; i < n && status != EXIT_ERROR; i++) {
		int one;

		args.o.scenario_path = variants[i];
		if (results && n > 1) {
			snprintf(dir, sizeof(dir), "%s/%s", results, strrchr(variants[i], '@') + 1);
			args.o.results_dir = dir;
		}
		one = run_one(&args);
		status = one > status ? one : status;
	}
	scenario_variants_free(variants);
	cli_vars_release(&args.vars);
	return status;
}
