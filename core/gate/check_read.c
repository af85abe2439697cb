/* SPDX-License-Identifier: MIT */
/*
 * CHECK/summary.json read back strictly (see check.h): every key known and of
 * its type, each error named by its path.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/json_util.h"
#include "core/gate/check_internal.h"

/* The index of o's string among names, into *out; the message lists them. */
static int get_name(struct json_object *o, const char *path, const char *const *names, size_t n,
		    int *out, struct wperf_error *err)
{
	char list[256] = "", text[40];
	const char *s = json_object_is_type(o, json_type_string) ? json_object_get_string(o) : NULL;

	for (size_t i = 0; i < n; i++) {
		if (s && !strcmp(s, names[i])) {
			*out = (int)i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 names[i]);
	}
	if (s)
		return wperf_json_fail(err, path, "expected one of %s, found \"%.60s\"", list, s);
	return wperf_json_fail(err, path, "expected one of %s, found %s", list,
			       wperf_json_found(o, text, sizeof(text)));
}

static int get_bool(struct json_object *o, const char *path, int *out, struct wperf_error *err)
{
	char text[40];

	if (!json_object_is_type(o, json_type_boolean))
		return wperf_json_fail(err, path, "expected true or false, found %s",
				       wperf_json_found(o, text, sizeof(text)));
	*out = json_object_get_boolean(o);
	return 0;
}

/* A finite number, or null (o NULL) as NaN when nullable. */
static int get_number(struct json_object *o, const char *path, int nullable, double *out,
		      struct wperf_error *err)
{
	char text[40];

	if (!o && nullable) {
		*out = NAN;
		return 0;
	}
	if (!o || !wperf_json_is_number(o))
		return wperf_json_fail(err, path, "expected a number%s, found %s",
				       nullable ? " or null" : "",
				       o ? wperf_json_found(o, text, sizeof(text)) : "null");
	*out = json_object_get_double(o);
	return 0;
}

static int get_size(struct json_object *o, const char *path, size_t *out, struct wperf_error *err)
{
	uint64_t n;
	int ret;

	if (!o)
		return wperf_json_fail(err, path, "expected a whole number, found null");
	ret = wperf_json_get_count(o, path, 0, SIZE_MAX, "a whole number", &n, err);
	*out = (size_t)n;
	return ret;
}

/* A string (an identity when identity: not empty), or null (o NULL) as NULL
 * when nullable, into a new *out. */
static int get_dup(struct json_object *o, const char *path, int nullable, int identity, char **out,
		   struct wperf_error *err)
{
	const char *s;
	size_t len;
	int ret;

	*out = NULL;
	if (!o && nullable)
		return 0;
	if (!o)
		return wperf_json_fail(err, path, "expected a string, found null");
	ret = identity ? wperf_json_get_identity(o, path, &s, err)
		       : wperf_json_get_string(o, path, &s, &len, err);
	if (!ret && !(*out = strdup(s)))
		ret = wperf_json_no_memory(err, path);
	return ret;
}

/* The keys of an object, read by one table of (key, reader) in order. */
struct reader {
	const char *path;	/* of the object */
	struct json_object **v; /* its values, in the order of the keys */
	const char *const *keys;
	struct wperf_error *err;
	char sub[WPERF_JSON_PATH_LEN];
	int ret;
};

/* The value of key number i, and its path in r->sub; NULL once r failed. */
static struct json_object *at(struct reader *r, size_t i)
{
	wperf_json_key_path(r->sub, r->path, r->keys[i]);
	return r->v[i];
}

static void r_bool(struct reader *r, size_t i, int *out)
{
	if (!r->ret)
		r->ret = !at(r, i)
			     ? wperf_json_fail(r->err, r->sub, "expected true or false, found null")
			     : get_bool(r->v[i], r->sub, out, r->err);
}

static void r_number(struct reader *r, size_t i, int nullable, double *out)
{
	if (!r->ret)
		r->ret = get_number(at(r, i), r->sub, nullable, out, r->err);
}

