/* SPDX-License-Identifier: MIT */
/*
 * The command line as people meet it: edit distances and the "did you mean"
 * they make, the one error line (and hint) of a usage error with its exit
 * status, a --target that names no process of the trace, and `diff` of two
 * committed recordings of the paper's Figure 1 (tests/data/fig1.trace, the
 * disk version; fig1-thread.trace, the thread version: see test_data.c).
 */
#include <json-c/json.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/util/closest.h"
#include "harness/cli/cli.h"
#include "tests/lib/capture.h"

static void edit_distances_count_swaps_as_one(void **state)
{
	const char *names[] = {"record", "report", "run", "info"};
	size_t out[4];

	(void)state;
	assert_int_equal(wperf_edit_distance("reprot", "report"), 1);
	assert_int_equal(wperf_edit_distance("tagg", "tag"), 1);
	assert_int_equal(wperf_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(wperf_edit_distance("", "abc"), 3);
	assert_int_equal(wperf_edit_distance("same", "same"), 0);
	/* closest first, within the distance asked */
	assert_int_equal(wperf_closest("reprot", names, 4, 2, out, 4), 1);
	assert_int_equal(out[0], 1);
	assert_int_equal(wperf_closest("rn", names, 4, SIZE_MAX, out, 2), 2);
	assert_int_equal(out[0], 2); /* run: 1 */
	assert_int_equal(out[1], 3); /* info: 3, before record and report (4) */
	assert_int_equal(wperf_suggest_distance("reprot"), 2);
	assert_int_equal(wperf_suggest_distance("ab"), 1);
}

/* fn(argv) exits 2 and writes exactly two lines: want, then the hint. */
static void usage_error(int (*fn)(int, char **), char **argv, const char *want)
{
	char hint[512];
	int status;
	char *text = capture_stderr(fn, argv, &status);

	snprintf(hint, sizeof(hint), "%s\nsee 'wperf-bench %s --help'\n", want, argv[0]);
	assert_int_equal(status, EXIT_ERROR);
	assert_string_equal(text, hint);
	free(text);
}

/* fn(argv) exits 2, its error's first line beginning with want. */
static void first_line_is(int (*fn)(int, char **), char **argv, const char *want)
{
	int status;
	char *text = capture_stderr(fn, argv, &status);

	assert_int_equal(status, EXIT_ERROR);
	if (strncmp(text, want, strlen(want)))
		fail_msg("stderr: %s\nnot beginning with: %s", text, want);
	free(text);
}

static int unknown_command(int argc, char **argv)
{
	(void)argc;
	return cli_unknown_command(argv[0], argv[1]);
}

static void a_usage_error_is_one_line_and_a_hint(void **state)
{
	char *missing[] = {"report", NULL};
	char *extra[] = {"report", "a.trace", "b.trace", NULL};
	char *tagg[] = {"check-perf", "--tagg", "ci", NULL};
	char *ambiguous[] = {"report", "--t", "x", NULL};
	char *no_arg[] = {"report", "--format", NULL};
	char *bad[] = {"report", "--threshold", "2", "x", NULL};
	char *reprot[] = {"help", "reprot", NULL};
	char *diff_one[] = {"diff", "a.trace", NULL};
	char *updat[] = {"baseline", "updat", NULL};
	char *var_name[] = {"run", "--var", "1x=2", "x.yaml", NULL};
	char *var_own[] = {"ab", "--var", "DURATION=2", "x.yaml", NULL};
	char *var_bare[] = {"check-perf", "--var", "PORT", NULL};

	(void)state;
	usage_error(cmd_report, missing, "wperf-bench report: error: missing operand TRACE");
	usage_error(cmd_report, extra, "wperf-bench report: error: unexpected operand 'b.trace'");
	usage_error(
	    cmd_check_perf, tagg,
	    "wperf-bench check-perf: error: unknown option '--tagg'; did you mean '--tag'?");
	usage_error(cmd_report, ambiguous,
		    "wperf-bench report: error: option '--t' is ambiguous: --threshold, --target, "
		    "--top-edges, --timings");
	usage_error(cmd_report, no_arg, "wperf-bench report: error: --format wants FORMAT");
	usage_error(
	    cmd_report, bad,
	    "wperf-bench report: error: --threshold wants a number from 0.0001 to 1, not '2'");
	usage_error(cmd_help, reprot,
		    "wperf-bench help: error: 'reprot' is not a command; did you mean 'report'?");
	usage_error(unknown_command, reprot,
		    "wperf-bench help: error: 'reprot' is not a command; did you mean 'report'?");
	usage_error(cmd_diff, diff_one, "wperf-bench diff: error: missing operand B.TRACE");
	usage_error(
	    cmd_baseline, updat,
	    "wperf-bench baseline: error: 'updat' is not a sub-command of baseline; did you "
	    "mean 'update'?");
	first_line_is(cmd_run, var_name, "wperf-bench run: error: --var 1x: expected a name of");
	first_line_is(cmd_ab, var_own, "wperf-bench ab: error: --var DURATION: expected a name");
	first_line_is(cmd_check_perf, var_bare,
		      "wperf-bench check-perf: error: --var wants NAME=VALUE, not 'PORT'");
}

/* --timings: one line on standard error, with each step and the events of the
 * trace (fig1.trace's, as `info` counts them); the report itself unchanged. */
static void timings_name_every_step(void **state)
{
	char *timed[] = {"report", "--timings", "-o", "/dev/null", "tests/data/fig1.trace", NULL};
	char *plain[] = {"report", "-o", "/dev/null", "tests/data/fig1.trace", NULL};
	static const char *const steps[] = {
	    "read ",  "timeline ", "checks ", "short-lived ",	      "cascade ",
	    "merge ", "cmetric ",  "knots ",  "symbols and writing ", " events in "};
	int status;
	char *text = capture_stderr(cmd_report, timed, &status);

	(void)state;
	assert_int_equal(status, EXIT_OK);
	if (strncmp(text, "report: timings (s): read ", strlen("report: timings (s): read ")) ||
	    !strstr(text, "M events/s/core\n"))
		fail_msg("stderr: %s", text);
	for (size_t i = 0; i < sizeof(steps) / sizeof(*steps); i++)
		if (!strstr(text, steps[i]))
			fail_msg("no \"%s\" in: %s", steps[i], text);
	assert_non_null(strstr(text, "; 6830 events in "));
	assert_int_equal(strchr(text, '\n') - text + 1, (long)strlen(text)); /* one line */
	free(text);
	text = capture_stderr(cmd_report, plain, &status);
	assert_int_equal(status, EXIT_OK);
	assert_string_equal(text, "");
	free(text);
}

static void a_target_of_no_process_is_an_error(void **state)
{
	char *fig[] = {"report", "--target", "fig", "tests/data/fig1.trace", NULL};
	char *pid[] = {
	    "diff", "--target", "4000000", "tests/data/fig1.trace", "tests/data/fig1-thread.trace",
	    NULL};
	char *found[] = {"report", "--target", "fig1", "-o", "/dev/null", "tests/data/fig1.trace",
			 NULL};
	int status;
	char *text;

	(void)state;
	text = capture_stderr(cmd_report, fig, &status);
	assert_int_equal(status, EXIT_ERROR);
	/* fig1, one letter away, is the closest process name */
	assert_non_null(strstr(text,
			       "wperf-bench report: error: tests/data/fig1.trace: --target "
			       "'fig' is no process of the trace; the closest names: fig1, "));
	free(text);
	text = capture_stderr(cmd_diff, pid, &status);
	assert_int_equal(status, EXIT_ERROR);
	assert_string_equal(text, "wperf-bench diff: error: tests/data/fig1.trace: --target "
				  "4000000: no thread of these pids in the trace\n");
	free(text);
	text = capture_stderr(cmd_report, found, &status);
	assert_int_equal(status, EXIT_OK);
	assert_string_equal(text, "");
	free(text);
}

/* The entry of array (of objects with "members" or "from"/"to") whose
 * members include id, or edge from -> to. */
static struct json_object *entry(struct json_object *array, const char *id, const char *to)
{
	for (size_t i = 0; i < json_object_array_length(array); i++) {
		struct json_object *o = json_object_array_get_idx(array, i), *v;

		if (to && !strcmp(json_object_get_string(json_object_object_get(o, "from")), id) &&
		    !strcmp(json_object_get_string(json_object_object_get(o, "to")), to))
			return o;
		if (!to && json_object_object_get_ex(o, "members", &v))
			for (size_t j = 0; j < json_object_array_length(v); j++)
				if (!strcmp(json_object_get_string(json_object_array_get_idx(v, j)),
					    id))
					return o;
	}
	return NULL;
}

static const char *side(struct json_object *o)
{
	return json_object_get_string(json_object_object_get(o, "in"));
}

static void diff_shows_the_knots_and_edges_that_changed(void **state)
{
	char out[] = "/tmp/test_cli_diffXXXXXX";
	int fd = mkstemp(out), status;
	char *argv[] = {"diff",
			"-f",
			"json",
			"-o",
			out,
			"-j",
			"1",
			"tests/data/fig1.trace",
			"tests/data/fig1-thread.trace",
			NULL};
	struct json_object *d, *knots, *edges, *ab, *bc;
	double a, b;
	char *text;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	text = capture_stderr(cmd_diff, argv, &status);
	assert_int_equal(status, EXIT_OK);
	assert_string_equal(text, "");
	free(text);
	d = json_object_from_file(out);
	unlink(out);
	assert_non_null(d);
	assert_string_equal(json_object_get_string(json_object_object_get(d, "schema")),
			    "wperf-diff/1");
	knots = json_object_object_get(d, "knots");
	edges = json_object_object_get(d, "edges");
	/* B waits for the disk in A's recording, for C (its "device" thread) in B's */
	assert_non_null(entry(knots, "disk:254:0", NULL));
	assert_string_equal(side(entry(knots, "disk:254:0", NULL)), "a");
	assert_non_null(entry(knots, "fig1/C", NULL));
	assert_string_equal(side(entry(knots, "fig1/C", NULL)), "b");
	/* A waits for B in both; B for C only in the second, its change all of it */
	ab = entry(edges, "fig1/A", "fig1/B");
	bc = entry(edges, "fig1/C", "fig1/B");
	assert_non_null(ab);
	assert_non_null(bc);
	a = json_object_get_double(json_object_object_get(ab, "a"));
	b = json_object_get_double(json_object_object_get(ab, "b"));
	assert_true(a > 0.01 && b > 0.01);
	assert_true(fabs(json_object_get_double(json_object_object_get(ab, "change")) - (b - a)) <
		    1e-12);
	assert_true(json_object_is_type(json_object_object_get(bc, "a"), json_type_null));
	assert_true(fabs(json_object_get_double(json_object_object_get(bc, "change")) -
			 json_object_get_double(json_object_object_get(bc, "b"))) < 1e-12);
	json_object_put(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(edit_distances_count_swaps_as_one),
	    cmocka_unit_test(a_usage_error_is_one_line_and_a_hint),
	    cmocka_unit_test(timings_name_every_step),
	    cmocka_unit_test(a_target_of_no_process_is_an_error),
	    cmocka_unit_test(diff_shows_the_knots_and_edges_that_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
