/* SPDX-License-Identifier: MIT */
/*
 * Two runs side by side, as wperf-bench diff writes them: knots, sinks and
 * edges by identity, since identities, unlike tids, are the same across
 * recordings.
 */
#include "core/gate/run_diff.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/json_util.h"

enum side { IN_A = 1, IN_B = 2, IN_BOTH = 3 };

static const char *const side_names[] = {[IN_A] = "a", [IN_B] = "b", [IN_BOTH] = "both"};
static const char *const side_labels[] = {[IN_A] = "A only", [IN_B] = "B only", [IN_BOTH] = "both"};

/* An edge of either run: its share of each window, NAN where that run has none. */
struct diff_edge {
	const char *from, *to;
	double share[2];
};

static double change(const struct diff_edge *e)
{
	return (isnan(e->share[1]) ? 0 : e->share[1]) - (isnan(e->share[0]) ? 0 : e->share[0]);
}

/* Largest change first, then by name: what moved most leads. */
static int cmp_change(const void *pa, const void *pb)
{
	const struct diff_edge *a = pa, *b = pb;
	double ca = fabs(change(a)), cb = fabs(change(b));
	int c = strcmp(a->from, b->from);

	if (ca != cb)
		return ca < cb ? 1 : -1;
	return c ? c : strcmp(a->to, b->to);
}

/* The edges of both runs, each once (both runs' are sorted by (from, to)). */
static struct diff_edge *edges(const struct wperf_run_diff *d, size_t *n)
{
	const struct wperf_run *a = d->run[0], *b = d->run[1];
	struct diff_edge *out = calloc(a->nedges + b->nedges + 1, sizeof(*out));
	size_t i = 0, j = 0;

	*n = 0;
	while (out && (i < a->nedges || j < b->nedges)) {
		int c = i == a->nedges	 ? 1
			: j == b->nedges ? -1
					 : strcmp(a->edges[i].from, b->edges[j].from);
		struct wperf_run_edge *e;

		if (!c)
			c = strcmp(a->edges[i].to, b->edges[j].to);
		/* the row's names: the edge it is, once both ends are compared (B's
		 * disk -> fig1/A beside A's disk -> fig1/B was printed with A's names) */
		e = c <= 0 ? &a->edges[i] : &b->edges[j];
		out[*n] = (struct diff_edge){e->from, e->to, {NAN, NAN}};
		if (c <= 0)
			out[*n].share[0] = a->edges[i++].share;
		if (c >= 0)
			out[*n].share[1] = b->edges[j++].share;
		(*n)++;
	}
	if (out)
		qsort(out, *n, sizeof(*out), cmp_change);
	return out;
}

static int has_id(const struct wperf_idset *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->ids[i], id))
			return 1;
	return 0;
}

/* Calls fn for each knot of either run (A's first) with the side it is on. */
static int each_knot(const struct wperf_run_diff *d, void *ctx,
		     int (*fn)(void *ctx, const struct wperf_idset *k, enum side s))
{
	int e = 0;

	for (int r = 0; r < 2 && !e; r++)
		for (size_t i = 0; i < d->run[r]->nknots && !e; i++) {
			const struct wperf_idset *k = &d->run[r]->knots[i];
			int other = wperf_run_has_knot(d->run[!r], k);

			if (r == 1 && other)
				continue; /* said with A's */
			e = fn(ctx, k, other ? IN_BOTH : r ? IN_B : IN_A);
		}
	return e;
}

/* Likewise for each sink. */
static int each_sink(const struct wperf_run_diff *d, void *ctx,
		     int (*fn)(void *ctx, const char *id, enum side s))
{
	int e = 0;

	for (int r = 0; r < 2 && !e; r++)
		for (size_t i = 0; i < d->run[r]->sinks.n && !e; i++) {
			const char *id = d->run[r]->sinks.ids[i];
			int other = has_id(&d->run[!r]->sinks, id);

			if (r == 1 && other)
				continue;
			e = fn(ctx, id, other ? IN_BOTH : r ? IN_B : IN_A);
		}
	return e;
}

/* ---- text ---- */

static int text_knot(void *ctx, const struct wperf_idset *k, enum side s)
{
	struct wperf_buf *out = ctx;
	int e = wperf_buf_printf(out, "  %-7s {", side_labels[s]);

	for (size_t i = 0; i < k->n && !e; i++)
		e = wperf_buf_printf(out, "%s%s", i ? ", " : "", k->ids[i]);
	return e ? e : wperf_buf_printf(out, "}\n");
}

static int text_sink(void *ctx, const char *id, enum side s)
{
	return wperf_buf_printf(ctx, "  %-7s %s\n", side_labels[s], id);
}

static int text_share(struct wperf_buf *out, double share)
{
	return isnan(share) ? wperf_buf_printf(out, " %8s", "-")
			    : wperf_buf_printf(out, " %7.1f%%", 100 * share);
}