static void r_size(struct reader *r, size_t i, size_t *out)
{
	if (!r->ret)
		r->ret = get_size(at(r, i), r->sub, out, r->err);
}

static void r_dup(struct reader *r, size_t i, int nullable, int identity, char **out)
{
	if (!r->ret)
		r->ret = get_dup(at(r, i), r->sub, nullable, identity, out, r->err);
}

static void r_name(struct reader *r, size_t i, const char *const *names, size_t n, int *out)
{
	if (!r->ret)
		r->ret = !at(r, i)
			     ? wperf_json_fail(r->err, r->sub, "expected a string, found null")
			     : get_name(r->v[i], r->sub, names, n, out, r->err);
}

/* An array (not null) at key i, with its length; NULL when r failed. */
static struct json_object *r_array(struct reader *r, size_t i, size_t *n)
{
	char text[40];

	*n = 0;
	if (r->ret)
		return NULL;
	if (!at(r, i) || !json_object_is_type(r->v[i], json_type_array)) {
		r->ret = wperf_json_fail(r->err, r->sub, "expected an array, found %s",
					 r->v[i] ? wperf_json_found(r->v[i], text, sizeof(text))
						 : "null");
		return NULL;
	}
	*n = json_object_array_length(r->v[i]);
	return r->v[i];
}

/* Reads an item of an array, at path, into item; 0 or an error. */
typedef int read_item_fn(struct json_object *o, const char *path, void *item,
			 struct wperf_error *err);

/* The array at key i, each item read by read_item into a calloc'ed array of
 * size-byte items, which it returns (NULL when empty, or out of memory). *count
 * counts the items begun, a failed one too, so that releasing them frees what
 * it read. */
static void *r_items(struct reader *r, size_t i, size_t size, read_item_fn *read_item,
		     size_t *count)
{
	char path[WPERF_JSON_PATH_LEN];
	size_t n;
	struct json_object *a = r_array(r, i, &n);
	char *items = n ? calloc(n, size) : NULL;

	if (n && !items)
		r->ret = wperf_json_no_memory(r->err, r->sub);
	for (size_t k = 0; k < n && !r->ret; k++) {
		wperf_json_index_path(path, r->sub, k);
		r->ret = read_item(json_object_array_get_idx(a, k), path, items + k * size, r->err);
		(*count)++;
	}
	return items;
}

/* An object (null when nullable: NULL) at key i. */
static struct json_object *r_object(struct reader *r, size_t i, int nullable)
{
	char text[40];

	if (r->ret || (!at(r, i) && nullable))
		return NULL;
	if (!r->v[i] || !json_object_is_type(r->v[i], json_type_object))
		r->ret = wperf_json_fail(
		    r->err, r->sub, "expected an object%s, found %s", nullable ? " or null" : "",
		    r->v[i] ? wperf_json_found(r->v[i], text, sizeof(text)) : "null");
	return r->ret ? NULL : r->v[i];
}

/* Starts reading object o at path with its keys, all required. */
/* Reads keys[0 .. n) of o into v; the first required must be there. */
static void r_start(struct reader *r, struct json_object *o, const char *path,
		    const char *const *keys, size_t n, size_t required, struct json_object **v,
		    struct wperf_error *err)
{
	*r = (struct reader){.path = path, .v = v, .keys = keys, .err = err};
	r->ret = wperf_json_get_keys(o, path, keys, n, required, v, err);
}

/* [lo, hi] (each a number or null), or null, into lo and hi. */
static void r_range(struct reader *r, size_t i, double *lo, double *hi)
{
	char path[WPERF_JSON_PATH_LEN];
	size_t n;
	struct json_object *a;

	*lo = *hi = NAN;
	if (r->ret || !at(r, i))
		return;
	a = r_array(r, i, &n);
	if (a && n != 2)
		r->ret = wperf_json_fail(r->err, r->sub, "expected [lo, hi], found %zu numbers", n);
	for (size_t k = 0; k < 2 && !r->ret; k++) {
		wperf_json_index_path(path, r->sub, k);
		r->ret = get_number(json_object_array_get_idx(a, k), path, 1, k ? hi : lo, r->err);
	}
}

