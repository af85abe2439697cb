/* SPDX-License-Identifier: MIT */
/*
 * JIT names for the symbolizer (see symbolize.h): the perf maps
 * (/tmp/perf-PID.map) a trace carries, parsed once per process and searched
 * by address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/symbolize_internal.h"
#include "core/util/cmp.h"

static int cmp_jit(const void *a, const void *b)
{
	const struct wperf_jit_sym *x = a, *y = b;
	const uint64_t kx[] = {x->start, x->order}, ky[] = {y->start, y->order};

	return wperf_cmp_keys(kx, ky, 2);
}

/* Parses a hex number (optional 0x) at *pp, before end; 0 on success. */
static int parse_hex(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	int digits = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (*v = 0; p < end; p++, digits++) {
		int c = *p, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		if (digits >= 16)
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	*pp = p;
	return digits ? 0 : -1;
}

int wperf_perfmap_parse(const char *text, size_t len, struct wperf_buf *out)
{
	const char *line = text, *end = text + len;

	while (line < end) {
		const char *eol = memchr(line, '\n', end - line), *q = line;
		struct wperf_jit_sym e = {.order = out->len / sizeof(e)};

		if (!eol)
			eol = end;
		if (!parse_hex(&q, eol, &e.start) && !parse_hex(&q, eol, &e.size) && q < eol &&
		    (*q == ' ' || *q == '\t')) {
			while (q < eol && (*q == ' ' || *q == '\t'))
				q++;
			e.name = q;
			e.name_len = eol - q;
			while (e.name_len && e.name[e.name_len - 1] == '\r')
				e.name_len--;
			if (e.name_len && e.size && wperf_buf_append(out, &e, sizeof(e)) < 0)
				return -ENOMEM;
		}
		line = eol + 1;
	}
	return 0;
}

/* Parses every perf map of p; bad lines are skipped. */
static void proc_load_jit(struct wperf_symbolizer *s, struct sym_proc *p)
{
	const struct wperf_perfmap *pm;
	struct wperf_buf b = {0};
	size_t npm;

	p->jit_done = 1;
	pm = wperf_trace_perfmaps(s->t, &npm);
	for (size_t i = 0; i < npm; i++) {
		if (pm[i].tgid == p->tgid && wperf_perfmap_parse(pm[i].text, pm[i].len, &b) < 0) {
			wperf_buf_release(&b);
			return; /* out of memory: no JIT names for p */
		}
	}
	p->jit = (struct wperf_jit_sym *)b.data; /* the buffer's memory now belongs to p */
	p->njit = b.len / sizeof(*p->jit);
	if (p->njit) /* jit is NULL for an empty perf map */
		qsort(p->jit, p->njit, sizeof(*p->jit), cmp_jit);
}

/* The perf map entry of p holding ip, or NULL. */
const struct wperf_jit_sym *sym_find_jit(struct wperf_symbolizer *s, struct sym_proc *p,
					 uint64_t ip)
{
	size_t lo = 0, hi;

	if (!p->jit_done)
		proc_load_jit(s, p);
	/* hi: the number of entries starting at or below ip */
	for (hi = p->njit; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->jit[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The latest entry that starts at or below ip and covers it (code is reused). */
	for (size_t i = lo; i-- > 0 && lo - i <= 64;)
		if (ip - p->jit[i].start < p->jit[i].size)
			return &p->jit[i];
	return NULL;
}
