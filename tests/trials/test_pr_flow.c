/* SPDX-License-Identifier: MIT */
/*
 * The pull-request flow of ci/github/wperf-bench.yml and wperf-bench-comment.yml,
 * end to end, recorded by the kernel: a throwaway git repository with a tiny
 * project (the paper's Figure 1 and a ci scenario that builds it), a pull
 * request that plants a new bottleneck (B waits for a new thread D per
 * request), then fixes it, then adds a scenario that cannot run. Each push:
 * check-perf --base main from the repository, as CI runs it; the results
 * folder copied as the artifact; post as the same-repository job runs it,
 * then as the fork's two workflows do. One comment for the pull request,
 * updated in place; the gate's exit status whatever posting does; the token
 * nowhere but in the requests to the API.
 */
#include <json-c/json.h>
#include <limits.h>
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

#include "core/gate/check.h"
#include "tests/lib/e2e.h"
#include "tests/lib/forge.h"

#define SCENARIO     "fig1-pr"
#define BROKEN	     "broken"
#define PROGRAM	     "fig1pr"
#define NEW_VERTEX   PROGRAM "/D"
#define RUN_URL	     "https://github.example/o/r/actions/runs/4711"
#define PLANT	     "app.extra_ms = 8;"
#define ARTIFACT_DIR "check-perf" /* where the comment workflow downloads it */

static struct e2e_output out;
static char bench[PATH_MAX];	   /* the build's wperf-bench, absolute: run from the repository */
static const char *repo;	   /* the throwaway repository, on branch pr */
static const char *check;	   /* check-perf's --results */
static const char *comment_job;	   /* the comment workflow's working directory */
static char artifact[PATH_MAX];	   /* comment_job/ARTIFACT_DIR */
static char event_env[PATH_MAX];   /* GITHUB_EVENT_PATH=...: pull_request 7 */
static char summary_env[PATH_MAX]; /* GITHUB_STEP_SUMMARY=... */
static char api_env[128];	   /* GITHUB_API_URL=the stand-in */
static long comment_id;		   /* of the one comment, once made */

/* The scenario: as the project's synthetic-fig1, one second a run; every
 * process it starts carries the test's marker, so that none may be left. Its
 * program is fig1 named PROGRAM: the analysis merges threads of one name
 * across processes, and the other tests of a shared machine run fig1 with
 * and without D (fig1/D was seen in the base, and in the fixed head). */
static const char scenario_text[] =
    "name: " SCENARIO "\n"
    "description: 'the paper''s Figure 1 in a pull request'\n"
    "tags: [ci]\n"
    "build:\n"
    "  - [make, -s, \"BUILD=${BUILD_DIR}\", \"${BUILD_DIR}/" PROGRAM "\"]\n"
    "load:\n"
    "  command: env %s ${BUILD_DIR}/" PROGRAM " --duration ${DURATION} --direct"
    " --write-bytes 4194304 --file ${RESULTS_DIR}/fig1.data\n"
    "  duration: 1\n"
    "  throughput:\n"
    "    regex: 'throughput: ([0-9.]+) requests/s'\n"
    "    unit: requests/s\n"
    "runs: 5\n"
    "analysis:\n"
    "  target: " PROGRAM "\n";

/* The tiny project's build: fig1 as the project builds it (frame pointers, no
 * tail calls, for its stacks). */
static const char makefile_text[] =
    "BUILD ?= build\n"
    "$(BUILD)/" PROGRAM ": synthetic/fig1.c synthetic/*.h include/*.h\n"
    "\t@mkdir -p $(@D)\n"
    "\t$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer "
    "-fno-optimize-sibling-calls -Iinclude $< -lpthread -lm -o $@\n";

/* A scenario whose load is a program that does not exist. */
static const char broken_text[] = "name: " BROKEN "\n"
				  "tags: [ci]\n"
				  "load:\n"
				  "  command: ./no-such-load --duration ${DURATION}\n"
				  "  duration: 1\n"
				  "  throughput:\n"
				  "    regex: 'throughput: ([0-9.]+) requests/s'\n"
				  "runs: 5\n";

