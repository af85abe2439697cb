/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench post: the verdicts of a check-perf folder (or of judged results
 * folders) on the pull request as one comment, found again by a hidden marker
 * and updated in place, and in the CI's job summary. Posting is a courtesy:
 * its failures are warnings, and the exit status is the verdicts'.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness/cli/cli.h"
#include "harness/forge/github_comments.h"
#include "harness/forge/gitlab_notes.h"
#include "harness/base/output.h"
#include "harness/forge/post_comment.h"

#define CMD "post"

#define POST_TIMEOUT_MAX  3600
#define POST_RETRY_MS_MAX 60000
#define POST_TOKEN_ENV	  "GITHUB_TOKEN"

enum post_forge_id { POST_GITHUB, POST_GITLAB };

struct post_opts {
	const char *repo, *api, *token_env, *key_suffix, *artifacts, *forge_name;
	enum post_forge_id forge;
	unsigned pr;
	int dry_run;
	struct forge_http_opts http;
};

/* Where the comment goes: a pull or merge request (none when pr is 0). */
struct post_target {
	unsigned long pr;
	struct forge_thread thread;
	char api[FORGE_HTTP_URL_MAX];
	const char *token;	/* from the environment, never printed; NULL: none */
	const char *token_from; /* its variable's name */
};

/* ---- where to post ---- */

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
 * An exit status. */
static int check_api_url(const char *url, const char *from)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	int status = EXIT_OK;

	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) ||
	    (strcasecmp(scheme, "https") && strcasecmp(scheme, "http")))
		status = cli_error(CMD, "%s: '%s' is not an http(s) URL", from, url);
	else if (strlen(url) >= FORGE_HTTP_URL_MAX / 2)
		status = cli_error(CMD, "%s: the URL is longer than %d bytes", from,
				   FORGE_HTTP_URL_MAX / 2 - 1);
	else if (strcasecmp(scheme, "https") && !is_loopback(host))
		status = cli_error(CMD,
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
 * there is one; an exit status. */
static int event_pr(unsigned long *pr)
{
	const char *path = getenv("GITHUB_EVENT_PATH");
	struct wperf_buf json = {0};
	struct wperf_error err = {0}, why = {0};
	int e;

	if (!path || !path[0])
		return EXIT_OK;
	e = output_read_all(path, &json, &err);
	if (!e && (e = github_event_pr((const char *)json.data, json.len, pr, &why)))
		wperf_error_set(&err, e, "%s ($GITHUB_EVENT_PATH): %s", path, why.msg);
	wperf_buf_release(&json);
	return e ? cli_error(CMD, "%s", err.msg) : EXIT_OK;
}

/* o's API URL, else the CI's variable env, else the forge's; checked, and
 * without a trailing '/', into t->api. An exit status. */
static int find_api(const struct post_opts *o, const char *env, const char *fallback,
		    struct post_target *t)
{
	const char *from_env = getenv(env);
	size_t len;

	snprintf(t->api, sizeof(t->api), "%s",
		 o->api			   ? o->api
		 : from_env && from_env[0] ? from_env
					   : fallback);
	char from[64];

	snprintf(from, sizeof(from), "$%s", env);
	if (check_api_url(t->api, o->api ? "--api-url" : from) != EXIT_OK)
		return EXIT_ERROR;
	while ((len = strlen(t->api)) && t->api[len - 1] == '/')
		t->api[len - 1] = '\0';
	return EXIT_OK;
}

/* A variable of the environment, NULL when unset or empty. */
static const char *env_value(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] ? v : NULL;
}

/* The merge request's IID from $CI_MERGE_REQUEST_IID, when it is set; an
 * exit status. */
static int job_mr(unsigned long *mr)
{
	const char *iid = env_value("CI_MERGE_REQUEST_IID");
	unsigned n;

	if (!iid)
		return EXIT_OK;
	if (cli_parse_count(CMD, "$CI_MERGE_REQUEST_IID", iid, 1, INT32_MAX, &n))
		return EXIT_ERROR;
	*mr = n;
	return EXIT_OK;
}

