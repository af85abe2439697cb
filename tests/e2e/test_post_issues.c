/* SPDX-License-Identifier: MIT */
/*
 * `wperf-bench post --changes` against the stand-in forge on loopback
 * (tests/lib/forge_server.py): one issue per change point of a changes.json,
 * labelled wperf-bench and found again by its marker across the pages of
 * the repository's issues; the same file again writes nothing; a changed p
 * updates its one issue in place; a closed issue is neither re-opened nor
 * duplicated; GitLab's issues likewise (PUT, "description", the label as
 * text); a bad changes.json is refused with its file, position and key,
 * before anything is sent. Nothing here records.
 */
#include <json-c/json.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/lib/e2e.h"
#include "tests/lib/forge.h"

#define STEP "0cf6d86ab6b1bcccb5f0922616d768f17339959d"
#define PREV "8389178b82258168c2907f53fe80be2043efc432"

/* One change of a changes.json: its metric's keys, then p. */
#define CHANGE(metric, p)                                                                          \
	"{" metric ", \"commit\": \"" STEP "\", \"subject\": \"the step 6\", "                     \
	"\"date\": \"2026-11-29T18:51:23Z\", \"previous\": \"" PREV "\", " p "}"
#define THROUGHPUT                                                                                 \
	"\"metric\": \"throughput\", \"from\": null, \"to\": null, \"vertex\": null, "             \
	"\"before\": 1000.9, \"after\": 902.0, \"change\": -0.0988"
#define EDGE                                                                                       \
	"\"metric\": \"edge\", \"from\": \"fig1/B\", \"to\": \"fig1/D\", \"vertex\": null, "       \
	"\"before\": 0, \"after\": 0.3, \"change\": null"
#define KNOT                                                                                       \
	"\"metric\": \"knot\", \"from\": null, \"to\": null, \"vertex\": \"fig1 D<->x\", "         \
	"\"before\": 0, \"after\": 1, \"change\": null"

static struct e2e_output out; /* of the last post */

#define POST(env, ...) forge_post(&out, NULL, env, (const char *const[]){__VA_ARGS__, NULL})
#define GITHUB	       "--changes", "--repo", "o/r", "--api-url", forge_url

#define expect(status, where, text) forge_expect(&out, status, where, text)

/* How many of the server's answers were to method. */
static size_t answers_to(const char *method)
{
	struct forge_request r[64];
	size_t n = forge_requests(r, 64), k = 0;

	for (size_t i = 0; i < n; i++)
		k += !strcmp(r[i].method, method);
	return k;
}

/* Of the requests so far: 3 creations, one write with method, to path, and
 * the token in each, in GitHub's header or (gitlab) in GitLab's only. */
static void one_update_of(const char *method, const char *path, int gitlab)
{
	struct forge_request r[64];
	size_t n = forge_requests(r, 64);

	assert_int_equal(answers_to(method), 1);
	assert_int_equal(answers_to("POST"), 3);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(gitlab ? r[i].private_token : r[i].auth,
				    gitlab ? forge_token : forge_bearer);
		if (gitlab)
			assert_string_equal(r[i].auth, "");
		if (!strcmp(r[i].method, method))
			assert_string_equal(r[i].path, path);
	}
}

/* name in the test's folder: a changes.json of the three changes, the
 * throughput's p being p. */
static const char *changes_file(const char *name, const char *p)
{
	const char *path = e2e_tmp_path(name);
	char text[4096];

	snprintf(
	    text, sizeof(text),
	    "{\"format\": \"wperf-changes/1\", \"scenario\": \"synthetic-fig1\", "
	    "\"unit\": \"requests/s\", \"max_p\": 0.001, \"changes\": [" CHANGE(
		THROUGHPUT,
		"\"p\": %s") ", " CHANGE(EDGE, "\"p\": 0") ", " CHANGE(KNOT, "\"p\": 0") "]}\n",
	    p);
	e2e_write_file(path, text);
	return path;
}

/* The server's issues: how many, and of those how many hold text in key. */
static size_t issues_holding(const char *key, const char *text)
{
	json_object *all = forge_issues(), *v;
	size_t n = 0;

	for (size_t i = 0; all && i < json_object_array_length(all); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(all, i), key, &v) &&
		    json_object_is_type(v, json_type_string) &&
		    strstr(json_object_get_string(v), text))
			n++;
	json_object_put(all);
	return n;
}

