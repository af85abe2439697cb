/* SPDX-License-Identifier: MIT */
/*
 * How libwperf reports an error (part of its public interface, wperf.h): a
 * negative errno as the return value, and a sentence in a struct wperf_error
 * that the caller may print. The library itself never prints.
 */
#ifndef WPERF_PUBLIC_ERROR_H
#define WPERF_PUBLIC_ERROR_H

#define WPERF_ERROR_MSG_LEN 512

struct wperf_error {
	int code; /* negative errno, 0 when no error was set */
	char msg[WPERF_ERROR_MSG_LEN];
};

#endif /* WPERF_PUBLIC_ERROR_H */
