/* SPDX-License-Identifier: MIT */
/*
 * The differential flame graph (core/report/flame.c, flame_svg.c): the parser of
 * folded stacks and its errors, the tree's counts, the SVG's widths, colours,
 * escaping and well-formedness (xmllint when it is installed), the
 * differential folded stacks, the stacks that grew most, scaling, and that the
 * same stacks in any order give the same bytes.
 */
#include <errno.h>
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

#include "core/report/flame.h"

/* The drawing width of a 1200 px picture: 10 px margins. */
#define DRAWN_PX 1180.0

static struct wperf_flame *flame(void)
{
	struct wperf_flame *f = NULL;

	assert_int_equal(wperf_flame_new(&f), 0);
	return f;
}

/* Parses text into side; the return value, err's message in msg. */
static int parse(struct wperf_flame *f, enum wperf_flame_side side, const char *text, char *msg)
{
	struct wperf_error err = {0};
	int ret = wperf_flame_parse(f, side, text, strlen(text), &err);

	strcpy(msg, err.msg);
	return ret;
}

/* The SVG of f with o (NULL: the defaults), NUL-ended; the caller frees it. */
static char *svg_of(const struct wperf_flame *f, const struct wperf_flame_opts *o)
{
	struct wperf_buf out = {0};

	assert_int_equal(wperf_flame_svg(f, o, &out), 0);
	assert_int_equal(wperf_buf_append(&out, "", 1), 0);
	return (char *)out.data;
}

/* What the SVG draws for the frame named name (its title begins "NAME ("):
 * its rectangle's x, width and fill; 0 when it is not drawn. */
static int frame_of(const char *svg, const char *name, double *x, double *width, char fill[32])
{
	char title[256];
	const char *at;

	snprintf(title, sizeof(title), "<g><title>%s (", name);
	at = strstr(svg, title);
	if (!at)
		return 0;
	at = strstr(at, "<rect ");
	assert_non_null(at);
	assert_int_equal(sscanf(at,
				"<rect x=\"%lf\" y=\"%*u\" width=\"%lf\" height=\"%*d\" rx=\"2\" "
				"fill=\"%31[^\"]\"",
				x, width, fill),
			 3);
	return 1;
}

/* Pixels as the SVG writes them, to the hundredth. */
static void assert_px(double got, double want)
{
	if (fabs(got - want) > 0.006)
		fail_msg("%.3f px, not %.3f", got, want);
}

static void assert_fill(const char *svg, const char *name, const char *want)
{
	double x, w;
	char fill[32];

	if (!frame_of(svg, name, &x, &w, fill))
		fail_msg("frame %s not drawn", name);
	assert_string_equal(fill, want);
}

static void assert_parse_error(const char *text, const char *want)
{
	struct wperf_flame *f = flame();
	char msg[WPERF_ERROR_MSG_LEN];

	assert_int_equal(parse(f, WPERF_FLAME_A, text, msg), -EINVAL);
	assert_string_equal(msg, want);
	wperf_flame_free(f);
}

static void parse_errors_name_the_line(void **state)
{
	char nul[] = "a 1\nb\0c 2\n";
	struct wperf_flame *f = flame();
	struct wperf_error err = {0};
	double a, b;
	char msg[WPERF_ERROR_MSG_LEN];

	(void)state;
	assert_parse_error("a;b 1\n\nc 2\nno_count\n",
			   "line 4: no count after the stack (FRAME;FRAME;... COUNT)");
	assert_parse_error("a 1\na;;b 3\n", "line 2: an empty frame (';;', or ';' at an end)");
	assert_parse_error("a; 3", "line 1: an empty frame (';;', or ';' at an end)");
	assert_parse_error("a -1\n", "line 1: '-1' is not a count (a number >= 0)");
	assert_parse_error("a 1e999\n", "line 1: '1e999' is not a count (a number >= 0)");
	assert_parse_error("a 12x\n", "line 1: '12x' is not a count (a number >= 0)");
	assert_parse_error("\n   7\n", "line 2: no stack before the count");
	assert_int_equal(wperf_flame_parse(f, WPERF_FLAME_B, nul, sizeof(nul) - 1, &err), -EINVAL);
	assert_string_equal(err.msg, "line 2: a NUL byte");
	/* the lines before the bad one stay */
	assert_int_equal(wperf_flame_counts(f, "a", &a, &b), 0);
	assert_true(a == 0 && b == 1);
	/* CRLF, tabs, trailing blanks and a last line without '\n' are fine */
	assert_int_equal(parse(f, WPERF_FLAME_A, "x;y\t2\r\nx 3  \r\nx;y 0.5", msg), 0);
	assert_int_equal(wperf_flame_counts(f, "x;y", &a, &b), 0);
	assert_true(a == 2.5 && b == 0);
	wperf_flame_free(f);
}

