/* SPDX-License-Identifier: MIT */
/*
 * Runs and the environment as JSON (see run_json.h): written with json-c, read
 * back strictly, with the key path of every mistake.
 */
#include "run_json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a key path; longer ones are cut, as the message would be. */
#define PATH_LEN WPERF_ERROR_MSG_LEN

/* ---- writing ---- */

/*
 * A number with the fewest of 15, 16 or 17 significant digits that read back
 * as v, and ".0" when that looks like a whole number, so that it stays a double
 * for other readers. The text is given to json-c, so no global double format
 * (json_c_set_serialization_double_format) can change it. v is finite.
 */
static struct json_object *number(double v)
{
	char text[48];

	for (int digits = 15; digits <= 17; digits++) {
		snprintf(text, sizeof(text), "%.*g", digits, v);
		if (strtod(text, NULL) == v)
			break;
	}
	if (!strpbrk(text, ".eE"))
		strcat(text, ".0");
	return json_object_new_double_s(v, text);
}

/* Adds v (NULL: out of memory) to object o under key, a string literal. The
 * value is put when it cannot be added. */
static int put(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add_ex(
		o, key, v, JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

/* Appends v (NULL: out of memory) to array a; the value is put when it cannot. */
static int append(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static struct json_object *idset_to_json(const struct wperf_idset *s)
{
	struct json_object *ids = json_object_new_array();
	int ret = ids ? 0 : -ENOMEM;

	for (size_t j = 0; j < s->n && !ret; j++)
		ret = append(ids, json_object_new_string(s->ids[j]));
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
		ret = append(arr, idset_to_json(&r->knots[i]));
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
		o = json_object_new_object();
		*ret = append(arr, o);
		if (!*ret)
			*ret = put(o, "from", json_object_new_string(e->from));
		if (!*ret)
			*ret = put(o, "to", json_object_new_string(e->to));
		if (!*ret)
			*ret = put(o, "share", number(e->share));
	}
	if (*ret) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

int wperf_run_to_json(const struct wperf_run *r, struct json_object **out)
{
	struct json_object *o = json_object_new_object();
	int ret = o ? 0 : -ENOMEM;

	*out = NULL;
	if (!ret && isfinite(r->throughput))
		ret = put(o, "throughput", number(r->throughput));
	else if (!ret && json_object_object_add_ex(o, "throughput", NULL,
						   JSON_C_OBJECT_ADD_KEY_IS_NEW |
						       JSON_C_OBJECT_ADD_CONSTANT_KEY))
		ret = -ENOMEM;
	if (!ret)
		ret = put(o, "window_ns", json_object_new_uint64(r->window_ns));
	if (!ret)
		ret = put(o, "lost_events", json_object_new_uint64(r->lost_events));
	if (!ret && r->events)
		ret = put(o, "events", json_object_new_uint64(r->events));
	if (!ret)
		ret = put(o, "knots", knots_to_json(r));
	if (!ret && r->sinks.n)
		ret = put(o, "sinks", idset_to_json(&r->sinks));
	if (!ret && r->cmetric_first)
		ret = put(o, "cmetric_first", json_object_new_string(r->cmetric_first));
	if (!ret) {
		struct json_object *edges = edges_to_json(r, &ret);

		if (!ret)
			ret = put(o, "edges", edges);
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
		ret = put(o, "kernel", fixed_string(e->kernel, sizeof(e->kernel)));
	if (!ret)
		ret = put(o, "cpus", json_object_new_int64(e->cpus));
	if (!ret)
		ret = put(o, "tool", fixed_string(e->tool, sizeof(e->tool)));
	if (!ret)
		ret = put(o, "cpu", fixed_string(e->cpu_model, sizeof(e->cpu_model)));
	/* One that is not a number > 0 is unknown, as the reader would take 0. */
	if (!ret)
		ret = put(
		    o, "calibration",
		    number(isfinite(e->calibration) && e->calibration > 0 ? e->calibration : 0));
	if (ret) {
		json_object_put(o);
		return ret;
	}
	*out = o;
	return 0;
}

/* ---- reading ---- */

static int fail(struct wperf_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "path: message", -EINVAL. */
static int fail(struct wperf_error *err, const char *path, const char *fmt, ...)
{
	char msg[WPERF_ERROR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wperf_error_set(err, -EINVAL, "%s%s%s", path, *path ? ": " : "", msg);
}

static int no_memory(struct wperf_error *err, const char *path)
{
	return wperf_error_set(err, -ENOMEM, "%s%sout of memory", path, *path ? ": " : "");
}

/* path "where.key" (or "key" at the top) into sub. */
static void key_path(char *sub, const char *where, const char *key)
{
	snprintf(sub, PATH_LEN, "%s%s%.80s", where, *where ? "." : "", key);
}

/* path "where[i]" into sub. */
static void index_path(char *sub, const char *where, size_t i)
{
	snprintf(sub, PATH_LEN, "%s[%zu]", where, i);
}

/* What o is, for "found ..." in messages: its value when it is a number. */
static const char *found(const struct json_object *o, char *text, size_t size)
{
	int64_t i;

	switch (json_object_get_type(o)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return json_object_get_boolean(o) ? "true" : "false";
	case json_type_double:
		if (isnan(json_object_get_double(o)))
			return "NaN";
		if (isinf(json_object_get_double(o)))
			return json_object_get_double(o) > 0 ? "Infinity" : "-Infinity";
		snprintf(text, size, "%g", json_object_get_double(o));
		return text;
	case json_type_int:
		i = json_object_get_int64(o);
		if (i < 0)
			snprintf(text, size, "%lld", (long long)i);
		else
			snprintf(text, size, "%llu", (unsigned long long)json_object_get_uint64(o));
		return text;
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return json_object_get_string_len(o) ? "a string" : "an empty string";
	}
	return "something else";
}

static int want_type(const struct json_object *o, const char *path, enum json_type type,
		     struct wperf_error *err)
{
	char text[40];

	if (json_object_is_type(o, type))
		return 0;
	return fail(err, path, "expected %s, found %s",
		    type == json_type_object ? "an object" : "an array",
		    found(o, text, sizeof(text)));
}

/*
 * The values of object o for its nkeys keys, in values (NULL where a key is
 * missing, and for a JSON null). An unknown key, or a missing key of the first
 * nrequired, is an error.
 */
static int get_keys(const struct json_object *o, const char *path, const char *const *keys,
		    size_t nkeys, size_t nrequired, struct json_object **values,
		    struct wperf_error *err)
{
	char sub[PATH_LEN];
	int ret = want_type(o, path, json_type_object, err);

	if (ret)
		return ret;
	for (struct lh_entry *e = lh_table_head(json_object_get_object(o)); e;
	     e = lh_entry_next(e)) {
		const char *k = (const char *)lh_entry_k(e);
		size_t i = 0;

		while (i < nkeys && strcmp(k, keys[i]))
			i++;
		if (i == nkeys) {
			key_path(sub, path, k);
			return fail(err, sub, "unknown key");
		}
	}
	for (size_t i = 0; i < nkeys; i++) {
		if (!json_object_object_get_ex(o, keys[i], &values[i])) {
			values[i] = NULL;
			if (i < nrequired)
				return fail(err, path, "missing key \"%s\"", keys[i]);
		}
	}
	return 0;
}

/* Is key present in o (even as null)? */
static int has_key(const struct json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

/* A string without NUL bytes (possibly empty); *s points into o. */
static int get_string(struct json_object *o, const char *path, const char **s, size_t *len,
		      struct wperf_error *err)
{
	char text[40];

	if (!json_object_is_type(o, json_type_string))
		return fail(err, path, "expected a string, found %s", found(o, text, sizeof(text)));
	*s = json_object_get_string(o);
	*len = (size_t)json_object_get_string_len(o);
	if (memchr(*s, '\0', *len))
		return fail(err, path, "a string with a NUL character");
	return 0;
}

/* An identity: a non-empty string without NUL bytes; *s points into o. */
static int get_identity(struct json_object *o, const char *path, const char **s,
			struct wperf_error *err)
{
	char text[40];
	size_t len;
	int ret;

	if (!json_object_is_type(o, json_type_string))
		return fail(err, path, "expected an identity (a non-empty string), found %s",
			    found(o, text, sizeof(text)));
	ret = get_string(o, path, s, &len, err);
	if (!ret && len == 0)
		return fail(err, path, "expected an identity (a non-empty string), found \"\"");
	return ret;
}

/* A string into a fixed-size array. */
static int get_fixed(struct json_object *o, const char *path, char *out, size_t size,
		     struct wperf_error *err)
{
	const char *s;
	size_t len;
	int ret = get_string(o, path, &s, &len, err);

	if (ret)
		return ret;
	if (len >= size)
		return fail(err, path, "longer than %zu bytes", size - 1);
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

/* A whole number from min to max; what says it in messages. */
static int get_count(const struct json_object *o, const char *path, uint64_t min, uint64_t max,
		     const char *what, uint64_t *out, struct wperf_error *err)
{
	char text[40];

	if (!json_object_is_type(o, json_type_int) || json_object_get_int64(o) < 0 ||
	    json_object_get_uint64(o) < min || json_object_get_uint64(o) > max)
		return fail(err, path, "expected %s, found %s", what, found(o, text, sizeof(text)));
	*out = json_object_get_uint64(o);
	return 0;
}

/* A finite number (json-c reads NaN and Infinity as numbers too). */
static int is_number(const struct json_object *o)
{
	return (json_object_is_type(o, json_type_double) && isfinite(json_object_get_double(o))) ||
	       json_object_is_type(o, json_type_int);
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

	return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* The identities of array o (path its name; what: "knot" or "sinks"), each
 * listed once, into *out (left as it was on error). */
static int read_idset(struct json_object *o, const char *path, const char *what,
		      struct wperf_idset *out, struct wperf_error *err)
{
	char sub[PATH_LEN], text[40];
	struct placed_id *p;
	const char **ids, *dup = NULL;
	size_t n, twice = SIZE_MAX, done = 0;
	int ret = 0;

	if (!json_object_is_type(o, json_type_array))
		return fail(err, path, "expected an array of identities, found %s",
			    found(o, text, sizeof(text)));
	n = json_object_array_length(o);
	p = calloc(n + 1, sizeof(*p));
	ids = calloc(n + 1, sizeof(*ids));
	if (!p || !ids)
		ret = no_memory(err, path);
	for (; done < n && !ret; done++) {
		const char *id;

		index_path(sub, path, done);
		ret = get_identity(json_object_array_get_idx(o, done), sub, &id, err);
		if (ret)
			break;
		p[done].id = wperf_identity_dup(id);
		p[done].index = done;
		if (!p[done].id)
			ret = no_memory(err, path);
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
			index_path(sub, path, twice);
			ret = fail(err, sub, "\"%s\", listed twice in the %s", dup, what);
		}
	}
	if (!ret) {
		for (size_t i = 0; i < n; i++)
			ids[i] = p[i].id;
		if (wperf_idset_from(ids, n, out))
			ret = no_memory(err, path);
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
		ret = fail(err, path, "an empty knot: a knot has at least one identity");
	if (!ret && wperf_run_add_knot(r, (const char *const *)knot.ids, knot.n))
		ret = no_memory(err, path);
	wperf_idset_release(&knot);
	return ret;
}

/* Edge o (path its name) added to r. */
static int read_edge(struct json_object *o, const char *path, struct wperf_run *r,
		     struct wperf_error *err)
{
	static const char *const keys[] = {"from", "to", "share"};
	struct json_object *v[3];
	char sub[PATH_LEN], text[40];
	const char *from, *to;
	size_t before = r->nedges;
	double share;
	int ret = get_keys(o, path, keys, 3, 3, v, err);

	if (ret)
		return ret;
	key_path(sub, path, "from");
	ret = get_identity(v[0], sub, &from, err);
	if (ret)
		return ret;
	key_path(sub, path, "to");
	ret = get_identity(v[1], sub, &to, err);
	if (ret)
		return ret;
	key_path(sub, path, "share");
	share = json_object_get_double(v[2]);
	if (!is_number(v[2]) || share < 0)
		return fail(err, sub, "expected a number >= 0, found %s",
			    found(v[2], text, sizeof(text)));
	ret = wperf_run_add_edge(r, from, to, share);
	if (ret)
		return no_memory(err, path); /* the share was checked: not -EINVAL */
	if (r->nedges == before) {
		/* add_edge added the share to the same edge, listed before. */
		char *f = wperf_identity_dup(from), *t = wperf_identity_dup(to);

		ret = f && t ? fail(err, path, "edge %s -> %s, listed twice", f, t)
			     : no_memory(err, path);
		free(f);
		free(t);
	}
	return ret;
}

/* The items of array o (path its name), each read by read_item. */
static int read_array(struct json_object *o, const char *path, struct wperf_run *r,
		      int (*read_item)(struct json_object *, const char *, struct wperf_run *,
				       struct wperf_error *),
		      const char *what, struct wperf_error *err)
{
	char sub[PATH_LEN], text[40];
	size_t n;
	int ret = 0;

	if (!json_object_is_type(o, json_type_array))
		return fail(err, path, "expected an array of %s, found %s", what,
			    found(o, text, sizeof(text)));
	n = json_object_array_length(o);
	for (size_t i = 0; i < n && !ret; i++) {
		index_path(sub, path, i);
		ret = read_item(json_object_array_get_idx(o, i), sub, r, err);
	}
	return ret;
}

int wperf_run_from_json(const struct json_object *o, const char *where, struct wperf_run *out,
			struct wperf_error *err)
{
	/* sinks, cmetric_first and events came later: optional */
	static const char *const keys[] = {"throughput", "window_ns", "lost_events",   "knots",
					   "edges",	 "sinks",     "cmetric_first", "events"};
	struct json_object *v[8];
	char sub[PATH_LEN], text[40];
	struct wperf_run r;
	int ret;

	where = where ? where : "";
	wperf_run_init(out);
	wperf_run_init(&r);
	ret = get_keys(o, where, keys, 8, 5, v, err);
	if (ret)
		return ret;
	key_path(sub, where, "throughput");
	if (v[0] && !is_number(v[0]))
		return fail(err, sub, "expected a number or null, found %s",
			    found(v[0], text, sizeof(text)));
	r.throughput = v[0] ? json_object_get_double(v[0]) : NAN;
	key_path(sub, where, "window_ns");
	ret = get_count(v[1], sub, 1, UINT64_MAX, "a whole number > 0", &r.window_ns, err);
	key_path(sub, where, "lost_events");
	if (!ret)
		ret = get_count(v[2], sub, 0, UINT64_MAX, "a whole number", &r.lost_events, err);
	key_path(sub, where, "events");
	if (!ret && v[7])
		ret = get_count(v[7], sub, 0, UINT64_MAX, "a whole number", &r.events, err);
	key_path(sub, where, "knots");
	if (!ret)
		ret = read_array(v[3], sub, &r, read_knot, "knots", err);
	key_path(sub, where, "edges");
	if (!ret)
		ret = read_array(v[4], sub, &r, read_edge, "edges", err);
	key_path(sub, where, "sinks");
	if (!ret && v[5])
		ret = read_idset(v[5], sub, "sinks", &r.sinks, err);
	key_path(sub, where, "cmetric_first");
	if (!ret && v[6]) {
		const char *id;

		ret = get_identity(v[6], sub, &id, err);
		if (!ret && !(r.cmetric_first = wperf_identity_dup(id)))
			ret = no_memory(err, sub);
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
	char sub[PATH_LEN], text[40];
	struct wperf_env e;
	uint64_t cpus = 0;
	int ret;

	where = where ? where : "";
	memset(out, 0, sizeof(*out));
	memset(&e, 0, sizeof(e));
	ret = get_keys(o, where, keys, 5, 3, v, err);
	key_path(sub, where, "kernel");
	if (!ret)
		ret = get_fixed(v[0], sub, e.kernel, sizeof(e.kernel), err);
	key_path(sub, where, "cpus");
	if (!ret)
		ret = get_count(v[1], sub, 0, UINT32_MAX, "a whole number up to 4294967295", &cpus,
				err);
	e.cpus = (uint32_t)cpus;
	key_path(sub, where, "tool");
	if (!ret)
		ret = get_fixed(v[2], sub, e.tool, sizeof(e.tool), err);
	key_path(sub, where, "cpu");
	if (!ret && has_key(o, "cpu")) /* optional; null is not a string */
		ret = get_fixed(v[3], sub, e.cpu_model, sizeof(e.cpu_model), err);
	key_path(sub, where, "calibration");
	if (!ret && has_key(o, "calibration")) { /* optional, as "cpu" */
		if (!is_number(v[4]) || json_object_get_double(v[4]) < 0)
			ret = fail(err, sub, "expected a number >= 0, found %s",
				   found(v[4], text, sizeof(text)));
		else if (json_object_get_double(v[4]) > 0) /* -0.0 is 0, as written back */
			e.calibration = json_object_get_double(v[4]);
	}
	if (ret)
		return ret;
	*out = e;
	return 0;
}
