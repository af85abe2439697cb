/* SPDX-License-Identifier: MIT */
/*
 * `wperf-bench post` against a real HTTP server on loopback that answers like
 * GitHub's REST API (tests/lib/forge_server.py), with check-perf folders made
 * from a struct wperf_check and results folders judged by `compare` for real
 * (tests/data/results: fig1-worse a new bottleneck, fig1-head a pass). All
 * the folders of a post are one comment, created, found again across pages
 * and updated, never duplicated; the token reaches the server and nothing
 * else; each HTTP error (and an answer that is not JSON) is explained; rate
 * limits and server errors are retried; a post that fails leaves the verdict,
 * the exit status and the results as they were; a long check is cut to fit,
 * with a note; --dry-run sends nothing; the job summary is always written.
 */
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/util/buf.h"
#include "core/gate/check.h"
#include "harness/base/output.h"
#include "tests/lib/e2e.h"
#include "tests/lib/forge.h"

#define BASELINE "baselines/synthetic-fig1.yaml"

static struct e2e_output out; /* of the last post */

/* The judged results folders of the group's setup. */
static const char *worse, *head, *other, *unjudged;

/* ---- running post ---- */

/* post, from here, into out. */
static void post_with(const char *const *env, const char *const *args)
{
	forge_post(&out, NULL, env, args);
}

#define ENV	       FORGE_ENV
#define POST(env, ...) post_with(env, (const char *const[]){__VA_ARGS__, NULL})
#define TARGET	       "--repo", "o/r", "--pr", "7", "--api-url", forge_url

#define expect(status, where, text) forge_expect(&out, status, where, text)

/* summary.json and verdict.md of dir, to check that a post leaves them alone. */
static void snapshot(const char *dir, struct wperf_buf *b)
{
	char path[PATH_MAX];
	struct wperf_buf verdict = {0};

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	e2e_read_file(path, b);
	snprintf(path, sizeof(path), "%s/verdict.md", dir);
	e2e_read_file(path, &verdict);
	assert_int_equal(wperf_buf_append(b, verdict.data, verdict.len), 0);
	wperf_buf_release(&verdict);
}

static void assert_unchanged(const char *dir, const struct wperf_buf *before)
{
	struct wperf_buf now = {0};

	snapshot(dir, &now);
	assert_int_equal(now.len, before->len);
	assert_memory_equal(now.data, before->data, now.len);
	wperf_buf_release(&now);
}

/* ---- check-perf folders, made from a struct wperf_check ---- */

static char *dup_or_fail(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	return d;
}

/* A check of base against head: synthetic-fig1 of verdict kind, with
 * nfindings failing edges when it is not a pass, and two passing scenarios. */
static void check_fixture(struct wperf_check *c, enum wperf_verdict_kind kind, size_t nfindings)
{
	static const char *const names[] = {"synthetic-fig1", "synthetic-lock", "memcached"};

	memset(c, 0, sizeof(*c));
	c->base_mode = 1;
	strcpy(c->base_ref, "origin/main");
	strcpy(c->base_commit, "0123456789abcdef0123456789abcdef01234567");
	strcpy(c->head_commit, "fedcba9876543210fedcba9876543210fedcba98");
	c->alpha = 0.05;
	c->seconds = 300;
	c->n = 3;
	c->scenarios = calloc(c->n, sizeof(*c->scenarios));
	assert_non_null(c->scenarios);
	for (size_t i = 0; i < c->n; i++) {
		struct wperf_check_scenario *s = &c->scenarios[i];
		struct wperf_verdict *v = &s->verdict;

		s->name = dup_or_fail(names[i]);
		s->dir = dup_or_fail(names[i]);
		s->pairs = v->runs = v->baseline_runs = 6;
		v->scenario = dup_or_fail(names[i]);
		v->kind = i == 0 ? kind : WPERF_VERDICT_PASS;
		v->paired = 1;
		v->alpha = v->detectable = NAN;
		v->throughput_before = 100;
		v->throughput_after = i == 0 && kind != WPERF_VERDICT_PASS ? 80 : 101;
		if (i || kind == WPERF_VERDICT_PASS)
			continue;
		v->findings = calloc(nfindings, sizeof(*v->findings));
		assert_non_null(v->findings);
		for (size_t k = 0; k < nfindings; k++) {
			struct wperf_finding *f = &v->findings[v->nfindings++];
			char to[32];

			snprintf(to, sizeof(to), "fig1/extra-%zu", k);
			f->kind = WPERF_FINDING_EDGE;
			f->level = WPERF_LEVEL_FAIL;
			f->worse = 1;
			f->from = dup_or_fail("fig1/B");
			f->to = dup_or_fail(to);
			f->before = 0.01, f->after = 0.31, f->change = 5.2;
			f->before_lo = f->before_hi = f->after_lo = f->after_hi = NAN;
			f->p = f->q = f->detectable = NAN;
			f->sites = calloc(1, sizeof(*f->sites));
			assert_non_null(f->sites);
			f->sites[0].waiter = dup_or_fail("fsync (fig1.c:88)");
			f->sites[0].share = 0.93;
			f->nsites = 1;
		}
	}
}

