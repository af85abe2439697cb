/* SPDX-License-Identifier: MIT */
#include "core/util/cmp.h"

int wperf_cmp_u64_items(const void *a, const void *b)
{
	return wperf_cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}
