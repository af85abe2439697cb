/* SPDX-License-Identifier: MIT */
/*
 * What `wperf-bench post` says on a pull request: ONE comment for everything
 * it is given, the Markdown of a whole check (wperf_check_markdown) after a
 * hidden marker, "<!-- wperf-bench -->", or "<!-- wperf-bench: S -->" with a
 * key suffix S (the jobs of a matrix, each with its comment).
 *
 * It reads folders of two kinds into one struct wperf_check:
 * - a check-perf folder (CHECK/summary.json, format wperf-check/1): every
 *   scenario, with its findings; the first such folder also gives the mode,
 *   the commits, alpha and the time;
 * - a judged results folder of `run --gate` or `compare` (summary.json,
 *   wperf-results/1): one scenario with its verdict, runs and throughput; its
 *   findings are not on file (verdict.md is for people), so the comment gives
 *   the verdict only and points to verdict.md.
 * A scenario given again is replaced by the later folder (NAME.confirm after
 * NAME), with a note.
 *
 * Ownership: a struct post_comment owns its check and its text;
 * post_comment_release frees them. A zeroed struct is empty.
 */
#ifndef WPERF_POST_COMMENT_H
#define WPERF_POST_COMMENT_H

#include "core/util/buf.h"
#include "core/gate/check.h"
#include "core/util/error.h"

#define POST_KEY_MAX 160

struct post_comment {
	struct wperf_check check;
	int headed; /* check's mode, commits, alpha, time: from a check-perf folder */
	char marker[POST_KEY_MAX + 32];
	struct wperf_buf text; /* the marker's line, then the Markdown; a C string */
};

/*
 * Adds the scenarios of folder dir to c. note gets a sentence when a scenario
 * c had is replaced ("" otherwise). 0, or a negative errno with err naming
 * the folder or file and what to do; c is then as it was.
 */
int post_comment_add(struct post_comment *c, const char *dir, char *note, size_t note_size,
		     struct wperf_error *err);

/*
 * Makes c's marker and text from its check; key_suffix and artifacts (a URL)
 * may be NULL. 0, or a negative errno with err (a suffix that would end the
 * marker's HTML comment, out of memory).
 */
int post_comment_compose(struct post_comment *c, const char *key_suffix, const char *artifacts,
			 struct wperf_error *err);

/* The exit status of the verdicts: 2 when a scenario is in error, else 1 for
 * new-bottleneck or regression, else 0. */
int post_comment_status(const struct post_comment *c);

void post_comment_release(struct post_comment *c);

/* The Markdown, without the marker's line: for the job summary. */
const char *post_comment_markdown(const struct post_comment *c);

/* Appends the Markdown to the job summary file at path ($GITHUB_STEP_SUMMARY);
 * 0, or a negative errno with err naming the file. */
int post_comment_append_summary(const struct post_comment *c, const char *path,
				struct wperf_error *err);

#endif /* WPERF_POST_COMMENT_H */
