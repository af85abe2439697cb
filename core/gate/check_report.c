/* SPDX-License-Identifier: MIT */
/*
 * A whole check for people (one Markdown text: the pull-request comment, the
 * job summary) and for CI (JUnit XML). See check.h; the lines about findings
 * are in check_report_findings.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/check_report_internal.h"
#include "core/gate/verdict_text.h"
#include "core/util/cmp.h"

#define SHORT_COMMIT	7
#define CHECK_MD_MIN	2000
#define NOTE_ROOM	600 /* kept for the last line, on what was left out */
#define NOTE_NAMES	5   /* scenarios named in it; the rest counted */
#define STRUCTURE_NAMES 5

static const char *plural(size_t n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}

/* ---- the first lines ---- */

static void first_line(struct md *m, const struct wperf_check *c)
{
	size_t count[WPERF_VERDICT_INCONCLUSIVE + 1] = {0}, errors = 0, parts = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (c->scenarios[i].error)
			errors++;
		else
			count[c->scenarios[i].verdict.kind]++;
	}
	check_md_printf(m, "**wperf-bench: ");
	if (count[WPERF_VERDICT_NEW_BOTTLENECK] + count[WPERF_VERDICT_REGRESSION] + errors +
		count[WPERF_VERDICT_INCONCLUSIVE] ==
	    0) {
		if (c->n == 0)
			check_md_printf(m, "no scenario to check");
		else
			check_md_printf(m, "%zu %s", c->n,
					plural(c->n, "scenario passes", "scenarios pass"));
		if (count[WPERF_VERDICT_IMPROVED])
			check_md_printf(m, ", %zu improved", count[WPERF_VERDICT_IMPROVED]);
		check_md_printf(m, "**");
		return;
	}
	/* The worst first: what fails the check, then what it could not tell. */
	if (count[WPERF_VERDICT_NEW_BOTTLENECK])
		check_md_printf(m, "%s%zu %s", parts++ ? ", " : "",
				count[WPERF_VERDICT_NEW_BOTTLENECK],
				plural(count[WPERF_VERDICT_NEW_BOTTLENECK], "new bottleneck",
				       "new bottlenecks"));
	if (count[WPERF_VERDICT_REGRESSION])
		check_md_printf(
		    m, "%s%zu %s", parts++ ? ", " : "", count[WPERF_VERDICT_REGRESSION],
		    plural(count[WPERF_VERDICT_REGRESSION], "regression", "regressions"));
	if (errors)
		check_md_printf(m, "%s%zu could not run", parts++ ? ", " : "", errors);
	if (count[WPERF_VERDICT_INCONCLUSIVE])
		check_md_printf(m, "%s%zu inconclusive", parts++ ? ", " : "",
				count[WPERF_VERDICT_INCONCLUSIVE]);
	check_md_printf(m, " in %zu %s**", c->n, plural(c->n, "scenario", "scenarios"));
}

static void duration(struct md *m, double seconds)
{
	if (seconds >= 120)
		check_md_printf(m, "%.1f min", seconds / 60);
	else
		check_md_printf(m, "%.0f s", seconds);
}

/* "8 pairs" or "4 to 8 pairs" over the scenarios that ran, or that none did. */
static void pairs_range(struct md *m, const struct wperf_check *c, const char *what)
{
	size_t lo = SIZE_MAX, hi = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (c->scenarios[i].error)
			continue;
		lo = c->scenarios[i].pairs < lo ? c->scenarios[i].pairs : lo;
		hi = c->scenarios[i].pairs > hi ? c->scenarios[i].pairs : hi;
	}
	if (lo == SIZE_MAX)
		check_md_printf(m, "no scenario ran");
	else if (lo == hi)
		check_md_printf(m, "%zu %s", lo, what);
	else
		check_md_printf(m, "%zu to %zu %s", lo, hi, what);
}

