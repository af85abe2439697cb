/* SPDX-License-Identifier: MIT */
/*
 * The call sites behind the edges of a wait-for graph: for each edge, the
 * waiter's stacks where it blocked and the waker's stacks where it woke it,
 * with the share of the edge's weight that came from that pair.
 *
 * Ownership: a struct wperf_callsites owns its arrays; wperf_callsites_release
 * frees them. A zeroed struct is a valid empty set.
 */
#ifndef WPERF_CALLSITES_H
#define WPERF_CALLSITES_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"

struct wperf_callsite {
	uint32_t from, to;		    /* the edge */
	int32_t kstack, ustack;		    /* the waiter's, where it blocked */
	int32_t waker_kstack, waker_ustack; /* the waker's, where it woke the waiter */
	uint32_t waiter_tgid, waker_tgid;   /* whose address spaces the user stacks are in */
	uint64_t weight;		    /* ns of the edge's weight */
};

struct wperf_callsites {
	struct wperf_callsite *sites; /* after finish: by edge, then by weight, heaviest first */
	size_t n;
	struct wperf_buf storage; /* holds sites */
	size_t *slots;		  /* while adding: index + 1 of the site in each slot, 0 empty */
	size_t cap;
};

/* Adds weight to the call site of key (its weight field is ignored); 0 or -ENOMEM. */
int wperf_callsites_add(struct wperf_callsites *cs, const struct wperf_callsite *key,
			uint64_t weight);

/*
 * The index in cs->sites of the call site of key, added with weight 0 when new
 * (key's weight field is ignored); or -ENOMEM. The index stays valid while sites
 * are added, until finish (cs->sites itself may move).
 */
int64_t wperf_callsites_index(struct wperf_callsites *cs, const struct wperf_callsite *key);

/* Adds every site of src into cs; 0 or -ENOMEM. */
int wperf_callsites_merge(struct wperf_callsites *cs, const struct wperf_callsites *src);

/* Sorts by (from, to) then weight, heaviest first; drops the lookup table. The
 * set is read-only afterwards. */
void wperf_callsites_finish(struct wperf_callsites *cs);

/* The sites of edge from -> to in a finished set, heaviest first:
 * cs->sites[*first .. *first + *n]. */
void wperf_callsites_of_edge(const struct wperf_callsites *cs, uint32_t from, uint32_t to,
			     size_t *first, size_t *n);

void wperf_callsites_release(struct wperf_callsites *cs);

#endif /* WPERF_CALLSITES_H */
