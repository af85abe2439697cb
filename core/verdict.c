/* SPDX-License-Identifier: MIT */
/*
 * The gate (see verdict.h for the rules): knots new and gone, edges and the
 * throughput against the tolerance and the run-to-run noise, the verdict.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "verdict.h"

/* What a comparison of two samples found about the noise. */
enum noise {
	NOISE_WITHIN,  /* enough runs, and the test finds no difference */
	NOISE_BEYOND,  /* enough runs and p < alpha, or few runs with apart ranges */
	NOISE_UNKNOWN, /* few runs whose ranges overlap, or a single run on a side */
};

struct gate {
	struct wperf_gate_opts o; /* with the defaults filled in */
	const struct wperf_runset *rs;
	const struct wperf_baseline *b;
	struct wperf_verdict *out;
	struct wperf_buf findings, warnings; /* the arrays of out, growing */
	double *after;			     /* scratch: one sample per run */
	double *zeros;			     /* the baseline samples of an edge it lacks */
	/* The baseline was measured on another CPU model or CPU count: a change in
	 * a measure may be the machine's, not the code's. */
	int other_machine;
};

static void defaults(const struct wperf_gate_opts *g, struct wperf_gate_opts *o)
{
	if (g)
		*o = *g;
	else
		memset(o, 0, sizeof(*o));
	if (o->edge_tolerance <= 0)
		o->edge_tolerance = WPERF_GATE_EDGE_TOLERANCE;
	if (o->throughput_tolerance <= 0)
		o->throughput_tolerance = WPERF_GATE_THROUGHPUT_TOLERANCE;
	if (o->warn_ratio == 0)
		o->warn_ratio = WPERF_GATE_WARN_RATIO;
	if (o->min_runs == 0)
		o->min_runs = WPERF_GATE_MIN_RUNS;
	if (o->max_lost == 0)
		o->max_lost = WPERF_GATE_MAX_LOST;
	if (o->alpha <= 0 || o->alpha >= 1)
		o->alpha = WPERF_GATE_ALPHA;
	if (o->edge_floor <= 0)
		o->edge_floor = WPERF_GATE_EDGE_FLOOR;
}

const char *wperf_verdict_name(enum wperf_verdict_kind kind)
{
	static const char *const names[] = {"pass", "improved", "new-bottleneck", "regression",
					    "inconclusive"};

	return (unsigned)kind < sizeof(names) / sizeof(*names) ? names[kind] : "unknown";
}

int wperf_verdict_exit_code(enum wperf_verdict_kind kind)
{
	return kind == WPERF_VERDICT_NEW_BOTTLENECK || kind == WPERF_VERDICT_REGRESSION;
}

static void release_finding(struct wperf_finding *f)
{
	wperf_idset_release(&f->knot);
	free(f->from);
	free(f->to);
	free(f->note);
	free(f->vertex);
	for (size_t i = 0; i < f->nsites; i++) {
		free(f->sites[i].waiter);
		free(f->sites[i].waker);
	}
	free(f->sites);
}

void wperf_verdict_release(struct wperf_verdict *v)
{
	for (size_t i = 0; i < v->nfindings; i++)
		release_finding(&v->findings[i]);
	free(v->findings);
	for (size_t i = 0; i < v->nwarnings; i++)
		free(v->warnings[i]);
	free(v->warnings);
	free(v->scenario);
	memset(v, 0, sizeof(*v));
}

/* printf into a new string; NULL when out of memory. */
static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *format(const char *fmt, ...)
{
	struct wperf_buf b = {0};
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || wperf_buf_reserve(&b, (size_t)n + 1) < 0)
		return NULL;
	va_start(ap, fmt);
	vsnprintf((char *)b.data, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return (char *)b.data;
}

/* Appends to an array of out kept in buf (see grow in baseline.c). */
static int grow(struct wperf_buf *buf, void *arr, size_t *n, const void *elem, size_t size)
{
	int ret = wperf_buf_append(buf, elem, size);

	if (ret)
		return ret;
	memcpy(arr, &buf->data, sizeof(buf->data));
	*n = buf->len / size;
	return 0;
}

/* Takes f (its strings) into the verdict; on error frees them instead. */
static int add_finding(struct gate *s, struct wperf_finding *f)
{
	int ret = grow(&s->findings, &s->out->findings, &s->out->nfindings, f, sizeof(*f));

	if (ret)
		release_finding(f);
	return ret;
}