/* git in the repository, which must succeed. */
#define GIT(...) E2E_GIT(&out, repo, __VA_ARGS__)

/* ---- the steps ---- */

/* check-perf as the template's gate step runs it, from the repository, on
 * what (the scenarios folder, or one of its files), runs pairs at its first
 * look and max_runs at the most, within budget at alpha (NULL: the defaults); its
 * exit status, which must be status, and the check it wrote, read back. */
static void check_perf(const char *runs, const char *max_runs, const char *what, const char *budget,
		       const char *alpha, int status, struct wperf_check *c)
{
	struct wperf_buf text = {0}, md = {0};
	struct wperf_error err = {0};
	char path[PATH_MAX + 16], base[41], head[41];

	e2e_git_rev(repo, "main", base);
	e2e_git_rev(repo, "HEAD", head);
	e2e_shell("rm -rf '%s'", check); /* no earlier step's summary to read */
	e2e_run_in(&out, repo, bench, "check-perf", "--base", "main", "--runs", runs, "--max-runs",
		   max_runs, "--results", check, what, "--alpha", alpha ? alpha : "0.05",
		   budget ? "--budget" : NULL, budget, NULL);
	snprintf(path, sizeof(path), "%s/summary.md", check);
	if (access(path, F_OK) < 0)
		fail_msg("check-perf: exit %d (want %d), no %s\n%s", out.status, status, path,
			 out.err);
	e2e_read_file(path, &md);
	if (out.status != status)
		fail_msg("check-perf: exit %d (want %d)\n%s\n%s", out.status, status, out.err,
			 (const char *)md.data);
	wperf_buf_release(&md);
	snprintf(path, sizeof(path), "%s/summary.json", check);
	e2e_read_file(path, &text);
	if (wperf_check_from_json(path, (const char *)text.data, text.len - 1, c, &err) < 0)
		fail_msg("%s", err.msg);
	wperf_buf_release(&text);
	/* base main, run in turns with the head, the pull request's commit */
	assert_true(c->base_mode);
	assert_string_equal(c->base_ref, "main");
	assert_string_equal(c->base_commit, base);
	assert_string_equal(c->head_commit, head);
	assert_false(c->head_dirty);
}

/* The scenario named name of c. */
static const struct wperf_check_scenario *scenario(const struct wperf_check *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->scenarios[i].name, name))
			return &c->scenarios[i];
	fail_msg("no scenario %s in the check", name);
	return NULL;
}

/* The artifact: the template saves the pull request's number in the results
 * folder, then uploads it whole; the comment workflow downloads it into
 * comment_job/check-perf. */
static void upload_and_download(void)
{
	e2e_shell("echo 7 > '%s/pr-number' && rm -rf '%s' && cp -r '%s' '%s'", check, artifact,
		  check, artifact);
}

/* post as the same-repository job of wperf-bench.yml runs it: from the
 * repository, the pull request from the event, the token when given. */
static void post_from_the_job(const char *token_env)
{
	forge_post(&out, repo,
		   FORGE_ENV(token_env, "GITHUB_REPOSITORY=o/r", event_env, api_env, summary_env,
			     "GITHUB_SERVER_URL=https://github.example", "GITHUB_RUN_ID=4711"),
		   FORGE_ENV(check));
}

/* post as wperf-bench-comment.yml runs it: elsewhere, on the downloaded
 * artifact, the number read from it, with a token that may write. */
static void post_from_the_comment_workflow(void)
{
	struct wperf_buf pr = {0};
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/pr-number", artifact);
	e2e_read_file(path, &pr);
	assert_string_equal((const char *)pr.data, "7\n");
	wperf_buf_release(&pr);
	forge_post(&out, comment_job, FORGE_ENV(forge_token_env, "GITHUB_REPOSITORY=o/r", api_env),
		   FORGE_ENV("--pr", "7", "--artifacts-url", RUN_URL, ARTIFACT_DIR));
}

