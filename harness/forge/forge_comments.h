/* SPDX-License-Identifier: MIT */
/*
 * The one comment of a pull request (GitHub) or note of a merge request
 * (GitLab) that starts with a hidden marker: found again (the pages of the
 * list followed through their Link headers, never to another host than the
 * API's), then updated in place, or created when there is none. What differs
 * between the forges is data, a struct forge_thread (github_comments.h,
 * gitlab_notes.h); the rules are here, once. Answers other than the expected
 * one become one sentence that says what to do (401, 403, a rate limit, 404,
 * 422 with the forge's message).
 *
 * The parsers take a buffer and never trust it: anything but the documented
 * shape (a JSON array of objects with a positive "id" and a string "body", as
 * both forges give) is a clear error, never a crash (they are fuzzed).
 *
 * Ownership: a struct forge_comment owns its strings and a struct
 * forge_comments its comments; the _release functions free them.
 */
#ifndef WPERF_FORGE_COMMENTS_H
#define WPERF_FORGE_COMMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "harness/forge/forge_http.h"

/* A pull or merge request: the API's base URL (no trailing '/'), the
 * repository (GitHub: OWNER/NAME; GitLab: the project's id, or its path
 * "group/name") and the request's number (GitLab: the merge request's IID). */
struct forge_target {
	const char *api;
	const char *repo;
	unsigned long number;
};

/* Where the comments of one pull or merge request live: each forge's
 * FORGE_thread (github_comments.h, gitlab_notes.h) says it of a target. The
 * issues of a repository with a label are such a list too (FORGE_issues):
 * their items have other keys, a title, a state and a label. */
struct forge_thread {
	const char *forge; /* "GitHub", "GitLab": for messages */
	const char *api;   /* the API's base URL, no trailing '/': next pages stay under it */
	char name[256];	   /* for messages: "o/r#12" */
	char missing[300]; /* what a 404 says is missing: "repository o/r or pull request #12" */
	char list_url[FORGE_HTTP_URL_MAX];   /* the first page of the list */
	char create_url[FORGE_HTTP_URL_MAX]; /* POST a new one */
	char item_url[FORGE_HTTP_URL_MAX];   /* ITEM_URL/ID is one comment */
	const char *update_method;	     /* "PATCH", "PUT" */
	const char *forbidden_hint;	     /* after a 403's sentence; NULL: none */
	/* An item of the list, for messages ("issue"); NULL: "comment". */
	const char *item;
	/* The keys of an item: its number in item_url (NULL: "id"), its text
	 * (NULL: "body"; GitLab's issues: "description"), its page (NULL:
	 * "html_url"; GitLab's issues: "web_url"). */
	const char *id_key, *body_key, *url_key;
	/* The label a new item gets (NULL: none), as GitHub takes it (a JSON
	 * array) or, label_as_text, as GitLab does (a string). */
	const char *label;
	int label_as_text;
};

struct forge_comment {
	int64_t id;	/* 0: none */
	char *body;	/* "" when the forge gave null */
	char *html_url; /* NULL when the forge gave none */
	char *title;	/* an issue's; NULL when the forge gave none */
	int closed;	/* an issue's "state" is "closed" */
};

struct forge_comments {
	struct forge_comment *v;
	size_t n;
};

void forge_comment_release(struct forge_comment *c);
void forge_comments_release(struct forge_comments *c);

struct json_object;

/* The JSON value that is all of [json, json + len) (white space around it
 * aside), a new reference; NULL with err (may be NULL) naming what when not. */
struct json_object *forge_parse_json(const char *json, size_t len, const char *what,
				     struct wperf_error *err);

/* The member key of o if it is of json-c's type (a json_type); NULL when it
 * is missing or null, and *wrong_type set when it is of another type. */
struct json_object *forge_json_member(struct json_object *o, const char *key, int type,
				      int *wrong_type);

/* One page of the list: a JSON array of objects with an "id" and a "body".
 * 0 or -EINVAL with err naming what is wrong. */
int forge_parse_comments(const char *json, size_t len, struct forge_comments *out,
			 struct wperf_error *err);

/* The same with the keys of t's items (struct forge_thread). */
int forge_parse_items(const struct forge_thread *t, const char *json, size_t len,
		      struct forge_comments *out, struct wperf_error *err);

/* One comment object, as a creation and an update answer. 0 or -EINVAL. */
int forge_parse_comment(const char *json, size_t len, struct forge_comment *out,
			struct wperf_error *err);

/* The forge's "message" of an error answer, with the first of its "errors"
 * detailed, into out; "" when the body says none. */
void forge_error_message(const char *json, size_t len, char *out, size_t size);

/* The first comment of t whose body starts with marker, into *found (id 0:
 * none). 0 or a negative errno with err. */
int forge_find_comment(struct forge_http *h, const struct forge_thread *t, const char *marker,
		       struct forge_comment *found, struct wperf_error *err);

/* FORGE_CLOSED: a closed issue, left alone (never re-opened nor edited). */
enum forge_posted { FORGE_CREATED, FORGE_UPDATED, FORGE_UNCHANGED, FORGE_CLOSED };

/*
 * Puts body (which starts with marker) on t: the comment found by marker
 * updated (not touched when its body is already body), or created. A
 * creation that failed in a way that may have created it all the same (a
 * 5xx, a timeout) is looked for again before another try, so that there is
 * never a second comment. *what says which; *posted is the comment. 0 or a
 * negative errno with err saying what to do.
 */
int forge_upsert_comment(struct forge_http *h, const struct forge_thread *t, const char *marker,
			 const char *body, enum forge_posted *what, struct forge_comment *posted,
			 struct wperf_error *err);

/* forge_upsert_comment for an item with a title (an issue; NULL: none): the
 * title is compared and written with the body; a closed item found by the
 * marker is left as it is (FORGE_CLOSED). */
int forge_upsert_item(struct forge_http *h, const struct forge_thread *t, const char *marker,
		      const char *title, const char *body, enum forge_posted *what,
		      struct forge_comment *posted, struct wperf_error *err);

/* Appends the requests forge_upsert_comment starts with (the first page of
 * the list, then the creation), for --dry-run. 0 or -ENOMEM. */
int forge_describe_upsert(const struct forge_http *h, const struct forge_thread *t,
			  const char *body, struct wperf_buf *out);

/* The same for forge_upsert_item. */
int forge_describe_item(const struct forge_http *h, const struct forge_thread *t, const char *title,
			const char *body, struct wperf_buf *out);

#endif /* WPERF_FORGE_COMMENTS_H */
