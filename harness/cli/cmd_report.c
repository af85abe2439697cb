/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench report: analyzes a trace (wPerf's wait-for graph, knots and
 * refinement) and writes the result in one of several formats.
 */
#include <errno.h>
#include <getopt.h>
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

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: wperf-bench report [OPTIONS] TRACE\n"
	    "\n"
	    "Builds the wait-for graph of TRACE with cascaded re-distribution, finds the\n"
	    "knots that bound the throughput (refining large ones), and reports them with\n"
	    "the call sites behind their edges, then sinks, background knots and the\n"
	    "CMetric ranking.\n"
	    "\n"
	    "options:\n"
	    "  -f, --format FORMAT     text (default), json (docs/report-schema.md), dot or\n"
	    "                          svg (the graph: knots highlighted, edges above the\n"
	    "                          threshold solid), folded (stacks per edge and per\n"
	    "                          thread, for FlameGraph or speedscope), perfetto\n"
	    "                          (every thread's segments on a timeline)\n"
	    "  -o, --output FILE       write there (atomically) instead of standard output\n"
	    "  -t, --threshold F       refinement stops at this share of the window\n"
	    "                          (default 0.2, as in the paper)\n"
	    "      --target NAME|PIDS  report on these processes (a process name, or\n"
	    "                          PID[,PID...]): the knots and sinks they wait for,\n"
	    "                          directly or not, their own long waits, and the\n"
	    "                          CMetric over their threads (default: the recorded\n"
	    "                          COMMAND, or the target `run` or `record --target`\n"
	    "                          named)\n"
	    "      --all               every knot, wait and thread of the machine,\n"
	    "                          whatever the target, and the CMetric over every\n"
	    "                          thread\n"
	    "      --min-edge F        leave edges under this share of the window out of\n"
	    "                          the knot search (default 0.05; -1: keep all)\n"
	    "      --merge-similar F   merge threads of one name only when their user\n"
	    "                          stacks are at least F alike (0..1, cosine; default\n"
	    "                          0: 0.5; -1: never merge)\n"
	    "  -j, --jobs N            worker threads for the cascade (default: the CPUs)\n"
	    "      --sites N           call sites per edge (default 3)\n"
	    "      --top-edges N       dot, svg: draw the N heaviest edges and the knots'\n"
	    "                          (default: all up to 60)\n"
	    "      --alias ID=NAME     show the vertex of identity ID as NAME (repeatable)\n"
	    "      --disk-bw BYTES/S   disk capacity for the idle-time model (with --disk-iops;\n"
	    "                          default: busy time measured from the requests)\n"
	    "      --disk-iops N\n"
	    "      --nic-bps BITS/S    link speed of the network interfaces\n"
	    "  -h, --help              this text\n"
	    "\n"
	    "Exit status: 0 reported, 2 error (an unreadable or corrupt trace).\n");
}

static int parse_number(const char *opt, const char *arg, double min, double max, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end || end == arg || v < min || v > max)
		return cli_error(CMD, "%s wants a number from %g to %g, not '%s'", opt, min, max,
				 arg);
	*out = v;
	return 0;
}