/* dir/summary.json of c. */
static void write_check(const char *dir, const struct wperf_check *c)
{
	char path[PATH_MAX];
	json_object *o;
	FILE *f;

	e2e_shell("mkdir -p '%s'", dir);
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	assert_int_equal(wperf_check_to_json(c, &o), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE),
	      f);
	assert_int_equal(fclose(f), 0);
	json_object_put(o);
}

/* ---- the comment: created, found again, updated ---- */

static void created_then_updated_across_pages(void **state)
{
	const char *summary = e2e_tmp_path("summary-pages.md");
	char summary_env[600];
	struct forge_request r[32];
	struct wperf_buf first = {0}, second = {0}, text = {0};
	size_t n;

	(void)state;
	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	/* 35 comments of others before ours, 10 a page: ours lands on page 4. */
	forge_start("--seed", "35", "--per-page-cap", "10", NULL);
	POST(ENV(forge_token_env, summary_env), TARGET, worse);
	expect(1, "out", "comment created https://github.example/o/r/pull/7#issuecomment-");
	forge_assert_token_unsaid(&out);
	/* four pages, then the creation */
	assert_string_equal(forge_answers(), "GET 200, GET 200, GET 200, GET 200, POST 201");
	forge_requests(r, 32);
	assert_string_equal(r[0].path, "/repos/o/r/issues/7/comments?per_page=100");
	for (int page = 2; page <= 4; page++) {
		char path[128];

		snprintf(path, sizeof(path),
			 "/repositories/4242/issues/7/comments?per_page=10&page=%d", page);
		assert_string_equal(r[page - 1].path, path); /* the Link header's URL */
	}
	assert_int_equal(forge_marked(FORGE_MARKER, &first, NULL), 1);
	assert_non_null(strstr((const char *)first.data, "**new-bottleneck**"));

	/* The same scenario passing now: the comment on page 4 is found and updated. */
	POST(ENV(forge_token_env, summary_env), TARGET, head);
	expect(0, "out", "comment updated https://github.example/o/r/pull/7#issuecomment-");
	forge_assert_token_unsaid(&out);
	assert_int_equal(forge_requests(r, 32), 10);
	assert_string_equal(r[9].method, "PATCH");
	assert_int_equal(r[9].status, 200);
	assert_non_null(strstr(r[9].path, "/repos/o/r/issues/comments/"));
	assert_int_equal(forge_marked(FORGE_MARKER, &second, NULL), 1);
	assert_int_equal(forge_comments(), 36);
	assert_string_not_equal((const char *)first.data, (const char *)second.data);
	assert_non_null(strstr((const char *)second.data, "**wperf-bench: 1 scenario passes**"));

	/* Nothing new to say: nothing written. */
	POST(ENV(forge_token_env, summary_env), TARGET, head);
	expect(0, "out", "comment unchanged");
	n = forge_requests(r, 32);
	assert_int_equal(n, 14);
	for (size_t i = 10; i < n; i++)
		assert_string_equal(r[i].method, "GET");

	/* The token went to the server, in every request, and nowhere else. */
	for (size_t i = 0; i < n; i++)
		assert_string_equal(r[i].auth, forge_bearer);
	forge_assert_token_not_in(worse);
	forge_assert_token_not_in(head);
	forge_assert_token_not_in(summary);
	/* Each post appended its Markdown to the job summary. */
	e2e_read_file(summary, &text);
	assert_non_null(strstr((const char *)text.data, "**new-bottleneck**"));
	assert_non_null(strstr((const char *)text.data, "**wperf-bench: 1 scenario passes**"));
	assert_null(strstr((const char *)text.data, FORGE_MARKER));
	wperf_buf_release(&first);
	wperf_buf_release(&second);
	wperf_buf_release(&text);
}

