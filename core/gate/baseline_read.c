/* SPDX-License-Identifier: MIT */
/*
 * Reading a baseline (see baseline.h) from YAML with the strict-document kit
 * (core/util/doc_yaml.h): key by key, strictly; every error names the file,
 * the line and column, the key path and what was expected.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/baseline.h"
#include "core/gate/baseline_internal.h"
#include "core/util/doc_yaml.h"
#include "core/util/cmp.h"

/* A baseline nests 4 levels deep (accepted, an entry, its edge, from); deeper
 * is a mistake. It has no anchors and aliases. */
static const struct wperf_yaml_limits limits = {"a baseline", 16, 0};

static const struct wperf_doc_range any_number = {-INFINITY, INFINITY, 0, 0};
static const struct wperf_doc_range not_negative = {0, INFINITY, 0, 0};

struct reader {
	struct wperf_yaml y;
	struct wperf_buf knots, edges, metrics, accepted; /* the arrays of out, growing */
	int version;					  /* of the format: 1 or 2 */
};

/* A count from min to max, the value of key at the current path. */
static int get_count(struct wperf_yaml *y, const yaml_node_t *n, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	long long v = 0;
	int ret = wperf_yaml_integer(y, n, (long long)min, (long long)max, &v);

	*out = (uint64_t)v;
	return ret;
}

/* Runs read(y, values[i]) with key i pushed on the path, when the key is there. */
#define AT_KEY(y, keys, values, i, read)                                                           \
	do {                                                                                       \
		if (!ret && (values)[i]) {                                                         \
			size_t saved_ = wperf_doc_path_key(&(y)->path, (keys)[i]);                 \
			ret = (read);                                                              \
			if (!ret)                                                                  \
				wperf_doc_path_pop(&(y)->path, saved_);                            \
		}                                                                                  \
	} while (0)

/* A list of numbers in range into a malloc'ed array. */
static int get_numbers(struct wperf_yaml *y, const yaml_node_t *n,
		       const struct wperf_doc_range *range, double **out, size_t *count)
{
	const yaml_node_item_t *items;
	int ret = wperf_yaml_list(y, n, &items, count);

	if (ret)
		return ret;
	if (!(*out = calloc(*count ? *count : 1, sizeof(**out))))
		return wperf_yaml_no_memory(y);
	for (size_t i = 0; i < *count && !ret; i++) {
		size_t saved = wperf_doc_path_index(&y->path, i);

		ret = wperf_yaml_number(y, wperf_yaml_node(y, items[i]), range, &(*out)[i]);
		if (!ret)
			wperf_doc_path_pop(&y->path, saved);
	}
	return ret;
}

/* A non-empty list of strings into a malloc'ed array of malloc'ed strings. */
/* The list n of names into *out (count of them); with check, each must pass
 * wperf_accepted_name_why. */
static int get_strings(struct wperf_yaml *y, const yaml_node_t *n, int check, char ***out,
		       size_t *count)
{
	const yaml_node_item_t *items;
	size_t nitems;
	int ret = wperf_yaml_list(y, n, &items, &nitems);

	if (!ret && !nitems)
		ret = wperf_yaml_fail(y, n, "expected at least one name, found an empty list");
	if (!ret && !(*out = calloc(nitems, sizeof(**out))))
		ret = wperf_yaml_no_memory(y);
	for (*count = 0; !ret && *count < nitems; (*count)++) {
		size_t saved = wperf_doc_path_index(&y->path, *count);

		const yaml_node_t *item = wperf_yaml_node(y, items[*count]);
		const char *why;

		ret = wperf_yaml_strdup(y, item, 0, &(*out)[*count]);
		if (!ret && check && (why = wperf_accepted_name_why((*out)[*count])))
			ret = wperf_yaml_fail(y, item, "%s, found \"%s\"", why, (*out)[*count]);
		if (!ret)
			wperf_doc_path_pop(&y->path, saved);
	}
	return ret;
}

