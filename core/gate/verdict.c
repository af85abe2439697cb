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

#include "core/gate/stats.h"
#include "core/gate/verdict.h"

/* A comparison made, waiting for the scenario's adjustment of its p values. */
struct pending {
	struct wperf_finding f; /* medians, change, p; level and note come later */
	double tol;		/* beyond it the change matters */
	double sd;		/* of the differences (paired) or pooled; NaN: unknown */
	size_t n;		/* pairs, or the smaller side's runs */
	int paired;
	int log_scale; /* sd is of log values: the change is exp(x) - 1 */
};

struct gate {
	struct wperf_gate_opts o; /* with the defaults filled in */
	const struct wperf_runset *rs;
	const struct wperf_baseline *b;
	struct wperf_verdict *out;
	struct wperf_buf findings, warnings; /* the arrays of out, growing */
	struct wperf_buf pending;	     /* struct pending: every test of the scenario */
	double *after, *before;		     /* scratch: one sample per run */
	double *zeros;			     /* the baseline samples of an edge it lacks */
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

/* The first phrase of a run of rs that a check leaves unconfirmed, or NULL. */
static const char *first_unconfirmed(const struct wperf_runset *rs)
{
	for (size_t i = 0; rs && i < rs->nruns; i++)
		if (wperf_run_checks_warn(&rs->runs[i]) && rs->runs[i].checks_first)
			return rs->runs[i].checks_first;
	return NULL;
}

/* The runs whose graphs the kernel's counters contradict, on both sides. */
static int warn_unconfirmed(struct gate *s)
{
	const struct wperf_runset *base = s->o.base_runs;
	size_t head = wperf_runset_runs_warned(s->rs),
	       before = base ? wperf_runset_runs_warned(base) : 0;
	const char *first = first_unconfirmed(s->rs);

	s->out->unconfirmed_runs = head + before;
	if (!s->out->unconfirmed_runs)
		return 0;
	first = first ? first : first_unconfirmed(base);
	return add_warning(
	    s, format("%zu of %zu runs%s disagree with the kernel's own counters (%s%s): their "
		      "graphs are not confirmed, so the gate cannot pass on them",
		      s->out->unconfirmed_runs, s->rs->nruns + (base ? base->nruns : 0),
		      base ? " of the two sides" : "",
		      first ? "the first: " : "see the checks of each run's report.txt",
		      first ? first : ""));
}

static int warn_context(struct gate *s)
{
	const struct wperf_env *now = s->o.env, *then = &s->b->env;
	size_t n = s->rs->nruns, m = s->b->runs, lossy = 0;
	int ret = 0;

	/* Paired runs share one machine by construction; a stored baseline may not. */
	if (!s->o.paired && now && now->kernel[0] && then->kernel[0] &&
	    strcmp(now->kernel, then->kernel))
		ret = add_warning(s, format("environment: the runs' kernel is %s, the baseline's "
					    "%s",
					    now->kernel, then->kernel));
	if (!ret && !s->o.paired && now && now->tool[0] && then->tool[0] &&
	    strcmp(now->tool, then->tool))
		ret = add_warning(s, format("environment: the runs were analyzed by %s, the "
					    "baseline by %s",
					    now->tool, then->tool));
	if (!ret && s->o.structure_only)
		ret =
		    add_warning(s, format("the baseline's numbers are from another machine%s%s%s: "
					  "edge shares and the throughput are not compared, "
					  "only which vertices form the bottleneck (judge base "
					  "against head on one machine: check-perf --base)",
					  s->o.machine_why ? " (" : "",
					  s->o.machine_why ? s->o.machine_why : "",
					  s->o.machine_why ? ")" : ""));
	for (size_t i = 0; i < n; i++) {
		const struct wperf_run *r = &s->rs->runs[i];

		s->out->lost_events += r->lost_events;
		lossy += r->lost_events > 0;
		s->out->lossy_runs +=
		    s->o.max_lost >= 0 && r->lost_events &&
		    (double)r->lost_events > s->o.max_lost * (double)(r->events + r->lost_events);
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
	if (!ret)
		ret = warn_unconfirmed(s);
	if (!ret && (n < s->o.min_runs || m < s->o.min_runs))
		ret = add_warning(s, format("%zu runs against %zu: a test needs %zu runs per side, "
					    "so no change can fail the gate",
					    n, m, s->o.min_runs));
	return ret;
}

/* ---- accepted entries ---- */

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

/* ---- the tests ---- */

static void nan_finding_fields(struct wperf_finding *f)
{
	f->before = f->after = f->change = f->p = f->q = f->detectable = NAN;
	f->before_lo = f->before_hi = f->after_lo = f->after_hi = NAN;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int add_pending(struct gate *s, struct pending *t)
{
	int ret = wperf_buf_append(&s->pending, t, sizeof(*t));

	if (ret)
		release_finding(&t->f);
	return ret;
}

static int idset_has(const struct wperf_idset *set, const char *id)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->ids[i], id))
			return 1;
	return 0;
}

