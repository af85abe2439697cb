/* SPDX-License-Identifier: MIT */
/*
 * Sorting records by a 64-bit key in linear time: an LSD radix sort, 16 bits a
 * pass, skipping the passes where every key has the same digit. Stable. For the
 * millions of timestamps an analysis sorts, where qsort's n log n shows.
 */
#ifndef WPERF_RADIX_H
#define WPERF_RADIX_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sorts n records of size bytes at items by the uint64_t at key_offset in each;
 * tmp must hold n records. Returns 0, or -ENOMEM.
 */
int wperf_radix_sort(void *items, size_t n, size_t size, size_t key_offset, void *tmp);

#endif /* WPERF_RADIX_H */
