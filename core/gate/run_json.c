/* SPDX-License-Identifier: MIT */
/*
 * Runs and the environment as JSON (see run_json.h): written with json-c, read
 * back strictly, with the key path of every mistake.
 */
#include "core/gate/run_json.h"

#include "core/util/json_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/cmp.h"

static const struct wperf_doc_range not_negative = {0, INFINITY, 0, 0};

/* ---- writing ---- */

static struct json_object *idset_to_json(const struct wperf_idset *s)
{
	struct json_object *ids = json_object_new_array();
	int ret = ids ? 0 : -ENOMEM;

	for (size_t j = 0; j < s->n && !ret; j++)
		ret = wperf_json_append(ids, json_object_new_string(s->ids[j]));
	if (ret) {
		json_object_put(ids);
		return NULL;
	}
	return ids;
}

static struct json_object *knots_to_json(const struct wperf_run *r)
{
	struct json_object *arr = json_object_new_array();
	int ret = arr ? 0 : -ENOMEM;

	for (size_t i = 0; i < r->nknots && !ret; i++)
		ret = wperf_json_append(arr, idset_to_json(&r->knots[i]));
	if (ret) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

/* A side of a call site: its text, or null. */
static int put_side(struct json_object *o, const char *key, const char *text)
{
	return text ? wperf_json_put(o, key, json_object_new_string(text))
		    : wperf_json_put_null(o, key);
}

/* The call sites of e, as {"waiter", "waker", "share"} objects. */
static struct json_object *sites_to_json(const struct wperf_run_edge *e)
{
	struct json_object *arr = json_object_new_array();
	int ret = arr ? 0 : -ENOMEM;

	for (size_t i = 0; i < e->nsites && !ret; i++) {
		const struct wperf_run_site *site = &e->sites[i];
		struct json_object *o = json_object_new_object();

		ret = wperf_json_append(arr, o);
		if (!ret)
			ret = put_side(o, "waiter", site->waiter);
		if (!ret)
			ret = put_side(o, "waker", site->waker);
		if (!ret)
			ret = wperf_json_put(o, "share", wperf_json_number(site->share));
	}
	if (ret) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

/* The edges; *ret is -EINVAL for a share that is negative or not finite. */
static struct json_object *edges_to_json(const struct wperf_run *r, int *ret)
{
	struct json_object *arr = json_object_new_array();

	*ret = arr ? 0 : -ENOMEM;
	for (size_t i = 0; i < r->nedges && !*ret; i++) {
		const struct wperf_run_edge *e = &r->edges[i];
		struct json_object *o;

		if (!isfinite(e->share) || e->share < 0) {
			*ret = -EINVAL;
			break;
		}
		for (size_t k = 0; k < e->nsites; k++)
			if (!isfinite(e->sites[k].share) || e->sites[k].share < 0)
				*ret = -EINVAL;
		if (*ret)
			break;
		o = json_object_new_object();
		*ret = wperf_json_append(arr, o);
		if (!*ret)
			*ret = wperf_json_put(o, "from", json_object_new_string(e->from));
		if (!*ret)
			*ret = wperf_json_put(o, "to", json_object_new_string(e->to));
		if (!*ret)
			*ret = wperf_json_put(o, "share", wperf_json_number(e->share));
		if (!*ret && e->nsites)
			*ret = wperf_json_put(o, "sites", sites_to_json(e));
	}
	if (*ret) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

/* {"running_ns": N, "runnable_ns": N, "span_ns": N}: the target's time (a
 * run's have_time); span_ns is left out when 0 (not kept). */
static struct json_object *time_to_json(const struct wperf_run *r)
{
	struct json_object *t = json_object_new_object();

	if (t &&
	    (wperf_json_put(t, "running_ns", json_object_new_uint64(r->running_ns)) ||
	     wperf_json_put(t, "runnable_ns", json_object_new_uint64(r->runnable_ns)) ||
	     (r->span_ns && wperf_json_put(t, "span_ns", json_object_new_uint64(r->span_ns))))) {
		json_object_put(t);
		return NULL;
	}
	return t;
}

static int read_time(const struct json_object *o, const char *where, struct wperf_run *r,
		     struct wperf_error *err)
{
	static const char *const keys[] = {"running_ns", "runnable_ns", "span_ns"};
	uint64_t *into[] = {&r->running_ns, &r->runnable_ns, &r->span_ns};
	struct json_object *v[3];
	char sub[WPERF_JSON_PATH_LEN];
	int ret = wperf_json_get_keys(o, where, keys, 3, 2, v, err); /* span_ns came later */

