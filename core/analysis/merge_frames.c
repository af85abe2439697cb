/* SPDX-License-Identifier: MIT */
/*
 * Where the frames of a user stack are, for comparing stacks across threads
 * and processes (merge_profile.c, merge_likeness.c): a frame is its file and
 * the offset in it (two processes of one program have their files at
 * different addresses), or its address in a JIT's code; and a walk is
 * believed only as far as its frames are in either.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/merge_internal.h"
#include "core/analysis/symbolize.h"
#include "core/util/cmp.h"

uint64_t merge_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int by_tgid_start(const void *a, const void *b)
{
	const struct merge_file *x = a, *y = b;
	const uint64_t kx[] = {x->m->tgid, x->m->start}, ky[] = {y->m->tgid, y->m->start};

	return wperf_cmp_keys(kx, ky, 2);
}

static int by_jit_start(const void *a, const void *b)
{
	const struct merge_jit *x = a, *y = b;
	const uint64_t kx[] = {x->tgid, x->start}, ky[] = {y->tgid, y->start};

	return wperf_cmp_keys(kx, ky, 2);
}

/* The JIT code of every process with a perf map, in p->jit. */
static int index_jit(struct merge_profiles *p)
{
	size_t n;
	const struct wperf_perfmap *pm = wperf_trace_perfmaps(p->t, &n);
	struct wperf_buf syms = {0}, jit = {0};
	int e = 0;

	for (size_t i = 0; i < n && !e; i++) {
		const struct wperf_jit_sym *s;

		wperf_buf_clear(&syms);
		e = wperf_perfmap_parse(pm[i].text, pm[i].len, &syms);
		s = (const struct wperf_jit_sym *)(const void *)syms.data;
		for (size_t k = 0; !e && k < syms.len / sizeof(*s); k++) {
			struct merge_jit j = {pm[i].tgid, s[k].start, s[k].start + s[k].size};

			e = wperf_buf_append(&jit, &j, sizeof(j));
		}
	}
	wperf_buf_release(&syms);
	p->jit = (struct merge_jit *)(void *)jit.data;
	p->njit = jit.len / sizeof(*p->jit);
	if (p->njit)
		qsort(p->jit, p->njit, sizeof(*p->jit), by_jit_start);
	return e;
}

/* Whether ip is in the JIT code of process tgid. */
static int in_jit(const struct merge_profiles *p, uint32_t tgid, uint64_t ip)
{
	size_t lo = 0, hi = p->njit;

	while (lo < hi) { /* the first entry after (tgid, ip) */
		size_t mid = lo + (hi - lo) / 2;

		if (p->jit[mid].tgid < tgid ||
		    (p->jit[mid].tgid == tgid && p->jit[mid].start <= ip))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && p->jit[lo - 1].tgid == tgid && ip < p->jit[lo - 1].end;
}

uint32_t merge_stack_depth(const struct merge_profiles *p, const struct wperf_stack *s,
			   uint32_t tgid)
{
	for (uint32_t i = 1; i < s->nr; i++)
		if (!merge_file_of(p, tgid, s->ips[i]) && !in_jit(p, tgid, s->ips[i]))
			return i;
	return s->nr;
}

static int index_files(struct merge_profiles *p)
{
	size_t n;
	const struct wperf_mapping *m = wperf_trace_mappings(p->t, &n);

	p->files = calloc(n + 1, sizeof(*p->files));
	if (!p->files)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		p->files[i] = (struct merge_file){&m[i], merge_hash_str(m[i].path)};
	if (n)
		qsort(p->files, n, sizeof(*p->files), by_tgid_start);
	p->nfiles = n;
	return 0;
}

const struct merge_file *merge_file_of(const struct merge_profiles *p, uint32_t tgid, uint64_t ip)
{
	size_t lo = 0, hi = p->nfiles;

	while (lo < hi) { /* the first mapping after (tgid, ip) */
		size_t mid = lo + (hi - lo) / 2;
		const struct wperf_mapping *m = p->files[mid].m;

		if (m->tgid < tgid || (m->tgid == tgid && m->start <= ip))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && p->files[lo - 1].m->tgid == tgid && ip < p->files[lo - 1].m->end)
		return &p->files[lo - 1];
	return NULL;
}

/* A frame of process tgid: its file and offset, or its address outside any. */
static uint64_t frame_key(const struct merge_profiles *p, uint32_t tgid, uint64_t ip)
{
	const struct merge_file *f = merge_file_of(p, tgid, ip);

	return f ? f->path ^ merge_mix(ip - f->m->start + f->m->pgoff) : merge_mix(~ip);
}

/* Appends the frame keys of user stack id of process tgid to out (uint64_t);
 * returns how many, 0 for a stack not in the trace's table. */
static size_t stack_frames(const struct merge_profiles *p, int32_t id, uint32_t tgid,
			   struct wperf_buf *out, int *err)
{
	const struct wperf_stack *s = id == WPERF_NO_STACK ? NULL : wperf_trace_stack(p->t, id, 1);
	uint32_t depth = s ? merge_stack_depth(p, s, tgid) : 0;

	for (uint32_t i = 0; i < depth && !*err; i++) {
		uint64_t k = frame_key(p, tgid, s->ips[i]);

		*err = wperf_buf_append(out, &k, sizeof(k));
	}
	return *err ? 0 : depth;
}

size_t merge_use_frames(const struct merge_profiles *p, const struct merge_use *u,
			struct wperf_buf *out, size_t *nown, int *err)
{
	const struct wperf_timeline *tl = &p->sl->view;
	size_t nother = 0;

	*nown = stack_frames(p, u->ustack, tl->entities[u->entity].tgid, out, err);
	if (u->role == MERGE_BLOCK && u->waker)
		nother = stack_frames(p, u->other, u->other_tgid, out, err);
	if (u->role == MERGE_BLOCK && !nother && !*err) {
		uint64_t none = MERGE_NO_WAKER_FRAME;

		*err = wperf_buf_append(out, &none, sizeof(none));
		nother = 1;
	}
	return *nown + nother;
}

int merge_frames_index(struct merge_profiles *p)
{
	int e = index_files(p);

	return e ? e : index_jit(p);
}
