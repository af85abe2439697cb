/* SPDX-License-Identifier: MIT */
/*
 * The load's throughput and other metrics (load.throughput, load.metrics,
 * core/scenario/scenario.h) read after each run: a regex's first group on the last matching line,
 * as the throughput, or a key path in the load's JSON output.
 */
#ifndef WPERF_LOAD_METRICS_H
#define WPERF_LOAD_METRICS_H

#include <stddef.h>

#include "core/scenario/scenario.h"
#include "core/util/error.h"

/*
 * Reads the throughput of l (left alone without a regex) into *throughput and
 * each metric of l into values (l->nmetrics of them, in order), each from its
 * file or else from load_log (the load's output). 0, or a negative errno with
 * err naming the measure, the file and what was missing.
 */
int load_measures_read(const struct scenario_load *l, const char *load_log, double *throughput,
		       double *values, struct wperf_error *err);

/*
 * The number at key path (as struct scenario_metric.json says) in text: the
 * whole text as one JSON document, or else its last line that is one. 0 and
 * *value; -ENOENT or -EINVAL with err saying which (source and what name the
 * text and the number in messages).
 */
int load_metrics_json(const char *path, const char *what, const char *text, size_t len,
		      const char *source, double *value, struct wperf_error *err);

#endif /* WPERF_LOAD_METRICS_H */
