/* SPDX-License-Identifier: MIT */
/*
 * Shared by baseline.c and baseline_yaml.c only; not part of libwperf's API.
 */
#ifndef WPERF_BASELINE_INTERNAL_H
#define WPERF_BASELINE_INTERNAL_H

#include <stddef.h>

#include "core/util/buf.h"

/*
 * Appends elem to the array kept in buf and points *arr and *n at it, so that
 * the baseline is whole after every step (wperf_baseline_release can free it
 * whenever an error comes) while the array grows by doubling. 0 or -ENOMEM.
 */
int wperf_baseline_grow(struct wperf_buf *buf, void *arr, size_t *n, const void *elem, size_t size);

/* Frees the n strings of s, then s. */
void wperf_baseline_free_strings(char **s, size_t n);

/* Orders struct wperf_baseline_edge by (from, to), for qsort and bsearch. */
int wperf_baseline_cmp_edge(const void *pa, const void *pb);

#endif /* WPERF_BASELINE_INTERNAL_H */