static void too_many_frames_are_refused(void **state)
{
	struct wperf_flame *f = flame();
	size_t n = WPERF_FLAME_MAX_FRAMES + 1;
	char *line = malloc(2 * n + 4), msg[WPERF_ERROR_MSG_LEN];
	const char **frames = malloc(n * sizeof(*frames));

	(void)state;
	for (size_t i = 0; i < n; i++) {
		memcpy(line + 2 * i, "f;", 2);
		frames[i] = "f";
	}
	strcpy(line + 2 * n - 1, " 1\n");
	assert_int_equal(parse(f, WPERF_FLAME_A, line, msg), -EINVAL);
	assert_string_equal(msg, "line 1: more than 2048 frames");
	assert_int_equal(wperf_flame_add(f, frames, n, 1, 1), -EINVAL);
	assert_int_equal(wperf_flame_add(f, frames, n - 1, 1, 1), 0);
	free(line);
	free(frames);
	wperf_flame_free(f);
}

static void the_tree_sums_both_sides(void **state)
{
	struct wperf_flame *f = flame();
	const char *abc[] = {"a", "b", "c"}, *empty[] = {"a", ""};
	double a, b;
	char msg[WPERF_ERROR_MSG_LEN];

	(void)state;
	assert_int_equal(parse(f, WPERF_FLAME_A, "a;b 10\na;b;c 5\nd 1\n", msg), 0);
	assert_int_equal(parse(f, WPERF_FLAME_B, "a;b;c 7\na;b 2\n", msg), 0);
	assert_int_equal(wperf_flame_add(f, abc, 3, 1, 1), 0);
	assert_int_equal(wperf_flame_add_stack(f, "a;e", 0, 4), 0);
	assert_int_equal(wperf_flame_counts(f, "", &a, &b), 0);
	assert_true(a == 17 && b == 14);
	wperf_flame_totals(f, &a, &b);
	assert_true(a == 17 && b == 14);
	assert_int_equal(wperf_flame_counts(f, "a", &a, &b), 0);
	assert_true(a == 16 && b == 14);
	assert_int_equal(wperf_flame_counts(f, "a;b", &a, &b), 0);
	assert_true(a == 16 && b == 10);
	assert_int_equal(wperf_flame_counts(f, "a;b;c", &a, &b), 0);
	assert_true(a == 6 && b == 8);
	assert_int_equal(wperf_flame_counts(f, "a;e", &a, &b), 0);
	assert_true(a == 0 && b == 4);
	assert_int_equal(wperf_flame_counts(f, "a;x", &a, &b), -ENOENT);
	assert_int_equal(wperf_flame_counts(f, "b", &a, &b), -ENOENT);
	/* nothing on either side adds nothing; bad stacks and counts add nothing */
	assert_int_equal(wperf_flame_add_stack(f, "z", 0, 0), 0);
	assert_int_equal(wperf_flame_counts(f, "z", &a, &b), -ENOENT);
	assert_int_equal(wperf_flame_add_stack(f, "", 1, 1), -EINVAL);
	assert_int_equal(wperf_flame_add_stack(f, "y;", 1, 1), -EINVAL);
	assert_int_equal(wperf_flame_add(f, empty, 2, 1, 1), -EINVAL);
	assert_int_equal(wperf_flame_add(f, abc, 0, 1, 1), -EINVAL);
	assert_int_equal(wperf_flame_add_stack(f, "y", -1, 1), -EINVAL);
	assert_int_equal(wperf_flame_add_stack(f, "y", 1, NAN), -EINVAL);
	assert_int_equal(wperf_flame_counts(f, "y", &a, &b), -ENOENT);
	wperf_flame_free(f);
}