static int read_site(struct json_object *o, const char *path, void *item, struct wperf_error *err)
{
	static const char *const keys[] = {"waiter", "waker", "share"};
	struct wperf_site *s = item;
	struct json_object *v[NAMES(keys)];
	struct reader r;

	r_start(&r, o, path, keys, NAMES(keys), NAMES(keys), v, err);
	r_dup(&r, 0, 1, 0, &s->waiter);
	r_dup(&r, 1, 1, 0, &s->waker);
	r_number(&r, 2, 0, &s->share);
	return r.ret;
}

static int read_knot(struct reader *r, size_t i, struct wperf_idset *knot)
{
	char path[WPERF_JSON_PATH_LEN];
	const char **ids;
	size_t n;
	struct json_object *a;

	if (r->ret || !at(r, i))
		return r->ret;
	a = r_array(r, i, &n);
	if (!a)
		return r->ret;
	if (!(ids = calloc(n + 1, sizeof(*ids))))
		return r->ret = wperf_json_no_memory(r->err, r->sub);
	for (size_t k = 0; k < n && !r->ret; k++) {
		wperf_json_index_path(path, r->sub, k);
		r->ret =
		    wperf_json_get_identity(json_object_array_get_idx(a, k), path, &ids[k], r->err);
	}
	if (!r->ret && wperf_idset_from(ids, n, knot))
		r->ret = wperf_json_no_memory(r->err, r->sub);
	free(ids);
	return r->ret;
}

static int read_finding(struct json_object *o, const char *path, void *item,
			struct wperf_error *err)
{
	static const char *const keys[] = {
	    "kind",   "level",	    "worse",	   "inconclusive", "accepted",
	    "from",   "to",	    "vertex",	   "sink",	   "knot",
	    "before", "after",	    "change",	   "before_range", "after_range",
	    "seen",   "runs",	    "before_seen", "before_runs",  "p",
	    "q",      "detectable", "runs_needed", "note",	   "sites",
	    "metric", "unit"}; /* metric and unit came later: optional */
	struct wperf_finding *f = item;
	struct json_object *v[NAMES(keys)];
	struct reader r;
	int kind = 0, level = 0;

	r_start(&r, o, path, keys, NAMES(keys), NAMES(keys) - 2, v, err);
	r_name(&r, 0, check_finding_kinds, CHECK_FINDING_KINDS, &kind);
	r_name(&r, 1, check_levels, CHECK_LEVELS, &level);
	f->kind = (enum wperf_finding_kind)kind;
	f->level = (enum wperf_level)level;
	r_bool(&r, 2, &f->worse);
	r_bool(&r, 3, &f->inconclusive);
	r_bool(&r, 4, &f->accepted);
	r_dup(&r, 5, 1, 1, &f->from);
	r_dup(&r, 6, 1, 1, &f->to);
	r_dup(&r, 7, 1, 1, &f->vertex);
	r_bool(&r, 8, &f->sink);
	read_knot(&r, 9, &f->knot);
	r_number(&r, 10, 1, &f->before);
	r_number(&r, 11, 1, &f->after);
	r_number(&r, 12, 1, &f->change);
	r_range(&r, 13, &f->before_lo, &f->before_hi);
	r_range(&r, 14, &f->after_lo, &f->after_hi);
	r_size(&r, 15, &f->seen);
	r_size(&r, 16, &f->runs);
	r_size(&r, 17, &f->before_seen);
	r_size(&r, 18, &f->before_runs);
	r_number(&r, 19, 1, &f->p);
	r_number(&r, 20, 1, &f->q);
	r_number(&r, 21, 1, &f->detectable);
	r_size(&r, 22, &f->runs_needed);
	r_dup(&r, 23, 1, 0, &f->note);
	f->sites = r_items(&r, 24, sizeof(*f->sites), read_site, &f->nsites);
	r_dup(&r, 25, 1, 1, &f->metric);
	r_dup(&r, 26, 1, 0, &f->unit);
	if (!r.ret && (f->kind == WPERF_FINDING_METRIC) != (f->metric != NULL))
		r.ret = wperf_json_fail(err, path,
					"a finding of kind metric, and only one, names "
					"its metric");
	return r.ret;
}

