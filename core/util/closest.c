/* SPDX-License-Identifier: MIT */
/*
 * Edit distances over three rows of the dynamic programme (the third for
 * swaps of neighbours), on the stack: words are short.
 */
#include "core/util/closest.h"

#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t wperf_edit_distance(const char *a, const char *b)
{
	size_t rows[3][WPERF_EDIT_MAX + 1];
	size_t la = strnlen(a, WPERF_EDIT_MAX), lb = strnlen(b, WPERF_EDIT_MAX);
	size_t *before = rows[0], *prev = rows[1], *cur = rows[2];

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    before[j - 2] + 1 < cur[j])
				cur[j] = before[j - 2] + 1;
		}
		t = before, before = prev, prev = cur, cur = t;
	}
	return prev[lb];
}

size_t wperf_closest(const char *word, const char *const *names, size_t n, size_t within,
		     size_t *out, size_t max)
{
	size_t dist[WPERF_CLOSEST_MAX];
	size_t found = 0;

	if (max > WPERF_CLOSEST_MAX)
		max = WPERF_CLOSEST_MAX;

	for (size_t i = 0; i < n && max; i++) {
		size_t d = wperf_edit_distance(word, names[i]), at;

		if (d > within || (found == max && d >= dist[max - 1]))
			continue;
		at = found < max ? found++ : max - 1;
		for (; at > 0 && dist[at - 1] > d; at--) {
			dist[at] = dist[at - 1];
			out[at] = out[at - 1];
		}
		dist[at] = d;
		out[at] = i;
	}
	return found;
}

size_t wperf_suggest_distance(const char *word)
{
	size_t d = strlen(word) / 3;

	return d < 1 ? 1 : d > 3 ? 3 : d;
}
