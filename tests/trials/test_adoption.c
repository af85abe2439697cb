/* SPDX-License-Identifier: MIT */
/*
 * Another project adopts wperf-bench: a git repository made in a temporary
 * folder holds a small key-value server of its own (tests/data/adoption: no
 * file of this tree), its Makefile, two scenarios under perf/ and a
 * .wperf-bench.yaml; the only wperf-bench is the one `make install DESTDIR=`
 * put under a temporary root, run from inside the repository. Recorded by the
 * kernel:
 *
 *   1. `baseline update` makes the baseline; `check-perf` passes the same code
 *      against it;
 *   2. a change makes every request wait for one audit thread: `check-perf
 *      --base main`, in `--shard 1/2` and `--shard 2/2` then `--merge`, fails
 *      in both scenarios, its findings naming server/audit.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/gate/check.h"
#include "core/util/buf.h"
#include "tests/lib/e2e.h"

#define AUDIT_VERTEX "server/audit"

static struct e2e_output out;
static char bench[PATH_MAX]; /* the installed wperf-bench */
static char repo[512];	     /* the project's repository */

/* The project's configuration: its scenarios and baselines under perf/, its
 * own tag, where its Makefile builds (each tree's build/) and the port its
 * scenarios use. */
static const char config_text[] = "scenarios: [perf]\n"
				  "baselines: perf/baselines\n"
				  "tag: pr\n"
				  "variables:\n"
				  "  BUILD_DIR: build\n"
				  "  PORT: 18734\n";

/* A scenario: the server as a service, the client as the load, CONNS
 * connections; every process carries the test's marker (%1$s, %2$s). The
 * client keeps both CPUs busy: its second of load is in the window because
 * the runner loads the recorder's programs before the load starts (a
 * recorder started beside it needed a second, and left windows of 25-46 ms). */
static const char scenario_text[] =
    "name: %3$s\n"
    "description: the key-value server under %4$d connections (test %1$s)\n"
    "tags: [pr]\n"
    "build:\n"
    "  - [make, -s, \"BUILD=${BUILD_DIR}\"]\n"
    "services:\n"
    "  server:\n"
    "    command: [env, \"%2$s\", \"${BUILD_DIR}/server\", \"${PORT}\"]\n"
    "    ready: {tcp: \"127.0.0.1:${PORT}\", timeout: 10s}\n"
    "load:\n"
    "  command: [env, \"%2$s\", \"${BUILD_DIR}/client\", \"${PORT}\", \"%4$d\", \"${DURATION}\"]\n"
    "  duration: 1s\n"
    "  throughput:\n"
    "    regex: 'throughput: (\\d+\\.\\d) requests/s'\n"
    "    unit: requests/s\n"
    "runs: 5\n"
    "analysis:\n"
    "  target: server\n";

static void write_scenario(const char *name, int conns)
{
	char text[2048], rel[128];

	snprintf(text, sizeof(text), scenario_text, e2e_marker_value(), e2e_marker(), name, conns);
	snprintf(rel, sizeof(rel), "perf/%s.yaml", name);
	e2e_write_file(e2e_join(repo, rel), text);
}

/* git in the repository, which must succeed. */
#define GIT(...) E2E_GIT(&out, repo, __VA_ARGS__)

/* The installed wperf-bench with the arguments up to NULL, from the folder
 * rel of the repository (check-perf finds the root itself). */
#define BENCH(rel, ...) e2e_run_in(&out, e2e_join(repo, rel), bench, __VA_ARGS__, NULL)

/* The check written to dir/summary.json. */
static void read_check(const char *dir, struct wperf_check *c)
{
	struct wperf_buf text = {0};
	struct wperf_error err = {0};
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	e2e_read_file(path, &text);
	if (wperf_check_from_json(path, (const char *)text.data, text.len - 1, c, &err) < 0)
		fail_msg("%s", err.msg);
	wperf_buf_release(&text);
}

