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
	double x;

	if (isnan(t->f.p))
		return NAN; /* no test (fewer than min_runs): it could tell nothing */
	x = wperf_detectable_shift(t->sd, t->n, t->paired, alpha);
	return t->log_scale ? expm1(x) : x;
}

/* ---- the family: Holm's step-down with Tarone's divisor ---- */

/* Does t decide the verdict? The metrics, the expected answer and who is in
 * the bottleneck do; an edge only explains them. */
static int primary(const struct pending *t)
{
	return t->f.kind != WPERF_FINDING_EDGE;
}

/* One test of a family: its p in the family's direction, its floor there. */
struct family_test {
	double p, floor;
	size_t i; /* in the pending array */
};

static int cmp_family_test(const void *pa, const void *pb)
{
	const struct family_test *a = pa, *b = pb;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Tarone's divisor of the tests t[from..n) at level alpha: the smallest k such
 * that at most k of them could reach alpha / k. A test whose floor is above
 * that cannot be rejected, so it costs the others nothing. */
static size_t tarone_divisor(const struct family_test *t, size_t from, size_t n, double alpha)
{
	for (size_t k = 1;; k++) {
		size_t could = 0;

		for (size_t j = from; j < n; j++)
			could += t[j].floor <= alpha / (double)k;
		if (could <= k)
			return k;
	}
}

/*
 * Adjusts the p values of one family: the primaries or the edges (edge), in
 * one direction (worse: the gate's failures; else the improvements). Every
 * test of the family counts, in either direction: one whose change goes the
 * other way has a p of 1 here (it cannot be rejected; leaving it out would
 * let the direction the data took choose the family). Holm's step-down with
 * Tarone's divisor (Hommel and Krummenauer 1998): step j divides by the
 * divisor of the tests not yet rejected, not by their number, so a vertex
 * seen in too few runs to ever be significant does not dilute the level of
 * the rest. The adjusted p (q) is the running maximum of p * divisor, set on
 * the tests that go the family's way; rejecting q <= alpha is the procedure
 * at level alpha, whose chance of any false rejection is at most alpha. The
 * divisor depends on the level: with twice, the procedure at alpha into
 * q_twice (the inconclusive findings' level). Returns the first step's
 * divisor (0: no test), or -ENOMEM.
 */
static long adjust_family(struct pending *t, size_t n, int edge, int worse, double alpha, int twice)
{
	struct family_test *ft = calloc(n ? n : 1, sizeof(*ft));
	size_t m = 0, first = 0;
	double running = 0;

	if (!ft)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (primary(&t[i]) != edge && !isnan(t[i].f.p))
			ft[m++] = (struct family_test){.p = !t[i].f.worse == !worse ? t[i].f.p : 1,
						       .floor = t[i].floor[worse != 0],
						       .i = i};
	qsort(ft, m, sizeof(*ft), cmp_family_test);
	for (size_t j = 0; j < m; j++) {
		size_t k = tarone_divisor(ft, j, m, alpha);

		first = j ? first : k;
		running = fmax(running, fmin(1, ft[j].p * (double)k));
		if (!t[ft[j].i].f.worse == !worse && twice)
			t[ft[j].i].q_twice = running;
		else if (!t[ft[j].i].f.worse == !worse)
			t[ft[j].i].f.q = running;
	}
	free(ft);
	return (long)first;
}

/* ---- levels ---- */

static const char *what(const struct wperf_finding *f)
{
	if (f->kind == WPERF_FINDING_VERTEX)
		return "more runs have it in the bottleneck";
	if (f->kind == WPERF_FINDING_EXPECTATION)
		return "more runs miss the expected answer";
	return "worse";
}

/* What the scenario's primaries say, for the levels of the rest. */
struct judged {
	int metric_fails;  /* a metric (or the throughput) got worse beyond the noise */
	int cost_fails;	   /* the target's CPU time per operation did */
	int metric_better; /* one got better beyond the tolerance and the noise */
	int primary_fails; /* some primary fails (after the accepted entries) */
};

/* A primary test's change for the worse that passes the tolerance: FAIL
 * beyond the noise; inconclusive when it nearly is (the same family's
 * step-down at WPERF_GATE_INCONCLUSIVE times alpha rejects it: the same
 * budget, so --strict has a known rate) or when there is no test; undecided
 * (more runs settle it) while its own p is suggestive. */
static void classify_worse(struct gate *s, struct pending *t, const struct judged *j)
{
	struct wperf_finding *f = &t->f;
	double alpha = s->o.alpha, level = alpha / (double)(s->divisor ? s->divisor : 1);

	f->level = WPERF_LEVEL_WARN;
	if (f->q <= alpha && f->kind == WPERF_FINDING_VERTEX && !j->metric_fails &&
	    j->metric_better) {
		f->note =
		    gate_format("%s (q %.2g), but a measure of the load improved beyond the noise: "
				"the bottleneck moved, the code did not get slower",
				what(f), f->q);
		return;
	}
	if (s->o.numbers_inform &&
	    (f->kind == WPERF_FINDING_THROUGHPUT || f->kind == WPERF_FINDING_METRIC)) {
		f->note = gate_format("%s beyond the tolerance (%.0f%%) (p %.2g, q %.2g), against "
				      "a baseline not measured beside these runs: a drift of the "
				      "machine moves it as much as the code (check-perf --base "
				      "judges it)",
				      what(f), t->tol * 100, f->p, f->q);
		return;
	}
	if (f->q <= alpha && f->kind == WPERF_FINDING_THROUGHPUT && s->busier && !j->cost_fails) {
		f->inconclusive = f->undecided = 1;
		f->note = gate_format("worse beyond the tolerance (%.0f%%) and the noise (q %.2g), "
				      "but the target's CPU time per operation did not grow and "
				      "its time waiting for a CPU did: the machine was busier, not "
				      "the code slower",
				      t->tol * 100, f->q);
		return;
	}
	if (f->q <= alpha) {
		f->level = WPERF_LEVEL_FAIL;
		f->note =
		    gate_format("%s beyond the tolerance (%.0f%%) and the noise (q %.2g <= %.2g)",
				what(f), t->tol * 100, f->q, alpha);
		return;
	}
	f->inconclusive = isnan(f->p) || t->q_twice <= WPERF_GATE_INCONCLUSIVE * alpha;
	f->undecided = f->inconclusive || f->p < WPERF_GATE_SUGGESTIVE;
	if (f->undecided) {
		f->runs_needed = runs_needed(t, fabs(f->change), level, s->o.min_runs);
		f->note = gate_format("%s beyond the tolerance (%.0f%%), not yet beyond the noise: "
				      "about %zu runs per side would tell",
				      what(f), t->tol * 100, f->runs_needed);
	} else {
		f->note = gate_format("%s beyond the tolerance (%.0f%%), but within run-to-run "
				      "noise (p %.2g, q %.2g)",
				      what(f), t->tol * 100, f->p, f->q);
	}
}

/* The level of a test by the table in verdict.h; 0 when it is no finding. */
static int classify(struct gate *s, struct pending *t, const struct judged *j)
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
	} else if (beyond_tol && primary(t)) {
		classify_worse(s, t, j);
	} else if (beyond_tol && significant) {
		/* An edge explains a failure; alone, it is a change of shape. */
		f->level = j->primary_fails ? WPERF_LEVEL_FAIL : WPERF_LEVEL_WARN;
		f->note = gate_format(j->primary_fails
					  ? "grew beyond the tolerance (%.0f%%) and the noise (q "
					    "%.2g): part of the failure"
					  : "grew beyond the tolerance (%.0f%%) and the noise (q "
					    "%.2g), but neither a metric nor the bottleneck got "
					    "worse: it fails nothing",
				      t->tol * 100, f->q);
	} else if (f->kind == WPERF_FINDING_VERTEX && f->worse && f->p < WPERF_GATE_SUGGESTIVE) {
		/* A vertex new in the bottleneck of a minority of these runs may be
		 * in a majority of the runs to come: a share of runs is a noisy
		 * estimate (in 70% of them, 4 of 8 runs show it one time in five). */
		f->level = WPERF_LEVEL_WARN;
		f->undecided = 1;
		f->note = gate_format("in the bottleneck of %zu of %zu runs (%zu of %zu before), "
				      "not yet a majority (p %.2g): more runs tell whether it is",
				      f->seen, f->runs, f->before_seen, f->before_runs, f->p);
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
	f->note = a->origin ? gate_format("accepted in %s: %s", a->origin, a->reason)
			    : gate_format("accepted: %s", a->reason);
	f->level = WPERF_LEVEL_INFO;
	f->accepted = 1;
	f->inconclusive = f->undecided = 0;
}

