/* SPDX-License-Identifier: MIT */
#include "harness/forge/github_comments.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/base/version.h"

const char *const github_headers[] = {
    "Accept: application/vnd.github+json",
    "X-GitHub-Api-Version: 2022-11-28",
    "User-Agent: wperf-bench/" WPERF_VERSION,
    "Content-Type: application/json",
    NULL,
};

void github_thread(const struct forge_target *t, struct forge_thread *out)
{
	*out = (struct forge_thread){.forge = "GitHub",
				     .api = t->api,
				     .update_method = "PATCH",
				     .forbidden_hint = "; a pull request from a fork gets a "
						       "read-only token: post from a workflow_run "
						       "workflow instead (docs/ci.md)"};
	snprintf(out->name, sizeof(out->name), "%s#%lu", t->repo, t->number);
	snprintf(out->missing, sizeof(out->missing), "repository %s or pull request #%lu", t->repo,
		 t->number);
	snprintf(out->list_url, sizeof(out->list_url),
		 "%s/repos/%s/issues/%lu/comments?per_page=100", t->api, t->repo, t->number);
	snprintf(out->create_url, sizeof(out->create_url), "%s/repos/%s/issues/%lu/comments",
		 t->api, t->repo, t->number);
	snprintf(out->item_url, sizeof(out->item_url), "%s/repos/%s/issues/comments", t->api,
		 t->repo);
}

void github_issues(const struct forge_target *t, const char *label, struct forge_thread *out)
{
	*out =
	    (struct forge_thread){.forge = "GitHub",
				  .api = t->api,
				  .update_method = "PATCH",
				  .forbidden_hint = "; the job needs the permission issues: write",
				  .item = "issue",
				  .id_key = "number",
				  .label = label};
	snprintf(out->name, sizeof(out->name), "%s", t->repo);
	snprintf(out->missing, sizeof(out->missing), "repository %s", t->repo);
	snprintf(out->list_url, sizeof(out->list_url),
		 "%s/repos/%s/issues?labels=%s&state=all&per_page=100", t->api, t->repo, label);
	snprintf(out->create_url, sizeof(out->create_url), "%s/repos/%s/issues", t->api, t->repo);
	snprintf(out->item_url, sizeof(out->item_url), "%s", out->create_url);
}

/* A positive number from o's member holder.number; 0 when there is none. */
static int number_in(json_object *o, const char *holder, unsigned long *out,
		     struct wperf_error *err)
{
	int wrong = 0;
	json_object *h = forge_json_member(o, holder, json_type_object, &wrong);
	json_object *n = h ? forge_json_member(h, "number", json_type_int, &wrong) : NULL;

	if (wrong || (n && json_object_get_int64(n) <= 0))
		return wperf_error_set(
		    err, -EINVAL, "the event: %s.number is not a pull request's number", holder);
	*out = n ? (unsigned long)json_object_get_int64(n) : 0;
	return 0;
}

int github_event_pr(const char *json, size_t len, unsigned long *pr, struct wperf_error *err)
{
	json_object *o = forge_parse_json(json, len, "the event", err);
	int e;

	*pr = 0;
	if (!o)
		return -EINVAL;
	if (!json_object_is_type(o, json_type_object))
		e = wperf_error_set(err, -EINVAL, "the event is not a JSON object");
	else if (!(e = number_in(o, "pull_request", pr, err)) && !*pr)
		e = number_in(o, "issue", pr, err);
	json_object_put(o);
	return e;
}
