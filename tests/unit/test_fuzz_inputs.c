/* SPDX-License-Identifier: MIT */
/*
 * Every input that made a reader crash, leak, hang or fail badly under the
 * fuzzers (tests/data/fuzz/READER/, docs/fuzzing.md), and every seed of the
 * fuzzers (fuzz/corpus/READER/), replayed through the same drivers as the fuzz
 * targets: each must give a success or an error that says where the problem is.
 * Under `make asan` a crash or a leak shows too.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/util/buf.h"
#include "harness/base/output.h"
#include "tests/lib/fuzz_readers.h"

/* Replays every file of every READER folder under top; returns how many. */
static size_t replay_tree(const char *top)
{
	DIR *d = opendir(top);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		const struct fuzz_reader *r;
		char dir[512];
		struct dirent *fe;
		DIR *f;

		if (de->d_name[0] == '.')
			continue;
		r = fuzz_reader_find(de->d_name);
		if (!r)
			fail_msg("%s/%s: no reader of that name in tests/lib/fuzz_readers.c", top,
				 de->d_name);
		snprintf(dir, sizeof(dir), "%s/%s", top, de->d_name);
		assert_non_null(f = opendir(dir));
		while ((fe = readdir(f))) {
			char path[1024];
			struct wperf_buf b = {0};
			struct wperf_error err = {0};
			int ret;

			if (fe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, fe->d_name);
			if (output_read_all(path, &b, &err) < 0)
				fail_msg("%s", err.msg);
			/* An empty file leaves b.data NULL; libFuzzer never gives NULL. */
			ret = r->read(b.len ? b.data : (const uint8_t *)"", b.len, &err);
			if (!fuzz_result_ok(r, ret, &err))
				fail_msg("%s: %s gave %d, \"%s\": not an error that says where",
					 path, r->name, ret, err.msg);
			wperf_buf_release(&b);
			n++;
		}
		closedir(f);
	}
	closedir(d);
	return n;
}

static void test_findings(void **state)
{
	(void)state;
	assert_true(replay_tree("tests/data/fuzz") > 0);
}

static void test_seeds(void **state)
{
	(void)state;
	assert_true(replay_tree("fuzz/corpus") > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_findings),
	    cmocka_unit_test(test_seeds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
