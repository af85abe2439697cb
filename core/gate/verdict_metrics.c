/* SPDX-License-Identifier: MIT */
/*
 * The gate's test of the scenario's other metrics (see verdict.h, "Metrics"):
 * each against the baseline's samples of the same name, as the throughput is
 * tested (gate_test_measure), and the medians of each for the verdict.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/verdict_internal.h"

/* The values of metric name in the runs of rs that measured it, into out. */
static size_t run_values(const struct wperf_runset *rs, const char *name, double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->nruns; i++) {
		double v = wperf_run_metric(&rs->runs[i], name);

		if (!isnan(v))
			out[n++] = v;
	}
	return n;
}

static int test_metric(struct gate *s, const struct wperf_metric *m,
		       struct wperf_verdict_metric *vm)
{
	const struct wperf_baseline_metric *bm = wperf_baseline_metric(s->b, m->name);
	/* Not s->after: measure() takes the logs of the samples there. */
	double *after, *before;
	size_t na;
	int ret = 0;

	snprintf(vm->name, sizeof(vm->name), "%s", m->name);
	snprintf(vm->unit, sizeof(vm->unit), "%s", m->unit);
	vm->before = vm->after = NAN;
	if (!bm && !s->o.structure_only)
		return gate_add_warning(s, gate_format("the metric %s is not compared: the "
						       "baseline has none (made before the "
						       "scenario measured it?)",
						       m->name));
	after = calloc(s->rs->nruns + 1, sizeof(*after));
	before = calloc(s->rs->nruns + 1, sizeof(*before));
	if (!after || !before) {
		free(after);
		free(before);
		return -ENOMEM;
	}
	if (bm && s->o.paired && s->o.base_runs) {
		/* pair by pair: a run that lacks it on one side leaves its pair out */
		na = gate_paired_measures(s, m->name, before, after);
		ret = gate_test_measure(s, m, before, na, after, na, &vm->before, &vm->after);
	} else if (bm) {
		na = run_values(s->rs, m->name, after);
		ret = gate_test_measure(s, m, bm->samples, bm->nsamples, after, na, &vm->before,
					&vm->after);
	} else {
		vm->after = wperf_median(after, run_values(s->rs, m->name, after));
	}
	free(after);
	free(before);
	return ret;
}

/* ---- the target's time per operation ---- */

/* The target's running (or runnable) time per operation of run r, in ms; NaN
 * when the run did not keep it or did no work. The operations are counted
 * over the time the target was there: over the whole window, a run whose
 * recorder stopped 90 ms after the load exited, not 10, would cost 10% less. */
static double per_op(const struct wperf_run *r, int runnable)
{
	uint64_t span = r->span_ns ? r->span_ns : r->window_ns;
	double ops = r->throughput * (double)span / 1e9;

	if (!r->have_time || !(ops > 0))
		return NAN;
	return (double)(runnable ? r->runnable_ns : r->running_ns) / 1e6 / ops;
}

/* The pairs of both sides' values of one cost, as gate_paired_measures. */
static size_t paired_costs(const struct gate *s, int runnable, double *before, double *after)
{
	const struct wperf_runset *base = s->o.base_runs;
	size_t n = 0;

	for (size_t i = 0; i < s->rs->nruns && i < base->nruns; i++) {
		double b = per_op(&base->runs[i], runnable), a = per_op(&s->rs->runs[i], runnable);

		if (!isnan(a) && !isnan(b)) {
			before[n] = b;
			after[n++] = a;
		}
	}
	return n;
}

/* Did the n paired values grow from before to after beyond chance (a paired
 * t test on their logarithms, one-sided, under WPERF_GATE_SUGGESTIVE)? Pairs
 * with a value not > 0 are left out. What excuses a regression must be
 * evidence, not one noisy median. */
static int grew_beyond_chance(double *before, double *after, size_t n)
{
	double mean, sd, p;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (before[i] > 0 && after[i] > 0) {
			before[m] = log(before[i]);
			after[m++] = log(after[i]);
		}
	p = wperf_paired_t_p(before, after, m, &mean, &sd);
	return !isnan(p) && mean > 0 && p / 2 < WPERF_GATE_SUGGESTIVE;
}

/*
 * The target's CPU time per operation, a primary beside the throughput: code
 * made slower costs more of it, and a busy neighbour does not change it (it
 * takes CPUs, not work). Its runnable time per operation, what the
 * neighbour took, is shown and not tested: when the throughput fell and the
 * CPU time did not grow while the runnable time did, beyond the tolerance and
 * beyond chance, the machine was busier (s->busier). Only against the base's runs (a baseline file keeps no times).
 */
static int test_costs(struct gate *s)
{
	static const struct wperf_metric cost[2] = {
	    {.name = WPERF_GATE_COST_METRIC,
	     .unit = "ms",
	     .lower_is_better = 1,
	     .tolerance = WPERF_GATE_COST_TOLERANCE},
	    {.name = "target.runnable_per_op", .unit = "ms", .lower_is_better = 1}};
	size_t cap = s->rs->nruns + 1, n;
	double *before = calloc(cap, sizeof(*before)), *after = calloc(cap, sizeof(*after));
	int ret = before && after ? 0 : -ENOMEM;

	for (int k = 0; k < 2 && !ret && s->o.paired && s->o.base_runs; k++) {
		struct wperf_verdict_metric *vm = &s->out->metrics[s->out->nmetrics];

		if (!(n = paired_costs(s, k, before, after)))
			break;
		memcpy(vm->name, cost[k].name, sizeof(vm->name));
		memcpy(vm->unit, cost[k].unit, sizeof(vm->unit));
		s->out->nmetrics++;
		vm->before = wperf_median(before, n);
		vm->after = wperf_median(after, n);
		if (k == 0 && !s->o.structure_only)
			ret = gate_test_measure(s, &cost[k], before, n, after, n, &vm->before,
						&vm->after);
		else if (k == 1)
			s->busier = vm->after > vm->before * (1 + s->o.throughput_tolerance) &&
				    grew_beyond_chance(before, after, n);
	}
	free(before);
	free(after);
	return ret;
}

int gate_test_metrics(struct gate *s)
{
	const struct wperf_runset *rs = s->rs;
	int ret = 0;

	/* the scenario's, and the target's two costs */
	if (!(s->out->metrics = calloc(rs->nmetrics + 2, sizeof(*s->out->metrics))))
		return -ENOMEM;
	for (size_t i = 0; i < rs->nmetrics && !ret; i++, s->out->nmetrics++)
		ret = test_metric(s, &rs->metrics[i], &s->out->metrics[i]);
	/* What the baseline measured and the scenario no longer does is said too. */
	for (size_t i = 0; i < s->b->nmetrics && !ret; i++)
		if (!wperf_metric_find(rs->metrics, rs->nmetrics, s->b->metrics[i].metric.name))
			ret = gate_add_warning(
			    s, gate_format("the metric %s is not compared: the runs do not "
					   "measure it",
					   s->b->metrics[i].metric.name));
	return ret ? ret : test_costs(s);
}
