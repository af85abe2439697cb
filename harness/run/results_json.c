/* SPDX-License-Identifier: MIT */
/*
 * summary.json, the results folder's record of a run set (results.h): its one
 * writer and its one reader. This file owns the document, top to bottom: it
 * knows what a results folder adds around the runs (status, the git commit,
 * the scenario's gate options and expectations, the verdict), which core/
 * cannot know, and it puts each run and the environment in it as the values
 * that core/gate/run_json.h makes and reads (a run does not know the file it
 * is in). Writing checks every allocation; numbers are json-c's %.17g, exact,
 * as summaries have always been written. Reading is strict, with the
 * strict-document kit's JSON side (core/util/json_util.h): every value is
 * checked for its type and range, and an error says
 * "FILE: key.path: what was expected, found what".
 */
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/gate/run_json.h"
#include "core/util/json_util.h"
#include "harness/base/output.h"
#include "harness/run/results.h"

/* ---- writing ---- */

/* Adds o, a new object that the calls before may have failed to fill (e),
 * under key of parent; puts o when it cannot. */
static int put_object(json_object *parent, const char *key, json_object *o, int e)
{
	if (e) {
		json_object_put(o);
		return e;
	}
	return wperf_json_put(parent, key, o);
}

static int put_gate(json_object *parent, const struct wperf_gate_opts *g)
{
	json_object *o = json_object_new_object();
	int e = o ? 0 : -ENOMEM;

	e = e ? e : wperf_json_put(o, "edge_tolerance", json_object_new_double(g->edge_tolerance));
	e = e ? e
	      : wperf_json_put(o, "throughput_tolerance",
			       json_object_new_double(g->throughput_tolerance));
	e = e ? e : wperf_json_put(o, "warn_ratio", json_object_new_double(g->warn_ratio));
	e = e ? e : wperf_json_put(o, "min_runs", json_object_new_int64((int64_t)g->min_runs));
	e = e ? e
	      : wperf_json_put(o, "lower_is_better", json_object_new_boolean(g->lower_is_better));
	e = e ? e : wperf_json_put(o, "max_lost", json_object_new_double(g->max_lost));
	e = e || !(g->detect > 0) ? e
				  : wperf_json_put(o, "detect", json_object_new_double(g->detect));
	return put_object(parent, "gate", o, e);
}

/* null outside a repository */
static int put_git(json_object *parent, const struct git_info *g)
{
	json_object *o;
	int e;

	if (!g->commit[0])
		return wperf_json_put_null(parent, "git");
	o = json_object_new_object();
	e = o ? 0 : -ENOMEM;
	e = e ? e : wperf_json_put(o, "repository", json_object_new_string(g->repository));
	e = e ? e : wperf_json_put(o, "commit", json_object_new_string(g->commit));
	e = e ? e : wperf_json_put(o, "branch", json_object_new_string(g->branch));
	e = e ? e : wperf_json_put(o, "dirty", json_object_new_boolean(g->dirty));
	e = e ? e : wperf_json_put(o, "target", json_object_new_string(g->target));
	e = e ? e : wperf_json_put(o, "merge_base", json_object_new_string(g->merge_base));
	return put_object(parent, "git", o, e);
}

/* null until judged */
static int put_verdict(json_object *parent, const struct results *r)
{
	json_object *o;
	int e;

	if (!r->verdict[0])
		return wperf_json_put_null(parent, "verdict");
	o = json_object_new_object();
	e = o ? 0 : -ENOMEM;
	e = e ? e : wperf_json_put(o, "kind", json_object_new_string(r->verdict));
	e = e ? e : wperf_json_put(o, "baseline", json_object_new_string(r->baseline_from));
	return put_object(parent, "verdict", o, e);
}

/* null when the scenario expects nothing */
static int put_expect(json_object *parent, const struct results_expect *x)
{
	json_object *o;
	int e;

	if (!x->checked)
		return wperf_json_put_null(parent, "expect");
	o = json_object_new_object();
	e = o ? 0 : -ENOMEM;
	e = e ? e : wperf_json_put(o, "met", json_object_new_boolean(x->met));
	e = e ? e : wperf_json_put(o, "why", json_object_new_string(x->met ? "" : x->why));
	return put_object(parent, "expect", o, e);
}

