/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench report: analyzes a trace (wPerf's wait-for graph, knots and
 * refinement) and writes the result in one of several formats.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harness/cli/cli.h"
#include "harness/cli/trace_analysis.h"
#include "core/analysis/analysis.h"
#include "core/report/report.h"
#include "core/analysis/symbolize.h"
#include "core/trace/meta.h"
#include "harness/run/graphviz.h"
#include "harness/base/output.h"
#include "harness/base/progress.h"

#define CMD	    "report"
#define MAX_ALIASES 64

typedef int (*report_writer)(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			     const struct wperf_report_opts *o, struct wperf_buf *out);

static const struct format {
	const char *name;
	report_writer write;
	const char *render; /* then rendered by Graphviz into this format */
} formats[] = {
    {"text", wperf_report_text, NULL},	   {"json", wperf_report_json, NULL},
    {"dot", wperf_report_dot, NULL},	   {"svg", wperf_report_dot, "svg"},
    {"folded", wperf_report_folded, NULL}, {"perfetto", wperf_report_perfetto, NULL},
};

struct report_args {
	const struct format *format;
	const char *output; /* NULL: standard output */
	struct cli_analysis analysis;
	struct wperf_report_opts ro;
	const char *aliases[MAX_ALIASES];
	size_t naliases;
	int timings;
	double read_s; /* opening the trace, with --timings */
};

static int parse_format(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	(void)opt;
	for (size_t i = 0; i < sizeof(formats) / sizeof(*formats); i++)
		if (!strcmp(arg, formats[i].name)) {
			*(const struct format **)field = &formats[i];
			return 0;
		}
	return cli_error(cmd, "--format is text, json, dot, svg, folded or perfetto, not '%s'",
			 arg);
}

/* --alias ID=NAME: one more alias into the struct report_args. */
static int parse_alias(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	struct report_args *args = field;

	(void)opt;
	if (!strchr(arg, '=') || arg[0] == '=' || args->naliases == MAX_ALIASES)
		return cli_error(cmd, "--alias wants IDENTITY=NAME (at most %d), not '%s'",
				 MAX_ALIASES, arg);
	args->aliases[args->naliases++] = arg;
	return 0;
}

const struct cli_option cli_report_options[] = {
    {'f', "format", "FORMAT",
     "text (default), json (docs/report-schema.md), dot or svg (the graph: knots highlighted, "
     "edges above the threshold solid), folded (stacks per edge and per thread, for FlameGraph "
     "or speedscope), perfetto (every thread's segments on a timeline)",
     CLI_PARSE(struct report_args, format, parse_format)},
    {'o', "output", "FILE", "write there instead of standard output",
     CLI_STRING(struct report_args, output)},
    {CLI_GROUP(struct report_args, analysis, cli_analysis_options)},
    {0, "sites", "N", "call sites per edge (default 3)",
     CLI_COUNT(struct report_args, ro.top_sites, 1, 100)},
    {0, "top-edges", "N",
     "dot, svg: draw the N heaviest edges and the knots' (default: all up to 60)",
     CLI_COUNT(struct report_args, ro.top_edges, 1, 100000)},
    {0, "alias", "ID=NAME", "show the vertex of identity ID as NAME (repeatable)",
     CLI_PARSE_ALL(parse_alias)},
    {0, "timings", NULL,
     "print to standard error how long reading, each step of the analysis and writing took, "
     "and the events analyzed per second of CPU time",
     CLI_FLAG(struct report_args, timings)},
    {0},
};

/* The process's CPU time so far, user and system, in s. */
static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* --timings: one line on standard error, each step's wall time. */
static void print_timings(const struct report_args *args, const struct wperf_analysis *a,
			  double write_s)
{
	const struct wperf_analysis_times *t = &a->times;
	uint64_t events = a->timeline->recorded_events;
	double cpu = cpu_seconds();

	fprintf(stderr,
		"report: timings (s): read %.3f, timeline %.3f, checks %.3f, short-lived %.3f, "
		"cascade %.3f, merge %.3f, cmetric %.3f, knots %.3f, symbols and writing %.3f; "
		"%" PRIu64 " events in %.3f s of CPU: %.2fM events/s/core\n",
		args->read_s, (double)t->timeline / 1e9, (double)t->checks / 1e9,
		(double)t->short_lived / 1e9, (double)t->cascade / 1e9, (double)t->merge / 1e9,
		(double)t->cmetric / 1e9, (double)t->knots / 1e9, write_s, events, cpu,
		cpu > 0 ? (double)events / cpu / 1e6 : 0);
}

/* The report of t as args ask, written out; the exit status. */
static int write_report(struct wperf_trace *t, const char *path, struct report_args *args)
{
	const struct format *format = args->format;
	struct wperf_analysis *a = NULL;
	struct wperf_symbolizer *sym = NULL;
	struct wperf_buf text = {0}, rendered = {0};
	struct wperf_error err = {0};
	double write_s;
	int e, status = EXIT_OK;

	if (cli_analyze(CMD, path, t, &args->analysis, &a, &args->ro.target)) {
		status = EXIT_ERROR;
		goto out;
	}
	write_s = progress_now_s();
	if (wperf_symbolizer_new(t, &sym, &err) < 0) {
		status = cli_error(CMD, "%s: %s", path, err.msg);
		goto out;
	}
	if (format->write(a, sym, &args->ro, &text) < 0) {
		status = cli_error(CMD, "writing the report: out of memory");
		goto out;
	}
	if (format->render && graphviz_render((const char *)text.data, text.len, format->render,
					      &rendered, &err) < 0) {
		status = cli_error(CMD, "%s", err.msg);
		goto out;
	}
	if (format->render)
		e = output_write(args->output, rendered.data, rendered.len, &err);
	else
		e = output_write(args->output, text.data, text.len, &err);
	if (e < 0)
		status = cli_error(CMD, "%s", err.msg);
	else if (args->timings)
		print_timings(args, a, progress_now_s() - write_s);
out:
	wperf_buf_release(&text);
	wperf_buf_release(&rendered);
	wperf_symbolizer_free(sym);
	wperf_analysis_free(a);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_args args = {.format = &formats[0]};
	struct wperf_trace *t = NULL;
	int status;

	cli_analysis_init(&args.analysis);
	status = cli_parse(CMD, &cli_report_help, argc, argv, &args);
	if (status >= 0)
		return status;
	args.read_s = progress_now_s();
	if (cli_open_trace(CMD, argv[optind], 1, &t))
		return EXIT_ERROR;
	args.read_s = progress_now_s() - args.read_s;
	args.ro.trace_name = argv[optind];
	args.ro.aliases = args.aliases;
	args.ro.naliases = args.naliases;
	status = write_report(t, argv[optind], &args);
	wperf_trace_free(t);
	return status;
}
