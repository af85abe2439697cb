/* SPDX-License-Identifier: MIT */
/*
 * A thread's profile, what merge_likeness.c compares for merge_split.c (wPerf
 * section 4.2: two threads merge "if their distributions of call stacks are
 * similar"): its user stacks, each weighed by the waiting time behind it:
 *  - where it blocked, paired with where its waker woke it (the wait's call
 *    site), weighed by the wait;
 *  - where it woke another thread, weighed by that thread's wait.
 * Kernel stacks are left out: every thread that blocks on a futex has the same
 * one. The wakers' stacks are there because a C library built without frame
 * pointers (Debian's glibc) cuts a stack that blocks inside it at its own
 * innermost frame: a pool that waits in pthread_cond_wait inside a_worker and
 * one that waits in it inside b_worker then block at the same one-frame stack,
 * and only who wakes them, from where, and where they wake others, tells them
 * apart.
 *
 * Frames are compared by where they are in the program's files (the file and
 * the offset in it), not by address: two processes of one program have their
 * files at different addresses.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "symbolize.h"

/* The frame a wait's waker part has when the waker left no user stack: an
 * interrupt, a device, a kernel thread, or a stack the recorder lost. */
#define NO_WAKER_FRAME 0x6e6f2d77616b6572ull

/* splitmix64's finalizer: spreads a 64-bit value over all bits. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int by_tgid_start(const void *a, const void *b)
{
	const struct merge_file *x = a, *y = b;

	if (x->m->tgid != y->m->tgid)
		return x->m->tgid < y->m->tgid ? -1 : 1;
	return (x->m->start > y->m->start) - (x->m->start < y->m->start);
}

static int by_jit_start(const void *a, const void *b)
{
	const struct merge_jit *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
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
		p->files[i] = (struct merge_file){&m[i], hash_str(m[i].path)};
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

	return f ? f->path ^ mix(ip - f->m->start + f->m->pgoff) : mix(~ip);
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
		uint64_t none = NO_WAKER_FRAME;

		*err = wperf_buf_append(out, &none, sizeof(none));
		nother = 1;
	}
	return *nown + nother;
}

static int by_site(const void *a, const void *b)
{
	const struct merge_use *x = a, *y = b;

	if (x->entity != y->entity)
		return x->entity < y->entity ? -1 : 1;
	if (x->role != y->role)
		return x->role < y->role ? -1 : 1;
	if (x->ustack != y->ustack)
		return x->ustack < y->ustack ? -1 : 1;
	if (x->waker != y->waker)
		return x->waker < y->waker ? -1 : 1;
	if (x->other != y->other)
		return x->other < y->other ? -1 : 1;
	return (x->other_tgid > y->other_tgid) - (x->other_tgid < y->other_tgid);
}

static int by_entity_key(const void *a, const void *b)
{
	const struct merge_use *x = a, *y = b;

	if (x->entity != y->entity)
		return x->entity < y->entity ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

size_t merge_sort_sum(void *base, size_t n, size_t size, size_t weight_at,
		      int (*cmp)(const void *, const void *))
{
	char *b = base;
	size_t len = 0;

	if (n)
		qsort(b, n, size, cmp);
	for (size_t i = 0; i < n; i++) {
		char *last = b + (len - 1) * size, *x = b + i * size;
		double sum, w;

		if (len && !cmp(last, x)) {
			memcpy(&sum, last + weight_at, sizeof(sum));
			memcpy(&w, x + weight_at, sizeof(w));
			sum += w;
			memcpy(last + weight_at, &sum, sizeof(sum));
		} else if (len++ != i) {
			memcpy(b + (len - 1) * size, x, size);
		}
	}
	return len;
}

/* Sorts u[0, n) by cmp and sums the weights of equal ones; returns how many are left. */
static size_t sort_uses(struct merge_use *u, size_t n, int (*cmp)(const void *, const void *))
{
	return merge_sort_sum(u, n, sizeof(*u), offsetof(struct merge_use, weight), cmp);
}

/* Where a thread's last wait of one role went in out, and what it was. */
struct last_use {
	size_t at; /* SIZE_MAX: none yet */
	uint32_t stacks, waker;
};

/*
 * Appends the use u of wait s to out, or, when s has the stacks and waker of
 * the wait before it in this role, adds u's weight to that one's use: a thread
 * blocks and is woken in the same few places again and again.
 */
static int add_use(struct wperf_buf *out, const struct merge_use *u, const struct wperf_segment *s,
		   struct last_use *last)
{
	if (last->at != SIZE_MAX && last->stacks == s->stacks && last->waker == s->waker) {
		((struct merge_use *)(void *)out->data)[last->at].weight += u->weight;
		return 0;
	}
	*last = (struct last_use){out->len / sizeof(*u), s->stacks, s->waker};
	return wperf_buf_append(out, u, sizeof(*u));
}