/* Is t a metric's (or the throughput's) change beyond its tolerance and the
 * noise at level alpha, for the worse (worse) or the better? */
static int metric_moved(const struct pending *t, int worse, double alpha)
{
	const struct wperf_finding *f = &t->f;

	return (f->kind == WPERF_FINDING_THROUGHPUT || f->kind == WPERF_FINDING_METRIC) &&
	       !f->worse == !worse && fabs(f->change) > t->tol && f->q <= alpha;
}

/* Classifies test t (its level, or no finding) and takes it into the verdict. */
static int judge_one(struct gate *s, struct pending *t, const struct judged *j)
{
	struct wperf_finding *f = &t->f;
	const struct wperf_accepted *a = NULL;

	if (!classify(s, t, j)) {
		gate_release_finding(f);
		return 0;
	}
	if (f->kind == WPERF_FINDING_EDGE)
		a = accepted_edge(s->b, f->from, f->to);
	else if (f->kind == WPERF_FINDING_VERTEX)
		a = accepted_vertex(s->b, f->vertex);
	accept(f, a);
	if (!f->note) {
		gate_release_finding(f);
		return -ENOMEM;
	}
	return gate_add_finding(s, f);
}

/* How many of the runs a vertex that no run of the base has must be in to
 * fail, with one more test in the primaries' family: a majority (the
 * tolerance) that Fisher's test tells at the first step's level; 0 when no
 * share can. */
