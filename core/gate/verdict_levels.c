/* SPDX-License-Identifier: MIT */
/*
 * The levels of the gate's findings (see verdict.h): the tests as one family,
 * their p values adjusted together, then each one's level from its change,
 * its noise and the runs it would need; the baseline's accepted entries.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/verdict_internal.h"

/* Does each of names match some of globs (each of globs some of names, when
 * names_are_globs)? */
static int each_matched(char *const *names, size_t nnames, char *const *globs, size_t nglobs,
			int names_are_globs)
{
	for (size_t i = 0; i < nnames; i++) {
		size_t j = 0;

		while (j < nglobs && fnmatch(names_are_globs ? names[i] : globs[j],
					     names_are_globs ? globs[j] : names[i], 0))
			j++;
		if (j == nglobs)
			return 0;
	}
	return 1;
}

/* Does every glob match a member, and every member match a glob? */
int wperf_accepted_matches_knot(const struct wperf_accepted *a, const struct wperf_idset *s)
{
	if (a->is_edge || !a->nglobs || !s->n)
		return 0;
	return each_matched(a->globs, a->nglobs, s->ids, s->n, 1) &&
	       each_matched(s->ids, s->n, a->globs, a->nglobs, 0);
}

/* An accepted knot entry one of whose globs names vertex: a known member of
 * the bottleneck. */
static const struct wperf_accepted *accepted_vertex(const struct wperf_baseline *b,
						    const char *vertex)
{
	for (size_t i = 0; i < b->naccepted; i++)
		for (size_t g = 0; !b->accepted[i].is_edge && g < b->accepted[i].nglobs; g++)
			if (!fnmatch(b->accepted[i].globs[g], vertex, 0))
				return &b->accepted[i];
	return NULL;
}

static const struct wperf_accepted *accepted_edge(const struct wperf_baseline *b, const char *from,
						  const char *to)
{
	for (size_t i = 0; i < b->naccepted; i++) {
		const struct wperf_accepted *a = &b->accepted[i];

		if (a->is_edge && a->nglobs == 2 && !fnmatch(a->globs[0], from, 0) &&
		    !fnmatch(a->globs[1], to, 0))
			return a;
	}
	return NULL;
}

/* The runs per side at which a vertex seen in the shares of runs it is now
 * seen in would pass Fisher's test at level alpha; 1000 when none would. */
static size_t vertex_runs_needed(const struct wperf_finding *f, double alpha, size_t min_runs)
{
	double after = f->after, before = f->before;

	for (size_t n = min_runs; n < 1000; n++) {
		size_t a = (size_t)lround(after * (double)n),
		       b = (size_t)lround(before * (double)n);

		if (wperf_fisher_greater_p(a, n, b, n) <= alpha)
			return n;
	}
	return 1000;
}

/* The runs per side (pairs, when paired) that could tell a change of delta
 * from noise of spread sd with a one-sided test at level alpha with 80%
 * power; at least min_runs. */
static size_t runs_needed(const struct pending *t, double delta, double alpha, size_t min_runs)
{
	double z = wperf_normal_quantile(1 - alpha) + wperf_normal_quantile(0.8), n;

	if (t->f.kind == WPERF_FINDING_VERTEX || t->f.kind == WPERF_FINDING_EXPECTATION)
		return vertex_runs_needed(&t->f, alpha, min_runs);
	if (!(t->sd > 0) || !(delta > 0))
		return min_runs;
	n = ceil((t->paired ? 1 : 2) * pow(z * t->sd / delta, 2));
	if (n > 1000)
		return 1000;
	return n > (double)min_runs ? (size_t)n : min_runs;
}

/* The smallest change the runs could have told from noise with a one-sided
 * test at level alpha with 80% power (relative, or a ratio on the log scale). */
static double detectable(const struct pending *t, double alpha)
{
	double df, x;

	if (!(t->sd >= 0) || t->n < 2 || isnan(t->f.p))
		return NAN; /* no test (fewer than min_runs): it could tell nothing */
	df = t->paired ? (double)(t->n - 1) : (double)(2 * t->n - 2);
	x = (wperf_student_t_quantile(1 - alpha, df) + wperf_student_t_quantile(0.8, df)) * t->sd *
	    sqrt((t->paired ? 1.0 : 2.0) / (double)t->n);
	return t->log_scale ? expm1(x) : x;
}