/* In how many runs of rs vertex is a member of a knot (sink 0) or a sink. */
static size_t runs_with_vertex(const struct wperf_runset *rs, const char *vertex, int sink)
{
	size_t seen = 0;

	for (size_t i = 0; i < rs->nruns; i++) {
		const struct wperf_run *r = &rs->runs[i];
		int found = sink && idset_has(&r->sinks, vertex);

		for (size_t k = 0; !sink && k < r->nknots && !found; k++)
			found = idset_has(&r->knots[k], vertex);
		seen += found;
	}
	return seen;
}

/* In how many baseline runs vertex is in a knot: a vertex is in at most one
 * knot of a run (knots are disjoint), so the seen of its knots add up. */
static size_t baseline_runs_with_vertex(const struct wperf_baseline *b, const char *vertex)
{
	size_t seen = 0;

	for (size_t i = 0; i < b->nknots; i++)
		seen += idset_has(&b->knots[i].vertices, vertex) ? b->knots[i].seen : 0;
	return seen > b->runs ? b->runs : seen;
}

/* The median share of from -> to over the runs of rs. */
static double median_edge(struct gate *s, const struct wperf_runset *rs, const char *from,
			  const char *to)
{
	for (size_t i = 0; i < rs->nruns; i++)
		s->before[i] = wperf_run_edge_share(&rs->runs[i], from, to);
	return wperf_median(s->before, rs->nruns);
}

static double baseline_median_edge(const struct wperf_baseline *b, const char *from, const char *to)
{
	const struct wperf_baseline_edge *e = wperf_baseline_edge(b, from, to);

	return e ? wperf_median(e->samples, b->runs) : 0;
}

/* The edge between vertex and the rest that grew most from the base to the
 * runs: what brought vertex into (or out of) the bottleneck. */
static int vertex_edge(struct gate *s, const char *vertex, struct wperf_finding *f)
{
	double best = -INFINITY;
	const char *from = NULL, *to = NULL;

	for (size_t r = 0; r < s->rs->nruns; r++)
		for (size_t i = 0; i < s->rs->runs[r].nedges; i++) {
			const struct wperf_run_edge *e = &s->rs->runs[r].edges[i];
			double grew;

			if (strcmp(e->from, vertex) && strcmp(e->to, vertex))
				continue;
			grew = median_edge(s, s->rs, e->from, e->to) -
			       baseline_median_edge(s->b, e->from, e->to);
			if (grew > best) {
				best = grew;
				from = e->from;
				to = e->to;
			}
		}
	if (!from)
		return 0;
	f->from = strdup(from);
	f->to = strdup(to);
	return f->from && f->to ? 0 : -ENOMEM;
}

/* Vertex in a knot (or a sink) of the runs against the base: Fisher's test on
 * how many runs of each side have it there. */
