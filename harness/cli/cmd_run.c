/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench run: runs a scenario (docs/scenarios.md) as many times as it
 * says, records and analyzes every run, writes the results folder, and with
 * --gate judges the runs against the scenario's baseline.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/gate/gate.h"
#include "harness/base/output.h"
#include "harness/run/run_set.h"

#define CMD "run"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: wperf-bench run [OPTIONS] SCENARIO\n"
		"\n"
		"Runs SCENARIO: its setup, its services (each in a process group of its own,\n"
		"waited for until ready), the load while the machine is recorded, then stops\n"
		"everything and runs the teardown; as many times as the scenario's runs.\n"
		"Each run is analyzed at once; a synthetic scenario's expected answer is\n"
		"checked in every run. Whatever happens (a service that dies, Ctrl-C,\n"
		"SIGTERM) every process started is stopped and the results folder says\n"
		"why it is incomplete; after a SIGKILL, the next run cleans up.\n"
		"\n"
		"The results folder holds summary.json and summary.md, the median run's\n"
		"graph.svg, plots/ (throughput and edge weights per run), the log, and\n"
		"runs/N/ with each run's trace, reports and process logs.\n"
		"\n"
		"options:\n"
		"  -n, --runs N            run N times instead of the scenario's runs\n"
		"  -r, --results DIR       the results folder, missing or empty (default:\n"
		"                          results/NAME-YYYYmmdd-HHMMSS)\n"
		"  -g, --gate              judge the runs against the baseline and print the\n"
		"                          verdict (also written as verdict.md and junit.xml)\n"
		"with --gate:\n" CLI_BASELINE_HELP "other options:\n"
		"      --build-dir DIR     ${BUILD_DIR} of the scenario (default: the folder\n"
		"                          of this wperf-bench)\n"
		"  -q, --quiet             only warnings, errors and the verdict\n"
		"  -h, --help              this text\n"
		"\n"
		"Exit status: 0 every run done (and the gate passed, or found an improvement\n"
		"or could not decide), 1 the gate failed or a run missed the expected answer,\n"
		"2 error or interrupted.\n");
}

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

int cli_run_set_option(const char *cmd, int c, const char *arg, struct run_set_opts *o)
{
	switch (c) {
	case 'n':
		return cli_parse_count(cmd, "--runs", arg, 1, 1000, &o->runs);
	case 'r':
		o->results_dir = arg;
		return 0;
	case 'q':
		o->quiet = 1;
		return 0;
	case CLI_OPT_BUILD_DIR:
		o->build_dir = arg;
		return 0;
	}
	return cli_error(cmd, "option %d is not a run set's", c);
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"runs", required_argument, NULL, 'n'},
	    {"results", required_argument, NULL, 'r'},
	    {"gate", no_argument, NULL, 'g'},
	    CLI_BASELINE_LONGOPTS,
	    {"build-dir", required_argument, NULL, CLI_OPT_BUILD_DIR},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct run_set_opts o = {0};
	struct gate_baseline_src baseline = {0};
	struct results r;
	struct scenario *s;
	struct wperf_error err = {0};
	int c, gate = 0, gate_options = 0, status;
	size_t missed;

	while ((c = getopt_long(argc, argv, "n:r:gb:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			gate = 1;
			break;
		case 'b':
		case CLI_OPT_BASELINE_REF:
		case CLI_OPT_TARGET:
			if (cli_baseline_option(CMD, c, optarg, &baseline))
				return EXIT_ERROR;
			gate_options = 1;
			break;
		case 'n':
		case 'r':
		case 'q':
		case CLI_OPT_BUILD_DIR:
			if (cli_run_set_option(CMD, c, optarg, &o))
				return EXIT_ERROR;
			break;
		default:
			return cli_other_option(c, usage);
		}
	}
	if (!(o.scenario_path = cli_one_operand(argc, argv, usage)))
		return EXIT_ERROR;
	if (gate_options && !gate)
		return cli_error(CMD, "--baseline, --baseline-ref and --target are for --gate");
	if (run_set(&o, &r, &s, &err) < 0) {
		status = r.dir[0] ? cli_error(CMD, "%s is incomplete: %s", r.dir, err.msg)
				  : cli_error(CMD, "%s", err.msg);
		goto out;
	}
	status = gate ? judge(&r, &baseline) : EXIT_OK;
	missed = expectations_missed(&r);
	if (missed) {
		cli_warn(CMD, "%zu of %zu runs missed the expected answer (see %s/summary.md)",
			 missed, r.runs.nruns, r.dir);
		if (status == EXIT_OK)
			status = EXIT_FAIL;
	}
	if (!o.quiet && !gate)
		print_summary(&r);
	if (!o.quiet)
		fprintf(stderr, "wperf-bench run: results in %s\n", r.dir);
out:
	results_release(&r);
	scenario_free(s);
	return status;
}
