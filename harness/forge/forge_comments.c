/* SPDX-License-Identifier: MIT */
/*
 * The one comment of a pull or merge request (forge_comments.h): the pages of
 * the list followed, the marked comment updated or created, each answer read
 * strictly and explained in one sentence.
 */
#include "harness/forge/forge_comments.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Pages followed at the most: 10,000 comments at 100 a page. */
#define FORGE_PAGES_MAX 100

void forge_comment_release(struct forge_comment *c)
{
	free(c->body);
	free(c->html_url);
	*c = (struct forge_comment){0};
}

void forge_comments_release(struct forge_comments *c)
{
	for (size_t i = 0; i < c->n; i++)
		forge_comment_release(&c->v[i]);
	free(c->v);
	*c = (struct forge_comments){0};
}

/* ---- the parsers ---- */

/* The JSON value that is all of [json, json + len) (white space around it
 * aside); NULL with err when it is not one. */
json_object *forge_parse_json(const char *json, size_t len, const char *what,
			      struct wperf_error *err)
{
	json_tokener *tok;
	json_object *o;
	enum json_tokener_error e;
	size_t end;

	if (len > INT_MAX) {
		wperf_error_set(err, -EINVAL, "%s: too large to be JSON", what);
		return NULL;
	}
	if (!(tok = json_tokener_new())) {
		wperf_error_set(err, -ENOMEM, "%s: out of memory", what);
		return NULL;
	}
	o = json_tokener_parse_ex(tok, json, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	while (o && end < len && json[end] && strchr(" \t\r\n", json[end]))
		end++;
	if (e == json_tokener_success && o && end == len)
		return o;
	wperf_error_set(err, -EINVAL, "%s is not JSON: %s at byte %zu", what,
			e == json_tokener_continue  ? "it ends too early"
			: e != json_tokener_success ? json_tokener_error_desc(e)
						    : "more after the value",
			end);
	json_object_put(o);
	return NULL;
	return o;
}

json_object *forge_json_member(json_object *o, const char *key, int t, int *wrong_type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	if (!json_object_is_type(v, (json_type)t)) {
		*wrong_type = 1;
		return NULL;
	}
	return v;
}

static int comment_from(json_object *o, const char *what, struct forge_comment *out,
			struct wperf_error *err)
{
	int wrong = 0;
	json_object *id, *body, *url;

	*out = (struct forge_comment){0};
	if (!json_object_is_type(o, json_type_object))
		return wperf_error_set(err, -EINVAL, "%s is not a JSON object", what);
	id = forge_json_member(o, "id", json_type_int, &wrong);
	body = forge_json_member(o, "body", json_type_string, &wrong);
	url = forge_json_member(o, "html_url", json_type_string, &wrong);
	if (wrong || !id || json_object_get_int64(id) <= 0)
		return wperf_error_set(err, -EINVAL,
				       "%s: wants a positive \"id\" and a string \"body\"", what);
	out->id = json_object_get_int64(id);
	out->body = strdup(body ? json_object_get_string(body) : "");
	out->html_url = url ? strdup(json_object_get_string(url)) : NULL;
	if (!out->body || (url && !out->html_url)) {
		forge_comment_release(out);
		return wperf_error_set(err, -ENOMEM, "%s: out of memory", what);
	}
	return 0;
}

int forge_parse_comments(const char *json, size_t len, struct forge_comments *out,
			 struct wperf_error *err)
{
	json_object *a = forge_parse_json(json, len, "the list of comments", err);
	char what[64];
	size_t n;
	int e = 0;

	*out = (struct forge_comments){0};
	if (!a)
		return -EINVAL;
	if (!json_object_is_type(a, json_type_array)) {
		json_object_put(a);
		return wperf_error_set(err, -EINVAL, "the list of comments is not a JSON array");
	}
	n = json_object_array_length(a);
	if (n && !(out->v = calloc(n, sizeof(*out->v))))
		e = wperf_error_set(err, -ENOMEM, "the list of comments: out of memory");
	for (size_t i = 0; !e && i < n; i++) {
		snprintf(what, sizeof(what), "the list of comments: [%zu]", i);
		if (!(e = comment_from(json_object_array_get_idx(a, i), what, &out->v[i], err)))
			out->n++;
	}
	json_object_put(a);
	if (e)
		forge_comments_release(out);
	return e;
}

int forge_parse_comment(const char *json, size_t len, struct forge_comment *out,
			struct wperf_error *err)
{
	json_object *o = forge_parse_json(json, len, "the comment", err);
	int e;

