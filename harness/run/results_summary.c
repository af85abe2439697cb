/* SPDX-License-Identifier: MIT */
/*
 * A results folder's summary files, summary.json (results_json.c) and
 * summary.md, and its INCOMPLETE mark: on top of the folder's state
 * (results.c).
 */
#include "harness/run/results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/gate/run_json.h"

/* ---- summary.md ---- */

static int md_knots(const struct wperf_run *run, struct wperf_buf *out)
{
	int e = 0;

	if (!run->nknots)
		return wperf_buf_printf(out, "none");
	for (size_t k = 0; !e && k < run->nknots; k++)
		e = wperf_buf_printf(out, "%s", k ? "; {" : "{") ||
		    wperf_markdown_ids(out, &run->knots[k]) || wperf_buf_printf(out, "}");
	return e ? -ENOMEM : 0;
}

static int summary_md(const struct results *r, const char *verdict_md, struct wperf_buf *out)
{
	const struct wperf_env *env = &r->env;
	char calibration[64] = "";
	int e = wperf_buf_printf(out, "# %s: %zu run%s, %s\n\n", r->scenario, r->runs.nruns,
				 r->runs.nruns == 1 ? "" : "s",
				 r->complete ? "complete" : "incomplete");

	if (!e && !r->complete)
		e = wperf_buf_printf(out, "**Incomplete:** %s\n\n", r->reason);
	if (env->calibration > 0) /* the fingerprint's part people cannot look up */
		snprintf(calibration, sizeof(calibration), ", calibration loop %.4g ns a step",
			 env->calibration);
	if (!e)
		e = wperf_buf_printf(out, "Environment: kernel %s, %s, %u CPUs, %s%s.\n\n",
				     env->kernel,
				     env->cpu_model[0] ? env->cpu_model : "CPU unknown", env->cpus,
				     env->tool, calibration);
	if (!e && r->git.commit[0])
		e = wperf_buf_printf(out, "Commit: %.12s%s%s%s", r->git.commit,
				     r->git.branch[0] ? " on " : "", r->git.branch,
				     r->git.dirty ? ", with uncommitted changes" : "");
	if (!e && r->git.merge_base[0])
		e = wperf_buf_printf(out, ", forked from %s at %.12s", r->git.target,
				     r->git.merge_base);
	if (!e && r->git.commit[0])
		e = wperf_buf_printf(out, ".\n\n");
	if (!e && r->runs.nruns)
		e = wperf_buf_printf(out,
				     "| run | throughput%s%s%s | knots | expected answer |\n"
				     "|---:|---:|---|---|\n",
				     r->runs.unit[0] ? " (" : "", r->runs.unit,
				     r->runs.unit[0] ? ")" : "");
	for (size_t i = 0; !e && i < r->runs.nruns; i++) {
		const struct wperf_run *run = &r->runs.runs[i];
		const struct results_expect *x = &r->expect[i];

		e = isnan(run->throughput)
			? wperf_buf_printf(out, "| %zu | - | ", i + 1)
			: wperf_buf_printf(out, "| %zu | %.6g | ", i + 1, run->throughput);
		if (!e)
			e = md_knots(run, out);
		if (!e)
			e = wperf_buf_printf(out, " | %s%s |\n",
					     !x->checked ? "-"
					     : x->met	 ? "found"
							 : "**missing**: ",
					     x->checked && !x->met ? x->why : "");
	}
	if (!e && verdict_md)
		e = wperf_buf_printf(out, "\n%s", verdict_md);
	return e;
}

int results_write(const struct results *r, const char *verdict_md, struct wperf_error *err)
{
	struct wperf_buf json = {0}, md = {0}, reason = {0};
	char path[PATH_MAX];
	int e = results_summary_json(r, &json);

	if (!e)
		e = summary_md(r, verdict_md, &md);
	if (e)
		e = wperf_error_set(err, e, "writing the summary: out of memory");
	if (!e)
		e = results_write_file(r, "summary.json", &json, err);
	if (!e)
		e = results_write_file(r, "summary.md", &md, err);
	snprintf(path, sizeof(path), "%s/INCOMPLETE", r->dir);
	if (!e && r->complete)
		unlink(path);
	else if (!e && !(e = wperf_buf_printf(&reason, "%s\n", r->reason)))
		e = results_write_file(r, "INCOMPLETE", &reason, err);
	wperf_buf_release(&json);
	wperf_buf_release(&md);
	wperf_buf_release(&reason);
	return e;
}