static void expect(int status, const char *where, const char *text)
{
	const char *in = !strcmp(where, "out") ? out.out : out.err;

	if (out.status != status || (text && !strstr(in, text)))
		fail_msg("post: exit %d (want %d), std%s lacks \"%s\"\n--- stdout:\n%s\n--- "
			 "stderr:\n%s",
			 out.status, status, where, text ? text : "", out.out, out.err);
}

/* The one comment on the server, into body; it must be the one of before. */
static void the_one_comment(struct wperf_buf *body)
{
	long id = 0;

	assert_int_equal(forge_marked(FORGE_MARKER, body, &id), 1);
	assert_int_equal(forge_comments(), 1);
	if (comment_id)
		assert_int_equal(id, comment_id);
	comment_id = id;
}

static void assert_has(const struct wperf_buf *b, const char *text)
{
	if (!strstr((const char *)b->data, text))
		fail_msg("lacks \"%s\":\n%s", text, (const char *)b->data);
}

/* Does [from, end) hold text? */
static int has(const char *from, const char *end, const char *text)
{
	return memmem(from, (size_t)(end - from), text, strlen(text)) != NULL;
}

/* Where B waits now, in the comment: the differential flame graph's file in
 * the scenario's folder, and, first of the stacks that grew, B's new wait for
 * D (the plant's): blocked on the condition variable's futex, woken by D's
 * pthread_cond_signal. (Debian's glibc has no frame pointers: B's stack shows
 * the futex wait inside pthread_cond_wait, not pthread_cond_wait itself.) */
static void assert_grew(const struct wperf_buf *b)
{
	const char *text = (const char *)b->data, *grew, *end;
	char path[PATH_MAX + 64];

	assert_has(b, "where its waits changed: `waits-diff.svg` in it");
	snprintf(path, sizeof(path), "%s/%s/waits-diff.svg", check, SCENARIO);
	if (access(path, R_OK) < 0)
		fail_msg("no %s", path);
	grew = strstr(text, "The wait stacks that grew most");
	assert_non_null(grew);
	grew = strstr(grew, "\n- `");
	assert_non_null(grew);
	end = strchr(grew + 1, '\n');
	if (!end || !has(grew, end, PROGRAM "/B->" NEW_VERTEX ";") ||
	    !has(grew, end, "__futex_abstimed_wait_common") || !has(grew, end, ";--;") ||
	    !has(grew, end, "pthread_cond_signal"))
		fail_msg("the first stack that grew is not B's wait for D:\n%.*s",
			 end ? (int)(end - grew) : 200, grew);
}

/* The token reached the API in every request, and nothing else. */
static void assert_token_kept(const char *summary)
{
	struct forge_request r[64];
	size_t n = forge_requests(r, 64);

	forge_assert_token_unsaid(&out);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(r[i].auth, forge_bearer);
	forge_assert_token_not_in(check);
	forge_assert_token_not_in(artifact);
	forge_assert_token_not_in(summary);
}

/* ---- the pushes ---- */

/* What the first push also does: it loosens its own gate, a throughput 90%
 * lower and any edge ten times heavier let through, every knot and edge of
 * the program accepted, and the scenario taken out of the ci tag. The base
 * decides the bar: none of it applies. */
static const char loosened_gate[] = "gate:\n"
				    "  throughput_tolerance: 0.9\n"
				    "  edge_tolerance: 10\n";
static const char accepting_baseline[] = "format: wperf-baseline/1\n"
					 "scenario: " SCENARIO "\n"
					 "runs: 1\n"
					 "accepted:\n"
					 "- knot: ['" PROGRAM "/*', 'disk:*', 'kworker/*']\n"
					 "  reason: this pull request accepts its own bottleneck\n"
					 "- edge: {from: '*', to: '*'}\n"
					 "  reason: and every wait\n";

