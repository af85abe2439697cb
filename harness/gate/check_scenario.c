/* SPDX-License-Identifier: MIT */
/*
 * One scenario of a check (see check_scenario.h): open its run sets, run them
 * look by look until the verdict is clear, close them, judge for the record.
 */
#include "harness/gate/check_scenario.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/gate/spending.h"
#include "harness/base/output.h"
#include "harness/base/progress.h"
#include "harness/gate/check_flame.h"
#include "harness/gate/head_settings.h"
#include "harness/run/run_set.h"

#define CHECK_LOOK_STEP 3
/* Steps after the first look by default: a vertex new in 70% of the head's
 * runs needs about 17 runs a side to fail a check of a dozen scenarios with
 * power 0.9 (bench/gate_rates.sh); a settled scenario stops before. */
#define CHECK_LOOK_STEPS 4

enum { BASE, HEAD };
static const char *const side_name[] = {"base", "head"};

/* Everything one scenario's check works with. */
struct check {
	const struct check_scenario_opts *o;
	int sides;		   /* 2 with a base, else 1 (the head only) */
	int fresh;		   /* a base without the scenario: the head alone */
	struct results r[2];	   /* the results folders, by side */
	struct run_set *set[2];	   /* open while the runs are made */
	struct wperf_baseline b;   /* the stored baseline; with a base, its accepted entries */
	char from[PATH_MAX + 128]; /* where the baseline came from, for people */
	struct gate_judging j;	   /* its alpha: the level of the look at hand */
	double alpha;		   /* the scenario's, over all its looks */
	double started;		   /* progress_now_s() when its runs began */
	unsigned first, looks;
	char base_scenario[PATH_MAX]; /* the base's copy of the scenario, with a base */
	struct wperf_buf changes;     /* what the head changes of its gate, a line each */
};

unsigned check_looks_count(const struct check_looks *l, unsigned first)
{
	unsigned step = l->step ? l->step : CHECK_LOOK_STEP;
	unsigned max = l->max ? l->max : first + CHECK_LOOK_STEPS * step;

	return max <= first ? 1 : 1 + (max - first + step - 1) / step;
}

unsigned check_looks_runs(const struct check_looks *l, unsigned first, unsigned k)
{
	unsigned step = l->step ? l->step : CHECK_LOOK_STEP;
	unsigned max = l->max ? l->max : first + CHECK_LOOK_STEPS * step;
	unsigned n = first + k * step;

	return n < max ? n : max < first ? first : max;
}

double check_looks_final_level(const struct check_looks *l, unsigned first, unsigned k,
			       double alpha)
{
	unsigned last = check_looks_runs(l, first, check_looks_count(l, first) - 1);

	return k ? alpha - wperf_spent_by(alpha,
					  (double)check_looks_runs(l, first, k - 1) / (double)last)
		 : alpha;
}

double check_looks_level(const struct check_looks *l, unsigned first, unsigned k, double alpha)
{
	unsigned last = check_looks_runs(l, first, check_looks_count(l, first) - 1);

	return wperf_look_level(alpha, k ? check_looks_runs(l, first, k - 1) : 0,
				check_looks_runs(l, first, k), last);
}

/* The runs per side at look k (from 0). */
static unsigned runs_at_look(const struct check *c, unsigned k)
{
	return check_looks_runs(&c->o->looks, c->first, k);
}

/* The base tree's copy of scenario, a file or a variant of one (FILE@...):
 * the file is looked up in the base, the selection kept. */
static int base_variant_path(const struct base_tree *t, const char *scenario, char *out,
			     size_t size, struct wperf_error *err)
{
	const char *at = strrchr(scenario, '@');
	char file[PATH_MAX];
	int e;

	if (!at || access(scenario, F_OK) == 0)
		return base_tree_path(t, scenario, out, size, err);
	snprintf(file, sizeof(file), "%.*s", (int)(at - scenario), scenario);
	e = base_tree_path(t, file, out, size, err);
	if (!e && strlen(out) + strlen(at) >= size)
		return wperf_error_set(err, -ENAMETOOLONG, "%s%s: path too long", out, at);
	if (!e)
		strcat(out, at);
	return e;
}

/* The results of an exported tree name its commit; the tree is no repository. */
static void name_commit(struct results *r, const struct base_tree *t)
{
	r->git = t->head;
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", t->commit);
	r->git.dirty = 0;
	r->git.branch[0] = '\0';
}