/* A check-perf folder is one comment; the next push's check updates it. */
static void a_check_is_one_comment_updated_in_place(void **state)
{
	const char *failing = e2e_tmp_path("check-failing"),
		   *passing = e2e_tmp_path("check-passing");
	const char *summary = e2e_tmp_path("summary-check.md");
	char summary_env[600];
	struct wperf_check c;
	struct wperf_buf body = {0}, text = {0};
	const char *b;

	(void)state;
	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	check_fixture(&c, WPERF_VERDICT_NEW_BOTTLENECK, 2);
	write_check(failing, &c);
	wperf_check_release(&c);
	check_fixture(&c, WPERF_VERDICT_PASS, 0);
	write_check(passing, &c);
	wperf_check_release(&c);
	forge_start("--seed", "3", NULL);

	POST(ENV(forge_token_env, summary_env), TARGET, failing);
	expect(1, "out", "comment created https://github.example/o/r/pull/7#issuecomment-");
	forge_assert_token_unsaid(&out);
	assert_int_equal(forge_marked(FORGE_MARKER, &body, NULL), 1);
	b = (const char *)body.data;
	assert_non_null(
	    strstr(b, FORGE_MARKER "\n**wperf-bench: 1 new bottleneck in 3 scenarios**\n"));
	assert_non_null(strstr(b, "Head `fedcba9` against base `0123456` (`origin/main`)"));
	assert_non_null(strstr(b, "| `memcached` | pass | 6 |"));
	assert_non_null(strstr(b, "<details><summary><code>synthetic-fig1</code>"));
	assert_non_null(
	    strstr(b, "- **fail** edge `fig1/B` → `fig1/extra-1`: 31.0 pp, was 1.0 pp"));
	assert_non_null(strstr(b, "  - 93%: waits in `fsync (fig1.c:88)`\n"));

	/* the same check again: found, and nothing to change */
	POST(ENV(forge_token_env, summary_env), TARGET, failing);
	expect(1, "out", "comment unchanged");

	/* the next push passes: the same comment, updated */
	POST(ENV(forge_token_env, summary_env), TARGET, passing);
	expect(0, "out", "comment updated https://github.example/o/r/pull/7#issuecomment-");
	forge_assert_token_unsaid(&out);
	assert_int_equal(forge_marked(FORGE_MARKER, &body, NULL), 1);
	assert_int_equal(forge_comments(), 4);
	assert_non_null(strstr((const char *)body.data, "**wperf-bench: 3 scenarios pass**"));
	assert_null(strstr((const char *)body.data, "<details>"));

	/* the job summary got the same Markdown, without the marker */
	e2e_read_file(summary, &text);
	assert_non_null(strstr((const char *)text.data, "**wperf-bench: 1 new bottleneck in 3 "
							"scenarios**"));
	assert_non_null(strstr((const char *)text.data, "**wperf-bench: 3 scenarios pass**"));
	assert_null(strstr((const char *)text.data, FORGE_MARKER));
	forge_assert_token_not_in(failing);
	forge_assert_token_not_in(passing);
	forge_assert_token_not_in(summary);

	/* a scenario that could not run: exit status 2, posted all the same */
	check_fixture(&c, WPERF_VERDICT_PASS, 0);
	c.scenarios[2].error = 1;
	c.scenarios[2].reason = dup_or_fail("memcached did not start: port 11211 taken");
	write_check(passing, &c);
	wperf_check_release(&c);
	POST(ENV(forge_token_env), TARGET, passing);
	expect(2, "out", "comment updated");
	assert_int_equal(forge_marked(FORGE_MARKER, &body, NULL), 1);
	assert_non_null(strstr((const char *)body.data, "**wperf-bench: 1 could not run in 3 "
							"scenarios**"));
	wperf_buf_release(&body);
	wperf_buf_release(&text);
}