static int test_vertex(struct gate *s, const char *vertex, int sink)
{
	const struct wperf_runset *base = s->o.base_runs;
	struct pending t = {.tol = WPERF_GATE_VERTEX_TOLERANCE, .sd = NAN};
	struct wperf_finding *f = &t.f;

	nan_finding_fields(f);
	f->kind = WPERF_FINDING_VERTEX;
	f->sink = sink;
	f->seen = runs_with_vertex(s->rs, vertex, sink);
	f->runs = s->rs->nruns;
	f->before_seen =
	    base ? runs_with_vertex(base, vertex, sink) : baseline_runs_with_vertex(s->b, vertex);
	f->before_runs = base ? base->nruns : s->b->runs;
	f->before = (double)f->before_seen / (double)f->before_runs;
	f->after = (double)f->seen / (double)f->runs;
	f->change = f->after - f->before;
	f->worse = f->change > 0;
	t.n = f->runs < f->before_runs ? f->runs : f->before_runs;
	if (t.n >= s->o.min_runs)
		f->p =
		    f->worse
			? wperf_fisher_greater_p(f->seen, f->runs, f->before_seen, f->before_runs)
			: wperf_fisher_greater_p(f->before_seen, f->before_runs, f->seen, f->runs);
	f->vertex = strdup(vertex);
	if (!f->vertex || vertex_edge(s, vertex, f) < 0) {
		release_finding(f);
		return -ENOMEM;
	}
	return add_pending(s, &t);
}

/* Every vertex of a knot (or sink) of the runs or of the base, once. */
static int test_vertices(struct gate *s, int sink)
{
	const struct wperf_runset *sides[2] = {s->rs, s->o.base_runs};
	struct wperf_buf ids = {0}; /* const char * */
	const char **v;
	size_t n;
	int ret = 0;

	for (int side = 0; side < 2; side++)
		for (size_t r = 0; sides[side] && r < sides[side]->nruns && !ret; r++) {
			const struct wperf_run *run = &sides[side]->runs[r];

			for (size_t i = 0; sink && i < run->sinks.n && !ret; i++)
				ret = wperf_buf_append(&ids, &run->sinks.ids[i], sizeof(char *));
			for (size_t k = 0; !sink && k < run->nknots; k++)
				for (size_t i = 0; i < run->knots[k].n && !ret; i++)
					ret = wperf_buf_append(&ids, &run->knots[k].ids[i],
							       sizeof(char *));
		}
	for (size_t k = 0; !sink && !s->o.base_runs && k < s->b->nknots; k++)
		for (size_t i = 0; i < s->b->knots[k].vertices.n && !ret; i++)
			ret =
			    wperf_buf_append(&ids, &s->b->knots[k].vertices.ids[i], sizeof(char *));
	v = (const char **)ids.data;
	n = ids.len / sizeof(*v);
	if (!ret && n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n && !ret; i++)
		if (i == 0 || strcmp(v[i - 1], v[i]))
			ret = test_vertex(s, v[i], sink);
	wperf_buf_release(&ids);
	return ret;
}

/*
 * Fills t's medians, ranges, change (relative to ref), p, and the spread that
 * the detectable change comes from: a paired t test on the differences when
 * the samples are pairs, else Mann-Whitney. On log values (log_scale) for a
 * throughput: the change is then a ratio.
 */
static void measure(struct gate *s, const double *before, size_t nb, const double *after, size_t na,
		    double ref, struct pending *t)
{
	struct wperf_finding *f = &t->f;
	double mean;

	f->before = wperf_median(before, nb);
	f->after = wperf_median(after, na);
	wperf_range(before, nb, &f->before_lo, &f->before_hi);
	wperf_range(after, na, &f->after_lo, &f->after_hi);
	f->change = (f->after - f->before) / ref;
	t->n = na < nb ? na : nb;
	t->paired = s->o.paired && na == nb;
	/* With fewer than min_runs a side there is no test (p stays NaN), but the
	 * spread still tells how many runs would settle the change. */
	if (t->paired && t->n >= 2) {
		double *lb = s->before, *la = s->after, p;

		for (size_t i = 0; t->log_scale && i < na; i++) {
			lb[i] = log(before[i]);
			la[i] = log(after[i]);
		}
		p = wperf_paired_t_p(t->log_scale ? lb : before, t->log_scale ? la : after, na,
				     &mean, &t->sd);
		/* One-sided, in the direction of the mean difference: half the
		 * two-sided p (every difference the same: 0 or 1 already). */
		if (t->n >= s->o.min_runs)
			f->p = t->sd > 0 ? p / 2 : p;
		/* Pairs cancel the drift: the mean difference is the change. */
		f->change = t->log_scale ? expm1(mean) : mean / ref;
		if (!t->log_scale)
			t->sd /= ref;
		return;
	}
	if (t->n >= s->o.min_runs && !t->paired)
		f->p = f->change >= 0 ? wperf_mann_whitney_greater_p(before, nb, after, na)
				      : wperf_mann_whitney_greater_p(after, na, before, nb);
	t->sd = sqrt((pow(wperf_stddev(before, nb), 2) * (double)(nb - 1) +
		      pow(wperf_stddev(after, na), 2) * (double)(na - 1)) /
		     (double)(na + nb - 2)) /
		ref;
}

