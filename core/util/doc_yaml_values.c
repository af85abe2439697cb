/* SPDX-License-Identifier: MIT */
/*
 * The kit's YAML scalars (doc_yaml.h): strings, numbers in ranges, whole
 * numbers, booleans and enums, each error saying what was expected and what
 * was found.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/doc_yaml.h"

static int expected(struct wperf_yaml *y, const yaml_node_t *n, const char *what)
{
	char found[64];

	return wperf_yaml_fail(y, n, "expected %s, found %s", what,
			       wperf_yaml_describe(n, found, sizeof(found)));
}

/* Plain (unquoted) scalar text, or NULL after an "expected WHAT" error:
 * numbers and booleans are never quoted. */
static const char *plain(struct wperf_yaml *y, const yaml_node_t *n, const char *what)
{
	char found[64];

	if (n->type != YAML_SCALAR_NODE || wperf_yaml_is_null(n)) {
		expected(y, n, what);
		return NULL;
	}
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
		wperf_yaml_fail(y, n, "expected %s, found %s (a quoted string)", what,
				wperf_yaml_describe(n, found, sizeof(found)));
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

int wperf_yaml_string(struct wperf_yaml *y, const yaml_node_t *n, int flags, const char **s,
		      size_t *len)
{
	if (n->type != YAML_SCALAR_NODE || wperf_yaml_is_null(n))
		return expected(y, n, "a string");
	*s = (const char *)n->data.scalar.value;
	*len = n->data.scalar.length;
	if (strlen(*s) != *len)
		return wperf_yaml_fail(y, n, "strings cannot hold NUL characters");
	if ((flags & WPERF_YAML_NONEMPTY) && *len == 0)
		return expected(y, n, "a non-empty string");
	return 0;
}

int wperf_yaml_strdup(struct wperf_yaml *y, const yaml_node_t *n, int flags, char **out)
{
	const char *s;
	size_t len;
	int ret = wperf_yaml_string(y, n, flags, &s, &len);

	if (ret)
		return ret;
	*out = strndup(s, len);
	return *out ? 0 : wperf_yaml_no_memory(y);
}

int wperf_yaml_fixed(struct wperf_yaml *y, const yaml_node_t *n, char *out, size_t size)
{
	const char *s;
	size_t len;
	int ret = wperf_yaml_string(y, n, 0, &s, &len);

	if (ret)
		return ret;
	if (len >= size)
		return wperf_yaml_fail(y, n, "expected at most %zu bytes, found %zu", size - 1,
				       len);
	memcpy(out, s, len + 1);
	return 0;
}

int wperf_yaml_number(struct wperf_yaml *y, const yaml_node_t *n, const struct wperf_doc_range *r,
		      double *out)
{
	const char *v;
	char what[96], *end = NULL;
	double d = NAN;

	wperf_doc_range_text(what, sizeof(what), r);
	if (!(v = plain(y, n, what)))
		return -EINVAL;
	/* Decimal numbers only: strtod would also take hex, inf and nan. */
	errno = 0;
	if (strspn(v, "0123456789+-.eE") == strlen(v) && strpbrk(v, "0123456789"))
		d = strtod(v, &end);
	if (isnan(d) || *end || (errno == ERANGE && fabs(d) > 1) || !wperf_doc_in_range(d, r))
		return expected(y, n, what);
	*out = d;
	return 0;
}

int wperf_yaml_integer(struct wperf_yaml *y, const yaml_node_t *n, long long min, long long max,
		       long long *out)
{
	const char *v;
	char what[96], *end;
	long long i;

	snprintf(what, sizeof(what), "a whole number in [%lld, %lld]", min, max);
	if (!(v = plain(y, n, what)))
		return -EINVAL;
	errno = 0;
	i = strtoll(v, &end, 10);
	if (!*v || *end || strspn(v, "+-0123456789") != strlen(v) || errno == ERANGE || i < min ||
	    i > max)
		return expected(y, n, what);
	*out = i;
	return 0;
}

int wperf_yaml_bool(struct wperf_yaml *y, const yaml_node_t *n, int *out)
{
	static const char *const names[] = {"false", "False", "FALSE", "true", "True", "TRUE"};
	const char *v = plain(y, n, "true or false");

	if (!v)
		return -EINVAL;
	for (size_t i = 0; i < 6; i++) {
		if (!strcmp(v, names[i])) {
			*out = i >= 3;
			return 0;
		}
	}
	return expected(y, n, "true or false");
}

int wperf_yaml_enum(struct wperf_yaml *y, const yaml_node_t *n, const char *const *names,
		    size_t count, size_t *out)
{
	char what[256] = "one of ";
	const char *s;
	size_t len;

	int ret;

	wperf_doc_key_list(what + strlen(what), sizeof(what) - strlen(what), names, count);
	if (n->type != YAML_SCALAR_NODE || wperf_yaml_is_null(n))
		return expected(y, n, what);
	if ((ret = wperf_yaml_string(y, n, 0, &s, &len)))
		return ret;
	for (size_t i = 0; i < count; i++) {
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	}
	return expected(y, n, what);
}
