/* SPDX-License-Identifier: MIT */
#include "harness/run/results.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/gate/run_json.h"
#include "harness/run/calibrate.h"
#include "harness/base/version.h"
#include "harness/base/output.h"

/* ---- the folder ---- */

int results_make_dir(const char *dir, struct wperf_error *err)
{
	char path[PATH_MAX];
	struct stat st;
	int e;

	if (stat(dir, &st) == 0 && !(output_is_empty_dir(dir)))
		return wperf_error_set(err, -EEXIST,
				       "%s exists and is not an empty folder: results are never "
				       "written over; choose another --results",
				       dir);
	snprintf(path, sizeof(path), "%s/runs", dir);
	e = output_make_dirs(path, err);
	snprintf(path, sizeof(path), "%s/plots", dir);
	return e ? e : output_make_dirs(path, err);
}

/* ---- the environment ---- */

static void cpu_model(char *out, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, size, "%s", colon);
		break;
	}
	if (f)
		fclose(f);
}

void results_environment(struct wperf_env *env)
{
	struct utsname u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(env, 0, sizeof(*env));
	if (uname(&u) == 0)
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
	env->cpus = cpus > 0 ? (uint32_t)cpus : 0;
	cpu_model(env->cpu_model, sizeof(env->cpu_model));
	snprintf(env->tool, sizeof(env->tool), "wperf-bench %s", WPERF_VERSION);
	env->calibration = calibrate_machine();
}

int results_add_run(struct results *r, struct wperf_run *run, const struct results_expect *x)
{
	struct results_expect *grown = realloc(r->expect, (r->runs.nruns + 1) * sizeof(*r->expect));

	if (!grown)
		return -ENOMEM;
	r->expect = grown;
	if (wperf_runset_add(&r->runs, run) < 0)
		return -ENOMEM;
	r->expect[r->runs.nruns - 1] = *x;
	return 0;
}

/* ---- summary.json ---- */

static json_object *gate_json(const struct wperf_gate_opts *g)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "edge_tolerance", json_object_new_double(g->edge_tolerance));
	json_object_object_add(o, "throughput_tolerance",
			       json_object_new_double(g->throughput_tolerance));
	json_object_object_add(o, "warn_ratio", json_object_new_double(g->warn_ratio));
	json_object_object_add(o, "min_runs", json_object_new_int64((int64_t)g->min_runs));
	json_object_object_add(o, "lower_is_better", json_object_new_boolean(g->lower_is_better));
	json_object_object_add(o, "max_lost", json_object_new_double(g->max_lost));
	return o;
}

/* null outside a repository */
static json_object *git_json(const struct git_info *g)
{
	json_object *o;

	if (!g->commit[0])
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "repository", json_object_new_string(g->repository));
	json_object_object_add(o, "commit", json_object_new_string(g->commit));
	json_object_object_add(o, "branch", json_object_new_string(g->branch));
	json_object_object_add(o, "dirty", json_object_new_boolean(g->dirty));
	json_object_object_add(o, "target", json_object_new_string(g->target));
	json_object_object_add(o, "merge_base", json_object_new_string(g->merge_base));
	return o;
}

/* null until judged */
static json_object *verdict_json(const struct results *r)
{
	json_object *o;

	if (!r->verdict[0])
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string(r->verdict));
	json_object_object_add(o, "baseline", json_object_new_string(r->baseline_from));
	return o;
}

static json_object *run_json(const struct results *r, size_t i)
{
	const struct results_expect *x = &r->expect[i];
	json_object *o = json_object_new_object(), *result = NULL, *expect = NULL;

	if (wperf_run_to_json(&r->runs.runs[i], &result) < 0) {
		json_object_put(o);
		return NULL;
	}
	if (x->checked) {
		expect = json_object_new_object();
		json_object_object_add(expect, "met", json_object_new_boolean(x->met));
		json_object_object_add(expect, "why", json_object_new_string(x->met ? "" : x->why));
	}
	json_object_object_add(o, "run", json_object_new_int64((int64_t)i + 1));
	json_object_object_add(o, "expect", expect);
	json_object_object_add(o, "result", result);
	return o;
}