static int append_run(json_object *runs, const struct results *r, size_t i)
{
	json_object *o = json_object_new_object(), *result = NULL;
	int e = o ? 0 : -ENOMEM;

	e = e ? e : wperf_json_put(o, "run", json_object_new_int64((int64_t)i + 1));
	e = e ? e : put_expect(o, &r->expect[i]);
	e = e ? e : wperf_run_to_json(&r->runs.runs[i], &result);
	e = e ? e : wperf_json_put(o, "result", result);
	if (e) {
		json_object_put(o);
		return e;
	}
	return wperf_json_append(runs, o);
}

static int put_runs(json_object *parent, const struct results *r)
{
	json_object *runs = json_object_new_array();
	int e = runs ? 0 : -ENOMEM;

	for (size_t i = 0; !e && i < r->runs.nruns; i++)
		e = append_run(runs, r, i);
	return put_object(parent, "runs", runs, e);
}

/* The scenario's other metrics, only when it has some (they came later). */
static int put_metrics(json_object *parent, const struct wperf_runset *rs)
{
	json_object *a;
	int e;

	if (!rs->nmetrics)
		return 0;
	e = wperf_metrics_to_json(rs->metrics, rs->nmetrics, &a);
	return e ? e : wperf_json_put(parent, "metrics", a);
}

/* The members of summary.json, in the order of the file. */
static int put_summary(json_object *o, const struct results *r)
{
	json_object *env = NULL;
	char started[32];
	int e;

	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&r->started));
	e = wperf_json_put(o, "format", json_object_new_string(RESULTS_FORMAT));
	e = e ? e : wperf_json_put(o, "scenario", json_object_new_string(r->scenario));
	e = e ? e
	      : wperf_json_put(o, "status",
			       json_object_new_string(r->complete ? "complete" : "incomplete"));
	e = e		  ? e
	    : r->complete ? wperf_json_put_null(o, "reason")
			  : wperf_json_put(o, "reason", json_object_new_string(r->reason));
	e = e ? e : wperf_json_put(o, "started", json_object_new_string(started));
	e = e ? e : wperf_env_to_json(&r->env, &env);
	e = e ? e : wperf_json_put(o, "environment", env);
	e = e ? e : wperf_json_put(o, "unit", json_object_new_string(r->runs.unit));
	e = e ? e : put_metrics(o, &r->runs);
	e = e ? e : put_git(o, &r->git);
	e = e ? e : put_gate(o, &r->gate);
	e = e ? e : put_verdict(o, r);
	return e ? e : put_runs(o, r);
}

int results_summary_json(const struct results *r, struct wperf_buf *out)
{
	json_object *o = json_object_new_object();
	const char *text;
	int e = o ? put_summary(o, r) : -ENOMEM;

	text = e ? NULL
		 : json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!e && (!text || wperf_buf_append(out, text, strlen(text)) < 0 ||
		   wperf_buf_append(out, "\n", 1) < 0))
		e = -ENOMEM;
	json_object_put(o);
	return e;
}

/* ---- reading ---- */

/*
 * Every value read is checked for its type and its range, so that a summary
 * edited by hand is refused with the place instead of read as something else
 * (a min_runs of -1 taken as 2^64 - 1). Keys that may be missing or null: git,
 * verdict, started, reason, max_lost, metrics (later than the others) and, per
 * run, run and expect. Keys this reader does not know are left alone: a summary is
 * written again by compare and after a kill, by older and newer versions.
 */

/* The gate's ranges are those a scenario's gate block takes (core/scenario/scenario.c). */
#define GATE_MAX_RUNS 1000

static const struct wperf_doc_range edge_tolerance = {0, 100, 1, 0};
static const struct wperf_doc_range share = {0, 1, 1, 0};
static const struct wperf_doc_range share_or_zero = {0, 1, 0, 0};

/* "where.key: expected WHAT, found ...", -EINVAL. */
static int expected(json_object *o, const char *where, const char *key, const char *what,
		    struct wperf_error *err)
{
	char path[WPERF_JSON_PATH_LEN];

	wperf_json_key_path(path, where, key);
	return wperf_json_expected(o, path, what, err);
}

/* The string of key in o into out (size bytes, with its NUL). */
static int read_string(json_object *o, const char *where, const char *key, char *out, size_t size,
		       struct wperf_error *err)
{
	char path[WPERF_JSON_PATH_LEN];
	json_object *v;
	int e = wperf_json_get_member(o, where, key, json_type_string, 1, &v, err);

