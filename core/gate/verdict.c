/* SPDX-License-Identifier: MIT */
/*
 * The gate (see verdict.h for the rules): knots new and gone, edges and the
 * throughput against the tolerance and the run-to-run noise, the verdict.
 * Here: the warnings about the runs themselves (lost events, graphs the
 * kernel's counters contradict, another machine) and the verdict drawn from
 * the findings; the tests are in verdict_tests.c, their levels (adjusted p
 * values, accepted entries) in verdict_levels.c, and what they all add
 * findings and warnings with in verdict_findings.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/verdict_internal.h"
#include "core/util/cmp.h"

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

void wperf_verdict_release(struct wperf_verdict *v)
{
	for (size_t i = 0; i < v->nfindings; i++)
		gate_release_finding(&v->findings[i]);
	free(v->findings);
	for (size_t i = 0; i < v->nwarnings; i++)
		free(v->warnings[i]);
	free(v->warnings);
	free(v->scenario);
	free(v->metrics);
	memset(v, 0, sizeof(*v));
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
	return gate_add_warning(
	    s,
	    gate_format("%zu of %zu runs%s disagree with the kernel's own counters (%s%s): their "
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
		ret = gate_add_warning(
		    s, gate_format("environment: the runs' kernel is %s, the baseline's "
				   "%s",
				   now->kernel, then->kernel));
	if (!ret && !s->o.paired && now && now->tool[0] && then->tool[0] &&
	    strcmp(now->tool, then->tool))
		ret = gate_add_warning(s,
				       gate_format("environment: the runs were analyzed by %s, the "
						   "baseline by %s",
						   now->tool, then->tool));
	if (!ret && s->o.structure_only)
		ret = gate_add_warning(
		    s, gate_format("the baseline's numbers are from another machine%s%s%s: "
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
		ret = gate_add_warning(
		    s, gate_format("%llu events were lost in %zu of %zu runs: their graphs "
				   "may miss waits",
				   (unsigned long long)s->out->lost_events, lossy, n));
	if (!ret && s->out->lossy_runs)
		ret = gate_add_warning(
		    s, gate_format("%zu of %zu runs lost more than %g%% of their events: "
				   "the gate cannot pass on them. Record with larger "
				   "buffers or fewer stacks (record: stacks: kernel), "
				   "or raise gate: max_lost",
				   s->out->lossy_runs, n, 100 * s->o.max_lost));
	if (!ret)
		ret = warn_unconfirmed(s);
	if (!ret && (n < s->o.min_runs || m < s->o.min_runs))
		ret = gate_add_warning(
		    s, gate_format("%zu runs against %zu: a test needs %zu runs per side, "
				   "so no change can fail the gate",
				   n, m, s->o.min_runs));
	return ret;
}

/* ---- the verdict ---- */

static int kind_rank(enum wperf_finding_kind k)
{
	static const int rank[] = {[WPERF_FINDING_NEW_KNOT] = 0,    [WPERF_FINDING_VERTEX] = 1,
				   [WPERF_FINDING_EXPECTATION] = 2, [WPERF_FINDING_THROUGHPUT] = 3,
				   [WPERF_FINDING_METRIC] = 4,	    [WPERF_FINDING_EDGE] = 5,
				   [WPERF_FINDING_KNOT_GONE] = 6};

	return rank[k];
}

/* Failures first, then inconclusive, warnings, information; the biggest change
 * first; then by name, so that the order never depends on qsort. */
static int cmp_finding(const void *pa, const void *pb)
{
	const struct wperf_finding *a = pa, *b = pb;
	double ca = isnan(a->change) ? 0 : fabs(a->change);
	double cb = isnan(b->change) ? 0 : fabs(b->change);
	const uint64_t ka[] = {wperf_key_desc(a->level), wperf_key_desc(a->inconclusive != 0),
			       kind_rank(a->kind)};
	const uint64_t kb[] = {wperf_key_desc(b->level), wperf_key_desc(b->inconclusive != 0),
			       kind_rank(b->kind)};
	int c = wperf_cmp_keys(ka, kb, 3);

	if (c)
		return c;
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

int wperf_verdict_fails_check(enum wperf_verdict_kind kind, int strict)
{
	return wperf_verdict_exit_code(kind) || (strict && kind == WPERF_VERDICT_INCONCLUSIVE);
}

int wperf_verdict_settled(const struct wperf_verdict *v)
{
	int fails = wperf_verdict_exit_code(v->kind);

	for (size_t i = 0; i < v->nfindings; i++) {
		const struct wperf_finding *f = &v->findings[i];

		if (f->undecided || (fails && f->kind == WPERF_FINDING_VERTEX && f->worse &&
				     f->level == WPERF_LEVEL_WARN && !f->accepted))
			return 0;
	}
	return fails || !v->underpowered;
}

int wperf_verdict_untrusted(const struct wperf_verdict *v)
{
	return v->lossy_runs || v->unconfirmed_runs;
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
		better |=
		    (f->kind == WPERF_FINDING_VERTEX && !f->worse && !f->sink) ||
		    ((f->kind == WPERF_FINDING_THROUGHPUT || f->kind == WPERF_FINDING_METRIC) &&
		     !f->worse);
	}
	if (new_knot)
		return WPERF_VERDICT_NEW_BOTTLENECK;
	if (fail)
		return WPERF_VERDICT_REGRESSION;
	if (unsure || wperf_verdict_untrusted(v))
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
		ret = ret ? ret : gate_test_expectation(&s);
		ret = ret ? ret : gate_test_vertices(&s, 0);
		ret = ret || !s.o.base_runs ? ret : gate_test_vertices(&s, 1);
		ret = ret || s.o.structure_only ? ret : gate_test_edges(&s);
		ret = ret ? ret : gate_test_throughput(&s);
		ret = ret ? ret : gate_test_metrics(&s);
		ret = ret ? ret : gate_judge_tests(&s);
	}
	for (size_t i = 0; i < s.pending.len / sizeof(struct pending); i++)
		gate_release_finding(&((struct pending *)s.pending.data)[i].f);
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
	if (wperf_verdict_take_sites(out, rs)) {
		wperf_verdict_release(out);
		return wperf_error_set(err, -ENOMEM, "out of memory while comparing with the baseline");
	}
	return 0;
}