/* One line: what was compared, where, how often. */
static void compared_line(struct md *m, const struct wperf_check *c)
{
	size_t structure = 0;

	if (c->head_commit[0]) {
		check_md_printf(m, "Head `%.*s`", SHORT_COMMIT, c->head_commit);
		if (c->head_branch[0]) {
			check_md_printf(m, " on ");
			check_md_code(m, c->head_branch);
		}
	} else {
		check_md_printf(m, "The work tree (not a git commit)");
	}
	if (c->head_dirty)
		check_md_printf(m, " with uncommitted changes");
	if (c->base_mode) {
		check_md_printf(m, " against base `%.*s` (", SHORT_COMMIT, c->base_commit);
		check_md_code(m, c->base_ref);
		check_md_printf(m, "), run in turns on this one machine: ");
		pairs_range(m, c, "pairs of runs");
	} else {
		check_md_printf(m, " against the stored baselines: ");
		pairs_range(m, c, "runs each");
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct wperf_check_scenario *s = &c->scenarios[i];

		if (s->error || !s->verdict.structure_only)
			continue;
		if (structure < STRUCTURE_NAMES) {
			check_md_printf(m, structure
					       ? ", "
					       : "; baselines from another machine, structure "
						 "only: ");
			check_md_code(m, s->name);
		}
		structure++;
	}
	if (structure > STRUCTURE_NAMES)
		check_md_printf(m, " and %zu more", structure - STRUCTURE_NAMES);
	if (c->alpha > 0)
		check_md_printf(m, "; false-failure rate %.3g for the whole check", c->alpha);
	if (c->seconds > 0) {
		check_md_printf(m, "; ");
		duration(m, c->seconds);
	}
	check_md_printf(m, ".");
}

/* ---- the table ---- */

static void throughput_cell(struct md *m, const struct wperf_check_scenario *s)
{
	const struct wperf_verdict *v = &s->verdict;

	if (s->error) {
		check_md_printf(m, "–");
	} else if (v->structure_only) {
		check_md_printf(m, "not compared (another machine)");
	} else if (isnan(v->throughput_after)) {
		check_md_printf(m, "–");
	} else {
		if (!isnan(v->throughput_before))
			check_md_printf(m, "%.6g → ", v->throughput_before);
		check_md_printf(m, "%.6g", v->throughput_after);
		if (v->unit[0]) {
			check_md_printf(m, " ");
			check_md_text(m, v->unit);
		}
		if (!isnan(v->throughput_before) && v->throughput_before != 0)
			check_md_printf(m, " (%+.1f%%)",
					(v->throughput_after - v->throughput_before) /
					    fabs(v->throughput_before) * 100);
	}
}

/* What the runs could tell: the smallest throughput change against the one
 * asked (gate.detect), and in how many runs a new vertex fails. */
static void power_note(struct md *m, const struct wperf_verdict *v)
{
	if (!isnan(v->detectable) && v->detectable > 0)
		check_md_printf(m,
				"; the smallest throughput change they could tell from noise: "
				"%.1f%%",
				v->detectable * 100);
	if (!isnan(v->detectable) && v->detectable > v->detect)
		check_md_printf(m, " (not the %.1f%% asked: more runs would)", v->detect * 100);
	if (v->presence)
		check_md_printf(m, "; a vertex new to the bottleneck fails when in %zu of %zu runs",
				v->presence, v->runs);
	else if (v->runs)
		check_md_printf(m, "; no vertex new to the bottleneck could fail with these runs");
}

/* Why a scenario passed weakly, for the table: what its runs could not tell. */
static void underpowered_why(struct md *m, const struct wperf_verdict *v)
{
	if (!v->presence)
		check_md_printf(m, "too few runs for a new vertex to fail");
	else if (isnan(v->detectable))
		check_md_printf(m, "too few runs to tell a throughput change");
	else
		check_md_printf(m, "could tell %.1f%%, not the %.1f%% asked", v->detectable * 100,
				v->detect * 100);
}