static void expect_status(int status)
{
	if (out.status != status)
		fail_msg("exit %d, not %d\n--- stdout:\n%s\n--- stderr:\n%s", out.status, status,
			 out.out, out.err);
}

/* Does a failing finding of s name the audit thread? */
static int names_audit(const struct wperf_check_scenario *s)
{
	for (size_t i = 0; i < s->verdict.nfindings; i++) {
		const struct wperf_finding *f = &s->verdict.findings[i];

		if (f->level != WPERF_LEVEL_FAIL)
			continue;
		if ((f->vertex && !strcmp(f->vertex, AUDIT_VERTEX)) ||
		    (f->from && !strcmp(f->from, AUDIT_VERTEX)) ||
		    (f->to && !strcmp(f->to, AUDIT_VERTEX)))
			return 1;
	}
	return 0;
}

/* 1: the baseline, made from a folder of the repository with its config's
 * variables, into its config's baselines folder; the same code passes
 * against it. */
static void the_same_code_passes_its_baseline(void **state)
{
	const char *results = e2e_tmp_path("stored");
	struct wperf_check c;

	(void)state;
	e2e_require_bpf();
	BENCH("perf", "baseline", "update", "-q", "-r", e2e_tmp_path("baseline-runs"), "kv.yaml");
	expect_status(0);
	assert_int_equal(access(e2e_join(repo, "perf/baselines/kv.yaml"), R_OK), 0);
	GIT("add", "perf/baselines");
	GIT("commit", "-q", "-m", "the baseline of kv");
	/* the gate's own looks (up to 11 runs): identical code can suggest a
	 * change in one of its tests by chance, and more runs settle it */
	BENCH("perf", "check-perf", "-q", "--runs", "5", "--results", results, "kv.yaml");
	expect_status(0);
	read_check(results, &c);
	assert_int_equal(c.n, 1);
	assert_false(c.scenarios[0].error);
	if (c.scenarios[0].verdict.kind != WPERF_VERDICT_IMPROVED)
		e2e_verdict_is(&c.scenarios[0], WPERF_VERDICT_PASS, results);
	assert_false(c.base_mode);
	wperf_check_release(&c);
}

/* Does the check in dir hold exactly one scenario, failing by the audit
 * thread? Its name into name. */
static void one_failing_shard(const char *dir, char *name, size_t size)
{
	struct wperf_check c;

	read_check(dir, &c);
	assert_int_equal(c.n, 1);
	assert_true(c.base_mode);
	assert_false(c.scenarios[0].error);
	assert_true(wperf_verdict_exit_code(c.scenarios[0].verdict.kind));
	if (!names_audit(&c.scenarios[0]))
		fail_msg("%s: no failing finding names " AUDIT_VERTEX, c.scenarios[0].name);
	snprintf(name, size, "%s", c.scenarios[0].name);
	wperf_check_release(&c);
}

/*
 * 2, 3: every request waits for one audit thread: the gate fails, naming it,
 * checked as a CI matrix checks it, in two shards merged: each shard one of
 * the two scenarios, the merge both, with the shards' commits and exit
 * status. The looks go on by need: at 5 runs a side the thread's presence
 * cannot tell (Fisher's smallest p is 1/252), and whether an edge to it is
 * beyond the noise depends on the run. With --max-runs 8 the second look is
 * the last and spends what the first left: 8 of 8 runs against 0 of 8 fail
 * there (p 1/12870); the default maximum (17) spreads the level over five
 * looks, and the check ran to 11 runs a side. (One whole check besides the
 * shards would record the same scenarios again; step 1 and test_pr_flow
 * check unsharded.)
 */
