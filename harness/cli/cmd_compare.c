/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench compare: the gate's verdict on results folders of `run`, each
 * against the baseline of its scenario, for people (Markdown) and for CI
 * (JUnit XML).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/cli/cli.h"
#include "harness/gate/gate.h"
#include "harness/base/output.h"

#define CMD "compare"

struct compare_args {
	struct gate_baseline_src baseline;
	const char *markdown, *junit;
};

const struct cli_option cli_compare_options[] = {
    {CLI_GROUP(struct compare_args, baseline, cli_baseline_src_options)},
    {0, "markdown", "FILE", "also write the Markdown of every verdict there",
     CLI_STRING(struct compare_args, markdown)},
    {0, "junit", "FILE", "write one JUnit XML report of every verdict there",
     CLI_STRING(struct compare_args, junit)},
    {0},
};

/* The verdict on one results folder; an exit status. */
static int compare_one(const char *dir, const struct gate_baseline_src *src,
		       struct wperf_verdict *v)
{
	struct results r;
	struct wperf_error err = {0};
	int e = results_read(dir, &r, &err);

	if (!e && !r.complete)
		e = wperf_error_set(&err, -EINVAL, "%s is incomplete: %s", dir, r.reason);
	if (!e)
		e = gate_judge_from(&r, src, v, &err);
	results_release(&r);
	return e ? cli_error(CMD, "%s", err.msg) : EXIT_OK;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args args = {0};
	struct wperf_verdict *verdicts;
	const struct wperf_verdict **judged;
	struct wperf_buf md = {0}, xml = {0};
	struct wperf_error err = {0};
	size_t n = 0;
	int status = cli_parse(CMD, &cli_compare_help, argc, argv, &args);

	if (status >= 0)
		return status;
	status = EXIT_OK;
	if (args.baseline.path && argc - optind > 1)
		return cli_error(CMD, "--baseline goes with one RESULTS folder only");
	verdicts = calloc(argc - optind, sizeof(*verdicts));
	judged = calloc(argc - optind, sizeof(*judged));
	if (!verdicts || !judged) {
		status = cli_error(CMD, "out of memory");
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		int one = compare_one(argv[i], &args.baseline, &verdicts[n]);

		if (one != EXIT_OK) {
			status = EXIT_ERROR;
			continue;
		}
		judged[n] = &verdicts[n];
		if (wperf_verdict_exit_code(verdicts[n].kind) && status == EXIT_OK)
			status = EXIT_FAIL;
		if (wperf_verdict_markdown(&verdicts[n], 0, &md) < 0 ||
		    wperf_buf_append(&md, "\n", 1) < 0)
			status = cli_error(CMD, "out of memory");
		n++;
	}
	if (md.len) /* fwrite wants a buffer even for nothing */
		fwrite(md.data, 1, md.len, stdout);
	if (args.markdown && output_write(args.markdown, md.data, md.len, &err) < 0)
		status = cli_error(CMD, "%s", err.msg);
	if (args.junit && (wperf_verdict_junit(judged, n, &xml) < 0 ||
			   output_write(args.junit, xml.data, xml.len, &err) < 0))
		status = cli_error(CMD, "%s", err.msg[0] ? err.msg : "out of memory");
out:
	for (size_t i = 0; i < n; i++)
		wperf_verdict_release(&verdicts[i]);
	free(verdicts);
	free(judged);
	wperf_buf_release(&md);
	wperf_buf_release(&xml);
	return status;
}
