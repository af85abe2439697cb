/* SPDX-License-Identifier: MIT */
/*
 * Maps 32-bit ids (thread ids, stack ids, ...) to dense indexes 0, 1, 2, ... in
 * the order they are first seen, so that per-id data can live in plain arrays.
 * Open addressing with linear probing; the table doubles at 50% load.
 *
 * Ownership: a struct wperf_idmap owns its slots; wperf_idmap_release frees them.
 * A zeroed struct is a valid empty map.
 */
#ifndef WPERF_IDMAP_H
#define WPERF_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct wperf_idmap_slot {
	uint32_t key;
	uint32_t index_plus_one; /* 0: empty slot */
};

struct wperf_idmap {
	struct wperf_idmap_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t count;
};

/* Fibonacci hashing spreads sequential ids (tids come in runs) over the table. */
static inline size_t wperf_idmap__slot(uint32_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* The index of key, or -1 when it is not in the map. Inline: the analysis looks
 * up a thread id or two for every event. */
static inline int64_t wperf_idmap_find(const struct wperf_idmap *m, uint32_t key)
{
	if (!m->cap)
		return -1;
	for (size_t i = wperf_idmap__slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		const struct wperf_idmap_slot *s = &m->slots[i];

		if (!s->index_plus_one)
			return -1;
		if (s->key == key)
			return s->index_plus_one - 1;
	}
}

/*
 * The index of key, adding it (with index count) when absent. Returns the index,
 * or -ENOMEM. *added (may be NULL) tells whether it was new.
 */
int64_t wperf_idmap_get(struct wperf_idmap *m, uint32_t key, int *added);

void wperf_idmap_release(struct wperf_idmap *m);

#endif /* WPERF_IDMAP_H */
