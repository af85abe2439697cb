/* SPDX-License-Identifier: MIT */
#include "core/util/idmap.h"

#include <errno.h>
#include <stdlib.h>

static int grow(struct wperf_idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct wperf_idmap_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slots[i].index_plus_one)
			continue;
		for (j = wperf_idmap__slot(m->slots[i].key, cap); slots[j].index_plus_one;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int64_t wperf_idmap_get(struct wperf_idmap *m, uint32_t key, int *added)
{
	size_t i;

	if (added)
		*added = 0;
	if ((m->count + 1) * 2 > m->cap && grow(m) < 0)
		return -ENOMEM;
	for (i = wperf_idmap__slot(key, m->cap); m->slots[i].index_plus_one;
	     i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key)
			return m->slots[i].index_plus_one - 1;
	m->slots[i].key = key;
	m->slots[i].index_plus_one = (uint32_t)++m->count;
	if (added)
		*added = 1;
	return m->count - 1;
}

void wperf_idmap_release(struct wperf_idmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}
