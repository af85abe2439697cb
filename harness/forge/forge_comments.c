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
	free(c->title);
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

/* key, else the default dflt. */
#define KEY(key, dflt) ((key) ? (key) : (dflt))

/* A copy of string member s (NULL: none) into *out; 0 or -ENOMEM. */
static int copy_string(json_object *s, char **out)
{
	*out = s ? strdup(json_object_get_string(s)) : NULL;
	return s && !*out ? -ENOMEM : 0;
}

/* One item of the list, by t's keys (NULL t: a comment's). */
static int comment_from(const struct forge_thread *t, json_object *o, const char *what,
			struct forge_comment *out, struct wperf_error *err)
{
	const char *id_key = KEY(t ? t->id_key : NULL, "id");
	const char *body_key = KEY(t ? t->body_key : NULL, "body");
	int wrong = 0;
	json_object *id, *body, *url, *title, *state;

	*out = (struct forge_comment){0};
	if (!json_object_is_type(o, json_type_object))
		return wperf_error_set(err, -EINVAL, "%s is not a JSON object", what);
	id = forge_json_member(o, id_key, json_type_int, &wrong);
	body = forge_json_member(o, body_key, json_type_string, &wrong);
	url =
	    forge_json_member(o, KEY(t ? t->url_key : NULL, "html_url"), json_type_string, &wrong);
	title = forge_json_member(o, "title", json_type_string, &wrong);
	state = forge_json_member(o, "state", json_type_string, &wrong);
	if (wrong || !id || json_object_get_int64(id) <= 0)
		return wperf_error_set(err, -EINVAL,
				       "%s: wants a positive \"%s\" and a string \"%s\"", what,
				       id_key, body_key);
	out->id = json_object_get_int64(id);
	out->closed = state && !strcmp(json_object_get_string(state), "closed");
	out->body = strdup(body ? json_object_get_string(body) : "");
	if (!out->body || copy_string(url, &out->html_url) || copy_string(title, &out->title)) {
		forge_comment_release(out);
		return wperf_error_set(err, -ENOMEM, "%s: out of memory", what);
	}
	return 0;
}

int forge_parse_items(const struct forge_thread *t, const char *json, size_t len,
		      struct forge_comments *out, struct wperf_error *err)
{
	const char *item = KEY(t ? t->item : NULL, "comment");
	char list[64], what[96];
	json_object *a;
	size_t n;
	int e = 0;

	*out = (struct forge_comments){0};
	snprintf(list, sizeof(list), "the list of %ss", item);
	if (!(a = forge_parse_json(json, len, list, err)))
		return -EINVAL;
	if (!json_object_is_type(a, json_type_array)) {
		json_object_put(a);
		return wperf_error_set(err, -EINVAL, "%s is not a JSON array", list);
	}
	n = json_object_array_length(a);
	if (n && !(out->v = calloc(n, sizeof(*out->v))))
		e = wperf_error_set(err, -ENOMEM, "%s: out of memory", list);
	for (size_t i = 0; !e && i < n; i++) {
		snprintf(what, sizeof(what), "%s: [%zu]", list, i);
		if (!(e = comment_from(t, json_object_array_get_idx(a, i), what, &out->v[i], err)))
			out->n++;
	}
	json_object_put(a);
	if (e)
		forge_comments_release(out);
	return e;
}

int forge_parse_comments(const char *json, size_t len, struct forge_comments *out,
			 struct wperf_error *err)
{
	return forge_parse_items(NULL, json, len, out, err);
}

/* One item, as a creation and an update answer, by t's keys (NULL: a comment's). */
static int parse_item(const struct forge_thread *t, const char *json, size_t len,
		      struct forge_comment *out, struct wperf_error *err)
{
	char what[64];
	json_object *o;
	int e;

	*out = (struct forge_comment){0};
	snprintf(what, sizeof(what), "the %s", KEY(t ? t->item : NULL, "comment"));
	if (!(o = forge_parse_json(json, len, what, err)))
		return -EINVAL;
	e = comment_from(t, o, what, out, err);
	json_object_put(o);
	return e;
}