	wperf_json_key_path(path, where, key);
	return e ? e : wperf_json_get_fixed(v, path, out, size, err);
}

/* The number of key in o, in r. */
static int read_number(json_object *o, const char *where, const char *key,
		       const struct wperf_doc_range *r, double *out, struct wperf_error *err)
{
	char path[WPERF_JSON_PATH_LEN];
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return wperf_json_fail(err, where, "missing key \"%s\"", key);
	wperf_json_key_path(path, where, key);
	return wperf_json_get_number(v, path, r, out, err);
}

static int read_gate(json_object *o, const char *where, struct wperf_gate_opts *g,
		     struct wperf_error *err)
{
	char path[WPERF_JSON_PATH_LEN], sub[WPERF_JSON_PATH_LEN];
	json_object *gate, *v;
	uint64_t min_runs = 0;
	int e = wperf_json_get_member(o, where, "gate", json_type_object, 1, &gate, err);

	wperf_json_key_path(path, where, "gate");
	e = e ? e
	      : read_number(gate, path, "edge_tolerance", &edge_tolerance, &g->edge_tolerance, err);
	e = e ? e
	      : read_number(gate, path, "throughput_tolerance", &share, &g->throughput_tolerance,
			    err);
	e = e ? e : read_number(gate, path, "warn_ratio", &share, &g->warn_ratio, err);
	if (!e && !json_object_object_get_ex(gate, "min_runs", &v))
		e = wperf_json_fail(err, path, "missing key \"min_runs\"");
	wperf_json_key_path(sub, path, "min_runs");
	e = e ? e
	      : wperf_json_get_count(v, sub, 2, GATE_MAX_RUNS, "a whole number in [2, 1000]",
				     &min_runs, err);
	g->min_runs = (size_t)min_runs;
	e = e ? e
	      : wperf_json_get_member(gate, path, "lower_is_better", json_type_boolean, 1, &v, err);
	if (e)
		return e;
	g->lower_is_better = json_object_get_boolean(v);
	/* max_lost came later: optional, and 0 (the verdict's default) where a
	 * summary without it was written again */
	if (json_object_object_get_ex(gate, "max_lost", &v) && v)
		e = read_number(gate, path, "max_lost", &share_or_zero, &g->max_lost, err);
	/* detect likewise: 0, the throughput tolerance */
	if (!e && json_object_object_get_ex(gate, "detect", &v) && v)
		e = read_number(gate, path, "detect", &share_or_zero, &g->detect, err);
	return e;
}

/* A commit id of 40 hex digits into out (or "" when may_be_empty). */
static int read_commit(json_object *o, const char *where, const char *key, int may_be_empty,
		       char out[GIT_REPO_OID_HEX], struct wperf_error *err)
{
	size_t len;

	if (read_string(o, where, key, out, GIT_REPO_OID_HEX, err))
		return -EINVAL;
	len = strlen(out);
	if ((len == 0 && may_be_empty) ||
	    (len == GIT_REPO_OID_HEX - 1 && strspn(out, "0123456789abcdefABCDEF") == len))
		return 0;
	return expected(json_object_object_get(o, key), where, key,
			may_be_empty ? "a commit id (40 hex digits) or \"\""
				     : "a commit id (40 hex digits)",
			err);
}

/* One of the verdicts of wperf_verdict_name into out. */
static int read_verdict_kind(json_object *o, const char *where, char *out, size_t size,
			     struct wperf_error *err)
{
	char names[96] = "";

	if (read_string(o, where, "kind", out, size, err))
		return -EINVAL;
	for (int k = WPERF_VERDICT_PASS; k <= WPERF_VERDICT_INCONCLUSIVE; k++) {
		size_t n = strlen(names);

		if (!strcmp(out, wperf_verdict_name(k)))
			return 0;
		snprintf(names + n, sizeof(names) - n, "%s%s",
			 k == WPERF_VERDICT_PASS	   ? ""
			 : k == WPERF_VERDICT_INCONCLUSIVE ? " or "
							   : ", ",
			 wperf_verdict_name(k));
	}
	return expected(json_object_object_get(o, "kind"), where, "kind", names, err);
}

static int read_git(json_object *git, const char *where, struct git_info *g,
		    struct wperf_error *err)
{
	json_object *dirty;
	int e = read_string(git, where, "repository", g->repository, sizeof(g->repository), err);