static void colours_say_what_changed(void **state)
{
	struct wperf_flame *f = flame();
	struct wperf_flame_opts o = {.width = WPERF_FLAME_WIDTH_MAX};
	char *svg;

	(void)state;
	assert_int_equal(wperf_flame_add_stack(f, "only_b", 0, 10), 0);
	assert_int_equal(wperf_flame_add_stack(f, "only_a", 10, 0), 0);
	assert_int_equal(wperf_flame_add_stack(f, "same;deeper", 5, 5), 0);
	assert_int_equal(wperf_flame_add_stack(f, "half_more", 10, 15), 0);
	svg = svg_of(f, &o);
	assert_fill(svg, "only_b", "rgb(255,0,0)");
	assert_fill(svg, "only_a", "rgb(0,0,255)");
	assert_fill(svg, "same", "rgb(255,255,255)");
	assert_fill(svg, "deeper", "rgb(255,255,255)");
	assert_fill(svg, "half_more", "rgb(255,105,105)"); /* +5 of the largest 10 */
	assert_non_null(strstr(svg, "<title>only_b (B 10 µs, A 0 µs: new, +10 µs)</title>"));
	assert_non_null(strstr(svg, "<title>only_a (B 0 µs, A 10 µs: -100.0%, -10 µs)</title>"));
	assert_non_null(strstr(svg, "<title>same (B 5 µs, A 5 µs: no change)</title>"));
	assert_non_null(strstr(svg, "<title>half_more (B 15 µs, A 10 µs: +50.0%, +5 µs)</title>"));
	assert_non_null(strstr(svg, "the deepest at 10 µs"));
	free(svg);
	/* B's widths (the default): what vanished in B is not drawn */
	svg = svg_of(f, NULL);
	assert_fill(svg, "only_b", "rgb(255,0,0)");
	assert_null(strstr(svg, "<title>only_a ("));
	free(svg);
	wperf_flame_free(f);
}

static void widths_follow_the_chosen_side(void **state)
{
	struct wperf_flame *f = flame();
	struct wperf_flame_opts o = {0};
	double x, w;
	char fill[32], *svg;

	(void)state;
	assert_int_equal(wperf_flame_add_stack(f, "b;inner", 10, 30), 0);
	assert_int_equal(wperf_flame_add_stack(f, "a", 30, 10), 0);
	assert_int_equal(wperf_flame_add_stack(f, "c", 40, 0), 0);
	svg = svg_of(f, &o);
	/* siblings by name: a, then b; c has no time in B */
	assert_true(frame_of(svg, "all", &x, &w, fill));
	assert_px(x, 10);
	assert_px(w, DRAWN_PX);
	assert_true(frame_of(svg, "a", &x, &w, fill));
	assert_px(x, 10);
	assert_px(w, DRAWN_PX / 4);
	assert_true(frame_of(svg, "b", &x, &w, fill));
	assert_px(x, 10 + DRAWN_PX / 4);
	assert_px(w, DRAWN_PX * 3 / 4);
	assert_true(frame_of(svg, "inner", &x, &w, fill));
	assert_px(x, 10 + DRAWN_PX / 4);
	assert_px(w, DRAWN_PX * 3 / 4);
	assert_false(frame_of(svg, "c", &x, &w, fill));
	free(svg);
	/* A's: 30 + 10 + 40 */
	o.width = WPERF_FLAME_WIDTH_A;
	svg = svg_of(f, &o);
	assert_true(frame_of(svg, "a", &x, &w, fill));
	assert_px(x, 10);
	assert_px(w, DRAWN_PX * 3 / 8);
	assert_true(frame_of(svg, "c", &x, &w, fill));
	assert_px(x, 10 + DRAWN_PX / 2);
	assert_px(w, DRAWN_PX / 2);
	assert_fill(svg, "c", "rgb(0,0,255)");
	free(svg);
	/* the larger of each stack's: 30 + 30 + 40 */
	o.width = WPERF_FLAME_WIDTH_MAX;
	svg = svg_of(f, &o);
	assert_true(frame_of(svg, "b", &x, &w, fill));
	assert_px(x, 10 + DRAWN_PX * 0.3);
	assert_px(w, DRAWN_PX * 0.3);
	free(svg);
	wperf_flame_free(f);
}

