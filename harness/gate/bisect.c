/* SPDX-License-Identifier: MIT */
/*
 * A bisection driven by the gate (see bisect.h): the log it resumes from, one
 * commit's judgment, and the loop that asks the halving which commit is next.
 */
#include "harness/gate/bisect.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/verdict.h"
#include "harness/base/output.h"
#include "harness/base/progress.h"

#define LOG_NAME  "bisect.log"
#define SHORT_OID 12

/* What a bisection works with while it runs. */
struct bisection {
	const struct bisect_opts *o;
	struct bisect *b;
	char dir[PATH_MAX];	 /* o->dir, absolute */
	char scenario[PATH_MAX]; /* relative to the work tree's root */
	struct base_tree *good;	 /* the good commit's tree, the base of every judgment */
	struct wperf_buf log;	 /* bisect.log's text, rewritten whole after each mark */
};

/* ---- the log ---- */

/* The log's first lines: what is bisected. */
static int log_header(struct bisection *s)
{
	return wperf_buf_printf(&s->log,
				"# wperf-bench bisect: each commit's mark; read back to resume\n"
				"good %s\nbad %s\nscenario %s\n",
				s->b->good, s->b->bad, s->scenario);
}

/* The index of commit oid in the range; n when not in it. */
static size_t commit_index(const struct bisect *b, const char *oid)
{
	size_t i = 0;

	while (i < b->n && strcmp(b->commits[i].oid, oid))
		i++;
	return i;
}

/* Takes one line of an earlier log: a mark, or a header line that must be
 * this bisection's. */
static int log_line(struct bisection *s, const char *path, size_t no, const char *line,
		    struct wperf_error *err)
{
	const struct bisect *b = s->b;
	const char *const header[][2] = {
	    {"good", b->good}, {"bad", b->bad}, {"scenario", s->scenario}};
	char key[64], value[PATH_MAX];
	size_t i;
	int m;

	if (line[0] == '#' || line[0] == '\0')
		return 0;
	if (sscanf(line, "%63s %4095s", key, value) != 2)
		return wperf_error_set(err, -EINVAL, "%s:%zu: not a line of a bisect log", path,
				       no);
	for (size_t h = 0; h < sizeof(header) / sizeof(*header); h++)
		if (!strcmp(key, header[h][0]))
			return strcmp(value, header[h][1])
				   ? wperf_error_set(err, -EEXIST,
						     "%s:%zu: this folder holds another bisection "
						     "(%s %s): name another with --results",
						     path, no, key, value)
				   : 0;
	if ((i = commit_index(b, key)) == b->n)
		return wperf_error_set(err, -EINVAL, "%s:%zu: %.12s is not in the range", path, no,
				       key);
	m = wperf_bisect_mark_parse(value);
	if (m < 0)
		return wperf_error_set(err, -EINVAL, "%s:%zu: '%s' is not a mark", path, no, value);
	/* an unclear commit is judged again: more runs may tell it */
	b->marks[i] = m == WPERF_BISECT_UNCLEAR ? WPERF_BISECT_UNTESTED : m;
	return 0;
}

/* The marks of an earlier run of this bisection, from its log; none when
 * there is no log. Its lines are kept, to be written back with the new ones. */
static int log_read(struct bisection *s, struct wperf_error *err)
{
	char path[PATH_MAX + 16];
	struct wperf_buf text = {0};
	size_t no = 0;
	int e;

	snprintf(path, sizeof(path), "%s/" LOG_NAME, s->dir);
	e = output_read_all(path, &text, err);
	if (e == -ENOENT)
		return log_header(s) < 0 ? wperf_error_set(err, -ENOMEM, "out of memory") : 0;
	if (!e && wperf_buf_append(&text, "", 1) < 0)
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	for (char *line = (char *)text.data, *next; !e && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		e = log_line(s, path, ++no, line, err);
		if (!e && wperf_buf_printf(&s->log, "%s\n", line) < 0)
			e = wperf_error_set(err, -ENOMEM, "out of memory");
	}
	wperf_buf_release(&text);
	return e;
}

/* Adds commit i's mark to the log and writes it (replacing the last). */
static int log_mark(struct bisection *s, size_t i, const struct wperf_check_scenario *sc,
		    struct wperf_error *err)
{
	char path[PATH_MAX + 16];

	if (wperf_buf_printf(&s->log, "%s %s %zu %.0f %s\n", s->b->commits[i].oid,
			     wperf_bisect_mark_name(s->b->marks[i]), sc->pairs, sc->seconds,
			     wperf_verdict_name(sc->verdict.kind)) < 0)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/" LOG_NAME, s->dir);
	return output_write(path, s->log.data, s->log.len, err);
}

/* ---- one judgment ---- */

static enum wperf_bisect_mark mark_of(const struct wperf_verdict *v)
{
	if (wperf_verdict_exit_code(v->kind))
		return WPERF_BISECT_BAD;
	return v->kind == WPERF_VERDICT_INCONCLUSIVE ? WPERF_BISECT_UNCLEAR : WPERF_BISECT_GOOD;
}

