/* SPDX-License-Identifier: MIT */
/*
 * A shard of a check: which share of the scenarios it runs, and its
 * shard.json (check_shard.h).
 */
#include "harness/gate/check_shard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/util/json_util.h"
#include "harness/base/output.h"

int check_shard_parse(const char *arg, struct check_shard *out, struct wperf_error *err)
{
	char *end;
	unsigned long i = strtoul(arg, &end, 10), n = 0;

	if (end != arg && *end == '/' && end[1] >= '0' && end[1] <= '9')
		n = strtoul(end + 1, &end, 10);
	if (*end || !n || !i || i > n || n > CHECK_SHARD_MAX)
		return wperf_error_set(err, -EINVAL,
				       "--shard wants I/N, a share I from 1 to N of N shards (N at "
				       "most %d), not '%s'",
				       CHECK_SHARD_MAX, arg);
	out->index = (unsigned)i;
	out->of = (unsigned)n;
	return 0;
}

int check_shard_has(const struct check_shard *s, size_t rank)
{
	return !s->of || rank % s->of == s->index - 1;
}

int check_shard_write(const char *dir, const struct check_shard *s, char *const *names, size_t n,
		      struct wperf_error *err)
{
	struct json_object *o = json_object_new_object(), *selected = json_object_new_array();
	char path[PATH_MAX];
	const char *text;
	int e = wperf_json_put(o, "format", json_object_new_string(CHECK_SHARD_FORMAT));

	e = e ? e : wperf_json_put(o, "shard", json_object_new_uint64(s->index));
	e = e ? e : wperf_json_put(o, "of", json_object_new_uint64(s->of));
	e = e ? e : wperf_json_put(o, "selected", selected);
	for (size_t i = 0; i < n && !e; i++)
		e = wperf_json_append(selected, json_object_new_string(names[i]));
	text = e ? NULL : json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	snprintf(path, sizeof(path), "%s/" CHECK_SHARD_FILE, dir);
	e = text ? output_write(path, text, strlen(text), err)
		 : wperf_error_set(err, -ENOMEM, "%s: out of memory", path);
	json_object_put(o);
	return e;
}