static const char *what(const struct wperf_finding *f)
{
	if (f->kind == WPERF_FINDING_VERTEX)
		return "more runs have it in the bottleneck";
	if (f->kind == WPERF_FINDING_EXPECTATION)
		return "more runs miss the expected answer";
	return "worse";
}

/* The level of a test by the table in verdict.h; 0 when it is no finding. */
static int classify(struct gate *s, struct pending *t)
{
	struct wperf_finding *f = &t->f;
	double size = fabs(f->change), alpha = s->o.alpha;
	int beyond_tol = size > t->tol, significant = f->q <= alpha;
	int warn = s->o.warn_ratio > 0 && size > s->o.warn_ratio * t->tol;

	if (!f->worse) {
		if (!beyond_tol || !significant)
			return 0;
		f->level = WPERF_LEVEL_INFO;
		f->note = gate_format("better beyond the tolerance and the noise (q %.2g)", f->q);
		return 1;
	}
	if (beyond_tol && significant) {
		f->level = WPERF_LEVEL_FAIL;
		f->note =
		    gate_format("%s beyond the tolerance (%.0f%%) and the noise (q %.2g <= %.2g)",
				what(f), t->tol * 100, f->q, alpha);
	} else if (beyond_tol && (isnan(f->p) || f->p < WPERF_GATE_SUGGESTIVE)) {
		/* Too few runs, or a difference the runs suggest and cannot yet
		 * show over the family of tests: more runs settle it. */
		f->level = WPERF_LEVEL_WARN;
		f->inconclusive = 1;
		f->runs_needed = runs_needed(t, size, alpha, s->o.min_runs);
		f->note = gate_format("%s beyond the tolerance (%.0f%%), not yet beyond the noise: "
				      "about %zu runs per side would tell",
				      what(f), t->tol * 100, f->runs_needed);
	} else if (beyond_tol) {
		f->level = WPERF_LEVEL_WARN;
		f->note =
		    gate_format("%s beyond the tolerance (%.0f%%), but within run-to-run noise "
				"(p %.2g)",
				what(f), t->tol * 100, f->p);
	} else if (warn && significant) {
		f->level = WPERF_LEVEL_WARN;
		f->note = gate_format("%s beyond the warning level (%.0f%%), within the tolerance "
				      "(%.0f%%)",
				      what(f), s->o.warn_ratio * t->tol * 100, t->tol * 100);
	} else {
		return 0;
	}
	return 1;
}

/* Turns an accepted failure or warning into information. */
static void accept(struct wperf_finding *f, const struct wperf_accepted *a)
{
	if (!a || f->level == WPERF_LEVEL_INFO)
		return;
	free(f->note);
	f->note = gate_format("accepted: %s", a->reason);
	f->level = WPERF_LEVEL_INFO;
	f->accepted = 1;
	f->inconclusive = 0;
}

/* Adjusts the p values of every test over the scenario, then keeps the tests
 * that are findings. */
int gate_judge_tests(struct gate *s)
{
	struct pending *t = (struct pending *)s->pending.data;
	size_t n = s->pending.len / sizeof(*t);
	double *p = calloc(n ? n : 1, sizeof(*p)), *q = calloc(n ? n : 1, sizeof(*q));
	double detect[2] = {NAN, NAN};
	int ret = p && q ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < n; i++)
		p[i] = t[i].f.p;
	if (!ret)
		wperf_bh_adjust(p, n, q);
	for (size_t i = 0; i < n; i++)
		s->out->tests += !isnan(p[i]);
	for (size_t i = 0; i < n; i++) {
		struct wperf_finding *f = &t[i].f;
		const struct wperf_accepted *a = NULL;

		f->q = q && !ret ? q[i] : NAN;
		/* The worst case of the adjustment: the first of m tests. */
		f->detectable =
		    detectable(&t[i], s->o.alpha / (double)(s->out->tests + !s->out->tests));
		if (f->kind == WPERF_FINDING_THROUGHPUT)
			detect[0] = f->detectable;
		if (ret || !classify(s, &t[i])) {
			gate_release_finding(f);
			continue;
		}
		if (f->kind == WPERF_FINDING_EDGE)
			a = accepted_edge(s->b, f->from, f->to);
		else if (f->kind == WPERF_FINDING_VERTEX)
			a = accepted_vertex(s->b, f->vertex);
		accept(f, a);
		ret = f->note ? gate_add_finding(s, f) : -ENOMEM;
		if (ret && !f->note)
			gate_release_finding(f);
	}
	s->out->detectable = detect[0];
	s->pending.len = 0;
	free(p);
	free(q);
	return ret;
}