static int test_edge(struct gate *s, const char *from, const char *to)
{
	const struct wperf_baseline_edge *be = wperf_baseline_edge(s->b, from, to);
	const double *before = be ? be->samples : s->zeros;
	size_t nb = s->b->runs, na = s->rs->nruns;
	double *after = calloc(na, sizeof(*after));
	struct pending t = {.tol = s->o.edge_tolerance, .sd = NAN};
	int ret;

	if (!after)
		return -ENOMEM;
	nan_finding_fields(&t.f);
	t.f.kind = WPERF_FINDING_EDGE;
	for (size_t i = 0; i < na; i++)
		after[i] = wperf_run_edge_share(&s->rs->runs[i], from, to);
	if (wperf_median(before, nb) < s->o.edge_floor &&
	    wperf_median(after, na) < s->o.edge_floor) {
		free(after);
		return 0; /* too light to matter either way: no test */
	}
	measure(s, before, nb, after, na, fmax(wperf_median(before, nb), s->o.edge_floor), &t);
	free(after);
	t.f.worse = t.f.change > 0;
	t.f.from = strdup(from);
	t.f.to = strdup(to);
	if (!t.f.from || !t.f.to) {
		release_finding(&t.f);
		return -ENOMEM;
	}
	ret = add_pending(s, &t);
	return ret;
}

static int cmp_pair(const void *pa, const void *pb)
{
	const char *const *a = pa, *const *b = pb;
	int c = strcmp(a[0], b[0]);

	return c ? c : strcmp(a[1], b[1]);
}

/* Every edge of the baseline or of a run, once. */
static int test_edges(struct gate *s)
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
			ret = test_edge(s, p[2 * i], p[2 * i + 1]);
	wperf_buf_release(&pairs);
	return ret;
}

static int test_throughput(struct gate *s)
{
	const struct wperf_baseline *b = s->b;
	struct pending t = {.tol = s->o.throughput_tolerance, .sd = NAN, .log_scale = 1};
	double *after = malloc((s->rs->nruns ? s->rs->nruns : 1) * sizeof(*after));
	size_t na = 0;
	int ret = 0;

	if (!after)
		return -ENOMEM;
	for (size_t i = 0; i < s->rs->nruns; i++)
		if (!isnan(s->rs->runs[i].throughput))
			after[na++] = s->rs->runs[i].throughput;
	s->out->throughput_before = wperf_median(b->throughput, b->nthroughput);
	s->out->throughput_after = wperf_median(after, na);
	nan_finding_fields(&t.f);
	t.f.kind = WPERF_FINDING_THROUGHPUT;
	/* A throughput changes by ratios: paired, its test is on the log ratio. */
	for (size_t i = 0; i < na; i++)
		t.log_scale &= after[i] > 0;
	for (size_t i = 0; i < b->nthroughput; i++)
		t.log_scale &= b->throughput[i] > 0;
	if (s->o.structure_only)
		; /* the medians are shown, not compared */
	else if (!na != !b->nthroughput)
		ret = add_warning(s, format("the throughput is not compared: %s",
					    na ? "the baseline has none" : "no run measured it"));
	else if (na && s->out->throughput_before == 0)
		ret = add_warning(s, format("the throughput is not compared: the baseline's "
					    "median is 0"));
	else if (na) {
		measure(s, b->throughput, b->nthroughput, after, na,
			fabs(s->out->throughput_before), &t);
		t.f.worse = s->o.lower_is_better ? t.f.change > 0 : t.f.change < 0;
		ret = add_pending(s, &t);
	}
	free(after);
	return ret;
}

