/* SPDX-License-Identifier: MIT */
/*
 * The plots of a results folder: the throughput of each run and the weight of
 * the heaviest edges of the wait-for graph in each run, drawn by gnuplot.
 *
 * Ownership: plots_write only reads the run set and the strings it is given;
 * everything it makes is files in dir, which belong to the caller.
 */
#ifndef WPERF_PLOTS_H
#define WPERF_PLOTS_H

#include "core/util/error.h"
#include "core/gate/baseline.h"
#include "core/gate/runset.h"

/* How many edges the edges plot shows at most. */
#define PLOTS_TOP_EDGES 6

/*
 * Draws the plots of a run set with gnuplot into dir (created if missing):
 *   throughput.svg/.png  the throughput of each run (points) and their median (a line),
 *                        y axis from zero, labelled with rs->unit; skipped (no files) when
 *                        no run measured one (all NaN)
 *   edges.svg/.png       the share of the window of the top edges (at most PLOTS_TOP_EDGES,
 *                        by median share over the runs, a run without the edge counts 0) in
 *                        each run, one line per edge, titled "FROM -> TO"; skipped when the
 *                        runs have no edges
 * Alongside each picture it leaves the gnuplot script (.gp) and its data (.dat) so people
 * can redraw them (`cd DIR && gnuplot edges.gp`). A skipped plot's files are removed, stale
 * ones included.
 * title: the scenario's name, shown in the plot titles.
 * Returns 0, or a negative errno with err->msg naming what failed (gnuplot not installed:
 * says to run `make deps`; gnuplot failing: quotes the start of its output, which stays in
 * DIR/gnuplot.log).
 */
int plots_write(const struct wperf_runset *rs, const char *title, const char *dir,
		struct wperf_error *err);

/* Points of the x axis to mark (from 0), each by a dashed vertical line at
 * it: where a change point puts the first point of a new level. */
struct plots_marks {
	const size_t *at;
	size_t n;
};

/* The x axis when the points are not runs: its name ("commit"), a label for
 * each point (rs->nruns of them) written under its tic, and the points to
 * mark on throughput.* and on edges.* (none when zeroed). */
struct plots_axis {
	const char *name;
	const char *const *labels;
	struct plots_marks throughput_marks, edges_marks;
};

/* plots_write with another x axis (NULL: runs 1..n, as plots_write). */
int plots_write_axis(const struct wperf_runset *rs, const char *title, const struct plots_axis *x,
		     const char *dir, struct wperf_error *err);

/*
 * plots_write, with the runs judged against baseline b: throughput.* shows
 * b's runs behind the points, as a band from the lowest to the highest
 * throughput they measured and their median as a dashed line (no band when b
 * measured none).
 */
int plots_write_baseline(const struct wperf_runset *rs, const char *title,
			 const struct wperf_baseline *b, const char *dir, struct wperf_error *err);

#endif /* WPERF_PLOTS_H */
