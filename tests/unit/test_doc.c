/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the strict-document kit (core/util/doc.h, doc_yaml.h): key
 * paths, the one error format, ranges, exact numbers, and the YAML reader's
 * checks and getters, each error text asserted whole.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/util/doc.h"
#include "core/util/doc_yaml.h"

static const struct wperf_yaml_limits limits = {"a test document", 4, 0};
static const struct wperf_yaml_limits with_aliases = {"a test document", 4, 1};

static void test_paths(void **state)
{
	struct wperf_doc_path p = {0};
	size_t top, record;

	(void)state;
	top = wperf_doc_path_key(&p, "record");
	assert_string_equal(p.text, "record");
	record = wperf_doc_path_key(&p, "on_stop");
	wperf_doc_path_index(&p, 2);
	assert_string_equal(p.text, "record.on_stop[2]");
	wperf_doc_path_pop(&p, record);
	wperf_doc_path_key(&p, "fig1/B");
	assert_string_equal(p.text, "record[\"fig1/B\"]");
	wperf_doc_path_pop(&p, top);
	assert_string_equal(p.text, "");
	assert_int_equal(p.len, 0);
}

static void test_error_format(void **state)
{
	struct wperf_error err = {0};

	(void)state;
	assert_int_equal(wperf_doc_fail(&err, -EINVAL, "s.yaml", 3, 7, "load.duration",
					"expected %s", "a number"),
			 -EINVAL);
	assert_string_equal(err.msg, "s.yaml:3:7: load.duration: expected a number");
	wperf_doc_fail(&err, -EINVAL, "run.json", 0, 0, "edges[1].share", "expected a number");
	assert_string_equal(err.msg, "run.json: edges[1].share: expected a number");
	wperf_doc_fail(&err, -EINVAL, "s.yaml", 1, 1, "", "not valid YAML");
	assert_string_equal(err.msg, "s.yaml:1:1: not valid YAML");
	assert_int_equal(wperf_doc_no_memory(&err, "s.yaml"), -ENOMEM);
	assert_string_equal(err.msg, "s.yaml: out of memory");
}

static void test_ranges(void **state)
{
	static const struct wperf_doc_range share = {0, 1, 1, 0}, any = {-INFINITY, INFINITY, 0, 0},
					    positive = {0, INFINITY, 1, 0},
					    seconds = {0, 1e6, 0, 0};
	char text[64];

	(void)state;
	wperf_doc_range_text(text, sizeof(text), &share);
	assert_string_equal(text, "a number in (0, 1]");
	wperf_doc_range_text(text, sizeof(text), &seconds);
	assert_string_equal(text, "a number in [0, 1000000]");
	wperf_doc_range_text(text, sizeof(text), &any);
	assert_string_equal(text, "a number");
	wperf_doc_range_text(text, sizeof(text), &positive);
	assert_string_equal(text, "a number > 0");
	assert_false(wperf_doc_in_range(0, &share));
	assert_true(wperf_doc_in_range(1, &share));
	assert_true(wperf_doc_in_range(0, &seconds));
	assert_false(wperf_doc_in_range(NAN, &any));
}

/* The fewest digits that read back: 0.1 stays short, 0.1 + 0.2 takes 17. */
static void test_exact_numbers(void **state)
{
	char text[WPERF_DOC_NUMBER_LEN];
	uint64_t s = 88172645463325252ULL;

	(void)state;
	wperf_doc_number_text(text, 0.1);
	assert_string_equal(text, "0.1");
	wperf_doc_number_text(text, 1.0 / 3);
	assert_string_equal(text, "0.3333333333333333");
	wperf_doc_number_text(text, 0.1 + 0.2);
	assert_string_equal(text, "0.30000000000000004");
	wperf_doc_number_text(text, -2.5e-300);
	assert_string_equal(text, "-2.5e-300");
	for (int i = 0; i < 100000; i++) {
		double v;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		memcpy(&v, &s, sizeof(v));
		if (!isfinite(v))
			continue;
		wperf_doc_number_text(text, v);
		if (strtod(text, NULL) != v)
			fail_msg("%a written as %s", v, text);
	}
}

/* Loads text as t.yaml; 0 or the error in err. */
static int load(struct wperf_yaml *y, const char *text, const struct wperf_yaml_limits *l,
		struct wperf_error *err)
{
	return wperf_yaml_load(y, "t.yaml", text, strlen(text), l, err);
}

static void expect_load_error(const char *text, const struct wperf_yaml_limits *l, const char *want)
{
	struct wperf_error err = {0};
	struct wperf_yaml y;

	assert_int_equal(load(&y, text, l, &err), -EINVAL);
	assert_string_equal(err.msg, want);
	wperf_yaml_release(&y);
}

