/* SPDX-License-Identifier: MIT */
/*
 * Shared by merge.c, merge_profile.c, merge_frames.c and merge_split.c (with
 * merge_likeness.h); no part of libwperf's interface.
 *
 * Ownership: struct merge_profiles owns its arrays;
 * merge_profiles_release frees them (a zeroed struct is empty).
 */
#ifndef WPERF_MERGE_INTERNAL_H
#define WPERF_MERGE_INTERNAL_H

#include "core/util/buf.h"
#include "core/analysis/merge.h"
#include "core/analysis/short_lived.h"
#include "core/trace/trace.h"

/* A view entity and the identity of the vertex it goes to. */
struct merge_member {
	uint32_t entity;
	char identity[WPERF_IDENTITY_LEN];
};

/*
 * m[0, n) sorted by identity: splits the threads of each identity that has
 * several (threads of their own: no short-lived thread, no virtual thread) into
 * parts of alike ones, and names each part of a split identity
 * "IDENTITY@FRAME" (merge_split.c). similar in (0, 1]. Returns 0, or a negative
 * errno with err set.
 */
int merge_split_unlike(const struct wperf_trace *t, const struct wperf_short_lived *sl,
		       struct merge_member *m, size_t n, double similar, struct wperf_error *err);

/* ---- profiles (merge_profile.c, merge_frames.c) ---- */

/* splitmix64's finalizer: spreads a 64-bit value over all bits. */
static inline uint64_t merge_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The frame a wait's waker part has when the waker left no user stack: an
 * interrupt, a device, a kernel thread, or a stack the recorder lost. */
#define MERGE_NO_WAKER_FRAME 0x6e6f2d77616b6572ull

enum merge_role { MERGE_BLOCK = 1, MERGE_WAKE = 2 };

/* One user stack of a thread's profile, and the waiting time behind it. */
struct merge_use {
	uint32_t entity; /* the thread */
	uint8_t role;	 /* enum merge_role */
	uint8_t waker;	 /* MERGE_BLOCK: woken by a thread (other is its stack) */
	int32_t ustack;	 /* the thread's own user stack */
	int32_t other;	 /* MERGE_BLOCK: the waker's, where it woke it */
	uint32_t other_tgid;
	uint64_t key;  /* its role and its stacks' frames (merge_use_frames), hashed */
	double weight; /* ns */
};

/* An executable mapping and a hash of its file's path. */
struct merge_file {
	const struct wperf_mapping *m;
	uint64_t path;
};

/* A JIT's code, from its process's perf map. */
struct merge_jit {
	uint32_t tgid;
	uint64_t start, end;
};

struct merge_profiles {
	const struct wperf_trace *t;
	const struct wperf_short_lived *sl;
	struct merge_file *files; /* by (tgid, start) */
	size_t nfiles;
	struct merge_jit *jit; /* by (tgid, start) */
	size_t njit;
	struct merge_use *uses;	 /* by (entity, key) */
	uint32_t *first, *count; /* per view entity: its uses */
};

/* The uses of view entity e, count[e] of them (none: NULL, not uses + first,
 * which is undefined when there are no uses at all). */
static inline const struct merge_use *merge_uses_of(const struct merge_profiles *p, uint32_t e)
{
	return p->count[e] ? p->uses + p->first[e] : NULL;
}

/* The profiles of the view entities with profiled[e] set. 0 or -ENOMEM. */
int merge_profiles_build(const struct wperf_trace *t, const struct wperf_short_lived *sl,
			 const uint8_t *profiled, struct merge_profiles *out);
void merge_profiles_release(struct merge_profiles *p);

/*
 * Sorts the n elements of size bytes at base by cmp, and sums the double at
 * offset weight_at of equal neighbours into the first of them; returns how
 * many are left.
 */
size_t merge_sort_sum(void *base, size_t n, size_t size, size_t weight_at,
		      int (*cmp)(const void *, const void *));

/* p->files and p->jit, from p->t. 0 or -ENOMEM. */
int merge_frames_index(struct merge_profiles *p);

/* The file mapping of address ip of process tgid, or NULL. */
const struct merge_file *merge_file_of(const struct merge_profiles *p, uint32_t tgid, uint64_t ip);

/* A string's FNV-1a hash: a file's path, a frame's name. */
uint64_t merge_hash_str(const char *s);

/*
 * How many of user stack s's frames (of process tgid) to believe: up to the
 * first one past the innermost that is neither in a file the process mapped
 * nor in its JIT's code. A walk through code built without frame pointers
 * follows whatever the register holds: past that frame it reads the stack's
 * data as return addresses, different in every thread.
 */
uint32_t merge_stack_depth(const struct merge_profiles *p, const struct wperf_stack *s,
			   uint32_t tgid);

/*
 * The frame keys of use u, appended to out (uint64_t): its own stack's, then,
 * for a wait, its waker's part (one frame of its own when the waker left no
 * user stack). Returns how many; *nown: how many are its own. Sets *err to
 * -ENOMEM when out of memory.
 */
size_t merge_use_frames(const struct merge_profiles *p, const struct merge_use *u,
			struct wperf_buf *out, size_t *nown, int *err);

#endif /* WPERF_MERGE_INTERNAL_H */