static int summary_json(const struct results *r, struct wperf_buf *out)
{
	json_object *o = json_object_new_object(), *runs = json_object_new_array(), *env = NULL;
	char started[32];
	const char *text;
	int e = 0;

	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&r->started));
	json_object_object_add(o, "format", json_object_new_string(RESULTS_FORMAT));
	json_object_object_add(o, "scenario", json_object_new_string(r->scenario));
	json_object_object_add(o, "status",
			       json_object_new_string(r->complete ? "complete" : "incomplete"));
	json_object_object_add(o, "reason", r->complete ? NULL : json_object_new_string(r->reason));
	json_object_object_add(o, "started", json_object_new_string(started));
	if (wperf_env_to_json(&r->env, &env) < 0)
		e = -ENOMEM;
	json_object_object_add(o, "environment", env);
	json_object_object_add(o, "unit", json_object_new_string(r->runs.unit));
	json_object_object_add(o, "git", git_json(&r->git));
	json_object_object_add(o, "gate", gate_json(&r->gate));
	json_object_object_add(o, "verdict", verdict_json(r));
	for (size_t i = 0; !e && i < r->runs.nruns; i++) {
		json_object *run = run_json(r, i);

		if (!run)
			e = -ENOMEM;
		else
			json_object_array_add(runs, run);
	}
	json_object_object_add(o, "runs", runs);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!e && (!text || wperf_buf_append(out, text, strlen(text)) < 0 ||
		   wperf_buf_append(out, "\n", 1) < 0))
		e = -ENOMEM;
	json_object_put(o);
	return e;
}

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

int results_write_file(const struct results *r, const char *name, const struct wperf_buf *b,
		       struct wperf_error *err)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	return output_write(path, b->data, b->len, err);
}

int results_write(const struct results *r, const char *verdict_md, struct wperf_error *err)
{
	struct wperf_buf json = {0}, md = {0}, reason = {0};
	char path[PATH_MAX];
	int e = summary_json(r, &json);

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

/* ---- reading summary.json back ---- */

/*
 * Every value read is checked for its type and its range, so that a summary
 * edited by hand is refused with the place instead of read as something else
 * (a min_runs of -1 taken as 2^64 - 1). Errors: "FILE: KEY: expected WHAT,
 * found VALUE", where FILE may also name the object ("X/summary.json: gate").
 * Keys that may be missing or null: git, verdict, started, reason, max_lost
 * (later than the others) and, per run, run and expect.
 */

/* The gate's ranges are those a scenario's gate block takes (harness/run/scenario.c). */
#define GATE_MAX_RUNS 1000

/* What v is, for "found ..." in messages: a scalar's text (a short string's
 * in quotes), else its kind. */
static const char *found(json_object *v, char *text, size_t size)
{
	const char *s;
	size_t len;

	switch (json_object_get_type(v)) {
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string: /* quoted when it fits and has no control characters */
		s = json_object_get_string(v);
		len = (size_t)json_object_get_string_len(v);
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)s[i] < ' ')
				return "a string";
		if (len + 3 > size)
			return "a string";
		snprintf(text, size, "\"%s\"", s);
		return text;
	default: /* null, true, false or a number, as written */
		snprintf(text, size, "%s",
			 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
		return text;
	}
}

/* "FILE: KEY: expected WHAT, found ...", -EINVAL. */
static int wrong(json_object *v, const char *file, const char *key, const char *what,
		 struct wperf_error *err)
{
	char text[48];

	return wperf_error_set(err, -EINVAL, "%s: %s: expected %s, found %s", file, key, what,
			       found(v, text, sizeof(text)));
}

/* The value of key in o, in *v (NULL for a JSON null); missing is an error. */
static int lookup(json_object *o, const char *file, const char *key, json_object **v,
		  struct wperf_error *err)
{
	if (!json_object_object_get_ex(o, key, v))
		return wperf_error_set(err, -EINVAL, "%s: %s: missing", file, key);
	return 0;
}

/* The member key of o, an object, array, string or boolean as type says; NULL
 * with err. */
