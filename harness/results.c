/* SPDX-License-Identifier: MIT */
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/run_json.h"
#include "harness/cli.h"
#include "harness/output.h"

/* ---- the folder ---- */

static int is_empty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return 0;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}

int results_make_dir(const char *dir, struct wperf_error *err)
{
	char path[PATH_MAX];
	struct stat st;
	int e;

	if (stat(dir, &st) == 0 && !(S_ISDIR(st.st_mode) && is_empty_dir(dir)))
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
	int e = wperf_buf_printf(out, "# %s: %zu run%s, %s\n\n", r->scenario, r->runs.nruns,
				 r->runs.nruns == 1 ? "" : "s",
				 r->complete ? "complete" : "incomplete");

	if (!e && !r->complete)
		e = wperf_buf_printf(out, "**Incomplete:** %s\n\n", r->reason);
	if (!e)
		e = wperf_buf_printf(
		    out, "Environment: kernel %s, %s, %u CPUs, %s.\n\n", env->kernel,
		    env->cpu_model[0] ? env->cpu_model : "CPU unknown", env->cpus, env->tool);
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

/* The member key of o with type type, or NULL with err ("FILE: key: ..."). */
static json_object *member(json_object *o, const char *file, const char *key, json_type type,
			   struct wperf_error *err)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v) {
		wperf_error_set(err, -EINVAL, "%s: %s: missing", file, key);
		return NULL;
	}
	if (!json_object_is_type(v, type) &&
	    !(type == json_type_double && json_object_is_type(v, json_type_int))) {
		wperf_error_set(err, -EINVAL, "%s: %s: expected %s", file, key,
				json_type_to_name(type));
		return NULL;
	}
	return v;
}

static int read_string(json_object *o, const char *file, const char *key, char *out, size_t size,
		       struct wperf_error *err)
{
	json_object *v = member(o, file, key, json_type_string, err);

	if (!v)
		return -EINVAL;
	if ((size_t)json_object_get_string_len(v) >= size)
		return wperf_error_set(err, -EINVAL, "%s: %s: longer than %zu bytes", file, key,
				       size - 1);
	memcpy(out, json_object_get_string(v), json_object_get_string_len(v) + 1);
	return 0;
}

static int read_gate(json_object *o, const char *file, struct wperf_gate_opts *g,
		     struct wperf_error *err)
{
	json_object *gate = member(o, file, "gate", json_type_object, err), *v[5];
	static const char *const keys[] = {"edge_tolerance", "throughput_tolerance", "warn_ratio",
					   "min_runs", "lower_is_better"};
	static const json_type types[] = {json_type_double, json_type_double, json_type_double,
					  json_type_int, json_type_boolean};
	char where[PATH_MAX + 16];

	if (!gate)
		return -EINVAL;
	snprintf(where, sizeof(where), "%s: gate", file);
	for (int i = 0; i < 5; i++)
		if (!(v[i] = member(gate, where, keys[i], types[i], err)))
			return -EINVAL;
	g->edge_tolerance = json_object_get_double(v[0]);
	g->throughput_tolerance = json_object_get_double(v[1]);
	g->warn_ratio = json_object_get_double(v[2]);
	g->min_runs = (size_t)json_object_get_int64(v[3]);
	g->lower_is_better = json_object_get_boolean(v[4]);
	/* max_lost came later: optional */
	if (json_object_object_get_ex(gate, "max_lost", &v[0]) && v[0]) {
		if (!(v[0] = member(gate, where, "max_lost", json_type_double, err)))
			return -EINVAL;
		g->max_lost = json_object_get_double(v[0]);
	}
	return 0;
}

/* "git" and "verdict": optional, since summaries before them lack them */
static int read_git_and_verdict(struct results *r, json_object *o, const char *file,
				struct wperf_error *err)
{
	char where[PATH_MAX + 16];
	json_object *git, *verdict, *dirty;