	for (size_t i = 0; i < 3 && !ret; i++) {
		wperf_json_key_path(sub, where, keys[i]);
		if (v[i] || i < 2) /* a null required one is an error */
			ret = wperf_json_get_count(v[i], sub, 0, UINT64_MAX, "a whole number",
						   into[i], err);
	}
	r->have_time = !ret;
	return ret;
}

int wperf_run_to_json(const struct wperf_run *r, struct json_object **out)
{
	struct json_object *o = json_object_new_object();
	int ret = o ? 0 : -ENOMEM;

	*out = NULL;
	if (!ret && isfinite(r->throughput))
		ret = wperf_json_put(o, "throughput", wperf_json_number(r->throughput));
	else if (!ret)
		ret = wperf_json_put_null(o, "throughput");
	if (!ret)
		ret = wperf_json_put(o, "window_ns", json_object_new_uint64(r->window_ns));
	if (!ret)
		ret = wperf_json_put(o, "lost_events", json_object_new_uint64(r->lost_events));
	if (!ret && r->events)
		ret = wperf_json_put(o, "events", json_object_new_uint64(r->events));
	if (!ret)
		ret = wperf_json_put(o, "knots", knots_to_json(r));
	if (!ret && r->sinks.n)
		ret = wperf_json_put(o, "sinks", idset_to_json(&r->sinks));
	if (!ret && r->cmetric_first)
		ret = wperf_json_put(o, "cmetric_first", json_object_new_string(r->cmetric_first));
	if (!ret && r->timer_paced.n)
		ret = wperf_json_put(o, "timer_paced", idset_to_json(&r->timer_paced));
	if (!ret && r->nmetrics) {
		struct json_object *m;

		ret = wperf_run_metrics_to_json(r->metrics, r->nmetrics, &m);
		ret = ret ? ret : wperf_json_put(o, "metrics", m);
	}
	if (!ret && r->have_time)
		ret = wperf_json_put(o, "target_time", time_to_json(r));
	if (!ret && r->have_checks) {
		struct json_object *c = json_object_new_object();

		ret = wperf_json_put(o, "checks", c);
		if (!ret)
			ret = wperf_json_put(c, "ok", json_object_new_uint64(r->checks_ok));
		if (!ret)
			ret = wperf_json_put(c, "warn", json_object_new_uint64(r->checks_warn));
		if (!ret && r->checks_first)
			ret = wperf_json_put(c, "first", json_object_new_string(r->checks_first));
	}
	if (!ret) {
		struct json_object *edges = edges_to_json(r, &ret);

		if (!ret)
			ret = wperf_json_put(o, "edges", edges);
	}
	if (ret) {
		json_object_put(o);
		return ret;
	}
	*out = o;
	return 0;
}

/* A string of a fixed-size array, which may lack its NUL when full. */
static struct json_object *fixed_string(const char *s, size_t size)
{
	return json_object_new_string_len(s, (int)strnlen(s, size));
}

int wperf_env_to_json(const struct wperf_env *e, struct json_object **out)
{
	struct json_object *o = json_object_new_object();
	int ret = o ? 0 : -ENOMEM;

	*out = NULL;
	if (!ret)
		ret = wperf_json_put(o, "kernel", fixed_string(e->kernel, sizeof(e->kernel)));
	if (!ret)
		ret = wperf_json_put(o, "cpus", json_object_new_int64(e->cpus));
	if (!ret)
		ret = wperf_json_put(o, "tool", fixed_string(e->tool, sizeof(e->tool)));
	if (!ret)
		ret = wperf_json_put(o, "cpu", fixed_string(e->cpu_model, sizeof(e->cpu_model)));
	/* One that is not a number > 0 is unknown, as the reader would take 0. */
	if (!ret)
		ret = wperf_json_put(
		    o, "calibration",
		    wperf_json_number(
			isfinite(e->calibration) && e->calibration > 0 ? e->calibration : 0));
	if (ret) {
		json_object_put(o);
		return ret;
	}
	*out = o;
	return 0;
}

/* ---- reading ---- */

/* Is key present in o (even as null)? */
static int has_key(const struct json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

/* ---- a run ---- */

/* An identity and where it is in its array, to find the ones listed twice. */
struct placed_id {
	char *id; /* as a run keeps it */
	size_t index;
};

static int cmp_placed_id(const void *pa, const void *pb)
{
	const struct placed_id *a = pa, *b = pb;
	int c = strcmp(a->id, b->id);

	return c ? c : wperf_cmp_u64(a->index, b->index);
}

/* The identities of array o (path its name; what: "knot", "sinks", ...), each
 * listed once, into *out (left as it was on error). */
static int read_idset(struct json_object *o, const char *path, const char *what,
		      struct wperf_idset *out, struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];
	struct placed_id *p;
	const char **ids, *dup = NULL;
	size_t n, twice = SIZE_MAX, done = 0;
	int ret = 0;

	if (!json_object_is_type(o, json_type_array))
		return wperf_json_expected(o, path, "an array of identities", err);
	n = json_object_array_length(o);
	p = calloc(n + 1, sizeof(*p));
	ids = calloc(n + 1, sizeof(*ids));
	if (!p || !ids)
		ret = wperf_json_no_memory(err, path);
	for (; done < n && !ret; done++) {
		const char *id;

		wperf_json_index_path(sub, path, done);
		ret = wperf_json_get_identity(json_object_array_get_idx(o, done), sub, &id, err);
		if (ret)
			break;
		p[done].id = wperf_identity_dup(id);
		p[done].index = done;
		if (!p[done].id)
			ret = wperf_json_no_memory(err, path);
	}
	if (!ret) {
		/* Listed twice: of the equal identities, the one listed second. */
		qsort(p, n, sizeof(*p), cmp_placed_id);
		for (size_t i = 1; i < n; i++) {
			if (!strcmp(p[i - 1].id, p[i].id) && p[i].index < twice) {
				twice = p[i].index;
				dup = p[i].id;
			}
		}
		if (twice != SIZE_MAX) {
			wperf_json_index_path(sub, path, twice);
			ret =
			    wperf_json_fail(err, sub, "\"%s\", listed twice in the %s", dup, what);
		}
	}
	if (!ret) {
		for (size_t i = 0; i < n; i++)
			ids[i] = p[i].id;
		if (wperf_idset_from(ids, n, out))
			ret = wperf_json_no_memory(err, path);
	}
	for (size_t i = 0; p && i < done; i++)
		free(p[i].id);
	free(p);
	free(ids);
	return ret;
}

/* Knot o (path its name) added to r. */
static int read_knot(struct json_object *o, const char *path, struct wperf_run *r,
		     struct wperf_error *err)
{
	struct wperf_idset knot = {0};
	int ret = read_idset(o, path, "knot", &knot, err);

