/* SPDX-License-Identifier: MIT */
/*
 * Runs (core/gate/runset.h) and the environment (struct wperf_env, core/gate/env.h)
 * as JSON values, built and read with json-c and the strict-document kit
 * (core/util/json_util.h). They are values, not files: the document they go in
 * is its owner's (a results folder's summary.json is harness/run/results_json.c's,
 * which keeps the runs there so that `wperf-bench compare` can rebuild them).
 *
 * Both, and how strictly they are read, are documented in docs/scenarios.md
 * ("The runs in summary.json"). Errors name the value by its key path after
 * where, the name the caller gives o ("results/x/summary.json:
 * runs[2].result.edges[1].share: expected a number >= 0, found -0.5"); where
 * may be NULL or "" for a value at the top. json-c's parser accepts NaN,
 * Infinity and trailing garbage unless the caller's tokener is set to
 * JSON_TOKENER_STRICT.
 */
#ifndef WPERF_RUN_JSON_H
#define WPERF_RUN_JSON_H

#include <json-c/json.h>

#include "core/gate/baseline.h"
#include "core/util/error.h"
#include "core/gate/runset.h"

/*
 * The JSON object of run r, in *out (a new reference, for json_object_put); r
 * must be a run as runset.h makes them. A throughput that is NaN or infinite is
 * written null. 0, -EINVAL (a share that is negative or not finite: not a run
 * of runset.h) or -ENOMEM; *out is NULL on error.
 */
int wperf_run_to_json(const struct wperf_run *r, struct json_object **out);

/*
 * The run that JSON value o describes (see above), in *out. 0, -EINVAL (err
 * says where and why) or -ENOMEM; on error out is left empty, as by
 * wperf_run_init.
 */
int wperf_run_from_json(const struct json_object *o, const char *where, struct wperf_run *out,
			struct wperf_error *err);

/* The JSON object of environment e, in *out (a new reference). 0 or -ENOMEM;
 * *out is NULL on error. */
int wperf_env_to_json(const struct wperf_env *e, struct json_object **out);

/*
 * The environment that JSON value o describes, in *out: "kernel", "cpus" and
 * "tool" required, "cpu" (the CPU model) and "calibration" optional. Strings
 * that do not fit their arrays are an error. 0 or -EINVAL (nothing is
 * allocated); on error *out is zeroed.
 */
int wperf_env_from_json(const struct json_object *o, const char *where, struct wperf_env *out,
			struct wperf_error *err);

#endif /* WPERF_RUN_JSON_H */
