/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench post: the verdicts of a check-perf folder (or of judged results
 * folders) on the pull request as one comment, found again by a hidden marker
 * and updated in place, and in the CI's job summary. Posting is a courtesy:
 * its failures are warnings, and the exit status is the verdicts'.
 *
 * With --changes, the change points of changes.json files (history
 * --changes) as one issue each, found again by a marker of their own. The
 * issues are then what the job is for (there is no verdict): a file that
 * cannot be read and an issue that cannot be written are errors; only a
 * missing token is a warning, as for the comment.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/forge/github_comments.h"
#include "harness/forge/gitlab_notes.h"
#include "harness/base/output.h"
#include "harness/forge/post_comment.h"
#include "harness/forge/post_issues.h"
#include "harness/forge/post_target.h"

#define CMD "post"

#define POST_TIMEOUT_MAX  3600
#define POST_RETRY_MS_MAX 60000

struct post_opts {
	const char *repo, *api, *token_env, *key_suffix, *artifacts, *forge_name;
	enum post_forge_id forge;
	unsigned pr;
	int dry_run, changes;
	struct forge_http_opts http;
};

/* ---- where to post ---- */

/* The pull or merge request from the options, else from the CI's
 * environment (t->pr 0: none), and the token. An exit status. */
static int find_target(struct post_opts *o, struct post_target *t)
{
	const struct post_where w = {.forge = o->forge,
				     .repo = o->repo,
				     .api = o->api,
				     .token_env = o->token_env,
				     .pr = o->pr};
	struct wperf_error err = {0};

	if (post_find_target(&w, t, &err) < 0)
		return cli_error(CMD, "%s", err.msg);
	o->http.token_header = t->token_header;
	return EXIT_OK;
}

/* ---- the job summary and the comments ---- */

/* Appends the comment's Markdown to $GITHUB_STEP_SUMMARY, when it is set;
 * a failure is a warning. */
static void write_summary(const struct post_comment *c, int dry_run)
{
	const char *path = post_env("GITHUB_STEP_SUMMARY");
	struct wperf_error err = {0};

	if (path && dry_run)
		printf("(dry run: the Markdown would be appended to %s)\n", path);
	else if (path && post_comment_append_summary(c, path, &err) < 0)
		cli_warn(CMD, "%s", err.msg);
}

static void retrying(const char *method, const char *url, const char *why, unsigned wait_ms)
{
	if (wait_ms < 1000)
		cli_warn(CMD, "%s %s: %s; trying again in %u ms", method, url, why, wait_ms);
	else
		cli_warn(CMD, "%s %s: %s; trying again in %.1f s", method, url, why,
			 wait_ms / 1000.0);
}

/* What each enum forge_posted is, on a line of the output. */
static const char *const verbs[] = {"created", "updated", "unchanged",
				    "closed, left closed (not re-opened)"};

/* A client for t, into *h: 0 (*h NULL without a token and without
 * --dry-run, after a warning that what is skipped is), or -1 when it cannot
 * be made (err says why). */
static int open_client(const struct post_opts *o, const struct post_target *t, const char *skipped,
		       struct forge_http **h, struct wperf_error *err)
{
	const struct post_forge *f = &post_forges[o->forge];
	const char *job_token = o->token_env ? NULL : f->job_token_env;

	*h = NULL;
	if (!t->token)
		cli_warn(CMD, "no token in $%s%s%s: %s%s", t->token_from, job_token ? " nor $" : "",
			 job_token ? job_token : "", o->dry_run ? "without --dry-run " : "",
			 skipped);
	if (!t->token && !o->dry_run)
		return 0;
	return forge_http_open(&o->http, f->headers, t->token, h, err) < 0 ? -1 : 0;
}

