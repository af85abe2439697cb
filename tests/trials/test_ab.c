/* SPDX-License-Identifier: MIT */
/*
 * `wperf-bench ab` for real, in a test repository made with the git program:
 * the base commit and the work tree run in turns, pair after pair, each
 * recorded by the kernel and built in its own tree, and the head's new
 * blocking wait (B waits for a thread D) fails as a new bottleneck named by
 * fig1/D. A trial of the gate: its verdict needs 8 runs a side (make trials).
 */
#include <errno.h>
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

#include "harness/base/output.h"
#include "harness/run/results.h"
#include "tests/lib/e2e.h"

static struct e2e_output out;
static char bench[PATH_MAX + 16]; /* wperf-bench, absolute: it runs in the repository */
static char build[PATH_MAX];	  /* the build folder, absolute */

/* git in dir, which must succeed. */
#define GIT(dir, ...) E2E_GIT(&out, dir, __VA_ARGS__)

/* wperf-bench in dir. */
#define BENCH(dir, ...) e2e_run_in(&out, dir, bench, __VA_ARGS__, NULL)

/* Figure 1 with its build step: the program copied into the tree's build/. */
#define AB_SCENARIO                                                                                \
	"name: fig1-ab\n"                                                                          \
	"build:\n"                                                                                 \
	"  - mkdir -p ${BUILD_DIR}/synthetic\n"                                                    \
	"  - cp %s ${BUILD_DIR}/synthetic/fig1\n"                                                  \
	"  - echo built in $PWD\n"                                                                 \
	"load:\n"                                                                                  \
	"  command: sh fig1.sh ${BUILD_DIR} ${DURATION} ${RESULTS_DIR}\n"                          \
	"  duration: 1\n"                                                                          \
	"  throughput:\n"                                                                          \
	"    regex: 'throughput: ([0-9.]+) requests/s'\n"                                          \
	"    unit: requests/s\n"                                                                   \
	"runs: 5\n"                                                                                \
	"analysis:\n"                                                                              \
	"  target: fig1\n"

/* The load's script, the code the change is in: each side runs its own
 * tree's (the scenario file is the base's on both). */
#define AB_LOAD                                                                                    \
	"exec \"$1/synthetic/fig1\" --duration \"$2\" --direct --write-bytes 4194304 --file "      \
	"\"$3/fig1.data\"%s\n"