	*out = (struct forge_comment){0};
	if (!o)
		return -EINVAL;
	e = comment_from(o, "the comment", out, err);
	json_object_put(o);
	return e;
}

void forge_error_message(const char *json, size_t len, char *out, size_t size)
{
	json_object *o = forge_parse_json(json, len, "", NULL), *errors, *first, *detail;
	int wrong = 0;
	json_object *message = o ? forge_json_member(o, "message", json_type_string, &wrong) : NULL;

	out[0] = '\0';
	if (message)
		snprintf(out, size, "%s", json_object_get_string(message));
	errors = o ? forge_json_member(o, "errors", json_type_array, &wrong) : NULL;
	first = errors ? json_object_array_get_idx(errors, 0) : NULL;
	detail = json_object_is_type(first, json_type_object)
		     ? forge_json_member(first, "message", json_type_string, &wrong)
		     : NULL;
	if (detail) {
		size_t used = strlen(out);

		snprintf(out + used, size - used, "%s%s", used ? ": " : "",
			 json_object_get_string(detail));
	}
	json_object_put(o);
}

/* ---- the requests ---- */

/* {"body": body}, for POST and PATCH; NULL when out of memory. */
static char *body_json(const char *body)
{
	json_object *o = json_object_new_object();
	char *s = NULL;

	if (o && !json_object_object_add(o, "body", json_object_new_string(body)))
		s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

/* One sentence for an answer that is not the one expected: what went wrong
 * and what to do. Returns a negative errno: -EIO for a 5xx, since the forge
 * may have acted on the request all the same. */
static int explain(const struct forge_thread *t, const char *what, const struct forge_response *r,
		   long expected, struct wperf_error *err)
{
	char said[400], why[440] = "";

	forge_error_message((const char *)r->body.data, r->body.len, said, sizeof(said));
	if (said[0])
		snprintf(why, sizeof(why), " (%s: %s)", t->forge, said);
	if (forge_response_rate_limited(r)) {
		long wait = r->retry_after_s >= 0 ? r->retry_after_s
			    : r->ratelimit_reset  ? (long)(r->ratelimit_reset - time(NULL))
						  : -1;

		if (wait >= 0)
			return wperf_error_set(err, -EBUSY,
					       "%s: HTTP %ld: rate limited by %s for %ld s more; "
					       "post again later%s",
					       what, r->status, t->forge, wait, why);
		return wperf_error_set(err, -EBUSY, "%s: HTTP %ld: rate limited by %s%s", what,
				       r->status, t->forge, why);
	}
	switch (r->status) {
	case 401:
		return wperf_error_set(err, -EACCES,
				       "%s: HTTP 401: the token is missing, expired or invalid%s",
				       what, why);
	case 403:
		return wperf_error_set(err, -EPERM,
				       "%s: HTTP 403: the token may not comment on %s%s%s", what,
				       t->name, t->forbidden_hint ? t->forbidden_hint : "", why);
	case 404:
		return wperf_error_set(err, -ENOENT,
				       "%s: HTTP 404: no %s, or the token cannot see it%s", what,
				       t->missing, why);
	case 422:
		return wperf_error_set(err, -EINVAL, "%s: HTTP 422: %s refused the comment: %s",
				       what, t->forge, said[0] ? said : "no reason given");
	}
	if (r->status >= 500)
		return wperf_error_set(err, -EIO, "%s: HTTP %ld: %s failed; post again later%s",
				       what, r->status, t->forge, why);
	return wperf_error_set(err, -EPROTO, "%s: HTTP %ld, not %ld%s", what, r->status, expected,
			       why);
}

/* Sends a request that must answer status, explained otherwise. */
static int request(struct forge_http *h, const struct forge_thread *t, const char *what,
		   const char *method, const char *url, const char *body, long status,
		   struct forge_response *r, struct wperf_error *err)
{
	struct wperf_error why = {0};
	int e = forge_http_request(h, method, url, body, r, &why);

	if (e)
		return wperf_error_set(err, e, "%s: %s", what, why.msg);
	return r->status == status ? 0 : explain(t, what, r, status, err);
}

int forge_find_comment(struct forge_http *h, const struct forge_thread *t, const char *marker,
		       struct forge_comment *found, struct wperf_error *err)
{
	struct forge_response r = {0};
	struct forge_comments page = {0};
	struct wperf_error why = {0};
	char url[FORGE_HTTP_URL_MAX + 32], what[400];
	size_t api_len = strlen(t->api), marker_len = strlen(marker);
	int e = 0;

	*found = (struct forge_comment){0};
	snprintf(url, sizeof(url), "%s", t->list_url);
	for (unsigned n = 0; !e && !found->id && url[0]; n++) {
		snprintf(what, sizeof(what), "listing the comments of %s (page %u)", t->name,
			 n + 1);
		if (n == FORGE_PAGES_MAX)
			e = wperf_error_set(err, -E2BIG, "%s: more than %u pages", what,
					    FORGE_PAGES_MAX);
		else if (!(e = request(h, t, what, "GET", url, NULL, 200, &r, err)) &&
			 (e = forge_parse_comments((const char *)r.body.data, r.body.len, &page,
						   &why)))
			wperf_error_set(err, e, "%s: %s", what, why.msg);
		for (size_t i = 0; !e && i < page.n && !found->id; i++)
			if (!strncmp(page.v[i].body, marker, marker_len)) {
				*found = page.v[i];
				page.v[i] = (struct forge_comment){0};
			}
		forge_comments_release(&page);
		if (!e && r.bad_link)
			e = wperf_error_set(err, -EPROTO, "%s: its Link header is malformed", what);
		/* The token goes with the request: never to another host than the API's. */
		if (!e && r.next[0] && (strncmp(r.next, t->api, api_len) || r.next[api_len] != '/'))
			e = wperf_error_set(err, -EPROTO,
					    "%s: the next page, %s, is not under %s: not followed",
					    what, r.next, t->api);
		snprintf(url, sizeof(url), "%s", e ? "" : r.next);
	}
	forge_response_release(&r);
	if (e)
		forge_comment_release(found);
	return e;
}

/* POST (id 0) or PATCH comment id with body; the answer into *posted. */
static int send_comment(struct forge_http *h, const struct forge_thread *t, int64_t id,
			const char *body, struct forge_comment *posted, struct wperf_error *err)
{
	struct forge_response r = {0};
	struct wperf_error why = {0};
	char url[FORGE_HTTP_URL_MAX + 32], what[400];
	char *json = body_json(body);
	int e;

	if (!json)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	if (id) {
		snprintf(url, sizeof(url), "%s/%lld", t->item_url, (long long)id);
		snprintf(what, sizeof(what), "updating comment %lld", (long long)id);
	} else {
		snprintf(url, sizeof(url), "%s", t->create_url);
		snprintf(what, sizeof(what), "commenting on %s", t->name);
	}
	e = request(h, t, what, id ? t->update_method : "POST", url, json, id ? 200 : 201, &r, err);
	if (!e && (e = forge_parse_comment((const char *)r.body.data, r.body.len, posted, &why)))
		wperf_error_set(err, e, "%s: %s", what, why.msg);
	forge_response_release(&r);
	free(json);
	return e;
}

int forge_upsert_comment(struct forge_http *h, const struct forge_thread *t, const char *marker,
			 const char *body, enum forge_posted *what, struct forge_comment *posted,
			 struct wperf_error *err)
{
	struct forge_comment found = {0};
	int e;

	*posted = (struct forge_comment){0};
	/* At most twice: again only after a creation that may have happened. */
	for (int round = 0;; round++) {
		if ((e = forge_find_comment(h, t, marker, &found, err)))
			return e;
		if (found.id && !strcmp(found.body, body)) {
			*what = round ? FORGE_CREATED : FORGE_UNCHANGED;
			*posted = found;
			return 0;
		}
		*what = found.id ? FORGE_UPDATED : FORGE_CREATED;
		e = send_comment(h, t, found.id, body, posted, err);
		forge_comment_release(&found);
		if (*what == FORGE_UPDATED || round || (e != -EIO && e != -ETIMEDOUT))
			return e;
	}
}

int forge_describe_upsert(const struct forge_http *h, const struct forge_thread *t,
			  const char *body, struct wperf_buf *out)
{
	char *json = body_json(body);
	int e;

	if (!json)
		return -ENOMEM;
	e = forge_http_describe(h, "GET", t->list_url, NULL, out);
	if (!e)
		e = wperf_buf_printf(
		    out,
		    "\n(then each next page of the Link header, until a comment "
		    "starts with the marker: %s %s/ID with the body below; when none "
		    "does:)\n\n",
		    t->update_method, t->item_url);
	if (!e)
		e = forge_http_describe(h, "POST", t->create_url, json, out);
	free(json);
	return e;
}