/* The stacks of the waits of real entity e, into out: its own (profiled[e]),
 * and its wakers' (profiled[waker]). */
static int entity_uses(const struct wperf_short_lived *sl, uint32_t e, const uint8_t *profiled,
		       struct wperf_buf *out)
{
	const struct wperf_timeline *tl = &sl->view;
	const struct wperf_entity *en = &tl->entities[e];
	struct last_use last_block = {SIZE_MAX, 0, 0}, last_wake = {SIZE_MAX, 0, 0};
	int err = 0;

	for (size_t k = 0; k < en->nsegments && !err; k++) {
		const struct wperf_segment *s = &en->segments[k];
		const struct wperf_wait_stacks *st = wperf_segment_stacks(tl, s);
		uint32_t w = s->waker;
		int block, wake; /* profiled (only threads are) and with a user stack */
		struct merge_use u;

		if (s->state != WPERF_SEG_WAITING)
			continue;
		block = profiled[e] && st->ustack != WPERF_NO_STACK;
		wake = st->waker_ustack != WPERF_NO_STACK && w < sl->nreal && profiled[w];
		if (!block && !wake)
			continue;
		u = (struct merge_use){.weight = (double)(s->end - wperf_segment_start(en, k))};
		if (block) {
			u.entity = e;
			u.role = MERGE_BLOCK;
			u.ustack = st->ustack;
			u.waker = w < sl->nreal && tl->entities[w].kind == WPERF_ENTITY_THREAD;
			u.other = u.waker ? st->waker_ustack : WPERF_NO_STACK;
			u.other_tgid = u.waker ? tl->entities[w].tgid : 0;
			err = add_use(out, &u, s, &last_block);
		}
		if (!err && wake) {
			u.entity = w;
			u.role = MERGE_WAKE;
			u.ustack = st->waker_ustack;
			u.waker = 0;
			u.other = WPERF_NO_STACK;
			u.other_tgid = 0;
			err = add_use(out, &u, s, &last_wake);
		}
	}
	return err;
}

/* Use u's key, from its frames; 0 for a stack the trace does not have. */
static int key_use(const struct merge_profiles *p, struct merge_use *u, struct wperf_buf *frames)
{
	size_t nown, n;
	int err = 0;
	uint64_t h = mix(u->role);

	wperf_buf_clear(frames);
	n = merge_use_frames(p, u, frames, &nown, &err);
	for (size_t i = 0; i < n; i++)
		h = mix(h ^ ((const uint64_t *)(const void *)frames->data)[i] ^ (i == nown));
	u->key = nown ? h | 1 : 0;
	return err;
}

int merge_profiles_build(const struct wperf_trace *t, const struct wperf_short_lived *sl,
			 const uint8_t *profiled, struct merge_profiles *out)
{
	struct wperf_buf all = {0}, scratch = {0};
	size_t n = 0, nent = sl->view.nentities;
	int e;

	memset(out, 0, sizeof(*out));
	out->t = t;
	out->sl = sl;
	out->first = calloc(nent + 1, sizeof(*out->first));
	out->count = calloc(nent + 1, sizeof(*out->count));
	e = out->first && out->count ? index_files(out) : -ENOMEM;
	if (!e)
		e = index_jit(out);
	for (uint32_t i = 0; i < sl->nreal && !e; i++) {
		size_t len;

		wperf_buf_clear(&scratch);
		e = entity_uses(sl, i, profiled, &scratch);
		len = sort_uses((struct merge_use *)(void *)scratch.data,
				scratch.len / sizeof(struct merge_use), by_site);
		if (!e)
			e = wperf_buf_append(&all, scratch.data, len * sizeof(struct merge_use));
	}
	out->uses = (struct merge_use *)(void *)all.data;
	for (size_t i = 0; !e && i < all.len / sizeof(*out->uses); i++) {
		e = key_use(out, &out->uses[i], &scratch);
		if (!e && out->uses[i].key && out->uses[i].weight > 0)
			out->uses[n++] = out->uses[i]; /* a stack the trace lacks tells nothing */
	}
	wperf_buf_release(&scratch);
	n = sort_uses(out->uses, n, by_entity_key);
	for (size_t i = 0; !e && i < n; i++)
		if (!out->count[out->uses[i].entity]++)
			out->first[out->uses[i].entity] = (uint32_t)i;
	if (e)
		merge_profiles_release(out);
	return e;
}

void merge_profiles_release(struct merge_profiles *p)
{
	free(p->files);
	free(p->jit);
	free(p->uses);
	free(p->first);
	free(p->count);
	memset(p, 0, sizeof(*p));
}
