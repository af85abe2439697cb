/* SPDX-License-Identifier: MIT */
/*
 * Metrics (see metric.h): their names, and their JSON in summary.json, read
 * back strictly with the strict-document kit's JSON side.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/metric.h"
#include "core/util/json_util.h"

static const struct wperf_doc_range any_number = {-INFINITY, INFINITY, 0, 0};
static const struct wperf_doc_range share = {0, 1, 1, 0};

int wperf_metric_name_ok(const char *name)
{
	size_t len = strlen(name);

	/* bottlenecks and throughput name the gate's own JUnit testcases */
	return len && len < WPERF_METRIC_NAME_MAX && strcmp(name, "throughput") &&
	       strcmp(name, "bottlenecks") &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") ==
		   len;
}

const struct wperf_metric *wperf_metric_find(const struct wperf_metric *m, size_t n,
					     const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

/* "path: expected a metric's name ..." unless name is one. */
static int check_name(const struct json_object *o, const char *path, const char *name,
		      struct wperf_error *err)
{
	if (wperf_metric_name_ok(name))
		return 0;
	return wperf_json_expected(o, path,
				   "a metric's name (1 to 63 letters, digits, '_', '.', '-'; not "
				   "throughput or bottlenecks)",
				   err);
}

int wperf_run_metrics_to_json(const struct wperf_run_metric *v, size_t n, struct json_object **out)
{
	int ret = (*out = json_object_new_object()) ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !ret; i++)
		ret = isfinite(v[i].value)
			  ? wperf_json_put(*out, v[i].name, wperf_json_number(v[i].value))
			  : wperf_json_put_null(*out, v[i].name);
	if (ret) {
		json_object_put(*out);
		*out = NULL;
	}
	return ret;
}

int wperf_run_metrics_from_json(const struct json_object *o, const char *where,
				struct wperf_run_metric **out, size_t *n, struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];
	int ret = wperf_json_want_type(o, where, json_type_object, err);
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (ret)
		return ret;
	if (!(*out = calloc(json_object_object_length(o) + 1, sizeof(**out))))
		return wperf_json_no_memory(err, where);
	json_object_object_foreach((struct json_object *)o, name, value)
	{
		struct wperf_run_metric *m = &(*out)[k++];

		wperf_json_key_path(sub, where, name);
		if ((ret = check_name(NULL, sub, name, err)))
			break;
		strcpy(m->name, name);
		m->value = NAN;
		if (value && (ret = wperf_json_get_number(value, sub, &any_number, &m->value, err)))
			break;
	}
	if (ret) {
		free(*out);
		*out = NULL;
		return ret;
	}
	*n = k;
	return 0;
}

int wperf_metrics_to_json(const struct wperf_metric *m, size_t n, struct json_object **out)
{
	int ret = (*out = json_object_new_array()) ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !ret; i++) {
		struct json_object *o = json_object_new_object();

		ret = wperf_json_append(*out, o);
		ret = ret ? ret : wperf_json_put(o, "name", json_object_new_string(m[i].name));
		ret = ret ? ret : wperf_json_put(o, "unit", json_object_new_string(m[i].unit));
		ret = ret ? ret
			  : wperf_json_put(o, "lower_is_better",
					   json_object_new_boolean(m[i].lower_is_better));
		ret = ret ? ret : wperf_json_put(o, "tolerance", wperf_json_number(m[i].tolerance));
	}
	if (ret) {
		json_object_put(*out);
		*out = NULL;
	}
	return ret;
}

static int metric_from_json(struct json_object *o, const char *where, struct wperf_metric *m,
			    struct wperf_error *err)
{
	static const char *const keys[] = {"name", "unit", "lower_is_better", "tolerance"};
	struct json_object *v[4];
	char sub[WPERF_JSON_PATH_LEN];
	int ret = wperf_json_get_keys(o, where, keys, 4, 4, v, err);

	wperf_json_key_path(sub, where, "name");
	ret = ret ? ret : wperf_json_get_fixed(v[0], sub, m->name, sizeof(m->name), err);
	ret = ret ? ret : check_name(v[0], sub, m->name, err);
	wperf_json_key_path(sub, where, "unit");
	ret = ret ? ret : wperf_json_get_fixed(v[1], sub, m->unit, sizeof(m->unit), err);
	wperf_json_key_path(sub, where, "lower_is_better");
	if (!ret && !json_object_is_type(v[2], json_type_boolean))
		ret = wperf_json_expected(v[2], sub, "true or false", err);
	m->lower_is_better = !ret && json_object_get_boolean(v[2]);
	wperf_json_key_path(sub, where, "tolerance");
	return ret ? ret : wperf_json_get_number(v[3], sub, &share, &m->tolerance, err);
}

int wperf_metrics_from_json(const struct json_object *o, const char *where,
			    struct wperf_metric **out, size_t *n, struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];
	int ret = wperf_json_want_type(o, where, json_type_array, err);
	size_t len = ret ? 0 : json_object_array_length(o);

	*out = NULL;
	*n = 0;
	if (ret)
		return ret;
	if (!(*out = calloc(len + 1, sizeof(**out))))
		return wperf_json_no_memory(err, where);
	for (size_t i = 0; i < len && !ret; i++) {
		wperf_json_index_path(sub, where, i);
		ret = metric_from_json(json_object_array_get_idx(o, i), sub, &(*out)[i], err);
		if (!ret && wperf_metric_find(*out, i, (*out)[i].name))
			ret = wperf_json_fail(err, sub, "metric \"%s\" is defined twice",
					      (*out)[i].name);
	}
	if (ret) {
		free(*out);
		*out = NULL;
		return ret;
	}
	*n = len;
	return 0;
}