static int read_env(struct wperf_yaml *y, const yaml_node_t *n, struct wperf_env *env)
{
	static const char *const keys[] = {"kernel", "cpus", "tool", "cpu", "calibration"};
	yaml_node_t *v[5];
	uint64_t cpus = 0;
	int ret = wperf_yaml_keys(y, n, keys, 5, 0, v);

	AT_KEY(y, keys, v, 0, wperf_yaml_fixed(y, v[0], env->kernel, sizeof(env->kernel)));
	AT_KEY(y, keys, v, 1, get_count(y, v[1], 0, UINT32_MAX, &cpus));
	AT_KEY(y, keys, v, 2, wperf_yaml_fixed(y, v[2], env->tool, sizeof(env->tool)));
	AT_KEY(y, keys, v, 3, wperf_yaml_fixed(y, v[3], env->cpu_model, sizeof(env->cpu_model)));
	AT_KEY(y, keys, v, 4, wperf_yaml_number(y, v[4], &not_negative, &env->calibration));
	if (!(env->calibration > 0)) /* -0 too is unknown, and left out when written */
		env->calibration = 0;
	env->cpus = (uint32_t)cpus;
	return ret;
}

/* At most one sample per run: a run may have failed to measure. */
static int get_throughput(struct wperf_yaml *y, const yaml_node_t *n, struct wperf_baseline *b)
{
	int ret = get_numbers(y, n, &any_number, &b->throughput, &b->nthroughput);

	if (!ret && b->nthroughput > b->runs)
		ret = wperf_yaml_fail(y, n, "expected at most one sample per run (%zu), found %zu",
				      b->runs, b->nthroughput);
	return ret;
}

static int read_throughput(struct wperf_yaml *y, const yaml_node_t *n, struct wperf_baseline *b)
{
	static const char *const keys[] = {"samples", "unit"};
	yaml_node_t *v[2];
	int ret = wperf_yaml_keys(y, n, keys, 2, 1, v);

	AT_KEY(y, keys, v, 0, get_throughput(y, v[0], b));
	AT_KEY(y, keys, v, 1, wperf_yaml_strdup(y, v[1], 0, &b->unit));
	return ret;
}

/* A knot or an edge as read, with its place in the file's list, for sorting. */
struct placed {
	const void *item; /* a struct wperf_baseline_knot or edge */
	size_t index;
};

static int cmp_placed_knot(const void *pa, const void *pb)
{
	const struct placed *a = pa, *b = pb;
	const struct wperf_baseline_knot *ka = a->item, *kb = b->item;
	int c = wperf_idset_cmp(&ka->vertices, &kb->vertices);

	return c ? c : wperf_cmp_u64(a->index, b->index);
}

static int cmp_placed_edge(const void *pa, const void *pb)
{
	const struct placed *a = pa, *b = pb;
	int c = wperf_baseline_cmp_edge(a->item, b->item);

	return c ? c : wperf_cmp_u64(a->index, b->index);
}

/* The n items of array (size bytes each) sorted by cmp, each with its index in
 * the file's list, into a malloc'ed array; NULL when out of memory. */
static struct placed *sort_placed(const void *array, size_t n, size_t size,
				  int (*cmp)(const void *, const void *))
{
	struct placed *p = calloc(n, sizeof(*p));

	if (!p)
		return NULL;
	for (size_t i = 0; i < n; i++)
		p[i] = (struct placed){(const char *)array + i * size, i};
	qsort(p, n, sizeof(*p), cmp);
	return p;
}

/* Item i of list n, pushed on the path (at the list's key), for an error. */
static const yaml_node_t *item_at(struct wperf_yaml *y, const yaml_node_t *n, size_t i)
{
	wperf_doc_path_index(&y->path, i);
	return wperf_yaml_node(y, n->data.sequence.items.start[i]);
}

/* No knot twice (the second one in the file is named); the order is kept. */
static int check_knots(struct wperf_yaml *y, const yaml_node_t *n, const struct wperf_baseline *b)
{
	struct placed *p;
	int ret = 0;

	if (b->nknots < 2)
		return 0;
	if (!(p = sort_placed(b->knots, b->nknots, sizeof(*b->knots), cmp_placed_knot)))
		return wperf_yaml_no_memory(y);
	for (size_t i = 1; i < b->nknots && !ret; i++) {
		const struct wperf_baseline_knot *prev = p[i - 1].item, *k = p[i].item;

		if (!wperf_idset_cmp(&prev->vertices, &k->vertices))
			ret = wperf_yaml_fail(y, item_at(y, n, p[i].index),
					      "the same knot as knots[%zu]", p[i - 1].index);
	}
	free(p);
	return ret;
}

