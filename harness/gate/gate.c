/* SPDX-License-Identifier: MIT */
#include "harness/gate/gate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/gate/env.h"
#include "harness/git/git_repo.h"
#include "harness/base/output.h"
#include "harness/run/plots.h"

void gate_baseline_path(const char *path, const char *scenario, char *out, size_t size)
{
	if (path)
		snprintf(out, size, "%s", path);
	else
		snprintf(out, size, "baselines/%s.yaml", scenario);
}

void gate_baseline_file(const struct gate_baseline_src *src, const char *scenario, char *out,
			size_t size)
{
	if (src->path || !src->dir)
		gate_baseline_path(src->path, scenario, out, size);
	else
		snprintf(out, size, "%s/%s.yaml", src->dir, scenario);
}

int gate_read_baseline(const char *path, struct wperf_baseline *b, struct wperf_error *err)
{
	struct wperf_buf text = {0};
	int e = output_read_all(path, &text, err);

	memset(b, 0, sizeof(*b));
	if (e == -ENOENT)
		e = wperf_error_set(err, -ENOENT,
				    "no baseline at %s; make one from a good run set with "
				    "'wperf-bench baseline update RESULTS'",
				    path);
	if (!e)
		e = wperf_baseline_read(path, (const char *)text.data, text.len, b, err);
	wperf_buf_release(&text);
	return e;
}

/* Who accepted a (a->origin): the newest commit that changed one of its
 * lines, or the work tree when one is not committed. */
static void accepted_origin(struct git_repo *repo, const char *oid, const char *rel,
			    struct wperf_accepted *a)
{
	struct git_change newest = {0}, ch;
	char text[GIT_REPO_OID_HEX + sizeof(ch.subject) + 4];
	int e = a->line ? 0 : -EINVAL;

	for (size_t l = a->line; !e && l <= a->last_line; l++) {
		struct wperf_error why = {0};

		e = git_repo_blame_line(repo, oid, rel, l, &ch, &why);
		if (e == -ENOENT && !oid && strstr(why.msg, "not committed")) {
			a->origin = strdup("the work tree, not committed yet");
			return;
		}
		if (!e && (!newest.oid[0] || ch.time > newest.time))
			newest = ch;
	}
	snprintf(text, sizeof(text), "%.12s (%s)", newest.oid, newest.subject);
	if (!e)
		a->origin = strdup(text);
}

void gate_accepted_origins(struct git_repo *repo, const char *oid, const char *rel,
			   struct wperf_baseline *b)
{
	for (size_t i = 0; repo && i < b->naccepted; i++) {
		free(b->accepted[i].origin);
		b->accepted[i].origin = NULL;
		accepted_origin(repo, oid, rel, &b->accepted[i]);
	}
}

/*
 * The baseline file as it is at commit src->ref (or the merge base). A commit
 * without the file (a scenario new since then) falls back to the work tree's
 * file, and from says so.
 */
static int read_at_commit(const struct gate_baseline_src *src, const char *path,
			  struct wperf_baseline *b, char *from, size_t size,
			  struct wperf_error *err)
{
	struct git_repo *repo = NULL;
	struct wperf_buf text = {0};
	char rel[PATH_MAX] = "", oid[GIT_REPO_OID_HEX] = "", name[PATH_MAX + 64], rev[300];
	int e = git_repo_open(".", &repo, err);

	memset(b, 0, sizeof(*b));
	if (!e)
		e = git_repo_relative(repo, path, rel, sizeof(rel), err);
	if (!e)
		e = git_repo_resolve(repo, src->ref, src->target, oid, err);
	snprintf(rev, sizeof(rev), "%s", src->ref && *src->ref ? src->ref : "the merge base");
	if (!e)
		e = git_repo_read_file(repo, oid, rel, &text, err);
	if (e == -ENOENT && oid[0]) {
		snprintf(from, size, "%s (the work tree's: none at %.12s, %s)", path, oid, rev);
		e = gate_read_baseline(path, b, err);
		oid[0] = '\0'; /* its origins are the work tree's */
	} else if (!e) {
		snprintf(name, sizeof(name), "%s@%.12s", rel, oid);
		e = wperf_baseline_read(name, (const char *)text.data, text.len, b, err);
		if (!e)
			snprintf(from, size, "%s at %.12s (%s)", rel, oid, rev);
	}
	if (!e)
		gate_accepted_origins(repo, oid[0] ? oid : NULL, rel, b);
	git_repo_free(repo);
	wperf_buf_release(&text);
	return e;
}

int gate_load_baseline(const struct gate_baseline_src *src, const char *scenario,
		       struct wperf_baseline *b, char *from, size_t size, struct wperf_error *err)
{
	struct git_repo *repo = NULL;
	struct wperf_error ignored = {0};
	char path[PATH_MAX], rel[PATH_MAX];
	int e;

	gate_baseline_file(src, scenario, path, sizeof(path));
	if (src->at_commit)
		return read_at_commit(src, path, b, from, size, err);
	snprintf(from, size, "%s", path);
	e = gate_read_baseline(path, b, err);
	if (!e && b->naccepted && !git_repo_open(path, &repo, &ignored) &&
	    !git_repo_relative(repo, path, rel, sizeof(rel), &ignored))
		gate_accepted_origins(repo, NULL, rel, b);
	git_repo_free(repo);
	return e;
}

