/* SPDX-License-Identifier: MIT */
#include "harness/gate/check_run.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/progress.h"
#include "harness/gate/check_write.h"

/* The scenario's verdict in one line: runs, time, the smallest throughput
 * change its runs could have told from noise (and the one asked, when they
 * could not), in how many runs a new vertex fails, why it is unclear. */
static void say_scenario(const struct check_run_opts *o, size_t i,
			 const struct wperf_check_scenario *s)
{
	const struct wperf_verdict *v = &s->verdict;
	char detect[160] = "";
	int n = 0;

	if (!s->error && !isnan(v->detectable))
		n = snprintf(detect, sizeof(detect), ", could tell a throughput change of %.1f%%%s",
			     v->detectable * 100,
			     v->detectable > v->detect ? " (not the one asked)" : "");
	if (!s->error && v->presence)
		snprintf(detect + n, sizeof(detect) - (size_t)n,
			 ", a new vertex in %zu of %zu runs", v->presence, v->runs);
	else if (!s->error)
		snprintf(detect + n, sizeof(detect) - (size_t)n, ", no new vertex could fail");
	fprintf(stderr, "check-perf: [%zu/%zu] %s: %s (%zu run%s per side, %.0f s%s)%s%s\n", i + 1,
		o->sel->nshare, s->name, s->error ? "error" : wperf_verdict_name(s->verdict.kind),
		s->pairs, s->pairs == 1 ? "" : "s", s->seconds, detect, s->reason ? ": " : "",
		s->reason ? s->reason : "");
}

/* Runs the shard's scenarios into c; 0, or -EINTR / -ENOMEM (c holds what
 * was done). Each scenario's part of alpha is of the whole selection's, so
 * that the shards together hold the check's rate (with --strict, of failures
 * and inconclusive scenarios together). */
static int run_all(const struct check_run_opts *o, struct wperf_check *c, struct wperf_error *err)
{
	const struct check_selection *sel = o->sel;
	double end = progress_now_s() + o->budget;
	int e = 0;

	c->scenarios = calloc(sel->nshare, sizeof(*c->scenarios));
	if (!c->scenarios)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < sel->nfiles && !e; i++) {
		const char *file = sel->files[i].file, *slash = strrchr(file, '/');
		char dir[PATH_MAX];
		struct check_scenario_opts so = {.scenario = file,
						 .dir = dir,
						 .base = o->tree,
						 .baseline = o->baseline,
						 .looks = o->looks,
						 .alpha = o->alpha / (double)sel->nfiles /
							  (o->strict ? WPERF_GATE_INCONCLUSIVE : 1),
						 .build_dir = o->build_dir,
						 .defs = o->defs,
						 .quiet = 1,
						 .new_ok = 1,
						 .trust_head = o->trust_head};

		if (!check_shard_has(o->shard, i))
			continue;
		/* What is left of the budget, shared among the scenarios left: a
		 * quick one leaves more to the next. */
		if (o->budget > 0)
			so.deadline = progress_now_s() +
				      (end - progress_now_s()) / (double)(sel->nshare - c->n);
		snprintf(dir, sizeof(dir), "%s/%.*s", o->results,
			 (int)strcspn(slash ? slash + 1 : file, "."), slash ? slash + 1 : file);
		if (!o->quiet)
			fprintf(stderr, "check-perf: [%zu/%zu] %s\n", c->n + 1, sel->nshare, file);
		e = check_scenario(&so, &c->scenarios[c->n], err);
		say_scenario(o, c->n, &c->scenarios[c->n]);
		c->n++;
	}
	return e;
}

int check_run(const struct check_run_opts *o, struct wperf_check *c, struct wperf_error *err)
{
	double t0 = progress_now_s();
	char **names = calloc(o->sel->nfiles + 1, sizeof(*names));
	int e = names ? check_write_prepare(o->results, err)
		      : wperf_error_set(err, -ENOMEM, "out of memory");

	for (size_t i = 0; names && i < o->sel->nfiles; i++)
		names[i] = o->sel->files[i].name;
	if (!e && o->shard->of)
		e = check_shard_write(o->results, o->shard, names, o->sel->nfiles, err);
	free(names);
	if (e)
		return e;
	c->trust_head_settings = c->base_mode && o->trust_head;
	c->alpha = o->alpha;
	if (o->tree) {
		snprintf(c->base_ref, sizeof(c->base_ref), "%s",
			 o->base_ref ? o->base_ref : "merge-base");
		snprintf(c->base_commit, sizeof(c->base_commit), "%s", o->tree->commit);
	}
	check_write_head(c);
	e = run_all(o, c, err);
	c->seconds = progress_now_s() - t0;
	if (c->n && check_write(c, o->results, err) < 0)
		fprintf(stderr, "wperf-bench check-perf: warning: %s\n", err->msg);
	return e;
}