	e = e ? e : read_commit(git, where, "commit", 0, g->commit, err);
	e = e ? e : read_string(git, where, "branch", g->branch, sizeof(g->branch), err);
	e = e ? e : read_string(git, where, "target", g->target, sizeof(g->target), err);
	e = e ? e : read_commit(git, where, "merge_base", 1, g->merge_base, err);
	e = e ? e : wperf_json_get_member(git, where, "dirty", json_type_boolean, 1, &dirty, err);
	if (!e)
		g->dirty = json_object_get_boolean(dirty);
	return e;
}

/* "git" and "verdict": optional, since summaries before them lack them */
static int read_git_and_verdict(struct results *r, json_object *o, const char *where,
				struct wperf_error *err)
{
	char path[WPERF_JSON_PATH_LEN];
	json_object *git, *verdict;

	if (wperf_json_get_member(o, where, "git", json_type_object, 0, &git, err) ||
	    wperf_json_get_member(o, where, "verdict", json_type_object, 0, &verdict, err))
		return -EINVAL;
	wperf_json_key_path(path, where, "git");
	if (git && read_git(git, path, &r->git, err))
		return -EINVAL;
	wperf_json_key_path(path, where, "verdict");
	if (verdict && (read_verdict_kind(verdict, path, r->verdict, sizeof(r->verdict), err) ||
			read_string(verdict, path, "baseline", r->baseline_from,
				    sizeof(r->baseline_from), err)))
		return -EINVAL;
	return 0;
}

static int read_expect(json_object *o, const char *where, struct results_expect *x,
		       struct wperf_error *err)
{
	char path[WPERF_JSON_PATH_LEN];
	json_object *expect, *met;

	if (wperf_json_get_member(o, where, "expect", json_type_object, 0, &expect, err))
		return -EINVAL;
	if (!expect)
		return 0;
	wperf_json_key_path(path, where, "expect");
	if (wperf_json_get_member(expect, path, "met", json_type_boolean, 1, &met, err) ||
	    read_string(expect, path, "why", x->why, sizeof(x->why), err))
		return -EINVAL;
	x->checked = 1;
	x->met = json_object_get_boolean(met);
	return 0;
}

static int read_run(struct results *r, json_object *o, const char *runs, size_t i,
		    struct wperf_error *err)
{
	char where[WPERF_JSON_PATH_LEN], path[WPERF_JSON_PATH_LEN], what[48];
	struct results_expect x = {0};
	struct wperf_run run;
	json_object *result, *number;
	int e;

	wperf_json_index_path(where, runs, i);
	if ((e = wperf_json_want_type(o, where, json_type_object, err)))
		return e;
	/* Run i is runs/i+1: a number that says otherwise would put it in another folder. */
	if (json_object_object_get_ex(o, "run", &number) &&
	    (!json_object_is_type(number, json_type_int) ||
	     json_object_get_int64(number) != (int64_t)i + 1)) {
		snprintf(what, sizeof(what), "%zu (its place in runs)", i + 1);
		return expected(number, where, "run", what, err);
	}
	if (wperf_json_get_member(o, where, "result", json_type_object, 1, &result, err) ||
	    read_expect(o, where, &x, err))
		return -EINVAL;
	wperf_json_key_path(path, where, "result");
	e = wperf_run_from_json(result, path, &run, err);
	if (!e && (e = results_add_run(r, &run, &x)) < 0) {
		wperf_run_release(&run);
		e = wperf_error_set(err, e, "out of memory");
	}
	return e;
}

/* "started": kept when the summary is written again (by compare, or after a kill). */
static int read_started(struct results *r, json_object *o, const char *where,
			struct wperf_error *err)
{
	struct tm tm = {0};
	json_object *v;
	const char *end;

	if (!json_object_object_get_ex(o, "started", &v) || !v)
		return 0;
	end = json_object_is_type(v, json_type_string)
		  ? strptime(json_object_get_string(v), "%Y-%m-%dT%H:%M:%SZ", &tm)
		  : NULL;
	if (!end || *end)
		return expected(v, where, "started", "a UTC time YYYY-mm-ddTHH:MM:SSZ", err);
	r->started = timegm(&tm);
	return 0;
}