	if (!ret && knot.n == 0)
		ret = wperf_json_fail(err, path, "an empty knot: a knot has at least one identity");
	if (!ret && wperf_run_add_knot(r, (const char *const *)knot.ids, knot.n))
		ret = wperf_json_no_memory(err, path);
	wperf_idset_release(&knot);
	return ret;
}

/* A side of call site o (path its name) into *text: a stack in a line, or
 * NULL for a JSON null. */
static int read_side(struct json_object *o, const char *path, const char **text,
		     struct wperf_error *err)
{
	*text = NULL;
	return o ? wperf_json_get_identity(o, path, text, err) : 0;
}

/* Call site o (path its name) added to edge e. */
static int read_site(struct json_object *o, const char *path, struct wperf_run_edge *e,
		     struct wperf_error *err)
{
	static const char *const keys[] = {"share", "waiter", "waker"}; /* a side: or null */
	struct json_object *v[3];
	char sub[WPERF_JSON_PATH_LEN];
	const char *waiter = NULL, *waker = NULL;
	size_t before = e->nsites;
	double share;
	int ret = wperf_json_get_keys(o, path, keys, 3, 1, v, err);

	wperf_json_key_path(sub, path, "share");
	if (!ret)
		ret = wperf_json_get_number(v[0], sub, &not_negative, &share, err);
	wperf_json_key_path(sub, path, "waiter");
	if (!ret)
		ret = read_side(v[1], sub, &waiter, err);
	wperf_json_key_path(sub, path, "waker");
	if (!ret)
		ret = read_side(v[2], sub, &waker, err);
	if (!ret && !waiter && !waker)
		return wperf_json_fail(err, path, "a call site without a waiter or a waker");
	if (!ret && wperf_run_edge_add_site(e, waiter, waker, share))
		return wperf_json_no_memory(err, path);
	if (!ret && e->nsites == before)
		ret = wperf_json_fail(err, path, "a call site listed twice");
	return ret;
}

/* The call sites of edge e, array o (path its name). */
static int read_sites(struct json_object *o, const char *path, struct wperf_run_edge *e,
		      struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];
	int ret = wperf_json_want_type(o, path, json_type_array, err);
	size_t n = ret ? 0 : json_object_array_length(o);