/* Posts (or, for a dry run, prints) the comment on t; failures are warnings. */
static void post_comment(const struct post_opts *o, const struct post_target *t,
			 const struct post_comment *c)
{
	const struct post_forge *f = &post_forges[o->forge];
	struct forge_http *h = NULL;
	struct wperf_error err = {0};
	struct forge_comment posted = {0};
	struct wperf_buf req = {0};
	enum forge_posted what;

	if (open_client(o, t, o->dry_run ? "the comment would be skipped" : f->skipped, &h, &err) <
	    0) {
		cli_warn(CMD, "the comment is not posted: %s", err.msg);
		return;
	}
	if (!h)
		return;
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

/* ---- --changes: one issue per change point ---- */

/* The issue of change i of cs on thread t through h (NULL: a dry run's
 * requests are printed). An exit status. */
static int post_issue(struct forge_http *h, const struct forge_thread *t,
		      const struct post_changes *cs, size_t i, int dry_run)
{
	struct post_issue issue;
	struct forge_comment posted = {0};
	struct wperf_buf req = {0};
	struct wperf_error err = {0};
	enum forge_posted what;
	int status = EXIT_OK;

	if (post_issue_compose(cs, i, &issue) < 0)
		return cli_error(CMD, "out of memory");
	if (dry_run && forge_describe_item(h, t, (const char *)issue.title.data,
					   (const char *)issue.body.data, &req) < 0)
		status = cli_error(CMD, "out of memory");
	else if (dry_run)
		printf("# %s\n%.*s\n", (const char *)issue.marker.data, (int)req.len,
		       (const char *)req.data);
	else if (forge_upsert_item(h, t, (const char *)issue.marker.data,
				   (const char *)issue.title.data, (const char *)issue.body.data,
				   &what, &posted, &err) < 0)
		status = cli_error(CMD, "%s: %s", (const char *)issue.title.data, err.msg);
	else
		printf("issue %s %s: %s\n", verbs[what], posted.html_url ? posted.html_url : "",
		       (const char *)issue.title.data);
	forge_comment_release(&posted);
	wperf_buf_release(&req);
	post_issue_release(&issue);
	return status;
}

/* Each change point of the changes.json files named, as an issue of t's
 * repository; a file that cannot be read spares the others. An exit status. */
static int post_changes(const struct post_opts *o, const struct post_target *t, int argc,
			char **argv)
{
	const struct post_forge *f = &post_forges[o->forge];
	struct forge_target repo = {.api = t->api, .repo = t->repo};
	struct forge_thread issues;
	struct forge_http *h = NULL;
	struct wperf_error err = {0};
	int status = EXIT_OK;

	if (!t->repo)
		return cli_error(CMD, "--changes wants --repo %s (or $%s)", f->repo_operand,
				 f->repo_env);
	f->issues(&repo, POST_ISSUE_LABEL, &issues);
	if (open_client(o, t, "the issues are not written", &h, &err) < 0)
		return cli_error(CMD, "%s", err.msg);
	for (int i = optind; i < argc; i++) {
		struct post_changes cs;

		if (post_changes_read(argv[i], &cs, &err) < 0) {
			status = cli_error(CMD, "%s", err.msg);
			continue;
		}
		if (!cs.n)
			printf("%s: no change point\n", argv[i]);
		for (size_t k = 0; h && k < cs.n; k++)
			if (post_issue(h, &issues, &cs, k, o->dry_run) != EXIT_OK)
				status = EXIT_ERROR;
		post_changes_release(&cs);
	}
	forge_http_close(h);
	return status;
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
    {0, "changes", NULL,
     "the operands are changes.json files of 'history --changes': one issue per change "
     "point, labelled " POST_ISSUE_LABEL ", opened or updated in the repository",
     CLI_FLAG(struct post_opts, changes)},
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
	const char *retry = post_env(FORGE_HTTP_RETRY_MS_ENV);

	o->forge = post_forge_named(o->forge_name);
	if (!o->artifacts)
		o->artifacts = post_artifacts_url(o->forge, url, size);
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
	if (o.changes) {
		status = post_changes(&o, &t, argc, argv);
		goto out;
	}
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
