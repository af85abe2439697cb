/* SPDX-License-Identifier: MIT */
/*
 * `wperf-bench check-perf` in a repository that is not this one, with nothing
 * recorded: run from a subfolder, it finds the root and its .wperf-bench.yaml
 * (scenario folder, tag, results folder, variables), --var wins over the
 * config, a bad config is refused at its line and column, and the shards of a
 * check merged give the scenarios and verdict of the unsharded check, while a
 * missing or doubled shard is refused. The scenarios are made not to load
 * (their name is a variable whose value is no name), so that each one's
 * outcome, an error whose reason quotes the variable's value, shows which
 * definition reached the scenario parser.
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
static char root[512], sub[600], bench[4200];

static void write_text(const char *path, const char *text)
{
	struct wperf_error err = {0};

	if (output_write(path, text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg);
}

static void write_in_root(const char *rel, const char *text)
{
	char path[800];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	write_text(path, text);
}

static const char config[] = "scenarios: [perf]\n"
			     "baselines: perf/baselines\n"
			     "tag: pr\n"
			     "results: out/check\n"
			     "variables:\n"
			     "  N: from config\n";

/* A repository with four scenarios tagged pr (a, b, c, d) and one that is not. */
static int make_repository(void **state)
{
	(void)state;
	/* The tests run it from elsewhere: its path from the root. */
	if (!realpath(e2e_path("wperf-bench"), bench))
		fail_msg("no %s", e2e_path("wperf-bench"));
	snprintf(root, sizeof(root), "%s", e2e_tmp_path("repo"));
	snprintf(sub, sizeof(sub), "%s/perf", root);
	e2e_shell("rm -rf '%s' && mkdir -p '%s' && git -C '%s' init -q", root, sub, root);
	write_in_root(".wperf-bench.yaml", config);
	for (const char *n = "abcd"; *n; n++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "perf/%c.yaml", *n);
		write_in_root(rel, "name: ${N}\ntags: [pr]\nload: {command: 'true'}\n");
	}
	write_in_root("perf/other.yaml", "name: other\ntags: [nightly]\nload: {command: 'true'}\n");
	return 0;
}

/* The check of folder dir (relative to the root), read back. */
static void read_check(const char *dir, struct wperf_check *c)
{
	char path[800];
	struct wperf_buf text = {0};
	struct wperf_error err = {0};

	snprintf(path, sizeof(path), "%s/%s/summary.json", root, dir);
	if (output_read_all(path, &text, &err) < 0 ||
	    wperf_check_from_json(path, (const char *)text.data, text.len, c, &err) < 0)
		fail_msg("%s", err.msg);
	wperf_buf_release(&text);
}

/* The scenarios' names of c, and that each one's reason quotes value. */
static void assert_scenarios(const struct wperf_check *c, const char *names, const char *value)
{
	assert_int_equal(c->n, strlen(names));
	for (size_t i = 0; i < c->n; i++) {
		char want[2] = {names[i], '\0'};

		assert_string_equal(c->scenarios[i].name, want);
		assert_true(c->scenarios[i].error);
		assert_non_null(strstr(c->scenarios[i].reason, value));
	}
}

static void the_config_is_found_from_a_subfolder(void **state)
{
	struct wperf_check c = {0};

	(void)state;
	e2e_run_in(&out, sub, bench, "check-perf", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "out/check/summary.md"));
	read_check("out/check", &c);
	assert_scenarios(&c, "abcd", "\"from config\"");
	wperf_check_release(&c);

	/* --var wins over the config. */
	e2e_run_in(&out, sub, bench, "check-perf", "--var", "N=from var", NULL);
	assert_int_equal(out.status, 2);
	read_check("out/check", &c);
	assert_scenarios(&c, "abcd", "\"from var\"");
	wperf_check_release(&c);
}

