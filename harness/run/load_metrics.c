/* SPDX-License-Identifier: MIT */
/*
 * The load's other metrics (see load_metrics.h): read from the text the load
 * left, by regex (runner_read.c's, as the throughput) or by a key path into
 * JSON (json-c).
 */
#include "harness/run/load_metrics.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/json_util.h"
#include "harness/base/output.h"
#include "harness/run/runner.h"

/* The document of text (len bytes, no NUL needed): the whole of it, or its
 * last line that parses. */
static json_object *document(const char *text, size_t len)
{
	char *whole = strndup(text, len);
	json_object *o = whole ? json_tokener_parse(whole) : NULL;

	free(whole);

	for (size_t end = len; !o && end > 0;) {
		size_t start = end - 1;
		char *line;

		while (start > 0 && text[start - 1] != '\n')
			start--;
		if ((line = strndup(text + start, end - start))) {
			o = json_tokener_parse(line);
			free(line);
		}
		end = start > 0 ? start - 1 : 0;
	}
	return o;
}

/* The value at path in o (NULL: none); path is known to be well formed. */
static json_object *walk(json_object *o, const char *path)
{
	char name[256];

	while (o && *path) {
		size_t n = strcspn(path, ".[");

		snprintf(name, sizeof(name), "%.*s", (int)n, path);
		path += n;
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, name, &o))
			return NULL;
		while (o && *path == '[') {
			size_t i = strtoul(path + 1, (char **)&path, 10);

			path++; /* ']' */
			o = json_object_is_type(o, json_type_array) &&
				    i < json_object_array_length(o)
				? json_object_array_get_idx(o, i)
				: NULL;
		}
		path += *path == '.';
	}
	return o;
}

int load_metrics_json(const char *path, const char *what, const char *text, size_t len,
		      const char *source, double *value, struct wperf_error *err)
{
	json_object *o = document(text, len), *v = walk(o, path);
	char found[40];
	int e = 0;

	if (!o)
		e = wperf_error_set(err, -ENOENT, "%s: no JSON document for the %s (%s)", source,
				    what, path);
	else if (!v)
		e = wperf_error_set(err, -ENOENT, "%s: the JSON has no %s (the %s)", source, path,
				    what);
	else if (!wperf_json_is_number(v))
		e = wperf_error_set(err, -EINVAL, "%s: %s (the %s) is %s, not a number", source,
				    path, what, wperf_json_found(v, found, sizeof(found)));
	else
		*value = json_object_get_double(v);
	json_object_put(o);
	return e;
}

/* The text of source, with a NUL after it, into text. */
static int read_text(const char *source, struct wperf_buf *text, struct wperf_error *err)
{
	int e;

	wperf_buf_clear(text);
	e = output_read_all(source, text, err);
	if (!e && wperf_buf_append(text, "", 1)) /* json-c wants its NUL */
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	return e;
}

int load_measures_read(const struct scenario_load *l, const char *load_log, double *throughput,
		       double *values, struct wperf_error *err)
{
	const struct scenario_throughput *t = &l->throughput;
	struct wperf_buf text = {0};
	int e = 0;

	for (size_t i = 0; i < l->nmetrics; i++)
		values[i] = NAN;
	if (t->regex && !(e = read_text(t->file ? t->file : load_log, &text, err)))
		e = runner_parse_throughput(t->regex, (const char *)text.data, text.len - 1,
					    t->file ? t->file : load_log, throughput, err);
	for (size_t i = 0; i < l->nmetrics && !e; i++) {
		const struct scenario_metric *m = &l->metrics[i];
		const char *source = m->file ? m->file : load_log;
		char what[96];

		snprintf(what, sizeof(what), "metric %s", m->name);
		if ((e = read_text(source, &text, err)))
			break;
		if (m->regex)
			e = runner_parse_number(m->regex, what, (const char *)text.data,
						text.len - 1, source, &values[i], err);
		else
			e = load_metrics_json(m->json, what, (const char *)text.data, text.len - 1,
					      source, &values[i], err);
	}
	wperf_buf_release(&text);
	return e;
}