/* What post does differently on each forge: where its CI says what the
 * options do not, what it calls things, and its requests. */
struct post_forge {
	const char *api_env, *api_url; /* the API: $API_ENV, else API_URL */
	const char *repo_env;	       /* the repository in a CI job */
	int (*repo_is_valid)(const char *repo);
	const char *repo_wanted, *repo_operand;	  /* in errors: what a repository is */
	int (*job_number)(unsigned long *number); /* the request in a CI job; an exit status */
	const char *token_env, *token_header;	  /* NULL header: "Authorization: Bearer" */
	/* tried when token_env is unset and there is no --token-env; NULL: none */
	const char *job_token_env, *job_token_header;
	const char *const *headers;
	void (*thread)(const struct forge_target *t, struct forge_thread *out);
	const char *skipped, *no_request; /* without a token; without a request */
};

static const struct post_forge post_forges[] = {
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
	    .skipped = "the merge-request note is skipped",
	    .no_request = "no merge request (no --pr, and no $CI_MERGE_REQUEST_IID): no note\n",
	},
};

/* The pull or merge request from the options, else from the CI's
 * environment (t->pr 0: none), and the token. An exit status. */
static int find_target(struct post_opts *o, struct post_target *t)
{
	const struct post_forge *f = &post_forges[o->forge];
	struct forge_target g = {.repo = o->repo ? o->repo : env_value(f->repo_env),
				 .number = o->pr};

	if (find_api(o, f->api_env, f->api_url, t) != EXIT_OK)
		return EXIT_ERROR;
	if (g.repo && !f->repo_is_valid(g.repo))
		return cli_error(CMD, "%s%s wants %s, not '%s'", o->repo ? "" : "$",
				 o->repo ? "--repo" : f->repo_env, f->repo_wanted, g.repo);
	if (!g.number && f->job_number(&g.number) != EXIT_OK)
		return EXIT_ERROR;
	if (g.number && !g.repo)
		return cli_error(CMD, "--pr wants --repo %s (or $%s)", f->repo_operand,
				 f->repo_env);
	g.api = t->api;
	t->pr = g.number;
	if (g.number)
		f->thread(&g, &t->thread);
	t->token_from = o->token_env ? o->token_env : f->token_env;
	t->token = env_value(t->token_from);
	o->http.token_header = f->token_header;
	if (!t->token && !o->token_env && f->job_token_env &&
	    (t->token = env_value(f->job_token_env))) {
		t->token_from = f->job_token_env;
		o->http.token_header = f->job_token_header;
	}
	return EXIT_OK;
}

/* ---- the job summary and the comments ---- */

/* Appends the comment's Markdown to $GITHUB_STEP_SUMMARY, when it is set;
 * a failure is a warning. */
static void write_summary(const struct post_comment *c, int dry_run)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	FILE *f;

	if (!path || !path[0])
		return;
	if (dry_run) {
		printf("(dry run: the Markdown would be appended to %s)\n", path);
		return;
	}
	f = fopen(path, "ae");
	if (f)
		fprintf(f, "%s\n", post_comment_markdown(c));
	if (!f || ferror(f) | fclose(f))
		cli_warn(CMD, "cannot append the job summary to %s ($GITHUB_STEP_SUMMARY): %s",
			 path, strerror(errno));
}

static void retrying(const char *method, const char *url, const char *why, unsigned wait_ms)
{
	if (wait_ms < 1000)
		cli_warn(CMD, "%s %s: %s; trying again in %u ms", method, url, why, wait_ms);
	else
		cli_warn(CMD, "%s %s: %s; trying again in %.1f s", method, url, why,
			 wait_ms / 1000.0);
}

