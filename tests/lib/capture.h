/* SPDX-License-Identifier: MIT */
/*
 * A command's entry point called in the test's own process, what it writes on
 * standard error caught: for the unit tests of the command line.
 */
#ifndef WPERF_TEST_CAPTURE_H
#define WPERF_TEST_CAPTURE_H

/* What fn(argc, argv) wrote on stderr, NUL-ended (the caller frees it; at most
 * CAPTURE_MAX - 1 bytes, or the test fails), and its status; argv ends with
 * NULL. */
char *capture_stderr(int (*fn)(int, char **), char **argv, int *status);

#define CAPTURE_MAX 16384

#endif /* WPERF_TEST_CAPTURE_H */