/* format, scenario, status: what the file is, and how far its run set got. */
static int read_head(struct results *r, json_object *o, const char *top, struct wperf_error *err)
{
	char format[32], status[16];
	int e = read_string(o, top, "format", format, sizeof(format), err);

	if (!e && strcmp(format, RESULTS_FORMAT))
		e = expected(json_object_object_get(o, "format"), top, "format",
			     RESULTS_FORMAT " (made by another version of wperf-bench?)", err);
	e = e ? e : read_string(o, top, "scenario", r->scenario, sizeof(r->scenario), err);
	if (!e && !r->scenario[0]) /* a scenario always has a name */
		e = expected(json_object_object_get(o, "scenario"), top, "scenario",
			     "a scenario's name", err);
	e = e ? e : read_string(o, top, "status", status, sizeof(status), err);
	if (!e && strcmp(status, "complete") && strcmp(status, "incomplete"))
		e = expected(json_object_object_get(o, "status"), top, "status",
			     "\"complete\" or \"incomplete\"", err);
	r->complete = !strcmp(status, "complete");
	return e;
}

static int read_summary(struct results *r, json_object *o, const char *top, struct wperf_error *err)
{
	char path[WPERF_JSON_PATH_LEN];
	json_object *runs, *reason, *env, *metrics;
	int e = wperf_json_want_type(o, top, json_type_object, err);

	e = e ? e : read_head(r, o, top, err);
	e = e ? e : read_string(o, top, "unit", r->runs.unit, sizeof(r->runs.unit), err);
	e = e ? e : wperf_json_get_member(o, top, "metrics", json_type_array, 0, &metrics, err);
	wperf_json_key_path(path, top, "metrics");
	if (!e && metrics)
		e = wperf_metrics_from_json(metrics, path, &r->runs.metrics, &r->runs.nmetrics,
					    err);
	e = e ? e : read_gate(o, top, &r->gate, err);
	e = e ? e : read_git_and_verdict(r, o, top, err);
	e = e ? e : read_started(r, o, top, err);
	e = e ? e : wperf_json_get_member(o, top, "reason", json_type_string, 0, &reason, err);
	if (!e && reason)
		e = read_string(o, top, "reason", r->reason, sizeof(r->reason), err);
	e = e ? e : wperf_json_get_member(o, top, "environment", json_type_object, 1, &env, err);
	wperf_json_key_path(path, top, "environment");
	e = e ? e : wperf_env_from_json(env, path, &r->env, err);
	e = e ? e : wperf_json_get_member(o, top, "runs", json_type_array, 1, &runs, err);
	wperf_json_key_path(path, top, "runs");
	for (size_t i = 0; !e && i < json_object_array_length(runs); i++)
		e = read_run(r, json_object_array_get_idx(runs, i), path, i, err);
	return e;
}

/* The text of file, parsed strictly (no NaN, no trailing garbage), in *o. */
static int parse(const char *file, const struct wperf_buf *text, json_object **o,
		 struct wperf_error *err)
{
	struct json_tokener *tok = json_tokener_new();

	if (!tok)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	*o = json_tokener_parse_ex(tok, (const char *)text->data, (int)text->len);
	if (!*o)
		wperf_error_set(err, -EINVAL, "%s: byte %zu: not JSON: %s", file,
				json_tokener_get_parse_end(tok),
				json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);
	return *o ? 0 : -EINVAL;
}

int results_read_summary_text(const char *dir, const char *what, char *file, size_t size,
			      struct wperf_buf *text, struct wperf_error *err)
{
	int e;

	snprintf(file, size, "%s/summary.json", dir);
	e = output_read_all(file, text, err);
	if (e == -ENOENT)
		e = wperf_error_set(err, e, "%s: no such file (is %s %s?)", file, dir, what);
	return e;
}

int results_read(const char *dir, struct results *out, struct wperf_error *err)
{
	char file[PATH_MAX], top[WPERF_JSON_PATH_LEN];
	struct wperf_buf text = {0};
	json_object *o = NULL;
	int e;

	memset(out, 0, sizeof(*out));
	snprintf(out->dir, sizeof(out->dir), "%s", dir);
	e = results_read_summary_text(dir, "a results folder of 'wperf-bench run'", file,
				      sizeof(file), &text, err);
	e = e ? e : parse(file, &text, &o, err);
	wperf_json_file_path(top, file);
	e = e ? e : read_summary(out, o, top, err);
	json_object_put(o);
	wperf_buf_release(&text);
	if (e)
		results_release(out);
	return e;
}
