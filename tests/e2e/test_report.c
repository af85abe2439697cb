/* SPDX-License-Identifier: MIT */
/*
 * End-to-end tests of `wperf-bench report`: the paper's Figure 1 program is
 * recorded for real, and the report must name the knot of B and the disk,
 * without A, in every format; the graph has its legend and hover titles.
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
#include <json-c/json.h>

#include "tests/lib/e2e.h"

static char trace[512];

/*
 * Records fig1 once for all the tests: B does 5 ms of work per request, then
 * writes 4 MiB with O_DIRECT and syncs it, waiting for the device without
 * copying. (Through the page cache, the copy is CPU work that can make B
 * CPU-bound, and then the honest answer is a sink, not a knot.)
 */
static int record_fig1(void **state)
{
	char file[512];
	char *argv[] = {(char *)e2e_path("wperf-bench"),
			"record",
			"-q",
			"-o",
			trace,
			"--",
			(char *)e2e_path("synthetic/fig1"),
			"-d",
			"4",
			"--direct",
			"--write-bytes",
			"4194304",
			"--file",
			file,
			NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));

	(void)state;
	if (geteuid() != 0 || access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		free(o);
		return 0; /* each test skips (or fails under WPERF_REQUIRE_BPF) by itself */
	}
	snprintf(trace, sizeof(trace), "%s/fig1.trace", e2e_tmpdir());
	snprintf(file, sizeof(file), "%s/fig1.data", e2e_tmpdir());
	e2e_run(argv, -1, o);
	if (o->status != 0)
		fprintf(stderr, "recording fig1 failed: %s\n", o->err);
	free(o);
	return 0;
}

static void report(const char *format, const char *out, struct e2e_output *o)
{
	char *argv[] = {(char *)e2e_path("wperf-bench"),
			"report",
			"-f",
			(char *)format,
			"-o",
			(char *)out,
			trace,
			NULL};

	e2e_run(argv, -1, o);
	if (o->status != 0)
		fail_msg("report -f %s exited %d: %s", format, o->status, o->err);
}

static int has(json_object *identities, const char *prefix)
{
	for (size_t i = 0; i < json_object_array_length(identities); i++)
		if (!strncmp(json_object_get_string(json_object_array_get_idx(identities, i)),
			     prefix, strlen(prefix)))
			return 1;
	return 0;
}

/* The JSON report has a final knot that fig1 waits for, with B and the disk in
 * it and A, which waits longest, outside. jq reads it too. */
static void test_fig1_knot_json(void **state)
{
	char out[600], cmd[1300];
	struct e2e_output *o = calloc(1, sizeof(*o));
	json_object *root, *knots;
	int found = 0;

	(void)state;
	e2e_require_bpf();
	snprintf(out, sizeof(out), "%s/report.json", e2e_tmpdir());
	report("json", out, o);
	snprintf(cmd, sizeof(cmd), "jq -e '.schema == \"wperf-report/1\"' '%s' >/dev/null", out);
	assert_int_equal(system(cmd), 0);
	root = json_object_from_file(out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "knots", &knots));
	for (size_t i = 0; i < json_object_array_length(knots); i++) {
		json_object *k = json_object_array_get_idx(knots, i), *v;
		json_object *ids;

		json_object_object_get_ex(k, "kind", &v);
		if (strcmp(json_object_get_string(v), "knot"))
			continue;
		json_object_object_get_ex(k, "final", &v);
		if (!json_object_get_boolean(v))
			continue;
		json_object_object_get_ex(k, "target", &v);
		if (!json_object_get_boolean(v))
			continue;
		json_object_object_get_ex(k, "identities", &ids);
		print_message("knot: %s\n", json_object_to_json_string(ids));
		if (has(ids, "fig1/B") && has(ids, "disk:")) {
			assert_false(has(ids, "fig1/A"));
			found = 1;
		}
	}
	assert_true(found);
	json_object_put(root);
	free(o);
}