/* Does s list the settings change that contains text? */
static void assert_setting_listed(const struct wperf_check_scenario *s, const char *text)
{
	for (size_t i = 0; i < s->nsettings_changed; i++)
		if (strstr(s->settings_changed[i], text))
			return;
	fail_msg("no settings change lists \"%s\" (%zu listed%s%s)", text, s->nsettings_changed,
		 s->nsettings_changed ? ", the first: " : "",
		 s->nsettings_changed ? s->settings_changed[0] : "");
}

/* 1, 2: the base on main, the pull request's first push plants D, and
 * loosens its own gate in the same commit. */
static void a_new_bottleneck_fails_the_gate(void **state)
{
	struct wperf_check c;
	const struct wperf_check_scenario *s;
	int named = 0;

	(void)state;
	e2e_require_bpf();
	GIT("checkout", "-q", "-b", "pr");
	e2e_shell("sed -i 's/^\\tapp.write_bytes = 4096;$/&\\n\\t" PLANT "/' '%s' && "
		  "grep -q '" PLANT "' '%s'",
		  e2e_join(repo, "synthetic/fig1.c"), e2e_join(repo, "synthetic/fig1.c"));
	e2e_shell("sed -i 's/^tags: \\[ci\\]$/tags: [nightly]/' '%s' && grep -q nightly '%s' && "
		  "printf '%%s' '%s' >> '%s' && mkdir -p '%s'",
		  e2e_join(repo, "scenarios/" SCENARIO ".yaml"),
		  e2e_join(repo, "scenarios/" SCENARIO ".yaml"), loosened_gate,
		  e2e_join(repo, "scenarios/" SCENARIO ".yaml"), e2e_join(repo, "baselines"));
	e2e_write_file(e2e_join(repo, "baselines/" SCENARIO ".yaml"), accepting_baseline);
	GIT("add", "-A");
	GIT("commit", "-q", "-m", "fig1: B waits for D on every request (and the gate lets it)");

	/* At 5 pairs D joining the knot cannot pass its tests' correction yet
	 * (Fisher's p 0.004 at best) while the throughput already fails: the
	 * check looks again at 8 rather than stop at "regression". */
	check_perf("5", "8", "scenarios", NULL, NULL, 1, &c);
	assert_int_equal(c.n, 1);
	s = scenario(&c, SCENARIO);
	assert_false(s->error);
	e2e_verdict_is(s, WPERF_VERDICT_NEW_BOTTLENECK, check);
	assert_non_null(strstr(out.err, "could tell a throughput change of"));
	for (size_t i = 0; i < s->verdict.nfindings; i++) {
		const struct wperf_finding *f = &s->verdict.findings[i];

		if (f->level != WPERF_LEVEL_FAIL)
			continue;
		named |=
		    f->kind == WPERF_FINDING_VERTEX && f->vertex && !strcmp(f->vertex, NEW_VERTEX);
		named |=
		    f->kind == WPERF_FINDING_EDGE && ((f->from && !strcmp(f->from, NEW_VERTEX)) ||
						      (f->to && !strcmp(f->to, NEW_VERTEX)));
	}
	if (!named)
		fail_msg("no failing finding names " NEW_VERTEX "\n%s", out.err);
	assert_setting_listed(s, "scenarios/" SCENARIO ".yaml: gate.throughput_tolerance: absent "
				 "-> 0.9");
	assert_setting_listed(s, "scenarios/" SCENARIO ".yaml: tags[0]: ci -> nightly");
	assert_setting_listed(s, "baselines/" SCENARIO ".yaml: accepted[0].knot[0]: absent -> "
				 "\"" PROGRAM "/*\"");
	assert_false(c.trust_head_settings);
	wperf_check_release(&c);
	upload_and_download();
}