static void issues_created_found_again_and_updated(void **state)
{
	const char *first = changes_file("changes.json", "2.2e-06");
	const char *again = changes_file("changes-p.json", "3.5e-05");
	struct forge_request r[64];

	(void)state;
	/* 2 issues a page: the third is found on the second */
	forge_start("--per-page-cap", "2", NULL);
	POST(FORGE_ENV(forge_token_env), GITHUB, first);
	expect(0, "out",
	       "issue created https://github.example/o/r/issues/1: wperf-bench: synthetic-fig1: "
	       "throughput changed at 0cf6d86ab6b1 (-9.9%)\n");
	expect(0, "out",
	       "issue created https://github.example/o/r/issues/2: wperf-bench: synthetic-fig1: "
	       "edge fig1/B->fig1/D changed at 0cf6d86ab6b1 (0% -> 30%)\n");
	expect(0, "out",
	       "issue created https://github.example/o/r/issues/3: wperf-bench: "
	       "synthetic-fig1: knot member fig1 D<->x changed at 0cf6d86ab6b1 (joined)\n");
	forge_assert_token_unsaid(&out);
	assert_int_equal(answers_to("POST"), 3);
	forge_requests(r, 64);
	assert_string_equal(r[0].path,
			    "/repos/o/r/issues?labels=wperf-bench&state=all&per_page=100");
	assert_int_equal(issues_holding("title", "wperf-bench: synthetic-fig1: "), 3);
	/* the markers, a name with white space and '<', '>' percent-encoded */
	assert_int_equal(issues_holding("body",
					"<!-- wperf-bench change: synthetic-fig1 throughput " STEP
					" -->\n"),
			 1);
	assert_int_equal(issues_holding("body", "<!-- wperf-bench change: synthetic-fig1 edge "
						"fig1/B fig1/D " STEP " -->\n"),
			 1);
	assert_int_equal(issues_holding("body", "<!-- wperf-bench change: synthetic-fig1 knot "
						"fig1%20D%3C-%3Ex " STEP " -->\n"),
			 1);
	assert_int_equal(issues_holding("body", "- **before → after**: 1000.9 requests/s → 902 "
						"requests/s\n- **change**: -9.9%, p 2.2e-06"),
			 1);
	assert_int_equal(issues_holding("body", "wperf-bench bisect --good " PREV " --bad " STEP
						" scenarios/synthetic-fig1.yaml\n"),
			 3);

	/* the same file again: found, nothing written */
	POST(FORGE_ENV(forge_token_env), GITHUB, first);
	expect(0, "out", "issue unchanged https://github.example/o/r/issues/3: ");
	assert_null(strstr(out.out, "created"));
	assert_int_equal(answers_to("POST"), 3);
	assert_int_equal(answers_to("PATCH"), 0);

	/* the throughput's p changed: its issue updated in place, the others not */
	POST(FORGE_ENV(forge_token_env), GITHUB, again);
	expect(0, "out", "issue updated https://github.example/o/r/issues/1: ");
	expect(0, "out", "issue unchanged https://github.example/o/r/issues/2: ");
	one_update_of("PATCH", "/repos/o/r/issues/1", 0);
	assert_int_equal(issues_holding("body", "p 3.5e-05"), 1);
	assert_int_equal(issues_holding("title", "wperf-bench: synthetic-fig1: "), 3);
	forge_assert_token_not_in(first);
}

static void a_closed_issue_stays_closed(void **state)
{
	const char *first = changes_file("changes-c.json", "2.2e-06");
	const char *again = changes_file("changes-c2.json", "4e-05");
	char url[128];

	(void)state;
	forge_start(NULL);
	POST(FORGE_ENV(forge_token_env), GITHUB, first);
	expect(0, "out", "issue created https://github.example/o/r/issues/1: ");
	/* someone closes it, as GitHub's API does */
	snprintf(url, sizeof(url), "%s/repos/o/r/issues/1", forge_url);
	e2e_shell("curl -sf -o /dev/null -X PATCH -H 'Authorization: %s' -H 'Content-Type: "
		  "application/json' -d '{\"state\": \"closed\"}' '%s'",
		  forge_bearer, url);
	assert_int_equal(issues_holding("state", "closed"), 1);
	POST(FORGE_ENV(forge_token_env), GITHUB, again);
	expect(0, "out",
	       "issue closed, left closed (not re-opened) https://github.example/o/r/issues/1: ");
	/* one PATCH: the close; no new issue */
	assert_int_equal(answers_to("PATCH"), 1);
	assert_int_equal(answers_to("POST"), 3);
	assert_int_equal(issues_holding("state", "closed"), 1);
	assert_int_equal(issues_holding("body", "p 4e-05"), 0);
}

