/* SPDX-License-Identifier: MIT */
/*
 * GitHub's issue comments, where a pull request's conversation lives: the
 * comment that starts with a hidden marker found again (the pages of the
 * list followed through their Link headers), then updated in place, or
 * created when there is none; and the pull request a workflow runs for, from
 * its event file. Answers other than the expected one become one sentence
 * that says what to do (401, 403 on a fork's read-only token, a rate limit,
 * 404, 422 with GitHub's message).
 *
 * The parsers take a buffer and never trust it: anything but the documented
 * shape is a clear error, never a crash (they are fuzzed).
 *
 * Ownership: a struct github_comment owns its strings and a struct
 * github_comments its comments; the _release functions free them.
 */
#ifndef WPERF_GITHUB_COMMENTS_H
#define WPERF_GITHUB_COMMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "harness/forge/forge_http.h"

#define GITHUB_API_URL	   "https://api.github.com"
#define GITHUB_COMMENT_MAX 65536 /* characters of a comment's body */

/* The request headers GitHub asks for, NULL-terminated, for forge_http_open. */
extern const char *const github_headers[];

/* A pull request: the API's base URL (no trailing '/'), OWNER/NAME, its number. */
struct github_target {
	const char *api;
	const char *repo;
	unsigned long pr;
};

struct github_comment {
	int64_t id;	/* 0: none */
	char *body;	/* "" when GitHub gave null */
	char *html_url; /* NULL when GitHub gave none */
};

struct github_comments {
	struct github_comment *v;
	size_t n;
};

void github_comment_release(struct github_comment *c);
void github_comments_release(struct github_comments *c);

/* One page of GET /repos/O/R/issues/N/comments: a JSON array of objects with
 * an "id" and a "body". 0 or -EINVAL with err naming what is wrong. */
int github_parse_comments(const char *json, size_t len, struct github_comments *out,
			  struct wperf_error *err);

/* One comment object, as POST and PATCH answer. 0 or -EINVAL. */
int github_parse_comment(const char *json, size_t len, struct github_comment *out,
			 struct wperf_error *err);

/* GitHub's "message" of an error answer, with the first of its "errors"
 * detailed, into out; "" when the body says none. */
void github_error_message(const char *json, size_t len, char *out, size_t size);

/* The pull request of an event file ($GITHUB_EVENT_PATH): pull_request.number,
 * else issue.number, else 0 (a push has none). 0 or -EINVAL. */
int github_event_pr(const char *json, size_t len, unsigned long *pr, struct wperf_error *err);

/* The first comment of t whose body starts with marker, into *found (id 0:
 * none). 0 or a negative errno with err. */
int github_find_comment(struct forge_http *h, const struct github_target *t, const char *marker,
			struct github_comment *found, struct wperf_error *err);

enum github_posted { GITHUB_CREATED, GITHUB_UPDATED, GITHUB_UNCHANGED };

/*
 * Puts body (which starts with marker) on t: the comment found by marker
 * updated with PATCH (not touched when its body is already body), or created
 * with POST. A creation that failed in a way that may have created it all
 * the same (a 5xx, a timeout) is looked for again before another try, so
 * that there is never a second comment. *what says which; *posted is the
 * comment. 0 or a negative errno with err saying what to do.
 */
int github_upsert_comment(struct forge_http *h, const struct github_target *t, const char *marker,
			  const char *body, enum github_posted *what, struct github_comment *posted,
			  struct wperf_error *err);

/* Appends the requests github_upsert_comment starts with (the first page of
 * the list, then the creation), for --dry-run. 0 or -ENOMEM. */
int github_describe_upsert(const struct forge_http *h, const struct github_target *t,
			   const char *body, struct wperf_buf *out);

#endif /* WPERF_GITHUB_COMMENTS_H */