static void table_row(struct md *m, const struct wperf_check_scenario *s)
{
	const struct wperf_finding *f = s->error ? NULL : check_main_finding(&s->verdict);
	int failed = s->error || wperf_verdict_exit_code(s->verdict.kind);

	check_md_printf(m, "| ");
	check_md_code(m, s->name);
	check_md_printf(m, failed ? " | **%s** | %zu | " : " | %s | %zu | ",
			s->error ? "error" : wperf_verdict_name(s->verdict.kind), s->pairs);
	throughput_cell(m, s);
	check_md_printf(m, " | ");
	if (s->reason)
		check_md_text(m, s->reason);
	else if (f)
		check_finding_what(m, f, s->verdict.unit);
	else if (!s->error && s->verdict.underpowered)
		underpowered_why(m, &s->verdict);
	check_md_printf(m, " |\n");
}

/* ---- the details of a scenario ---- */

#define GROWING_CHARS 600

static int has_details(const struct wperf_check_scenario *s)
{
	return !s->error && (s->verdict.nfindings || s->verdict.nwarnings);
}

/* The wait stacks that grew most from the base to the head, each cut to
 * GROWING_CHARS (a stack is two threads' frames, often hundreds). */
static void growing(struct md *m, const struct wperf_check_scenario *s)
{
	if (!s->ngrowing)
		return;
	check_md_printf(m, "\nThe wait stacks that grew most, head against base (waiter's "
			   "frames, `--`, its waker's):\n\n");
	for (size_t i = 0; i < s->ngrowing; i++) {
		size_t n = strlen(s->growing[i]);

		check_md_printf(m, "- ");
		if (n > GROWING_CHARS) {
			char cut[GROWING_CHARS + 1];

			snprintf(cut, sizeof(cut), "%s", s->growing[i]);
			check_md_code(m, cut);
			check_md_printf(m, " (cut: %zu characters in all)", n);
		} else {
			check_md_code(m, s->growing[i]);
		}
		check_md_printf(m, "\n");
	}
}

static void details(struct md *m, const struct wperf_check_scenario *s, const char *artifacts)
{
	const struct wperf_verdict *v = &s->verdict;

	check_md_printf(m, "<details><summary><code>");
	check_md_html(m, s->name);
	check_md_printf(m, "</code>: %s, %zu %s</summary>\n\n", wperf_verdict_name(v->kind),
			v->nfindings, plural(v->nfindings, "finding", "findings"));
	check_md_printf(m, "%zu runs against %zu%s", v->runs, v->baseline_runs,
			v->paired ? ", in pairs" : "");
	if (v->tests)
		check_md_printf(m, "; %zu primary %s at a level of %.2g together", v->tests,
				plural(v->tests, "test", "tests"), v->alpha);
	power_note(m, v);
	check_md_printf(m, ".%s\n\n",
			v->structure_only ? " The baseline is from another machine: structure only."
					  : "");
	for (int class = 0; class < 3; class ++)
		for (size_t i = 0; i < v->nfindings; i++)
			if (check_finding_class(&v->findings[i]) == class)
				check_finding_line(m, &v->findings[i], v->unit);
	for (size_t i = 0; i < v->nwarnings; i++) {
		check_md_printf(m, "- warning: ");
		check_md_text(m, v->warnings[i]);
		check_md_printf(m, "\n");
	}
	growing(m, s);
	if (artifacts) {
		check_md_printf(m, "\nIts folder: ");
		check_md_code(m, s->dir);
		check_md_printf(m, " in the [artifacts](%s)", artifacts);
		if (s->flame) {
			check_md_printf(m, "; where its waits changed: ");
			check_md_code(m, s->flame);
			check_md_printf(m, " in it, a differential flame graph (red: the head "
					   "waits longer)");
		}
		check_md_printf(m, ".\n");
	}
	check_md_printf(m, "\n</details>\n\n");
}

/* How much a scenario's details matter: failures first, the most failing
 * findings first, then the check's order. */
struct rank {
	int kind; /* 0: new-bottleneck ... 4: pass */
	size_t fails, index;
};

static int cmp_rank(const void *pa, const void *pb)
{
	const struct rank *a = pa, *b = pb;
	const uint64_t ka[] = {wperf_key_signed(a->kind), wperf_key_desc(a->fails), a->index};
	const uint64_t kb[] = {wperf_key_signed(b->kind), wperf_key_desc(b->fails), b->index};

	return wperf_cmp_keys(ka, kb, 3);
}