/* When run's trace was written, in nanoseconds. */
static int64_t trace_time(const char *results, int run)
{
	char path[700];
	struct stat st;

	snprintf(path, sizeof(path), "%s/runs/%d/wperf.trace", results, run);
	if (stat(path, &st) < 0)
		fail_msg("%s: %s", path, strerror(errno));
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

static void ab_finds_the_added_wait(void **state)
{
	const char *repo = e2e_tmp_path("ab"), *results = e2e_tmp_path("ab-out");
	const char *trees = e2e_tmp_path("trees");
	char text[PATH_MAX + 1024], path[700], fig1[PATH_MAX + 16], base[41], head[41];
	struct results side;
	struct wperf_error err = {0};
	struct wperf_buf log = {0};
	size_t runs;

	(void)state;
	e2e_require_bpf();
	assert_int_equal(mkdir(repo, 0755), 0);
	e2e_git_init(repo, "the start");
	snprintf(fig1, sizeof(fig1), "%s/synthetic/fig1", build);
	snprintf(path, sizeof(path), "%s/fig1-ab.yaml", repo);
	snprintf(text, sizeof(text), AB_SCENARIO, fig1);
	e2e_write_file(path, text);
	snprintf(path, sizeof(path), "%s/fig1.sh", repo);
	snprintf(text, sizeof(text), AB_LOAD, "");
	e2e_write_file(path, text);
	GIT(repo, "add", "fig1-ab.yaml", "fig1.sh");
	GIT(repo, "commit", "-q", "-m", "fig1");
	e2e_git_rev(repo, "HEAD", base);
	/* the head: B also waits for D's 8 ms of work per request, in the code */
	snprintf(text, sizeof(text), AB_LOAD, " --extra-wait-ms 8");
	e2e_write_file(path, text);
	GIT(repo, "commit", "-q", "-am", "fig1: wait for D");
	e2e_git_rev(repo, "HEAD", head);
	GIT(repo, "remote", "add", "origin", "https://someone:s3cret@example.com/o/r.git");
	assert_int_equal(mkdir(trees, 0755), 0);
	assert_int_equal(setenv("TMPDIR", trees, 1), 0);

	BENCH(repo, "ab", "--base", "HEAD~1", "-q", "-r", results, "fig1-ab.yaml");
	unsetenv("TMPDIR");
	if (out.status != 1 || !strstr(out.out, "new-bottleneck"))
		fail_msg("ab: %d\n%s%s", out.status, out.out, out.err);
	assert_non_null(strstr(out.out, "fig1/D"));

	/* both sides complete, the same runs each (at least the scenario's five:
	 * more while the verdict was unclear), from their own commits */
	snprintf(path, sizeof(path), "%s/base", results);
	if (results_read(path, &side, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(side.complete);
	runs = side.runs.nruns;
	assert_true(runs >= 5);
	assert_string_equal(side.git.commit, base);
	assert_string_equal(side.git.repository, "https://example.com/o/r.git");
	assert_string_equal(side.verdict, "");
	results_release(&side);
	snprintf(path, sizeof(path), "%s/head", results);
	if (results_read(path, &side, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(side.complete);
	assert_int_equal(side.runs.nruns, runs);
	assert_string_equal(side.git.commit, head);
	assert_string_equal(side.git.branch, "main");
	assert_false(side.git.dirty);
	assert_string_equal(side.verdict, "new-bottleneck");
	snprintf(path, sizeof(path), "the base commit %.12s, %zu runs", base, runs);
	assert_non_null(strstr(side.baseline_from, path));
	results_release(&side);
	snprintf(path, sizeof(path), "%s/base.yaml", results);
	assert_int_equal(access(path, F_OK), 0);

	/* in turns, pair after pair, base first in odd pairs, head first in even */
	snprintf(path, sizeof(path), "%s/base", results);
	snprintf(text, sizeof(text), "%s/head", results);
	for (int i = 1; i <= (int)runs; i++) {
		int64_t b = trace_time(path, i), h = trace_time(text, i);

		assert_true(i % 2 ? b < h : h < b);
		if (i < (int)runs) {
			assert_true(b < trace_time(path, i + 1) && b < trace_time(text, i + 1));
			assert_true(h < trace_time(path, i + 1) && h < trace_time(text, i + 1));
		}
	}

	/* each tree was built where it is; the base's is gone */
	snprintf(path, sizeof(path), "%s/base/build.log", results);
	assert_int_equal(output_read_all(path, &log, &err), 0);
	assert_int_equal(wperf_buf_append(&log, "", 1), 0);
	snprintf(text, sizeof(text), "built in %s/wperf-base-", trees);
	assert_non_null(strstr((char *)log.data, text));
	wperf_buf_clear(&log);
	snprintf(path, sizeof(path), "%s/head/build.log", results);
	assert_int_equal(output_read_all(path, &log, &err), 0);
	assert_int_equal(wperf_buf_append(&log, "", 1), 0);
	snprintf(text, sizeof(text), "built in %s\n", repo);
	assert_non_null(strstr((char *)log.data, text));
	e2e_run_in(&out, trees, "find", ".", "-mindepth", "1", NULL);
	assert_string_equal(out.out, "");
	assert_int_equal(e2e_recorder_programs_linger(), 0);
	wperf_buf_release(&log);

	/* a base without the scenario */
	BENCH(repo, "ab", "--base", "HEAD~2", "-q", "-r", e2e_tmp_path("ab-none"), "fig1-ab.yaml");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "fig1-ab.yaml is not in the base commit"));
}

int main(void)
{
	if (!realpath(e2e_path(""), build)) {
		perror("the build folder");
		return 1;
	}
	snprintf(bench, sizeof(bench), "%s/wperf-bench", build);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(ab_finds_the_added_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