/* Posts (or, for a dry run, prints) the comment on t; failures are warnings. */
static void post_comment(const struct post_opts *o, const struct post_target *t,
			 const struct post_comment *c)
{
	static const char *const verbs[] = {"created", "updated", "unchanged"};
	const struct post_forge *f = &post_forges[o->forge];
	const char *job_token = o->token_env ? NULL : f->job_token_env;
	struct forge_http *h = NULL;
	struct wperf_error err = {0};
	struct forge_comment posted = {0};
	struct wperf_buf req = {0};
	enum forge_posted what;

	if (!t->token)
		cli_warn(CMD, "no token in $%s%s%s: %s", t->token_from, job_token ? " nor $" : "",
			 job_token ? job_token : "",
			 o->dry_run ? "without --dry-run the comment would be skipped"
				    : f->skipped);
	if (!t->token && !o->dry_run)
		return;
	if (forge_http_open(&o->http, f->headers, t->token, &h, &err) < 0) {
		cli_warn(CMD, "the comment is not posted: %s", err.msg);
		return;
	}
	if (o->dry_run) {
		if (forge_describe_upsert(h, &t->thread, (const char *)c->text.data, &req) < 0)
			cli_warn(CMD, "out of memory");
		else
			printf("# %s\n%.*s\n", c->marker, (int)req.len, (const char *)req.data);
	} else if (forge_upsert_comment(h, &t->thread, c->marker, (const char *)c->text.data, &what,
					&posted, &err) < 0) {
		cli_warn(CMD, "the comment is not posted: %s", err.msg);
	} else {
		printf("comment%s%s %s %s\n", o->key_suffix ? " " : "",
		       o->key_suffix ? o->key_suffix : "", verbs[what],
		       posted.html_url ? posted.html_url : "");
	}
	wperf_buf_release(&req);
	forge_comment_release(&posted);
	forge_http_close(h);
}

/* ---- the command ---- */

/* The numbers are the forge client's (harness/forge/forge_http.h). */
/* clang-format off */
#define TIMEOUT_HELP                                                                               \
	"seconds per HTTP request (default: " CLI_STR(FORGE_HTTP_TIMEOUT_S) "; connecting: "       \
	CLI_STR(FORGE_HTTP_CONNECT_TIMEOUT_S) " at the most)"
/* clang-format on */

const struct cli_option cli_post_options[] = {
    {0, "forge", "NAME",
     "github or gitlab (default: gitlab in a GitLab job, $GITLAB_CI set, else github)",
     CLI_STRING(struct post_opts, forge_name)},
    {0, "repo", "OWNER/NAME",
     "the repository (default: $GITHUB_REPOSITORY); on GitLab the project's id or path "
     "(default: $CI_PROJECT_ID)",
     CLI_STRING(struct post_opts, repo)},
    {0, "pr", "N",
     "the pull request (default: pull_request.number, else issue.number, of the event file "
     "$GITHUB_EVENT_PATH); on GitLab the merge request's IID (default: "
     "$CI_MERGE_REQUEST_IID)",
     CLI_COUNT(struct post_opts, pr, 1, INT32_MAX)},
    {0, "api-url", "URL",
     "the REST API (default: $GITHUB_API_URL, else " GITHUB_API_URL "; on GitLab "
     "$CI_API_V4_URL, else " GITLAB_API_URL "); plain http:// only to this machine "
     "(127.0.0.0/8, ::1, localhost)",
     CLI_STRING(struct post_opts, api)},
    {0, "token-env", "NAME",
     "the variable that holds the token (default: " POST_TOKEN_ENV "; on GitLab GITLAB_TOKEN, "
     "sent as PRIVATE-TOKEN, else CI_JOB_TOKEN, sent as JOB-TOKEN); the token is never "
     "printed",
     CLI_STRING(struct post_opts, token_env)},
    {0, "key-suffix", "S",
     "the marker becomes <!-- wperf-bench: S -->: one comment per job of a matrix",
     CLI_STRING(struct post_opts, key_suffix)},
    {0, "artifacts-url", "URL",
     "linked from the comment (default: "
     "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID, when they are set)",
     CLI_STRING(struct post_opts, artifacts)},
    {0, "timeout", "S", TIMEOUT_HELP,
     CLI_COUNT(struct post_opts, http.timeout_s, 1, POST_TIMEOUT_MAX)},
    {0, "dry-run", NULL,
     "print the requests it would send (the token as ***) and where the summary would go; "
     "send and write nothing",
     CLI_FLAG(struct post_opts, dry_run)},
    {0},
};

