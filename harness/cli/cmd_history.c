/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench history: a scenario's baseline through the commits that changed
 * it, read from git's objects: its knots, its heaviest edges and its
 * throughput at each, as a Markdown table and as plots (SVG and PNG).
 *
 * Each commit's baseline becomes one point of the plots: the median of its
 * runs' throughputs and of each edge's shares, and the knots most of its runs
 * had. The points are the plots of a results folder (harness/run/plots.h) with
 * commits on the x axis instead of runs.
 *
 * With --changes, the commits where a series of those points moved to a new
 * level (core/gate/changepoint.h): the throughput, each edge's share (0 at a
 * commit without it) and each vertex's being in a knot (0 or 1), as a section
 * of the table and as dashed lines on the plots (the throughput's on
 * throughput.*, the edges' and the knots' on edges.*), and for tools as
 * changes.json (wperf-changes/1, docs/report-schema.md), which
 * `post --changes` makes issues of.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/cli/cli.h"
#include "core/gate/changepoint.h"
#include "core/gate/stats.h"
#include "core/gate/verdict_text.h"
#include "core/util/json_util.h"
#include "harness/gate/gate.h"
#include "harness/git/git_repo.h"
#include "harness/base/output.h"
#include "harness/forge/post_issues.h"
#include "harness/run/plots.h"

#define CMD	      "history"
#define TABLE_EDGES   3 /* edges per commit in the table */
#define SHORT_OID     12
#define DEFAULT_MAX_P CLI_STR(WPERF_CHANGEPOINT_MAX_P)

/* The point of one commit's baseline: medians, and the knots of most runs. */
static int point_of(const struct wperf_baseline *b, struct wperf_run *p)
{
	int e = 0;

	wperf_run_init(p);
	if (b->nthroughput)
		p->throughput = wperf_median(b->throughput, b->nthroughput);
	for (size_t i = 0; !e && i < b->nedges; i++) {
		double share = wperf_median(b->edges[i].samples, b->runs);

		if (share > 0)
			e = wperf_run_add_edge(p, b->edges[i].from, b->edges[i].to, share);
	}
	for (size_t i = 0; !e && i < b->nknots; i++)
		if (2 * b->knots[i].seen > b->runs)
			e = wperf_run_add_knot(p, (const char *const *)b->knots[i].vertices.ids,
					       b->knots[i].vertices.n);
	return e;
}

static int cmp_heavier(const void *a, const void *b)
{
	const struct wperf_run_edge *x = a, *y = b;

	return (x->share < y->share) - (x->share > y->share);
}

/* The start of a row about commit c: "| `OID` | DATE | SUBJECT | ". */
static int commit_cells(struct wperf_buf *md, const struct git_change *c)
{
	char date[16];
	time_t t = (time_t)c->time;

	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&t));
	return wperf_buf_printf(md, "| `%.*s` | %s | %s | ", SHORT_OID, c->oid, date, c->subject);
}

/* A row of the table: commit, date, subject, runs, throughput, knots, edges. */
static int table_row(struct wperf_buf *md, const struct git_change *c,
		     const struct wperf_baseline *b, const struct wperf_run *p)
{
	struct wperf_run_edge *top = NULL;
	int e = commit_cells(md, c);

	if (!e)
		e = wperf_buf_printf(md, "%zu | ", b->runs);
	if (!e)
		e = isnan(p->throughput) ? wperf_buf_printf(md, "- | ")
					 : wperf_buf_printf(md, "%.6g | ", p->throughput);
	for (size_t k = 0; !e && k < p->nknots; k++) {
		e = wperf_buf_printf(md, "%s{", k ? ", " : "");
		if (!e)
			e = wperf_markdown_ids(md, &p->knots[k]);
		if (!e)
			e = wperf_buf_printf(md, "}");
	}
	if (!e)
		e = wperf_buf_printf(md, "%s | ", p->nknots ? "" : "none");
	if (!e && p->nedges && !(top = malloc(p->nedges * sizeof(*top))))
		e = -ENOMEM;
	if (top) {
		memcpy(top, p->edges, p->nedges * sizeof(*top));
		qsort(top, p->nedges, sizeof(*top), cmp_heavier);
	}
	for (size_t i = 0; !e && i < p->nedges && i < TABLE_EDGES; i++)
		e = wperf_buf_printf(md, "%s`%s` → `%s` %.0f%%", i ? "<br>" : "", top[i].from,
				     top[i].to, 100 * top[i].share);
	if (!e)
		e = wperf_buf_printf(md, " |\n");
	free(top);
	return e;
}

