/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench diff: two recordings analyzed alike, their knots, sinks and
 * edges side by side (as perf diff does for profiles); with --flame or
 * --folded, the differential flame graph of their wait stacks instead
 * (core/report/flame.h), over the same edges.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/runset.h"
#include "harness/base/output.h"
#include "harness/cli/cli.h"
#include "core/analysis/symbolize.h"
#include "core/gate/run_diff.h"
#include "core/gate/run_flame.h"
#include "core/report/flame.h"
#include "core/report/report.h"
#include "harness/cli/trace_analysis.h"

#define CMD	      "diff"
#define GROWING_SHOWN 3

/* How --flame makes the two recordings' times comparable. */
enum flame_norm { NORM_WINDOW, NORM_NONE, NORM_TOTAL, NORM_OPS };

static const char *const norm_names[] = {
    [NORM_WINDOW] = "window",
    [NORM_NONE] = "none",
    [NORM_TOTAL] = "total",
};

static const char *const width_names[] = {
    [WPERF_FLAME_WIDTH_B] = "b",
    [WPERF_FLAME_WIDTH_A] = "a",
    [WPERF_FLAME_WIDTH_MAX] = "max",
};

struct diff_args {
	int json;
	const char *output; /* NULL: standard output */
	struct cli_analysis analysis;
	int flame, folded, exact_frames;
	enum flame_norm norm;
	double ops[2]; /* NORM_OPS: A's and B's operations */
	enum wperf_flame_width widths;
};

static int parse_format(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	(void)opt;
	if (strcmp(arg, "text") && strcmp(arg, "json"))
		return cli_error(cmd, "--format is text or json, not '%s'", arg);
	*(int *)field = !strcmp(arg, "json");
	return 0;
}

/* --normalize MODE into the struct diff_args. */
static int parse_normalize(const char *cmd, const struct cli_option *opt, const char *arg,
			   void *field)
{
	struct diff_args *args = field;
	char *end;

	(void)opt;
	for (size_t i = 0; i < sizeof(norm_names) / sizeof(*norm_names); i++)
		if (!strcmp(arg, norm_names[i])) {
			args->norm = (enum flame_norm)i;
			return 0;
		}
	if (!strncmp(arg, "ops:", 4)) {
		args->ops[0] = strtod(arg + 4, &end);
		args->ops[1] = *end == ',' ? strtod(end + 1, &end) : 0;
		if (!*end && isfinite(args->ops[0] + args->ops[1]) && args->ops[0] > 0 &&
		    args->ops[1] > 0) {
			args->norm = NORM_OPS;
			return 0;
		}
	}
	return cli_error(cmd,
			 "--normalize is window, none, total or ops:A_OPS,B_OPS (two numbers "
			 "above 0), not '%s'",
			 arg);
}

static int parse_widths(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	(void)opt;
	for (size_t i = 0; i < sizeof(width_names) / sizeof(*width_names); i++)
		if (!strcmp(arg, width_names[i])) {
			*(enum wperf_flame_width *)field = (enum wperf_flame_width)i;
			return 0;
		}
	return cli_error(cmd, "--widths is b, a or max, not '%s'", arg);
}

const struct cli_option cli_diff_options[] = {
    {'f', "format", "FORMAT",
     "text (default) or json (" WPERF_DIFF_SCHEMA ", docs/report-schema.md)",
     CLI_PARSE(struct diff_args, json, parse_format)},
    {'o', "output", "FILE", "write there instead of standard output",
     CLI_STRING(struct diff_args, output)},
    {0, "flame", NULL,
     "write the differential flame graph of the two recordings' wait stacks instead, an SVG: "
     "a frame's width its time in B, its colour the change, red for more waiting than in A, "
     "blue for less; the " CLI_STR(GROWING_SHOWN) " stacks that grew most on standard error",
     CLI_FLAG(struct diff_args, flame)},
    {0, "folded", NULL,
     "write the differential folded stacks instead, \"STACK A B\" per stack, as FlameGraph's "
     "difffolded.pl does (for its flamegraph.pl)",
     CLI_FLAG(struct diff_args, folded)},
    {0, "normalize", "MODE",
     "make the two sides' times comparable: window (default: per second of each recording's "
     "window), none (microseconds as recorded), total (B's scaled to A's total, as "
     "difffolded.pl -n) or ops:A_OPS,B_OPS (per operation of each side)",
     CLI_PARSE_ALL(parse_normalize), .heading = "with --flame or --folded:"},
    {0, "widths", "SIDE",
     "a frame's width is its time in b (default), a (what vanished in B shows) or max (the "
     "larger of the two: what grew and what vanished both show)",
     CLI_PARSE(struct diff_args, widths, parse_widths)},
    {0, "exact-frames", NULL,
     "compare frames as written; by default their source lines and +0x offsets are dropped, so "
     "that code that moved between A and B (an edit, a rebuild) is still one frame",
     CLI_FLAG(struct diff_args, exact_frames)},
    {CLI_GROUP(struct diff_args, analysis, cli_analysis_options), .heading = "other options:"},
    {0},
};

