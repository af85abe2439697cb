/* SPDX-License-Identifier: MIT */
/*
 * The outcome of a whole `wperf-bench check-perf`: every selected scenario's
 * verdict, with its findings, in one value; kept as CHECK/summary.json for
 * tools and rendered as one Markdown text for people (the pull-request
 * comment, the job summary, CHECK/summary.md).
 *
 * CHECK/summary.json ("format": "wperf-check/1"):
 *
 *   {"format": "wperf-check/1",
 *    "verdict": "regression",          the worst scenario's; "error" when one failed to run
 *    "mode": "base",                   "base": head against base runs interleaved
 *                                      on this machine; "baselines": against stored baselines
 *    "base": {"ref": "HEAD~1", "commit": "<40 hex>"},   null in "baselines" mode
 *    "head": {"commit": "<40 hex>", "branch": "main", "dirty": false},
 *    "alpha": 0.05,                    the false-failure rate of the whole check
 *    "seconds": 812.5,                 time to the verdict
 *    "scenarios": [
 *      {"name": "synthetic-fig1",
 *       "dir": "synthetic-fig1",       its folder, relative to CHECK
 *       "verdict": "regression",       or "error"
 *       "reason": "...",               one line: why error or inconclusive; null otherwise
 *       "pairs": 8,                    runs per side
 *       "seconds": 95.2,
 *       "alpha": 0.00098,              each test's level (see verdict.h)
 *       "tests": 7,
 *       "detectable": 0.06,            relative throughput change; null when unknown
 *       "structure_only": false,
 *       "throughput": {"before": 140.1, "after": 111.2, "unit": "requests/s"},
 *                                      before/after null when unknown
 *       "findings": [
 *         {"kind": "edge",             "new-knot" "knot-gone" "edge" "throughput"
 *                                      "vertex" "expectation"
 *          "level": "fail",            "info" "warn" "fail"
 *          "worse": true, "inconclusive": false, "accepted": false,
 *          "from": "fig1/B", "to": "fig1/extra",      edge, vertex (the edge that brought it); else
 * null "vertex": null, "sink": false,             vertex "knot": null, new-knot, knot-gone:
 * [identities] "before": 0.01, "after": 0.31, "change": 5.2,   null when NaN "before_range": [0,
 * 0.02], "after_range": [0.29, 0.33],  null when NaN "seen": 8, "runs": 8, "before_seen": 0,
 * "before_runs": 8, "p": 0.0001, "q": 0.0004, "detectable": 0.03,   null when NaN "runs_needed": 0,
 *          "note": "worse beyond the tolerance (10%) and the noise",
 *          "sites": [{"waiter": "fsync (fig1.c:88)", "waker": null, "share": 0.93}]}],
 *       "warnings": ["..."]}]}
 *
 * Ownership: a struct wperf_check owns its scenarios, their strings and their
 * verdicts; wperf_check_release frees them and leaves a zeroed struct.
 */
#ifndef WPERF_CHECK_H
#define WPERF_CHECK_H

#include <stddef.h>

#include "buf.h"
#include "error.h"
#include "verdict.h"

#define WPERF_CHECK_FORMAT "wperf-check/1"

struct wperf_check_scenario {
	char *name;
	char *dir;		      /* relative to the check's folder */
	int error;		      /* it could not run or be judged: reason says why */
	char *reason;		      /* one line: the error, or why inconclusive; NULL otherwise */
	size_t pairs;		      /* runs per side */
	double seconds;		      /* from its first run to its verdict */
	struct wperf_verdict verdict; /* zeroed when error */
};

struct wperf_check {
	int base_mode;	    /* 1: head against the base's runs; 0: against baselines/ */
	char base_ref[128]; /* base_mode: as the user named it */
	char base_commit[41];
	char head_commit[41];
	char head_branch[256];
	int head_dirty;
	double alpha;	/* the whole check's false-failure rate */
	double seconds; /* time to the verdict */
	struct wperf_check_scenario *scenarios;
	size_t n;
};

/* The worst verdict of c's scenarios: new-bottleneck before regression before
 * inconclusive before improved before pass; *error set when one scenario is in
 * error (the check's exit status is then 2). */
enum wperf_verdict_kind wperf_check_kind(const struct wperf_check *c, int *error);

void wperf_check_scenario_release(struct wperf_check_scenario *s);
void wperf_check_release(struct wperf_check *c);

#endif /* WPERF_CHECK_H */