int cmd_report(int argc, char **argv)
{
	enum {
		OPT_TARGET = 256,
		OPT_MERGE,
		OPT_SITES,
		OPT_DISK_BW,
		OPT_DISK_IOPS,
		OPT_NIC,
		OPT_MIN_EDGE,
		OPT_ALL,
		OPT_TOP_EDGES,
		OPT_ALIAS
	};
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"output", required_argument, NULL, 'o'},
	    {"threshold", required_argument, NULL, 't'},
	    {"target", required_argument, NULL, OPT_TARGET},
	    {"all", no_argument, NULL, OPT_ALL},
	    {"top-edges", required_argument, NULL, OPT_TOP_EDGES},
	    {"alias", required_argument, NULL, OPT_ALIAS},
	    {"min-edge", required_argument, NULL, OPT_MIN_EDGE},
	    {"merge-similar", required_argument, NULL, OPT_MERGE},
	    {"jobs", required_argument, NULL, 'j'},
	    {"sites", required_argument, NULL, OPT_SITES},
	    {"disk-bw", required_argument, NULL, OPT_DISK_BW},
	    {"disk-iops", required_argument, NULL, OPT_DISK_IOPS},
	    {"nic-bps", required_argument, NULL, OPT_NIC},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct wperf_analysis_opts ao = {0};
	struct wperf_report_opts ro = {0};
	const struct format *format = &formats[0];
	const char *output = NULL;
	struct wperf_trace *t = NULL;
	struct wperf_analysis *a = NULL;
	struct wperf_symbolizer *sym = NULL;
	struct wperf_buf text = {0}, rendered = {0};
	struct wperf_error err = {0};
	double v;
	int c, e, all = 0, status = EXIT_OK;
	const char *aliases[MAX_ALIASES];
	size_t naliases = 0;

	ao.jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	while ((c = getopt_long(argc, argv, "f:o:t:j:h", longopts, NULL)) != -1) {
		size_t i;

		switch (c) {
		case 'f':
			for (i = 0; i < sizeof(formats) / sizeof(*formats); i++)
				if (!strcmp(optarg, formats[i].name))
					break;
			if (i == sizeof(formats) / sizeof(*formats))
				return cli_error(CMD,
						 "--format is text, json, dot, svg, folded or "
						 "perfetto, not '%s'",
						 optarg);
			format = &formats[i];
			break;
		case 'o':
			output = optarg;
			break;
		case 't':
			if (parse_number("--threshold", optarg, 0.0001, 1, &ao.threshold))
				return EXIT_ERROR;
			break;
		case OPT_TARGET:
			ro.target = optarg;
			break;
		case OPT_ALL:
			all = 1;
			break;
		case OPT_TOP_EDGES:
			if (parse_number("--top-edges", optarg, 1, 100000, &v))
				return EXIT_ERROR;
			ro.top_edges = (unsigned)v;
			break;
		case OPT_ALIAS:
			if (!strchr(optarg, '=') || optarg[0] == '=' || naliases == MAX_ALIASES)
				return cli_error(
				    CMD, "--alias wants IDENTITY=NAME (at most %d), not '%s'",
				    MAX_ALIASES, optarg);
			aliases[naliases++] = optarg;
			break;
		case OPT_MIN_EDGE:
			if (parse_number("--min-edge", optarg, -1, 1, &ao.min_edge))
				return EXIT_ERROR;
			break;
		case OPT_MERGE:
			if (parse_number("--merge-similar", optarg, -1, 1, &ao.merge.similar))
				return EXIT_ERROR;
			break;
		case 'j':
			if (parse_number("--jobs", optarg, 1, 256, &v))
				return EXIT_ERROR;
			ao.jobs = (unsigned)v;
			break;
		case OPT_SITES:
			if (parse_number("--sites", optarg, 1, 100, &v))
				return EXIT_ERROR;
			ro.top_sites = (unsigned)v;
			break;
		case OPT_DISK_BW:
		case OPT_DISK_IOPS:
		case OPT_NIC:
			if (parse_number(c == OPT_DISK_BW     ? "--disk-bw"
					 : c == OPT_DISK_IOPS ? "--disk-iops"
							      : "--nic-bps",
					 optarg, 1, 1e15, &v))
				return EXIT_ERROR;
			if (c == OPT_DISK_BW)
				ao.capacity.disk_bytes_per_s = (uint64_t)v;
			else if (c == OPT_DISK_IOPS)
				ao.capacity.disk_iops = (uint64_t)v;
			else
				ao.capacity.nic_bits_per_s = (uint64_t)v;
			break;
		default:
			return cli_other_option(c, usage);
		}
	}
	if (cli_open_trace_operand(CMD, argc, argv, usage, &t))
		return EXIT_ERROR;
	ro.trace_name = argv[optind];
	ro.aliases = aliases;
	ro.naliases = naliases;
	/* A trace of `record -- COMMAND` is about that command, one of `run` (or
	 * `record --target`) about its target, unless told otherwise. */
	if (!ro.target && !all) {
		const char *pid = wperf_trace_meta(t, WPERF_META_COMMAND_PID);
		const char *named = wperf_trace_meta(t, WPERF_META_ANALYSIS_TARGET);

		ro.target = pid && *pid ? pid : named && *named ? named : NULL;
	}
	ao.target = ro.target; /* the CMetric is over its threads */
	if (wperf_analyze(t, &ao, &a, &err) < 0 || wperf_symbolizer_new(t, &sym, &err) < 0) {
		status = cli_error(CMD, "%s: %s", argv[optind], err.msg);
		goto out;
	}
	if (format->write(a, sym, &ro, &text) < 0) {
		status = cli_error(CMD, "writing the report: out of memory");
		goto out;
	}
	if (format->render && graphviz_render((const char *)text.data, text.len, format->render,
					      &rendered, &err) < 0) {
		status = cli_error(CMD, "%s", err.msg);
		goto out;
	}
	if (format->render)
		e = output_write(output, rendered.data, rendered.len, &err);
	else
		e = output_write(output, text.data, text.len, &err);
	if (e < 0)
		status = cli_error(CMD, "%s", err.msg);
out:
	wperf_buf_release(&text);
	wperf_buf_release(&rendered);
	wperf_symbolizer_free(sym);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	return status;
}
