/* SPDX-License-Identifier: MIT */
/*
 * What `wperf-bench post` says of a judged results folder: its hidden
 * marker, "<!-- wperf-bench: KEY -->" (KEY: the scenario's name and a suffix,
 * for a matrix's jobs), a heading, the gate's verdict.md, and a footer with
 * the commit, the baseline it was judged against and the artifacts' link;
 * verdict.md cut at a line's end, with a note, when the whole would not fit
 * in a GitHub comment (GITHUB_COMMENT_MAX).
 *
 * Ownership: a struct post_comment owns its text; post_comment_release frees it.
 */
#ifndef WPERF_POST_COMMENT_H
#define WPERF_POST_COMMENT_H

#include "core/buf.h"
#include "core/error.h"

#define POST_KEY_MAX 160

struct post_comment {
	const char *dir; /* the results folder (not owned) */
	char key[POST_KEY_MAX];
	char marker[POST_KEY_MAX + 32];
	int status;	       /* the verdict's exit status (wperf_verdict_exit_code) */
	struct wperf_buf text; /* the marker's line, then the Markdown; a C string */
};

/*
 * Reads the results folder dir, which must be complete and judged, into *c;
 * key_suffix and artifacts (a URL) may be NULL. 0, or a negative errno with
 * err naming the folder or file and what to do.
 */
int post_comment_make(const char *dir, const char *key_suffix, const char *artifacts,
		      struct post_comment *c, struct wperf_error *err);

void post_comment_release(struct post_comment *c);

/* The Markdown, without the marker's line: for the job summary. */
const char *post_comment_markdown(const struct post_comment *c);

#endif /* WPERF_POST_COMMENT_H */