static json_object *member(json_object *o, const char *file, const char *key, json_type type,
			   struct wperf_error *err)
{
	json_object *v;

	if (lookup(o, file, key, &v, err))
		return NULL;
	if (!json_object_is_type(v, type)) {
		wrong(v, file, key,
		      type == json_type_object	  ? "an object"
		      : type == json_type_array	  ? "an array"
		      : type == json_type_boolean ? "true or false"
						  : "a string",
		      err);
		return NULL;
	}
	return v;
}

/* Like member, but a key that is missing or null gives 0 and *v NULL. */
static int optional(json_object *o, const char *file, const char *key, json_type type,
		    json_object **v, struct wperf_error *err)
{
	if (!json_object_object_get_ex(o, key, v) || !*v) {
		*v = NULL;
		return 0;
	}
	return (*v = member(o, file, key, type, err)) ? 0 : -EINVAL;
}

/* A string without NUL bytes that fits out (size bytes, with the NUL). */
static int read_string(json_object *o, const char *file, const char *key, char *out, size_t size,
		       struct wperf_error *err)
{
	json_object *v = member(o, file, key, json_type_string, err);
	size_t len;

	if (!v)
		return -EINVAL;
	len = (size_t)json_object_get_string_len(v);
	if (memchr(json_object_get_string(v), '\0', len))
		return wperf_error_set(err, -EINVAL, "%s: %s: a string with a NUL character", file,
				       key);
	if (len >= size)
		return wperf_error_set(err, -EINVAL, "%s: %s: longer than %zu bytes", file, key,
				       size - 1);
	memcpy(out, json_object_get_string(v), len + 1);
	return 0;
}

/* A number in (0, max], or [0, max] when zero_too. */
static int read_share(json_object *o, const char *file, const char *key, int zero_too, double max,
		      double *out, struct wperf_error *err)
{
	json_object *v;
	char what[48];
	double d;

	if (lookup(o, file, key, &v, err))
		return -EINVAL;
	d = json_object_get_double(v);
	if ((json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
	    (d > 0 || (zero_too && d == 0)) && d <= max) {
		*out = d;
		return 0;
	}
	snprintf(what, sizeof(what), "a number in %s0, %g]", zero_too ? "[" : "(", max);
	return wrong(v, file, key, what, err);
}

static int read_gate(json_object *o, const char *file, struct wperf_gate_opts *g,
		     struct wperf_error *err)
{
	json_object *gate = member(o, file, "gate", json_type_object, err), *v;
	char where[PATH_MAX + 16], what[48];

	if (!gate)
		return -EINVAL;
	snprintf(where, sizeof(where), "%s: gate", file);
	if (read_share(gate, where, "edge_tolerance", 0, 100, &g->edge_tolerance, err) ||
	    read_share(gate, where, "throughput_tolerance", 0, 1, &g->throughput_tolerance, err) ||
	    read_share(gate, where, "warn_ratio", 0, 1, &g->warn_ratio, err) ||
	    lookup(gate, where, "min_runs", &v, err))
		return -EINVAL;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 2 ||
	    json_object_get_int64(v) > GATE_MAX_RUNS) {
		snprintf(what, sizeof(what), "an integer in [2, %d]", GATE_MAX_RUNS);
		return wrong(v, where, "min_runs", what, err);
	}
	g->min_runs = (size_t)json_object_get_int64(v);
	if (!(v = member(gate, where, "lower_is_better", json_type_boolean, err)))
		return -EINVAL;
	g->lower_is_better = json_object_get_boolean(v);
	/* max_lost came later: optional, and 0 (the verdict's default) where a
	 * summary without it was written again */
	if (json_object_object_get_ex(gate, "max_lost", &v) && v)
		return read_share(gate, where, "max_lost", 1, 1, &g->max_lost, err);
	return 0;
}

