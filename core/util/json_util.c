/* SPDX-License-Identifier: MIT */
#include "core/util/json_util.h"

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

/* Is path the top of a file ("" or "FILE: "), after which no '.' and no ": " go? */
static int at_top(const char *path)
{
	return !*path || path[strlen(path) - 1] == ' ';
}

/* "path: message", -EINVAL. */
int wperf_json_fail(struct wperf_error *err, const char *path, const char *fmt, ...)
{
	char msg[WPERF_ERROR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wperf_error_set(err, -EINVAL, "%s%s%s", path, at_top(path) ? "" : ": ", msg);
}

int wperf_json_no_memory(struct wperf_error *err, const char *path)
{
	return wperf_error_set(err, -ENOMEM, "%s%sout of memory", path, at_top(path) ? "" : ": ");
}

void wperf_json_file_path(char *sub, const char *file)
{
	snprintf(sub, WPERF_JSON_PATH_LEN, "%s: ", file);
}

/* path "where.key" (or "key" at the top) into sub. */
void wperf_json_key_path(char *sub, const char *where, const char *key)
{
	snprintf(sub, WPERF_JSON_PATH_LEN, "%s%s%.80s", where, at_top(where) ? "" : ".", key);
}

/* path "where[i]" into sub. */
void wperf_json_index_path(char *sub, const char *where, size_t i)
{
	snprintf(sub, WPERF_JSON_PATH_LEN, "%s[%zu]", where, i);
}

/* What o is, for "found ...": a string quoted (doc.h), anything else but
 * objects and arrays as written (a number as the file spells it). */
const char *wperf_json_found(const struct json_object *o, char *text, size_t size)
{
	switch (json_object_get_type(o)) {
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		wperf_doc_quote(text, size, json_object_get_string((struct json_object *)o),
				(size_t)json_object_get_string_len(o));
		return text;
	case json_type_null:
		return "null";
	default:
		snprintf(text, size, "%s",
			 json_object_to_json_string_ext((struct json_object *)o,
							JSON_C_TO_STRING_PLAIN));
		return text;
	}
}

int wperf_json_expected(const struct json_object *o, const char *path, const char *what,
			struct wperf_error *err)
{
	char text[64];

	return wperf_json_fail(err, path, "expected %s, found %s", what,
			       wperf_json_found(o, text, sizeof(text)));
}

int wperf_json_want_type(const struct json_object *o, const char *path, enum json_type type,
			 struct wperf_error *err)
{
	if (json_object_is_type(o, type))
		return 0;
	return wperf_json_expected(o, path, type == json_type_object ? "an object" : "an array",
				   err);
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
			char list[256];

			wperf_doc_key_list(list, sizeof(list), keys, nkeys);
			wperf_json_key_path(sub, path, k);
			return wperf_json_fail(err, sub, "unknown key (allowed here: %s)", list);
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
	if (!json_object_is_type(o, json_type_string))
		return wperf_json_expected(o, path, "a string", err);
	*s = json_object_get_string(o);
	*len = (size_t)json_object_get_string_len(o);
	if (memchr(*s, '\0', *len))
		return wperf_json_fail(err, path, "strings cannot hold NUL characters");
	return 0;
}

/* An identity: a non-empty string without NUL bytes; *s points into o. */
int wperf_json_get_identity(struct json_object *o, const char *path, const char **s,
			    struct wperf_error *err)
{
	size_t len;
	int ret;

	if (!json_object_is_type(o, json_type_string))
		return wperf_json_expected(o, path, "an identity (a non-empty string)", err);
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
		return wperf_json_fail(err, path, "expected at most %zu bytes, found %zu", size - 1,
				       len);
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

/* A whole number from min to max; what says it in messages. */
int wperf_json_get_count(const struct json_object *o, const char *path, uint64_t min, uint64_t max,
			 const char *what, uint64_t *out, struct wperf_error *err)
{
	if (!json_object_is_type(o, json_type_int) || json_object_get_int64(o) < 0 ||
	    json_object_get_uint64(o) < min || json_object_get_uint64(o) > max)
		return wperf_json_expected(o, path, what, err);
	*out = json_object_get_uint64(o);
	return 0;
}

int wperf_json_get_member(struct json_object *o, const char *path, const char *key,
			  enum json_type type, int required, struct json_object **v,
			  struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];

	if (!json_object_object_get_ex(o, key, v) || (!*v && !required)) {
		*v = NULL;
		return required ? wperf_json_fail(err, path, "missing key \"%s\"", key) : 0;
	}
	if (json_object_is_type(*v, type))
		return 0;
	wperf_json_key_path(sub, path, key);
	return wperf_json_expected(*v, sub,
				   type == json_type_object    ? "an object"
				   : type == json_type_array   ? "an array"
				   : type == json_type_boolean ? "true or false"
							       : "a string",
				   err);
}

int wperf_json_get_number(const struct json_object *o, const char *path,
			  const struct wperf_doc_range *r, double *out, struct wperf_error *err)
{
	char what[96];

	if (o && wperf_json_is_number(o) && wperf_doc_in_range(json_object_get_double(o), r)) {
		*out = json_object_get_double(o);
		return 0;
	}
	wperf_doc_range_text(what, sizeof(what), r);
	return wperf_json_expected(o, path, what, err);
}

/* A finite number (json-c reads NaN and Infinity as numbers too). */
int wperf_json_is_number(const struct json_object *o)
{
	return (json_object_is_type(o, json_type_double) && isfinite(json_object_get_double(o))) ||
	       json_object_is_type(o, json_type_int);
}