/* The throughput object: before, after, unit. */
static int read_throughput(struct json_object *o, const char *path, struct wperf_verdict *v,
			   struct wperf_error *err)
{
	static const char *const keys[] = {"before", "after", "unit"};
	struct json_object *x[NAMES(keys)];
	struct reader r;

	r_start(&r, o, path, keys, NAMES(keys), NAMES(keys), x, err);
	r_number(&r, 0, 1, &v->throughput_before);
	r_number(&r, 1, 1, &v->throughput_after);
	if (!r.ret && !at(&r, 2))
		r.ret = wperf_json_fail(err, r.sub, "expected a string, found null");
	if (!r.ret)
		r.ret = wperf_json_get_fixed(x[2], r.sub, v->unit, sizeof(v->unit), err);
	return r.ret;
}

/* A metric's medians: name, unit, before, after. */
static int read_metric(struct json_object *o, const char *path, void *item, struct wperf_error *err)
{
	static const char *const keys[] = {"name", "unit", "before", "after"};
	struct wperf_verdict_metric *m = item;
	struct json_object *x[NAMES(keys)];
	struct reader r;

	r_start(&r, o, path, keys, NAMES(keys), NAMES(keys), x, err);
	if (!r.ret && at(&r, 0))
		r.ret = wperf_json_get_fixed(x[0], r.sub, m->name, sizeof(m->name), err);
	if (!r.ret && !wperf_metric_name_ok(m->name))
		r.ret = wperf_json_fail(err, r.sub, "expected a metric's name");
	if (!r.ret && at(&r, 1))
		r.ret = wperf_json_get_fixed(x[1], r.sub, m->unit, sizeof(m->unit), err);
	r_number(&r, 2, 1, &m->before);
	r_number(&r, 3, 1, &m->after);
	return r.ret;
}

/* A warning: a string. */
static int read_warning(struct json_object *o, const char *path, void *item,
			struct wperf_error *err)
{
	return get_dup(o, path, 0, 0, item, err);
}

/* A scenario's keys that came after the first files (x[18] on, see
 * read_scenario), each read when there. */
static void read_later_keys(struct reader *r, struct json_object **x,
			    struct wperf_check_scenario *s)
{
	struct wperf_verdict *v = &s->verdict;

	if (x[18])
		r_size(r, 18, &v->unconfirmed_runs);
	if (x[19])
		v->metrics = r_items(r, 19, sizeof(*v->metrics), read_metric, &v->nmetrics);
	if (x[20])
		s->settings_changed = r_items(r, 20, sizeof(*s->settings_changed), read_warning,
					      &s->nsettings_changed);
	v->detect = NAN;
	if (x[21])
		r_number(r, 21, 1, &v->detect);
	if (x[22])
		r_size(r, 22, &v->presence);
	if (x[23])
		r_bool(r, 23, &v->underpowered);
	if (x[24])
		r_dup(r, 24, 1, 0, &s->flame);
	if (x[25])
		s->growing = r_items(r, 25, sizeof(*s->growing), read_warning, &s->ngrowing);
}

