/* SPDX-License-Identifier: MIT */
#include "core/analysis/callsites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/cmp.h"

static int same_key(const struct wperf_callsite *a, const struct wperf_callsite *b)
{
	return a->from == b->from && a->to == b->to && a->kstack == b->kstack &&
	       a->ustack == b->ustack && a->waker_kstack == b->waker_kstack &&
	       a->waker_ustack == b->waker_ustack && a->waiter_tgid == b->waiter_tgid &&
	       a->waker_tgid == b->waker_tgid;
}

static size_t hash_key(const struct wperf_callsite *k)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t words[8] = {k->from,
			     k->to,
			     (uint32_t)k->kstack,
			     (uint32_t)k->ustack,
			     (uint32_t)k->waker_kstack,
			     (uint32_t)k->waker_ustack,
			     k->waiter_tgid,
			     k->waker_tgid};

	for (int i = 0; i < 8; i++)
		h = (h ^ words[i]) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29));
}

/* Puts site index i into the table (which has room). */
static void place(size_t *slots, size_t cap, const struct wperf_callsite *sites, size_t i)
{
	size_t s = hash_key(&sites[i]) & (cap - 1);

	while (slots[s])
		s = (s + 1) & (cap - 1);
	slots[s] = i + 1;
}

static int grow(struct wperf_callsites *cs)
{
	size_t cap = cs->cap ? cs->cap * 2 : 256;
	size_t *slots = calloc(cap, sizeof(*slots));

	if (!slots ||
	    wperf_buf_reserve(&cs->storage, cap / 2 * sizeof(*cs->sites) - cs->storage.len) < 0) {
		free(slots);
		return -ENOMEM;
	}
	cs->sites = (struct wperf_callsite *)cs->storage.data;
	for (size_t i = 0; i < cs->n; i++)
		place(slots, cap, cs->sites, i);
	free(cs->slots);
	cs->slots = slots;
	cs->cap = cap;
	return 0;
}

int64_t wperf_callsites_index(struct wperf_callsites *cs, const struct wperf_callsite *key)
{
	size_t s;

	/* The sites array holds cap / 2 entries: the table stays at most half full. */
	if ((cs->n + 1) * 2 > cs->cap && grow(cs) < 0)
		return -ENOMEM;
	for (s = hash_key(key) & (cs->cap - 1); cs->slots[s]; s = (s + 1) & (cs->cap - 1))
		if (same_key(&cs->sites[cs->slots[s] - 1], key))
			return (int64_t)cs->slots[s] - 1;
	cs->sites[cs->n] = *key;
	cs->sites[cs->n].weight = 0;
	cs->slots[s] = ++cs->n;
	cs->storage.len = cs->n * sizeof(*cs->sites);
	return (int64_t)cs->n - 1;
}

int wperf_callsites_add(struct wperf_callsites *cs, const struct wperf_callsite *key,
			uint64_t weight)
{
	int64_t i = wperf_callsites_index(cs, key);

	if (i < 0)
		return (int)i;
	cs->sites[i].weight += weight;
	return 0;
}

int wperf_callsites_merge(struct wperf_callsites *cs, const struct wperf_callsites *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (wperf_callsites_add(cs, &src->sites[i], src->sites[i].weight) < 0)
			return -ENOMEM;
	return 0;
}

static int by_edge_then_weight(const void *a, const void *b)
{
	const struct wperf_callsite *x = a, *y = b;
	const uint64_t kx[] = {x->from, x->to, wperf_key_desc(x->weight)};
	const uint64_t ky[] = {y->from, y->to, wperf_key_desc(y->weight)};
	int c = wperf_cmp_keys(kx, ky, 3);

	/* Equal weights: by stacks, so that the order never depends on the adds'. */
	return c ? c : memcmp(&x->kstack, &y->kstack, 4 * sizeof(int32_t) + 2 * sizeof(uint32_t));
}

void wperf_callsites_finish(struct wperf_callsites *cs)
{
	if (cs->n)
		qsort(cs->sites, cs->n, sizeof(*cs->sites), by_edge_then_weight);
	free(cs->slots);
	cs->slots = NULL;
	cs->cap = 0;
}

void wperf_callsites_release(struct wperf_callsites *cs)
{
	wperf_buf_release(&cs->storage);
	free(cs->slots);
	memset(cs, 0, sizeof(*cs));
}

void wperf_callsites_of_edge(const struct wperf_callsites *cs, uint32_t from, uint32_t to,
			     size_t *first, size_t *n)
{
	const struct wperf_callsite *s = cs->sites;
	size_t lo = 0, hi = cs->n;

	while (lo < hi) { /* the first site of (from, to) or later */
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].from < from || (s[mid].from == from && s[mid].to < to))
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	for (*n = 0; lo + *n < cs->n && s[lo + *n].from == from && s[lo + *n].to == to;)
		(*n)++;
}
