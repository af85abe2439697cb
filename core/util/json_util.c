/* SPDX-License-Identifier: MIT */
#include "core/util/json_util.h"

#include "core/util/doc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A number with the fewest of 15, 16 or 17 significant digits that read back
 * as v, and ".0" when that looks like a whole number, so that it stays a double
 * for other readers. The text is given to json-c, so no global double format
 * (json_c_set_serialization_double_format) can change it. v is finite.
 */
struct json_object *wperf_json_number(double v)
{
	char text[WPERF_DOC_NUMBER_LEN + 2];

	wperf_doc_number_text(text, v);
	if (!strpbrk(text, ".eE"))
		strcat(text, ".0");
	return json_object_new_double_s(v, text);
}

/* Adds v (NULL: out of memory) to object o under key, a string literal. The
 * value is put when it cannot be added. */
int wperf_json_put(struct json_object *o, const char *key, struct json_object *v)
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

int wperf_json_put_null(struct json_object *o, const char *key)
{
	return json_object_object_add_ex(
		   o, key, NULL, JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)
		   ? -ENOMEM
		   : 0;
}

/* Appends v (NULL: out of memory) to array a; the value is put when it cannot. */
int wperf_json_append(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

/* "path: message", -EINVAL. */
int wperf_json_fail(struct wperf_error *err, const char *path, const char *fmt, ...)
{
	char msg[WPERF_ERROR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wperf_error_set(err, -EINVAL, "%s%s%s", path, *path ? ": " : "", msg);
}

int wperf_json_no_memory(struct wperf_error *err, const char *path)
{
	return wperf_error_set(err, -ENOMEM, "%s%sout of memory", path, *path ? ": " : "");
}

/* path "where.key" (or "key" at the top) into sub. */
void wperf_json_key_path(char *sub, const char *where, const char *key)
{
	snprintf(sub, WPERF_JSON_PATH_LEN, "%s%s%.80s", where, *where ? "." : "", key);
}

/* path "where[i]" into sub. */
void wperf_json_index_path(char *sub, const char *where, size_t i)
{
	snprintf(sub, WPERF_JSON_PATH_LEN, "%s[%zu]", where, i);
}

/* What o is, for "found ..." in messages: its value when it is a number. */
const char *wperf_json_found(const struct json_object *o, char *text, size_t size)
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

int wperf_json_want_type(const struct json_object *o, const char *path, enum json_type type,
			 struct wperf_error *err)
{
	char text[40];

	if (json_object_is_type(o, type))
		return 0;
	return wperf_json_fail(err, path, "expected %s, found %s",
			       type == json_type_object ? "an object" : "an array",
			       wperf_json_found(o, text, sizeof(text)));
}

/*
 * The values of object o for its nkeys keys, in values (NULL where a key is
 * missing, and for a JSON null). An unknown key, or a missing key of the first
 * nrequired, is an error.
 */
int wperf_json_get_keys(const struct json_object *o, const char *path, const char *const *keys,
			size_t nkeys, size_t nrequired, struct json_object **values,
			struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];
	int ret = wperf_json_want_type(o, path, json_type_object, err);

	if (ret)
		return ret;
	for (struct lh_entry *e = lh_table_head(json_object_get_object(o)); e;
	     e = lh_entry_next(e)) {
		const char *k = (const char *)lh_entry_k(e);
		size_t i = 0;

		while (i < nkeys && strcmp(k, keys[i]))
			i++;
		if (i == nkeys) {
			wperf_json_key_path(sub, path, k);
			return wperf_json_fail(err, sub, "unknown key");
		}
	}
	for (size_t i = 0; i < nkeys; i++) {
		if (!json_object_object_get_ex(o, keys[i], &values[i])) {
			values[i] = NULL;
			if (i < nrequired)
				return wperf_json_fail(err, path, "missing key \"%s\"", keys[i]);
		}
	}
	return 0;
}

/* A string without NUL bytes (possibly empty); *s points into o. */
int wperf_json_get_string(struct json_object *o, const char *path, const char **s, size_t *len,
			  struct wperf_error *err)
{
	char text[40];

	if (!json_object_is_type(o, json_type_string))
		return wperf_json_fail(err, path, "expected a string, found %s",
				       wperf_json_found(o, text, sizeof(text)));
	*s = json_object_get_string(o);
	*len = (size_t)json_object_get_string_len(o);
	if (memchr(*s, '\0', *len))
		return wperf_json_fail(err, path, "a string with a NUL character");
	return 0;
}

/* An identity: a non-empty string without NUL bytes; *s points into o. */
int wperf_json_get_identity(struct json_object *o, const char *path, const char **s,
			    struct wperf_error *err)
{
	char text[40];
	size_t len;
	int ret;

	if (!json_object_is_type(o, json_type_string))
		return wperf_json_fail(err, path,
				       "expected an identity (a non-empty string), found %s",
				       wperf_json_found(o, text, sizeof(text)));
	ret = wperf_json_get_string(o, path, s, &len, err);
	if (!ret && len == 0)
		return wperf_json_fail(err, path,
				       "expected an identity (a non-empty string), found \"\"");
	return ret;
}

/* A string into a fixed-size array. */
int wperf_json_get_fixed(struct json_object *o, const char *path, char *out, size_t size,
			 struct wperf_error *err)
{
	const char *s;
	size_t len;
	int ret = wperf_json_get_string(o, path, &s, &len, err);

	if (ret)
		return ret;
	if (len >= size)
		return wperf_json_fail(err, path, "longer than %zu bytes", size - 1);
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

/* A whole number from min to max; what says it in messages. */
int wperf_json_get_count(const struct json_object *o, const char *path, uint64_t min, uint64_t max,
			 const char *what, uint64_t *out, struct wperf_error *err)
{
	char text[40];

	if (!json_object_is_type(o, json_type_int) || json_object_get_int64(o) < 0 ||
	    json_object_get_uint64(o) < min || json_object_get_uint64(o) > max)
		return wperf_json_fail(err, path, "expected %s, found %s", what,
				       wperf_json_found(o, text, sizeof(text)));
	*out = json_object_get_uint64(o);
	return 0;
}

/* A finite number (json-c reads NaN and Infinity as numbers too). */
int wperf_json_is_number(const struct json_object *o)
{
	return (json_object_is_type(o, json_type_double) && isfinite(json_object_get_double(o))) ||
	       json_object_is_type(o, json_type_int);
}
