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

#include "harness/gate/check_shard.h"
#include "harness/gate/check_write.h"
#include "tests/lib/e2e.h"

/* A check's folder: one scenario (in error, the simplest there is) and, when
 * of is not 0, the shard.json of shard index/of of the selection a, b. */
struct folder {
	const char *dir, *scenario;
	unsigned index, of;
};

/* Folders merged in this order, and what the merge says: NULL, or the error
 * with '~' for the case's folder. */
struct merge_case {
	const char *name;
	struct folder folders[2];
	const char *error;
	const char *shard_json; /* written over the first folder's, when set */
};

static const struct merge_case cases[] = {
    {"two shards in either order", {{"s2", "b", 2, 2}, {"s1", "a", 1, 2}}, NULL, NULL},
    {"a shard missing",
     {{"s1", "a", 1, 2}},
     "1 of the 2 shards given: a check's verdict needs all of them",
     NULL},
    {"a shard twice",
     {{"s1", "a", 1, 2}, {"again", "b", 1, 2}},
     "~/s1 and ~/again are both shard 1/2",
     NULL},
    {"a shard beside a whole check",
     {{"s1", "a", 1, 2}, {"whole", "b", 0, 0}},
     "~/s1 and ~/whole: one is a shard (--shard), the other not",
     NULL},
    {"a scenario outside the selection",
     {{"s1", "a", 1, 2}, {"s2", "c", 2, 2}},
     "~/s2: scenario c is not in shard.json",
     NULL},
    /* someone's edited shard.json: it crashed the merge before */
    {"a selection of no names",
     {{"edited", "a", 1, 1}},
     "~/edited/shard.json: selected[1]: expected an identity (a non-empty string), found null",
     "{\"format\": \"wperf-shard/1\", \"shard\": 1, \"of\": 1, \"selected\": [\"a\", null]}"},
};

static void write_folder(const char *top, const struct folder *f)
{
	static char *const selection[] = {"a", "b"};
	struct wperf_check_scenario s = {.name = (char *)f->scenario,
					 .dir = (char *)f->scenario,
					 .error = 1,
					 .reason = "it could not run"};
	struct wperf_check c = {.alpha = 0.05, .scenarios = &s, .n = 1};
	struct check_shard shard = {f->index, f->of};
	struct wperf_error err = {0};
	const char *dir = e2e_join(top, f->dir);

	if (check_write_prepare(dir, &err) || check_write(&c, dir, &err) ||
	    (f->of && check_shard_write(dir, &shard, selection, 2, &err)))
		fail_msg("%s", err.msg);
}

/* err's message with every top in it written '~'. */
static void error_is(const struct wperf_error *err, const char *top, const char *want)
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

static void test_merge(void **state)
{
	const struct merge_case *mc = *state;
	char top[256], into[300], *dirs[2];
	struct wperf_error err = {0};
	struct wperf_check c;
	size_t n = 0;
	int ret;

	snprintf(top, sizeof(top), "%s", e2e_tmp_path(mc->name));
	assert_int_equal(mkdir(top, 0700), 0);
	for (; n < 2 && mc->folders[n].dir; n++) {
		write_folder(top, &mc->folders[n]);
		dirs[n] = strdup(e2e_join(top, mc->folders[n].dir));
	}
	if (mc->shard_json)
		e2e_write_file(e2e_join(dirs[0], CHECK_SHARD_FILE), mc->shard_json);
	snprintf(into, sizeof(into), "%s/merged", top);
	assert_int_equal(mkdir(into, 0700), 0);
	ret = check_merge(dirs, n, into, &c, &err);
	if (mc->error) {
		assert_int_equal(ret, -EINVAL);
		error_is(&err, top, mc->error);
	} else {
		if (ret)
			fail_msg("%s", err.msg);
		/* in name order, each one's folder found from the merged check's */
		assert_int_equal(c.n, 2);
		assert_string_equal(c.scenarios[0].name, "a");
		assert_string_equal(c.scenarios[0].dir, "../s1/a");
		assert_string_equal(c.scenarios[1].name, "b");
		assert_string_equal(c.scenarios[1].dir, "../s2/b");
		wperf_check_release(&c);
	}
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(cases) / sizeof(*cases)];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		tests[i] =
		    (struct CMUnitTest){cases[i].name, test_merge, NULL, NULL, (void *)&cases[i]};
	return cmocka_run_group_tests_name("check-perf --merge", tests, NULL, NULL);
}