/* One recording, as --flame needs it besides its run. */
struct flame_side {
	struct wperf_buf folded; /* report_folded.c's stacks */
	double window_s;
};

/*
 * The run of the trace at path, as the gate would keep it, and with fs not
 * NULL its folded stacks; an exit status.
 */
static int take_run(const char *path, const struct cli_analysis *c, struct wperf_run *run,
		    struct flame_side *fs)
{
	struct wperf_trace *t = NULL;
	struct wperf_analysis *a = NULL;
	struct wperf_symbolizer *sym = NULL;
	struct wperf_error err = {0};
	const char *target;
	int status = cli_open_trace(CMD, path, 1, &t);

	if (!status)
		status = cli_analyze(CMD, path, t, c, &a, &target);
	if (!status && wperf_run_from_analysis(a, target, NAN, NULL, run, &err) < 0)
		status = cli_error(CMD, "%s: %s", path, err.msg);
	if (!status && fs && wperf_symbolizer_new(t, &sym, &err) < 0)
		status = cli_error(CMD, "%s: %s", path, err.msg);
	if (!status && fs) {
		struct wperf_report_opts ro = {.target = target};

		fs->window_s = (double)a->window / 1e9;
		if (wperf_report_folded(a, sym, &ro, &fs->folded) < 0)
			status = cli_error(CMD, "%s: folding the stacks: out of memory", path);
	}
	wperf_symbolizer_free(sym);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	return status;
}

/* ---- --flame and --folded ---- */

/* The flame graph's scales, unit and title as args ask; NULL title when out
 * of memory (the caller frees it). */
static char *flame_opts(const struct diff_args *args, const struct flame_side fs[2],
			const struct wperf_flame *f, const char *const names[2],
			struct wperf_flame_opts *o)
{
	static const char *const per[] = {
	    [NORM_WINDOW] = "per second of each window",
	    [NORM_NONE] = "as recorded",
	    [NORM_TOTAL] = "B scaled to A's total",
	    [NORM_OPS] = "per operation",
	};
	double a, b;
	char *title = NULL;

	o->width = args->widths;
	o->unit = args->norm == NORM_WINDOW ? "µs/s" : args->norm == NORM_OPS ? "µs/op" : "µs";
	if (args->norm == NORM_WINDOW) {
		o->scale_a = 1 / fs[0].window_s;
		o->scale_b = 1 / fs[1].window_s;
	} else if (args->norm == NORM_OPS) {
		o->scale_a = 1 / args->ops[0];
		o->scale_b = 1 / args->ops[1];
	} else if (args->norm == NORM_TOTAL) {
		wperf_flame_totals(f, &a, &b);
		o->scale_b = a > 0 && b > 0 ? a / b : 1;
	}
	if (asprintf(&title, "Waits of %s (A) -> %s (B), %s", names[0], names[1], per[args->norm]) <
	    0)
		return NULL;
	o->title = title;
	return title;
}

