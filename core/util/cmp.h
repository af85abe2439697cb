/* SPDX-License-Identifier: MIT */
/*
 * Orders for qsort and bsearch: a record is compared by a short list of
 * numbers, its keys, the first that differs deciding (lexicographic order).
 * A comparator lists the keys of each side and leaves the rest to
 * wperf_cmp_keys, so that no comparator writes the chain out again.
 */
#ifndef WPERF_CMP_H
#define WPERF_CMP_H

#include <stddef.h>
#include <stdint.h>

/* -1, 0 or 1 as a is below, equal to or above b. */
static inline int wperf_cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* qsort's comparator for an array of uint64_t, smallest first. */
int wperf_cmp_u64_items(const void *a, const void *b);

/* The order of the keys a[0, n) and b[0, n): that of the first pair that
 * differs, 0 when none does. */
static inline int wperf_cmp_keys(const uint64_t *a, const uint64_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* A key that orders v largest first. */
static inline uint64_t wperf_key_desc(uint64_t v)
{
	return ~v;
}

/* A key that orders a signed v as a number (negative values first). */
static inline uint64_t wperf_key_signed(int64_t v)
{
	return (uint64_t)v ^ (UINT64_C(1) << 63);
}

#endif /* WPERF_CMP_H */