/* A commit id of 40 hex digits into out (or "" when may_be_empty). */
static int read_commit(json_object *o, const char *file, const char *key, int may_be_empty,
		       char out[GIT_REPO_OID_HEX], struct wperf_error *err)
{
	size_t len;

	if (read_string(o, file, key, out, GIT_REPO_OID_HEX, err))
		return -EINVAL;
	len = strlen(out);
	if ((len == 0 && may_be_empty) ||
	    (len == GIT_REPO_OID_HEX - 1 && strspn(out, "0123456789abcdefABCDEF") == len))
		return 0;
	return wrong(json_object_object_get(o, key), file, key,
		     may_be_empty ? "a commit id (40 hex digits) or \"\""
				  : "a commit id (40 hex digits)",
		     err);
}

/* One of the verdicts of wperf_verdict_name into out. */
static int read_verdict_kind(json_object *o, const char *file, char *out, size_t size,
			     struct wperf_error *err)
{
	char names[96] = "";

	if (read_string(o, file, "kind", out, size, err))
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
	return wrong(json_object_object_get(o, "kind"), file, "kind", names, err);
}

/* "git" and "verdict": optional, since summaries before them lack them */
static int read_git_and_verdict(struct results *r, json_object *o, const char *file,
				struct wperf_error *err)
{
	char where[PATH_MAX + 16];
	json_object *git, *verdict, *dirty;

	if (optional(o, file, "git", json_type_object, &git, err) ||
	    optional(o, file, "verdict", json_type_object, &verdict, err))
		return -EINVAL;
	if (git) {
		struct git_info *g = &r->git;

		snprintf(where, sizeof(where), "%s: git", file);
		if (read_string(git, where, "repository", g->repository, sizeof(g->repository),
				err) ||
		    read_commit(git, where, "commit", 0, g->commit, err) ||
		    read_string(git, where, "branch", g->branch, sizeof(g->branch), err) ||
		    read_string(git, where, "target", g->target, sizeof(g->target), err) ||
		    read_commit(git, where, "merge_base", 1, g->merge_base, err) ||
		    !(dirty = member(git, where, "dirty", json_type_boolean, err)))
			return -EINVAL;
		g->dirty = json_object_get_boolean(dirty);
	}
	if (verdict) {
		snprintf(where, sizeof(where), "%s: verdict", file);
		if (read_verdict_kind(verdict, where, r->verdict, sizeof(r->verdict), err) ||
		    read_string(verdict, where, "baseline", r->baseline_from,
				sizeof(r->baseline_from), err))
			return -EINVAL;
	}
	return 0;
}

static int read_run(struct results *r, json_object *o, const char *file, size_t i,
		    struct wperf_error *err)
{
	char where[PATH_MAX + 64], what[48], text[48];
	struct results_expect x = {0};
	struct wperf_run run;
	json_object *result, *expect, *number;
	int e;

	snprintf(where, sizeof(where), "%s: runs[%zu]", file, i);
	if (!json_object_is_type(o, json_type_object))
		return wperf_error_set(err, -EINVAL, "%s: expected an object, found %s", where,
				       found(o, text, sizeof(text)));
	/* Run i is runs/i+1: a number that says otherwise would put it in another folder. */
	if (json_object_object_get_ex(o, "run", &number) &&
	    (!json_object_is_type(number, json_type_int) ||
	     json_object_get_int64(number) != (int64_t)i + 1)) {
		snprintf(what, sizeof(what), "%zu (its place in runs)", i + 1);
		return wrong(number, where, "run", what, err);
	}
	if (!(result = member(o, where, "result", json_type_object, err)) ||
	    optional(o, where, "expect", json_type_object, &expect, err))
		return -EINVAL;
	if (expect) {
		json_object *met;

		snprintf(where, sizeof(where), "%s: runs[%zu].expect", file, i);
		if (!(met = member(expect, where, "met", json_type_boolean, err)) ||
		    read_string(expect, where, "why", x.why, sizeof(x.why), err))
			return -EINVAL;
		x.checked = 1;
		x.met = json_object_get_boolean(met);
	}
	snprintf(where, sizeof(where), "%s: runs[%zu].result", file, i);
	e = wperf_run_from_json(result, where, &run, err);
	if (!e && (e = results_add_run(r, &run, &x)) < 0) {
		wperf_run_release(&run);
		e = wperf_error_set(err, e, "out of memory");
	}
	return e;
}

