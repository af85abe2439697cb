/* SPDX-License-Identifier: MIT */
/*
 * The gate's tests (see verdict.h): which vertices are in the bottleneck now
 * and before, each edge's share and the throughput against the tolerance and
 * the run-to-run noise, and the scenario's expected answer. Each comparison
 * waits in s->pending for the family's adjustment (verdict_levels.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/verdict_internal.h"

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
		gate_release_finding(&t->f);
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

/* The smallest p values of Fisher's one-sided tests on a thing seen in f's
 * runs, with its margins: all of it on the one side (worse: the runs'), or
 * on the other. */
static void fisher_floors(struct pending *t)
{
	const struct wperf_finding *f = &t->f;
	size_t total = f->seen + f->before_seen;
	size_t head = total < f->runs ? total : f->runs;
	size_t base = total < f->before_runs ? total : f->before_runs;

	t->floor[1] = wperf_fisher_greater_p(head, f->runs, total - head, f->before_runs);
	t->floor[0] = wperf_fisher_greater_p(base, f->before_runs, total - base, f->runs);
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
	fisher_floors(&t);
	f->vertex = strdup(vertex);
	if (!f->vertex || vertex_edge(s, vertex, f) < 0) {
		gate_release_finding(f);
		return -ENOMEM;
	}
	return add_pending(s, &t);
}

/* Every vertex of a knot (or sink) of the runs or of the base, once. */
int gate_test_vertices(struct gate *s, int sink)
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
	/* Every order of the ranks equally likely: the most extreme one's chance. */
	t->floor[0] = t->floor[1] =
	    exp(lgamma((double)na + 1) + lgamma((double)nb + 1) - lgamma((double)(na + nb) + 1));
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
		gate_release_finding(&t.f);
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
int gate_test_edges(struct gate *s)
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

int gate_test_measure(struct gate *s, const struct wperf_metric *m, const double *before, size_t nb,
		      const double *after, size_t na, double *median_before, double *median_after)
{
	struct pending t = {.tol = m && m->tolerance > 0 ? m->tolerance : s->o.throughput_tolerance,
			    .sd = NAN,
			    .log_scale = 1};
	char what[WPERF_METRIC_NAME_MAX + 16] = "throughput";

	if (m)
		snprintf(what, sizeof(what), "metric %s", m->name);
	*median_before = wperf_median(before, nb);
	*median_after = wperf_median(after, na);
	nan_finding_fields(&t.f);
	t.f.kind = m ? WPERF_FINDING_METRIC : WPERF_FINDING_THROUGHPUT;
	/* A measure of the load changes by ratios: paired, its test is on the log ratio. */
	for (size_t i = 0; i < na; i++)
		t.log_scale &= after[i] > 0;
	for (size_t i = 0; i < nb; i++)
		t.log_scale &= before[i] > 0;
	if (s->o.structure_only)
		return 0; /* the medians are shown, not compared */
	if (!na != !nb)
		return gate_add_warning(
		    s, gate_format("the %s is not compared: %s", what,
				   na ? "the baseline has none" : "no run measured it"));
	if (na && *median_before == 0)
		return gate_add_warning(s, gate_format("the %s is not compared: the baseline's "
						       "median is 0",
						       what));
	if (!na)
		return 0;
	measure(s, before, nb, after, na, fabs(*median_before), &t);
	t.f.worse =
	    (m ? m->lower_is_better : s->o.lower_is_better) ? t.f.change > 0 : t.f.change < 0;
	if (m &&
	    (!(t.f.metric = strdup(m->name)) || (m->unit[0] && !(t.f.unit = strdup(m->unit))))) {
		gate_release_finding(&t.f);
		return -ENOMEM;
	}
	return add_pending(s, &t);
}

/* A measure of run r: its throughput (name NULL) or its metric name. */
static double run_measure(const struct wperf_run *r, const char *name)
{
	return name ? wperf_run_metric(r, name) : r->throughput;
}

size_t gate_paired_measures(const struct gate *s, const char *name, double *before, double *after)
{
	const struct wperf_runset *base = s->o.base_runs;
	size_t n = 0;

	for (size_t i = 0; i < s->rs->nruns && i < base->nruns; i++) {
		double b = run_measure(&base->runs[i], name),
		       a = run_measure(&s->rs->runs[i], name);

		if (!isnan(a) && !isnan(b)) {
			before[n] = b;
			after[n++] = a;
		}
	}
	return n;
}

int gate_test_throughput(struct gate *s)
{
	size_t cap = s->rs->nruns + 1, na = 0, nb = s->b->nthroughput;
	double *after = malloc(cap * sizeof(*after)), *before = malloc(cap * sizeof(*before));
	const double *from = s->b->throughput;
	int ret = -ENOMEM;

	if (after && before && s->o.paired && s->o.base_runs) {
		nb = na = gate_paired_measures(s, NULL, before, after);
		from = before;
	} else if (after && before) {
		for (size_t i = 0; i < s->rs->nruns; i++)
			if (!isnan(s->rs->runs[i].throughput))
				after[na++] = s->rs->runs[i].throughput;
	}
	if (after && before)
		ret = gate_test_measure(s, NULL, from, nb, after, na, &s->out->throughput_before,
					&s->out->throughput_after);
	free(after);
	free(before);
	return ret;
}

/*
 * Runs that missed the scenario's expected answer. Against the base's runs, a
 * test like a vertex's: the head misses it in more runs than the base beyond
 * chance (a machine that makes the analyzer miss does so on both sides).
 * Against a stored baseline, which does not know how often its runs missed:
 * most runs missing is a failure, some a warning.
 */
int gate_test_expectation(struct gate *s)
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
		fisher_floors(&t);
		return add_pending(s, &t);
	}
	if (!missed)
		return 0;
	t.f.worse = 1;
	t.f.level = 2 * missed > checked ? WPERF_LEVEL_FAIL : WPERF_LEVEL_WARN;
	t.f.note = gate_format("%zu of %zu runs missed the scenario's expected answer%s", missed,
			       checked, t.f.level == WPERF_LEVEL_FAIL ? "" : " (most found it)");
	if (!t.f.note)
		return -ENOMEM;
	return gate_add_finding(s, &t.f);
}
