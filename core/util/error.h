/* SPDX-License-Identifier: MIT */
/*
 * How libwperf reports an error to its caller: a negative errno as the return
 * value, and a sentence in a struct wperf_error that the caller may print.
 * The library itself never prints.
 */
#ifndef WPERF_ERROR_H
#define WPERF_ERROR_H

#include "include/wperf/error.h" /* struct wperf_error: part of the public interface */

/*
 * Sets err (when not NULL) to code and a printf-style message; returns code so
 * that callers can write `return wperf_error_set(err, -EINVAL, "...")`.
 */
int wperf_error_set(struct wperf_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* WPERF_ERROR_H */