/* 3, 4: the same-repository job: one comment, the job summary, exit 1. */
static void the_job_comments_once(void **state)
{
	const char *summary = e2e_tmp_path("summary-1.md"), *md;
	struct wperf_buf body = {0}, text = {0};

	(void)state;
	e2e_require_bpf();
	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	post_from_the_job(forge_token_env);
	expect(1, "out", "comment created https://github.example/o/r/pull/7#issuecomment-");
	assert_string_equal(forge_answers(), "GET 200, POST 201");
	the_one_comment(&body);
	assert_has(&body, FORGE_MARKER "\n**wperf-bench: 1 new bottleneck in 1 scenario**\n");
	assert_has(&body, "| `" SCENARIO "` | **new-bottleneck** |");
	assert_has(&body, "`" NEW_VERTEX "`");
	assert_has(&body, "[Artifacts](" RUN_URL ")");
	assert_has(&body, "**Gate settings changed by this pull request**: not applied");
	assert_has(&body, "- `" SCENARIO "`: `scenarios/" SCENARIO ".yaml: "
			  "gate.throughput_tolerance: absent -> 0.9`\n");
	assert_grew(&body);
	/* the job summary: the same Markdown, without the marker; a blank line
	 * after it keeps the next step's summary apart */
	md = (const char *)body.data + strlen(FORGE_MARKER "\n");
	e2e_read_file(summary, &text);
	if (strncmp((const char *)text.data, md, strlen(md)) ||
	    strcmp((const char *)text.data + strlen(md), "\n"))
		fail_msg("the job summary is not the comment's Markdown:\n%s",
			 (const char *)text.data);
	assert_token_kept(summary);
	wperf_buf_release(&body);
	wperf_buf_release(&text);
}

/* 5: a fork's pull request: the job without a token writes the summary and
 * posts nothing; the comment workflow finds the comment and leaves it. */
static void the_fork_path_keeps_one_comment(void **state)
{
	const char *summary = e2e_tmp_path("summary-fork.md");
	struct wperf_buf before = {0}, body = {0}, text = {0};
	size_t requests_before;
	struct forge_request r[64];

	(void)state;
	e2e_require_bpf();
	the_one_comment(&before);
	requests_before = forge_requests(r, 64);
	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	post_from_the_job("GITHUB_TOKEN=");
	expect(1, "err", "no token in $GITHUB_TOKEN: the pull-request comment is skipped");
	assert_int_equal(forge_requests(r, 64), requests_before);
	e2e_read_file(summary, &text);
	assert_has(&text, "**wperf-bench: 1 new bottleneck in 1 scenario**");

	post_from_the_comment_workflow();
	expect(1, "out", "comment unchanged");
	assert_int_equal(forge_requests(r, 64), requests_before + 1);
	assert_string_equal(r[requests_before].method, "GET");
	the_one_comment(&body);
	assert_string_equal((const char *)body.data, (const char *)before.data);
	assert_token_kept(summary);
	wperf_buf_release(&before);
	wperf_buf_release(&body);
	wperf_buf_release(&text);
}

/* 6: the next push reverts the plant: the check passes (exit 0), in the same
 * comment, which no longer names the planted vertex. The head is the base's
 * code again, so its verdict is the gate's on noise: "pass", or as often as
 * the gate's levels allow, "improved" (q <= alpha) or "inconclusive" (a change
 * past the tolerance that the runs could not tell from noise: the clean-clone
 * CI's ASan build saw -5.2% at 8 runs a side), neither of which fails. */
