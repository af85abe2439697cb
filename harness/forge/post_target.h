/* SPDX-License-Identifier: MIT */
/*
 * Where wperf-bench post puts its comment: the forge's API (checked: https,
 * or http to this machine, as the token travels with it), the repository and
 * the pull or merge request, from the options or else the CI's environment
 * (GitHub's event file, GitLab's job variables), and the token to use.
 */
#ifndef WPERF_POST_TARGET_H
#define WPERF_POST_TARGET_H

#include "core/util/error.h"
#include "harness/forge/forge_comments.h"
#include "harness/forge/forge_http.h"

#define POST_TOKEN_ENV "GITHUB_TOKEN"

enum post_forge_id { POST_GITHUB, POST_GITLAB };

/* What post does differently on each forge: where its CI says what the
 * options do not, what it calls things, and its requests. */
struct post_forge {
	const char *api_env, *api_url; /* the API: $API_ENV, else API_URL */
	const char *repo_env;	       /* the repository in a CI job */
	int (*repo_is_valid)(const char *repo);
	const char *repo_wanted, *repo_operand; /* in errors: what a repository is */
	/* the request in a CI job: 0 (number untouched when there is none) or a
	 * negative errno with err */
	int (*job_number)(unsigned long *number, struct wperf_error *err);
	const char *token_env, *token_header; /* NULL header: "Authorization: Bearer" */
	/* tried when token_env is unset and there is no --token-env; NULL: none */
	const char *job_token_env, *job_token_header;
	const char *const *headers;
	void (*thread)(const struct forge_target *t, struct forge_thread *out);
	/* the repository's issues with a label (post --changes) */
	void (*issues)(const struct forge_target *t, const char *label, struct forge_thread *out);
	const char *skipped, *no_request; /* without a token; without a request */
};

/* By enum post_forge_id. */
extern const struct post_forge post_forges[];

/* What the options say; NULL or 0: the CI's environment says. */
struct post_where {
	enum post_forge_id forge;
	const char *repo, *api, *token_env;
	unsigned pr;
};

/* Where the comment goes: a pull or merge request (none when pr is 0). */
struct post_target {
	const char *repo; /* the repository (project); NULL: none given nor in the job */
	unsigned long pr;
	struct forge_thread thread;
	char api[FORGE_HTTP_URL_MAX];
	const char *token;	  /* from the environment, never printed; NULL: none */
	const char *token_from;	  /* its variable's name */
	const char *token_header; /* how it is sent; NULL: "Authorization: Bearer" */
};

/* A variable of the environment, NULL when unset or empty. */
const char *post_env(const char *name);

/* The forge named ("github" or "gitlab"), else the one whose CI job this is
 * (GitLab's when $GITLAB_CI is set), else GitHub. */
enum post_forge_id post_forge_named(const char *name);

/* The link to this CI job's artifacts, from the environment of forge's CI,
 * into url (size bytes); NULL outside a CI job. */
const char *post_artifacts_url(enum post_forge_id forge, char *url, size_t size);

/* The target of w into t: 0, or -EINVAL with err (an API URL that would send
 * the token in clear, a repository or request number that is not one). */
int post_find_target(const struct post_where *w, struct post_target *t, struct wperf_error *err);

#endif /* WPERF_POST_TARGET_H */
