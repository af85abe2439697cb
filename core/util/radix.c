/* SPDX-License-Identifier: MIT */
#include "core/util/radix.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DIGITS 65536

static uint64_t key_of(const uint8_t *record, size_t key_offset)
{
	uint64_t k;

	memcpy(&k, record + key_offset, sizeof(k));
	return k;
}

/* One pass's scatter; inlined twice, once with a constant size. */
static inline __attribute__((always_inline)) void scatter(uint8_t *dst, const uint8_t *src,
							  size_t n, size_t size, size_t key_offset,
							  unsigned shift, size_t *count)
{
	for (size_t i = 0; i < n; i++) {
		size_t d = (key_of(src + i * size, key_offset) >> shift) & 0xffff;

		memcpy(dst + count[d]++ * size, src + i * size, size);
	}
}

int wperf_radix_sort(void *items, size_t n, size_t size, size_t key_offset, void *tmp)
{
	size_t *count = malloc(DIGITS * sizeof(*count));
	uint8_t *src = items, *dst = tmp;
	uint64_t all_or = 0, all_and = UINT64_MAX;

	if (!count)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_of(src + i * size, key_offset);

		all_or |= k;
		all_and &= k;
	}
	for (unsigned shift = 0; shift < 64; shift += 16) {
		size_t sum = 0;

		if ((((all_or ^ all_and) >> shift) & 0xffff) == 0)
			continue; /* every key has the same digit here */
		memset(count, 0, DIGITS * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[(key_of(src + i * size, key_offset) >> shift) & 0xffff]++;
		for (size_t d = 0; d < DIGITS; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		if (size == 16) /* the common case: a constant size inlines the copy */
			scatter(dst, src, n, 16, key_offset, shift, count);
		else
			scatter(dst, src, n, size, key_offset, shift, count);
		uint8_t *swap = src;

		src = dst;
		dst = swap;
	}
	if (src != items)
		memcpy(items, src, n * size);
	free(count);
	return 0;
}
