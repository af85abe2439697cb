/* SPDX-License-Identifier: MIT */
/*
 * Identities (a vertex's stable name across runs) and sorted sets of them,
 * as the gate compares knots (see runset.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/runset.h"
#include "core/util/cmp.h"
#include "core/util/utf8.h"

/* ---- identities ---- */

char *wperf_identity_dup(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t len = wperf_utf8_seq(s + i);

		if (len == 0) {
			out[i++] = '?';
			continue;
		}
		memcpy(out + i, s + i, len);
		i += len;
	}
	out[n] = '\0';
	return out;
}

/* ---- identity sets ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int wperf_idset_from(const char *const *ids, size_t n, struct wperf_idset *out)
{
	size_t kept = 0;

	out->ids = NULL;
	out->n = 0;
	if (n == 0)
		return 0;
	out->ids = calloc(n, sizeof(*out->ids));
	if (!out->ids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		out->ids[i] = wperf_identity_dup(ids[i]);
		if (!out->ids[i]) {
			out->n = i;
			wperf_idset_release(out);
			return -ENOMEM;
		}
	}
	qsort(out->ids, n, sizeof(*out->ids), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (kept && !strcmp(out->ids[kept - 1], out->ids[i]))
			free(out->ids[i]); /* a duplicate */
		else
			out->ids[kept++] = out->ids[i];
	}
	out->n = kept;
	return 0;
}

int wperf_idset_copy(const struct wperf_idset *s, struct wperf_idset *out)
{
	return wperf_idset_from((const char *const *)s->ids, s->n, out);
}

int wperf_idset_cmp(const struct wperf_idset *a, const struct wperf_idset *b)
{
	for (size_t i = 0; i < a->n && i < b->n; i++) {
		int c = strcmp(a->ids[i], b->ids[i]);

		if (c)
			return c;
	}
	return wperf_cmp_u64(a->n, b->n);
}

void wperf_idset_release(struct wperf_idset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->ids[i]);
	free(s->ids);
	s->ids = NULL;
	s->n = 0;
}
