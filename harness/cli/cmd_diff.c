/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench diff: two recordings analyzed alike, their knots, sinks and
 * edges side by side (as perf diff does for profiles).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/gate/runset.h"
#include "harness/base/output.h"
#include "harness/cli/cli.h"
#include "core/gate/run_diff.h"
#include "harness/cli/trace_analysis.h"

#define CMD "diff"

struct diff_args {
	int json;
	const char *output; /* NULL: standard output */
	struct cli_analysis analysis;
};

static int parse_format(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	(void)opt;
	if (strcmp(arg, "text") && strcmp(arg, "json"))
		return cli_error(cmd, "--format is text or json, not '%s'", arg);
	*(int *)field = !strcmp(arg, "json");
	return 0;
}

const struct cli_option cli_diff_options[] = {
    {'f', "format", "FORMAT",
     "text (default) or json (" WPERF_DIFF_SCHEMA ", docs/report-schema.md)",
     CLI_PARSE(struct diff_args, json, parse_format)},
    {'o', "output", "FILE", "write there instead of standard output",
     CLI_STRING(struct diff_args, output)},
    {CLI_GROUP(struct diff_args, analysis, cli_analysis_options)},
    {0},
};

/* The run of the trace at path, as the gate would keep it; an exit status. */
static int take_run(const char *path, const struct cli_analysis *c, struct wperf_run *run)
{
	struct wperf_trace *t = NULL;
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};
	const char *target;
	int status = cli_open_trace(CMD, path, 1, &t);

	if (!status)
		status = cli_analyze(CMD, path, t, c, &a, &target);
	if (!status && wperf_run_from_analysis(a, target, NAN, NULL, run, &err) < 0)
		status = cli_error(CMD, "%s: %s", path, err.msg);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	return status;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args args = {0};
	struct wperf_run runs[2];
	struct wperf_run_diff d = {.run = {&runs[0], &runs[1]}};
	struct wperf_buf out = {0};
	struct wperf_error err = {0};
	int status;

	cli_analysis_init(&args.analysis);
	status = cli_parse(CMD, &cli_diff_help, argc, argv, &args);
	if (status >= 0)
		return status;
	wperf_run_init(&runs[0]);
	wperf_run_init(&runs[1]);
	for (int i = 0; i < 2 && status < 0; i++) {
		d.name[i] = argv[optind + i];
		if (take_run(d.name[i], &args.analysis, &runs[i]))
			status = EXIT_ERROR;
	}
	if (status < 0 &&
	    (args.json ? wperf_run_diff_json(&d, &out) : wperf_run_diff_text(&d, &out)) < 0)
		status = cli_error(CMD, "writing the diff: out of memory");
	if (status < 0 && output_write(args.output, out.data, out.len, &err) < 0)
		status = cli_error(CMD, "%s", err.msg);
	wperf_buf_release(&out);
	wperf_run_release(&runs[0]);
	wperf_run_release(&runs[1]);
	return status < 0 ? EXIT_OK : status;
}