/*
 * Runs that missed the scenario's expected answer. Against the base's runs, a
 * test like a vertex's: the head misses it in more runs than the base beyond
 * chance (a machine that makes the analyzer miss does so on both sides).
 * Against a stored baseline, which does not know how often its runs missed:
 * most runs missing is a failure, some a warning.
 */
static int test_expectation(struct gate *s)
{
	struct pending t = {.sd = NAN, .tol = WPERF_GATE_VERTEX_TOLERANCE};
	size_t missed = s->o.expect_missed, checked = s->o.expect_checked;
	size_t base_missed = s->o.expect_base_missed, base_checked = s->o.expect_base_checked;

	if (!missed && !base_missed)
		return 0;
	nan_finding_fields(&t.f);
	t.f.kind = WPERF_FINDING_EXPECTATION;
	t.f.seen = missed;
	t.f.runs = checked;
	t.f.before_seen = base_missed;
	t.f.before_runs = base_checked;
	if (s->o.paired && checked && base_checked) {
		t.f.after = (double)missed / (double)checked;
		t.f.before = (double)base_missed / (double)base_checked;
		t.f.change = t.f.after - t.f.before;
		t.f.worse = t.f.change > 0;
		t.n = checked < base_checked ? checked : base_checked;
		if (t.n >= s->o.min_runs)
			t.f.p = t.f.worse ? wperf_fisher_greater_p(missed, checked, base_missed,
								   base_checked)
					  : wperf_fisher_greater_p(base_missed, base_checked,
								   missed, checked);
		return add_pending(s, &t);
	}
	if (!missed)
		return 0;
	t.f.worse = 1;
	t.f.level = 2 * missed > checked ? WPERF_LEVEL_FAIL : WPERF_LEVEL_WARN;
	t.f.note = format("%zu of %zu runs missed the scenario's expected answer%s", missed,
			  checked, t.f.level == WPERF_LEVEL_FAIL ? "" : " (most found it)");
	if (!t.f.note)
		return -ENOMEM;
	return add_finding(s, &t.f);
}

/* ---- the family: adjusted p values, then levels ---- */

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
		f->note = format("better beyond the tolerance and the noise (q %.2g)", f->q);
		return 1;
	}
	if (beyond_tol && significant) {
		f->level = WPERF_LEVEL_FAIL;
		f->note = format("%s beyond the tolerance (%.0f%%) and the noise (q %.2g <= %.2g)",
				 what(f), t->tol * 100, f->q, alpha);
	} else if (beyond_tol && (isnan(f->p) || f->p < WPERF_GATE_SUGGESTIVE)) {
		/* Too few runs, or a difference the runs suggest and cannot yet
		 * show over the family of tests: more runs settle it. */
		f->level = WPERF_LEVEL_WARN;
		f->inconclusive = 1;
		f->runs_needed = runs_needed(t, size, alpha, s->o.min_runs);
		f->note = format("%s beyond the tolerance (%.0f%%), not yet beyond the noise: "
				 "about %zu runs per side would tell",
				 what(f), t->tol * 100, f->runs_needed);
	} else if (beyond_tol) {
		f->level = WPERF_LEVEL_WARN;
		f->note = format("%s beyond the tolerance (%.0f%%), but within run-to-run noise "
				 "(p %.2g)",
				 what(f), t->tol * 100, f->p);
	} else if (warn && significant) {
		f->level = WPERF_LEVEL_WARN;
		f->note = format("%s beyond the warning level (%.0f%%), within the tolerance "
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
	f->note = format("accepted: %s", a->reason);
	f->level = WPERF_LEVEL_INFO;
	f->accepted = 1;
	f->inconclusive = 0;
}

/* Adjusts the p values of every test over the scenario, then keeps the tests
 * that are findings. */
static int judge_tests(struct gate *s)
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
			release_finding(f);
			continue;
		}
		if (f->kind == WPERF_FINDING_EDGE)
			a = accepted_edge(s->b, f->from, f->to);
		else if (f->kind == WPERF_FINDING_VERTEX)
			a = accepted_vertex(s->b, f->vertex);
		accept(f, a);
		ret = f->note ? add_finding(s, f) : -ENOMEM;
		if (ret && !f->note)
			release_finding(f);
	}
	s->out->detectable = detect[0];
	s->pending.len = 0;
	free(p);
	free(q);
	return ret;
}

