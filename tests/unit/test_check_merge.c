/* SPDX-License-Identifier: MIT */
/*
 * check-perf --merge (harness/gate/check_merge.c): the folders of a check's
 * shards, each a summary.json and a shard.json as check-perf writes them, read
 * back into one check, and every way a set of folders can be wrong refused
 * with the folder or file named.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "harness/base/output.h"
#include "harness/gate/check_shard.h"
#include "harness/gate/check_write.h"

static char top[64];

/* top/NAME, into path. */
static const char *at(const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", top, name);
	return path;
}

/* A check folder top/dir whose summary.json holds one scenario, name (in
 * error: the simplest scenario there is), and, when of is not 0, the
 * shard.json of shard index/of of the selection "a", "b". */
static void check_folder(const char *dir, const char *name, unsigned index, unsigned of)
{
	static char *const selection[] = {"a", "b"};
	struct wperf_check_scenario s = {
	    .name = (char *)name, .dir = (char *)name, .error = 1, .reason = "it could not run"};
	struct wperf_check c = {.alpha = 0.05, .scenarios = &s, .n = 1};
	struct check_shard shard = {index, of};
	struct wperf_error err = {0};
	char path[128];

	at(dir, path, sizeof(path));
	if (check_write_prepare(path, &err) || check_write(&c, path, &err) ||
	    (of && check_shard_write(path, &shard, selection, 2, &err)))
		fail_msg("%s", err.msg);
}

/* Merges the folders (top/NAME, up to NULL) into top/out; the return value,
 * with the check in *c and the error in err. */
static int merge(struct wperf_check *c, struct wperf_error *err, ...)
{
	char paths[4][128], *dirs[4], into[128];
	const char *name;
	size_t n = 0;
	va_list ap;

	va_start(ap, err);
	while (n < 4 && (name = va_arg(ap, const char *)))
		dirs[n] = (char *)at(name, paths[n], sizeof(paths[n])), n++;
	va_end(ap);
	mkdir(at("out", into, sizeof(into)), 0700);
	return check_merge(dirs, n, into, c, err);
}

/* err's message, less the folder top that starts every path in it. */
static void error_is(const struct wperf_error *err, const char *want)
{
	char msg[512];
	const char *p = err->msg;
	size_t len = 0;

	while (*p && len + 1 < sizeof(msg)) {
		if (!strncmp(p, top, strlen(top)))
			p += strlen(top), msg[len++] = '~';
		else
			msg[len++] = *p++;
	}
	msg[len] = '\0';
	assert_string_equal(msg, want);
}

static int make_top(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/wperf-merge-XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int remove_top(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd);
}

/* Two shards given in either order make one check: the scenarios in name
 * order, each one's folder found from the merged check's folder. */
static void test_two_shards_are_one_check(void **state)
{
	struct wperf_check c;
	struct wperf_error err = {0};

	(void)state;
	check_folder("s1", "a", 1, 2);
	check_folder("s2", "b", 2, 2);
	if (merge(&c, &err, "s2", "s1", NULL))
		fail_msg("%s", err.msg);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.scenarios[0].name, "a");
	assert_string_equal(c.scenarios[0].dir, "../s1/a");
	assert_string_equal(c.scenarios[1].name, "b");
	assert_string_equal(c.scenarios[1].dir, "../s2/b");
	wperf_check_release(&c);
}

static void test_a_shard_missing(void **state)
{
	struct wperf_check c;
	struct wperf_error err = {0};

	(void)state;
	check_folder("s1", "a", 1, 2);
	assert_int_equal(merge(&c, &err, "s1", NULL), -EINVAL);
	error_is(&err, "1 of the 2 shards given: a check's verdict needs all of them");
}

static void test_a_shard_twice(void **state)
{
	struct wperf_check c;
	struct wperf_error err = {0};

	(void)state;
	check_folder("s1", "a", 1, 2);
	check_folder("again", "b", 1, 2);
	assert_int_equal(merge(&c, &err, "s1", "again", NULL), -EINVAL);
	error_is(&err, "~/s1 and ~/again are both shard 1/2");
}

static void test_a_shard_with_a_whole_check(void **state)
{
	struct wperf_check c;
	struct wperf_error err = {0};

	(void)state;
	check_folder("s1", "a", 1, 2);
	check_folder("whole", "b", 0, 0);
	assert_int_equal(merge(&c, &err, "s1", "whole", NULL), -EINVAL);
	error_is(&err, "~/s1 and ~/whole: one is a shard (--shard), the other not");
}

static void test_a_scenario_not_selected(void **state)
{
	struct wperf_check c;
	struct wperf_error err = {0};

	(void)state;
	check_folder("s1", "a", 1, 2);
	check_folder("s2", "c", 2, 2);
	assert_int_equal(merge(&c, &err, "s1", "s2", NULL), -EINVAL);
	error_is(&err, "~/s2: scenario c is not in shard.json");
}

/* A selection that names no scenario (a shard.json someone edited): refused
 * where it is wrong. It crashed the merge before. */
static void test_a_selection_of_no_names(void **state)
{
	static const char text[] =
	    "{\"format\": \"wperf-shard/1\", \"shard\": 1, \"of\": 1, \"selected\": [\"a\", null]}";
	struct wperf_check c;
	struct wperf_error err = {0};
	char path[128];

	(void)state;
	check_folder("edited", "a", 1, 1);
	if (output_write(at("edited/shard.json", path, sizeof(path)), text, strlen(text), &err))
		fail_msg("%s", err.msg);
	assert_int_equal(merge(&c, &err, "edited", NULL), -EINVAL);
	error_is(&err, "~/edited/shard.json: selected[1]: expected an identity (a non-empty "
		       "string), found null");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_two_shards_are_one_check, make_top, remove_top),
	    cmocka_unit_test_setup_teardown(test_a_shard_missing, make_top, remove_top),
	    cmocka_unit_test_setup_teardown(test_a_shard_twice, make_top, remove_top),
	    cmocka_unit_test_setup_teardown(test_a_shard_with_a_whole_check, make_top, remove_top),
	    cmocka_unit_test_setup_teardown(test_a_scenario_not_selected, make_top, remove_top),
	    cmocka_unit_test_setup_teardown(test_a_selection_of_no_names, make_top, remove_top),
	};

	return cmocka_run_group_tests_name("check-perf --merge", tests, NULL, NULL);
}