static void a_planted_wait_fails_by_name_in_shards(void **state)
{
	struct wperf_check merged;
	char first[64], second[64];

	(void)state;
	e2e_require_bpf();
	GIT("checkout", "-q", "-b", "audit");
	e2e_shell("sed -i '1i #define AUDIT 1' '%s'", e2e_join(repo, "server.c"));
	GIT("commit", "-q", "-am", "server: every request is audited");
	BENCH("perf", "check-perf", "-q", "--base", "main", "--runs", "5", "--max-runs", "8",
	      "--shard", "1/2", "--results", e2e_tmp_path("shard-1"));
	expect_status(1);
	one_failing_shard(e2e_tmp_path("shard-1"), first, sizeof(first));
	BENCH("perf", "check-perf", "-q", "--base", "main", "--runs", "5", "--max-runs", "8",
	      "--shard", "2/2", "--results", e2e_tmp_path("shard-2"));
	expect_status(1);
	one_failing_shard(e2e_tmp_path("shard-2"), second, sizeof(second));
	/* the shards split the scenarios */
	assert_true((!strcmp(first, "kv") && !strcmp(second, "kv-two")) ||
		    (!strcmp(first, "kv-two") && !strcmp(second, "kv")));
	BENCH(".", "check-perf", "--merge", "--results", e2e_tmp_path("merged"),
	      e2e_tmp_path("shard-1"), e2e_tmp_path("shard-2"));
	expect_status(1);
	read_check(e2e_tmp_path("merged"), &merged);
	assert_int_equal(merged.n, 2);
	assert_true(merged.base_mode);
	for (size_t i = 0; i < merged.n; i++) {
		assert_true(!strcmp(merged.scenarios[i].name, first) ||
			    !strcmp(merged.scenarios[i].name, second));
		assert_true(wperf_verdict_exit_code(merged.scenarios[i].verdict.kind));
		assert_true(names_audit(&merged.scenarios[i]));
	}
	assert_string_not_equal(merged.scenarios[0].name, merged.scenarios[1].name);
	GIT("rev-parse", "HEAD");
	assert_int_equal(strncmp(merged.head_commit, out.out, 40), 0);
	GIT("rev-parse", "main");
	assert_int_equal(strncmp(merged.base_commit, out.out, 40), 0);
	wperf_check_release(&merged);
}

/* Last: what the checks started is gone. */
static void nothing_is_left(void **state)
{
	(void)state;
	e2e_require_bpf();
	e2e_assert_nothing_left();
}

/* The installed program, and the project on main, built. */
static int setup(void **state)
{
	const char *build = getenv("WPERF_BUILD");
	char source[PATH_MAX];

	(void)state;
	if (!getcwd(source, sizeof(source)))
		return -1;
	/* Not make test's jobserver, which it does not pass down to tests. */
	e2e_shell("env -u MAKEFLAGS -u MAKELEVEL make -s BUILD=%s install DESTDIR=%s PREFIX=/usr "
		  ">/dev/null",
		  build ? build : "build", e2e_tmp_path("root"));
	snprintf(bench, sizeof(bench), "%s/usr/bin/wperf-bench", e2e_tmp_path("root"));
	snprintf(repo, sizeof(repo), "%s", e2e_tmp_path("project"));
	e2e_shell("mkdir -p '%s/perf' && cp '%s'/tests/data/adoption/*.c "
		  "'%s'/tests/data/adoption/Makefile '%s/'",
		  repo, source, source, repo);
	e2e_write_file(e2e_join(repo, ".wperf-bench.yaml"), config_text);
	e2e_write_file(e2e_join(repo, ".gitignore"), "build/\n");
	write_scenario("kv", 4);
	write_scenario("kv-two", 2);
	e2e_git_init(repo, "a key-value server and its performance scenarios");
	/* BUILD given: make asan's BUILD=build/asan is in the environment too */
	e2e_shell("env -u MAKEFLAGS -u MAKELEVEL make -s -C '%s' BUILD=build >/dev/null", repo);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_same_code_passes_its_baseline),
	    cmocka_unit_test(a_planted_wait_fails_by_name_in_shards),
	    cmocka_unit_test(nothing_is_left),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
