/* SPDX-License-Identifier: MIT */
/*
 * `wperf-bench diff --flame` and `--folded` (harness/cli/cmd_diff.c) on the
 * committed recordings of the paper's Figure 1 (tests/data/fig1.trace, B
 * waits for the disk; fig1-thread.trace, for thread C instead: see
 * test_data.c): the same trace twice changes nothing, the second's new edge
 * grows red and leads the stacks that grew, the folded stacks compare frames
 * by function unless told otherwise, and the options that go with --flame are
 * refused without it.
 */
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/cli/cli.h"
#include "tests/lib/capture.h"

#define FIG1	    "tests/data/fig1.trace"
#define FIG1_THREAD "tests/data/fig1-thread.trace"

/* The whole file at path, NUL-ended, then removed; the caller frees it. */
static char *take_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	text = calloc((size_t)n + 1, 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	unlink(path);
	return text;
}

/* Runs diff with args (NULL-ended, at most 8) and -o a temporary file, wanting
 * exit 0; its output, and its stderr in *err (the caller frees both). */
static char *run_diff(const char *const *args, char **err)
{
	char out[] = "/tmp/test_diff_flame-XXXXXX";
	char *argv[16] = {"diff", "-j", "1", "-o", out};
	int fd = mkstemp(out), argc = 5, status;

	assert_true(fd >= 0);
	close(fd);
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	*err = capture_stderr(cmd_diff, argv, &status);
	if (status != EXIT_OK)
		fail_msg("diff: exit %d: %s", status, *err);
	return take_file(out);
}

/* Does text match the extended regular expression re? */
static int matches(const char *text, const char *re)
{
	regex_t r;
	int found;

	assert_int_equal(regcomp(&r, re, REG_EXTENDED | REG_NOSUB | REG_NEWLINE), 0);
	found = !regexec(&r, text, 0, NULL, 0);
	regfree(&r);
	return found;
}

/* How many times s is in text. */
static size_t count(const char *text, const char *s)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, s)); p++)
		n++;
	return n;
}

/* The frames of svg filled white; fails at a frame of another colour. */
static size_t white_frames(const char *svg)
{
	const char *white = "fill=\"rgb(255,255,255)\"";
	size_t n = 0;

	for (const char *p = svg; (p = strstr(p, "fill=\"rgb(")); p++, n++)
		if (strncmp(p, white, strlen(white)))
			fail_msg("a frame not white: %.60s", p);
	return n;
}

/* Each line of text matches re. */
static void each_line_matches(char *text, const char *re)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (!matches(line, re))
			fail_msg("'%s' does not match %s", line, re);
}