static void test_load_limits(void **state)
{
	struct wperf_error err = {0};
	struct wperf_yaml y;

	(void)state;
	expect_load_error("", &limits, "t.yaml: empty: expected a test document");
	expect_load_error("a: [[[[1]]]]\n", &limits, "t.yaml:1:7: nested deeper than 4 levels");
	expect_load_error("a: &x 1\nb: *x\n", &limits,
			  "t.yaml:2:4: aliases (*name) are not allowed in a test document");
	expect_load_error("a: 1\n---\nb: 2\n", &limits,
			  "t.yaml:2:1: a second YAML document: a test document is one document");
	expect_load_error("a: [1\n", &limits,
			  "t.yaml:2:1: not valid YAML: did not find expected ',' or ']' (while "
			  "parsing a flow sequence at line 1, column 4)");
	assert_int_equal(load(&y, "a: &x 1\nb: *x\n", &with_aliases, &err), 0);
	wperf_yaml_release(&y);
}

/* Reads the value of key "v" of text with get; the error text when it fails. */
#define READ_V(text, get)                                                                          \
	do {                                                                                       \
		assert_int_equal(load(&y, text, &limits, &err), 0);                                \
		v = wperf_yaml_lookup(&y, wperf_yaml_root(&y), "v");                               \
		assert_non_null(v);                                                                \
		wperf_doc_path_key(&y.path, "v");                                                  \
		ret = (get);                                                                       \
		wperf_yaml_release(&y);                                                            \
	} while (0)

static void test_scalars(void **state)
{
	static const struct wperf_doc_range share = {0, 1, 1, 0};
	static const char *const modes[] = {"dwarf", "fp"};
	struct wperf_error err = {0};
	struct wperf_yaml y;
	const yaml_node_t *v;
	long long i = 0;
	double d = 0;
	size_t e = 0;
	int ret, b = 0;

	(void)state;
	READ_V("v: 42\n", wperf_yaml_integer(&y, v, 1, 100, &i));
	assert_int_equal(ret, 0);
	assert_int_equal(i, 42);
	READ_V("v: 101\n", wperf_yaml_integer(&y, v, 1, 100, &i));
	assert_string_equal(err.msg, "t.yaml:1:4: v: expected a whole number in [1, 100], found "
				     "\"101\"");
	READ_V("v: 0.5\n", wperf_yaml_number(&y, v, &share, &d));
	assert_int_equal(ret, 0);
	assert_true(d == 0.5);
	READ_V("v: 0\n", wperf_yaml_number(&y, v, &share, &d));
	assert_string_equal(err.msg, "t.yaml:1:4: v: expected a number in (0, 1], found \"0\"");
	READ_V("v: \"0.5\"\n", wperf_yaml_number(&y, v, &share, &d));
	assert_string_equal(err.msg, "t.yaml:1:4: v: expected a number in (0, 1], found \"0.5\" "
				     "(a quoted string)");
	READ_V("v: 0x1\n", wperf_yaml_number(&y, v, &share, &d));
	assert_string_equal(err.msg, "t.yaml:1:4: v: expected a number in (0, 1], found \"0x1\"");
	READ_V("v: TRUE\n", wperf_yaml_bool(&y, v, &b));
	assert_int_equal(ret, 0);
	assert_int_equal(b, 1);
	READ_V("v: yes\n", wperf_yaml_bool(&y, v, &b));
	assert_string_equal(err.msg, "t.yaml:1:4: v: expected true or false, found \"yes\"");
	READ_V("v: fp\n", wperf_yaml_enum(&y, v, modes, 2, &e));
	assert_int_equal(ret, 0);
	assert_int_equal(e, 1);
	READ_V("v: lbr\n", wperf_yaml_enum(&y, v, modes, 2, &e));
	assert_string_equal(err.msg, "t.yaml:1:4: v: expected one of dwarf, fp, found \"lbr\"");
	READ_V("v: ''\n",
	       wperf_yaml_string(&y, v, WPERF_YAML_NONEMPTY, &(const char *){0}, &(size_t){0}));
	assert_string_equal(err.msg, "t.yaml:1:4: v: expected a non-empty string, found \"\"");
	READ_V("v:\n", wperf_yaml_string(&y, v, 0, &(const char *){0}, &(size_t){0}));
	assert_string_equal(err.msg, "t.yaml:1:3: v: expected a string, found null");
	(void)ret;
}

