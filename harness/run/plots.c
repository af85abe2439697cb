/* SPDX-License-Identifier: MIT */
/*
 * The plots of a run set (see plots.h).
 *
 * Each plot is a gnuplot script and its data, written into the folder first and
 * then run by gnuplot with the folder as its working directory. The script names
 * its files without a folder, so that people can redraw a plot by hand wherever
 * the folder is copied to. One run of gnuplot draws both pictures of a plot: the
 * SVG, then the PNG by replot.
 *
 * Identities are arbitrary (valid UTF-8) bytes of thread names: they reach
 * gnuplot only inside single-quoted strings, where a backslash is an ordinary
 * byte and a quote is written twice, with enhanced text mode off everywhere so
 * that _, ^, @ and braces print as themselves.
 */
#include "harness/run/plots.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/gate/stats.h"
#include "harness/base/output.h"
#include "harness/base/spawn.h"

#define LOG_NAME  "gnuplot.log"
#define QUOTE_MAX 200 /* how much of gnuplot's output an error quotes */

/* The files of a plot NAME: NAME.svg, NAME.png, NAME.gp, NAME.dat. */
static const char *const plot_exts[] = {"svg", "png", "gp", "dat"};

/* An edge of the run set and its median share over the runs. */
struct top_edge {
	const char *from, *to; /* borrowed from the run set */
	double median;
};

/* dir/name, or dir/name.ext when ext is given; -ENAMETOOLONG when it does not fit. */
static int join(char *path, size_t size, const char *dir, const char *name, const char *ext,
		struct wperf_error *err)
{
	int n = ext ? snprintf(path, size, "%s/%s.%s", dir, name, ext)
		    : snprintf(path, size, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= size)
		return wperf_error_set(err, -ENAMETOOLONG, "the path %s/%s is too long", dir, name);
	return 0;
}

/* Makes dir and its missing parents, as mkdir -p does. */
/*
 * Appends s to go inside a gnuplot single-quoted string (quote the quotes), or,
 * when for_gp is 0, into a comment of a data file. Control bytes would end the
 * command or the comment line (a thread name may hold a newline): they become '?'.
 */
static int append_text(struct wperf_buf *b, const char *s, int for_gp)
{
	int e = 0;

	for (; *s && !e; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'' && for_gp)
			e = wperf_buf_append(b, "''", 2);
		else if (c < 0x20 || c == 0x7f)
			e = wperf_buf_append(b, "?", 1);
		else
			e = wperf_buf_append(b, s, 1);
	}
	return e;
}

/* "FROM -> TO" of edge, each name as append_text writes it. */
static int append_edge(struct wperf_buf *b, const struct top_edge *edge, int for_gp)
{
	int e = append_text(b, edge->from, for_gp);

	if (!e)
		e = wperf_buf_printf(b, " -> ");
	if (!e)
		e = append_text(b, edge->to, for_gp);
	return e;
}

/* The x axis's tics: x's labels, or whole runs (at most about 20 labelled). */
static int script_xtics(struct wperf_buf *gp, const struct plots_axis *x, size_t nruns)
{
	size_t step = nruns <= 20 ? 1 : (nruns + 19) / 20;
	int e;

	if (!x)
		return wperf_buf_printf(gp, "set xtics 1,%zu format '%%.0f'\n", step);
	e = wperf_buf_printf(gp, "set xtics rotate by -30 (");
	for (size_t i = 0; !e && i < nruns; i++) {
		e = wperf_buf_printf(gp, "%s'", i ? ", " : "");
		if (!e)
			e = append_text(gp, x->labels[i], 1);
		if (!e)
			e = wperf_buf_printf(gp, "' %zu", i + 1);
	}
	return e ? e : wperf_buf_printf(gp, ")\n");
}

/* The marks as dashed red vertical lines at their points, and the label of
 * the x axis (named axis) saying what they are. */
