/* SPDX-License-Identifier: MIT */
/*
 * Runs (core/gate/runset.h) and the environment (struct wperf_env, core/gate/env.h)
 * as JSON values, built and read with json-c and the strict-document kit
 * (core/util/json_util.h). They are values, not files: the document they go in
 * is its owner's (a results folder's summary.json is harness/run/results_json.c's,
 * which keeps the runs there so that `wperf-bench compare` can rebuild them).
 *
 * A run:
 *
 *   {"throughput": 1012.5,            number, or null when there is none (NaN)
 *    "window_ns": 5000000000,         whole number > 0
 *    "lost_events": 0,                whole number
 *    "knots": [["disk:254:0", "fig1/B"]],   final knots, heaviest first; each a
 *                                     non-empty array of identities
 *    "edges": [{"from": "fig1/B", "to": "disk:254:0", "share": 0.55}],
 *                                     share: a number >= 0
 *    "checks": {"ok": 14, "warn": 0}} the checks against the kernel's counters that
 *                                     count for the target, agreeing and not;
 *                                     missing when the trace had no counters
 *
 * The environment:
 *
 *   {"kernel": "6.1.0-18-amd64", "cpus": 2, "tool": "wperf-bench 0.1.0",
 *    "cpu": "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz", "calibration": 4.3902}
 *
 * "cpu" (struct wperf_env's cpu_model) is always written, empty when unknown,
 * and may be missing when read (files written before it was kept); so is
 * "calibration" (ns a step of the calibration loop, a number >= 0), 0 when
 * unknown, also for a value in the struct that is not a number > 0.
 *
 * Numbers are written with the fewest digits that read back as the same double
 * (0.1 is written 0.1), whatever double format json-c was told to use, so a run
 * written and parsed again is the same run, bit for bit.
 *
 * The readers are strict, so that a typo in a hand-edited file does not pass
 * silently: every key is required (but "cpu" and "calibration" of the
 * environment), an unknown key is an error, and so are a value of the wrong
 * type, a share or a calibration that is negative or not finite (json-c reads
 * NaN and Infinity), a window of 0, an identity that is empty, holds a NUL byte
 * or is listed twice in a knot, an edge listed twice, an empty knot, and a
 * string of the environment too long for its array. Identities are made valid
 * UTF-8 as a run keeps them (wperf_identity_dup: '?' for each invalid byte).
 * The order of knots is kept; edges may come in any order.
 *
 * Errors name the value by its key path after where, the name the caller gives
 * o ("results/x/summary.json: runs[2].result"), with '.' before each key, in the
 * kit's format for files without positions (FILE: key.path: what was expected):
 *   results/x/summary.json: runs[2].result.edges[1].share: expected a number >= 0, found -0.5
 * where may be NULL or "" for a value at the top.
 *
 * Limits that come from json-c and that these readers cannot see: a key given
 * twice in an object keeps its last value, and a whole number out of range
 * (99999999999999999999) is clamped by the parser. The parser also accepts NaN,
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