static size_t count_fails(const struct wperf_verdict *v)
{
	size_t n = 0;

	for (size_t i = 0; i < v->nfindings; i++)
		n += v->findings[i].level == WPERF_LEVEL_FAIL;
	return n;
}

static int kind_rank(enum wperf_verdict_kind k)
{
	switch (k) {
	case WPERF_VERDICT_NEW_BOTTLENECK:
		return 0;
	case WPERF_VERDICT_REGRESSION:
		return 1;
	case WPERF_VERDICT_INCONCLUSIVE:
		return 2;
	case WPERF_VERDICT_IMPROVED:
		return 3;
	case WPERF_VERDICT_PASS:
		break;
	}
	return 4;
}

/* ---- the whole, under the cap ---- */

/* The length of text's first lines that fit in room bytes. */
static size_t whole_lines(const struct wperf_buf *text, size_t room)
{
	const char *nl;

	if (text->len <= room)
		return text->len;
	nl = memrchr(text->data, '\n', room);
	return nl ? (size_t)(nl - (const char *)text->data) + 1 : 0;
}

static size_t count_lines(const uint8_t *p, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += p[i] == '\n';
	return n;
}

/* The last line: what was left out. */
static void left_out_note(struct md *m, const struct wperf_check *c, const struct rank *r,
			  size_t first_dropped, size_t nranks, size_t cut_rows, int cut_block,
			  size_t max)
{
	size_t dropped = nranks - first_dropped;

	if (!dropped && !cut_rows && !cut_block)
		return;
	check_md_printf(m, "\n_Left out to stay under %zu characters:", max);
	if (cut_rows)
		check_md_printf(m, " %zu rows of the table,", cut_rows);
	if (cut_block) {
		check_md_printf(m, " the end of the details of ");
		check_md_code(m, c->scenarios[r[first_dropped - 1].index].name);
		check_md_printf(m, ",");
	}
	for (size_t i = first_dropped; i < nranks && i < first_dropped + NOTE_NAMES; i++) {
		check_md_printf(m, i == first_dropped ? " the details of " : ", ");
		check_md_code(m, c->scenarios[r[i].index].name);
	}
	if (dropped > NOTE_NAMES)
		check_md_printf(m, " and %zu more scenarios", dropped - NOTE_NAMES);
	check_md_printf(m, "%s the whole is summary.md in the artifacts._\n", dropped ? ";" : "");
}

/* What the pull request changed of its own gate, under the table: that a
 * loosened bar did not apply (or did, when the check trusts the head). */
static void settings_lines(struct md *m, const struct wperf_check *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->scenarios[i].nsettings_changed;
	if (!n)
		return;
	check_md_printf(m,
			c->trust_head_settings
			    ? "**Gate settings changed by this pull request**, applied "
			      "(`--trust-head-settings`):\n\n"
			    : "**Gate settings changed by this pull request**: not applied, "
			      "the head was judged under the base's; they apply once merged.\n\n");
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->scenarios[i].nsettings_changed; k++) {
			check_md_printf(m, "- ");
			check_md_code(m, c->scenarios[i].name);
			check_md_printf(m, ": ");
			check_md_code(m, c->scenarios[i].settings_changed[k]);
			check_md_printf(m, "\n");
		}
	check_md_printf(m, "\n");
}

/* The first lines and the table of the scenarios. */
static void head_lines(struct md *head, const struct wperf_check *c)
{
	first_line(head, c);
	check_md_printf(head, "\n\n");
	compared_line(head, c);
	check_md_printf(
	    head, "\n\n| scenario | verdict | %s | throughput | why |\n|---|---|---|---|---|\n",
	    c->base_mode ? "pairs" : "runs");
	for (size_t i = 0; i < c->n; i++)
		table_row(head, &c->scenarios[i]);
	check_md_printf(head, "\n");
	settings_lines(head, c);
}