static void narrow_frames_go_and_names_are_cut(void **state)
{
	struct wperf_flame *f = flame();
	struct wperf_flame_opts o = {.image_px = 220}; /* 200 px drawn */
	double x, w;
	char fill[32], *svg;

	(void)state;
	assert_int_equal(wperf_flame_add_stack(f, "a_rather_long_function_name", 0, 100000), 0);
	assert_int_equal(wperf_flame_add_stack(f, "tiny;tinier", 0, 0.05), 0); /* 0.0001 px */
	assert_int_equal(wperf_flame_add_stack(f, "short;three", 0, 2000), 0); /* 3.9 px */
	svg = svg_of(f, &o);
	assert_false(frame_of(svg, "tiny", &x, &w, fill));
	assert_non_null(strstr(svg, "; 1 frame under 0.1 px left out"));
	/* 196 px: 27 characters of 7.08 px fit, the name has 27 */
	assert_non_null(strstr(svg, ">a_rather_long_function_name</text>"));
	assert_true(frame_of(svg, "short", &x, &w, fill));
	assert_non_null(strstr(strstr(svg, "<title>short ("), "\"></text>"));
	free(svg);
	o.image_px = 100; /* 80 px: 10 characters */
	svg = svg_of(f, &o);
	assert_non_null(strstr(svg, ">a_rather..</text>"));
	free(svg);
	o.min_frame_px = 1;
	o.image_px = 0;
	svg = svg_of(f, &o);
	assert_non_null(strstr(svg, "; 1 frame under 1 px left out"));
	free(svg);
	wperf_flame_free(f);
}

/* Is text well-formed XML? xmllint says, when it is installed; otherwise
 * the elements this writer writes must open and close in pairs. */
