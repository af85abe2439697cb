/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench report: analyzes a trace (wPerf's wait-for graph, knots and
 * refinement) and writes the result in one of several formats.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "core/analysis/analysis.h"
#include "core/report/report.h"
#include "core/analysis/symbolize.h"
#include "core/trace/meta.h"
#include "harness/run/graphviz.h"
#include "harness/base/output.h"

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
	struct wperf_analysis_opts ao;
	struct wperf_report_opts ro;
	int all;
	const char *aliases[MAX_ALIASES];
	size_t naliases;
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

static const struct cli_option report_options[] = {
    {'f', "format", "FORMAT",
     "text (default), json (docs/report-schema.md), dot or svg (the graph: knots highlighted, "
     "edges above the threshold solid), folded (stacks per edge and per thread, for FlameGraph "
     "or speedscope), perfetto (every thread's segments on a timeline)",
     CLI_PARSE(struct report_args, format, parse_format)},
    {'o', "output", "FILE", "write there (atomically) instead of standard output",
     CLI_STRING(struct report_args, output)},
    {'t', "threshold", "F",
     "refinement stops at this share of the window (default 0.2, as in the paper)",
     CLI_NUMBER(struct report_args, ao.threshold, 0.0001, 1)},
    {0, "target", "NAME|PIDS",
     "report on these processes (a process name, or PID[,PID...]): the knots and sinks they "
     "wait for, directly or not, their own long waits, and the CMetric over their threads "
     "(default: the recorded COMMAND, or the target `run` or `record --target` named)",
     CLI_STRING(struct report_args, ro.target)},
    {0, "all", NULL,
     "every knot, wait and thread of the machine, whatever the target, and the CMetric over "
     "every thread",
     CLI_FLAG(struct report_args, all)},
    {0, "min-edge", "F",
     "leave edges under this share of the window out of the knot search (default: the level "
     "where the knots stay the same over the widest range; -1: keep all)",
     CLI_NUMBER(struct report_args, ao.min_edge, -1, 1)},
    {0, "merge-similar", "F",
     "merge threads of one name only when their user stacks are at least F alike (0..1, "
     "cosine; default 0: 0.5; -1: never merge)",
     CLI_NUMBER(struct report_args, ao.merge.similar, -1, 1)},
    {'j', "jobs", "N", "worker threads for the cascade (default: the CPUs)",
     CLI_COUNT(struct report_args, ao.jobs, 1, 256)},
    {0, "sites", "N", "call sites per edge (default 3)",
     CLI_COUNT(struct report_args, ro.top_sites, 1, 100)},
    {0, "top-edges", "N",
     "dot, svg: draw the N heaviest edges and the knots' (default: all up to 60)",
     CLI_COUNT(struct report_args, ro.top_edges, 1, 100000)},
    {0, "alias", "ID=NAME", "show the vertex of identity ID as NAME (repeatable)",
     CLI_PARSE_ALL(parse_alias)},
    {0, "disk-bw", "BYTES/S",
     "disk capacity for the idle-time model (with --disk-iops; default: busy time measured "
     "from the requests)",
     CLI_PARSE(struct report_args, ao.capacity.disk_bytes_per_s, cli_parse_u64), .min = 1,
     .max = 1e15},
    {0, "disk-iops", "N", "", CLI_PARSE(struct report_args, ao.capacity.disk_iops, cli_parse_u64),
     .min = 1, .max = 1e15},
    {0, "nic-bps", "BITS/S", "link speed of the network interfaces",
     CLI_PARSE(struct report_args, ao.capacity.nic_bits_per_s, cli_parse_u64), .min = 1,
     .max = 1e15},
    {0},
};

static const struct cli_command report_command = {
    .name = CMD,
    .synopsis = "[OPTIONS] TRACE",
    .description = "Builds the wait-for graph of TRACE with cascaded re-distribution, finds the\n"
		   "knots that bound the throughput (refining large ones), and reports them with\n"
		   "the call sites behind their edges, then sinks, background knots and the\n"
		   "CMetric ranking.\n",
    .options = report_options,
    .exit_status = "0 reported, 2 error (an unreadable or corrupt trace).\n",
    .min_operands = 1,
    .max_operands = 1,
};

/* The report of t as args ask, written out; the exit status. */
static int write_report(struct wperf_trace *t, const char *path, struct report_args *args)
{
	const struct format *format = args->format;
	struct wperf_analysis *a = NULL;
	struct wperf_symbolizer *sym = NULL;
	struct wperf_buf text = {0}, rendered = {0};
	struct wperf_error err = {0};
	int e, status = EXIT_OK;

	if (wperf_analyze(t, &args->ao, &a, &err) < 0 || wperf_symbolizer_new(t, &sym, &err) < 0) {
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
out:
	wperf_buf_release(&text);
	wperf_buf_release(&rendered);
	wperf_symbolizer_free(sym);
	wperf_analysis_free(a);
	return status;
}

int cmd_report(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct report_args args = {.format = &formats[0], .ao.jobs = cpus > 0 ? cpus : 1};
	struct wperf_report_opts *ro = &args.ro;
	struct wperf_trace *t = NULL;
	int status = cli_parse(&report_command, argc, argv, &args);

	if (status >= 0)
		return status;
	if (cli_open_trace(CMD, argv[optind], &t))
		return EXIT_ERROR;
	ro->trace_name = argv[optind];
	ro->aliases = args.aliases;
	ro->naliases = args.naliases;
	/* A trace of `record -- COMMAND` is about that command, one of `run` (or
	 * `record --target`) about its target, unless told otherwise. */
	if (!ro->target && !args.all) {
		const char *pid = wperf_trace_meta(t, WPERF_META_COMMAND_PID);
		const char *named = wperf_trace_meta(t, WPERF_META_ANALYSIS_TARGET);

		ro->target = pid && *pid ? pid : named && *named ? named : NULL;
	}
	args.ao.target = ro->target; /* the CMetric is over its threads */
	status = write_report(t, argv[optind], &args);
	wperf_trace_free(t);
	return status;
}