static void the_fix_passes_in_the_same_comment(void **state)
{
	const char *summary = e2e_tmp_path("summary-2.md");
	struct wperf_check c;
	struct wperf_buf body = {0};
	const struct wperf_check_scenario *s;
	enum wperf_verdict_kind kind;
	char row[64];

	(void)state;
	e2e_require_bpf();
	GIT("revert", "--no-edit", "HEAD");
	/* Into the same folder: the earlier's is emptied. With a budget of a
	 * second, which the first look (5 pairs) already spends, and the alpha a
	 * check of ten scenarios gives each: at 5 runs no new vertex could fail
	 * at it (Fisher's 1/252 is over its share of 0.005), so the check goes
	 * on to the 8 that can, the budget notwithstanding. */
	check_perf("5", "8", "scenarios", "1", "0.005", 0, &c);
	assert_int_equal(c.n, 1);
	s = scenario(&c, SCENARIO);
	assert_false(s->error);
	assert_int_equal(s->pairs, 8);
	assert_true(s->verdict.presence > 0);
	kind = s->verdict.kind;
	if (kind != WPERF_VERDICT_IMPROVED && kind != WPERF_VERDICT_INCONCLUSIVE)
		e2e_verdict_is(s, WPERF_VERDICT_PASS, check);
	snprintf(row, sizeof(row), "| `" SCENARIO "` | %s |", wperf_verdict_name(kind));
	wperf_check_release(&c);
	upload_and_download();

	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	post_from_the_job(forge_token_env);
	expect(0, "out", "comment updated https://github.example/o/r/pull/7#issuecomment-");
	the_one_comment(&body);
	assert_has(&body, kind == WPERF_VERDICT_INCONCLUSIVE
			      ? FORGE_MARKER "\n**wperf-bench: 1 inconclusive in 1 scenario**"
			      : FORGE_MARKER "\n**wperf-bench: 1 scenario passes");
	assert_has(&body, row);
	if (strstr((const char *)body.data, NEW_VERTEX))
		fail_msg("the fix's comment still names " NEW_VERTEX ":\n%s",
			 (const char *)body.data);
	assert_token_kept(summary);
	wperf_buf_release(&body);
}

/* A pull request that adds a scenario: the base has none, so its runs are
 * compared with nothing and the check passes, saying why; then it goes. Only
 * it is checked: the other scenario's pairs would say what the fix's did. */
static void a_new_scenario_is_compared_with_nothing(void **state)
{
	char text[2048];
	const struct wperf_check_scenario *s;
	struct wperf_check c;

	(void)state;
	e2e_require_bpf();
	snprintf(text, sizeof(text), scenario_text, e2e_marker());
	memcpy(strstr(text, SCENARIO), "fig1-nu", strlen("fig1-nu"));
	e2e_write_file(e2e_join(repo, "scenarios/fig1-nu.yaml"), text);
	GIT("add", "scenarios");
	GIT("commit", "-q", "-m", "a second scenario");
	check_perf("5", "8", "scenarios/fig1-nu.yaml", NULL, NULL, 0, &c);
	assert_int_equal(c.n, 1);
	s = scenario(&c, "fig1-nu");
	assert_false(s->error);
	e2e_verdict_is(s, WPERF_VERDICT_PASS, check);
	assert_int_equal(s->pairs, 5);
	assert_false(s->verdict.paired);
	assert_non_null(s->reason);
	assert_non_null(strstr(s->reason, "a new scenario: the base has none"));
	assert_string_equal(s->dir, "fig1-nu");
	wperf_check_release(&c);
	GIT("rm", "-q", "scenarios/fig1-nu.yaml");
	GIT("commit", "-q", "-m", "one scenario is enough");
}

/* 7: main gains a scenario that cannot run, the pull request merges it:
 * check-perf exit 2, and so post, whose comment says which and why. */
