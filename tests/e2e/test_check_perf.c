/* SPDX-License-Identifier: MIT */
/*
 * `wperf-bench check-perf` on its own rules, with nothing recorded: bad usage
 * is refused with a reason, a folder that holds anything but an earlier check
 * is never emptied, an earlier check's folder is, and a scenario that cannot
 * even be loaded is that scenario's error (exit status 2) in summary.json,
 * summary.md and junit.xml, not the end of the check. The check's runs,
 * base against head, are in test_git.c (ab) and test_pr_flow.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/gate/check.h"
#include "harness/base/output.h"
#include "tests/lib/e2e.h"

static struct e2e_output out;

static void write_text(const char *path, const char *text)
{
	struct wperf_error err = {0};

	if (output_write(path, text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg);
}

static void bad_usage_is_refused(void **state)
{
	(void)state;
	e2e_bench(&out, "check-perf", "--tag", "no-such-tag", "scenarios", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "no scenario is tagged no-such-tag"));
	e2e_bench(&out, "check-perf", "--base", "HEAD", "--baseline-ref", "HEAD", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "--base and --baseline-ref exclude each other"));
	e2e_bench(&out, "check-perf", "--alpha", "0.7", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "--alpha wants a number above 0 and below 0.5"));
	e2e_bench(&out, "check-perf", "--runs", "8", "--max-runs", "5", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "--max-runs 5 is below --runs 8"));
	e2e_bench(&out, "check-perf", "no/such/folder", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "no/such/folder: No such file or directory"));
}

/* A scenario tagged ci whose file does not load: selected, and its error. */
static const char *broken_scenario(void)
{
	const char *path = e2e_tmp_path("broken.yaml");

	write_text(path, "name: broken\ntags: [ci]\nload:\n  command: true\n  durationn: 1\n");
	return path;
}

static void a_foreign_folder_is_never_emptied(void **state)
{
	const char *dir = e2e_tmp_path("foreign"), *keep = e2e_tmp_path("foreign/keep.txt");

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	write_text(keep, "mine\n");
	e2e_bench(&out, "check-perf", "--results", dir, broken_scenario(), NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "is not empty and holds no earlier check"));
	assert_int_equal(access(keep, F_OK), 0);
	/* A run's summary.json is no check's. */
	write_text(e2e_tmp_path("foreign/summary.json"), "{\"format\": \"wperf-results/1\"}\n");
	e2e_bench(&out, "check-perf", "--results", dir, broken_scenario(), NULL);
	assert_int_equal(out.status, 2);
	assert_int_equal(access(keep, F_OK), 0);
}

static void a_scenario_that_cannot_load_is_its_error(void **state)
{
	const char *dir = e2e_tmp_path("check"), *stray = e2e_tmp_path("check/stray");
	char path[600];
	struct wperf_buf text = {0};
	struct wperf_check c = {0};
	struct wperf_error err = {0};

	(void)state;
	e2e_bench(&out, "check-perf", "--results", dir, broken_scenario(), NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "[1/1] broken: error"));
	assert_non_null(strstr(out.err, "load.durationn: unknown key"));

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	assert_int_equal(output_read_all(path, &text, &err), 0);
	if (wperf_check_from_json(path, (const char *)text.data, text.len, &c, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c.n, 1);
	assert_true(c.scenarios[0].error);
	assert_string_equal(c.scenarios[0].name, "broken");
	assert_string_equal(c.scenarios[0].dir, "broken");
	assert_non_null(strstr(c.scenarios[0].reason, "durationn"));
	assert_false(c.base_mode);
	wperf_check_release(&c);

	wperf_buf_clear(&text);
	snprintf(path, sizeof(path), "%s/junit.xml", dir);
	assert_int_equal(output_read_all(path, &text, &err), 0);
	assert_int_equal(wperf_buf_append(&text, "", 1), 0);
	assert_non_null(strstr((char *)text.data, "<error"));
	wperf_buf_clear(&text);
	snprintf(path, sizeof(path), "%s/summary.md", dir);
	assert_int_equal(output_read_all(path, &text, &err), 0);
	assert_int_equal(wperf_buf_append(&text, "", 1), 0);
	assert_non_null(strstr((char *)text.data, "could not run"));

	/* The same folder again: the earlier check is emptied, then made anew. */
	write_text(stray, "left by the earlier check\n");
	e2e_bench(&out, "check-perf", "--results", dir, broken_scenario(), NULL);
	assert_int_equal(out.status, 2);
	assert_int_not_equal(access(stray, F_OK), 0);
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	assert_int_equal(access(path, F_OK), 0);
	wperf_buf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bad_usage_is_refused),
	    cmocka_unit_test(a_foreign_folder_is_never_emptied),
	    cmocka_unit_test(a_scenario_that_cannot_load_is_its_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
