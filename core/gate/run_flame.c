/* SPDX-License-Identifier: MIT */
#include "core/gate/run_flame.h"

#include "core/report/report.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first frame of the folded lines of edge e, "FROM->TO", as
 * report_folded.c writes it; NULL when out of memory. */
static char *edge_frame(const struct wperf_run_edge *e)
{
	struct wperf_buf b = {0};
	char *s = NULL;

	if (asprintf(&s, "%s->%s", e->from, e->to) < 0)
		return NULL;
	if (wperf_folded_frame(&b, s, strlen(s)) < 0 || wperf_buf_append(&b, "", 1) < 0) {
		wperf_buf_release(&b);
		b.data = NULL;
	}
	free(s);
	return (char *)b.data;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int wperf_flame_filter_add_run(struct wperf_flame_filter *ff, const struct wperf_run *run)
{
	for (size_t i = 0; i < run->nedges; i++) {
		char *s = edge_frame(&run->edges[i]);

		if (!s || wperf_buf_append(&ff->edges, &s, sizeof(s)) < 0) {
			free(s);
			return -ENOMEM;
		}
	}
	ff->sorted = 0;
	return 0;
}

/*
 * Where the address part of frame (n bytes) starts, n when it has none: a
 * source line ":LINE" in "NAME_(FILE:LINE)", an offset "+0xHEX" in
 * "NAME+0xHEX" and "[BINARY+0xHEX]", an address "_0xHEX" in
 * "[unknown_0xHEX]". It ends before the closing ')' or ']'.
 */
static size_t address_at(const char *frame, size_t n)
{
	int closed = n > 0 && (frame[n - 1] == ')' || frame[n - 1] == ']');
	size_t end = n - (size_t)closed, i = end;

	if (closed && frame[n - 1] == ')') {
		while (i > 0 && isdigit((unsigned char)frame[i - 1]))
			i--;
		return i < end && i > 0 && frame[i - 1] == ':' ? i - 1 : n;
	}
	while (i > 0 && isxdigit((unsigned char)frame[i - 1]))
		i--;
	if (i < end && i >= 3 && !memcmp(frame + i - 2, "0x", 2) &&
	    (frame[i - 3] == '+' || frame[i - 3] == '_'))
		return i - 3;
	return n;
}

/* Appends the stack of a folded line (len bytes, ';'-joined) with each frame's
 * address part (address_at) dropped. */
static int append_functions(struct wperf_buf *out, const char *stack, size_t len)
{
	int ret = 0;

	for (size_t at = 0; at <= len && !ret;) {
		const char *frame = stack + at, *semi = memchr(frame, ';', len - at);
		size_t n = semi ? (size_t)(semi - frame) : len - at, cut = address_at(frame, n);
		int closed = cut < n && (frame[n - 1] == ')' || frame[n - 1] == ']');

		ret = (at ? wperf_buf_append(out, ";", 1) : 0) ||
		      wperf_buf_append(out, frame, cut) ||
		      (closed ? wperf_buf_append(out, frame + n - 1, 1) : 0);
		at += n + 1;
	}
	return ret ? -ENOMEM : 0;
}

/*
 * The lines of folded (report_folded.c's) whose first frame is one of the
 * sorted edge frames, appended to out, with their frames' address parts
 * dropped unless exact. The CMetric's lines go too: they are running time,
 * not waiting.
 */
static int keep_lines(const char *text, size_t len, const struct wperf_flame_filter *ff,
		      struct wperf_buf *out)
{
	const char *end = text + len;
	char *const *edges = (char *const *)ff->edges.data;
	size_t nedges = ff->edges.len / sizeof(*edges);
	int ret = 0;

	for (const char *line = text, *nl; line < end && !ret; line = nl + 1) {
		char first[2 * WPERF_IDENTITY_LEN + 3];
		const char *key = first, *space, *semi;
		size_t first_len;

		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			break; /* report_folded.c ends every line */
		space = memrchr(line, ' ', (size_t)(nl - line));
		if (!space)
			continue;
		semi = memchr(line, ';', (size_t)(space - line));
		first_len = (size_t)((semi ? semi : space) - line);
		if (first_len >= sizeof(first))
			continue; /* longer than any edge's */
		memcpy(first, line, first_len);
		first[first_len] = '\0';
		if (!nedges || !bsearch(&key, edges, nedges, sizeof(*edges), cmp_str))
			continue;
		if (ff->exact)
			ret = wperf_buf_append(out, line, (size_t)(space - line));
		else
			ret = append_functions(out, line, (size_t)(space - line));
		ret = ret || wperf_buf_append(out, space, (size_t)(nl + 1 - space));
	}
	return ret ? -ENOMEM : 0;
}

int wperf_flame_add_folded(struct wperf_flame *f, enum wperf_flame_side side,
			   struct wperf_flame_filter *ff, const char *folded, size_t len,
			   struct wperf_error *err)
{
	struct wperf_buf kept = {0};
	char **edges = (char **)ff->edges.data;
	int e;

	if (!ff->sorted && ff->edges.len)
		qsort(edges, ff->edges.len / sizeof(*edges), sizeof(*edges), cmp_str);
	ff->sorted = 1;
	e = keep_lines(folded, len, ff, &kept);
	if (e)
		e = wperf_error_set(err, e, "out of memory");
	else
		e = wperf_flame_parse(f, side, (const char *)kept.data, kept.len, err);
	wperf_buf_release(&kept);
	return e;
}

void wperf_flame_filter_release(struct wperf_flame_filter *ff)
{
	char **edges = (char **)ff->edges.data;

	for (size_t i = 0; i < ff->edges.len / sizeof(*edges); i++)
		free(edges[i]);
	wperf_buf_release(&ff->edges);
	ff->sorted = 0;
}