static int script_marks(struct wperf_buf *gp, const char *axis, const struct plots_marks *marks)
{
	int e = 0;

	for (size_t i = 0; !e && i < marks->n; i++)
		e = wperf_buf_printf(
		    gp,
		    "set arrow from %zu, graph 0 to %zu, graph 1 nohead dt 2 lw 1.5 "
		    "lc rgb '#cc0000'\n",
		    marks->at[i] + 1, marks->at[i] + 1);
	if (!e && marks->n)
		e = wperf_buf_printf(gp, "set xlabel '%s (dashed: a change point)' noenhanced\n",
				     axis);
	return e;
}

/* The start of the script of plot name: the SVG terminal, the title (the
 * scenario's, then what, then "per run" or per x's name), the key and the x
 * axis: points 1..nruns, marks at the points of marks (NULL: none). */
static int script_head(struct wperf_buf *gp, const char *name, const char *title, const char *what,
		       const struct plots_axis *x, const struct plots_marks *marks, size_t nruns)
{
	const char *axis = x ? x->name : "run";
	int e = wperf_buf_printf(gp,
				 "# Drawn by wperf-bench from %s.dat. To redraw: gnuplot %s.gp\n"
				 "set encoding utf8\n"
				 "set datafile missing 'NaN'\n"
				 "set terminal svg size 800,480 dynamic background rgb 'white' "
				 "noenhanced\n"
				 "set output '%s.svg'\n"
				 "set title '",
				 name, name, name);

	if (!e)
		e = append_text(gp, title, 1);
	if (!e)
		e = wperf_buf_printf(gp,
				     ": %s per %s' noenhanced\n"
				     "set key below noenhanced\n"
				     "set grid ytics\n"
				     "set xlabel '%s' noenhanced\n"
				     "set xrange [0.5:%zu.5]\n",
				     what, axis, axis, nruns);
	if (!e && marks)
		e = script_marks(gp, axis, marks);
	return e ? e : script_xtics(gp, x, nruns);
}

/* The end of a script: the same plot again as a PNG. */
static int script_tail(struct wperf_buf *gp, const char *name)
{
	return wperf_buf_printf(gp,
				"set terminal pngcairo size 800,480 noenhanced\n"
				"set output '%s.png'\n"
				"replot\n"
				"set output\n",
				name);
}

/* Removes the files of plot name that exist in dir (pictures only, or all). */
static void remove_plot(const char *dir, const char *name, int pictures_only)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < (pictures_only ? 2 : 4); i++)
		if (!join(path, sizeof(path), dir, name, plot_exts[i], NULL))
			unlink(path);
}

