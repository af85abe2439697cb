/* SPDX-License-Identifier: MIT */
/*
 * Where post's comment goes (see post_target.h).
 */
#include "harness/forge/post_target.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness/base/output.h"
#include "harness/forge/github_comments.h"
#include "harness/forge/gitlab_notes.h"

static int is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	char bare[64];
	size_t len = strlen(host);

	if (!strcasecmp(host, "localhost"))
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (len < 2 || len >= sizeof(bare) || host[0] != '[' || host[len - 1] != ']')
		return 0;
	memcpy(bare, host + 1, len - 2);
	bare[len - 2] = '\0';
	return inet_pton(AF_INET6, bare, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* An API URL that carries the token safely: https, or http to this machine.
 * 0 or -EINVAL with err. */
static int check_api_url(const char *url, const char *from, struct wperf_error *err)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	int status = 0;

	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) ||
	    (strcasecmp(scheme, "https") && strcasecmp(scheme, "http")))
		status = wperf_error_set(err, -EINVAL, "%s: '%s' is not an http(s) URL", from, url);
	else if (strlen(url) >= FORGE_HTTP_URL_MAX / 2)
		status = wperf_error_set(err, -EINVAL, "%s: the URL is longer than %d bytes", from,
					 FORGE_HTTP_URL_MAX / 2 - 1);
	else if (strcasecmp(scheme, "https") && !is_loopback(host))
		status =
		    wperf_error_set(err, -EINVAL,
				    "%s: refusing %s: the token would travel in clear; use https "
				    "(plain http only to 127.0.0.0/8, ::1 or localhost)",
				    from, url);
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return status;
}

static int repo_is_valid(const char *repo)
{
	const char *slash = strchr(repo, '/');

	if (!slash || slash == repo || !slash[1] || strchr(slash + 1, '/') || strstr(repo, ".."))
		return 0;
	return strspn(repo, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/") ==
	       strlen(repo);
}

/* The pull request's number from the event file $GITHUB_EVENT_PATH, when
 * there is one; 0 or a negative errno with err. */
static int event_pr(unsigned long *pr, struct wperf_error *err)
{
	const char *path = getenv("GITHUB_EVENT_PATH");
	struct wperf_buf json = {0};
	struct wperf_error why = {0};
	int e;

	if (!path || !path[0])
		return 0;
	e = output_read_all(path, &json, err);
	if (!e && (e = github_event_pr((const char *)json.data, json.len, pr, &why)))
		wperf_error_set(err, e, "%s ($GITHUB_EVENT_PATH): %s", path, why.msg);
	wperf_buf_release(&json);
	return e;
}

/* w's API URL, else the CI's variable env, else the forge's; checked, and
 * without a trailing '/', into t->api. 0 or -EINVAL with err. */
static int find_api(const struct post_where *w, const char *env, const char *fallback,
		    struct post_target *t, struct wperf_error *err)
{
	const char *from_env = getenv(env);
	char from[64];
	size_t len;

	snprintf(t->api, sizeof(t->api), "%s",
		 w->api			   ? w->api
		 : from_env && from_env[0] ? from_env
					   : fallback);
	snprintf(from, sizeof(from), "$%s", env);
	if (check_api_url(t->api, w->api ? "--api-url" : from, err) < 0)
		return -EINVAL;
	while ((len = strlen(t->api)) && t->api[len - 1] == '/')
		t->api[len - 1] = '\0';
	return 0;
}

const char *post_env(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] ? v : NULL;
}

enum post_forge_id post_forge_named(const char *name)
{
	if (name)
		return strcmp(name, "gitlab") ? POST_GITHUB : POST_GITLAB;
	return post_env("GITLAB_CI") ? POST_GITLAB : POST_GITHUB;
}

const char *post_artifacts_url(enum post_forge_id forge, char *url, size_t size)
{
	const char *server = post_env("GITHUB_SERVER_URL"), *repo = post_env("GITHUB_REPOSITORY");
	const char *run = post_env("GITHUB_RUN_ID"), *job = post_env("CI_JOB_URL");

	if (forge == POST_GITHUB && server && repo && run)
		snprintf(url, size, "%s/%s/actions/runs/%s", server, repo, run);
	else if (forge == POST_GITLAB && job)
		snprintf(url, size, "%s/artifacts/browse", job);
	else
		return NULL;
	return url;
}