/* The stacks that grew most, on standard error. */
static void print_growing(const struct wperf_buf *growing, const char *const names[2])
{
	if (!growing->len) {
		fprintf(stderr, "no stack waits longer in %s than in %s\n", names[1], names[0]);
		return;
	}
	fprintf(stderr, "the stacks that grew most from %s to %s:\n", names[0], names[1]);
	for (const char *p = (const char *)growing->data, *end = p + growing->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		fprintf(stderr, "  %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
}

/* Both sides' stacks, kept to the edges either run keeps, into f; an exit
 * status. */
static int fill_flame(const struct diff_args *args, const struct wperf_run runs[2],
		      const struct flame_side fs[2], const char *const names[2],
		      struct wperf_flame *f)
{
	struct wperf_flame_filter ff = {.exact = args->exact_frames};
	struct wperf_error err = {0};
	int status = EXIT_OK;

	if (wperf_flame_filter_add_run(&ff, &runs[0]) < 0 ||
	    wperf_flame_filter_add_run(&ff, &runs[1]) < 0)
		status = cli_error(CMD, "out of memory");
	for (int i = 0; i < 2 && status == EXIT_OK; i++)
		if (wperf_flame_add_folded(f, i ? WPERF_FLAME_B : WPERF_FLAME_A, &ff,
					   (const char *)fs[i].folded.data, fs[i].folded.len,
					   &err) < 0)
			status = cli_error(CMD, "%s: its folded stacks: %s", names[i], err.msg);
	wperf_flame_filter_release(&ff);
	return status;
}

/* --flame, --folded: the differential flame graph or its folded stacks to
 * args->output, the stacks that grew most on standard error; an exit status. */
static int write_flame(const struct diff_args *args, const struct wperf_run runs[2],
		       const struct flame_side fs[2], const char *const names[2])
{
	struct wperf_flame *f = NULL;
	struct wperf_flame_opts o = {0};
	struct wperf_buf out = {0}, growing = {0};
	struct wperf_error err = {0};
	char *title = NULL;
	int status = wperf_flame_new(&f) < 0 ? cli_error(CMD, "out of memory") : EXIT_OK;

	if (status == EXIT_OK)
		status = fill_flame(args, runs, fs, names, f);
	if (status == EXIT_OK && !(title = flame_opts(args, fs, f, names, &o)))
		status = cli_error(CMD, "out of memory");
	if (status == EXIT_OK &&
	    ((args->folded ? wperf_flame_folded(f, &o, &out) : wperf_flame_svg(f, &o, &out)) < 0 ||
	     wperf_flame_growing(f, &o, GROWING_SHOWN, &growing) < 0))
		status = cli_error(CMD, "writing the flame graph: out of memory");
	if (status == EXIT_OK && output_write(args->output, out.data, out.len, &err) < 0)
		status = cli_error(CMD, "%s", err.msg);
	if (status == EXIT_OK)
		print_growing(&growing, names);
	free(title);
	wperf_buf_release(&out);
	wperf_buf_release(&growing);
	wperf_flame_free(f);
	return status;
}

/* The runs side by side, as text or JSON, to args->output; an exit status. */
static int write_diff(const struct diff_args *args, struct wperf_run runs[2],
		      const char *const names[2])
{
	struct wperf_run_diff d = {.run = {&runs[0], &runs[1]}, .name = {names[0], names[1]}};
	struct wperf_buf out = {0};
	struct wperf_error err = {0};
	int status = EXIT_OK;

	if ((args->json ? wperf_run_diff_json(&d, &out) : wperf_run_diff_text(&d, &out)) < 0)
		status = cli_error(CMD, "writing the diff: out of memory");
	else if (output_write(args->output, out.data, out.len, &err) < 0)
		status = cli_error(CMD, "%s", err.msg);
	wperf_buf_release(&out);
	return status;
}

/* The options that only --flame and --folded read, given without them, or
 * with what they do not write; an exit status, or -1 when all is well. */
static int check_modes(const struct diff_args *args)
{
	if (args->flame && args->folded)
		return cli_usage_error(CMD, "--flame or --folded: one output at a time");
	if ((args->flame || args->folded) && args->json)
		return cli_usage_error(CMD, "--%s writes %s, not -f json",
				       args->flame ? "flame" : "folded",
				       args->flame ? "an SVG" : "folded stacks");
	if (!args->flame && !args->folded &&
	    (args->norm != NORM_WINDOW || args->widths != WPERF_FLAME_WIDTH_B ||
	     args->exact_frames))
		return cli_usage_error(CMD,
				       "--normalize, --widths and --exact-frames go with --flame "
				       "or --folded");
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args args = {0};
	struct wperf_run runs[2];
	struct flame_side fs[2];
	const char *names[2];
	int status, flame;

	cli_analysis_init(&args.analysis);
	status = cli_parse(CMD, &cli_diff_help, argc, argv, &args);
	if (status < 0)
		status = check_modes(&args);
	if (status >= 0)
		return status;
	flame = args.flame || args.folded;
	memset(fs, 0, sizeof(fs));
	wperf_run_init(&runs[0]);
	wperf_run_init(&runs[1]);
	status = EXIT_OK;
	for (int i = 0; i < 2 && status == EXIT_OK; i++) {
		names[i] = argv[optind + i];
		status = take_run(names[i], &args.analysis, &runs[i], flame ? &fs[i] : NULL);
	}
	if (status == EXIT_OK)
		status =
		    flame ? write_flame(&args, runs, fs, names) : write_diff(&args, runs, names);
	for (int i = 0; i < 2; i++) {
		wperf_run_release(&runs[i]);
		wperf_buf_release(&fs[i].folded);
	}
	return status;
}