/*
 * The head's set first: its scenario says how many runs both sides make. A
 * scenario the change adds is not in the base commit: its head runs alone
 * (fresh), as the work tree's, and nothing is compared.
 */
static int open_sides(struct check *c, struct wperf_error *err)
{
	const struct check_scenario_opts *o = c->o;
	char folder[2][PATH_MAX], build[2][PATH_MAX];
	struct run_set_opts ro[2] = {0};
	/* A relative build folder is each tree's own. */
	const char *tree_build = o->build_dir && o->build_dir[0] != '/' ? o->build_dir : "build";
	int e = 0;

	if (o->base) {
		e = base_variant_path(o->base, o->scenario, c->base_scenario,
				      sizeof(c->base_scenario), err);
		c->fresh = e == -ENOENT && o->new_ok;
		if (e && !c->fresh)
			return e;
		e = 0;
		c->sides = c->fresh ? 1 : 2;
	}
	for (int i = BASE; i <= HEAD; i++) {
		if (c->sides == 2)
			snprintf(folder[i], sizeof(folder[i]), "%s/%s", o->dir, side_name[i]);
		else
			snprintf(folder[i], sizeof(folder[i]), "%s", o->dir);
		ro[i] = (struct run_set_opts){.results_dir = folder[i],
					      .quiet = o->quiet,
					      .label = c->sides == 2 ? side_name[i] : NULL};
	}
	ro[HEAD].scenario_path = o->scenario;
	ro[HEAD].build_dir = o->build_dir;
	ro[HEAD].defs = ro[BASE].defs = o->defs;
	if (o->base) {
		/* the work tree's path ends in '/', an exported tree's does not */
		ro[HEAD].workdir = o->head ? o->head->dir : git_repo_workdir(o->base->repo);
		snprintf(build[HEAD], sizeof(build[HEAD]), "%s%s%s", ro[HEAD].workdir,
			 o->head ? "/" : "", tree_build);
		if (!ro[HEAD].build_dir || o->build_dir[0] != '/')
			ro[HEAD].build_dir = build[HEAD];
	}
	if (c->sides == 2) {
		snprintf(build[BASE], sizeof(build[BASE]), "%s/%s", o->base->dir, tree_build);
		ro[BASE].workdir = o->base->dir;
		ro[BASE].build_dir = build[BASE];
		ro[BASE].scenario_path = c->base_scenario;
		/* the base decides the bar: its load, runs and gate for both sides */
		if (!o->trust_head)
			ro[HEAD].scenario_path = c->base_scenario;
	}
	e = run_set_open(&ro[HEAD], &c->r[HEAD], &c->set[HEAD], err);
	if (!e && c->sides == 2)
		e = run_set_open(&ro[BASE], &c->r[BASE], &c->set[BASE], err);
	if (e || !o->base)
		return e;
	if (c->sides == 2)
		name_commit(&c->r[BASE], o->base);
	if (o->head)
		name_commit(&c->r[HEAD], o->head);
	for (int i = c->sides == 2 ? BASE : HEAD; !e && i <= HEAD; i++)
		e = run_set_build(c->set[i], err);
	return e;
}

/* A scenario's file without a variant's selection (FILE@NAME=VALUE,...). */
static void file_part(const char *scenario, char *out, size_t size)
{
	char *at;

	snprintf(out, size, "%s", scenario);
	if (access(out, F_OK) < 0 && (at = strrchr(out, '@')))
		*at = '\0';
}

/* What the head's copies of its gate's files change against the base's: the
 * scenario file, and the accepted: entries of the stored baseline (head: the
 * work tree's, base: the base tree's). 0 or -ENOMEM. */
static int note_changes(struct check *c, const char *file, const char *head_baseline,
			const char *base_baseline)
{
	const char *root = git_repo_workdir(c->o->base->repo), *label;
	char head[PATH_MAX], base[PATH_MAX];
	int e;

	file_part(c->o->scenario, head, sizeof(head));
	file_part(c->base_scenario, base, sizeof(base));
	/* named as in the repository, as the baseline is */
	label = strncmp(head, root, strlen(root)) ? head : head + strlen(root);
	e = head_settings_diff(label, base, head, NULL, &c->changes);
	return e ? e
		 : head_settings_diff(file, base_baseline, head_baseline, "accepted", &c->changes);
}

/*
 * The baseline the head is judged against: without a base, the stored one;
 * with a base, only the accepted entries of a stored baseline count (people's
 * decisions hold): the base's, unless the head is trusted or the scenario is
 * new (then the head's).
 */