static void test_keys(void **state)
{
	static const char *const keys[] = {"name", "runs", "tags"};
	struct wperf_error err = {0};
	struct wperf_yaml y;
	yaml_node_t *values[3];

	(void)state;
	assert_int_equal(load(&y, "name: a\ntags: [x]\n", &limits, &err), 0);
	assert_int_equal(wperf_yaml_keys(&y, wperf_yaml_root(&y), keys, 3, 1, values), 0);
	assert_non_null(values[0]);
	assert_null(values[1]);
	assert_int_equal(values[2]->type, YAML_SEQUENCE_NODE);
	wperf_yaml_release(&y);

	assert_int_equal(load(&y, "name: a\ncolour: red\n", &limits, &err), 0);
	assert_int_equal(wperf_yaml_keys(&y, wperf_yaml_root(&y), keys, 3, 1, values), -EINVAL);
	assert_string_equal(err.msg,
			    "t.yaml:2:1: colour: unknown key (allowed here: name, runs, tags)");
	wperf_yaml_release(&y);

	assert_int_equal(load(&y, "x:\n  runs: 1\n  runs: 2\n", &limits, &err), 0);
	wperf_doc_path_key(&y.path, "x");
	assert_int_equal(
	    wperf_yaml_keys(&y, wperf_yaml_lookup(&y, wperf_yaml_root(&y), "x"), NULL, 0, 0, NULL),
	    -EINVAL);
	assert_string_equal(err.msg, "t.yaml:3:3: x.runs: duplicate key (first at line 2)");
	wperf_yaml_release(&y);

	assert_int_equal(load(&y, "runs: 1\n", &limits, &err), 0);
	assert_int_equal(wperf_yaml_keys(&y, wperf_yaml_root(&y), keys, 3, 1, values), -EINVAL);
	assert_string_equal(err.msg, "t.yaml:1:1: missing key \"name\"");
	wperf_yaml_release(&y);

	assert_int_equal(load(&y, "[a]: 1\n", &limits, &err), 0);
	assert_int_equal(wperf_yaml_keys(&y, wperf_yaml_root(&y), keys, 3, 0, values), -EINVAL);
	assert_string_equal(err.msg, "t.yaml:1:1: expected a string as key, found a list");
	wperf_yaml_release(&y);
}

/* What the writer writes reads back the same: strings that look like other
 * things are quoted, numbers are exact. */
static void test_write_read_back(void **state)
{
	static const struct wperf_doc_range any = {-INFINITY, INFINITY, 0, 0};
	struct wperf_yaml_writer w;
	struct wperf_buf out = {0};
	struct wperf_error err = {0};
	struct wperf_yaml y;
	const yaml_node_t *v;
	const char *s;
	size_t len;
	double d;

	(void)state;
	assert_int_equal(wperf_yaml_writer_init(&w, &out, 80), 0);
	wperf_yaml_write_mapping(&w, 0);
	wperf_yaml_write_key(&w, "s");
	wperf_yaml_write_string(&w, "true");
	wperf_yaml_write_key(&w, "n");
	wperf_yaml_write_number(&w, 1.0 / 3);
	wperf_yaml_write_mapping_end(&w);
	assert_int_equal(wperf_yaml_writer_finish(&w), 0);
	wperf_yaml_writer_release(&w);
	/* the writer's buffer holds out.len bytes, no NUL after them */
	assert_int_equal(
	    wperf_yaml_load(&y, "t.yaml", (const char *)out.data, out.len, &limits, &err), 0);
	v = wperf_yaml_lookup(&y, wperf_yaml_root(&y), "s");
	assert_int_equal(wperf_yaml_string(&y, v, 0, &s, &len), 0);
	assert_string_equal(s, "true");
	assert_int_equal(v->data.scalar.style, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	v = wperf_yaml_lookup(&y, wperf_yaml_root(&y), "n");
	assert_int_equal(wperf_yaml_number(&y, v, &any, &d), 0);
	assert_true(d == 1.0 / 3);
	wperf_yaml_release(&y);
	wperf_buf_release(&out);

	/* A number that is not finite is refused. */
	assert_int_equal(wperf_yaml_writer_init(&w, &out, 80), 0);
	wperf_yaml_write_number(&w, NAN);
	assert_int_equal(wperf_yaml_writer_finish(&w), -EINVAL);
	assert_true(w.infinite);
	wperf_yaml_writer_release(&w);
	wperf_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paths),	cmocka_unit_test(test_error_format),
	    cmocka_unit_test(test_ranges),	cmocka_unit_test(test_exact_numbers),
	    cmocka_unit_test(test_load_limits), cmocka_unit_test(test_scalars),
	    cmocka_unit_test(test_keys),	cmocka_unit_test(test_write_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