static void a_scenario_that_cannot_run(void **state)
{
	const char *summary = e2e_tmp_path("summary-3.md");
	struct wperf_check c;
	const struct wperf_check_scenario *s;
	struct wperf_buf body = {0};
	int gate;

	(void)state;
	e2e_require_bpf();
	GIT("checkout", "-q", "main");
	e2e_write_file(e2e_join(repo, "scenarios/" BROKEN ".yaml"), broken_text);
	GIT("add", "scenarios");
	GIT("commit", "-q", "-m", "a scenario whose load is missing");
	GIT("checkout", "-q", "pr");
	GIT("merge", "-q", "--no-edit", "main");

	/* two runs a side, the fewest: of the other scenario, that it ran */
	check_perf("2", "2", "scenarios", NULL, NULL, 2, &c);
	gate = out.status; /* the gate's, for post to keep */
	assert_int_equal(c.n, 2);
	s = scenario(&c, BROKEN);
	assert_true(s->error);
	assert_non_null(s->reason);
	if (!strstr(s->reason, "the load exited with status 127") ||
	    !strstr(s->reason, "no-such-load: not found"))
		fail_msg("the reason: %s", s->reason);
	assert_null(strchr(s->reason, '\n')); /* one line */
	assert_false(scenario(&c, SCENARIO)->error);
	wperf_check_release(&c);
	upload_and_download();

	snprintf(summary_env, sizeof(summary_env), "GITHUB_STEP_SUMMARY=%s", summary);
	post_from_the_job(forge_token_env);
	expect(gate, "out", "comment updated");
	the_one_comment(&body);
	/* whatever the other scenario's verdict (an edge may be inconclusive) */
	assert_has(&body, "**wperf-bench: 1 could not run");
	assert_has(&body, " in 2 scenarios**");
	assert_has(&body, "| `" BROKEN "` | **error** |");
	assert_has(&body, "the load exited with status 127; the end of ");
	assert_has(&body, "./no-such-load: not found |");
	post_from_the_comment_workflow();
	expect(gate, "out", "comment");
	the_one_comment(&body);
	assert_token_kept(summary);
	wperf_buf_release(&body);
}

/* Last: what the checks started is gone. */
static void nothing_is_left(void **state)
{
	(void)state;
	e2e_require_bpf();
	e2e_assert_nothing_left();
}

/* ---- the repository ---- */

/* The base on main: fig1 with the headers it includes, the Makefile, the
 * scenario. */
static int make_repo(void **state)
{
	char text[2048], source[PATH_MAX];

	(void)state;
	if (!realpath(e2e_path("wperf-bench"), bench) || !getcwd(source, sizeof(source)))
		return -1;
	repo = strdup(e2e_tmp_path("repo"));
	check = strdup(e2e_tmp_path("check"));
	comment_job = strdup(e2e_tmp_path("comment-job"));
	snprintf(artifact, sizeof(artifact), "%s/" ARTIFACT_DIR, comment_job);
	snprintf(api_env, sizeof(api_env), "GITHUB_API_URL=%s", forge_url);
	snprintf(event_env, sizeof(event_env), "GITHUB_EVENT_PATH=%s", e2e_tmp_path("event.json"));
	e2e_write_file(
	    strchr(event_env, '=') + 1,
	    "{\"action\": \"synchronize\", \"number\": 7, \"pull_request\": {\"number\": 7}}\n");
	e2e_shell("mkdir -p '%s/synthetic' '%s/include' '%s/scenarios' '%s' && "
		  "cp '%s'/synthetic/fig1.c '%s'/synthetic/*.h '%s/synthetic/' && "
		  "cp '%s'/include/*.h '%s/include/'",
		  repo, repo, repo, comment_job, source, source, repo, source, repo);
	e2e_write_file(e2e_join(repo, "Makefile"), makefile_text);
	e2e_write_file(e2e_join(repo, ".gitignore"), "build/\n");
	snprintf(text, sizeof(text), scenario_text, e2e_marker());
	e2e_write_file(e2e_join(repo, "scenarios/" SCENARIO ".yaml"), text);
	e2e_git_init(repo, "fig1, built and checked");
	return 0;
}

static int setup(void **state)
{
	forge_start(NULL);
	return make_repo(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_new_bottleneck_fails_the_gate),
	    cmocka_unit_test(the_job_comments_once),
	    cmocka_unit_test(the_fork_path_keeps_one_comment),
	    cmocka_unit_test(the_fix_passes_in_the_same_comment),
	    cmocka_unit_test(a_new_scenario_is_compared_with_nothing),
	    cmocka_unit_test(a_scenario_that_cannot_run),
	    cmocka_unit_test(nothing_is_left),
	};

	if (forge_setup() < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, forge_stop);
}