static size_t presence(const struct gate *s)
{
	size_t head = s->rs->nruns, base = s->o.base_runs ? s->o.base_runs->nruns : s->b->runs;
	double level = s->o.alpha / (double)(s->divisor + 1);

	if (head < s->o.min_runs || base < s->o.min_runs)
		return 0;
	for (size_t k = head / 2 + 1; k <= head; k++)
		if (wperf_fisher_greater_p(k, head, 0, base) <= level)
			return k;
	return 0;
}

/* The power of the runs: what they could tell against what they were to. */
static void power(struct gate *s)
{
	struct wperf_verdict *v = s->out;
	int measured = !s->o.structure_only && !s->o.numbers_inform &&
		       !isnan(v->throughput_after) && !isnan(v->throughput_before);

	v->detect = s->o.detect > 0 ? s->o.detect : s->o.throughput_tolerance;
	v->presence = presence(s);
	v->underpowered = !v->presence || (measured && !(v->detectable <= v->detect));
}

/* Does a finding already in the verdict fail (an expected answer most runs
 * missed, against a stored baseline)? */
static int verdict_fails(const struct wperf_verdict *v)
{
	for (size_t i = 0; i < v->nfindings; i++)
		if (v->findings[i].level == WPERF_LEVEL_FAIL)
			return 1;
	return 0;
}

/*
 * The pending tests as two families, adjusted each in both directions: the
 * primaries (they decide), then the edges (they explain a failure of the
 * primaries and never fail alone). The detectable changes at the primaries'
 * first level.
 */
int gate_judge_tests(struct gate *s)
{
	struct pending *t = (struct pending *)s->pending.data;
	size_t n = s->pending.len / sizeof(*t);
	double alpha = s->o.alpha;
	struct judged j = {0};
	long divisor = 0;
	int ret = 0;

	for (size_t i = 0; i < n; i++)
		t[i].f.q = t[i].q_twice = NAN;
	for (int edge = 0; edge < 2 && !ret; edge++)
		for (int worse = 0; worse < 2 && !ret; worse++) {
			long k = adjust_family(t, n, edge, worse, alpha, 0);

			ret = k < 0 ? (int)k : 0;
			divisor = !edge && worse ? k : divisor;
		}
	if (!ret) {
		long k = adjust_family(t, n, 0, 1, WPERF_GATE_INCONCLUSIVE * alpha, 1);

		ret = k < 0 ? (int)k : 0;
	}
	s->divisor = divisor > 0 ? (size_t)divisor : 0;
	for (size_t i = 0; i < n; i++) {
		s->out->tests += primary(&t[i]) && !isnan(t[i].f.p);
		j.metric_fails |= metric_moved(&t[i], 1, alpha) && !s->o.numbers_inform;
		j.cost_fails |= metric_moved(&t[i], 1, alpha) && t[i].f.metric &&
				!strcmp(t[i].f.metric, WPERF_GATE_COST_METRIC);
		j.metric_better |= metric_moved(&t[i], 0, alpha);
		t[i].f.detectable = detectable(&t[i], alpha / (double)(s->divisor + !s->divisor));
		if (t[i].f.kind == WPERF_FINDING_THROUGHPUT)
			s->out->detectable = t[i].f.detectable;
	}
	/* The primaries first: whether one fails decides what an edge is. */
	for (size_t i = 0; i < n; i++)
		if (primary(&t[i]))
			ret = ret ? (gate_release_finding(&t[i].f), ret) : judge_one(s, &t[i], &j);
	j.primary_fails = verdict_fails(s->out);
	power(s);
	for (size_t i = 0; i < n; i++)
		if (!primary(&t[i]))
			ret = ret ? (gate_release_finding(&t[i].f), ret) : judge_one(s, &t[i], &j);
	s->pending.len = 0;
	return ret;
}
