/* SPDX-License-Identifier: MIT */
/*
 * GitHub's side of the one comment (forge_comments.h): a pull request's
 * conversation is its issue's comments,
 *   GET   /repos/O/R/issues/N/comments?per_page=100   (Link headers)
 *   POST  /repos/O/R/issues/N/comments
 *   PATCH /repos/O/R/issues/comments/ID
 * with the token as "Authorization: Bearer"; and the pull request a workflow
 * runs for, from its event file.
 */
#ifndef WPERF_GITHUB_COMMENTS_H
#define WPERF_GITHUB_COMMENTS_H

#include <stddef.h>

#include "core/util/error.h"
#include "harness/forge/forge_comments.h"

#define GITHUB_API_URL	   "https://api.github.com"
#define GITHUB_COMMENT_MAX 65536 /* characters of a comment's body */

/* The request headers GitHub asks for, NULL-terminated, for forge_http_open. */
extern const char *const github_headers[];

/* The comments of t's pull request, into *out (which refers to t->api). */
void github_thread(const struct forge_target *t, struct forge_thread *out);

/* The issues of t's repository (t->number unused) labelled label (letters,
 * digits, '-'), open and closed, into *out:
 *   GET   /repos/O/R/issues?labels=L&state=all&per_page=100   (Link headers)
 *   POST  /repos/O/R/issues        (with the label: GitHub makes it if missing)
 *   PATCH /repos/O/R/issues/N */
void github_issues(const struct forge_target *t, const char *label, struct forge_thread *out);

/* The pull request of an event file ($GITHUB_EVENT_PATH): pull_request.number,
 * else issue.number, else 0 (a push has none). 0 or -EINVAL. */
int github_event_pr(const char *json, size_t len, unsigned long *pr, struct wperf_error *err);

#endif /* WPERF_GITHUB_COMMENTS_H */