/* The options into *o; -1 to go on, else an exit status. */
static int parse_options(int argc, char **argv, struct post_opts *o)
{
	int status = cli_parse(CMD, &cli_post_help, argc, argv, o);

	if (status >= 0)
		return status;
	if (o->token_env && !o->token_env[0])
		return cli_error(CMD, "--token-env wants the name of a variable");
	if (o->forge_name && strcmp(o->forge_name, "github") && strcmp(o->forge_name, "gitlab"))
		return cli_error(CMD, "--forge wants github or gitlab, not '%s'", o->forge_name);
	if (o->artifacts && strlen(o->artifacts) >= FORGE_HTTP_URL_MAX)
		return cli_error(CMD, "--artifacts-url is longer than %d bytes",
				 FORGE_HTTP_URL_MAX - 1);
	return -1;
}

/* What the options leave to the environment: the forge, the artifacts' link
 * (into url), the first back-off. An exit status. */
static int environment_defaults(struct post_opts *o, char *url, size_t size)
{
	const char *server = env_value("GITHUB_SERVER_URL"), *repo = env_value("GITHUB_REPOSITORY");
	const char *run = env_value("GITHUB_RUN_ID"), *retry = env_value(FORGE_HTTP_RETRY_MS_ENV);
	const char *job = env_value("CI_JOB_URL");

	o->forge = o->forge_name ? (strcmp(o->forge_name, "gitlab") ? POST_GITHUB : POST_GITLAB)
		   : env_value("GITLAB_CI") ? POST_GITLAB
					    : POST_GITHUB;
	if (!o->artifacts && o->forge == POST_GITHUB && server && repo && run) {
		snprintf(url, size, "%s/%s/actions/runs/%s", server, repo, run);
		o->artifacts = url;
	} else if (!o->artifacts && o->forge == POST_GITLAB && job) {
		snprintf(url, size, "%s/artifacts/browse", job);
		o->artifacts = url;
	}
	o->http.retries = FORGE_HTTP_RETRIES;
	o->http.retrying = retrying;
	if (retry && cli_parse_count(CMD, "$" FORGE_HTTP_RETRY_MS_ENV, retry, 1, POST_RETRY_MS_MAX,
				     &o->http.retry_base_ms))
		return EXIT_ERROR;
	return EXIT_OK;
}

int cmd_post(int argc, char **argv)
{
	struct post_opts o = {0};
	struct post_target t = {0};
	struct post_comment c = {0};
	struct wperf_error err = {0};
	char artifacts[FORGE_HTTP_URL_MAX], note[1024];
	size_t read = 0;
	int status = parse_options(argc, argv, &o), verdicts;

	if (status >= 0)
		return status;
	status = environment_defaults(&o, artifacts, sizeof(artifacts));
	if (status == EXIT_OK && curl_global_init(CURL_GLOBAL_DEFAULT))
		status = cli_error(CMD, "cannot initialize libcurl");
	else if (status == EXIT_OK)
		status = find_target(&o, &t);
	if (status != EXIT_OK)
		goto out;
	/* A folder that cannot be read is an error, and the others are posted all
	 * the same: in CI, a comment on most scenarios beats none. */
	for (int i = optind; i < argc; i++) {
		if (post_comment_add(&c, argv[i], note, sizeof(note), &err) < 0) {
			status = cli_error(CMD, "%s", err.msg);
			continue;
		}
		read++;
		if (note[0])
			cli_warn(CMD, "%s", note);
	}
	if (read && post_comment_compose(&c, o.key_suffix, o.artifacts, &err) < 0) {
		status = cli_error(CMD, "%s", err.msg);
		goto out;
	}
	verdicts = read ? post_comment_status(&c) : EXIT_OK;
	if (verdicts > status)
		status = verdicts;
	if (read && o.forge == POST_GITHUB)
		write_summary(&c, o.dry_run);
	if (read && t.pr)
		post_comment(&o, &t, &c);
	else if (read)
		fputs(post_forges[o.forge].no_request, stdout);
out:
	post_comment_release(&c);
	curl_global_cleanup();
	return status;
}