static void assert_well_formed(const char *text)
{
	char path[] = "/tmp/test_flame_svg-XXXXXX", cmd[128];
	int fd;

	if (system("command -v xmllint >/dev/null 2>&1") != 0) {
		const char *tags[][2] = {
		    {"<g>", "</g>"}, {"<text ", "</text>"}, {"<svg ", "</svg>"}};

		for (size_t i = 0; i < 3; i++) {
			size_t open = 0, close = 0;

			for (const char *p = text; (p = strstr(p, tags[i][0])); p++)
				open++;
			for (const char *p = text; (p = strstr(p, tags[i][1])); p++)
				close++;
			assert_int_equal(open, close);
		}
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

static void names_are_escaped(void **state)
{
	struct wperf_flame *f = flame();
	const char *frames[] = {"std::vector<int>&", "say \"it's\"", "bad\xff\x01utf8", "µs;ok"};
	struct wperf_flame_opts o = {.title = "A & B <diff>", .unit = "µs/op"};
	struct wperf_buf folded = {0};
	char *svg;

	(void)state;
	assert_int_equal(wperf_flame_add(f, frames, 4, 1, 2), 0);
	svg = svg_of(f, &o);
	assert_non_null(strstr(svg, "<title>std::vector&lt;int&gt;&amp; (B 2 µs/op"));
	assert_non_null(strstr(svg, ">std::vector&lt;int&gt;&amp;</text>"));
	assert_non_null(strstr(svg, "<title>say &quot;it&apos;s&quot; (B 2"));
	assert_non_null(strstr(svg, "<title>bad??utf8 (B 2"));
	assert_non_null(strstr(svg, "<title>µs;ok (B 2"));
	assert_non_null(strstr(svg, ">A &amp; B &lt;diff&gt;</text>"));
	assert_null(strstr(svg, "<int>"));
	assert_well_formed(svg);
	free(svg);
	/* a folded line has no ';' or space inside a frame */
	assert_int_equal(wperf_flame_folded(f, NULL, &folded), 0);
	assert_int_equal(wperf_buf_append(&folded, "", 1), 0);
	assert_string_equal((char *)folded.data,
			    "std::vector<int>&;say_\"it's\";bad\xff_utf8;µs_ok 1 2\n");
	wperf_buf_release(&folded);
	wperf_flame_free(f);
}

/* The text of wperf_flame_growing(f, o, n), NUL-ended; the caller frees it. */
static char *growing(const struct wperf_flame *f, const struct wperf_flame_opts *o, size_t n)
{
	struct wperf_buf out = {0};

	assert_int_equal(wperf_flame_growing(f, o, n, &out), 0);
	assert_int_equal(wperf_buf_append(&out, "", 1), 0);
	return (char *)out.data;
}

static void the_stacks_that_grew_most_come_first(void **state)
{
	struct wperf_flame *f = flame();
	char *text;

	(void)state;
	assert_int_equal(wperf_flame_add_stack(f, "edge;wait;small", 1, 6), 0);
	assert_int_equal(wperf_flame_add_stack(f, "edge;wait", 10, 30), 0); /* its own time */
	assert_int_equal(wperf_flame_add_stack(f, "edge;other", 0, 10), 0);
	assert_int_equal(wperf_flame_add_stack(f, "edge;same", 4, 4), 0);
	assert_int_equal(wperf_flame_add_stack(f, "gone", 50, 0), 0);
	assert_int_equal(wperf_flame_add_stack(f, "tie", 0, 10), 0);
	text = growing(f, NULL, 10);
	/* the ties in the tree's order: edge;other before tie */
	assert_string_equal(text, "+20 µs (10 -> 30): edge;wait\n"
				  "+10 µs (0 -> 10): edge;other\n"
				  "+10 µs (0 -> 10): tie\n"
				  "+5 µs (1 -> 6): edge;wait;small\n");
	free(text);
	text = growing(f, NULL, 2);
	assert_string_equal(text, "+20 µs (10 -> 30): edge;wait\n"
				  "+10 µs (0 -> 10): edge;other\n");
	free(text);
	wperf_flame_free(f);
	/* nothing grew: nothing */
	f = flame();
	assert_int_equal(wperf_flame_add_stack(f, "a", 5, 5), 0);
	assert_int_equal(wperf_flame_add_stack(f, "b", 5, 1), 0);
	text = growing(f, NULL, 3);
	assert_string_equal(text, "");
	free(text);
	wperf_flame_free(f);
}

static void each_side_is_scaled(void **state)
{
	struct wperf_flame *f = flame();
	/* A did 1000 operations, B 4000: per operation, B waits less */
	struct wperf_flame_opts o = {.scale_a = 1.0 / 1000, .scale_b = 1.0 / 4000, .unit = "µs/op"};
	struct wperf_buf folded = {0};
	char *svg, *text;
	double a, b;

	(void)state;
	assert_int_equal(wperf_flame_add_stack(f, "lock", 1000, 2000), 0);
	assert_int_equal(wperf_flame_add_stack(f, "disk", 500, 2000), 0);
	svg = svg_of(f, &o);
	assert_fill(svg, "lock", "rgb(0,0,255)");     /* 1 -> 0.5 µs/op, the largest change */
	assert_fill(svg, "disk", "rgb(255,255,255)"); /* 0.5 -> 0.5 */
	assert_non_null(strstr(svg, "<title>lock (B 0.5 µs/op, A 1 µs/op: -50.0%, -0.5 µs/op)"));
	free(svg);
	text = growing(f, &o, 3);
	assert_string_equal(text, "");
	free(text);
	assert_int_equal(wperf_flame_folded(f, &o, &folded), 0);
	assert_int_equal(wperf_buf_append(&folded, "", 1), 0);
	assert_string_equal((char *)folded.data, "disk 0.5 0.5\nlock 1 0.5\n");
	wperf_buf_release(&folded);
	/* B scaled to A's total, as difffolded.pl -n: the counts stay unscaled */
	wperf_flame_totals(f, &a, &b);
	assert_true(a == 1500 && b == 4000);
	o = (struct wperf_flame_opts){.scale_b = a / b};
	assert_int_equal(wperf_flame_folded(f, &o, &folded), 0);
	assert_int_equal(wperf_buf_append(&folded, "", 1), 0);
	assert_string_equal((char *)folded.data, "disk 500 750\nlock 1000 750\n");
	wperf_buf_release(&folded);
	wperf_flame_free(f);
}

/* Every output of the stacks of text added line by line in the order of
 * order (line indexes), into one buffer. */
static void outputs_in_order(const char *const *lines, const size_t *order, size_t n,
			     struct wperf_buf *out)
{
	struct wperf_flame *f = flame();
	struct wperf_flame_opts o = {.width = WPERF_FLAME_WIDTH_MAX};
	char msg[WPERF_ERROR_MSG_LEN];

	for (size_t i = 0; i < n; i++)
		assert_int_equal(
		    parse(f, order[i] % 2 ? WPERF_FLAME_B : WPERF_FLAME_A, lines[order[i]], msg),
		    0);
	assert_int_equal(wperf_flame_svg(f, &o, out), 0);
	assert_int_equal(wperf_flame_folded(f, &o, out), 0);
	assert_int_equal(wperf_flame_growing(f, &o, 5, out), 0);
	wperf_flame_free(f);
}

/* first and then second are in text, in this order. */
static void assert_before(const char *text, const char *first, const char *second)
{
	const char *one = strstr(text, first), *two = strstr(text, second);

	assert_non_null(one);
	assert_non_null(two);
	assert_true(one < two);
}

static void the_same_stacks_give_the_same_bytes(void **state)
{
	const char *const lines[] = {
	    "e->f;main;wait;--;wake 10\n",
	    "e->f;main;wait;--;wake 12\n",
	    "e->f;main;poll 3\n",
	    "a->b;x 7\n",
	    "a->b;x;y 1\n",
	    "z->a 2\n",
	    "e->f;main;zz 4\n",
	    "e->f;main;aa 4\n",
	};
	const size_t forward[] = {0, 1, 2, 3, 4, 5, 6, 7}, backward[] = {7, 6, 5, 4, 3, 2, 1, 0},
		     mixed[] = {4, 1, 6, 3, 0, 5, 2, 7};
	struct wperf_buf one = {0}, two = {0}, three = {0};

	(void)state;
	outputs_in_order(lines, forward, 8, &one);
	outputs_in_order(lines, backward, 8, &two);
	outputs_in_order(lines, mixed, 8, &three);
	assert_int_equal(one.len, two.len);
	assert_memory_equal(one.data, two.data, one.len);
	assert_int_equal(one.len, three.len);
	assert_memory_equal(one.data, three.data, one.len);
	assert_int_equal(wperf_buf_append(&one, "", 1), 0);
	/* siblings by name: a->b before e->f, aa before poll before wait */
	assert_before((char *)one.data, "<title>a-&gt;b (", "<title>e-&gt;f (");
	assert_before((char *)one.data, "e->f;main;aa 0 4\n", "e->f;main;poll 3 0\n");
	assert_before((char *)one.data, "e->f;main;poll 3 0\n", "e->f;main;wait;--;wake 10 12\n");
	wperf_buf_release(&one);
	wperf_buf_release(&two);
	wperf_buf_release(&three);
}

static void the_svg_is_well_formed(void **state)
{
	struct wperf_flame *f = flame();
	char msg[WPERF_ERROR_MSG_LEN], *svg;

	(void)state;
	/* empty: a picture that says so */
	svg = svg_of(f, NULL);
	assert_non_null(strstr(svg, "no stack has time to draw"));
	assert_well_formed(svg);
	free(svg);
	assert_int_equal(parse(f, WPERF_FLAME_A,
			       "fig1/A->fig1/B;funA_(fig1.c:10);futex_wait+0x67;--;try_to_wake_up "
			       "1500\nfig1/B->disk:254:0;fsync_(libc.so.6) 900\n",
			       msg),
			 0);
	assert_int_equal(parse(f, WPERF_FLAME_B,
			       "fig1/A->fig1/B;funA_(fig1.c:10);futex_wait+0x67;--;try_to_wake_up "
			       "1700\nfig1/B->fig1/C;funB_(fig1.c:20) 800\n",
			       msg),
			 0);
	svg = svg_of(f, NULL);
	assert_true(!strncmp(
	    svg, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n<svg ", 60));
	assert_non_null(strstr(svg, "onload=\"init(evt)\""));
	assert_non_null(strstr(svg, "<script><![CDATA["));
	assert_non_null(strstr(svg, "function zoom("));
	assert_non_null(strstr(svg, "function search("));
	assert_non_null(strstr(svg, "<text id=\"search\""));
	assert_non_null(strstr(svg, "<text id=\"details\""));
	assert_well_formed(svg);
	free(svg);
	wperf_flame_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_errors_name_the_line),
	    cmocka_unit_test(too_many_frames_are_refused),
	    cmocka_unit_test(the_tree_sums_both_sides),
	    cmocka_unit_test(colours_say_what_changed),
	    cmocka_unit_test(widths_follow_the_chosen_side),
	    cmocka_unit_test(narrow_frames_go_and_names_are_cut),
	    cmocka_unit_test(names_are_escaped),
	    cmocka_unit_test(the_stacks_that_grew_most_come_first),
	    cmocka_unit_test(each_side_is_scaled),
	    cmocka_unit_test(the_same_stacks_give_the_same_bytes),
	    cmocka_unit_test(the_svg_is_well_formed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
