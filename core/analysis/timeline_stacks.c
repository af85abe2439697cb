/* SPDX-License-Identifier: MIT */
/*
 * The timeline builder's table of wait stacks (timeline.h): each combination
 * of a waiting thread's stacks and its waker's stacks is stored once, in an
 * open-addressing hash table, and a segment names it by index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/timeline_internal.h"
#include "core/analysis/timeline_threads.h"

static size_t stacks_hash(const struct wperf_wait_stacks *k)
{
	uint64_t a = (uint64_t)(uint32_t)k->kstack << 32 | (uint32_t)k->ustack;
	uint64_t c = (uint64_t)(uint32_t)k->waker_kstack << 32 | (uint32_t)k->waker_ustack;
	uint64_t h =
	    a * 0x9E3779B97F4A7C15ull ^ (c + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;

	return (size_t)(h ^ h >> 29);
}

static int same_stacks(const struct wperf_wait_stacks *a, const struct wperf_wait_stacks *b)
{
	return a->kstack == b->kstack && a->ustack == b->ustack &&
	       a->waker_kstack == b->waker_kstack && a->waker_ustack == b->waker_ustack;
}

/* The slot of k in the table: where it is, or the empty one where it goes. */
static uint32_t *stacks_slot(const struct tl_builder *b, const struct wperf_wait_stacks *k)
{
	const struct wperf_wait_stacks *all = (const void *)b->stacks.data;
	size_t mask = b->stacks_cap - 1;

	for (size_t i = stacks_hash(k) & mask;; i = (i + 1) & mask)
		if (!b->stacks_slots[i] || same_stacks(&all[b->stacks_slots[i] - 1], k))
			return &b->stacks_slots[i];
}

/* Doubles the table (or makes its first 64 slots). */
static int stacks_grow(struct tl_builder *b)
{
	size_t n = TL_COUNT(b->stacks, struct wperf_wait_stacks);
	size_t cap = b->stacks_cap ? 2 * b->stacks_cap : 64;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(b->stacks_slots);
	b->stacks_slots = slots;
	b->stacks_cap = cap;
	for (size_t i = 0; i < n; i++)
		*stacks_slot(b, &TL_AT(b->stacks, struct wperf_wait_stacks, i)) = (uint32_t)i + 1;
	return 0;
}

uint32_t tl_stacks_id(struct tl_builder *b, const struct wperf_wait_stacks *k)
{
	size_t n = TL_COUNT(b->stacks, struct wperf_wait_stacks);
	struct wperf_wait_stacks *s;
	uint32_t *slot;

	if (2 * (n + 1) > b->stacks_cap && (n >= WPERF_MAX_STACKS - 1 || stacks_grow(b) < 0)) {
		b->oom = 1;
		return WPERF_NO_STACKS;
	}
	slot = stacks_slot(b, k);
	if (*slot)
		return *slot - 1;
	if (!(s = wperf_buf_push(&b->stacks, sizeof(*s)))) {
		b->oom = 1;
		return WPERF_NO_STACKS;
	}
	*s = *k;
	*slot = (uint32_t)n + 1;
	return (uint32_t)n;
}

/* The table with its first entry, WPERF_NO_STACKS. */
int tl_stacks_init(struct tl_builder *b)
{
	const struct wperf_wait_stacks none = {WPERF_NO_STACK, WPERF_NO_STACK, WPERF_NO_STACK,
					       WPERF_NO_STACK};

	return tl_stacks_id(b, &none) == WPERF_NO_STACKS && !b->oom ? 0 : -ENOMEM;
}

/* The index of the stacks of thread th's wait, woken at wks and wus. */
uint32_t tl_wait_stacks(struct tl_builder *b, struct tl_thread *th, int32_t wks, int32_t wus)
{
	const struct wperf_wait_stacks k = {th->kstack, th->ustack, wks, wus};

	if (!same_stacks(&k, &th->last_stacks)) {
		th->last_stacks_id = tl_stacks_id(b, &k);
		th->last_stacks = k;
	}
	return th->last_stacks_id;
}