/* ---- the verdict ---- */

static int kind_rank(enum wperf_finding_kind k)
{
	static const int rank[] = {[WPERF_FINDING_NEW_KNOT] = 0,    [WPERF_FINDING_VERTEX] = 1,
				   [WPERF_FINDING_EXPECTATION] = 2, [WPERF_FINDING_THROUGHPUT] = 3,
				   [WPERF_FINDING_EDGE] = 4,	    [WPERF_FINDING_KNOT_GONE] = 5};

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
	if (a->kind == WPERF_FINDING_VERTEX) {
		if (a->sink != b->sink)
			return a->sink - b->sink;
		return strcmp(a->vertex, b->vertex);
	}
	return wperf_idset_cmp(&a->knot, &b->knot);
}

static enum wperf_verdict_kind decide(const struct wperf_verdict *v)
{
	int fail = 0, new_knot = 0, unsure = 0, better = 0;

	for (size_t i = 0; i < v->nfindings; i++) {
		const struct wperf_finding *f = &v->findings[i];
		int fails = f->level == WPERF_LEVEL_FAIL;

		fail |= fails;
		new_knot |=
		    fails && (f->kind == WPERF_FINDING_NEW_KNOT || f->kind == WPERF_FINDING_VERTEX);
		unsure |= f->inconclusive;
		better |= (f->kind == WPERF_FINDING_VERTEX && !f->worse && !f->sink) ||
			  (f->kind == WPERF_FINDING_THROUGHPUT && !f->worse);
	}
	if (new_knot)
		return WPERF_VERDICT_NEW_BOTTLENECK;
	if (fail)
		return WPERF_VERDICT_REGRESSION;
	if (unsure || v->lossy_runs || v->unconfirmed_runs)
		return WPERF_VERDICT_INCONCLUSIVE;
	return better ? WPERF_VERDICT_IMPROVED : WPERF_VERDICT_PASS;
}

int wperf_verdict(const struct wperf_runset *rs, const struct wperf_baseline *b,
		  const struct wperf_gate_opts *g, struct wperf_verdict *out,
		  struct wperf_error *err)
{
	struct gate s = {.rs = rs, .b = b, .out = out};
	size_t scratch;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!rs->nruns)
		return wperf_error_set(err, -EINVAL, "no runs to compare with the baseline");
	if (!b->runs)
		return wperf_error_set(err, -EINVAL, "the baseline has no runs");
	defaults(g, &s.o);
	out->runs = rs->nruns;
	out->throughput_before = out->throughput_after = out->detectable = NAN;
	out->baseline_runs = b->runs;
	out->paired = s.o.paired;
	out->structure_only = s.o.structure_only;
	out->alpha = s.o.alpha;
	snprintf(out->unit, sizeof(out->unit), "%s", rs->unit[0] || !b->unit ? rs->unit : b->unit);
	out->scenario = strdup(b->scenario ? b->scenario : "");
	scratch = rs->nruns > b->runs ? rs->nruns : b->runs;
	if (s.o.base_runs && s.o.base_runs->nruns > scratch)
		scratch = s.o.base_runs->nruns;
	s.after = calloc(scratch, sizeof(*s.after));
	s.before = calloc(scratch, sizeof(*s.before));
	s.zeros = calloc(b->runs, sizeof(*s.zeros));
	if (out->scenario && s.after && s.before && s.zeros) {
		ret = warn_context(&s);
		ret = ret ? ret : test_expectation(&s);
		ret = ret ? ret : test_vertices(&s, 0);
		ret = ret || !s.o.base_runs ? ret : test_vertices(&s, 1);
		ret = ret || s.o.structure_only ? ret : test_edges(&s);
		ret = ret ? ret : test_throughput(&s);
		ret = ret ? ret : judge_tests(&s);
	}
	for (size_t i = 0; i < s.pending.len / sizeof(struct pending); i++)
		release_finding(&((struct pending *)s.pending.data)[i].f);
	wperf_buf_release(&s.pending);
	free(s.after);
	free(s.before);
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