static void one_comment_for_all_and_per_key(void **state)
{
	struct wperf_buf body = {0};

	(void)state;
	forge_start(NULL);
	POST(ENV(forge_token_env), TARGET, worse, other);
	expect(1, "out", "comment created");
	assert_int_equal(forge_marked(FORGE_MARKER, &body, NULL), 1);
	assert_non_null(
	    strstr((const char *)body.data, "**wperf-bench: 1 new bottleneck in 2 scenarios**"));
	assert_non_null(strstr((const char *)body.data, "| `synthetic-fig1-other` | pass |"));
	POST(ENV(forge_token_env), TARGET, "--key-suffix", "arm64", head);
	expect(0, "out", "comment arm64 created");
	assert_int_equal(forge_marked("<!-- wperf-bench: arm64 -->", &body, NULL), 1);
	assert_non_null(strstr((const char *)body.data, "**wperf-bench: 1 scenario passes**"));
	assert_int_equal(forge_marked(FORGE_MARKER, NULL, NULL), 1);
	assert_int_equal(forge_comments(), 2);
	wperf_buf_release(&body);
}
static void a_long_check_is_cut_with_a_note(void **state)
{
	const char *dir = e2e_tmp_path("check-long");
	struct wperf_check c;
	struct wperf_buf body = {0};
	const char *text;

	(void)state;
	check_fixture(&c, WPERF_VERDICT_REGRESSION, 800);
	write_check(dir, &c);
	wperf_check_release(&c);
	forge_start(NULL); /* which refuses bodies over 65,536 characters */
	POST(ENV(forge_token_env), TARGET, dir);
	expect(1, "out", "comment created");
	assert_int_equal(forge_marked(FORGE_MARKER, &body, NULL), 1);
	text = (const char *)body.data;
	assert_true(strlen(text) <= 65536);
	assert_true(strlen(text) > 50000);
	assert_non_null(strstr(text, "\n_Left out to stay under 60000 characters: "));
	assert_non_null(strstr(text, "the whole is summary.md in the artifacts._\n"));
	wperf_buf_release(&body);
}
/* ---- when the forge says no, or fails ---- */