static int load_baseline(struct check *c, struct wperf_error *err)
{
	struct gate_baseline_src none = {0};
	struct wperf_error ignored = {0};
	char head[2 * PATH_MAX], base[2 * PATH_MAX], file[PATH_MAX];
	int e = 0;

	if (!c->o->base)
		return gate_load_baseline(c->o->baseline ? c->o->baseline : &none,
					  c->r[HEAD].scenario, &c->b, c->from, sizeof(c->from),
					  err);
	gate_baseline_file(c->o->baseline ? c->o->baseline : &none, c->r[HEAD].scenario, file,
			   sizeof(file));
	snprintf(head, sizeof(head), "%s%s",
		 file[0] == '/' ? "" : git_repo_workdir(c->o->base->repo), file);
	snprintf(base, sizeof(base), "%s%s%s", file[0] == '/' ? "" : c->o->base->dir,
		 file[0] == '/' ? "" : "/", file);
	if (c->sides == 2 && (e = note_changes(c, file, head, base)))
		return wperf_error_set(err, e, "out of memory");
	if (gate_read_baseline(c->sides == 2 && !c->o->trust_head ? base : head, &c->b, &ignored) <
	    0)
		memset(&c->b, 0, sizeof(c->b));
	else if (file[0] != '/')
		gate_accepted_origins(
		    c->o->base->repo,
		    c->sides == 2 && !c->o->trust_head ? c->o->base->commit : NULL, file, &c->b);
	return 0;
}

/* The baseline made from the base's runs (a fresh scenario's: its own), with
 * the accepted entries kept. */
static int base_baseline(struct check *c, struct wperf_baseline *out, struct wperf_error *err)
{
	const struct results *from = &c->r[c->fresh ? HEAD : BASE];
	int e = wperf_baseline_from_runs(&from->runs, c->r[HEAD].scenario, &from->env, out, err);

	if (!e && wperf_baseline_merge_accepted(out, &c->b) < 0)
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	if (e)
		wperf_baseline_release(out);
	return e;
}

/* Pair i (from 1): base first when i is odd, head first when it is even. */
static int run_pair(struct check *c, unsigned i, struct wperf_error *err)
{
	int e = 0;

	if (c->sides == 1)
		return run_set_next(c->set[HEAD], err);
	for (int k = 0; !e && k < 2; k++)
		e = run_set_next(c->set[(i % 2) ? k : 1 - k], err);
	return e;
}

/* The verdict on the runs so far, without writing anything. */
static int look(struct check *c, struct wperf_verdict *v, struct wperf_error *err)
{
	struct wperf_baseline made = {0};
	const struct wperf_baseline *b = &c->b;
	struct wperf_gate_opts g;
	char why[256];
	int e = 0;

	if (c->sides == 2) {
		e = base_baseline(c, &made, err);
		b = &made;
	}
	if (!e) {
		gate_options(&c->r[HEAD], b, &c->j, &g, why, sizeof(why));
		e = wperf_verdict(&c->r[HEAD].runs, b, &g, v, err);
	}
	wperf_baseline_release(&made);
	return e;
}

/* Would making want runs per side, at the pace of the done so far, end after
 * the check's deadline? */
static int over_budget(const struct check *c, unsigned done, unsigned want)
{
	double now = progress_now_s(), per_pair = (now - c->started) / (done ? done : 1);

	return c->o->deadline > 0 && now + per_pair * (want - done) > c->o->deadline;
}

/* Could the runs so far fail a vertex new to the bottleneck at level alpha
 * (the verdict's presence: a function of the runs' count and the level, not
 * of what they show)? A new scenario is compared with nothing: yes. */
static int can_fail_at(struct check *c, double alpha, int *yes, struct wperf_error *err)
{
	struct wperf_verdict v = {0};
	double level = c->j.alpha;
	int e;

	if (c->fresh) {
		*yes = 1;
		return 0;
	}
	c->j.alpha = alpha;
	e = look(c, &v, err);
	c->j.alpha = level;
	*yes = !e && v.presence > 0;
	wperf_verdict_release(&v);
	return e;
}

/*
 * Runs look after look until no finding is undecided or the last look is
 * done. Each look is judged at the part of the scenario's alpha that the
 * spending plan gives it (core/gate/spending.h); the look it stops at is the
 * level the final verdict is held to.
 *
 * The budget ends the looks early, but never before one whose runs could
 * fail a new vertex: at 5 runs a side none can (Fisher's test), and a
 * scenario cut there would pass having tested nothing (seven of CI's 17
 * were). It gets the runs that can, past the budget if need be.
 */