/* Folder dir/sub/OID (the commit's short id) into out. */
static void commit_folder(const struct bisection *s, const char *sub, const char *oid, char *out,
			  size_t size)
{
	snprintf(out, size, "%s/%s/%.*s", s->dir, sub, SHORT_OID, oid);
}

/* Commit i against the good commit, run in turns: its mark, logged. */
static int judge(struct bisection *s, size_t i, struct wperf_error *err)
{
	const struct git_change *c = &s->b->commits[i];
	struct wperf_check_scenario sc = {0};
	struct base_tree *tree = NULL;
	char tree_dir[PATH_MAX + 32], step_dir[PATH_MAX + 32];
	struct check_scenario_opts co = {.scenario = s->o->scenario,
					 .dir = step_dir,
					 .base = s->good,
					 .looks = s->o->looks,
					 .alpha = s->b->alpha,
					 .build_dir = s->o->build_dir,
					 .defs = s->o->defs,
					 .quiet = s->o->quiet};
	int e;

	commit_folder(s, "trees", c->oid, tree_dir, sizeof(tree_dir));
	commit_folder(s, "steps", c->oid, step_dir, sizeof(step_dir));
	if (!s->o->quiet)
		fprintf(stderr, "bisect: %.*s %s: against the good commit %.*s\n", SHORT_OID,
			c->oid, c->subject, SHORT_OID, s->b->good);
	e = base_tree_open_at(c->oid, tree_dir, &tree, err);
	if (!e) /* what an earlier judgment cut short left */
		e = output_remove_tree(step_dir, 0, err);
	co.head = tree;
	if (!e)
		e = check_scenario(&co, &sc, err);
	if (!e && sc.error)
		e = wperf_error_set(err, -EIO, "%.12s: %s", c->oid, sc.reason);
	if (!e) {
		s->b->marks[i] = mark_of(&sc.verdict);
		s->b->judged++;
		fprintf(stderr, "bisect: %.*s is %s (%s, %zu runs a side, %.0f s)\n", SHORT_OID,
			c->oid, wperf_bisect_mark_name(s->b->marks[i]),
			wperf_verdict_name(sc.verdict.kind), sc.pairs, sc.seconds);
		e = log_mark(s, i, &sc, err);
	}
	wperf_check_scenario_release(&sc);
	base_tree_free(tree);
	return e;
}

/* ---- a bisection ---- */

/* The good and bad commits, the range between them, and the scenario's path
 * from the work tree's root. */
static int resolve(struct bisection *s, struct wperf_error *err)
{
	struct git_repo *repo = NULL;
	struct bisect *b = s->b;
	int e = git_repo_open(".", &repo, err);

	if (!e)
		e = git_repo_resolve(repo, s->o->good, NULL, b->good, err);
	if (!e)
		e = git_repo_resolve(repo, s->o->bad, NULL, b->bad, err);
	if (!e && !strcmp(b->good, b->bad))
		e = wperf_error_set(err, -EINVAL, "--good and --bad are the same commit %.12s",
				    b->good);
	if (!e)
		e = git_repo_range(repo, b->good, b->bad, &b->commits, &b->n, err);
	if (!e)
		e = git_repo_relative(repo, s->o->scenario, s->scenario, sizeof(s->scenario), err);
	if (!e && !(b->marks = calloc(b->n, sizeof(*b->marks))))
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	git_repo_free(repo);
	return e;
}

int bisect_run(const struct bisect_opts *o, struct bisect *b, struct wperf_error *err)
{
	struct bisection s = {.o = o, .b = b};
	char tree_dir[PATH_MAX + 32], scenario[PATH_MAX];
	double started = progress_now_s();
	int e;

	memset(b, 0, sizeof(*b));
	e = resolve(&s, err); /* before anything is written */
	if (!e)
		e = output_make_dirs(o->dir, err);
	if (!e && !realpath(o->dir, s.dir))
		e = wperf_error_set(err, -errno, "%s: %s", o->dir, strerror(errno));
	if (!e)
		e = log_read(&s, err);
	if (!e) {
		b->alpha = (o->alpha > 0 ? o->alpha : WPERF_GATE_ALPHA) /
			   (double)wperf_bisect_judgments(b->n);
		commit_folder(&s, "trees", b->good, tree_dir, sizeof(tree_dir));
		e = base_tree_open_at(b->good, tree_dir, &s.good, err);
	}
	if (!e) /* the good commit's scenario runs on both sides */
		e = base_tree_path(s.good, o->scenario, scenario, sizeof(scenario), err);
	while (!e && (b->outcome = wperf_bisect_next(b->marks, b->n, &b->at)) == WPERF_BISECT_JUDGE)
		e = judge(&s, b->at, err);
	b->seconds = progress_now_s() - started;
	base_tree_free(s.good);
	wperf_buf_release(&s.log);
	return e;
}

void bisect_release(struct bisect *b)
{
	if (!b)
		return;
	free(b->commits);
	free(b->marks);
	memset(b, 0, sizeof(*b));
}