	if (json_object_object_get_ex(o, "git", &git) && git) {
		struct git_info *g = &r->git;

		snprintf(where, sizeof(where), "%s: git", file);
		if (read_string(git, where, "repository", g->repository, sizeof(g->repository),
				err) ||
		    read_string(git, where, "commit", g->commit, sizeof(g->commit), err) ||
		    read_string(git, where, "branch", g->branch, sizeof(g->branch), err) ||
		    read_string(git, where, "target", g->target, sizeof(g->target), err) ||
		    read_string(git, where, "merge_base", g->merge_base, sizeof(g->merge_base),
				err) ||
		    !(dirty = member(git, where, "dirty", json_type_boolean, err)))
			return -EINVAL;
		g->dirty = json_object_get_boolean(dirty);
	}
	if (json_object_object_get_ex(o, "verdict", &verdict) && verdict) {
		snprintf(where, sizeof(where), "%s: verdict", file);
		if (read_string(verdict, where, "kind", r->verdict, sizeof(r->verdict), err) ||
		    read_string(verdict, where, "baseline", r->baseline_from,
				sizeof(r->baseline_from), err))
			return -EINVAL;
	}
	return 0;
}

static int read_run(struct results *r, json_object *o, const char *file, size_t i,
		    struct wperf_error *err)
{
	char where[PATH_MAX + 64];
	struct results_expect x = {0};
	struct wperf_run run;
	json_object *result, *expect;
	int e;

	snprintf(where, sizeof(where), "%s: runs[%zu]", file, i);
	if (!json_object_is_type(o, json_type_object))
		return wperf_error_set(err, -EINVAL, "%s: expected an object", where);
	if (!(result = member(o, where, "result", json_type_object, err)))
		return -EINVAL;
	if (json_object_object_get_ex(o, "expect", &expect) && expect) {
		json_object *met = member(expect, where, "met", json_type_boolean, err);
		json_object *why = member(expect, where, "why", json_type_string, err);

		if (!met || !why)
			return -EINVAL;
		x.checked = 1;
		x.met = json_object_get_boolean(met);
		snprintf(x.why, sizeof(x.why), "%s", json_object_get_string(why));
	}
	snprintf(where, sizeof(where), "%s: runs[%zu].result", file, i);
	e = wperf_run_from_json(result, where, &run, err);
	if (!e && (e = results_add_run(r, &run, &x)) < 0) {
		wperf_run_release(&run);
		e = wperf_error_set(err, e, "out of memory");
	}
	return e;
}

static int read_summary(struct results *r, json_object *o, const char *file,
			struct wperf_error *err)
{
	char format[32], status[16], where[PATH_MAX + 16];
	json_object *runs, *reason, *env, *started;
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
	if ((e = read_string(o, file, "scenario", r->scenario, sizeof(r->scenario), err)) ||
	    (e = read_string(o, file, "status", status, sizeof(status), err)) ||
	    (e = read_string(o, file, "unit", r->runs.unit, sizeof(r->runs.unit), err)) ||
	    (e = read_gate(o, file, &r->gate, err)) || (e = read_git_and_verdict(r, o, file, err)))
		return e;
	r->complete = !strcmp(status, "complete");
	/* Kept when the summary is written again (by compare, or after a kill). */
	if (json_object_object_get_ex(o, "started", &started) && started) {
		struct tm tm = {0};
		const char *end =
		    strptime(json_object_get_string(started), "%Y-%m-%dT%H:%M:%SZ", &tm);

		if (!end || *end)
			return wperf_error_set(err, -EINVAL,
					       "%s: started: expected a UTC time "
					       "YYYY-mm-ddTHH:MM:SSZ",
					       file);
		r->started = timegm(&tm);
	}
	if (json_object_object_get_ex(o, "reason", &reason) && reason)
		snprintf(r->reason, sizeof(r->reason), "%s", json_object_get_string(reason));
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