int forge_parse_comment(const char *json, size_t len, struct forge_comment *out,
			struct wperf_error *err)
{
	return parse_item(NULL, json, len, out, err);
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

/* The label of a new item, as t's forge takes it: ["L"] or "L". */
static json_object *label_json(const struct forge_thread *t)
{
	json_object *a;

	if (t->label_as_text)
		return json_object_new_string(t->label);
	a = json_object_new_array();
	if (a && json_object_array_add(a, json_object_new_string(t->label))) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

/* {"body": body}, for POST and PATCH, with t's key for the body, the title
 * (when not NULL) and, for a creation (create), t's label; NULL when out of
 * memory. */
static char *body_json(const struct forge_thread *t, const char *title, const char *body,
		       int create)
{
	json_object *o = json_object_new_object();
	char *s = NULL;
	int e = !o;

	if (!e && title)
		e = json_object_object_add(o, "title", json_object_new_string(title));
	if (!e)
		e = json_object_object_add(o, KEY(t->body_key, "body"),
					   json_object_new_string(body));
	if (!e && create && t->label)
		e = json_object_object_add(o, "labels", label_json(t));
	if (!e)
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
		return wperf_error_set(err, -EPERM, "%s: HTTP 403: the token may not %s %s%s%s",
				       what, t->item ? "write the issues of" : "comment on",
				       t->name, t->forbidden_hint ? t->forbidden_hint : "", why);
	case 404:
		return wperf_error_set(err, -ENOENT,
				       "%s: HTTP 404: no %s, or the token cannot see it%s", what,
				       t->missing, why);
	case 422:
		return wperf_error_set(err, -EINVAL, "%s: HTTP 422: %s refused the %s: %s", what,
				       t->forge, KEY(t->item, "comment"),
				       said[0] ? said : "no reason given");
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
		snprintf(what, sizeof(what), "listing the %ss of %s (page %u)",
			 KEY(t->item, "comment"), t->name, n + 1);
		if (n == FORGE_PAGES_MAX)
			e = wperf_error_set(err, -E2BIG, "%s: more than %u pages", what,
					    FORGE_PAGES_MAX);
		else if (!(e = request(h, t, what, "GET", url, NULL, 200, &r, err)) &&
			 (e = forge_parse_items(t, (const char *)r.body.data, r.body.len, &page,
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

/* POST (id 0) or PATCH item id with title (NULL: none) and body; the answer
 * into *posted. */
static int send_comment(struct forge_http *h, const struct forge_thread *t, int64_t id,
			const char *title, const char *body, struct forge_comment *posted,
			struct wperf_error *err)
{
	struct forge_response r = {0};
	struct wperf_error why = {0};
	char url[FORGE_HTTP_URL_MAX + 32], what[400];
	char *json = body_json(t, title, body, !id);
	int e;

	if (!json)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	if (id) {
		snprintf(url, sizeof(url), "%s/%lld", t->item_url, (long long)id);
		snprintf(what, sizeof(what), "updating %s %lld", KEY(t->item, "comment"),
			 (long long)id);
	} else {
		snprintf(url, sizeof(url), "%s", t->create_url);
		snprintf(what, sizeof(what), "%s %s",
			 t->item ? "opening an issue in" : "commenting on", t->name);
	}
	e = request(h, t, what, id ? t->update_method : "POST", url, json, id ? 200 : 201, &r, err);
	if (!e && (e = parse_item(t, (const char *)r.body.data, r.body.len, posted, &why)))
		wperf_error_set(err, e, "%s: %s", what, why.msg);
	forge_response_release(&r);
	free(json);
	return e;
}

/* Does found already say title (NULL: no title) and body? */
static int says(const struct forge_comment *found, const char *title, const char *body)
{
	return !strcmp(found->body, body) &&
	       (!title || (found->title && !strcmp(found->title, title)));
}

int forge_upsert_item(struct forge_http *h, const struct forge_thread *t, const char *marker,
		      const char *title, const char *body, enum forge_posted *what,
		      struct forge_comment *posted, struct wperf_error *err)
{
	struct forge_comment found = {0};
	int e;

	*posted = (struct forge_comment){0};
	/* At most twice: again only after a creation that may have happened. */
	for (int round = 0;; round++) {
		if ((e = forge_find_comment(h, t, marker, &found, err)))
			return e;
		/* Someone closed it: a person's decision, never undone here. */
		if (found.id && (found.closed || says(&found, title, body))) {
			*what = found.closed ? FORGE_CLOSED
				: round	     ? FORGE_CREATED
					     : FORGE_UNCHANGED;
			*posted = found;
			return 0;
		}
		*what = found.id ? FORGE_UPDATED : FORGE_CREATED;
		e = send_comment(h, t, found.id, title, body, posted, err);
		forge_comment_release(&found);
		if (*what == FORGE_UPDATED || round || (e != -EIO && e != -ETIMEDOUT))
			return e;
	}
}

int forge_upsert_comment(struct forge_http *h, const struct forge_thread *t, const char *marker,
			 const char *body, enum forge_posted *what, struct forge_comment *posted,
			 struct wperf_error *err)
{
	return forge_upsert_item(h, t, marker, NULL, body, what, posted, err);
}

int forge_describe_item(const struct forge_http *h, const struct forge_thread *t, const char *title,
			const char *body, struct wperf_buf *out)
{
	char *json = body_json(t, title, body, 1);
	int e;

	if (!json)
		return -ENOMEM;
	e = forge_http_describe(h, "GET", t->list_url, NULL, out);
	if (!e)
		e = wperf_buf_printf(
		    out,
		    "\n(then each next page of the Link header, until a %s "
		    "starts with the marker: %s %s/ID with the body below; when none "
		    "does:)\n\n",
		    KEY(t->item, "comment"), t->update_method, t->item_url);
	if (!e)
		e = forge_http_describe(h, "POST", t->create_url, json, out);
	free(json);
	return e;
}

int forge_describe_upsert(const struct forge_http *h, const struct forge_thread *t,
			  const char *body, struct wperf_buf *out)
{
	return forge_describe_item(h, t, NULL, body, out);
}