static void http_errors_are_explained(void **state)
{
	static const struct {
		const char *mode, *says, *answers;
	} cases[] = {
	    {"401", "HTTP 401: the token is missing, expired or invalid (GitHub: Bad credentials)",
	     "GET 401"},
	    {"403-fork",
	     "HTTP 403: the token may not comment on o/r#7; a pull request from a fork gets a "
	     "read-only token: post from a workflow_run workflow instead (docs/ci.md)",
	     "GET 200, POST 403"},
	    {"403-rate", "HTTP 403: rate limited by GitHub for 3", "GET 403"},
	    {"404", "HTTP 404: no repository o/r or pull request #7, or the token cannot see it",
	     "GET 404"},
	    {"422",
	     "HTTP 422: GitHub refused the comment: Validation Failed: body is too long (maximum "
	     "is 65536 characters)",
	     "GET 200, POST 422"},
	    {"garbage", "listing the comments of o/r#7 (page 1): the list of comments is not JSON",
	     "GET 200"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		forge_start("--fail", cases[i].mode, NULL);
		POST(ENV(forge_token_env), TARGET, worse);
		expect(1, "err", cases[i].says);
		/* one line, a warning, and no retry */
		assert_non_null(strstr(out.err, "wperf-bench post: warning: the comment is not "
						"posted: "));
		assert_int_equal(strchr(out.err, '\n') - out.err + 1, strlen(out.err));
		assert_string_equal(forge_answers(), cases[i].answers);
		forge_assert_token_unsaid(&out);
		forge_stop(NULL);
	}
}

static void rate_limits_and_server_errors_are_retried(void **state)
{
	struct forge_request r[8];

	(void)state;
	/* 429 with Retry-After: 1, which is waited for, not the fast back-off */
	forge_start("--fail", "429", "--fail-count", "1", NULL);
	POST(ENV(forge_token_env), TARGET, worse);
	expect(1, "out", "comment created");
	expect(1, "err", "HTTP 429, rate limited; trying again in 1.0 s");
	assert_string_equal(forge_answers(), "GET 429, GET 200, POST 201");
	forge_requests(r, 8);
	assert_true(r[1].time - r[0].time >= 0.9);
	forge_stop(NULL);

	/* 500 twice, then fine */
	forge_start("--fail", "500", "--fail-count", "2", NULL);
	POST(ENV(forge_token_env), TARGET, worse);
	expect(1, "out", "comment created");
	assert_string_equal(forge_answers(), "GET 500, GET 500, GET 200, POST 201");
	forge_stop(NULL);

	/* A creation answered 502 that happened all the same: found, not made twice. */
	forge_start("--fail", "502-after-create", "--fail-count", "1", NULL);
	POST(ENV(forge_token_env), TARGET, worse);
	expect(1, "out", "comment created");
	assert_string_equal(forge_answers(), "GET 200, POST 502, GET 200");
	assert_int_equal(forge_marked(FORGE_MARKER, NULL, NULL), 1);
}

/* A post that fails changes neither the exit status nor the results. */
static void a_failed_post_keeps_the_verdict(void **state)
{
	const char *summary = e2e_tmp_path("summary-failed.md");
	char summary_env[600], closed[64];
	struct wperf_buf worse_before = {0}, head_before = {0}, text = {0};

	(void)state;
	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	snapshot(worse, &worse_before);
	snapshot(head, &head_before);

	forge_start("--fail", "500", NULL); /* always */
	POST(ENV(forge_token_env, summary_env), TARGET, worse);
	expect(1, "err",
	       "the comment is not posted: listing the comments of o/r#7 (page 1): "
	       "HTTP 500");
	assert_string_equal(forge_answers(), "GET 500, GET 500, GET 500, GET 500"); /* 3 retries */
	assert_unchanged(worse, &worse_before);
	e2e_read_file(summary, &text);
	assert_non_null(strstr((const char *)text.data, "**new-bottleneck**"));
	forge_stop(NULL);

	/* answers slower than --timeout */
	forge_start("--slow", "5", NULL);
	POST(ENV(forge_token_env, summary_env), TARGET, "--timeout", "1", head);
	expect(0, "err", "the comment is not posted: listing the comments of o/r#7 (page 1): GET");
	expect(0, "err", "Operation timed out after");
	assert_non_null(strstr(out.err, "Timeout was reached; trying again"));
	assert_unchanged(head, &head_before);
	snprintf(closed, sizeof(closed), "%s", forge_url);
	forge_stop(NULL);

	/* nobody listening */
	POST(ENV(forge_token_env, summary_env), "--repo", "o/r", "--pr", "7", "--api-url", closed,
	     worse);
	expect(1, "err", "Couldn't connect to server; trying again");
	expect(1, "err", "the comment is not posted");
	assert_unchanged(worse, &worse_before);
	forge_assert_token_not_in(summary);
	wperf_buf_release(&worse_before);
	wperf_buf_release(&head_before);
	wperf_buf_release(&text);
}

/* ---- what is sent, and where from ---- */

static void dry_run_sends_nothing(void **state)
{
	const char *summary = e2e_tmp_path("summary-dry.md");
	char summary_env[600], line[128];

	(void)state;
	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	forge_start(NULL);
	POST(ENV(forge_token_env, summary_env), TARGET, "--dry-run", worse);
	expect(1, "out", "Authorization: Bearer ***\n");
	snprintf(line, sizeof(line), "GET %s/repos/o/r/issues/7/comments?per_page=100\n",
		 forge_url);
	expect(1, "out", line);
	snprintf(line, sizeof(line), "POST %s/repos/o/r/issues/7/comments\n", forge_url);
	expect(1, "out", line);
	expect(1, "out",
	       "{\"body\":\"" FORGE_MARKER "\\n**wperf-bench: 1 new bottleneck in 1 scenario**");
	forge_assert_token_unsaid(&out);
	assert_string_equal(forge_answers(), "");
	assert_int_not_equal(access(summary, F_OK), 0);
}

static void without_a_token_only_the_summary(void **state)
{
	const char *summary = e2e_tmp_path("summary-no-token.md");
	char summary_env[600], other_token[128];
	struct wperf_buf text = {0};
	struct forge_request r[4];

	(void)state;
	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	forge_start(NULL);
	POST(ENV(summary_env), TARGET, worse);
	expect(1, "err",
	       "warning: no token in $GITHUB_TOKEN: the pull-request comment is "
	       "skipped");
	assert_string_equal(forge_answers(), "");
	e2e_read_file(summary, &text);
	assert_non_null(
	    strstr((const char *)text.data, "**wperf-bench: 1 new bottleneck in 1 scenario**"));
	POST(ENV(summary_env), TARGET, head);
	expect(0, "err", "no token in $GITHUB_TOKEN");

	/* the token in another variable */
	snprintf(other_token, sizeof(other_token), "WPERF_TEST_TOKEN=%s", forge_token);
	POST(ENV(other_token), TARGET, "--token-env", "WPERF_TEST_TOKEN", head);
	expect(0, "out", "comment created");
	assert_int_equal(forge_requests(r, 4), 2);
	assert_string_equal(r[1].auth, forge_bearer);
	wperf_buf_release(&text);
}

static void plain_http_is_refused_off_this_machine(void **state)
{

	(void)state;
	forge_start(NULL);
	POST(ENV(forge_token_env), "--repo", "o/r", "--pr", "7", "--api-url",
	     "http://example.com/api", worse);
	expect(2, "err",
	       "--api-url: refusing http://example.com/api: the token would travel in "
	       "clear");
	POST(ENV(forge_token_env, "GITHUB_API_URL=http://10.1.2.3"), "--repo", "o/r", "--pr", "7",
	     worse);
	expect(2, "err", "$GITHUB_API_URL: refusing http://10.1.2.3");
	POST(ENV(forge_token_env), "--repo", "o/r", "--pr", "7", "--api-url", "ftp://127.0.0.1/",
	     worse);
	expect(2, "err", "--api-url: 'ftp://127.0.0.1/' is not an http(s) URL");
	assert_string_equal(forge_answers(), "");
	forge_assert_token_unsaid(&out);
}

static void the_ci_environment_names_the_pull_request(void **state)
{
	const char *event = e2e_tmp_path("event.json"), *summary = e2e_tmp_path("summary-env.md");
	char event_env[600], summary_env[600], api_env[128];
	const char *const *env;
	struct wperf_buf body = {0};
	struct forge_request r[8];
	FILE *f;

	(void)state;
	forge_start(NULL);
	snprintf(event_env, sizeof(event_env), "GITHUB_EVENT_PATH=%s", event);
	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	snprintf(api_env, sizeof(api_env), "GITHUB_API_URL=%s/", forge_url);
	env = ENV(forge_token_env, event_env, summary_env, api_env, "GITHUB_REPOSITORY=octo/bench",
		  "GITHUB_SERVER_URL=https://github.example", "GITHUB_RUN_ID=99");

	f = fopen(event, "w");
	fputs("{\"action\": \"synchronize\", \"number\": 12, \"pull_request\": {\"number\": 12, "
	      "\"head\": {\"sha\": \"abc\"}}}\n",
	      f);
	fclose(f);
	post_with(env, ENV(worse));
	expect(1, "out", "comment created https://github.example/octo/bench/pull/12");
	assert_int_equal(forge_requests(r, 8), 2);
	assert_string_equal(r[1].path, "/repos/octo/bench/issues/12/comments");
	assert_int_equal(forge_marked(FORGE_MARKER, &body, NULL), 1);
	assert_non_null(strstr((const char *)body.data,
			       "[Artifacts](https://github.example/octo/bench/actions/runs/99)"));

	/* a comment on the pull request: the number */
	e2e_shell("echo '{\"issue\": {\"number\": 13, \"pull_request\": {}}}' > '%s'", event);
	post_with(env, ENV(head));
	expect(0, "out", "comment created https://github.example/octo/bench/pull/13");
	assert_int_equal(forge_requests(r, 8), 4);
	assert_string_equal(r[3].path, "/repos/octo/bench/issues/13/comments");

	/* a push: no pull request, the summary all the same */
	e2e_shell("echo '{\"ref\": \"refs/heads/main\"}' > '%s' && rm -f '%s'", event, summary);
	post_with(env, ENV(worse));
	expect(1, "out", "no pull request");
	assert_int_equal(forge_requests(r, 8), 4);
	assert_int_equal(access(summary, F_OK), 0);

	/* an event file that is not JSON */
	e2e_shell("echo 'not json' > '%s'", event);
	post_with(env, ENV(worse));
	expect(2, "err", event);
	expect(2, "err", "($GITHUB_EVENT_PATH): the event is not JSON");
	wperf_buf_release(&body);
}

/* GitLab: one note on the merge request the job names, found across the
 * pages of the notes and updated with PUT, the token in PRIVATE-TOKEN only. */
static void a_gitlab_note_is_created_then_updated(void **state)
{
	char api_env[128], token_env[128];
	const char *const *env;
	struct forge_request r[32];
	struct wperf_buf first = {0}, second = {0};
	size_t n;

	(void)state;
	forge_start("--seed", "25", "--per-page-cap", "10", NULL);
	snprintf(api_env, sizeof(api_env), "CI_API_V4_URL=%s/api/v4", forge_url);
	snprintf(token_env, sizeof(token_env), "GITLAB_TOKEN=%s", forge_token);
	env = ENV(token_env, api_env, "GITLAB_CI=true", "CI_PROJECT_ID=group/app",
		  "CI_MERGE_REQUEST_IID=7", "CI_JOB_URL=https://gitlab.example/group/app/-/jobs/5");
	post_with(env, ENV(worse));
	expect(1, "out", "comment created");
	forge_assert_token_unsaid(&out);
	/* three pages, then the creation */
	assert_string_equal(forge_answers(), "GET 200, GET 200, GET 200, POST 201");
	forge_requests(r, 32);
	assert_string_equal(
	    r[0].path, "/api/v4/projects/group%2Fapp/merge_requests/7/notes?sort=asc&per_page=100");
	assert_string_equal(r[2].path, "/api/v4/projects/group%2Fapp/merge_requests/7/"
				       "notes?sort=asc&per_page=10&page=3");
	assert_string_equal(r[3].path, "/api/v4/projects/group%2Fapp/merge_requests/7/notes");
	assert_int_equal(forge_marked(FORGE_MARKER, &first, NULL), 1);
	assert_non_null(strstr((const char *)first.data, "**new-bottleneck**"));
	assert_non_null(strstr((const char *)first.data,
			       "(https://gitlab.example/group/app/-/jobs/5/artifacts/browse)"));

	post_with(env, ENV(head));
	expect(0, "out", "comment updated");
	n = forge_requests(r, 32);
	assert_int_equal(n, 8);
	assert_string_equal(r[7].method, "PUT");
	assert_int_equal(r[7].status, 200);
	assert_non_null(strstr(r[7].path, "/api/v4/projects/group%2Fapp/merge_requests/7/notes/"));
	assert_int_equal(forge_marked(FORGE_MARKER, &second, NULL), 1);
	assert_int_equal(forge_comments(), 26);
	assert_non_null(strstr((const char *)second.data, "**wperf-bench: 1 scenario passes**"));
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(r[i].private_token, forge_token);
		assert_string_equal(r[i].auth, "");
		assert_string_equal(r[i].job_token, "");
	}
	forge_assert_token_not_in(worse);
	wperf_buf_release(&first);
	wperf_buf_release(&second);
}