static int run_looks(struct check *c, struct wperf_error *err)
{
	unsigned done = 0;
	int e = 0, can_fail = 0;

	for (unsigned k = 0; !e && k < c->looks; k++) {
		unsigned want = runs_at_look(c, k);
		struct wperf_verdict v = {0};
		int clear, last = k + 1 == c->looks;

		if (k && can_fail && over_budget(c, done, want))
			break; /* judged at the last look's level */
		c->j.alpha =
		    c->fresh ? c->alpha : check_looks_level(&c->o->looks, c->first, k, c->alpha);
		for (int i = 0; i < c->sides; i++)
			run_set_plan(c->set[HEAD - i], want);
		while (!e && done < want)
			e = run_pair(c, ++done, err);
		/* No time for the next look: this one is the last, and spends what
		 * is left of the scenario's alpha (decided by the clock and the
		 * runs' count, not by what the runs say), if its runs can fail. */
		if (!e && !last && over_budget(c, done, runs_at_look(c, k + 1))) {
			double final =
			    c->fresh ? c->alpha
				     : check_looks_final_level(&c->o->looks, c->first, k, c->alpha);

			e = can_fail_at(c, final, &last, err);
			if (last)
				c->j.alpha = final;
		}
		if (e || last)
			break;
		e = look(c, &v, err);
		can_fail = !e && (c->fresh || v.presence > 0);
		clear = !e && wperf_verdict_settled(&v);
		wperf_verdict_release(&v);
		if (clear)
			break;
	}
	return e;
}

/* The final verdict, written into the head's folder (and base.yaml). */
static int judge(struct check *c, struct wperf_verdict *v, struct wperf_error *err)
{
	struct wperf_baseline made = {0};
	struct wperf_buf text = {0};
	char path[PATH_MAX];
	int e;

	if (!c->o->base)
		return gate_judge(&c->r[HEAD], &c->b, c->from, &c->j, v, err);
	e = base_baseline(c, &made, err);
	if (!e && c->fresh) {
		/* Its runs against themselves: nothing compared, the expected
		 * answer still checked. */
		snprintf(c->from, sizeof(c->from),
			 "none: the base commit %.12s has no such scenario (a new one)",
			 c->o->base->commit);
		e = gate_judge(&c->r[HEAD], &made, c->from, &c->j, v, err);
		wperf_baseline_release(&made);
		return e;
	}
	if (!e)
		e = wperf_baseline_write(&made, &text, err);
	snprintf(path, sizeof(path), "%s/base.yaml", c->o->dir);
	if (!e)
		e = output_write(path, text.data, text.len, err);
	snprintf(c->from, sizeof(c->from),
		 "%s: the base commit %.12s, %zu runs interleaved with these", path,
		 c->o->base->commit, c->r[BASE].runs.nruns);
	if (!e)
		e = gate_judge(&c->r[HEAD], &made, c->from, &c->j, v, err);
	wperf_buf_release(&text);
	wperf_baseline_release(&made);
	return e;
}

/* msg as one line, as summary.json's reason must be: a run's error quotes the
 * end of a log on the lines after "the end of FILE:"; each break becomes " / "
 * (a space after a colon), the trailing ones none. NULL when out of memory. */
static char *one_line(const char *msg)
{
	size_t len = strlen(msg);
	char *out, *o;

	while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
		len--;
	if (!(out = o = malloc(3 * len + 1)))
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (msg[i] != '\n') {
			*o++ = msg[i];
			continue;
		}
		while (i + 1 < len && msg[i + 1] == '\n')
			i++;
		if (o > out && o[-1] == ':')
			*o++ = ' ';
		else
			o += sprintf(o, " / ");
	}
	*o = '\0';
	return out;
}