int wperf_run_diff_text(const struct wperf_run_diff *d, struct wperf_buf *out)
{
	size_t n;
	struct diff_edge *e = edges(d, &n);
	int ret = e ? 0 : -ENOMEM;

	if (!ret)
		ret = wperf_buf_printf(out, "A: %s\nB: %s\n\nknots:%s\n", d->name[0], d->name[1],
				       d->run[0]->nknots + d->run[1]->nknots ? "" : " none");
	if (!ret)
		ret = each_knot(d, out, text_knot);
	if (!ret)
		ret = wperf_buf_printf(out, "sinks:%s\n",
				       d->run[0]->sinks.n + d->run[1]->sinks.n ? "" : " none");
	if (!ret)
		ret = each_sink(d, out, text_sink);
	if (!ret)
		ret = wperf_buf_printf(out,
				       "edges (share of each window; -: under %g%%):\n"
				       " %8s %8s %8s  edge\n",
				       100 * WPERF_RUN_MIN_SHARE, "A", "B", "change");
	for (size_t i = 0; i < n && !ret; i++) {
		ret = text_share(out, e[i].share[0]);
		if (!ret)
			ret = text_share(out, e[i].share[1]);
		if (!ret)
			ret = wperf_buf_printf(out, " %+7.1f%%  %s -> %s\n", 100 * change(&e[i]),
					       e[i].from, e[i].to);
	}
	free(e);
	return ret;
}

/* ---- JSON ---- */

static struct json_object *id_array(const char *const *ids, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n && a; i++)
		if (wperf_json_append(a, json_object_new_string(ids[i])) < 0) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

static int json_knot(void *ctx, const struct wperf_idset *k, enum side s)
{
	struct json_object *o = json_object_new_object();

	if (!o || wperf_json_put(o, "members", id_array((const char *const *)k->ids, k->n)) < 0 ||
	    wperf_json_put(o, "in", json_object_new_string(side_names[s])) < 0) {
		json_object_put(o);
		return -ENOMEM;
	}
	return wperf_json_append(ctx, o);
}

static int json_sink(void *ctx, const char *id, enum side s)
{
	struct wperf_idset one = {(char **)&id, 1};

	return json_knot(ctx, &one, s);
}

/* A share, or null where the run has no such edge. */
static int put_share(struct json_object *o, const char *key, double share)
{
	return isnan(share) ? wperf_json_put_null(o, key)
			    : wperf_json_put(o, key, wperf_json_number(share));
}

static int json_edges(const struct wperf_run_diff *d, struct json_object *arr)
{
	size_t n;
	struct diff_edge *e = edges(d, &n);
	int ret = e ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !ret; i++) {
		struct json_object *o = json_object_new_object();

		ret = o ? 0 : -ENOMEM;
		if (!ret)
			ret = wperf_json_put(o, "from", json_object_new_string(e[i].from));
		if (!ret)
			ret = wperf_json_put(o, "to", json_object_new_string(e[i].to));
		if (!ret)
			ret = put_share(o, "a", e[i].share[0]);
		if (!ret)
			ret = put_share(o, "b", e[i].share[1]);
		if (!ret)
			ret = wperf_json_put(o, "change", wperf_json_number(change(&e[i])));
		ret = ret ? (json_object_put(o), ret) : wperf_json_append(arr, o);
	}
	free(e);
	return ret;
}

int wperf_run_diff_json(const struct wperf_run_diff *d, struct wperf_buf *out)
{
	struct json_object *o = json_object_new_object(), *knots = json_object_new_array(),
			   *sinks = json_object_new_array(), *es = json_object_new_array();
	int ret = o && knots && sinks && es ? 0 : -ENOMEM;

	if (!ret)
		ret = each_knot(d, knots, json_knot);
	if (!ret)
		ret = each_sink(d, sinks, json_sink);
	if (!ret)
		ret = json_edges(d, es);
	if (!ret)
		ret = wperf_json_put(o, "schema", json_object_new_string(WPERF_DIFF_SCHEMA));
	for (int r = 0; r < 2 && !ret; r++)
		ret = wperf_json_put(o, r ? "b" : "a", json_object_new_string(d->name[r]));
	if (!ret) {
		ret = wperf_json_put(o, "knots", knots);
		knots = NULL;
	}
	if (!ret) {
		ret = wperf_json_put(o, "sinks", sinks);
		sinks = NULL;
	}
	if (!ret) {
		ret = wperf_json_put(o, "edges", es);
		es = NULL;
	}
	if (!ret)
		ret = wperf_buf_printf(out, "%s\n",
				       json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(knots);
	json_object_put(sinks);
	json_object_put(es);
	json_object_put(o);
	return ret;
}