/* The merge request's IID from $CI_MERGE_REQUEST_IID, when it is set; 0 or
 * -EINVAL with err. */
static int job_mr(unsigned long *mr, struct wperf_error *err)
{
	const char *iid = post_env("CI_MERGE_REQUEST_IID");
	char *end;
	long long n;

	if (!iid)
		return 0;
	n = strtoll(iid, &end, 10);
	if (*end || end == iid || n < 1 || n > INT32_MAX)
		return wperf_error_set(
		    err, -EINVAL, "$CI_MERGE_REQUEST_IID wants a number from 1 to %d, not '%s'",
		    INT32_MAX, iid);
	*mr = (unsigned long)n;
	return 0;
}

const struct post_forge post_forges[] = {
    [POST_GITHUB] =
	{
	    .api_env = "GITHUB_API_URL",
	    .api_url = GITHUB_API_URL,
	    .repo_env = "GITHUB_REPOSITORY",
	    .repo_is_valid = repo_is_valid,
	    .repo_wanted = "OWNER/NAME",
	    .repo_operand = "OWNER/NAME",
	    .job_number = event_pr,
	    .token_env = POST_TOKEN_ENV,
	    .headers = github_headers,
	    .thread = github_thread,
	    .issues = github_issues,
	    .skipped = "the pull-request comment is skipped",
	    .no_request = "no pull request (no --pr, and $GITHUB_EVENT_PATH names none): no "
			  "comment\n",
	},
    [POST_GITLAB] =
	{
	    .api_env = "CI_API_V4_URL",
	    .api_url = GITLAB_API_URL,
	    .repo_env = "CI_PROJECT_ID",
	    .repo_is_valid = gitlab_project_is_valid,
	    .repo_wanted = "a project's id or path (group/name)",
	    .repo_operand = "PROJECT",
	    .job_number = job_mr,
	    .token_env = "GITLAB_TOKEN",
	    .token_header = GITLAB_PRIVATE_TOKEN,
	    .job_token_env = "CI_JOB_TOKEN",
	    .job_token_header = GITLAB_JOB_TOKEN,
	    .headers = gitlab_headers,
	    .thread = gitlab_thread,
	    .issues = gitlab_issues,
	    .skipped = "the merge-request note is skipped",
	    .no_request = "no merge request (no --pr, and no $CI_MERGE_REQUEST_IID): no note\n",
	},
};

int post_find_target(const struct post_where *w, struct post_target *t, struct wperf_error *err)
{
	const struct post_forge *f = &post_forges[w->forge];
	struct forge_target g = {.repo = w->repo ? w->repo : post_env(f->repo_env),
				 .number = w->pr};
	int e = find_api(w, f->api_env, f->api_url, t, err);

	if (e)
		return e;
	if (g.repo && !f->repo_is_valid(g.repo))
		return wperf_error_set(err, -EINVAL, "%s%s wants %s, not '%s'", w->repo ? "" : "$",
				       w->repo ? "--repo" : f->repo_env, f->repo_wanted, g.repo);
	if (!g.number && (e = f->job_number(&g.number, err)) < 0)
		return e;
	if (g.number && !g.repo)
		return wperf_error_set(err, -EINVAL, "--pr wants --repo %s (or $%s)",
				       f->repo_operand, f->repo_env);
	g.api = t->api;
	t->repo = g.repo;
	t->pr = g.number;
	if (g.number)
		f->thread(&g, &t->thread);
	t->token_from = w->token_env ? w->token_env : f->token_env;
	t->token = post_env(t->token_from);
	t->token_header = f->token_header;
	if (!t->token && !w->token_env && f->job_token_env &&
	    (t->token = post_env(f->job_token_env))) {
		t->token_from = f->job_token_env;
		t->token_header = f->job_token_header;
	}
	return 0;
}
