/* SPDX-License-Identifier: MIT */
/*
 * The bottom of the gate: a verdict's findings and warnings, added (the
 * verdict owns their strings from then on), formatted and released, for the
 * tests (verdict_tests.c, verdict_metrics.c), their levels (verdict_levels.c)
 * and the verdict itself (verdict.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/verdict_internal.h"

void gate_release_finding(struct wperf_finding *f)
{
	wperf_idset_release(&f->knot);
	free(f->from);
	free(f->to);
	free(f->note);
	free(f->vertex);
	free(f->metric);
	free(f->unit);
	for (size_t i = 0; i < f->nsites; i++) {
		free(f->sites[i].waiter);
		free(f->sites[i].waker);
	}
	free(f->sites);
}

char *gate_format(const char *fmt, ...)
{
	struct wperf_buf b = {0};
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || wperf_buf_reserve(&b, (size_t)n + 1) < 0)
		return NULL;
	va_start(ap, fmt);
	vsnprintf((char *)b.data, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return (char *)b.data;
}

/* Appends to an array of out kept in buf (see grow in baseline.c). */
static int grow(struct wperf_buf *buf, void *arr, size_t *n, const void *elem, size_t size)
{
	int ret = wperf_buf_append(buf, elem, size);

	if (ret)
		return ret;
	memcpy(arr, &buf->data, sizeof(buf->data));
	*n = buf->len / size;
	return 0;
}

/* Takes f (its strings) into the verdict; on error frees them instead. */
int gate_add_finding(struct gate *s, struct wperf_finding *f)
{
	int ret = grow(&s->findings, &s->out->findings, &s->out->nfindings, f, sizeof(*f));

	if (ret)
		gate_release_finding(f);
	return ret;
}

/* Adds a warning made by format (NULL: out of memory). */
int gate_add_warning(struct gate *s, char *w)
{
	int ret =
	    w ? grow(&s->warnings, &s->out->warnings, &s->out->nwarnings, &w, sizeof(w)) : -ENOMEM;

	if (ret)
		free(w);
	return ret;
}