/* Adds a warning made by format (NULL: out of memory). */
static int add_warning(struct gate *s, char *w)
{
	int ret =
	    w ? grow(&s->warnings, &s->out->warnings, &s->out->nwarnings, &w, sizeof(w)) : -ENOMEM;

	if (ret)
		free(w);
	return ret;
}

/* ---- warnings ---- */

static int warn_context(struct gate *s)
{
	const struct wperf_env *now = s->o.env, *then = &s->b->env;
	size_t n = s->rs->nruns, m = s->b->runs, lossy = 0;
	int ret = 0;

	if (now && now->kernel[0] && then->kernel[0] && strcmp(now->kernel, then->kernel))
		ret = add_warning(s, format("environment: the runs' kernel is %s, the baseline's "
					    "%s: compare with care",
					    now->kernel, then->kernel));
	if (!ret && now && now->cpus && then->cpus && now->cpus != then->cpus) {
		s->other_machine = 1;
		ret = add_warning(s, format("environment: the runs had %u CPUs, the baseline %u: "
					    "compare with care",
					    now->cpus, then->cpus));
	}
	if (!ret && now && now->cpu_model[0] && then->cpu_model[0] &&
	    strcmp(now->cpu_model, then->cpu_model)) {
		s->other_machine = 1;
		ret = add_warning(s, format("environment: the runs' CPU is %s, the baseline's "
					    "%s: compare with care",
					    now->cpu_model, then->cpu_model));
	}
	if (!ret && now && now->tool[0] && then->tool[0] && strcmp(now->tool, then->tool))
		ret = add_warning(s, format("environment: the runs were analyzed by %s, the "
					    "baseline by %s",
					    now->tool, then->tool));
	for (size_t i = 0; i < n; i++) {
		const struct wperf_run *r = &s->rs->runs[i];

		s->out->lost_events += r->lost_events;
		lossy += r->lost_events > 0;
		s->out->lossy_runs += s->o.max_lost >= 0 && r->lost_events &&
				      (double)r->lost_events >
					  s->o.max_lost * (double)(r->events + r->lost_events);
	}
	if (!ret && lossy)
		ret =
		    add_warning(s, format("%llu events were lost in %zu of %zu runs: their graphs "
					  "may miss waits",
					  (unsigned long long)s->out->lost_events, lossy, n));
	if (!ret && s->out->lossy_runs)
		ret = add_warning(s, format("%zu of %zu runs lost more than %g%% of their events: "
					    "the gate cannot pass on them. Record with larger "
					    "buffers or fewer stacks (record: stacks: kernel), "
					    "or raise gate: max_lost",
					    s->out->lossy_runs, n, 100 * s->o.max_lost));
	if (!ret && (n < s->o.min_runs || m < s->o.min_runs))
		ret = add_warning(s, format("%zu runs against a baseline of %zu: the noise test "
					    "needs %zu per side, so a change beyond the tolerance "
					    "fails only when the runs' ranges are apart",
					    n, m, s->o.min_runs));
	return ret;
}

/* ---- knots ---- */

/* Does every glob match a member, and every member match a glob? */
int wperf_accepted_matches_knot(const struct wperf_accepted *a, const struct wperf_idset *s)
{
	if (a->is_edge || !a->nglobs || !s->n)
		return 0;
	for (size_t i = 0; i < a->nglobs; i++) {
		size_t j = 0;

		while (j < s->n && fnmatch(a->globs[i], s->ids[j], 0))
			j++;
		if (j == s->n)
			return 0;
	}
	for (size_t j = 0; j < s->n; j++) {
		size_t i = 0;

		while (i < a->nglobs && fnmatch(a->globs[i], s->ids[j], 0))
			i++;
		if (i == a->nglobs)
			return 0;
	}
	return 1;
}

