/* SPDX-License-Identifier: MIT */
/*
 * Baselines (see baseline.h), the model: made from runs, accepted entries
 * added and carried over, edges looked up, released. The YAML text is
 * baseline_yaml.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/baseline.h"
#include "core/gate/baseline_internal.h"
#include "core/gate/stats.h"
#include "core/util/cmp.h"

int wperf_baseline_grow(struct wperf_buf *buf, void *arr, size_t *n, const void *elem, size_t size)
{
	int ret = wperf_buf_append(buf, elem, size);

	if (ret)
		return ret;
	memcpy(arr, &buf->data, sizeof(buf->data)); /* arr points to some T *: no void ** */
	*n = buf->len / size;
	return 0;
}

void wperf_baseline_free_strings(char **s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

void wperf_baseline_release(struct wperf_baseline *b)
{
	free(b->scenario);
	free(b->throughput);
	free(b->unit);
	for (size_t i = 0; i < b->nknots; i++)
		wperf_idset_release(&b->knots[i].vertices);
	free(b->knots);
	for (size_t i = 0; i < b->nedges; i++) {
		free(b->edges[i].from);
		free(b->edges[i].to);
		free(b->edges[i].samples);
	}
	free(b->edges);
	for (size_t i = 0; i < b->nmetrics; i++)
		free(b->metrics[i].samples);
	free(b->metrics);
	for (size_t i = 0; i < b->naccepted; i++) {
		wperf_baseline_free_strings(b->accepted[i].globs, b->accepted[i].nglobs);
		free(b->accepted[i].reason);
		free(b->accepted[i].origin);
	}
	free(b->accepted);
	memset(b, 0, sizeof(*b));
}

int wperf_baseline_cmp_edge(const void *pa, const void *pb)
{
	const struct wperf_baseline_edge *a = pa, *b = pb;
	int c = strcmp(a->from, b->from);

	return c ? c : strcmp(a->to, b->to);
}

const struct wperf_baseline_edge *wperf_baseline_edge(const struct wperf_baseline *b,
						      const char *from, const char *to)
{
	struct wperf_baseline_edge key = {.from = (char *)from, .to = (char *)to};

	if (!b->nedges)
		return NULL;
	return bsearch(&key, b->edges, b->nedges, sizeof(key), wperf_baseline_cmp_edge);
}

/* ---- accepted entries ---- */

/* Kernel threads named after a CPU, a device or an IRQ: each family is
 * shared by every program on the machine, not one program's threads. */
static const char *const kernel_families[] = {
    "kworker", "ksoftirqd", "migration",   "cpuhp", "irq",	 "rcuop",   "rcuos",	"rcuog",
    "rcub",    "kthreadd",  "idle_inject", "jbd2",  "kcompactd", "scsi_eh", "watchdog", "kswapd"};

const char *wperf_accepted_name_why(const char *name)
{
	size_t glob = strcspn(name, "*?["), slash = strcspn(name, "/");

	if (!name[glob])
		return NULL;
	if (!name[slash] || glob < slash)
		return "a glob may only follow a process's name and a slash (PROCESS/GLOB): "
		       "it would accept a class of vertices from anywhere";
	for (size_t i = 0; i < sizeof(kernel_families) / sizeof(kernel_families[0]); i++)
		if (strlen(kernel_families[i]) == slash &&
		    !strncmp(name, kernel_families[i], slash))
			return "the kernel's threads of one family serve every program: name the "
			       "identity exactly";
	return NULL;
}

int wperf_baseline_accept(struct wperf_baseline *b, int is_edge, const char *const *globs, size_t n,
			  const char *reason)
{
	struct wperf_accepted a = {.is_edge = !!is_edge};
	struct wperf_buf buf = {.data = (uint8_t *)b->accepted,
				.len = b->naccepted * sizeof(a),
				.cap = b->naccepted * sizeof(a)};
	int ret = -ENOMEM;

	if (n == 0 || (is_edge && n != 2) || !reason || !*reason)
		return -EINVAL; /* the reader wants a reason too */
	for (size_t i = 0; i < n; i++)
		if (wperf_accepted_name_why(globs[i]))
			return -EINVAL;
	a.globs = calloc(n, sizeof(*a.globs));
	a.reason = strdup(reason);
	if (!a.globs || !a.reason)
		goto fail;
	for (; a.nglobs < n; a.nglobs++)
		if (!(a.globs[a.nglobs] = strdup(globs[a.nglobs])))
			goto fail;
	ret = wperf_baseline_grow(&buf, &b->accepted, &b->naccepted, &a, sizeof(a));
	if (!ret)
		return 0;
fail:
	wperf_baseline_free_strings(a.globs, a.nglobs);
	free(a.reason);
	return ret;
}

static int same_entry(const struct wperf_accepted *a, const struct wperf_accepted *b)
{
	if (a->is_edge != b->is_edge || a->nglobs != b->nglobs)
		return 0;
	for (size_t i = 0; i < a->nglobs; i++)
		if (strcmp(a->globs[i], b->globs[i]))
			return 0;
	return 1;
}

int wperf_baseline_merge_accepted(struct wperf_baseline *fresh, const struct wperf_baseline *old)
{
	for (size_t i = 0; i < old->naccepted; i++) {
		const struct wperf_accepted *a = &old->accepted[i];
		int have = 0, ret;

		for (size_t j = 0; j < fresh->naccepted && !have; j++)
			have = same_entry(&fresh->accepted[j], a);
		if (have)
			continue;
		ret = wperf_baseline_accept(fresh, a->is_edge, (const char *const *)a->globs,
					    a->nglobs, a->reason);
		if (ret)
			return ret;
		fresh->accepted[fresh->naccepted - 1].line = a->line;
		fresh->accepted[fresh->naccepted - 1].last_line = a->last_line;
		if (a->origin &&
		    !(fresh->accepted[fresh->naccepted - 1].origin = strdup(a->origin)))
			return -ENOMEM;
	}
	return 0;
}

/* ---- from runs ---- */

static int cmp_knot(const void *pa, const void *pb)
{
	const struct wperf_baseline_knot *a = pa, *b = pb;
	int c = wperf_cmp_u64(b->seen, a->seen); /* seen most first */

	return c ? c : wperf_idset_cmp(&a->vertices, &b->vertices);
}

/* Every distinct knot of the runs, with the number of runs that have it. */
static int knots_from_runs(const struct wperf_runset *rs, struct wperf_baseline *out)
{
	struct wperf_buf buf = {0};

	for (size_t r = 0; r < rs->nruns; r++) {
		for (size_t k = 0; k < rs->runs[r].nknots; k++) {
			const struct wperf_idset *s = &rs->runs[r].knots[k];
			struct wperf_baseline_knot bk = {0};
			int have = 0, ret;

			for (size_t i = 0; i < out->nknots && !have; i++)
				have = !wperf_idset_cmp(&out->knots[i].vertices, s);
			if (have)
				continue;
			for (size_t i = 0; i < rs->nruns; i++)
				bk.seen += wperf_run_has_knot(&rs->runs[i], s);
			ret = wperf_idset_copy(s, &bk.vertices);
			if (!ret)
				ret = wperf_baseline_grow(&buf, &out->knots, &out->nknots, &bk,
							  sizeof(bk));
			if (ret) {
				wperf_idset_release(&bk.vertices);
				return ret;
			}
		}
	}
	if (out->nknots)
		qsort(out->knots, out->nknots, sizeof(*out->knots), cmp_knot);
	return 0;
}

/* Every edge of the runs, with its share in each run (0 where it is missing). */
static int edges_from_runs(const struct wperf_runset *rs, struct wperf_baseline *out)
{
	struct wperf_buf buf = {0};

	for (size_t r = 0; r < rs->nruns; r++) {
		/* Edges of the runs before this one are sorted and can be searched;
		 * a run's own edges are unique, so only those need looking up. */
		size_t nsorted = out->nedges;

		for (size_t i = 0; i < rs->runs[r].nedges; i++) {
			const struct wperf_run_edge *e = &rs->runs[r].edges[i];
			/* out->edges moves as it grows: take it afresh each time */
			struct wperf_baseline sorted = {.edges = out->edges, .nedges = nsorted};
			struct wperf_baseline_edge be = {0};
			int ret = -ENOMEM;

			if (wperf_baseline_edge(&sorted, e->from, e->to))
				continue;
			be.from = strdup(e->from);
			be.to = strdup(e->to);
			be.samples = calloc(rs->nruns, sizeof(*be.samples));
			if (be.from && be.to && be.samples) {
				for (size_t j = 0; j < rs->nruns; j++)
					be.samples[j] =
					    wperf_run_edge_share(&rs->runs[j], e->from, e->to);
				ret = wperf_baseline_grow(&buf, &out->edges, &out->nedges, &be,
							  sizeof(be));
			}
			if (ret) {
				free(be.from);
				free(be.to);
				free(be.samples);
				return ret;
			}
		}
		if (out->nedges)
			qsort(out->edges, out->nedges, sizeof(*out->edges),
			      wperf_baseline_cmp_edge);
	}
	return 0;
}

/* Each metric of rs with the values of the runs that measured it. */
static int metrics_from_runs(const struct wperf_runset *rs, struct wperf_baseline *out)
{
	if (!rs->nmetrics)
		return 0;
	if (!(out->metrics = calloc(rs->nmetrics, sizeof(*out->metrics))))
		return -ENOMEM;
	for (; out->nmetrics < rs->nmetrics; out->nmetrics++) {
		struct wperf_baseline_metric *m = &out->metrics[out->nmetrics];

		m->metric = rs->metrics[out->nmetrics];
		m->metric.tolerance = 0;
		if (!(m->samples = calloc(rs->nruns, sizeof(*m->samples))))
			return -ENOMEM;
		for (size_t i = 0; i < rs->nruns; i++) {
			double v = wperf_run_metric(&rs->runs[i], m->metric.name);

			if (!isnan(v))
				m->samples[m->nsamples++] = v;
		}
	}
	return 0;
}

const struct wperf_baseline_metric *wperf_baseline_metric(const struct wperf_baseline *b,
							  const char *name)
{
	for (size_t i = 0; i < b->nmetrics; i++)
		if (!strcmp(b->metrics[i].metric.name, name))
			return &b->metrics[i];
	return NULL;
}

int wperf_baseline_from_runs(const struct wperf_runset *rs, const char *scenario,
			     const struct wperf_env *env, struct wperf_baseline *out,
			     struct wperf_error *err)
{
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!rs->nruns)
		return wperf_error_set(err, -EINVAL, "no runs: a baseline needs at least one");
	if (!scenario || !*scenario)
		return wperf_error_set(err, -EINVAL, "a baseline needs the name of its scenario");
	if (env)
		out->env = *env;
	out->runs = rs->nruns;
	out->scenario = strdup(scenario);
	out->throughput = calloc(rs->nruns, sizeof(*out->throughput));
	if (!out->scenario || !out->throughput)
		goto fail;
	for (size_t i = 0; i < rs->nruns; i++)
		if (!isnan(rs->runs[i].throughput))
			out->throughput[out->nthroughput++] = rs->runs[i].throughput;
	if (rs->unit[0] && !(out->unit = strndup(rs->unit, sizeof(rs->unit))))
		goto fail;
	ret = knots_from_runs(rs, out);
	if (!ret)
		ret = edges_from_runs(rs, out);
	if (!ret)
		ret = metrics_from_runs(rs, out);
	if (!ret)
		return 0;
fail:
	wperf_baseline_release(out);
	return wperf_error_set(err, ret, "out of memory while making the baseline of %s", scenario);
}

void wperf_baseline_power(const struct wperf_baseline *b, double detect, double alpha,
			  double *detectable, size_t *runs_needed)
{
	double *logs = calloc(b->nthroughput + 1, sizeof(*logs)), sd;
	size_t n = b->nthroughput;

	*detectable = NAN;
	*runs_needed = 0;
	for (size_t i = 0; logs && i < n; i++)
		logs[i] = b->throughput[i] > 0 ? log(b->throughput[i]) : NAN;
	sd = logs ? wperf_stddev(logs, n) : NAN;
	free(logs);
	if (isnan(sd))
		return;
	*detectable = expm1(wperf_detectable_shift(sd, n, 0, alpha));
	for (size_t k = 2; k <= 1000 && !*runs_needed; k++)
		if (expm1(wperf_detectable_shift(sd, k, 0, alpha)) <= detect)
			*runs_needed = k;
	if (!*runs_needed)
		*runs_needed = 1000;
}