static void the_same_trace_twice_changes_nothing(void **state)
{
	const char *args[] = {"--flame", FIG1, FIG1, NULL};
	char *err, *svg = run_diff(args, &err), path[] = "/tmp/test_diff_flame-xml-XXXXXX", cmd[96];
	int fd = mkstemp(path);

	(void)state;
	assert_string_equal(err, "no stack waits longer in " FIG1 " than in " FIG1 "\n");
	assert_non_null(strstr(svg, "<title>fig1/A-&gt;fig1/B (B "));
	assert_non_null(strstr(svg, "nothing changed"));
	assert_int_equal(white_frames(svg), count(svg, "<g><title>"));
	assert_true(count(svg, "<g><title>") > 20);
	/* well-formed, when xmllint is there to say */
	assert_true(fd >= 0);
	assert_int_equal(write(fd, svg, strlen(svg)), (ssize_t)strlen(svg));
	close(fd);
	snprintf(cmd, sizeof(cmd), "! command -v xmllint >/dev/null || xmllint --noout %s", path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
	free(svg);
	free(err);
}

static void a_new_edge_grows_red(void **state)
{
	const char *args[] = {"--flame", FIG1, FIG1_THREAD, NULL};
	char *err, *svg = run_diff(args, &err), *frame;
	const char *first = "the stacks that grew most from " FIG1 " to " FIG1_THREAD ":\n"
			    "  +";

	(void)state;
	/* B waits for C only in the second recording: its edge grew most; three lines */
	if (strncmp(err, first, strlen(first)) || count(err, "\n  +") != 3 ||
	    !matches(err, ":\n  \\+[0-9]+ µs/s \\(0 -> [0-9]+\\): fig1/B->fig1/C;"))
		fail_msg("stderr: %s", err);
	frame = strstr(svg, "<title>fig1/B-&gt;fig1/C (B ");
	assert_non_null(frame);
	assert_non_null(strstr(frame, ", A 0 µs/s: new, +"));
	assert_non_null(strstr(frame, "fill=\"rgb(255,0,0)\"")); /* the largest change */
	assert_true(strstr(frame, "fill=\"rgb(255,0,0)\"") < strstr(frame, "</g>"));
	/* by B's widths, the disk that B waited for in the first is not drawn */
	assert_null(strstr(svg, "<title>fig1/B-&gt;disk:"));
	free(svg);
	free(err);
}

/* The counts of stack's line in folded text "STACK A B". */
static void counts_of(const char *text, const char *stack, double *a, double *b)
{
	char want[4096];
	const char *line;

	snprintf(want, sizeof(want), "\n%s ", stack);
	line = strstr(text, want);
	if (!line)
		fail_msg("no line of %s", stack);
	assert_int_equal(sscanf(line + strlen(want), "%lf %lf", a, b), 2);
}

static void folded_stacks_compare_functions(void **state)
{
	const char *by_function[] = {"--folded", "--normalize", "none", FIG1, FIG1_THREAD, NULL};
	const char *exact[] = {"--folded", "--exact-frames", FIG1, FIG1_THREAD, NULL};
	const char *per_op[] = {"--folded", "--normalize", "ops:1000,1000",
				FIG1,	    FIG1_THREAD,   NULL};
	char *err, *text = run_diff(by_function, &err), *per, *lines, stack[4096];
	double a, b, op_a, op_b;

	(void)state;
	free(err);
	/* "STACK A B", whole microseconds as recorded; frames by function */
	assert_true(matches(text, "^fig1/B->fig1/C;[^ ]+ 0 [0-9]+$"));
	assert_false(matches(text, "\\+0x[0-9a-f]+[]; ]"));
	assert_false(matches(text, ":[0-9]+\\)[; ]"));
	assert_true(matches(text, "_\\(futex-internal\\.c\\)[; ]"));
	lines = strdup(text);
	each_line_matches(lines, "^[^ ]+ [0-9]+ [0-9]+$");
	free(lines);
	/* per operation: each count a thousandth (A waits for B there in both) */
	assert_int_equal(sscanf(strstr(text, "\nfig1/A->fig1/B;__futex_abstimed_wait_common") + 1,
				"%4095s", stack),
			 1);
	counts_of(text, stack, &a, &b);
	assert_true(a > 0 && b > 0);
	per = run_diff(per_op, &err);
	counts_of(per, stack, &op_a, &op_b);
	assert_true(fabs(op_a * 1000 - a) < 0.5 && fabs(op_b * 1000 - b) < 0.5);
	free(per);
	free(err);
	free(text);
	/* as written: offsets and lines kept */
	text = run_diff(exact, &err);
	assert_true(matches(text, "\\+0x[0-9a-f]+[]; ]"));
	assert_true(matches(text, "_\\(futex-internal\\.c:[0-9]+\\)[; ]"));
	free(text);
	free(err);
}

/* diff with argv exits 2, its first line of stderr want. */
static void refused(char **argv, const char *want)
{
	int status;
	char *err = capture_stderr(cmd_diff, argv, &status);

	assert_int_equal(status, EXIT_ERROR);
	if (strncmp(err, want, strlen(want)))
		fail_msg("stderr: %s\nnot beginning with: %s", err, want);
	free(err);
}

static void flame_options_want_flame(void **state)
{
	char *json[] = {"diff", "--flame", "-f", "json", FIG1, FIG1, NULL};
	char *both[] = {"diff", "--flame", "--folded", FIG1, FIG1, NULL};
	char *alone[] = {"diff", "--widths", "max", FIG1, FIG1, NULL};
	char *widths[] = {"diff", "--flame", "--widths", "wide", FIG1, FIG1, NULL};
	char *ops[] = {"diff", "--flame", "--normalize", "ops:10,0", FIG1, FIG1, NULL};

	(void)state;
	refused(json, "wperf-bench diff: error: --flame writes an SVG, not -f json\n");
	refused(both, "wperf-bench diff: error: --flame or --folded: one output at a time\n");
	refused(alone, "wperf-bench diff: error: --normalize, --widths and --exact-frames go with "
		       "--flame or --folded\n");
	refused(widths, "wperf-bench diff: error: --widths is b, a or max, not 'wide'\n");
	refused(ops, "wperf-bench diff: error: --normalize is window, none, total or "
		     "ops:A_OPS,B_OPS (two numbers above 0), not 'ops:10,0'\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_same_trace_twice_changes_nothing),
	    cmocka_unit_test(a_new_edge_grows_red),
	    cmocka_unit_test(folded_stacks_compare_functions),
	    cmocka_unit_test(flame_options_want_flame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
