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
	double *after;
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
	if (!(after = calloc(s->rs->nruns, sizeof(*after))))
		return -ENOMEM;
	na = run_values(s->rs, m->name, after);
	if (bm)
		ret = gate_test_measure(s, m, bm->samples, bm->nsamples, after, na, &vm->before,
					&vm->after);
	else
		vm->after = wperf_median(after, na);
	free(after);
	return ret;
}

int gate_test_metrics(struct gate *s)
{
	const struct wperf_runset *rs = s->rs;
	int ret = 0;

	if (!rs->nmetrics)
		return 0;
	if (!(s->out->metrics = calloc(rs->nmetrics, sizeof(*s->out->metrics))))
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
	return ret;
}
