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

#include "core/analysis/merge_internal.h"
#include "core/util/cmp.h"

/* Sites sort by a use's thread, role, stacks and the waker's process; field
 * by field, as the comparison runs for every pair qsort looks at. */
static int by_site(const void *a, const void *b)
{
	const struct merge_use *x = a, *y = b;
	int c = wperf_cmp_u64(x->entity, y->entity);

	c = c ? c : wperf_cmp_u64(x->role, y->role);
	c = c ? c : wperf_cmp_u64(wperf_key_signed(x->ustack), wperf_key_signed(y->ustack));
	c = c ? c : wperf_cmp_u64(x->waker, y->waker);
	c = c ? c : wperf_cmp_u64(wperf_key_signed(x->other), wperf_key_signed(y->other));
	return c ? c : wperf_cmp_u64(x->other_tgid, y->other_tgid);
}

static int by_entity_key(const void *a, const void *b)
{
	const struct merge_use *x = a, *y = b;
	const uint64_t kx[] = {x->entity, x->key}, ky[] = {y->entity, y->key};

	return wperf_cmp_keys(kx, ky, 2);
}

size_t merge_sort_sum(void *base, size_t n, size_t size, size_t weight_at,
		      int (*cmp)(const void *, const void *))
{
	char *b = base;
	size_t len = 0;

	if (n)
		qsort(b, n, size, cmp);
	for (size_t i = 0; i < n; i++) {
		char *last = len ? b + (len - 1) * size : NULL, *x = b + i * size;
		double sum, w;

		if (last && !cmp(last, x)) {
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
 * Adds weight to the use of the last wait of this role when wait s has its
 * stacks and waker: a thread blocks and is woken in the same few places again
 * and again. Returns whether it did.
 */
static inline int add_to_last(struct wperf_buf *out, const struct wperf_segment *s,
			      const struct last_use *last, double weight)
{
	if (last->at == SIZE_MAX || last->stacks != s->stacks || last->waker != s->waker)
		return 0;
	((struct merge_use *)(void *)out->data)[last->at].weight += weight;
	return 1;
}

/* Appends u, the use of wait s, to out; it is now the last of its role. */
static int new_use(struct wperf_buf *out, const struct merge_use *u, const struct wperf_segment *s,
		   struct last_use *last)
{
	*last = (struct last_use){out->len / sizeof(*u), s->stacks, s->waker};
	return wperf_buf_append(out, u, sizeof(*u));
}

/* The stacks of the waits of real entity e, into out: its own (profiled[e]),
 * and its wakers' (profiled[waker]). */
static int entity_uses(const struct merge_profiles *p, uint32_t e, const uint8_t *profiled,
		       struct wperf_buf *out)
{
	const struct wperf_short_lived *sl = p->sl;
	const struct wperf_timeline *tl = &sl->view;
	const struct wperf_entity *en = &tl->entities[e];
	struct last_use last_block = {SIZE_MAX, 0, 0}, last_wake = {SIZE_MAX, 0, 0};
	int err = 0;

	for (size_t k = 0; k < en->nsegments && !err; k++) {
		const struct wperf_segment *s = &en->segments[k];
		const struct wperf_wait_stacks *st = wperf_segment_stacks(tl, s);
		uint32_t w = s->waker;
		double weight;

		if (s->state != WPERF_SEG_WAITING)
			continue;
		weight = (double)(s->end - wperf_segment_start(en, k));
		/* profiled (only threads are), with a user stack */
		if (profiled[e] && st->ustack != WPERF_NO_STACK &&
		    !add_to_last(out, s, &last_block, weight)) {
			int thread = w < sl->nreal && tl->entities[w].kind == WPERF_ENTITY_THREAD;
			struct merge_use u = {.entity = e,
					      .role = MERGE_BLOCK,
					      .waker = (uint8_t)thread,
					      .ustack = st->ustack,
					      .other = thread ? st->waker_ustack : WPERF_NO_STACK,
					      .other_tgid = thread ? tl->entities[w].tgid : 0,
					      .weight = weight};

			err = new_use(out, &u, s, &last_block);
		}
		if (!err && st->waker_ustack != WPERF_NO_STACK && w < sl->nreal && profiled[w] &&
		    !add_to_last(out, s, &last_wake, weight)) {
			struct merge_use u = {.entity = w,
					      .role = MERGE_WAKE,
					      .ustack = st->waker_ustack,
					      .other = WPERF_NO_STACK,
					      .weight = weight};

			err = new_use(out, &u, s, &last_wake);
		}
	}
	return err;
}

/* Use u's key, from its frames; 0 for a stack the trace does not have. */
static int key_use(const struct merge_profiles *p, struct merge_use *u, struct wperf_buf *frames)
{
	size_t nown, n;
	int err = 0;
	uint64_t h = merge_mix(u->role);

	wperf_buf_clear(frames);
	n = merge_use_frames(p, u, frames, &nown, &err);
	for (size_t i = 0; i < n; i++)
		h = merge_mix(h ^ ((const uint64_t *)(const void *)frames->data)[i] ^ (i == nown));
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
	e = out->first && out->count ? merge_frames_index(out) : -ENOMEM;
	for (uint32_t i = 0; i < sl->nreal && !e; i++) {
		size_t len;

		wperf_buf_clear(&scratch);
		e = entity_uses(out, i, profiled, &scratch);
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
