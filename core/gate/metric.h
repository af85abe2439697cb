/* SPDX-License-Identifier: MIT */
/*
 * Metrics: what a scenario measures of its load besides the throughput (a
 * latency percentile, a time), each named, with its unit, its direction and
 * its own tolerance in the gate. The throughput keeps its own fields
 * (struct wperf_run.throughput, the baseline's throughput) so that every file
 * written before metrics reads unchanged; a metric here is never called
 * "throughput".
 *
 * A run keeps the value of each metric it measured (NaN: not measured) by
 * name; a run set says which metrics its scenario defines (struct
 * wperf_metric); a baseline keeps the samples of each (baseline.h); the gate
 * tests each as it tests the throughput (verdict.h), each finding naming it.
 *
 * In summary.json a run's metrics are an object {"NAME": value or null}, and
 * the run set's definitions a list of objects {name, unit, lower_is_better,
 * tolerance}: both are left out when there are none.
 */
#ifndef WPERF_METRIC_H
#define WPERF_METRIC_H

#include <stddef.h>

#include "core/util/error.h"

struct json_object;

#define WPERF_METRIC_NAME_MAX 64 /* with its NUL */
#define WPERF_METRIC_UNIT_MAX 32 /* with its NUL, as the throughput's unit */

/* A metric as its scenario defines it. */
struct wperf_metric {
	char name[WPERF_METRIC_NAME_MAX]; /* wperf_metric_name_ok */
	char unit[WPERF_METRIC_UNIT_MAX]; /* may be empty */
	int lower_is_better;		  /* a latency or a time */
	double tolerance; /* relative change of the median that matters; 0: the gate's
			   * throughput_tolerance */
};

/* A run's value of one metric. */
struct wperf_run_metric {
	char name[WPERF_METRIC_NAME_MAX];
	double value; /* NaN: the run did not measure it */
};

/* Is name a metric's name: 1 to 63 of [A-Za-z0-9_.-], neither "throughput"
 * nor "bottlenecks" (the gate's JUnit testcases)? */
int wperf_metric_name_ok(const char *name);

/* The definition called name among n, or NULL. */
const struct wperf_metric *wperf_metric_find(const struct wperf_metric *m, size_t n,
					     const char *name);

/* {"NAME": value or null, ...} of n values, into a new *out; 0 or -ENOMEM. */
int wperf_run_metrics_to_json(const struct wperf_run_metric *v, size_t n, struct json_object **out);

/* The same read back strictly (names checked, numbers or null) into a new
 * array *out of *n; where names o in errors. 0, -EINVAL or -ENOMEM. */
int wperf_run_metrics_from_json(const struct json_object *o, const char *where,
				struct wperf_run_metric **out, size_t *n, struct wperf_error *err);

/* [{name, unit, lower_is_better, tolerance}, ...] of n definitions; 0 or -ENOMEM. */
int wperf_metrics_to_json(const struct wperf_metric *m, size_t n, struct json_object **out);

/* The same read back strictly into a new array *out of *n (names unique). */
int wperf_metrics_from_json(const struct json_object *o, const char *where,
			    struct wperf_metric **out, size_t *n, struct wperf_error *err);

#endif /* WPERF_METRIC_H */