/* What a series of the points is of. */
enum series_kind {
	SERIES_THROUGHPUT,
	SERIES_EDGE, /* an edge's share, 0 at a point without it */
	SERIES_KNOT, /* a vertex's being in a knot, 0 or 1 */
};

/* A series: its kind and its edge (from, to) or vertex (from), borrowed from
 * the points. */
struct series {
	enum series_kind kind;
	const char *from, *to;
};

struct history {
	const char *name, *baseline, *since, *out_dir;
	int changes;			  /* --changes */
	struct wperf_changepoint_opts cp; /* --max-p */
	struct git_repo *repo;
	struct git_change *commits; /* that changed the baseline */
	size_t ncommits;
	struct wperf_runset points;	    /* one per commit shown */
	const struct git_change **point_of; /* each point's commit */
	const char **labels;		    /* the points' short commit ids */
	char (*oids)[SHORT_OID + 1];
	struct wperf_buf found;				/* struct series_change, with --changes */
	size_t searched[SERIES_KNOT + 1];		/* the series searched, by kind */
	struct wperf_buf throughput_marks, edges_marks; /* size_t: the points to mark */
	struct wperf_buf md;
	char unit[32];
};

const struct cli_option cli_history_options[] = {
    {'b', "baseline", "FILE",
     "the baseline's path in the repository (default: baselines/NAME.yaml)",
     CLI_STRING(struct history, baseline)},
    {0, "since", "REF", "only the commits after REF", CLI_STRING(struct history, since)},
    {'o', "output", "DIR", "where the table and the plots go (default: history/NAME)",
     CLI_STRING(struct history, out_dir)},
    {0, "changes", NULL,
     "find the commits where the throughput, an edge's share or a knot's members changed "
     "(E-Divisive means with Student's t, after Apache Otava)",
     CLI_FLAG(struct history, changes)},
    {0, "max-p", "P",
     "a change point's p must be below P (default " DEFAULT_MAX_P "; implies --changes)",
     CLI_NUMBER(struct history, cp.max_p, 1e-300, 1)},
    {0},
};

/* Reads the baseline at each commit into a point and a table row; a commit
 * whose file does not read as a baseline is skipped with a warning. */
static int collect(struct history *h, const char *rel, struct wperf_error *err)
{
	struct wperf_buf text = {0};
	int e = 0;

	h->points.runs = calloc(h->ncommits, sizeof(*h->points.runs));
	h->point_of = calloc(h->ncommits, sizeof(*h->point_of));
	h->labels = calloc(h->ncommits, sizeof(*h->labels));
	h->oids = calloc(h->ncommits, sizeof(*h->oids));
	if (!h->points.runs || !h->point_of || !h->labels || !h->oids)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; !e && i < h->ncommits; i++) {
		const struct git_change *c = &h->commits[i];
		struct wperf_baseline b = {0};
		struct wperf_error bad = {0};
		char name[PATH_MAX + 64];

		wperf_buf_clear(&text);
		snprintf(name, sizeof(name), "%s@%.*s", rel, SHORT_OID, c->oid);
		if (git_repo_read_file(h->repo, c->oid, rel, &text, &bad) < 0 ||
		    wperf_baseline_read(name, (const char *)text.data, text.len, &b, &bad) < 0) {
			cli_warn(CMD, "skipping commit %.*s: %s", SHORT_OID, c->oid, bad.msg);
			continue;
		}
		if (b.unit)
			snprintf(h->unit, sizeof(h->unit), "%s", b.unit);
		e = point_of(&b, &h->points.runs[h->points.nruns]);
		if (!e)
			e = table_row(&h->md, c, &b, &h->points.runs[h->points.nruns]);
		if (e)
			e = wperf_error_set(err, -ENOMEM, "out of memory");
		snprintf(h->oids[h->points.nruns], sizeof(*h->oids), "%.*s", SHORT_OID, c->oid);
		h->labels[h->points.nruns] = h->oids[h->points.nruns];
		h->point_of[h->points.nruns++] = c;
		wperf_baseline_release(&b);
	}
	wperf_buf_release(&text);
	return e;
}

