/* SPDX-License-Identifier: MIT */
#include "harness/forge/post_comment.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/stats.h"
#include "core/gate/verdict.h"
#include "harness/run/results.h"

#define MARKER_PREFIX "<!-- wperf-bench"

/* The "format" of summary.json text; "" when it has none. */
static void summary_format(const struct wperf_buf *text, char *format, size_t size)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o = NULL, *f;

	format[0] = '\0';
	if (tok && text->len <= INT_MAX)
		o = json_tokener_parse_ex(tok, (const char *)text->data, (int)text->len);
	if (o && json_object_object_get_ex(o, "format", &f) &&
	    json_object_is_type(f, json_type_string))
		snprintf(format, size, "%s", json_object_get_string(f));
	json_object_put(o);
	json_tokener_free(tok);
}

static int verdict_kind(const char *name, enum wperf_verdict_kind *kind)
{
	for (int k = WPERF_VERDICT_PASS; k <= WPERF_VERDICT_INCONCLUSIVE; k++)
		if (!strcmp(name, wperf_verdict_name(k))) {
			*kind = k;
			return 0;
		}
	return -1;
}

/* The median throughput of r's runs; NaN when none measured one. */
static double median_throughput(const struct wperf_runset *rs)
{
	double *x = calloc(rs->nruns + 1, sizeof(*x)), m;
	size_t n = 0;

	if (!x)
		return NAN;
	for (size_t i = 0; i < rs->nruns; i++)
		if (!isnan(rs->runs[i].throughput))
			x[n++] = rs->runs[i].throughput;
	m = wperf_median(x, n);
	free(x);
	return m;
}

/* The judged results folder dir as one scenario, into *s; its commit into git. */
static int results_scenario(const char *dir, struct wperf_check_scenario *s, struct git_info *git,
			    struct wperf_error *err)
{
	struct results r = {0};
	struct wperf_verdict *v = &s->verdict;
	int e = results_read(dir, &r, err);

	memset(s, 0, sizeof(*s));
	if (!e && !r.complete)
		e = wperf_error_set(err, -EINVAL, "%s is incomplete (%s): no verdict to post", dir,
				    r.reason);
	else if (!e && !r.verdict[0])
		e = wperf_error_set(err, -EINVAL,
				    "%s was never judged: run 'wperf-bench compare %s' (or 'run "
				    "--gate') first",
				    dir, dir);
	else if (!e && verdict_kind(r.verdict, &v->kind))
		e = wperf_error_set(err, -EINVAL, "%s/summary.json: '%s' is not a verdict", dir,
				    r.verdict);
	if (!e) {
		s->name = strdup(r.scenario);
		s->dir = strdup(dir);
		v->scenario = strdup(r.scenario);
		/* Its findings are only in verdict.md: say where, when they matter. */
		if (v->kind != WPERF_VERDICT_PASS)
			s->reason = strdup("the findings are in verdict.md of its folder");
		if (!s->name || !s->dir || !v->scenario ||
		    (v->kind != WPERF_VERDICT_PASS && !s->reason))
			e = wperf_error_set(err, -ENOMEM, "%s: out of memory", dir);
	}
	if (!e) {
		s->pairs = v->runs = r.runs.nruns;
		v->throughput_before = v->alpha = v->detectable = NAN;
		v->throughput_after = median_throughput(&r.runs);
		snprintf(v->unit, sizeof(v->unit), "%s", r.runs.unit);
		*git = r.git;
	}
	results_release(&r);
	if (e) {
		free(s->name);
		free(s->dir);
		free(s->reason);
		wperf_verdict_release(v);
		memset(s, 0, sizeof(*s));
	}
	return e;
}

/* Moves the n scenarios of from into c->check (room for them is made first),
 * each replacing one of the same name, with a note. */
static int take_scenarios(struct post_comment *c, struct wperf_check_scenario *from, size_t n,
			  const char *dir, char *note, size_t note_size)
{
	struct wperf_check *k = &c->check;
	void *grown = realloc(k->scenarios, (k->n + n + 1) * sizeof(*k->scenarios));
	size_t len = 0;

	if (!grown)
		return -ENOMEM;
	k->scenarios = grown;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < k->n && strcmp(k->scenarios[j].name, from[i].name))
			j++;
		if (j == k->n) {
			k->scenarios[k->n++] = from[i];
			continue;
		}
		len += (size_t)snprintf(note + len, len < note_size ? note_size - len : 0,
					"%s%s of %s replaces the earlier one", len ? "; " : "",
					from[i].name, dir);
		wperf_check_scenario_release(&k->scenarios[j]);
		k->scenarios[j] = from[i];
	}
	return 0;
}

