/* SPDX-License-Identifier: MIT */
/*
 * matrix: a scenario file expanded into variants (core/scenario/scenario.h):
 * the variants of a file and of a selection, each loaded with its parameters
 * as variables and its name; the exact error (file:line:column: path:
 * message) for each broken matrix in tests/data/scenarios/bad-matrix-*.yaml,
 * and for a selection that names no variant.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/scenario/scenario.h"

#define DIR   "tests/data/scenarios/"
#define VALID DIR "matrix-valid.yaml"

static const struct scenario_vars vars = {.results_dir = "/res", .build_dir = "/bld"};

static void test_variants(void **state)
{
	struct wperf_error err = {0};
	char **v;
	size_t n;

	(void)state;
	assert_int_equal(scenario_variants(VALID, &v, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0], VALID "@threads=1,mode=spin");
	assert_string_equal(v[1], VALID "@threads=1,mode=block");
	assert_string_equal(v[2], VALID "@threads=4,mode=spin");
	assert_string_equal(v[3], VALID "@threads=4,mode=block");
	assert_null(v[4]);
	scenario_variants_free(v);
	/* a selection: every variant with its values */
	assert_int_equal(scenario_variants(VALID "@mode=block", &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], VALID "@threads=1,mode=block");
	assert_string_equal(v[1], VALID "@threads=4,mode=block");
	scenario_variants_free(v);
	/* without a matrix: the file itself */
	assert_int_equal(scenario_variants(DIR "valid.yaml", &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0], DIR "valid.yaml");
	scenario_variants_free(v);
}

static void test_load_variant(void **state)
{
	struct wperf_error err = {0};
	struct scenario *s = NULL;

	(void)state;
	if (scenario_load(VALID "@threads=4,mode=spin", &vars, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(s->name, "pool@threads=4,mode=spin");
	assert_string_equal(s->path, VALID "@threads=4,mode=spin");
	assert_string_equal(s->file, VALID);
	assert_string_equal(s->load.command.argv[2], "./pool --threads 4 --mode spin");
	scenario_free(s);
}

struct error_case {
	const char *path;
	const char *msg;
};

static const struct error_case errors[] = {
    {DIR "bad-matrix-value.yaml", DIR "bad-matrix-value.yaml:4:16: matrix.mode[1]: expected a "
				      "value of 1 to 32 letters, digits, '.', '_' or '-' (it names "
				      "folders), found \"a b\""},
    {DIR "bad-matrix-twice.yaml",
     DIR "bad-matrix-twice.yaml:3:19: matrix.threads[2]: 1 is already a value of threads"},
    {DIR "bad-matrix-name.yaml",
     DIR "bad-matrix-name.yaml:3:3: matrix.DURATION: expected a variable's name "
	 "([A-Za-z_][A-Za-z0-9_]*, not a built-in one)"},
    {DIR "bad-matrix-empty.yaml",
     DIR "bad-matrix-empty.yaml:3:12: matrix.threads: expected 1 to 32 values, found 0"},
    {DIR "bad-matrix-type.yaml",
     DIR "bad-matrix-type.yaml:2:9: matrix: expected a mapping, found a list"},
    {VALID, VALID ":3:3: matrix: a scenario with a matrix is run as its variants: name one, "
		  "as " VALID "@threads=1,... (a value for each parameter; wperf-bench run and "
		  "check-perf run each)"},
    {VALID "@threads=4", VALID ":3:3: matrix: a scenario with a matrix is run as its "
			       "variants: name one, as " VALID "@threads=1,... (a value for each "
			       "parameter; wperf-bench run and check-perf run each)"},
    {VALID "@threads=2,mode=spin",
     VALID "@threads=2,mode=spin: threads has no value 2 in the matrix"},
    {VALID "@cores=2", VALID "@cores=2: cores is not NAME=VALUE of a parameter of the matrix"},
    {DIR "valid.yaml@threads=1",
     DIR "valid.yaml: @threads=1 selects a variant, but the file has no matrix"},
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(errors) / sizeof(*errors); i++) {
		struct wperf_error err = {0};
		struct scenario *s = NULL;

		assert_int_equal(scenario_load(errors[i].path, &vars, &s, &err), -EINVAL);
		assert_null(s);
		if (strcmp(err.msg, errors[i].msg))
			fail_msg("got  %s\nwant %s", err.msg, errors[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_variants),
	    cmocka_unit_test(test_load_variant),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
