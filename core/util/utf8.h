/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 as the outputs need it: thread names are bytes, and baselines,
 * reports and comments are UTF-8 text.
 */
#ifndef WPERF_UTF8_H
#define WPERF_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence that starts at s, 0 when s starts with
 * an invalid one or the NUL: no overlong forms, no surrogates, nothing past
 * U+10FFFF. */
size_t wperf_utf8_seq(const char *s);

#endif /* WPERF_UTF8_H */