/* The edges sorted, and no edge twice (the second one in the file is named). */
static int check_edges(struct wperf_yaml *y, const yaml_node_t *n, struct wperf_baseline *b)
{
	struct wperf_baseline_edge *sorted;
	struct placed *p;
	int ret = 0;

	if (b->nedges < 2)
		return 0;
	p = sort_placed(b->edges, b->nedges, sizeof(*b->edges), cmp_placed_edge);
	sorted = calloc(b->nedges, sizeof(*sorted));
	if (!p || !sorted) {
		free(p);
		free(sorted);
		return wperf_yaml_no_memory(y);
	}
	for (size_t i = 0; i < b->nedges; i++) {
		sorted[i] = b->edges[p[i].index];
		if (i && !ret && !wperf_baseline_cmp_edge(&sorted[i - 1], &sorted[i]))
			ret = wperf_yaml_fail(y, item_at(y, n, p[i].index),
					      "edge %s -> %s, listed twice", sorted[i].from,
					      sorted[i].to);
	}
	memcpy(b->edges, sorted, b->nedges * sizeof(*sorted));
	free(sorted);
	free(p);
	return ret;
}

static int read_knot(struct reader *r, const yaml_node_t *item, struct wperf_baseline *b)
{
	static const char *const keys[] = {"vertices", "seen"};
	struct wperf_yaml *y = &r->y;
	struct wperf_baseline_knot k = {0};
	yaml_node_t *v[2];
	uint64_t seen = 0;
	char **ids = NULL;
	size_t nids = 0;
	int ret = wperf_yaml_keys(y, item, keys, 2, 2, v);

	AT_KEY(y, keys, v, 0, get_strings(y, v[0], 0, &ids, &nids));
	AT_KEY(y, keys, v, 1, get_count(y, v[1], 0, b->runs, &seen));
	if (!ret)
		ret = wperf_idset_from((const char *const *)ids, nids, &k.vertices);
	k.seen = seen;
	if (!ret)
		ret = wperf_baseline_grow(&r->knots, &b->knots, &b->nknots, &k, sizeof(k));
	if (ret == -ENOMEM)
		wperf_yaml_no_memory(y);
	if (ret)
		wperf_idset_release(&k.vertices);
	wperf_baseline_free_strings(ids, nids);
	return ret;
}

/* One sample per run. */
static int get_edge_samples(struct wperf_yaml *y, const yaml_node_t *n,
			    const struct wperf_baseline *b, struct wperf_baseline_edge *e)
{
	size_t nsamples = 0;
	int ret = get_numbers(y, n, &not_negative, &e->samples, &nsamples);

	if (!ret && nsamples != b->runs)
		ret = wperf_yaml_fail(y, n, "expected one sample per run (%zu), found %zu", b->runs,
				      nsamples);
	return ret;
}

static int read_edge(struct reader *r, const yaml_node_t *item, struct wperf_baseline *b)
{
	static const char *const keys[] = {"from", "to", "samples"};
	struct wperf_yaml *y = &r->y;
	struct wperf_baseline_edge e = {0};
	yaml_node_t *v[3];
	int ret = wperf_yaml_keys(y, item, keys, 3, 3, v);

	AT_KEY(y, keys, v, 0, wperf_yaml_strdup(y, v[0], 0, &e.from));
	AT_KEY(y, keys, v, 1, wperf_yaml_strdup(y, v[1], 0, &e.to));
	AT_KEY(y, keys, v, 2, get_edge_samples(y, v[2], b, &e));
	if (!ret && (ret = wperf_baseline_grow(&r->edges, &b->edges, &b->nedges, &e, sizeof(e))))
		wperf_yaml_no_memory(y);
	if (ret) {
		free(e.from);
		free(e.to);
		free(e.samples);
	}
	return ret;
}

/* One name of an accepted entry into *out. */
static int get_accepted_name(struct wperf_yaml *y, const yaml_node_t *n, char **out)
{
	int ret = wperf_yaml_strdup(y, n, 0, out);
	const char *why = ret ? NULL : wperf_accepted_name_why(*out);

	return why ? wperf_yaml_fail(y, n, "%s, found \"%s\"", why, *out) : ret;
}

