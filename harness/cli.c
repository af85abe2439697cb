/* SPDX-License-Identifier: MIT */
/*
 * What the sub-commands share for talking to the user.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

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

int cli_open_trace(const char *cmd, const char *path, struct wperf_trace **t)
{
	struct wperf_error err = {0};

	if (wperf_trace_open(path, t, &err) < 0)
		return cli_error(cmd, "%s", err.msg);
	return 0;
}