/* GitLab's job token, its absence, and what a 403 and a 404 mean there. */
static void gitlab_tokens_and_errors(void **state)
{
	char api[128], job_token_env[128], token_env[128];
	struct forge_request r[8];

	(void)state;
	forge_start(NULL);
	snprintf(api, sizeof(api), "%s/api/v4", forge_url);
	snprintf(job_token_env, sizeof(job_token_env), "CI_JOB_TOKEN=%s", forge_token);
	snprintf(token_env, sizeof(token_env), "GITLAB_TOKEN=%s", forge_token);
	POST(ENV(job_token_env), "--forge", "gitlab", "--repo", "42", "--pr", "7", "--api-url", api,
	     worse);
	expect(1, "out", "comment created");
	forge_assert_token_unsaid(&out);
	assert_int_equal(forge_requests(r, 8), 2);
	assert_string_equal(r[1].job_token, forge_token);
	assert_string_equal(r[1].private_token, "");

	POST(ENV("GITLAB_CI=true", "CI_PROJECT_ID=42", "CI_MERGE_REQUEST_IID=7"), "--api-url", api,
	     worse);
	expect(1, "err",
	       "no token in $GITLAB_TOKEN nor $CI_JOB_TOKEN: the merge-request note is "
	       "skipped");
	assert_int_equal(forge_requests(r, 8), 2);

	POST(ENV("GITLAB_CI=true", "CI_PROJECT_ID=42"), "--api-url", api, worse);
	expect(1, "out", "no merge request (no --pr, and no $CI_MERGE_REQUEST_IID): no note");
	POST(ENV(token_env), "--forge", "gitlab", "--repo", "../x", "--pr", "7", "--api-url", api,
	     worse);
	expect(2, "err", "--repo wants a project's id or path (group/name), not '../x'");
	POST(ENV(token_env), "--forge", "gitea", worse);
	expect(2, "err", "--forge wants github or gitlab, not 'gitea'");
	forge_stop(NULL);

	forge_start("--fail", "403-fork", NULL);
	snprintf(api, sizeof(api), "%s/api/v4", forge_url);
	POST(ENV(job_token_env), "--forge", "gitlab", "--repo", "42", "--pr", "7", "--api-url", api,
	     worse);
	expect(1, "err",
	       "HTTP 403: the token may not comment on merge request !7 of project 42; "
	       "$CI_JOB_TOKEN may not write notes");
	forge_stop(NULL);
	forge_start("--fail", "404", NULL);
	snprintf(api, sizeof(api), "%s/api/v4", forge_url);
	POST(ENV(token_env), "--forge", "gitlab", "--repo", "42", "--pr", "7", "--api-url", api,
	     worse);
	expect(1, "err", "HTTP 404: no project 42 or merge request !7, or the token cannot see it");
	forge_assert_token_unsaid(&out);
}