static void gitlab_issues_likewise(void **state)
{
	const char *first = changes_file("changes-gl.json", "2.2e-06");
	const char *again = changes_file("changes-gl2.json", "1e-05");
	char api_env[128], token_env[128];
	const char *const *env;
	struct forge_request r[64];

	(void)state;
	forge_start("--per-page-cap", "2", NULL);
	snprintf(api_env, sizeof(api_env), "CI_API_V4_URL=%s/api/v4", forge_url);
	snprintf(token_env, sizeof(token_env), "GITLAB_TOKEN=%s", forge_token);
	env = FORGE_ENV(token_env, api_env, "GITLAB_CI=true", "CI_PROJECT_ID=group/app");
	POST(env, "--changes", first);
	expect(0, "out",
	       "issue created https://gitlab.example/group/app/-/issues/1: wperf-bench: "
	       "synthetic-fig1: throughput changed at 0cf6d86ab6b1 (-9.9%)\n");
	expect(0, "out", "issue created https://gitlab.example/group/app/-/issues/3: ");
	forge_requests(r, 64);
	assert_string_equal(r[0].path,
			    "/api/v4/projects/group%2Fapp/issues?labels=wperf-bench&per_page=100");
	assert_int_equal(issues_holding("description", "<!-- wperf-bench change: "), 3);
	POST(env, "--changes", first);
	expect(0, "out", "issue unchanged https://gitlab.example/group/app/-/issues/2: ");
	POST(env, "--changes", again);
	expect(0, "out", "issue updated https://gitlab.example/group/app/-/issues/1: ");
	one_update_of("PUT", "/api/v4/projects/group%2Fapp/issues/1", 1);
	assert_int_equal(issues_holding("description", "p 1e-05"), 1);
	forge_assert_token_unsaid(&out);
}

/* A bad changes.json names its file, and the byte or the key; nothing is
 * sent, and a good file beside it is posted all the same. */
static void a_bad_file_is_refused_with_its_key(void **state)
{
	static const struct {
		const char *text, *says;
	} cases[] = {
	    {"{\"format\": \"wperf-changes/1\",", "is not JSON: it ends too early at byte"},
	    {"{\"format\": \"wperf-changes/2\", \"scenario\": \"s\", \"unit\": \"\", \"max_p\": "
	     "0.001, \"changes\": []}",
	     ": format: expected \"wperf-changes/1\", found \"wperf-changes/2\""},
	    {"{\"format\": \"wperf-changes/1\", \"scenario\": \"s\", \"unit\": \"\", \"max_p\": "
	     "0.001, \"changes\": [" CHANGE(THROUGHPUT,
					    "\"p\": 0.5") ", " CHANGE(EDGE, "\"p\": \"low\"") "]}",
	     ": changes[1].p: expected a number in [0, 1], found \"low\""},
	    {"{\"format\": \"wperf-changes/1\", \"scenario\": \"s\", \"unit\": \"\", \"max_p\": "
	     "0.001, \"changes\": [" CHANGE(THROUGHPUT, "\"p\": 0.5, \"q\": 1") "]}",
	     ": changes[0].q: unknown key"},
	    {"{\"format\": \"wperf-changes/1\", \"scenario\": \"s\", \"unit\": \"\", \"max_p\": "
	     "0.001, \"changes\": [" CHANGE(KNOT, "\"p\": 0") "]}",
	     NULL},
	};
	const char *path = e2e_tmp_path("bad.json");
	const char *good = changes_file("good.json", "0.0001");

	(void)state;
	forge_start(NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		e2e_write_file(path, cases[i].text);
		POST(FORGE_ENV(forge_token_env), GITHUB, path);
		if (!cases[i].says) {
			expect(0, "out", "issue created");
			continue;
		}
		expect(2, "err", path);
		expect(2, "err", cases[i].says);
		assert_string_equal(forge_answers(), "");
	}
	forge_stop(NULL);
	forge_start(NULL);
	POST(FORGE_ENV(forge_token_env), GITHUB, e2e_tmp_path("nowhere.json"), good);
	expect(2, "err", "nowhere.json");
	expect(2, "out", "issue created");
	assert_int_equal(answers_to("POST"), 3);
}

/* Without a token: a warning, the files read all the same; --dry-run sends
 * nothing; --changes wants a repository. */
static void without_a_token_or_a_repository(void **state)
{
	const char *file = changes_file("changes-t.json", "2.2e-06");
	char line[160];

	(void)state;
	forge_start(NULL);
	POST(NULL, GITHUB, file);
	expect(0, "err", "warning: no token in $GITHUB_TOKEN: the issues are not written");
	POST(NULL, GITHUB, e2e_tmp_path("nowhere.json"));
	expect(2, "err", "nowhere.json");
	POST(FORGE_ENV(forge_token_env), GITHUB, "--dry-run", file);
	snprintf(line, sizeof(line), "POST %s/repos/o/r/issues\n", forge_url);
	expect(0, "out", line);
	expect(0, "out", "\"labels\":[\"wperf-bench\"]");
	expect(0, "out", "Authorization: Bearer ***\n");
	forge_assert_token_unsaid(&out);
	POST(FORGE_ENV(forge_token_env), "--changes", "--api-url", forge_url, file);
	expect(2, "err", "--changes wants --repo OWNER/NAME (or $GITHUB_REPOSITORY)");
	assert_string_equal(forge_answers(), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(issues_created_found_again_and_updated, forge_stop),
	    cmocka_unit_test_teardown(a_closed_issue_stays_closed, forge_stop),
	    cmocka_unit_test_teardown(gitlab_issues_likewise, forge_stop),
	    cmocka_unit_test_teardown(a_bad_file_is_refused_with_its_key, forge_stop),
	    cmocka_unit_test_teardown(without_a_token_or_a_repository, forge_stop),
	};

	if (forge_setup() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