	for (size_t i = 0; i < n && !ret; i++) {
		wperf_json_index_path(sub, path, i);
		ret = read_site(json_object_array_get_idx(o, i), sub, e, err);
	}
	return ret;
}

/* Edge o (path its name) added to r. */
static int read_edge(struct json_object *o, const char *path, struct wperf_run *r,
		     struct wperf_error *err)
{
	static const char *const keys[] = {"from", "to", "share", "sites"}; /* sites: optional */
	struct json_object *v[4];
	char sub[WPERF_JSON_PATH_LEN], *f = NULL, *t = NULL;
	const char *from, *to;
	size_t before = r->nedges;
	double share;
	int ret = wperf_json_get_keys(o, path, keys, 4, 3, v, err);

	wperf_json_key_path(sub, path, "from");
	if (!ret)
		ret = wperf_json_get_identity(v[0], sub, &from, err);
	wperf_json_key_path(sub, path, "to");
	if (!ret)
		ret = wperf_json_get_identity(v[1], sub, &to, err);
	wperf_json_key_path(sub, path, "share");
	if (!ret)
		ret = wperf_json_get_number(v[2], sub, &not_negative, &share, err);
	/* The identities as the run keeps them. */
	if (!ret && (!(f = wperf_identity_dup(from)) || !(t = wperf_identity_dup(to))))
		ret = wperf_json_no_memory(err, path);
	/* The share was checked: add_edge fails only for memory. */
	if (!ret && wperf_run_add_edge(r, f, t, share))
		ret = wperf_json_no_memory(err, path);
	/* Or it added the share to the same edge, listed before. */
	if (!ret && r->nedges == before)
		ret = wperf_json_fail(err, path, "edge %s -> %s, listed twice", f, t);
	wperf_json_key_path(sub, path, "sites");
	if (!ret && v[3])
		ret = read_sites(v[3], sub, wperf_run_edge(r, f, t), err);
	free(f);
	free(t);
	return ret;
}

/* The items of array o (path its name), each read by read_item. */
static int read_array(struct json_object *o, const char *path, struct wperf_run *r,
		      int (*read_item)(struct json_object *, const char *, struct wperf_run *,
				       struct wperf_error *),
		      const char *what, struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN], text[40];
	size_t n;
	int ret = 0;

	if (!json_object_is_type(o, json_type_array))
		return wperf_json_fail(err, path, "expected an array of %s, found %s", what,
				       wperf_json_found(o, text, sizeof(text)));
	n = json_object_array_length(o);
	for (size_t i = 0; i < n && !ret; i++) {
		wperf_json_index_path(sub, path, i);
		ret = read_item(json_object_array_get_idx(o, i), sub, r, err);
	}
	return ret;
}

/* The checks' counts {"ok": N, "warn": M} (path its name) into r. */
static int read_checks(struct json_object *o, const char *path, struct wperf_run *r,
		       struct wperf_error *err)
{
	static const char *const keys[] = {"ok", "warn", "first"}; /* first: optional */
	struct json_object *v[3];
	char sub[WPERF_JSON_PATH_LEN];
	int ret = wperf_json_get_keys(o, path, keys, 3, 2, v, err);

	wperf_json_key_path(sub, path, "ok");
	if (!ret)
		ret = wperf_json_get_count(v[0], sub, 0, UINT64_MAX, "a whole number",
					   &r->checks_ok, err);
	wperf_json_key_path(sub, path, "warn");
	if (!ret)
		ret = wperf_json_get_count(v[1], sub, 0, UINT64_MAX, "a whole number",
					   &r->checks_warn, err);
	wperf_json_key_path(sub, path, "first");
	if (!ret && v[2] && !json_object_is_type(v[2], json_type_string))
		ret = wperf_json_fail(err, sub, "expected a string");
	if (!ret && v[2] && !(r->checks_first = strdup(json_object_get_string(v[2]))))
		ret = wperf_json_no_memory(err, sub);
	r->have_checks = !ret;
	return ret;
}

int wperf_run_from_json(const struct json_object *o, const char *where, struct wperf_run *out,
			struct wperf_error *err)
{
	/* sinks, cmetric_first, events, timer_paced, checks, metrics and
	 * target_time came later: optional */
	static const char *const keys[] = {
	    "throughput",    "window_ns", "lost_events", "knots",  "edges",   "sinks",
	    "cmetric_first", "events",	  "timer_paced", "checks", "metrics", "target_time"};
	struct json_object *v[12];
	char sub[WPERF_JSON_PATH_LEN];
	struct wperf_run r;
	int ret;