/* One line on why the verdict is inconclusive, for the check's table. */
static char *inconclusive_reason(const struct wperf_verdict *v)
{
	struct wperf_buf b = {0};
	const struct wperf_finding *f = NULL;

	for (size_t i = 0; i < v->nfindings && !f; i++)
		if (v->findings[i].inconclusive)
			f = &v->findings[i];
	if (f && f->kind == WPERF_FINDING_EDGE)
		wperf_buf_printf(&b, "%s -> %s %+.0f%%: %s", f->from, f->to, f->change * 100,
				 f->note);
	else if (f && f->kind == WPERF_FINDING_VERTEX)
		wperf_buf_printf(&b, "%s in the bottleneck in %zu of %zu runs, was %zu of %zu: %s",
				 f->vertex, f->seen, f->runs, f->before_seen, f->before_runs,
				 f->note);
	else if (f)
		wperf_buf_printf(&b, "throughput %+.1f%%: %s", f->change * 100, f->note);
	else if (v->lossy_runs)
		wperf_buf_printf(&b, "%zu of %zu runs lost more events than the gate allows",
				 v->lossy_runs, v->runs);
	else if (v->unconfirmed_runs)
		wperf_buf_printf(&b, "%zu runs disagree with the kernel's own counters",
				 v->unconfirmed_runs);
	if (wperf_buf_append(&b, "", 1) < 0) {
		wperf_buf_release(&b);
		return NULL;
	}
	return (char *)b.data;
}

/* Where the head's waits changed, for a verdict with findings: a picture
 * and the stacks that grew, or a warning when the runs cannot give them (it
 * changes no verdict). */
static void flame(const struct check *c, struct wperf_check_scenario *out)
{
	struct wperf_error err = {0};

	if (check_flame(&c->r[BASE], &c->r[HEAD], c->o->dir, &out->growing, &out->ngrowing, &err) ==
	    0)
		out->flame = strdup(CHECK_FLAME_SVG);
	else
		fprintf(stderr, "wperf-bench: warning: no differential flame graph: %s\n", err.msg);
}

/* "synthetic-fig1" of "scenarios/synthetic-fig1.yaml": the name of a
 * scenario whose file could not be loaded. */
static char *file_stem(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return strndup(base, strcspn(base, "."));
}

int check_scenario(const struct check_scenario_opts *o, struct wperf_check_scenario *out,
		   struct wperf_error *err)
{
	struct check c = {.o = o, .sides = o->base ? 2 : 1};
	double t0;
	int e, fatal, oom;

	t0 = progress_now_s();
	memset(out, 0, sizeof(*out));
	e = open_sides(&c, err);
	if (!e)
		e = load_baseline(&c, err);
	if (!e) {
		unsigned min = c.r[HEAD].gate.min_runs ? (unsigned)c.r[HEAD].gate.min_runs
						       : WPERF_GATE_MIN_RUNS;

		c.first = o->looks.first ? o->looks.first : run_set_planned(c.set[HEAD]);
		if (c.first < min && !o->looks.first)
			c.first = min;
		c.looks = c.fresh ? 1 : check_looks_count(&o->looks, c.first);
		c.alpha = o->alpha > 0 ? o->alpha : WPERF_GATE_ALPHA;
		c.started = progress_now_s();
		if (c.sides == 2)
			c.j.base = &c.r[BASE];
		e = run_looks(&c, err);
	}
	/* The base's set was opened last: it closes first (signals are restored in turn). */
	for (int i = BASE; i <= HEAD; i++) {
		struct wperf_error close_err = {0};
		int x = run_set_close(c.set[i], e, NULL, e ? err : &close_err);

		if (x && !e)
			e = wperf_error_set(err, x, "%s", close_err.msg);
	}
	if (!e)
		e = judge(&c, &out->verdict, err);
	if (!e && c.sides == 2 && out->verdict.nfindings)
		flame(&c, out);
	fatal = e == -EINTR || e == -ENOMEM;
	out->name = c.r[HEAD].scenario[0] ? strdup(c.r[HEAD].scenario) : file_stem(o->scenario);
	out->dir = strdup(strrchr(o->dir, '/') ? strrchr(o->dir, '/') + 1 : o->dir);
	out->pairs = c.r[HEAD].runs.nruns;
	out->seconds = progress_now_s() - t0;
	if (e) {
		out->error = 1;
		out->reason = one_line(err->msg);
	} else if (out->verdict.kind == WPERF_VERDICT_INCONCLUSIVE) {
		out->reason = inconclusive_reason(&out->verdict);
	} else if (c.fresh) {
		out->reason = strdup("a new scenario: the base has none, so its runs are "
				     "compared with nothing (its expected answer is checked)");
	}
	oom = head_settings_lines(&c.changes, &out->settings_changed, &out->nsettings_changed) < 0;
	for (int i = BASE; i <= HEAD; i++)
		results_release(&c.r[i]);
	wperf_baseline_release(&c.b);
	wperf_buf_release(&c.changes);
	if (oom || !out->name || !out->dir || (e && !out->reason))
		return wperf_error_set(err, -ENOMEM, "out of memory");
	return fatal ? e : 0;
}