/* An accepted edge: {from: GLOB, to: GLOB}. */
static int get_accepted_edge(struct wperf_yaml *y, const yaml_node_t *n, struct wperf_accepted *a)
{
	static const char *const keys[] = {"from", "to"};
	yaml_node_t *v[2];
	int ret = wperf_yaml_keys(y, n, keys, 2, 2, v);

	a->is_edge = 1;
	if (!ret && !(a->globs = calloc(2, sizeof(*a->globs))))
		ret = wperf_yaml_no_memory(y);
	AT_KEY(y, keys, v, 0, get_accepted_name(y, v[0], &a->globs[a->nglobs++]));
	AT_KEY(y, keys, v, 1, get_accepted_name(y, v[1], &a->globs[a->nglobs++]));
	return ret;
}

static int read_accepted(struct reader *r, const yaml_node_t *item, struct wperf_baseline *b)
{
	static const char *const keys[] = {"reason", "knot", "edge"};
	struct wperf_yaml *y = &r->y;
	struct wperf_accepted a = {0};
	yaml_node_t *v[3];
	int ret = wperf_yaml_keys(y, item, keys, 3, 1, v);

	if (!ret && !v[1] == !v[2])
		ret = wperf_yaml_fail(y, item, "expected one of \"knot\" or \"edge\"");
	a.line = item->start_mark.line + 1;
	a.last_line = item->end_mark.line + !!item->end_mark.column;
	AT_KEY(y, keys, v, 0, wperf_yaml_strdup(y, v[0], 0, &a.reason));
	if (!ret && !*a.reason) {
		wperf_doc_path_key(&y->path, keys[0]);
		ret = wperf_yaml_fail(y, v[0],
				      "expected why this bottleneck is accepted, found "
				      "an empty string");
	}
	AT_KEY(y, keys, v, 1, get_strings(y, v[1], 1, &a.globs, &a.nglobs));
	AT_KEY(y, keys, v, 2, get_accepted_edge(y, v[2], &a));
	if (!ret &&
	    (ret = wperf_baseline_grow(&r->accepted, &b->accepted, &b->naccepted, &a, sizeof(a))))
		wperf_yaml_no_memory(y);
	if (ret) {
		wperf_baseline_free_strings(a.globs, a.nglobs);
		free(a.reason);
	}
	return ret;
}

/* Each item of list n (at key) read by read_item, with its index on the path. */
static int read_items(struct reader *r, const yaml_node_t *n, struct wperf_baseline *b,
		      int (*read_item)(struct reader *, const yaml_node_t *,
				       struct wperf_baseline *))
{
	const yaml_node_item_t *items;
	size_t count = 0;
	int ret = wperf_yaml_list(&r->y, n, &items, &count);

	for (size_t i = 0; i < count && !ret; i++) {
		size_t saved = wperf_doc_path_index(&r->y.path, i);

		ret = read_item(r, wperf_yaml_node(&r->y, items[i]), b);
		if (!ret)
			wperf_doc_path_pop(&r->y.path, saved);
	}
	return ret;
}

/* A metric: name, unit, lower_is_better, samples (at most one per run). */
static int read_metric(struct reader *r, const yaml_node_t *item, struct wperf_baseline *b)
{
	static const char *const keys[] = {"name", "lower_is_better", "samples", "unit"};
	struct wperf_yaml *y = &r->y;
	struct wperf_baseline_metric m = {0};
	yaml_node_t *v[4];
	int ret = wperf_yaml_keys(y, item, keys, 4, 3, v);

	AT_KEY(y, keys, v, 0, wperf_yaml_fixed(y, v[0], m.metric.name, sizeof(m.metric.name)));
	if (!ret &&
	    (!wperf_metric_name_ok(m.metric.name) || wperf_baseline_metric(b, m.metric.name))) {
		wperf_doc_path_key(&y->path, "name");
		return wperf_yaml_fail(y, v[0],
				       "expected a metric's name (letters, digits, '_', '.', "
				       "'-'; not throughput or bottlenecks), once");
	}
	AT_KEY(y, keys, v, 1, wperf_yaml_bool(y, v[1], &m.metric.lower_is_better));
	AT_KEY(y, keys, v, 2, get_numbers(y, v[2], &any_number, &m.samples, &m.nsamples));
	if (!ret && m.nsamples > b->runs) {
		wperf_doc_path_key(&y->path, "samples");
		ret =
		    wperf_yaml_fail(y, v[2], "expected at most one sample per run (%zu), found %zu",
				    b->runs, m.nsamples);
	}
	AT_KEY(y, keys, v, 3, wperf_yaml_fixed(y, v[3], m.metric.unit, sizeof(m.metric.unit)));
	if (!ret && wperf_baseline_grow(&r->metrics, &b->metrics, &b->nmetrics, &m, sizeof(m)))
		ret = wperf_yaml_no_memory(y);
	if (ret)
		free(m.samples);
	return ret;
}