/* Replaces whitespace runs of s (NUL-terminated) with one space, in place. */
static void squeeze(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		int space = *r == '\n' || *r == '\r' || *r == '\t' || *r == ' ';

		if (space && (w == s || w[-1] == ' '))
			continue;
		*w++ = space ? ' ' : *r;
	}
	while (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

/*
 * Runs `gnuplot NAME.gp` in dir, its output to dir/gnuplot.log. The log is
 * removed when gnuplot succeeds and kept, quoted in err, when it fails.
 */
static int run_gnuplot(const char *dir, const char *name, struct wperf_error *err)
{
	char found[PATH_MAX], log[PATH_MAX], script[NAME_MAX + 1], prog[] = "gnuplot";
	char quote[QUOTE_MAX + 1], how[96];
	char *argv[] = {prog, script, NULL};
	struct spawn_opts o = {.argv = argv, .cwd = dir};
	int fd, status = 0, e;
	ssize_t n;
	pid_t pid;

	if (spawn_resolve(prog, found, sizeof(found)) < 0)
		return wperf_error_set(err, -ENOENT,
				       "cannot draw the plots: gnuplot is not installed "
				       "(run `make deps`, which installs gnuplot-nox)");
	snprintf(script, sizeof(script), "%s.gp", name);
	e = join(log, sizeof(log), dir, LOG_NAME, NULL, err);
	if (e)
		return e;
	fd = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return wperf_error_set(err, -errno, "cannot create %s: %s", log, strerror(errno));
	o.out_fd = fd;
	e = spawn_process(&o, &pid, err);
	while (!e && waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			e = wperf_error_set(err, -errno, "waiting for gnuplot: %s",
					    strerror(errno));
	if (!e && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
		/* The log's start says what went wrong, usually on its first lines. */
		n = pread(fd, quote, QUOTE_MAX, 0);
		quote[n > 0 ? n : 0] = '\0';
		squeeze(quote);
		e = wperf_error_set(err, -EIO, "gnuplot failed on %s/%s (%s): %s (see %s)", dir,
				    script, spawn_describe_status(status, how, sizeof(how)),
				    *quote ? quote : "no output", log);
	}
	close(fd);
	if (!e)
		unlink(log);
	return e;
}

/* Writes name.dat and name.gp into dir, then draws them. A failed drawing
 * leaves no picture behind, only the script, its data and the log. */
static int draw(const char *dir, const char *name, const struct wperf_buf *dat,
		const struct wperf_buf *gp, struct wperf_error *err)
{
	char path[PATH_MAX];
	int e = join(path, sizeof(path), dir, name, "dat", err);

	if (!e)
		e = output_write(path, dat->data, dat->len, err);
	if (!e)
		e = join(path, sizeof(path), dir, name, "gp", err);
	if (!e)
		e = output_write(path, gp->data, gp->len, err);
	if (!e)
		e = run_gnuplot(dir, name, err);
	if (e)
		remove_plot(dir, name, 1);
	return e;
}

static int out_of_memory(struct wperf_error *err)
{
	return wperf_error_set(err, -ENOMEM, "out of memory drawing the plots");
}

/*
 * The baseline's runs behind the points: a band from the lowest to the highest
 * throughput they measured (a baseline has a handful of runs: their whole range
 * is what "as before" looked like), and their median as a dashed line. Nothing
 * without a baseline or when it measured no throughput.
 */
static int script_band(struct wperf_buf *gp, const struct wperf_baseline *b)
{
	double lo, hi;

	if (!b || !b->nthroughput)
		return 0;
	lo = hi = b->throughput[0];
	for (size_t i = 1; i < b->nthroughput; i++) {
		lo = fmin(lo, b->throughput[i]);
		hi = fmax(hi, b->throughput[i]);
	}
	return wperf_buf_printf(gp,
				"'+' using 1:(%.9g):(%.9g) with filledcurves "
				"fc rgb '#cfe2f3' fs solid 0.6 noborder "
				"title 'baseline: %zu runs, %.6g..%.6g', \\\n"
				"     %.9g with lines dt 2 lw 2 lc rgb '#3c78d8' "
				"title 'baseline median (%.6g)', \\\n     ",
				lo, hi, b->nthroughput, lo, hi,
				wperf_median(b->throughput, b->nthroughput),
				wperf_median(b->throughput, b->nthroughput));
}

/* throughput.*: a point per run that measured one, and the median as a line,
 * over the baseline's band when there is one; the y axis from zero. */
static int plot_throughput(const struct wperf_runset *rs, const char *title,
			   const struct plots_axis *x, const struct wperf_baseline *b,
			   const char *dir, struct wperf_error *err)
{
	struct wperf_buf dat = {0}, gp = {0};
	double *tp = malloc((rs->nruns ? rs->nruns : 1) * sizeof(*tp)), median;
	char unit[sizeof(rs->unit) + 1];
	size_t n = 0;
	int e = 0;

	/* Terminated even if the run set's is not. */
	snprintf(unit, sizeof(unit), "%.*s", (int)sizeof(rs->unit), rs->unit);

	if (!tp)
		return out_of_memory(err);
	for (size_t i = 0; i < rs->nruns; i++)
		if (isfinite(rs->runs[i].throughput))
			tp[n++] = rs->runs[i].throughput;
	if (!n) {
		free(tp);
		remove_plot(dir, "throughput", 0);
		return 0;
	}
	median = wperf_median(tp, n);
	free(tp);

	/* The data: run number and throughput, NaN for a run without one. */
	e = wperf_buf_printf(&dat, "# run throughput (");
	if (!e)
		e = append_text(&dat, unit, 0);
	if (!e)
		e = wperf_buf_printf(&dat, ")\n");
	for (size_t i = 0; i < rs->nruns && !e; i++) {
		double v = rs->runs[i].throughput;

		e = isfinite(v) ? wperf_buf_printf(&dat, "%zu %.9g\n", i + 1, v)
				: wperf_buf_printf(&dat, "%zu NaN\n", i + 1);
	}

	if (!e)
		e = script_head(&gp, "throughput", title, "throughput", x,
				x ? &x->throughput_marks : NULL, rs->nruns);
	if (!e)
		e = wperf_buf_printf(&gp, "set ylabel '%s", unit[0] ? "" : "throughput");
	if (!e)
		e = append_text(&gp, unit, 1);
	if (!e)
		e = wperf_buf_printf(&gp, "' noenhanced\n"
					  "set yrange [0:*]\n"
					  "set offsets 0, 0, graph 0.05, 0\n"
					  "plot ");
	if (!e)
		e = script_band(&gp, b);
	if (!e)
		e = wperf_buf_printf(&gp,
				     "'throughput.dat' using 1:2 with points pt 7 ps 1.2 "
				     "title 'runs', \\\n"
				     "     %.9g with lines lw 2 title 'median (%.6g)'\n",
				     median, median);
	if (!e)
		e = script_tail(&gp, "throughput");
	e = e ? out_of_memory(err) : draw(dir, "throughput", &dat, &gp, err);
	wperf_buf_release(&dat);
	wperf_buf_release(&gp);
	return e;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct top_edge *x = a, *y = b;
	int c = strcmp(x->from, y->from);

	return c ? c : strcmp(x->to, y->to);
}

/* Heaviest first; ties by (from, to), so that the choice does not depend on qsort. */
static int cmp_heavier(const void *a, const void *b)
{
	const struct top_edge *x = a, *y = b;

	if (x->median != y->median)
		return x->median > y->median ? -1 : 1;
	return cmp_pair(a, b);
}

/*
 * The distinct edges of the run set, heaviest median share first, into *out
 * (free it); *n is their number. 0 or -ENOMEM.
 */
static int rank_edges(const struct wperf_runset *rs, struct top_edge **out, size_t *n)
{
	size_t total = 0, k = 0;
	struct top_edge *all;
	double *shares;

	for (size_t i = 0; i < rs->nruns; i++)
		total += rs->runs[i].nedges;
	all = malloc((total ? total : 1) * sizeof(*all));
	shares = malloc((rs->nruns ? rs->nruns : 1) * sizeof(*shares));
	if (!all || !shares) {
		free(all);
		free(shares);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rs->nruns; i++)
		for (size_t j = 0; j < rs->runs[i].nedges; j++)
			all[k++] = (struct top_edge){rs->runs[i].edges[j].from,
						     rs->runs[i].edges[j].to, 0};
	qsort(all, total, sizeof(*all), cmp_pair);
	k = 0;
	for (size_t i = 0; i < total; i++)
		if (!k || cmp_pair(&all[k - 1], &all[i]))
			all[k++] = all[i];
	/* A run without the edge counts 0: the median says how often it matters. */
	for (size_t i = 0; i < k; i++) {
		for (size_t r = 0; r < rs->nruns; r++)
			shares[r] = wperf_run_edge_share(&rs->runs[r], all[i].from, all[i].to);
		all[i].median = wperf_median(shares, rs->nruns);
	}
	qsort(all, k, sizeof(*all), cmp_heavier);
	free(shares);
	*out = all;
	*n = k;
	return 0;
}

/* edges.*: the share of the window of each of the top edges, a line each. */
static int plot_edges(const struct wperf_runset *rs, const char *title, const struct plots_axis *x,
		      const char *dir, struct wperf_error *err)
{
	struct wperf_buf dat = {0}, gp = {0};
	struct top_edge *top;
	size_t n;
	int e = rank_edges(rs, &top, &n);

	if (e)
		return out_of_memory(err);
	if (!n) {
		free(top);
		remove_plot(dir, "edges", 0);
		return 0;
	}
	if (n > PLOTS_TOP_EDGES)
		n = PLOTS_TOP_EDGES;

	/* The data: which edge each column is, then a row per run. */
	for (size_t c = 0; c < n && !e; c++) {
		e = wperf_buf_printf(&dat, "# column %zu: ", c + 2);
		if (!e)
			e = append_edge(&dat, &top[c], 0);
		if (!e)
			e = wperf_buf_printf(&dat, "\n");
	}
	if (!e)
		e = wperf_buf_printf(&dat, "# run, then the share of the window of each edge\n");
	for (size_t r = 0; r < rs->nruns && !e; r++) {
		e = wperf_buf_printf(&dat, "%zu", r + 1);
		for (size_t c = 0; c < n && !e; c++)
			e = wperf_buf_printf(
			    &dat, " %.6g",
			    wperf_run_edge_share(&rs->runs[r], top[c].from, top[c].to));
		if (!e)
			e = wperf_buf_printf(&dat, "\n");
	}

	if (!e)
		e = script_head(&gp, "edges", title, "heaviest edges", x,
				x ? &x->edges_marks : NULL, rs->nruns);
	if (!e)
		e = wperf_buf_printf(&gp, "set ylabel 'share of the window' noenhanced\n"
					  "set yrange [0:*]\n"
					  "plot ");
	for (size_t c = 0; c < n && !e; c++) {
		e = wperf_buf_printf(&gp,
				     "%s'edges.dat' using 1:%zu with linespoints lw 2 pt 7 title '",
				     c ? ", \\\n     " : "", c + 2);
		if (!e)
			e = append_edge(&gp, &top[c], 1);
		if (!e)
			e = wperf_buf_printf(&gp, "' noenhanced");
	}
	if (!e)
		e = wperf_buf_printf(&gp, "\n");
	if (!e)
		e = script_tail(&gp, "edges");
	free(top);
	e = e ? out_of_memory(err) : draw(dir, "edges", &dat, &gp, err);
	wperf_buf_release(&dat);
	wperf_buf_release(&gp);
	return e;
}

/* The plots, with x's axis (NULL: runs) and b's band (NULL: none). */
static int write_plots(const struct wperf_runset *rs, const char *title, const struct plots_axis *x,
		       const struct wperf_baseline *b, const char *dir, struct wperf_error *err)
{
	int e = output_make_dirs(dir, err);

	if (!title)
		title = "";
	if (!e)
		e = plot_throughput(rs, title, x, b, dir, err);
	if (!e)
		e = plot_edges(rs, title, x, dir, err);
	return e;
}

int plots_write_axis(const struct wperf_runset *rs, const char *title, const struct plots_axis *x,
		     const char *dir, struct wperf_error *err)
{
	return write_plots(rs, title, x, NULL, dir, err);
}

int plots_write(const struct wperf_runset *rs, const char *title, const char *dir,
		struct wperf_error *err)
{
	return write_plots(rs, title, NULL, NULL, dir, err);
}

int plots_write_baseline(const struct wperf_runset *rs, const char *title,
			 const struct wperf_baseline *b, const char *dir, struct wperf_error *err)
{
	return write_plots(rs, title, NULL, b, dir, err);
}