	where = where ? where : "";
	wperf_run_init(out);
	wperf_run_init(&r);
	ret = wperf_json_get_keys(o, where, keys, 12, 5, v, err);
	if (ret)
		return ret;
	wperf_json_key_path(sub, where, "throughput");
	if (v[0] && !wperf_json_is_number(v[0]))
		return wperf_json_expected(v[0], sub, "a number or null", err);
	r.throughput = v[0] ? json_object_get_double(v[0]) : NAN;
	wperf_json_key_path(sub, where, "window_ns");
	ret =
	    wperf_json_get_count(v[1], sub, 1, UINT64_MAX, "a whole number > 0", &r.window_ns, err);
	wperf_json_key_path(sub, where, "lost_events");
	if (!ret)
		ret = wperf_json_get_count(v[2], sub, 0, UINT64_MAX, "a whole number",
					   &r.lost_events, err);
	wperf_json_key_path(sub, where, "events");
	if (!ret && v[7])
		ret = wperf_json_get_count(v[7], sub, 0, UINT64_MAX, "a whole number", &r.events,
					   err);
	wperf_json_key_path(sub, where, "knots");
	if (!ret)
		ret = read_array(v[3], sub, &r, read_knot, "knots", err);
	wperf_json_key_path(sub, where, "edges");
	if (!ret)
		ret = read_array(v[4], sub, &r, read_edge, "edges", err);
	wperf_json_key_path(sub, where, "sinks");
	if (!ret && v[5])
		ret = read_idset(v[5], sub, "sinks", &r.sinks, err);
	wperf_json_key_path(sub, where, "timer_paced");
	if (!ret && v[8])
		ret = read_idset(v[8], sub, "timer_paced", &r.timer_paced, err);
	wperf_json_key_path(sub, where, "checks");
	if (!ret && v[9])
		ret = read_checks(v[9], sub, &r, err);
	wperf_json_key_path(sub, where, "target_time");
	if (!ret && v[11])
		ret = read_time(v[11], sub, &r, err);
	wperf_json_key_path(sub, where, "metrics");
	if (!ret && v[10])
		ret = wperf_run_metrics_from_json(v[10], sub, &r.metrics, &r.nmetrics, err);
	wperf_json_key_path(sub, where, "cmetric_first");
	if (!ret && v[6]) {
		const char *id;

		ret = wperf_json_get_identity(v[6], sub, &id, err);
		if (!ret && !(r.cmetric_first = wperf_identity_dup(id)))
			ret = wperf_json_no_memory(err, sub);
	}
	if (ret) {
		wperf_run_release(&r);
		return ret;
	}
	*out = r;
	return 0;
}

/* ---- the environment ---- */

int wperf_env_from_json(const struct json_object *o, const char *where, struct wperf_env *out,
			struct wperf_error *err)
{
	static const char *const keys[] = {"kernel", "cpus", "tool", "cpu", "calibration"};
	struct json_object *v[5];
	char sub[WPERF_JSON_PATH_LEN];
	struct wperf_env e;
	uint64_t cpus = 0;
	int ret;

	where = where ? where : "";
	memset(out, 0, sizeof(*out));
	memset(&e, 0, sizeof(e));
	ret = wperf_json_get_keys(o, where, keys, 5, 3, v, err);
	wperf_json_key_path(sub, where, "kernel");
	if (!ret)
		ret = wperf_json_get_fixed(v[0], sub, e.kernel, sizeof(e.kernel), err);
	wperf_json_key_path(sub, where, "cpus");
	if (!ret)
		ret = wperf_json_get_count(v[1], sub, 0, UINT32_MAX,
					   "a whole number up to 4294967295", &cpus, err);
	e.cpus = (uint32_t)cpus;
	wperf_json_key_path(sub, where, "tool");
	if (!ret)
		ret = wperf_json_get_fixed(v[2], sub, e.tool, sizeof(e.tool), err);
	wperf_json_key_path(sub, where, "cpu");
	if (!ret && has_key(o, "cpu")) /* optional; null is not a string */
		ret = wperf_json_get_fixed(v[3], sub, e.cpu_model, sizeof(e.cpu_model), err);
	wperf_json_key_path(sub, where, "calibration");
	if (!ret && has_key(o, "calibration")) { /* optional, as "cpu" */
		double calibration = 0;

		ret = wperf_json_get_number(v[4], sub, &not_negative, &calibration, err);
		if (calibration > 0) /* -0.0 is 0, as written back */
			e.calibration = calibration;
	}
	if (ret)
		return ret;
	*out = e;
	return 0;
}
