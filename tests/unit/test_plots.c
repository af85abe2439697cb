/* SPDX-License-Identifier: MIT */
/*
 * The plots of a run set (harness/run/plots.c), drawn by the real gnuplot (those
 * tests are skipped when it is not installed) into a temporary folder, and its
 * errors: a folder that cannot be made, gnuplot missing, gnuplot failing (a
 * fake gnuplot put first in PATH).
 *
 * The run set: five runs, throughput 990..1010 requests/s, and eight edges
 * whose median shares rank them 1st..8th: the heaviest has an identity with a
 * quote, a backslash and an underscore, the 6th one with a tab; the 7th ("seventh/...") and the 8th
 * ("sporadic/...", heavy in two runs but absent, so 0, in the three others)
 * are not among the six drawn.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/gate/runset.h"
#include "harness/run/plots.h"
#include "tests/lib/trace_builder.h"

#define N      5
#define TITLE  "fig1_demo@{x}"
#define TOP    "app/wr'it\\er_1"
#define TOP_TO "disk:254:0"

static const double tps[N] = {1000, 1010, 990, 1005, 995};

/* The edges, heaviest median first; the last one is heavy in runs 1 and 2 only. */
static const struct {
	const char *from, *to;
	double share[N];
} edges[] = {
    {TOP, TOP_TO, {0.50, 0.52, 0.48, 0.50, 0.51}},
    {"second/a", "second/b", {0.40, 0.41, 0.39, 0.40, 0.40}},
    {"third/a", "third/b", {0.30, 0.31, 0.29, 0.30, 0.30}},
    {"fourth/a", "fourth/b", {0.20, 0.21, 0.19, 0.20, 0.20}},
    {"fifth/a", "fifth/b", {0.15, 0.16, 0.14, 0.15, 0.15}},
    {"sixth/a", "sixth/\tb", {0.10, 0.11, 0.09, 0.10, 0.10}},
    {"seventh/a", "seventh/b", {0.05, 0.06, 0.04, 0.05, 0.05}},
    {"sporadic/a", "sporadic/b", {0.90, 0.90, 0, 0, 0}},
};

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/wperf-test-plots-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A path in the temporary directory; each caller passes its own storage. */
static const char *tpath(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
	return buf;
}

#define TPATH(name) tpath((char[512]){0}, 512, name)

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Does the SVG hold text s? gnuplot escapes & and < in text (and maybe >). */
static int svg_has(const char *svg, const char *s)
{
	char esc[512], gt[512];
	size_t e = 0, g = 0;

	for (; *s && e < sizeof(esc) - 8 && g < sizeof(gt) - 8; s++) {
		const char *rep = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : NULL;
		const char *rep_gt = *s == '>' ? "&gt;" : rep;

		e += (size_t)snprintf(esc + e, sizeof(esc) - e, "%s", rep ? rep : (char[2]){*s, 0});
		g += (size_t)snprintf(gt + g, sizeof(gt) - g, "%s",
				      rep_gt ? rep_gt : (char[2]){*s, 0});
	}
	return strstr(svg, esc) || strstr(svg, gt);
}

/* Five runs: throughput tp[i] (NULL: NaN for all), the edges above when with_edges. */
static void make_set(struct wperf_runset *rs, const double *tp, int with_edges)
{
	memset(rs, 0, sizeof(*rs));
	snprintf(rs->unit, sizeof(rs->unit), "requests/s");
	for (size_t i = 0; i < N; i++) {
		struct wperf_run r;

		wperf_run_init(&r);
		r.throughput = tp ? tp[i] : NAN;
		r.window_ns = 5000000000ull;
		for (size_t j = 0; with_edges && j < sizeof(edges) / sizeof(edges[0]); j++)
			if (edges[j].share[i] > 0)
				assert_int_equal(wperf_run_add_edge(&r, edges[j].from, edges[j].to,
								    edges[j].share[i]),
						 0);
		assert_int_equal(wperf_runset_add(rs, &r), 0);
	}
}

static int have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