int post_comment_add(struct post_comment *c, const char *dir, char *note, size_t note_size,
		     struct wperf_error *err)
{
	char file[PATH_MAX], format[32];
	struct wperf_buf text = {0};
	struct wperf_check read = {0};
	struct wperf_check_scenario one;
	struct git_info git = {0};
	int e;

	note[0] = '\0';
	e = results_read_summary_text(
	    dir, "a folder of 'wperf-bench check-perf', 'run --gate' or 'compare'", file,
	    sizeof(file), &text, err);
	if (e)
		return e;
	summary_format(&text, format, sizeof(format));
	if (!strcmp(format, WPERF_CHECK_FORMAT)) {
		e = wperf_check_from_json(file, (const char *)text.data, text.len, &read, err);
		if (!e && (e = take_scenarios(c, read.scenarios, read.n, dir, note, note_size)))
			wperf_error_set(err, e, "%s: out of memory", dir);
		if (!e && !c->headed) {
			/* The check's own account of what it compared. */
			struct wperf_check_scenario *kept = c->check.scenarios;
			size_t n = c->check.n;

			c->check = read;
			c->check.scenarios = kept;
			c->check.n = n;
			c->headed = 1;
		}
		if (!e)
			read.n = 0; /* c took them */
		wperf_check_release(&read);
	} else {
		e = results_scenario(dir, &one, &git, err);
		if (!e && (e = take_scenarios(c, &one, 1, dir, note, note_size))) {
			wperf_check_scenario_release(&one);
			wperf_error_set(err, e, "%s: out of memory", dir);
		}
		if (!e && !c->headed && !c->check.head_commit[0] && git.commit[0]) {
			snprintf(c->check.head_commit, sizeof(c->check.head_commit), "%s",
				 git.commit);
			snprintf(c->check.head_branch, sizeof(c->check.head_branch), "%.*s",
				 (int)sizeof(c->check.head_branch) - 1, git.branch);
			c->check.head_dirty = git.dirty;
		}
	}
	wperf_buf_release(&text);
	return e;
}

/* A suffix must not end the HTML comment it sits in. */
static int suffix_is_safe(const char *s)
{
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < ' ' || *p == '<' || *p == '>' || (*p == '-' && p[1] == '-'))
			return 0;
	return s[0] != '\0' && s[strlen(s) - 1] != '-';
}

int post_comment_compose(struct post_comment *c, const char *key_suffix, const char *artifacts,
			 struct wperf_error *err)
{
	int e = 0;

	if (key_suffix && strlen(key_suffix) >= POST_KEY_MAX)
		return wperf_error_set(err, -EINVAL, "--key-suffix is longer than %d bytes",
				       POST_KEY_MAX - 1);
	if (key_suffix && !suffix_is_safe(key_suffix))
		return wperf_error_set(err, -EINVAL,
				       "--key-suffix '%s' may not be empty, hold '--', '<', '>' "
				       "or control characters, nor end in '-'",
				       key_suffix);
	if (key_suffix)
		snprintf(c->marker, sizeof(c->marker), MARKER_PREFIX ": %s -->", key_suffix);
	else
		snprintf(c->marker, sizeof(c->marker), MARKER_PREFIX " -->");
	wperf_buf_clear(&c->text);
	e = wperf_buf_printf(&c->text, "%s\n", c->marker);
	e = e ? e : wperf_check_markdown(&c->check, artifacts, 0, &c->text);
	e = e ? e : wperf_buf_append(&c->text, "", 1);
	if (e)
		return wperf_error_set(err, e, "out of memory");
	return 0;
}

int post_comment_status(const struct post_comment *c)
{
	int error;
	enum wperf_verdict_kind kind = wperf_check_kind(&c->check, &error);

	return error ? 2 : wperf_verdict_exit_code(kind);
}

void post_comment_release(struct post_comment *c)
{
	wperf_check_release(&c->check);
	wperf_buf_release(&c->text);
	memset(c, 0, sizeof(*c));
}

const char *post_comment_markdown(const struct post_comment *c)
{
	return (const char *)c->text.data + strlen(c->marker) + 1;
}

int post_comment_append_summary(const struct post_comment *c, const char *path,
				struct wperf_error *err)
{
	FILE *f = fopen(path, "ae");
	int e;

	if (f)
		fprintf(f, "%s\n", post_comment_markdown(c));
	if (f && !(ferror(f) | fclose(f)))
		return 0;
	e = errno ? -errno : -EIO;
	return wperf_error_set(err, e,
			       "cannot append the job summary to %s ($GITHUB_STEP_SUMMARY): %s",
			       path, strerror(-e));
}