/* Metrics came with format 2: in a file that says 1 they are a mistake. */
static int read_metrics(struct reader *r, const yaml_node_t *n, struct wperf_baseline *b)
{
	if (r->version < 2)
		return wperf_yaml_fail(&r->y, n, "metrics need format: %s (this file says %s)",
				       WPERF_BASELINE_FORMAT_METRICS, WPERF_BASELINE_FORMAT);
	return read_items(r, n, b, read_metric);
}

static int read_knots(struct reader *r, const yaml_node_t *n, struct wperf_baseline *b)
{
	int ret = read_items(r, n, b, read_knot);

	return ret ? ret : check_knots(&r->y, n, b);
}

static int read_edges(struct reader *r, const yaml_node_t *n, struct wperf_baseline *b)
{
	int ret = read_items(r, n, b, read_edge);

	return ret ? ret : check_edges(&r->y, n, b);
}

/* The format is checked before anything else: a baseline of another version
 * may well have keys this one does not know, but that is not what to say. */
static int check_format(struct reader *r, const yaml_node_t *root)
{
	struct wperf_yaml *y = &r->y;
	const yaml_node_t *v = wperf_yaml_lookup(y, root, "format");
	char found[64];
	const char *s;
	size_t len, saved;
	int ret;

	if (!v)
		return 0; /* read_root says so */
	saved = wperf_doc_path_key(&y->path, "format");
	ret = wperf_yaml_string(y, v, 0, &s, &len);
	r->version = ret					 ? 0
		     : !strcmp(s, WPERF_BASELINE_FORMAT)	 ? 1
		     : !strcmp(s, WPERF_BASELINE_FORMAT_METRICS) ? 2
								 : 0;
	if (!ret && !r->version)
		ret = wperf_yaml_fail(
		    y, v, "expected %s or %s (the formats this wperf-bench reads), found %s",
		    WPERF_BASELINE_FORMAT, WPERF_BASELINE_FORMAT_METRICS,
		    wperf_yaml_describe(v, found, sizeof(found)));
	if (!ret)
		wperf_doc_path_pop(&y->path, saved);
	return ret;
}

/* At least one run, at most a million. */
static int get_runs(struct wperf_yaml *y, const yaml_node_t *n, struct wperf_baseline *b)
{
	uint64_t runs = 0;
	int ret = get_count(y, n, 1, 1000000, &runs);

	b->runs = runs;
	return ret;
}

static int read_root(struct reader *r, const yaml_node_t *root, struct wperf_baseline *b)
{
	static const char *const keys[] = {"format",	  "scenario",	"runs",
					   "environment", "throughput", "knots",
					   "edges",	  "accepted",	"metrics"};
	struct wperf_yaml *y = &r->y;
	yaml_node_t *v[9];
	int ret = check_format(r, root);

	ret = ret ? ret : wperf_yaml_keys(y, root, keys, 9, 3, v);
	/* format is there (a required key) and right (check_format). */
	AT_KEY(y, keys, v, 1, wperf_yaml_strdup(y, v[1], 0, &b->scenario));
	AT_KEY(y, keys, v, 2, get_runs(y, v[2], b));
	AT_KEY(y, keys, v, 3, read_env(y, v[3], &b->env));
	AT_KEY(y, keys, v, 4, read_throughput(y, v[4], b));
	AT_KEY(y, keys, v, 5, read_knots(r, v[5], b));
	AT_KEY(y, keys, v, 6, read_edges(r, v[6], b));
	AT_KEY(y, keys, v, 7, read_items(r, v[7], b, read_accepted));
	AT_KEY(y, keys, v, 8, read_metrics(r, v[8], b));
	return ret;
}

int wperf_baseline_read(const char *path_for_messages, const char *text, size_t len,
			struct wperf_baseline *out, struct wperf_error *err)
{
	struct reader r = {0};
	int ret;

	memset(out, 0, sizeof(*out));
	ret = wperf_yaml_load(&r.y, path_for_messages ? path_for_messages : "baseline", text, len,
			      &limits, err);
	if (!ret)
		ret = read_root(&r, wperf_yaml_root(&r.y), out);
	wperf_yaml_release(&r.y);
	if (ret)
		wperf_baseline_release(out);
	return ret;
}