static void bad_input_is_refused(void **state)
{
	(void)state;
	e2e_run_in(&out, sub, bench, "check-perf", "--var", "1N=x", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "--var 1N: expected a name of letters"));
	e2e_run_in(&out, sub, bench, "check-perf", "--var", "RESULTS_DIR=x", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "wperf-bench's own"));
	e2e_run_in(&out, sub, bench, "check-perf", "--shard", "3/2", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "--shard wants I/N"));
	e2e_run_in(&out, sub, bench, "check-perf", "--shard", "5/5", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "shard 5/5 has no scenario: 4 are tagged pr"));

	write_in_root(".wperf-bench.yaml", "scenarios: [perf, /etc]\n");
	e2e_run_in(&out, sub, bench, "check-perf", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "/.wperf-bench.yaml:1:19: scenarios[1]: expected a path "
					"relative to the repository's root, without '..', found "
					"\"/etc\""));
	write_in_root(".wperf-bench.yaml", "tag: pr\nvariables: {DURATION: 3}\n");
	e2e_run_in(&out, sub, bench, "check-perf", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, ".wperf-bench.yaml:2:13: variables.DURATION: expected a "
					"name other than"));
	write_in_root(".wperf-bench.yaml", "tags: pr\n");
	e2e_run_in(&out, sub, bench, "check-perf", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, ".wperf-bench.yaml:1:1: tags: unknown key"));
	write_in_root(".wperf-bench.yaml", config);
}

static void shards_merged_are_the_whole_check(void **state)
{
	struct wperf_check whole = {0}, merged = {0}, one = {0};

	(void)state;
	e2e_run_in(&out, sub, bench, "check-perf", "-r", "../whole", NULL);
	assert_int_equal(out.status, 2);
	e2e_run_in(&out, sub, bench, "check-perf", "--shard", "1/2", "-r", "../s1", NULL);
	assert_int_equal(out.status, 2);
	read_check("s1", &one);
	assert_scenarios(&one, "ac", "from config");
	wperf_check_release(&one);
	e2e_run_in(&out, sub, bench, "check-perf", "--shard", "2/2", "-r", "../s2", NULL);
	assert_int_equal(out.status, 2);
	read_check("s2", &one);
	assert_scenarios(&one, "bd", "from config");
	wperf_check_release(&one);

	e2e_run_in(&out, root, bench, "check-perf", "--merge", "-r", "merged", "s2", "s1", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "check-perf: error (merged)"));
	read_check("whole", &whole);
	read_check("merged", &merged);
	assert_int_equal(merged.n, whole.n);
	for (size_t i = 0; i < whole.n; i++) {
		assert_string_equal(merged.scenarios[i].name, whole.scenarios[i].name);
		assert_int_equal(merged.scenarios[i].error, whole.scenarios[i].error);
		assert_string_equal(merged.scenarios[i].reason, whole.scenarios[i].reason);
	}
	assert_string_equal(merged.scenarios[0].dir, "../s1/a");
	assert_string_equal(merged.scenarios[1].dir, "../s2/b");
	assert_true(merged.alpha == whole.alpha);
	wperf_check_release(&whole);
	wperf_check_release(&merged);

	e2e_run_in(&out, root, bench, "check-perf", "--merge", "-r", "merged", "s1", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "1 of the 2 shards given"));
	e2e_run_in(&out, root, bench, "check-perf", "--merge", "-r", "merged", "s1", "s1", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "are both shard 1/2"));
	e2e_run_in(&out, root, bench, "check-perf", "--merge", "-r", "s1", "s1", "s2", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "s1 is one of the shards"));
	e2e_run_in(&out, root, bench, "check-perf", "--merge", "-r", "merged", "s1", "whole", NULL);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "one is a shard (--shard), the other not"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_config_is_found_from_a_subfolder),
	    cmocka_unit_test(bad_input_is_refused),
	    cmocka_unit_test(shards_merged_are_the_whole_check),
	};

	return cmocka_run_group_tests(tests, make_repository, NULL);
}
