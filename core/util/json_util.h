/* SPDX-License-Identifier: MIT */
/*
 * The JSON helpers of libwperf's files (runs and environments, a check's
 * summary): numbers written with the fewest digits that read back exactly,
 * and strict reading, where every mistake is an error naming its key path
 * ("scenarios[2].findings[0].level: expected ...").
 *
 * A path is at most WPERF_JSON_PATH_LEN bytes: "where.key", "where[i]"; the
 * top level is "", or "FILE: " (wperf_json_file_path) so that messages take
 * the kit's format for files without positions (core/util/doc.h):
 * "FILE: key.path: what was expected".
 */
#ifndef WPERF_JSON_UTIL_H
#define WPERF_JSON_UTIL_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/doc.h"
#include "core/util/error.h"

#define WPERF_JSON_PATH_LEN WPERF_ERROR_MSG_LEN

/* ---- writing: each returns 0 or -ENOMEM, and puts v when it cannot add it ---- */

/* A new double for finite v, written with 15 to 17 digits, the fewest that
 * read back as v; NULL when out of memory. */
struct json_object *wperf_json_number(double v);

/* Adds v (NULL: out of memory) to o under key, a string literal. */
int wperf_json_put(struct json_object *o, const char *key, struct json_object *v);

/* Adds a JSON null under key. */
int wperf_json_put_null(struct json_object *o, const char *key);

/* Appends v (NULL: out of memory) to array a. */
int wperf_json_append(struct json_object *a, struct json_object *v);

/* ---- reading: each returns 0, or -EINVAL (-ENOMEM) with err "path: message" ---- */

int wperf_json_fail(struct wperf_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int wperf_json_no_memory(struct wperf_error *err, const char *path);

/* "FILE: ", the top of a file, into sub (WPERF_JSON_PATH_LEN). */
void wperf_json_file_path(char *sub, const char *file);

/* "where.key" (or "key" at the top), "where[i]", into sub (WPERF_JSON_PATH_LEN). */
void wperf_json_key_path(char *sub, const char *where, const char *key);
void wperf_json_index_path(char *sub, const char *where, size_t i);

/* What o is, for "found ..." in messages: a string quoted, a scalar as
 * written; text is room for that. */
const char *wperf_json_found(const struct json_object *o, char *text, size_t size);

/* "path: expected WHAT, found ..." (o NULL: a JSON null), -EINVAL. */
int wperf_json_expected(const struct json_object *o, const char *path, const char *what,
			struct wperf_error *err);

/* o is an object or an array (type). */
int wperf_json_want_type(const struct json_object *o, const char *path, enum json_type type,
			 struct wperf_error *err);

/* The values of object o for its nkeys keys, in values (NULL where a key is
 * missing, and for a JSON null). An unknown key (the message lists the
 * allowed ones), or a missing key of the first nrequired, is an error. */
int wperf_json_get_keys(const struct json_object *o, const char *path, const char *const *keys,
			size_t nkeys, size_t nrequired, struct json_object **values,
			struct wperf_error *err);

/* A string without NUL bytes (possibly empty); *s points into o. */
int wperf_json_get_string(struct json_object *o, const char *path, const char **s, size_t *len,
			  struct wperf_error *err);

/* An identity: a non-empty string without NUL bytes; *s points into o. */
int wperf_json_get_identity(struct json_object *o, const char *path, const char **s,
			    struct wperf_error *err);

/* A string into a fixed-size array (size with its NUL). */
int wperf_json_get_fixed(struct json_object *o, const char *path, char *out, size_t size,
			 struct wperf_error *err);

/* A whole number from min to max; what says it in messages ("a whole number"). */
int wperf_json_get_count(const struct json_object *o, const char *path, uint64_t min, uint64_t max,
			 const char *what, uint64_t *out, struct wperf_error *err);

/* The member key of object o, of type (an object, an array, a string or a
 * boolean), in *v: when it is missing (or null and not required), *v is NULL
 * and that is an error only when required. */
int wperf_json_get_member(struct json_object *o, const char *path, const char *key,
			  enum json_type type, int required, struct json_object **v,
			  struct wperf_error *err);

/* A finite number in r (o NULL: a JSON null). */
int wperf_json_get_number(const struct json_object *o, const char *path,
			  const struct wperf_doc_range *r, double *out, struct wperf_error *err);

/* Is o a finite number (json-c reads NaN and Infinity as numbers too)? */
int wperf_json_is_number(const struct json_object *o);

#endif /* WPERF_JSON_UTIL_H */