/* The text report gives the verdict first, with fsync behind B's wait. */
static void test_fig1_text(void **state)
{
	char out[600];
	struct e2e_output *o = calloc(1, sizeof(*o));
	FILE *f;
	char *text = calloc(1, 1 << 20);
	size_t n;

	(void)state;
	e2e_require_bpf();
	snprintf(out, sizeof(out), "%s/report.txt", e2e_tmpdir());
	report("text", out, o);
	f = fopen(out, "r");
	assert_non_null(f);
	n = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_non_null(strstr(text, "verdict: 1 knot bounds the throughput"));
	assert_non_null(strstr(text, "fig1/B"));
	assert_non_null(strstr(text, "fsync"));
	/* A's wait is listed among the target's long waits that do not bound the
	 * throughput (the recorded command is the target). */
	assert_non_null(strstr(text, "longest waits of the target's threads outside the knots"));
	assert_non_null(
	    strstr(strstr(text, "longest waits of the target's threads"), "fig1/A -> fig1/B"));
	free(text);
	free(o);
}

/* The SVG renders, and the other formats are what their readers expect. */
static void test_fig1_other_formats(void **state)
{
	char svg[600], png[600], folded[600], perfetto[600], cmd[1400];
	struct e2e_output *o = calloc(1, sizeof(*o));
	struct wperf_buf text = {0};
	struct stat st;

	(void)state;
	e2e_require_bpf();
	snprintf(svg, sizeof(svg), "%s/graph.svg", e2e_tmpdir());
	snprintf(png, sizeof(png), "%s/graph.png", e2e_tmpdir());
	snprintf(folded, sizeof(folded), "%s/stacks.folded", e2e_tmpdir());
	snprintf(perfetto, sizeof(perfetto), "%s/timeline.json", e2e_tmpdir());
	report("svg", svg, o);
	/* a legend says what an arrow is; a hover over B's edges names both ends */
	e2e_read_file(svg, &text);
	assert_non_null(strstr((const char *)text.data, ">A \xe2\x86\x92 B: A waits for B"));
	assert_non_null(strstr((const char *)text.data, "xlink:title=\"fig1/B waits for "));
	wperf_buf_release(&text);
	snprintf(cmd, sizeof(cmd), "rsvg-convert '%s' -o '%s'", svg, png);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(stat(png, &st), 0);
	assert_true(st.st_size > 1000);
	report("folded", folded, o);
	snprintf(cmd, sizeof(cmd), "grep -c . '%s' >/dev/null && ! grep -vE '^[^ ]+ [0-9]+$' '%s'",
		 folded, folded);
	assert_int_equal(system(cmd), 0);
	report("perfetto", perfetto, o);
	snprintf(cmd, sizeof(cmd),
		 "jq -e '[.traceEvents[] | select(.ph == \"X\")] | length > 0' '%s' >/dev/null",
		 perfetto);
	assert_int_equal(system(cmd), 0);
	free(o);
}

/* A truncated trace is refused with the offset and exit status 2. */
static void test_truncated(void **state)
{
	char cut[600], cmd[1300];
	char *argv[] = {(char *)e2e_path("wperf-bench"), "report", cut, NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	struct stat st;

	(void)state;
	e2e_require_bpf();
	snprintf(cut, sizeof(cut), "%s/cut.trace", e2e_tmpdir());
	assert_int_equal(stat(trace, &st), 0);
	snprintf(cmd, sizeof(cmd), "head -c %lld '%s' > '%s'", (long long)st.st_size / 3, trace,
		 cut);
	assert_int_equal(system(cmd), 0);
	e2e_run(argv, -1, o);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, "offset"));
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fig1_knot_json),
	    cmocka_unit_test(test_fig1_text),
	    cmocka_unit_test(test_fig1_other_formats),
	    cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests_name("report (end to end)", tests, record_fig1, NULL);
}