/* ---- --changes ---- */

/* A change point of a series, and when it was found (the order of the rows
 * of one commit: the throughput first, then the edges, then the knots). */
struct series_change {
	struct series of;
	size_t found;
	struct wperf_changepoint cp;
};

static int cmp_series(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	int c = strcmp(x->from, y->from);

	return c || !x->to ? c : strcmp(x->to, y->to);
}

static int cmp_change(const void *a, const void *b)
{
	const struct series_change *x = a, *y = b;

	if (x->cp.index != y->cp.index)
		return x->cp.index < y->cp.index ? -1 : 1;
	return (x->found > y->found) - (x->found < y->found);
}

static int push_series(struct wperf_buf *keys, enum series_kind kind, const char *from,
		       const char *to)
{
	struct series *s = wperf_buf_push(keys, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*s = (struct series){kind, from, to};
	return 0;
}

/* The distinct edges (SERIES_EDGE) or knot vertices (SERIES_KNOT) of the
 * points, sorted, into keys; 0 or -ENOMEM. */
static int distinct_series(const struct wperf_runset *points, enum series_kind kind,
			   struct wperf_buf *keys)
{
	struct series *s;
	size_t n = 0;
	int e = 0;

	for (size_t i = 0; !e && i < points->nruns; i++) {
		const struct wperf_run *p = &points->runs[i];

		for (size_t j = 0; !e && kind == SERIES_EDGE && j < p->nedges; j++)
			e = push_series(keys, kind, p->edges[j].from, p->edges[j].to);
		for (size_t k = 0; !e && kind == SERIES_KNOT && k < p->nknots; k++)
			for (size_t v = 0; !e && v < p->knots[k].n; v++)
				e = push_series(keys, kind, p->knots[k].ids[v], NULL);
	}
	s = (struct series *)keys->data;
	if (!e && keys->len)
		qsort(s, keys->len / sizeof(*s), sizeof(*s), cmp_series);
	for (size_t i = 0; !e && i < keys->len / sizeof(*s); i++)
		if (!n || cmp_series(&s[n - 1], &s[i]))
			s[n++] = s[i];
	keys->len = n * sizeof(*s);
	return e;
}

/* The value of series s at point p. */
static double series_value(const struct series *s, const struct wperf_run *p)
{
	if (s->kind == SERIES_THROUGHPUT)
		return p->throughput;
	if (s->kind == SERIES_EDGE)
		return wperf_run_edge_share(p, s->from, s->to);
	for (size_t k = 0; k < p->nknots; k++)
		for (size_t v = 0; v < p->knots[k].n; v++)
			if (!strcmp(p->knots[k].ids[v], s->from))
				return 1;
	return 0;
}

/* Adds point at to the marks of a plot, once. */
static int mark(struct wperf_buf *marks, size_t at)
{
	const size_t *m = (const size_t *)marks->data;
	size_t *slot;

	for (size_t i = 0; i < marks->len / sizeof(*m); i++)
		if (m[i] == at)
			return 0;
	if (!(slot = wperf_buf_push(marks, sizeof(*slot))))
		return -ENOMEM;
	*slot = at;
	return 0;
}

/* The change points of series s (its values into x), into h->found and the
 * marks of its plot. */
static int find_changes(struct history *h, const struct series *s, double *x,
			struct wperf_error *err)
{
	struct wperf_changepoint *cps;
	size_t n;
	int e;

	for (size_t i = 0; i < h->points.nruns; i++)
		x[i] = series_value(s, &h->points.runs[i]);
	if ((e = wperf_changepoints(x, h->points.nruns, &h->cp, &cps, &n, err)))
		return e;
	for (size_t i = 0; !e && i < n; i++) {
		struct series_change *c = wperf_buf_push(&h->found, sizeof(*c));

		if (!c)
			e = -ENOMEM;
		else
			*c = (struct series_change){*s, h->found.len / sizeof(*c), cps[i]};
		if (!e)
			e = mark(s->kind == SERIES_THROUGHPUT ? &h->throughput_marks
							      : &h->edges_marks,
				 cps[i].index);
	}
	free(cps);
	return e ? wperf_error_set(err, e, "out of memory") : 0;
}

/* Every series' change points into h->found, in their commits' order;
 * h->searched counts the series of each kind. */
static int detect_changes(struct history *h, struct wperf_error *err)
{
	const struct series throughput = {SERIES_THROUGHPUT, NULL, NULL};
	double *x = malloc(h->points.nruns * sizeof(*x));
	struct wperf_buf keys = {0};
	int e = x ? find_changes(h, &throughput, x, err) : -ENOMEM;

	h->searched[SERIES_THROUGHPUT] = 1;
	for (enum series_kind k = SERIES_EDGE; !e && k <= SERIES_KNOT; k++) {
		const struct series *s;

		wperf_buf_clear(&keys);
		if ((e = distinct_series(&h->points, k, &keys)))
			break;
		s = (const struct series *)keys.data;
		h->searched[k] = keys.len / sizeof(*s);
		for (size_t i = 0; !e && i < h->searched[k]; i++)
			e = find_changes(h, &s[i], x, err);
	}
	if (!e && h->found.len)
		qsort(h->found.data, h->found.len / sizeof(struct series_change),
		      sizeof(struct series_change), cmp_change);
	free(x);
	wperf_buf_release(&keys);
	return e == -ENOMEM ? wperf_error_set(err, e, "out of memory") : e;
}

/* The metric cell of a change: what moved. */
static int metric_cell(struct wperf_buf *md, const struct series *s, const char *unit)
{
	int e;

	if (s->kind == SERIES_THROUGHPUT)
		return wperf_buf_printf(md, "throughput%s%s%s | ", *unit ? " (" : "", unit,
					*unit ? ")" : "");
	e = wperf_md_code(md, s->from);
	if (!e && s->kind == SERIES_EDGE)
		e = wperf_buf_printf(md, " → ");
	if (!e && s->kind == SERIES_EDGE)
		e = wperf_md_code(md, s->to);
	return e ? e
		 : wperf_buf_printf(md, "%s | ", s->kind == SERIES_EDGE ? " share" : " in a knot");
}

/* The level before and after a change, the change, p: a throughput as it is
 * measured, a share of the window or of the commits in percent. */
static int level_cells(struct wperf_buf *md, const struct series_change *c)
{
	const struct wperf_changepoint *cp = &c->cp;
	int e;

	if (c->of.kind == SERIES_THROUGHPUT)
		e = wperf_buf_printf(md, "%.6g → %.6g | ", cp->mean_before, cp->mean_after);
	else
		e = wperf_buf_printf(md, "%.3g%% → %.3g%%%s | ", 100 * cp->mean_before,
				     100 * cp->mean_after,
				     c->of.kind == SERIES_KNOT ? " of the commits" : "");
	if (!e && c->of.kind == SERIES_KNOT)
		e = wperf_buf_printf(md, "%s | ",
				     cp->mean_after > cp->mean_before ? "joined" : "left");
	else if (!e)
		e = isfinite(cp->rel_change)
			? wperf_buf_printf(md, "%+.1f%% | ", 100 * cp->rel_change)
			: wperf_buf_printf(md, "- | ");
	return e ? e : wperf_buf_printf(md, "%.2g |\n", cp->p);
}

/* The section of the change points. */
static int changes_section(struct history *h)
{
	const struct series_change *c = (const struct series_change *)h->found.data;
	size_t n = h->found.len / sizeof(*c);
	size_t edges = h->searched[SERIES_EDGE], vertices = h->searched[SERIES_KNOT];
	int e = wperf_buf_printf(
	    &h->md,
	    "\n## Change points\n\n"
	    "E-Divisive means with Student's t test, after Apache Otava: each the first "
	    "commit of a new level, at p below %g between the levels before and after it. "
	    "Searched: the throughput, the share of %zu edge%s, whether %zu vert%s in a "
	    "knot.\n\n",
	    h->cp.max_p ? h->cp.max_p : WPERF_CHANGEPOINT_MAX_P, edges, edges == 1 ? "" : "s",
	    vertices, vertices == 1 ? "ex is" : "ices are");

	if (!e && !n)
		return wperf_buf_printf(&h->md, "None.\n");
	if (!e)
		e = wperf_buf_printf(&h->md,
				     "| commit | date | subject | metric | before → after | "
				     "change | p |\n|---|---|---|---|---:|---:|---:|\n");
	for (size_t i = 0; !e && i < n; i++) {
		e = commit_cells(&h->md, h->point_of[c[i].cp.index]);
		if (!e)
			e = metric_cell(&h->md, &c[i].of, h->unit);
		if (!e)
			e = level_cells(&h->md, &c[i]);
	}
	return e;
}

/* ---- changes.json ---- */

/* Names of enum series_kind in changes.json. */
static const char *const series_names[] = {"throughput", "edge", "knot"};

/* A commit's id, subject and date (UTC, ISO 8601) into o: "commit",
 * "subject", "date". */
static int put_commit(json_object *o, const struct git_change *c)
{
	char date[32];
	time_t t = (time_t)c->time;

	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	if (wperf_json_put(o, "commit", json_object_new_string(c->oid)) ||
	    wperf_json_put(o, "subject", json_object_new_string(c->subject)))
		return -ENOMEM;
	return wperf_json_put(o, "date", json_object_new_string(date));
}

/* A string, or null for NULL. */
static int put_text(json_object *o, const char *key, const char *s)
{
	return s ? wperf_json_put(o, key, json_object_new_string(s)) : wperf_json_put_null(o, key);
}

/* A finite number, or null. */
static int put_number(json_object *o, const char *key, double v)
{
	return isfinite(v) ? wperf_json_put(o, key, wperf_json_number(v))
			   : wperf_json_put_null(o, key);
}

/* One change point of changes.json, into a (which takes it). */
static int append_change(const struct history *h, const struct series_change *c, json_object *a)
{
	const struct wperf_changepoint *cp = &c->cp;
	const struct git_change *previous = cp->index ? h->point_of[cp->index - 1] : NULL;
	json_object *o = json_object_new_object();
	int e = o ? 0 : -ENOMEM;

	if (!e)
		e = wperf_json_put(o, "metric", json_object_new_string(series_names[c->of.kind]));
	if (!e)
		e = put_text(o, "from", c->of.kind == SERIES_EDGE ? c->of.from : NULL);
	if (!e)
		e = put_text(o, "to", c->of.to);
	if (!e)
		e = put_text(o, "vertex", c->of.kind == SERIES_KNOT ? c->of.from : NULL);
	if (!e)
		e = put_commit(o, h->point_of[cp->index]);
	if (!e)
		e = put_text(o, "previous", previous ? previous->oid : NULL);
	if (!e)
		e = put_number(o, "before", cp->mean_before);
	if (!e)
		e = put_number(o, "after", cp->mean_after);
	if (!e)
		e = put_number(o, "change", cp->rel_change);
	if (!e)
		e = put_number(o, "p", cp->p);
	if (e) {
		json_object_put(o);
		return -ENOMEM;
	}
	return wperf_json_append(a, o);
}

/* DIR/changes.json: the change points for tools (wperf-changes/1). */
static int write_changes_json(const struct history *h, struct wperf_error *err)
{
	const struct series_change *c = (const struct series_change *)h->found.data;
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	char path[PATH_MAX + 16];
	const char *text;
	int e = o && a ? 0 : -ENOMEM;

	for (size_t i = 0; !e && i < h->found.len / sizeof(*c); i++)
		e = append_change(h, &c[i], a);
	if (!e)
		e = wperf_json_put(o, "format", json_object_new_string(WPERF_CHANGES_FORMAT));
	if (!e)
		e = wperf_json_put(o, "scenario", json_object_new_string(h->name));
	if (!e)
		e = wperf_json_put(o, "unit", json_object_new_string(h->unit));
	if (!e)
		e = wperf_json_put(
		    o, "max_p",
		    wperf_json_number(h->cp.max_p ? h->cp.max_p : WPERF_CHANGEPOINT_MAX_P));
	if (!e) {
		e = wperf_json_put(o, "changes", a);
		a = NULL;
	}
	json_object_put(a);
	if (e) {
		json_object_put(o);
		return wperf_error_set(err, -ENOMEM, "out of memory");
	}
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	snprintf(path, sizeof(path), "%s/changes.json", h->out_dir);
	e = output_write(path, text, strlen(text), err);
	json_object_put(o);
	return e;
}

/* --changes: the section, and the marks on x for the plots. */
static int changes_of(struct history *h, struct plots_axis *x, struct wperf_error *err)
{
	int e = detect_changes(h, err);

	if (!e && changes_section(h))
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	x->throughput_marks = (struct plots_marks){(const size_t *)h->throughput_marks.data,
						   h->throughput_marks.len / sizeof(size_t)};
	x->edges_marks = (struct plots_marks){(const size_t *)h->edges_marks.data,
					      h->edges_marks.len / sizeof(size_t)};
	return e;
}

static int history_run(struct history *h, struct wperf_error *err)
{
	char path[PATH_MAX], rel[PATH_MAX], file[PATH_MAX + 16];
	struct plots_axis x = {.name = "commit"};
	int e;

	gate_baseline_path(h->baseline, h->name, path, sizeof(path));
	if ((e = git_repo_open(".", &h->repo, err)) ||
	    (e = git_repo_relative(h->repo, path, rel, sizeof(rel), err)) ||
	    (e = git_repo_changes(h->repo, rel, h->since, &h->commits, &h->ncommits, err)))
		return e;
	if (!h->ncommits)
		return wperf_error_set(err, -ENOENT, "no commit%s%s changed %s",
				       h->since ? " after " : "", h->since ? h->since : "", rel);
	e = wperf_buf_printf(
	    &h->md,
	    "# %s: the baseline across %zu commit%s\n\n"
	    "| commit | date | subject | runs | throughput | knots | heaviest edges |\n"
	    "|---|---|---|---:|---:|---|---|\n",
	    h->name, h->ncommits, h->ncommits == 1 ? "" : "s");
	if (e)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	if ((e = collect(h, rel, err)))
		return e;
	if (!h->points.nruns)
		return wperf_error_set(err, -EINVAL, "%s does not read as a baseline at any commit",
				       rel);
	snprintf(h->points.unit, sizeof(h->points.unit), "%s", h->unit);
	x.labels = h->labels;
	if (h->changes && (e = changes_of(h, &x, err)))
		return e;
	if ((e = plots_write_axis(&h->points, h->name, &x, h->out_dir, err)))
		return e;
	if (h->changes && (e = write_changes_json(h, err)))
		return e;
	snprintf(file, sizeof(file), "%s/history.md", h->out_dir);
	return output_write(file, h->md.data, h->md.len, err);
}

static void history_release(struct history *h)
{
	wperf_runset_release(&h->points);
	free(h->point_of);
	free(h->labels);
	free(h->oids);
	free(h->commits);
	wperf_buf_release(&h->found);
	wperf_buf_release(&h->throughput_marks);
	wperf_buf_release(&h->edges_marks);
	wperf_buf_release(&h->md);
	git_repo_free(h->repo);
}

/* NAME from a name or a scenario file's path. */
static void scenario_name(const char *arg, char *out, size_t size)
{
	const char *base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	size_t n = strlen(base);

	if (n > 5 && !strcmp(base + n - 5, ".yaml"))
		n -= 5;
	snprintf(out, size, "%.*s", (int)n, base);
}

int cmd_history(int argc, char **argv)
{
	struct history h = {0};
	struct wperf_error err = {0};
	char name[256], out_dir[PATH_MAX];
	const char *scenario;
	int status = cli_parse(CMD, &cli_history_help, argc, argv, &h);

	if (status >= 0)
		return status;
	status = EXIT_OK;
	h.changes |= h.cp.max_p > 0; /* --max-p asks for them */
	scenario = argv[optind];
	scenario_name(scenario, name, sizeof(name));
	h.name = name;
	if (!h.out_dir) {
		snprintf(out_dir, sizeof(out_dir), "history/%s", name);
		h.out_dir = out_dir;
	}
	if (history_run(&h, &err) < 0) {
		status = cli_error(CMD, "%s", err.msg);
	} else {
		fwrite(h.md.data, 1, h.md.len, stdout);
		fprintf(stderr, "wperf-bench history: %s/history.md%s and the plots in %s\n",
			h.out_dir, h.changes ? ", changes.json" : "", h.out_dir);
	}
	history_release(&h);
	return status;
}
