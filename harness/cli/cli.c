/* SPDX-License-Identifier: MIT */
/*
 * What the sub-commands share for talking to the user.
 */
#include <stdarg.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/gate/gate.h"

static void report(const char *cmd, const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "wperf-bench %s: %s: ", cmd, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cmd, "error", fmt, ap);
	va_end(ap);
	return EXIT_ERROR;
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cmd, "warning", fmt, ap);
	va_end(ap);
}

int cli_other_option(int c, void (*usage)(FILE *))
{
	usage(c == 'h' ? stdout : stderr);
	return c == 'h' ? EXIT_OK : EXIT_ERROR;
}

const char *cli_one_operand(int argc, char **argv, void (*usage)(FILE *))
{
	if (optind != argc - 1) {
		usage(stderr);
		return NULL;
	}
	return argv[optind];
}

int cli_some_operands(int argc, void (*usage)(FILE *))
{
	if (optind == argc) {
		usage(stderr);
		return EXIT_ERROR;
	}
	return 0;
}

int cli_open_trace_operand(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
			   struct wperf_trace **t)
{
	struct wperf_error err = {0};
	const char *path = cli_one_operand(argc, argv, usage);

	if (!path)
		return EXIT_ERROR;
	if (wperf_trace_open(path, t, &err) < 0)
		return cli_error(cmd, "%s", err.msg);
	return 0;
}

int cli_baseline_option(const char *cmd, int c, const char *arg, struct gate_baseline_src *src)
{
	switch (c) {
	case 'b':
		src->path = arg;
		return 0;
	case CLI_OPT_BASELINE_REF:
		src->at_commit = 1;
		src->ref = strcmp(arg, "merge-base") ? arg : NULL;
		return 0;
	case CLI_OPT_TARGET:
		src->target = arg;
		return 0;
	}
	return cli_error(cmd, "option %d is not a baseline's", c);
}

int cli_parse_count(const char *cmd, const char *opt, const char *arg, unsigned min, unsigned max,
		    unsigned *out)
{
	char *end;
	long long n = strtoll(arg, &end, 10);

	if (*end || end == arg || n < min || n > max)
		return cli_error(cmd, "%s wants a number from %u to %u, not '%s'", opt, min, max,
				 arg);
	*out = (unsigned)n;
	return 0;
}
