/* SPDX-License-Identifier: MIT */
/*
 * Error reporting: the library fills a struct wperf_error and returns the code;
 * the caller decides whether and where to print the message.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core/util/error.h"

int wperf_error_set(struct wperf_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	/* vsnprintf truncates and always NUL-terminates: a long path cannot overflow. */
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}