static void refused_before_anything_is_sent(void **state)
{
	(void)state;
	forge_start(NULL);
	POST(ENV(forge_token_env), TARGET, unjudged);
	expect(2, "err", "was never judged: run 'wperf-bench compare");
	POST(ENV(forge_token_env), TARGET, e2e_tmp_path("nowhere"));
	expect(2, "err", "nowhere/summary.json");
	POST(ENV(forge_token_env), "--pr", "7", "--api-url", forge_url, worse);
	expect(2, "err", "--pr wants --repo OWNER/NAME");
	POST(ENV(forge_token_env), "--repo", "o", "--pr", "7", worse);
	expect(2, "err", "--repo wants OWNER/NAME, not 'o'");
	POST(ENV(forge_token_env), TARGET, "--pr", "0", worse);
	expect(2, "err", "--pr wants a number");
	POST(ENV(forge_token_env), TARGET, "--key-suffix", "-->", worse);
	expect(2, "err", "hold '--'");
	POST(ENV(forge_token_env, "WPERF_POST_RETRY_MS=soon"), TARGET, worse);
	expect(2, "err", "$WPERF_POST_RETRY_MS wants a number");
	POST(ENV(forge_token_env), TARGET);
	expect(2, "err",
	       "wperf-bench post: error: missing operand FOLDER\nsee 'wperf-bench post --help'");
	assert_string_equal(forge_answers(), "");
}