int gate_judge_from(struct results *r, const struct gate_baseline_src *src, struct wperf_verdict *v,
		    struct wperf_error *err)
{
	struct wperf_baseline b;
	char from[PATH_MAX];
	int e = gate_load_baseline(src, r->scenario, &b, from, sizeof(from), err);

	if (!e)
		e = gate_judge(r, &b, from, NULL, v, err);
	wperf_baseline_release(&b);
	return e;
}

/* How many of r's runs checked the expected answer, and missed it. */
static void count_missed(const struct results *r, size_t *missed, size_t *checked)
{
	for (size_t i = 0; i < r->runs.nruns; i++) {
		*checked += r->expect[i].checked;
		*missed += r->expect[i].checked && !r->expect[i].met;
	}
}

void gate_options(const struct results *r, const struct wperf_baseline *b,
		  const struct gate_judging *j, struct wperf_gate_opts *g, char *why, size_t size)
{
	*g = r->gate;
	g->env = &r->env;
	why[0] = '\0';
	count_missed(r, &g->expect_missed, &g->expect_checked);
	if (j && j->alpha > 0)
		g->alpha = j->alpha;
	/* Numbers are compared only beside each other: a stored baseline was
	 * measured in another session, and the machine drifts between sessions
	 * as much as code moves it (the VM's disk: 5 runs an hour apart, 132-143
	 * and 116-138 requests/s). Its numbers inform; its structure fails. */
	g->numbers_inform = !(j && j->base);
	if (j && j->base) {
		g->paired = 1;
		g->base_runs = &j->base->runs;
		count_missed(j->base, &g->expect_base_missed, &g->expect_base_checked);
	} else if (!wperf_env_same_machine(&r->env, &b->env, why, size)) {
		/* Another machine's numbers say nothing of the code: only the
		 * structure counts. (Interleaved runs share this machine.) */
		g->structure_only = 1;
		g->machine_why = why;
	}
}

/* The run set's plots again, now with the baseline they are judged against
 * (when the run drew plots): a courtesy too, so a failure only warns. */
static void redraw_plots(const struct results *r, const struct wperf_baseline *b)
{
	struct wperf_error err = {0};
	char dir[PATH_MAX];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/plots", r->dir);
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    plots_write_baseline(&r->runs, r->scenario, b, dir, &err) < 0)
		fprintf(stderr, "wperf-bench: warning: plots: %s\n", err.msg);
}

int gate_judge(struct results *r, const struct wperf_baseline *b, const char *from,
	       const struct gate_judging *j, struct wperf_verdict *v, struct wperf_error *err)
{
	struct wperf_gate_opts g;
	struct wperf_buf md = {0}, junit = {0};
	const struct wperf_verdict *one = v;
	char why[256];
	int e;

	if (!r->complete)
		return wperf_error_set(err, -EINVAL, "%s is incomplete (%s): no verdict on it",
				       r->dir, r->reason);
	gate_options(r, b, j, &g, why, sizeof(why));
	e = wperf_verdict(&r->runs, b, &g, v, err);
	if (e)
		return e;
	redraw_plots(r, b);
	if (wperf_verdict_markdown(v, 0, &md) < 0 || wperf_verdict_junit(&one, 1, &junit) < 0)
		e = wperf_error_set(err, -ENOMEM, "writing the verdict: out of memory");
	if (!e)
		e = results_write_file(r, "verdict.md", &md, err);
	if (!e)
		e = results_write_file(r, "junit.xml", &junit, err);
	if (!e) {
		snprintf(r->verdict, sizeof(r->verdict), "%s", wperf_verdict_name(v->kind));
		snprintf(r->baseline_from, sizeof(r->baseline_from), "%s", from);
	}
	if (!e && wperf_buf_append(&md, "", 1) == 0)
		e = results_write(r, (const char *)md.data, err);
	wperf_buf_release(&md);
	wperf_buf_release(&junit);
	if (e)
		wperf_verdict_release(v);
	return e;
}

/* The folder of path, made if missing (baselines/ in a repository). */
static int make_parent(const char *path, struct wperf_error *err)
{
	char dir[PATH_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return output_make_dirs(dir, err);
}

int gate_update_baseline(const struct results *r, const char *path, struct wperf_error *err)
{
	struct wperf_baseline fresh = {0}, old = {0};
	struct wperf_buf text = {0};
	int e;

	if (!r->complete)
		return wperf_error_set(err, -EINVAL, "%s is incomplete (%s): not a baseline",
				       r->dir, r->reason);
	if (!r->runs.nruns)
		return wperf_error_set(err, -EINVAL, "%s has no run", r->dir);
	e = wperf_baseline_from_runs(&r->runs, r->scenario, &r->env, &fresh, err);
	/* a first baseline, or one written to a device or a pipe: nothing to keep */
	if (!e && output_names_file(path)) {
		e = gate_read_baseline(path, &old, err);
		if (e == -ENOENT) /* removed meanwhile */
			e = 0;
		else if (!e && wperf_baseline_merge_accepted(&fresh, &old) < 0)
			e = wperf_error_set(err, -ENOMEM, "out of memory");
	}
	if (!e)
		e = wperf_baseline_write(&fresh, &text, err);
	if (!e)
		e = make_parent(path, err);
	if (!e)
		e = output_write(path, text.data, text.len, err);
	wperf_buf_release(&text);
	wperf_baseline_release(&fresh);
	wperf_baseline_release(&old);
	return e;
}
