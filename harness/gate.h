/* SPDX-License-Identifier: MIT */
/*
 * The gate as the commands use it: a results folder judged against the
 * baseline of its scenario, the verdict written next to the results
 * (verdict.md, junit.xml), and baselines read and written as files.
 *
 * A scenario's baseline is baselines/NAME.yaml, relative to the working
 * directory (the repository's root in CI), unless a path is given.
 */
#ifndef WPERF_GATE_H
#define WPERF_GATE_H

#include <limits.h>

#include "core/baseline.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/verdict.h"
#include "harness/results.h"

/* path, or baselines/SCENARIO.yaml when path is NULL, into out. */
void gate_baseline_path(const char *path, const char *scenario, char *out, size_t size);

/* Reads the baseline file at path. -ENOENT (with advice on making one) when
 * it does not exist; other errors name the file, line and key. */
int gate_read_baseline(const char *path, struct wperf_baseline *b, struct wperf_error *err);

/*
 * Judges the runs of r against b: *v (release it with wperf_verdict_release),
 * verdict.md and junit.xml written into r->dir, and the verdict added to its
 * summary.md. -EINVAL when r is not complete.
 */
int gate_judge(const struct results *r, const struct wperf_baseline *b, struct wperf_verdict *v,
	       struct wperf_error *err);

/*
 * Makes the baseline of r's runs and writes it to path atomically, keeping the
 * accepted entries of the baseline that was there. -EINVAL when r is not
 * complete or has no run.
 */
int gate_update_baseline(const struct results *r, const char *path, struct wperf_error *err);

#endif /* WPERF_GATE_H */