/* "started": kept when the summary is written again (by compare, or after a kill). */
static int read_started(struct results *r, json_object *o, const char *file,
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
		return wrong(v, file, "started", "a UTC time YYYY-mm-ddTHH:MM:SSZ", err);
	r->started = timegm(&tm);
	return 0;
}

static int read_summary(struct results *r, json_object *o, const char *file,
			struct wperf_error *err)
{
	char format[32], status[16], where[PATH_MAX + 16];
	json_object *runs, *reason, *env;
	int e;

	if (!json_object_is_type(o, json_type_object))
		return wperf_error_set(err, -EINVAL, "%s: expected a JSON object", file);
	if ((e = read_string(o, file, "format", format, sizeof(format), err)))
		return e;
	if (strcmp(format, RESULTS_FORMAT))
		return wperf_error_set(err, -EINVAL,
				       "%s: format: %s, not %s (made by another "
				       "version of wperf-bench?)",
				       file, format, RESULTS_FORMAT);
	if ((e = read_string(o, file, "scenario", r->scenario, sizeof(r->scenario), err)))
		return e;
	if (!r->scenario[0]) /* a scenario always has a name */
		return wrong(json_object_object_get(o, "scenario"), file, "scenario",
			     "a scenario's name", err);
	if ((e = read_string(o, file, "status", status, sizeof(status), err)))
		return e;
	if (strcmp(status, "complete") && strcmp(status, "incomplete"))
		return wrong(json_object_object_get(o, "status"), file, "status",
			     "\"complete\" or \"incomplete\"", err);
	r->complete = !strcmp(status, "complete");
	if ((e = read_string(o, file, "unit", r->runs.unit, sizeof(r->runs.unit), err)) ||
	    (e = read_gate(o, file, &r->gate, err)) ||
	    (e = read_git_and_verdict(r, o, file, err)) || (e = read_started(r, o, file, err)) ||
	    (e = optional(o, file, "reason", json_type_string, &reason, err)) ||
	    (reason && (e = read_string(o, file, "reason", r->reason, sizeof(r->reason), err))))
		return e;
	if (!(env = member(o, file, "environment", json_type_object, err)))
		return -EINVAL;
	snprintf(where, sizeof(where), "%s: environment", file);
	if ((e = wperf_env_from_json(env, where, &r->env, err)))
		return e;
	if (!(runs = member(o, file, "runs", json_type_array, err)))
		return -EINVAL;
	for (size_t i = 0; i < json_object_array_length(runs); i++)
		if ((e = read_run(r, json_object_array_get_idx(runs, i), file, i, err)))
			return e;
	return 0;
}

int results_read(const char *dir, struct results *out, struct wperf_error *err)
{
	char file[PATH_MAX];
	struct json_tokener *tok = json_tokener_new();
	struct wperf_buf text = {0};
	json_object *o = NULL;
	int e = 0;

	memset(out, 0, sizeof(*out));
	snprintf(out->dir, sizeof(out->dir), "%s", dir);
	snprintf(file, sizeof(file), "%s/summary.json", dir);
	if (!tok) {
		e = wperf_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	e = output_read_all(file, &text, err);
	if (e == -ENOENT)
		e = wperf_error_set(err, e,
				    "%s: no such file (is %s a results folder of "
				    "'wperf-bench run'?)",
				    file, dir);
	if (e)
		goto out;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT); /* no NaN, no trailing garbage */
	o = json_tokener_parse_ex(tok, (const char *)text.data, (int)text.len);
	if (!o)
		e = wperf_error_set(err, -EINVAL, "%s: byte %zu: not JSON: %s", file,
				    json_tokener_get_parse_end(tok),
				    json_tokener_error_desc(json_tokener_get_error(tok)));
	if (!e)
		e = read_summary(out, o, file, err);
out:
	json_object_put(o);
	json_tokener_free(tok);
	wperf_buf_release(&text);
	if (e)
		results_release(out);
	return e;
}

void results_release(struct results *r)
{
	wperf_runset_release(&r->runs);
	free(r->expect);
	r->expect = NULL;
}