static int read_scenario(struct json_object *o, const char *path, void *item,
			 struct wperf_error *err)
{
	static const char *const keys[] = {"name",
					   "dir",
					   "verdict",
					   "reason",
					   "pairs",
					   "seconds",
					   "runs",
					   "baseline_runs",
					   "paired",
					   "alpha",
					   "tests",
					   "detectable",
					   "structure_only",
					   "lost_events",
					   "lossy_runs",
					   "throughput",
					   "findings",
					   "warnings",
					   "unconfirmed_runs",
					   "metrics",
					   "settings_changed",
					   "detect",
					   "presence",
					   "underpowered",
					   "flame",
					   "growing"};
	/* unconfirmed_runs and what follows came later: optional */
	static const char *const verdicts[] = {"pass",	     "improved",     "new-bottleneck",
					       "regression", "inconclusive", ERROR_NAME};
	struct wperf_check_scenario *s = item;
	struct wperf_verdict *v = &s->verdict;
	struct json_object *x[NAMES(keys)];
	struct reader r;
	int kind = 0;

	r_start(&r, o, path, keys, NAMES(keys), NAMES(keys) - 8, x, err);
	r_dup(&r, 0, 0, 1, &s->name);
	r_dup(&r, 1, 0, 0, &s->dir);
	r_name(&r, 2, verdicts, NAMES(verdicts), &kind);
	s->error = kind == (int)NAMES(verdicts) - 1;
	v->kind = s->error ? WPERF_VERDICT_PASS : (enum wperf_verdict_kind)kind;
	r_dup(&r, 3, 1, 0, &s->reason);
	if (!r.ret && s->error && !s->reason)
		r.ret = wperf_json_fail(err, r.sub, "a scenario in error says why: found null");
	r_size(&r, 4, &s->pairs);
	r_number(&r, 5, 0, &s->seconds);
	r_size(&r, 6, &v->runs);
	r_size(&r, 7, &v->baseline_runs);
	r_bool(&r, 8, &v->paired);
	r_number(&r, 9, 1, &v->alpha);
	r_size(&r, 10, &v->tests);
	r_number(&r, 11, 1, &v->detectable);
	r_bool(&r, 12, &v->structure_only);
	if (!r.ret) {
		uint64_t lost = 0;

		at(&r, 13);
		r.ret = x[13] ? wperf_json_get_count(x[13], r.sub, 0, UINT64_MAX, "a whole number",
						     &lost, err)
			      : wperf_json_fail(err, r.sub, "expected a whole number, found null");
		v->lost_events = lost;
	}
	r_size(&r, 14, &v->lossy_runs);
	if (r_object(&r, 15, 0))
		r.ret = read_throughput(x[15], r.sub, v, err);
	v->findings = r_items(&r, 16, sizeof(*v->findings), read_finding, &v->nfindings);
	v->warnings = r_items(&r, 17, sizeof(*v->warnings), read_warning, &v->nwarnings);
	read_later_keys(&r, x, s);
	if (!r.ret && !s->error && !(v->scenario = strdup(s->name)))
		r.ret = wperf_json_no_memory(err, path);
	return r.ret;
}

/* 40 hexadecimal digits into out[41]. */
static int get_commit(struct json_object *o, const char *path, char *out, struct wperf_error *err)
{
	int ret = o ? wperf_json_get_fixed(o, path, out, 41, err)
		    : wperf_json_fail(err, path, "expected a commit, found null");

	if (!ret && (strlen(out) != 40 || strspn(out, "0123456789abcdef") != 40))
		ret =
		    wperf_json_fail(err, path, "expected 40 hexadecimal digits, found \"%s\"", out);
	return ret;
}