static const struct wperf_accepted *accepted_knot(const struct wperf_baseline *b,
						  const struct wperf_idset *k)
{
	for (size_t i = 0; i < b->naccepted; i++)
		if (wperf_accepted_matches_knot(&b->accepted[i], k))
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

static size_t runs_with_knot(const struct wperf_runset *rs, const struct wperf_idset *k)
{
	size_t seen = 0;

	for (size_t i = 0; i < rs->nruns; i++)
		seen += wperf_run_has_knot(&rs->runs[i], k);
	return seen;
}

/* Is one of a and b inside the other (both sorted)? */
static int idset_nested(const struct wperf_idset *a, const struct wperf_idset *b)
{
	const struct wperf_idset *small = a->n <= b->n ? a : b, *big = a->n <= b->n ? b : a;
	size_t j = 0;

	for (size_t i = 0; i < small->n; i++) {
		while (j < big->n && strcmp(big->ids[j], small->ids[i]) < 0)
			j++;
		if (j == big->n || strcmp(big->ids[j], small->ids[i]))
			return 0;
	}
	return 1;
}

/* Runs with k, or a knot that k contains or that contains k. */
static size_t runs_with_nested_knot(const struct wperf_runset *rs, const struct wperf_idset *k)
{
	size_t seen = 0;

	for (size_t i = 0; i < rs->nruns; i++) {
		int found = 0;

		for (size_t j = 0; j < rs->runs[i].nknots && !found; j++)
			found = idset_nested(&rs->runs[i].knots[j], k);
		seen += found;
	}
	return seen;
}

static int baseline_has_knot(const struct wperf_baseline *b, const struct wperf_idset *k)
{
	for (size_t i = 0; i < b->nknots; i++)
		if (!wperf_idset_cmp(&b->knots[i].vertices, k))
			return 1;
	return 0;
}

static struct wperf_finding knot_finding(enum wperf_finding_kind kind)
{
	struct wperf_finding f = {.kind = kind};

	f.before = f.after = f.change = f.p = NAN;
	f.before_lo = f.before_hi = f.after_lo = f.after_hi = NAN;
	return f;
}

/* New knots: in most runs, not in the baseline. */
static int new_knots(struct gate *s)
{
	const struct wperf_runset *rs = s->rs;

	for (size_t r = 0; r < rs->nruns; r++) {
		for (size_t k = 0; k < rs->runs[r].nknots; k++) {
			const struct wperf_idset *knot = &rs->runs[r].knots[k];
			const struct wperf_accepted *a;
			struct wperf_finding f = knot_finding(WPERF_FINDING_NEW_KNOT);
			int counted = 0, ret;

			/* Each distinct knot once: at the first run that has it. */
			for (size_t p = 0; p < r && !counted; p++)
				counted = wperf_run_has_knot(&rs->runs[p], knot);
			for (size_t j = 0; j < k && !counted; j++)
				counted = !wperf_idset_cmp(&rs->runs[r].knots[j], knot);
			if (counted)
				continue;
			f.seen = runs_with_knot(rs, knot);
			f.runs = rs->nruns;
			if (2 * f.seen <= rs->nruns || baseline_has_knot(s->b, knot))
				continue;
			f.worse = 1;
			a = accepted_knot(s->b, knot);
			if (a) {
				f.level = WPERF_LEVEL_INFO;
				f.accepted = 1;
				f.note = format("accepted: %s", a->reason);
			} else {
				f.level = WPERF_LEVEL_FAIL;
				f.note =
				    format("a knot the baseline does not have, in %zu of %zu runs",
					   f.seen, f.runs);
			}
			ret = f.note ? wperf_idset_copy(knot, &f.knot) : -ENOMEM;
			if (ret) {
				release_finding(&f);
				return ret;
			}
			if ((ret = add_finding(s, &f)))
				return ret;
		}
	}
	return 0;
}

/*
 * Knots gone: in most baseline runs, and fewer than half of the runs have it or
 * a knot nested with it. A member that joins a knot in some runs and not in
 * others (a kernel worker near the threshold) is noise, not an improvement.
 */
static int gone_knots(struct gate *s)
{
	for (size_t i = 0; i < s->b->nknots; i++) {
		const struct wperf_baseline_knot *bk = &s->b->knots[i];
		struct wperf_finding f = knot_finding(WPERF_FINDING_KNOT_GONE);
		int ret;

		if (2 * bk->seen <= s->b->runs)
			continue;
		f.runs = s->rs->nruns;
		if (2 * runs_with_nested_knot(s->rs, &bk->vertices) >= f.runs)
			continue;
		f.seen = runs_with_knot(s->rs, &bk->vertices);
		f.note = format("a baseline knot (in %zu of %zu baseline runs), now in %zu of %zu",
				bk->seen, s->b->runs, f.seen, f.runs);
		ret = f.note ? wperf_idset_copy(&bk->vertices, &f.knot) : -ENOMEM;
		if (ret) {
			release_finding(&f);
			return ret;
		}
		if ((ret = add_finding(s, &f)))
			return ret;
	}
	return 0;
}

/* ---- edges and the throughput ---- */

/* The runs per side that could tell a difference of delta in samples as noisy as
 * a and b: the two-sample estimate 2 ((z_(1 - alpha/2) + z_0.8) sd / delta)^2, at
 * 80% power, with the pooled standard deviation; at least min_runs. */
static size_t runs_needed(const double *a, size_t na, const double *b, size_t nb, double delta,
			  const struct wperf_gate_opts *o)
{
	double ss = 0, dof = 0, n;

	if (na >= 2) {
		ss += pow(wperf_stddev(a, na), 2) * (double)(na - 1);
		dof += (double)(na - 1);
	}
	if (nb >= 2) {
		ss += pow(wperf_stddev(b, nb), 2) * (double)(nb - 1);
		dof += (double)(nb - 1);
	}
	if (dof == 0 || !(delta > 0))
		return o->min_runs;
	n = (wperf_normal_quantile(1 - o->alpha / 2) + wperf_normal_quantile(0.8)) *
	    sqrt(ss / dof) / delta;
	n = ceil(2 * n * n);
	if (n > 1000)
		return 1000;
	return n > (double)o->min_runs ? (size_t)n : o->min_runs;
}

/* The chance that nb and na samples of one distribution fall into ranges
 * apart, one side wholly above the other: 2 / C(nb + na, nb). */
static double ranges_apart_chance(size_t nb, size_t na)
{
	double ways = 1;

	for (size_t i = 1; i <= nb; i++)
		ways = ways * (double)(na + i) / (double)i;
	return 2 / ways;
}

/*
 * Compares before (the baseline's samples) with after (the runs') and fills in
 * f's medians, ranges, change (relative to ref), p; returns what the noise says.
 */
static enum noise measure(const double *before, size_t nb, const double *after, size_t na,
			  double ref, const struct wperf_gate_opts *o, struct wperf_finding *f)
{
	f->before = wperf_median(before, nb);
	f->after = wperf_median(after, na);
	wperf_range(before, nb, &f->before_lo, &f->before_hi);
	wperf_range(after, na, &f->after_lo, &f->after_hi);
	f->change = (f->after - f->before) / ref;
	f->p = wperf_mann_whitney_p(before, nb, after, na);
	if (nb >= o->min_runs && na >= o->min_runs)
		return f->p < o->alpha ? NOISE_BEYOND : NOISE_WITHIN;
	if (nb < 2 || na < 2 || (f->after_lo <= f->before_hi && f->before_lo <= f->after_hi))
		return NOISE_UNKNOWN;
	/* Ranges apart happen by chance too: with 2 runs a side, once in 3. */
	return ranges_apart_chance(nb, na) < o->alpha ? NOISE_BEYOND : NOISE_UNKNOWN;
}

/*
 * The level of a change by the table in verdict.h; 0 when it is not worth a
 * finding. worse: the change is for the worse.
 */
static int classify(struct gate *s, struct wperf_finding *f, enum noise noise, double tol,
		    const double *before, size_t nb, const double *after, size_t na)
{
	double size = fabs(f->change);
	int beyond_tol = size > tol;
	int warn = s->o.warn_ratio > 0 && size > s->o.warn_ratio * tol;

	if (!f->worse) {
		if (!beyond_tol || noise != NOISE_BEYOND)
			return 0;
		f->level = WPERF_LEVEL_INFO;
		f->note = format("better beyond the tolerance (%.0f%%) and the noise", tol * 100);
		return 1;
	}
	if (beyond_tol && noise == NOISE_BEYOND && s->other_machine) {
		/* A measure is the machine's as much as the code's: only a new knot
		 * (a change of shape) may fail against another machine's baseline. */
		f->level = WPERF_LEVEL_WARN;
		f->inconclusive = 1;
		f->note = format("worse beyond the tolerance (%.0f%%) and the noise, but the "
				 "baseline is from another machine: compare on one machine "
				 "(or update the baseline here)",
				 tol * 100);
	} else if (beyond_tol && noise == NOISE_BEYOND) {
		f->level = WPERF_LEVEL_FAIL;
		f->note = format("worse beyond the tolerance (%.0f%%) and the noise", tol * 100);
	} else if (beyond_tol && noise == NOISE_UNKNOWN) {
		f->level = WPERF_LEVEL_WARN;
		f->inconclusive = 1;
		f->runs_needed =
		    runs_needed(before, nb, after, na, fabs(f->after - f->before), &s->o);
		f->note = format("worse beyond the tolerance (%.0f%%), but too few runs to tell it "
				 "from noise: add runs (%zu per side)",
				 tol * 100, f->runs_needed);
	} else if (beyond_tol) {
		f->level = WPERF_LEVEL_WARN;
		f->note = format("worse beyond the tolerance (%.0f%%), but within run-to-run noise",
				 tol * 100);
	} else if (warn && noise == NOISE_BEYOND) {
		f->level = WPERF_LEVEL_WARN;
		f->note = format("worse beyond the warning level (%.0f%%), within the tolerance "
				 "(%.0f%%)",
				 s->o.warn_ratio * tol * 100, tol * 100);
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
	f->note = format("accepted: %s", a->reason);
	f->level = WPERF_LEVEL_INFO;
	f->accepted = 1;
	f->inconclusive = 0;
}

static int compare_edge(struct gate *s, const char *from, const char *to)
{
	const struct wperf_baseline_edge *be = wperf_baseline_edge(s->b, from, to);
	const double *before = be ? be->samples : s->zeros;
	size_t nb = s->b->runs, na = s->rs->nruns;
	struct wperf_finding f = {.kind = WPERF_FINDING_EDGE};
	enum noise noise;

	for (size_t i = 0; i < na; i++)
		s->after[i] = wperf_run_edge_share(&s->rs->runs[i], from, to);
	f.before = wperf_median(before, nb);
	f.after = wperf_median(s->after, na);
	if (f.before < s->o.edge_floor && f.after < s->o.edge_floor)
		return 0; /* too light to matter either way */
	noise = measure(before, nb, s->after, na, fmax(f.before, s->o.edge_floor), &s->o, &f);
	f.worse = f.after > f.before;
	if (!classify(s, &f, noise, s->o.edge_tolerance, before, nb, s->after, na))
		return 0;
	accept(&f, accepted_edge(s->b, from, to));
	f.from = strdup(from);
	f.to = strdup(to);
	if (!f.note || !f.from || !f.to) {
		release_finding(&f);
		return -ENOMEM;
	}
	return add_finding(s, &f);
}

static int cmp_pair(const void *pa, const void *pb)
{
	const char *const *a = pa, *const *b = pb;
	int c = strcmp(a[0], b[0]);

	return c ? c : strcmp(a[1], b[1]);
}

/* Every edge of the baseline or of a run, once. */
static int compare_edges(struct gate *s)
{
	struct wperf_buf pairs = {0}; /* const char *[2] */
	const char **p;
	size_t n;
	int ret = 0;

	for (size_t i = 0; i < s->b->nedges && !ret; i++) {
		const char *pair[2] = {s->b->edges[i].from, s->b->edges[i].to};

		ret = wperf_buf_append(&pairs, pair, sizeof(pair));
	}
	for (size_t r = 0; r < s->rs->nruns; r++)
		for (size_t i = 0; i < s->rs->runs[r].nedges && !ret; i++) {
			const char *pair[2] = {s->rs->runs[r].edges[i].from,
					       s->rs->runs[r].edges[i].to};

			ret = wperf_buf_append(&pairs, pair, sizeof(pair));
		}
	p = (const char **)pairs.data;
	n = pairs.len / (2 * sizeof(*p));
	if (!ret && n)
		qsort(p, n, 2 * sizeof(*p), cmp_pair);
	for (size_t i = 0; i < n && !ret; i++)
		if (i == 0 || cmp_pair(&p[2 * (i - 1)], &p[2 * i]))
			ret = compare_edge(s, p[2 * i], p[2 * i + 1]);
	wperf_buf_release(&pairs);
	return ret;
}

static int compare_throughput(struct gate *s)
{
	struct wperf_finding f = {.kind = WPERF_FINDING_THROUGHPUT};
	const struct wperf_baseline *b = s->b;
	size_t na = 0;
	enum noise noise;

	for (size_t i = 0; i < s->rs->nruns; i++)
		if (!isnan(s->rs->runs[i].throughput))
			s->after[na++] = s->rs->runs[i].throughput;
	s->out->throughput_before = wperf_median(b->throughput, b->nthroughput);
	s->out->throughput_after = wperf_median(s->after, na);
	if (!na && !b->nthroughput)
		return 0;
	if (!na || !b->nthroughput)
		return add_warning(s, format("the throughput is not compared: %s",
					     na ? "the baseline has none" : "no run measured it"));
	f.before = wperf_median(b->throughput, b->nthroughput);
	if (f.before == 0)
		return add_warning(s, format("the throughput is not compared: the baseline's "
					     "median is 0"));
	noise = measure(b->throughput, b->nthroughput, s->after, na, fabs(f.before), &s->o, &f);
	f.worse = s->o.lower_is_better ? f.change > 0 : f.change < 0;
	if (!classify(s, &f, noise, s->o.throughput_tolerance, b->throughput, b->nthroughput,
		      s->after, na))
		return 0;
	if (!f.note) {
		release_finding(&f);
		return -ENOMEM;
	}
	return add_finding(s, &f);
}

/* ---- the verdict ---- */

static int kind_rank(enum wperf_finding_kind k)
{
	static const int rank[] = {[WPERF_FINDING_NEW_KNOT] = 0,
				   [WPERF_FINDING_THROUGHPUT] = 1,
				   [WPERF_FINDING_EDGE] = 2,
				   [WPERF_FINDING_KNOT_GONE] = 3};

	return rank[k];
}

/* Failures first, then inconclusive, warnings, information; the biggest change
 * first; then by name, so that the order never depends on qsort. */
static int cmp_finding(const void *pa, const void *pb)
{
	const struct wperf_finding *a = pa, *b = pb;
	double ca = isnan(a->change) ? 0 : fabs(a->change);
	double cb = isnan(b->change) ? 0 : fabs(b->change);
	int c;

	if (a->level != b->level)
		return a->level > b->level ? -1 : 1;
	if (a->inconclusive != b->inconclusive)
		return a->inconclusive ? -1 : 1;
	if (kind_rank(a->kind) != kind_rank(b->kind))
		return kind_rank(a->kind) - kind_rank(b->kind);
	if (ca != cb)
		return ca > cb ? -1 : 1;
	if (a->kind == WPERF_FINDING_EDGE) {
		c = strcmp(a->from, b->from);
		return c ? c : strcmp(a->to, b->to);
	}
	return wperf_idset_cmp(&a->knot, &b->knot);
}

static enum wperf_verdict_kind decide(const struct wperf_verdict *v)
{
	int fail = 0, new_knot = 0, unsure = 0, better = 0;

	for (size_t i = 0; i < v->nfindings; i++) {
		const struct wperf_finding *f = &v->findings[i];

		fail |= f->level == WPERF_LEVEL_FAIL;
		new_knot |= f->level == WPERF_LEVEL_FAIL && f->kind == WPERF_FINDING_NEW_KNOT;
		unsure |= f->inconclusive;
		better |= f->kind == WPERF_FINDING_KNOT_GONE ||
			  (f->kind == WPERF_FINDING_THROUGHPUT && !f->worse);
	}
	if (new_knot)
		return WPERF_VERDICT_NEW_BOTTLENECK;
	if (fail)
		return WPERF_VERDICT_REGRESSION;
	if (unsure || v->lossy_runs)
		return WPERF_VERDICT_INCONCLUSIVE;
	return better ? WPERF_VERDICT_IMPROVED : WPERF_VERDICT_PASS;
}

int wperf_verdict(const struct wperf_runset *rs, const struct wperf_baseline *b,
		  const struct wperf_gate_opts *g, struct wperf_verdict *out,
		  struct wperf_error *err)
{
	struct gate s = {.rs = rs, .b = b, .out = out};
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!rs->nruns)
		return wperf_error_set(err, -EINVAL, "no runs to compare with the baseline");
	if (!b->runs)
		return wperf_error_set(err, -EINVAL, "the baseline has no runs");
	defaults(g, &s.o);
	out->runs = rs->nruns;
	out->throughput_before = out->throughput_after = NAN;
	out->baseline_runs = b->runs;
	snprintf(out->unit, sizeof(out->unit), "%s", rs->unit[0] || !b->unit ? rs->unit : b->unit);
	out->scenario = strdup(b->scenario ? b->scenario : "");
	s.after = calloc(rs->nruns, sizeof(*s.after));
	s.zeros = calloc(b->runs, sizeof(*s.zeros));
	if (out->scenario && s.after && s.zeros) {
		ret = warn_context(&s);
		ret = ret ? ret : new_knots(&s);
		ret = ret ? ret : gone_knots(&s);
		ret = ret ? ret : compare_edges(&s);
		ret = ret ? ret : compare_throughput(&s);
	}
	free(s.after);
	free(s.zeros);
	if (ret) {
		wperf_verdict_release(out);
		return wperf_error_set(err, ret, "out of memory while comparing with the baseline");
	}
	if (out->nfindings)
		qsort(out->findings, out->nfindings, sizeof(*out->findings), cmp_finding);
	out->kind = decide(out);
	return 0;
}
