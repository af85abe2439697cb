/* SPDX-License-Identifier: MIT */
/*
 * What a pull request changes of its own gate (harness/gate/head_settings.c,
 * over core/util/doc_yaml_diff.c): each change of a scenario file or of a
 * baseline's accepted: entries is one line that names the file, the key path
 * and both values, whatever the base or the head lacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/gate/head_settings.h"
#include "tests/lib/e2e.h"

struct diff_case {
	const char *name;
	const char *base, *head; /* NULL: no such file */
	const char *key;
	const char *lines; /* what head_settings_diff says, labelled f.yaml */
};

static const struct diff_case cases[] = {
    {"the same file", "name: s\nload: {command: x}\n", "name: s\nload: {command: x}\n", NULL, ""},
    {"no file on either side", NULL, NULL, "accepted", ""},
    {"no accepted: on either side", "runs: 1\n", "runs: 2\n", "accepted", ""},
    {"a raised tolerance and a lighter load",
     "name: s\nload:\n  command: ./load -n 1000\ngate: {edge_tolerance: 0.1}\n",
     "name: s\nload:\n  command: ./load -n 10\ngate:\n  edge_tolerance: 0.1\n"
     "  throughput_tolerance: 0.9\n",
     NULL,
     "f.yaml: load.command: ./load -n 1000 -> ./load -n 10\n"
     "f.yaml: gate.throughput_tolerance: absent -> 0.9\n"},
    {"a direction flipped, a key removed",
     "metrics:\n- {name: p99, higher_is_better: false}\nruns: 5\n",
     "metrics:\n- {name: p99, higher_is_better: true}\n", NULL,
     "f.yaml: metrics[0].higher_is_better: false -> true\nf.yaml: runs: 5 -> absent\n"},
    {"an accepted glob added to a baseline that had none",
     "format: wperf-baseline/1\nscenario: s\nruns: 5\nthroughput: {samples: [1, 2]}\n",
     "format: wperf-baseline/1\nscenario: s\nruns: 5\nthroughput: {samples: [3, 4]}\n"
     "accepted:\n- knot: ['kworker/*']\n  reason: it is noise\n",
     "accepted",
     "f.yaml: accepted[0].knot[0]: absent -> \"kworker/*\"\n"
     "f.yaml: accepted[0].reason: absent -> it is noise\n"},
    {"a baseline the head adds", NULL, "accepted:\n- edge: {from: '*', to: '*'}\n  reason: r\n",
     "accepted",
     "f.yaml: accepted[0].edge.from: absent -> \"*\"\nf.yaml: accepted[0].edge.to: absent -> "
     "\"*\"\nf.yaml: accepted[0].reason: absent -> r\n"},
    {"a list shortened, a mapping for a scalar", "tags: [ci, nightly]\nload: x\n",
     "tags: [ci]\nload: {command: x}\n", NULL,
     "f.yaml: tags[1]: nightly -> absent\nf.yaml: load: x -> a mapping\n"},
    {"a head that does not parse", "name: s\n", "name: [s\n", NULL,
     "f.yaml: cannot be compared: HEAD:2:1: not valid YAML: did not find expected ',' or ']' "
     "(while parsing a flow sequence at line 1, column 7)\n"},
};

static void compare(const struct diff_case *c)
{
	const char *base = e2e_tmp_path("base.yaml"), *head = e2e_tmp_path("head.yaml");
	struct wperf_buf out = {0};
	char *expected = strdup(c->lines), *at;

	assert_non_null(expected);
	remove(base);
	remove(head);
	if (c->base)
		e2e_write_file(base, c->base);
	if (c->head)
		e2e_write_file(head, c->head);
	assert_int_equal(head_settings_diff("f.yaml", base, head, c->key, &out), 0);
	assert_int_equal(wperf_buf_append(&out, "", 1), 0);
	/* the parser names the head's file by its path: HEAD stands for it */
	if ((at = strstr(expected, "HEAD:"))) {
		char *full;

		*at = '\0';
		assert_int_not_equal(asprintf(&full, "%s%s%s", expected, head, at + 4), -1);
		free(expected);
		expected = full;
	}
	if (strcmp((const char *)out.data, expected))
		fail_msg("%s: said\n%s\nexpected\n%s", c->name, (const char *)out.data, expected);
	free(expected);
	wperf_buf_release(&out);
}

static void each_change_is_a_line(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		compare(&cases[i]);
}

/* Many changes: HEAD_SETTINGS_MAX_LINES lines, then one that counts the rest;
 * the lines become the array a check's scenario holds. */
static void many_changes_are_counted(void **state)
{
	struct wperf_buf head = {0}, out = {0};
	char **lines;
	size_t n;

	(void)state;
	for (int i = 0; i < HEAD_SETTINGS_MAX_LINES + 5; i++)
		assert_int_equal(wperf_buf_printf(&head, "k%02d: %d\n", i, i), 0);
	assert_int_equal(wperf_buf_append(&head, "", 1), 0);
	e2e_write_file(e2e_tmp_path("many.yaml"), (const char *)head.data);
	assert_int_equal(head_settings_diff("m.yaml", e2e_tmp_path("none.yaml"),
					    e2e_tmp_path("many.yaml"), NULL, &out),
			 0);
	assert_int_equal(head_settings_lines(&out, &lines, &n), 0);
	assert_int_equal(n, HEAD_SETTINGS_MAX_LINES + 1);
	assert_string_equal(lines[0], "m.yaml: k00: absent -> 0");
	assert_string_equal(lines[n - 1], "m.yaml: ... and 5 more changes");
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	wperf_buf_release(&head);
	wperf_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(each_change_is_a_line),
	    cmocka_unit_test(many_changes_are_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
