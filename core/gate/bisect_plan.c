/* SPDX-License-Identifier: MIT */
#include "core/gate/bisect_plan.h"

#include <string.h>

static const char *const mark_names[] = {"untested", "good", "bad", "unclear"};

enum wperf_bisect_step wperf_bisect_next(const enum wperf_bisect_mark *marks, size_t n, size_t *at)
{
	size_t lo = 0, hi = n - 1; /* the first bad is in [lo, hi]; hi is bad */

	*at = hi;
	if (marks[hi] == WPERF_BISECT_UNTESTED)
		return WPERF_BISECT_JUDGE;
	if (marks[hi] == WPERF_BISECT_UNCLEAR)
		return WPERF_BISECT_STUCK;
	if (marks[hi] == WPERF_BISECT_GOOD)
		return WPERF_BISECT_NO_CHANGE;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		*at = mid;
		if (marks[mid] == WPERF_BISECT_UNTESTED)
			return WPERF_BISECT_JUDGE;
		if (marks[mid] == WPERF_BISECT_UNCLEAR)
			return WPERF_BISECT_STUCK;
		if (marks[mid] == WPERF_BISECT_BAD)
			hi = mid;
		else
			lo = mid + 1;
	}
	*at = hi;
	return WPERF_BISECT_FOUND;
}

size_t wperf_bisect_judgments(size_t n)
{
	size_t k = 1;

	while (n > 1) {
		n = (n + 1) / 2;
		k++;
	}
	return k;
}

const char *wperf_bisect_mark_name(enum wperf_bisect_mark m)
{
	return m <= WPERF_BISECT_UNCLEAR ? mark_names[m] : "?";
}

int wperf_bisect_mark_parse(const char *name)
{
	for (int m = WPERF_BISECT_UNTESTED; m <= WPERF_BISECT_UNCLEAR; m++)
		if (!strcmp(name, mark_names[m]))
			return m;
	return -1;
}
