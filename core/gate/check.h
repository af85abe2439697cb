/* SPDX-License-Identifier: MIT */
/*
 * The outcome of a whole `wperf-bench check-perf`: every selected scenario's
 * verdict, with its findings, in one value; kept as CHECK/summary.json for
 * tools and rendered as one Markdown text for people (the pull-request
 * comment, the job summary, CHECK/summary.md).
 *
 * CHECK/summary.json ("format": "wperf-check/1"), every key of it, is
 * documented in docs/ci.md; check_read.c refuses anything else.
 *
 * Ownership: a struct wperf_check owns its scenarios, their strings and their
 * verdicts; wperf_check_release frees them and leaves a zeroed struct.
 * scenarios is an array of n, from malloc; each scenario's strings too.
 */
#ifndef WPERF_CHECK_H
#define WPERF_CHECK_H

#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "core/gate/verdict.h"

#define WPERF_CHECK_FORMAT "wperf-check/1"

struct wperf_check_scenario {
	char *name;
	char *dir;		      /* relative to the check's folder */
	int error;		      /* it could not run or be judged: reason says why */
	char *reason;		      /* one line: the error, or why inconclusive; NULL otherwise */
	size_t pairs;		      /* runs per side */
	double seconds;		      /* from its first run to its verdict */
	struct wperf_verdict verdict; /* zeroed when error */
	/* base mode: what the head changes of the files that set its own gate
	 * (its scenario file, its baseline's accepted: entries), one line each,
	 * "FILE: key.path: BEFORE -> AFTER"; judged under the base's unless the
	 * check trusts the head's settings */
	char **settings_changed;
	size_t nsettings_changed;
	/* base mode, a verdict with findings: the differential flame graph of
	 * the head's waits against the base's, a file in its folder (NULL: none),
	 * and the stacks that grew most, one line each ("+CHANGE UNIT (A -> B):
	 * FRAME;FRAME;..."), most first */
	char *flame;
	char **growing;
	size_t ngrowing;
};

struct wperf_check {
	int base_mode;	    /* 1: head against the base's runs; 0: against baselines/ */
	char base_ref[128]; /* base_mode: as the user named it */
	char base_commit[41];
	char head_commit[41];
	char head_branch[256];
	int head_dirty;
	int trust_head_settings; /* base mode: the head judged under its own settings */
	double alpha;		 /* the whole check's false-failure rate */
	double seconds;		 /* time to the verdict */
	struct wperf_check_scenario *scenarios;
	size_t n;
};

/* The worst verdict of c's scenarios: new-bottleneck before regression before
 * inconclusive before improved before pass; *error set when one scenario is in
 * error (the check's exit status is then 2). */
enum wperf_verdict_kind wperf_check_kind(const struct wperf_check *c, int *error);

void wperf_check_release(struct wperf_check *c);

/* Frees one scenario's strings and verdict, and zeroes it. */
void wperf_check_scenario_release(struct wperf_check_scenario *s);

struct json_object;

/* The summary.json object of c (above), in *out (a new reference); verdict.scenario
 * is not written (name is). 0, -ENOMEM, or -EINVAL for an infinite number. */
int wperf_check_to_json(const struct wperf_check *c, struct json_object **out);

/*
 * Reads summary.json text (len bytes) into *out, which the caller releases;
 * path_for_messages names the file in errors ("build/check-perf/summary.json:
 * scenarios[2].findings[0].level: expected one of info, warn, fail"). 0, or
 * -EINVAL (-ENOMEM) with err, and *out zeroed.
 */
int wperf_check_from_json(const char *path_for_messages, const char *text, size_t len,
			  struct wperf_check *out, struct wperf_error *err);

/*
 * Appends the Markdown of c to out, for a pull-request comment, the job
 * summary and CHECK/summary.md: a first line anyone can read ("**wperf-bench:
 * 1 new bottleneck in 17 scenarios**"), what was compared, a table of the
 * scenarios, then for each scenario with findings or warnings a collapsed
 * block (failing and worse findings first; edges with their shares, p and q,
 * vertices joining or leaving the bottleneck, call sites); a link to
 * artifacts_url (may be NULL). At most max_chars bytes (0:
 * WPERF_VERDICT_MD_MAX; at least 2000): the blocks of the least important
 * scenarios are left out first, then the text is cut at a line's end, and a
 * last line says what was left out. 0 or -ENOMEM (out as it was).
 */
int wperf_check_markdown(const struct wperf_check *c, const char *artifacts_url, size_t max_chars,
			 struct wperf_buf *out);

/* Appends the JUnit XML of c (wperf_verdict_junit of its verdicts; a scenario
 * in error is a testcase in error with its reason). 0 or -ENOMEM. */
int wperf_check_junit(const struct wperf_check *c, struct wperf_buf *out);

#endif /* WPERF_CHECK_H */