#define NEED_GNUPLOT()                                                                             \
	do {                                                                                       \
		if (!have_gnuplot()) {                                                             \
			print_message("gnuplot is not installed (make deps)\n");                   \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

/* Runs plots_write into dir and fails the test, with the message, unless it succeeds. */
static void write_ok(const struct wperf_runset *rs, const char *dir)
{
	struct wperf_error err = {0};

	if (plots_write(rs, TITLE, dir, &err))
		fail_msg("plots_write: %s", err.msg);
}

static void assert_png(const char *path)
{
	size_t len;
	char *png = tb_read_file(path, &len);

	assert_true(len > 8);
	assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
	free(png);
}

static void assert_plot_files(const char *dir, const char *name, int present)
{
	static const char *const exts[] = {"svg", "png", "gp", "dat"};
	char path[512];

	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s.%s", dir, name, exts[i]);
		if (exists(path) != present)
			fail_msg("%s should %sexist", path, present ? "" : "not ");
	}
}

static void draws_both_plots(void **state)
{
	struct wperf_runset rs;
	const char *dir = TPATH("results/plots"); /* two levels to make */
	char *svg, *gp;

	(void)state;
	NEED_GNUPLOT();
	make_set(&rs, tps, 1);
	write_ok(&rs, dir);
	assert_plot_files(dir, "throughput", 1);
	assert_plot_files(dir, "edges", 1);
	assert_false(exists(TPATH("results/plots/gnuplot.log"))); /* removed on success */

	svg = tb_read_file(TPATH("results/plots/throughput.svg"), NULL);
	assert_true(svg_has(svg, TITLE)); /* noenhanced: not split into sub/superscripts */
	assert_true(svg_has(svg, "requests/s"));
	assert_true(svg_has(svg, "median (1000)"));
	free(svg);

	svg = tb_read_file(TPATH("results/plots/edges.svg"), NULL);
	assert_true(svg_has(svg, TITLE));
	assert_true(svg_has(svg, TOP " -> " TOP_TO));
	assert_true(svg_has(svg, "sixth/a -> sixth/?b")); /* a control byte */
	assert_false(svg_has(svg, "seventh/"));		  /* the 7th heaviest */
	assert_false(svg_has(svg, "sporadic/"));	  /* a median of 0 */
	free(svg);

	/* The script quotes the quote and keeps the backslash. */
	gp = tb_read_file(TPATH("results/plots/edges.gp"), NULL);
	assert_non_null(strstr(gp, "'app/wr''it\\er_1 -> disk:254:0' noenhanced"));
	free(gp);

	assert_png(TPATH("results/plots/throughput.png"));
	assert_png(TPATH("results/plots/edges.png"));

	/* Drawing again over the same folder is fine. */
	write_ok(&rs, dir);
	assert_png(TPATH("results/plots/edges.png"));
	wperf_runset_release(&rs);
}

/* Judged against a baseline, the throughput plot shows the baseline's runs as
 * a band (lowest..highest) and their median; the y axis starts at zero. */
static void baseline_band(void **state)
{
	static double base_tps[] = {1020, 980, 1000, 1015};
	struct wperf_baseline b = {.throughput = base_tps, .nthroughput = 4, .runs = 4};
	struct wperf_runset rs;
	struct wperf_error err = {0};
	const char *dir = TPATH("plots");
	char *svg, *gp;

	(void)state;
	NEED_GNUPLOT();
	make_set(&rs, tps, 0);
	if (plots_write_baseline(&rs, TITLE, &b, dir, &err))
		fail_msg("plots_write_baseline: %s", err.msg);
	svg = tb_read_file(TPATH("plots/throughput.svg"), NULL);
	assert_true(svg_has(svg, "baseline: 4 runs, 980..1020"));
	assert_true(svg_has(svg, "baseline median (1007.5)"));
	assert_true(svg_has(svg, "median (1000)"));
	free(svg);
	gp = tb_read_file(TPATH("plots/throughput.gp"), NULL);
	assert_non_null(strstr(gp, "'+' using 1:(980):(1020) with filledcurves"));
	assert_non_null(strstr(gp, "set yrange [0:*]\n"));
	free(gp);
	assert_png(TPATH("plots/throughput.png"));

	/* Without a baseline (or one that measured nothing): no band, still from zero. */
	b.nthroughput = 0;
	if (plots_write_baseline(&rs, TITLE, &b, dir, &err))
		fail_msg("plots_write_baseline: %s", err.msg);
	svg = tb_read_file(TPATH("plots/throughput.svg"), NULL);
	assert_false(svg_has(svg, "baseline"));
	free(svg);
	gp = tb_read_file(TPATH("plots/throughput.gp"), NULL);
	assert_non_null(strstr(gp, "set yrange [0:*]\n"));
	free(gp);
	wperf_runset_release(&rs);
}

static void no_throughput_no_throughput_plot(void **state)
{
	struct wperf_runset rs;
	const char *dir = TPATH("plots");
	char *svg;

	(void)state;
	NEED_GNUPLOT();
	/* Stale files of an earlier drawing go too. */
	make_set(&rs, tps, 1);
	write_ok(&rs, dir);
	assert_plot_files(dir, "throughput", 1);
	wperf_runset_release(&rs);

	make_set(&rs, NULL, 1);
	write_ok(&rs, dir);
	assert_plot_files(dir, "throughput", 0);
	assert_plot_files(dir, "edges", 1);
	svg = tb_read_file(TPATH("plots/edges.svg"), NULL);
	assert_true(svg_has(svg, TOP " -> " TOP_TO));
	free(svg);
	assert_png(TPATH("plots/edges.png"));
	wperf_runset_release(&rs);
}

static void no_edges_no_edges_plot(void **state)
{
	struct wperf_runset rs;
	const char *dir = TPATH("plots");

	(void)state;
	NEED_GNUPLOT();
	make_set(&rs, tps, 0);
	write_ok(&rs, dir);
	assert_plot_files(dir, "edges", 0);
	assert_plot_files(dir, "throughput", 1);
	assert_png(TPATH("plots/throughput.png"));
	wperf_runset_release(&rs);

	/* Neither: an empty folder, and gnuplot is not even needed. */
	make_set(&rs, NULL, 0);
	write_ok(&rs, TPATH("empty"));
	assert_plot_files(TPATH("empty"), "edges", 0);
	assert_plot_files(TPATH("empty"), "throughput", 0);
	wperf_runset_release(&rs);
}

static void folder_that_cannot_be_made(void **state)
{
	struct wperf_runset rs;
	struct wperf_error err = {0};
	const char *file = TPATH("file"), *dir = TPATH("file/plots");
	int fd = open(file, O_WRONLY | O_CREAT, 0644);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	make_set(&rs, tps, 1);
	assert_int_equal(plots_write(&rs, TITLE, dir, &err), -ENOTDIR);
	if (!strstr(err.msg, dir))
		fail_msg("the message does not name %s: %s", dir, err.msg);

	/* The folder itself a file. */
	memset(&err, 0, sizeof(err));
	assert_int_equal(plots_write(&rs, TITLE, file, &err), -ENOTDIR);
	if (!strstr(err.msg, file))
		fail_msg("the message does not name %s: %s", file, err.msg);
	wperf_runset_release(&rs);
}

/* plots_write with PATH set to path, then PATH put back. */
static int plots_with_path(const char *path, const struct wperf_runset *rs, const char *dir,
			   struct wperf_error *err)
{
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	int e;

	setenv("PATH", path, 1);
	e = plots_write(rs, TITLE, dir, err);
	if (saved)
		setenv("PATH", saved, 1);
	else
		unsetenv("PATH");
	free(saved);
	return e;
}

static void gnuplot_missing_says_make_deps(void **state)
{
	struct wperf_runset rs;
	struct wperf_error err = {0};
	const char *bin = TPATH("nobin");

	(void)state;
	assert_int_equal(mkdir(bin, 0755), 0);
	make_set(&rs, tps, 1);
	assert_int_equal(plots_with_path(bin, &rs, TPATH("plots"), &err), -ENOENT);
	if (!strstr(err.msg, "make deps") || !strstr(err.msg, "gnuplot-nox"))
		fail_msg("no advice in: %s", err.msg);
	assert_false(exists(TPATH("plots/throughput.svg")));
	wperf_runset_release(&rs);
}

static void gnuplot_failing_is_quoted(void **state)
{
	struct wperf_runset rs;
	struct wperf_error err = {0};
	const char *bin = TPATH("bin"), *fake = TPATH("bin/gnuplot");
	const char *script = "#!/bin/sh\n"
			     "printf '\\n\"%s\" line 7: something broke\\n\\n' \"$1\" >&2\n"
			     "echo half > throughput.svg\n"
			     "exit 1\n";
	FILE *f;

	(void)state;
	assert_int_equal(mkdir(bin, 0755), 0);
	f = fopen(fake, "w");
	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	assert_int_equal(chmod(fake, 0755), 0);
	make_set(&rs, tps, 1);
	assert_int_equal(plots_with_path(bin, &rs, TPATH("plots"), &err), -EIO);
	if (!strstr(err.msg, "\"throughput.gp\" line 7: something broke") ||
	    !strstr(err.msg, "exited with status 1"))
		fail_msg("gnuplot's error is not quoted: %s", err.msg);
	/* No half-drawn picture; the script, its data and the log stay to look at. */
	assert_false(exists(TPATH("plots/throughput.svg")));
	assert_true(exists(TPATH("plots/throughput.gp")));
	assert_true(exists(TPATH("plots/throughput.dat")));
	assert_true(exists(TPATH("plots/gnuplot.log")));
	wperf_runset_release(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(draws_both_plots, setup, teardown),
	    cmocka_unit_test_setup_teardown(baseline_band, setup, teardown),
	    cmocka_unit_test_setup_teardown(no_throughput_no_throughput_plot, setup, teardown),
	    cmocka_unit_test_setup_teardown(no_edges_no_edges_plot, setup, teardown),
	    cmocka_unit_test_setup_teardown(folder_that_cannot_be_made, setup, teardown),
	    cmocka_unit_test_setup_teardown(gnuplot_missing_says_make_deps, setup, teardown),
	    cmocka_unit_test_setup_teardown(gnuplot_failing_is_quoted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