/* The scenarios that have details, the most important first, into r; how many. */
static size_t rank_details(const struct wperf_check *c, struct rank *r)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (has_details(&c->scenarios[i]))
			r[n++] = (struct rank){
			    .kind = kind_rank(c->scenarios[i].verdict.kind),
			    .fails = count_fails(&c->scenarios[i].verdict),
			    .index = i,
			};
	qsort(r, n, sizeof(*r), cmp_rank);
	return n;
}

int wperf_check_markdown(const struct wperf_check *c, const char *artifacts_url, size_t max_chars,
			 struct wperf_buf *out)
{
	struct md head = {0}, block = {0}, body = {0}, note = {0};
	struct rank *r = calloc(c->n + 1, sizeof(*r));
	size_t max = max_chars ? max_chars : WPERF_VERDICT_MD_MAX, budget, nranks, kept = 0;
	size_t cut_rows = 0;
	int cut_block = 0, ret;

	if (max < CHECK_MD_MIN)
		max = CHECK_MD_MIN;
	budget = max - NOTE_ROOM;
	if (!r)
		return -ENOMEM;
	head_lines(&head, c);
	if (!head.ret && head.b.len > budget) {
		size_t keep = whole_lines(&head.b, budget);

		cut_rows = count_lines(head.b.data + keep, head.b.len - keep);
		head.b.len = keep;
	}
	budget -= head.ret ? 0 : head.b.len;
	nranks = rank_details(c, r);
	/* The most important details first, while they fit; a first one too long
	 * is cut at a line, and closed. */
	for (; kept < nranks && !cut_rows && !body.ret && !block.ret; kept++) {
		static const char close[] = "…\n\n</details>\n\n";

		wperf_buf_clear(&block.b);
		details(&block, &c->scenarios[r[kept].index], artifacts_url);
		if (block.ret)
			break;
		if (body.b.len + block.b.len > budget && kept > 0)
			break;
		if (body.b.len + block.b.len > budget) {
			block.b.len = whole_lines(&block.b, budget - strlen(close));
			check_md_printf(&block, "%s", close);
			cut_block = 1;
		}
		if (!block.ret)
			body.ret = wperf_buf_append(&body.b, block.b.data, block.b.len);
		if (cut_block) {
			kept++;
			break;
		}
	}
	if (artifacts_url)
		check_md_printf(&note, "[Artifacts](%s)\n", artifacts_url);
	left_out_note(&note, c, r, kept, nranks, cut_rows, cut_block, max);
	ret = head.ret ? head.ret : body.ret ? body.ret : block.ret ? block.ret : note.ret;
	if (!ret) {
		size_t start = out->len;

		ret = wperf_buf_append(out, head.b.data, head.b.len) ||
			      wperf_buf_append(out, body.b.data, body.b.len) ||
			      wperf_buf_append(out, note.b.data, note.b.len)
			  ? -ENOMEM
			  : 0;
		if (ret)
			out->len = start;
	}
	wperf_buf_release(&head.b);
	wperf_buf_release(&block.b);
	wperf_buf_release(&body.b);
	wperf_buf_release(&note.b);
	free(r);
	return ret;
}

/* ---- JUnit XML ---- */

int wperf_check_junit(const struct wperf_check *c, struct wperf_buf *out)
{
	const struct wperf_verdict **v = calloc(c->n + 1, sizeof(*v));
	const char **errors = calloc(c->n + 1, sizeof(*errors));
	struct wperf_verdict *named = calloc(c->n + 1, sizeof(*named));
	int ret = v && errors && named ? 0 : -ENOMEM;

	for (size_t i = 0; i < c->n && !ret; i++) {
		const struct wperf_check_scenario *s = &c->scenarios[i];

		/* A scenario in error has a zeroed verdict: only its name is told. */
		named[i].scenario = s->name;
		v[i] = s->error ? &named[i] : &s->verdict;
		errors[i] = s->error ? (s->reason ? s->reason : "it could not run") : NULL;
	}
	if (!ret)
		ret = wperf_verdict_junit_errors(v, errors, c->n, out);
	free(v);
	free(errors);
	free(named);
	return ret;
}