/* base and head. */
static int read_commits(struct reader *top, struct wperf_check *c, struct wperf_error *err)
{
	static const char *const base_keys[] = {"ref", "commit", "trust_head_settings"};
	static const char *const head_keys[] = {"commit", "branch", "dirty"};
	struct json_object *v[3], *o;
	struct reader r;

	o = r_object(top, 3, !c->base_mode);
	if (!top->ret && c->base_mode) {
		r_start(&r, o, top->sub, base_keys, 3, 2, v, err); /* trust: later, optional */
		if (!r.ret && !at(&r, 0))
			r.ret = wperf_json_fail(err, r.sub, "expected a string, found null");
		if (!r.ret)
			r.ret = wperf_json_get_fixed(v[0], r.sub, c->base_ref, sizeof(c->base_ref),
						     err);
		if (!r.ret && at(&r, 1))
			r.ret = get_commit(v[1], r.sub, c->base_commit, err);
		if (v[2])
			r_bool(&r, 2, &c->trust_head_settings);
		if (r.ret)
			return top->ret = r.ret;
	} else if (!top->ret && o) {
		return top->ret = wperf_json_fail(err, top->sub, "null in \"baselines\" mode");
	}
	o = r_object(top, 4, 0);
	if (top->ret)
		return top->ret;
	r_start(&r, o, top->sub, head_keys, 3, 3, v, err);
	if (!r.ret && at(&r, 0))
		r.ret = get_commit(v[0], r.sub, c->head_commit, err);
	if (!r.ret && at(&r, 1))
		r.ret =
		    wperf_json_get_fixed(v[1], r.sub, c->head_branch, sizeof(c->head_branch), err);
	r_bool(&r, 2, &c->head_dirty);
	return top->ret = r.ret;
}

static int read_check(struct json_object *o, struct wperf_check *c, struct wperf_error *err)
{
	static const char *const keys[] = {"format", "verdict", "mode",	   "base",
					   "head",   "alpha",	"seconds", "scenarios"};
	static const char *const modes[] = {"baselines", "base"};
	static const char *const formats[] = {WPERF_CHECK_FORMAT};
	struct json_object *v[NAMES(keys)];
	struct reader r;
	int format, said = 0, error;

	r_start(&r, o, "", keys, NAMES(keys), NAMES(keys), v, err);
	r_name(&r, 0, formats, 1, &format);
	r_name(&r, 2, modes, 2, &c->base_mode);
	read_commits(&r, c, err);
	r_number(&r, 5, 0, &c->alpha);
	r_number(&r, 6, 0, &c->seconds);
	c->scenarios = r_items(&r, 7, sizeof(*c->scenarios), read_scenario, &c->n);
	/* Last: the verdict must be the scenarios' worst. */
	if (!r.ret) {
		static const char *const verdicts[] = {
		    "pass", "improved", "new-bottleneck", "regression", "inconclusive", ERROR_NAME};
		enum wperf_verdict_kind worst = wperf_check_kind(c, &error);
		const char *want = error ? ERROR_NAME : wperf_verdict_name(worst);

		r_name(&r, 1, verdicts, NAMES(verdicts), &said);
		if (!r.ret && strcmp(verdicts[said], want))
			r.ret = wperf_json_fail(err, r.sub, "\"%s\", but the scenarios say \"%s\"",
						verdicts[said], want);
	}
	return r.ret;
}

int wperf_check_from_json(const char *path_for_messages, const char *text, size_t len,
			  struct wperf_check *out, struct wperf_error *err)
{
	const char *file = path_for_messages ? path_for_messages : "summary.json";
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = NULL;
	struct wperf_error why = {0};
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!tok)
		return wperf_error_set(err, -ENOMEM, "%s: out of memory", file);
	if (len > INT32_MAX)
		ret = wperf_error_set(err, -EINVAL, "%s: larger than 2 GiB", file);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT); /* no NaN, no trailing garbage */
	if (!ret && !(o = json_tokener_parse_ex(tok, text, (int)len)))
		ret = wperf_error_set(err, -EINVAL, "%s: byte %zu: not JSON: %s", file,
				      json_tokener_get_parse_end(tok),
				      json_tokener_error_desc(json_tokener_get_error(tok)));
	if (!ret && (ret = read_check(o, out, &why)))
		wperf_error_set(err, ret, "%s: %s", file, why.msg);
	if (ret)
		wperf_check_release(out);
	json_object_put(o);
	json_tokener_free(tok);
	return ret;
}