/* A folder without a verdict is an error (exit status 2) that spares the
 * others; a second one of a scenario replaces the first, with a note. */
static void bad_folders_spare_the_others(void **state)
{
	const char *twin = e2e_tmp_path("worse-twin");
	struct wperf_buf body = {0};

	(void)state;
	e2e_shell("cp -r '%s' '%s'", head, twin);
	forge_start(NULL);
	POST(ENV(forge_token_env), TARGET, unjudged, worse, twin);
	expect(2, "err", "was never judged");
	expect(2, "err", "warning: synthetic-fig1 of ");
	expect(2, "err", "worse-twin replaces the earlier one");
	expect(2, "out", "comment created");
	assert_int_equal(forge_marked(FORGE_MARKER, &body, NULL), 1);
	/* the later folder, a pass, won */
	assert_non_null(strstr((const char *)body.data, "**wperf-bench: 1 scenario passes**"));
	assert_string_equal(forge_answers(), "GET 200, POST 201");
	wperf_buf_release(&body);
}
/* ---- the fixtures: results folders judged by compare ---- */

/* tests/data/results/FROM copied to NAME, its scenario renamed to scenario
 * (NULL: kept), then judged by compare, which must exit verdict_status (-1:
 * not judged). */
static const char *judged(const char *name, const char *from, const char *scenario,
			  int verdict_status)
{
	const char *dir = e2e_tmp_path(name);
	char *argv[] = {
	    (char *)e2e_path("wperf-bench"), "compare", "--baseline", BASELINE, (char *)dir, NULL};

	e2e_shell("cp -r tests/data/results/%s '%s'", from, dir);
	if (scenario)
		e2e_shell("sed -i 's/\"scenario\":\"synthetic-fig1\"/\"scenario\":\"%s\"/' "
			  "'%s/summary.json'",
			  scenario, dir);
	if (verdict_status >= 0) {
		e2e_run(argv, (uid_t)-1, &out);
		if (out.status != verdict_status)
			fail_msg("compare %s: exit %d\n%s", dir, out.status, out.err);
	}
	return strdup(dir);
}

static int make_fixtures(void **state)
{
	(void)state;
	worse = judged("worse", "fig1-worse", NULL, 1);
	head = judged("head", "fig1-head", NULL, 0);
	other = judged("other", "fig1-head", "synthetic-fig1-other", 0);
	unjudged = judged("unjudged", "fig1-worse", NULL, -1);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(created_then_updated_across_pages, forge_stop),
	    cmocka_unit_test_teardown(a_check_is_one_comment_updated_in_place, forge_stop),
	    cmocka_unit_test_teardown(one_comment_for_all_and_per_key, forge_stop),
	    cmocka_unit_test_teardown(a_long_check_is_cut_with_a_note, forge_stop),
	    cmocka_unit_test_teardown(http_errors_are_explained, forge_stop),
	    cmocka_unit_test_teardown(rate_limits_and_server_errors_are_retried, forge_stop),
	    cmocka_unit_test_teardown(a_failed_post_keeps_the_verdict, forge_stop),
	    cmocka_unit_test_teardown(dry_run_sends_nothing, forge_stop),
	    cmocka_unit_test_teardown(without_a_token_only_the_summary, forge_stop),
	    cmocka_unit_test_teardown(plain_http_is_refused_off_this_machine, forge_stop),
	    cmocka_unit_test_teardown(the_ci_environment_names_the_pull_request, forge_stop),
	    cmocka_unit_test_teardown(a_gitlab_note_is_created_then_updated, forge_stop),
	    cmocka_unit_test_teardown(gitlab_tokens_and_errors, forge_stop),
	    cmocka_unit_test_teardown(refused_before_anything_is_sent, forge_stop),
	    cmocka_unit_test_teardown(bad_folders_spare_the_others, forge_stop),
	};

	if (forge_setup() < 0)
		return 1;
	return cmocka_run_group_tests(tests, make_fixtures, NULL);
}
