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
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/cli/cli.h"
#include "core/gate/stats.h"
#include "harness/gate/gate.h"
#include "harness/git/git_repo.h"
#include "harness/base/output.h"
#include "harness/run/plots.h"

#define CMD	    "history"
#define TABLE_EDGES 3 /* edges per commit in the table */
#define SHORT_OID   12

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

/* A row of the table: commit, date, subject, runs, throughput, knots, edges. */
static int table_row(struct wperf_buf *md, const struct git_change *c,
		     const struct wperf_baseline *b, const struct wperf_run *p)
{
	struct wperf_run_edge *top = NULL;
	char date[16];
	time_t t = (time_t)c->time;
	int e;

	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&t));
	e = wperf_buf_printf(md, "| `%.*s` | %s | %s | %zu | ", SHORT_OID, c->oid, date, c->subject,
			     b->runs);
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

struct history {
	const char *name, *baseline, *since, *out_dir;
	struct git_repo *repo;
	struct git_change *changes;
	size_t nchanges;
	struct wperf_runset points; /* one per commit shown */
	const char **labels;	    /* the points' short commit ids */
	char (*oids)[SHORT_OID + 1];
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
    {0},
};

/* Reads the baseline at each commit into a point and a table row; a commit
 * whose file does not read as a baseline is skipped with a warning. */
static int collect(struct history *h, const char *rel, struct wperf_error *err)
{
	struct wperf_buf text = {0};
	int e = 0;

	h->points.runs = calloc(h->nchanges, sizeof(*h->points.runs));
	h->labels = calloc(h->nchanges, sizeof(*h->labels));
	h->oids = calloc(h->nchanges, sizeof(*h->oids));
	if (!h->points.runs || !h->labels || !h->oids)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; !e && i < h->nchanges; i++) {
		const struct git_change *c = &h->changes[i];
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
		h->points.nruns++;
		wperf_baseline_release(&b);
	}
	wperf_buf_release(&text);
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
	    (e = git_repo_changes(h->repo, rel, h->since, &h->changes, &h->nchanges, err)))
		return e;
	if (!h->nchanges)
		return wperf_error_set(err, -ENOENT, "no commit%s%s changed %s",
				       h->since ? " after " : "", h->since ? h->since : "", rel);
	e = wperf_buf_printf(
	    &h->md,
	    "# %s: the baseline across %zu commit%s\n\n"
	    "| commit | date | subject | runs | throughput | knots | heaviest edges |\n"
	    "|---|---|---|---:|---:|---|---|\n",
	    h->name, h->nchanges, h->nchanges == 1 ? "" : "s");
	if (e)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	if ((e = collect(h, rel, err)))
		return e;
	if (!h->points.nruns)
		return wperf_error_set(err, -EINVAL, "%s does not read as a baseline at any commit",
				       rel);
	snprintf(h->points.unit, sizeof(h->points.unit), "%s", h->unit);
	x.labels = h->labels;
	if ((e = plots_write_axis(&h->points, h->name, &x, h->out_dir, err)))
		return e;
	snprintf(file, sizeof(file), "%s/history.md", h->out_dir);
	return output_write(file, h->md.data, h->md.len, err);
}

static void history_release(struct history *h)
{
	wperf_runset_release(&h->points);
	free(h->labels);
	free(h->oids);
	free(h->changes);
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
		fprintf(stderr, "wperf-bench history: %s/history.md and the plots in %s\n",
			h.out_dir, h.out_dir);
	}
	history_release(&h);
	return status;
}
