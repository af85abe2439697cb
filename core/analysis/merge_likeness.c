/* SPDX-License-Identifier: MIT */
/*
 * The threads of one identity, made comparable: each a vector of weights over
 * the stacks seen among them (merge_profile.c), compared by cosine.
 *
 * Cut stacks: a walk through a C library built without frame pointers
 * sometimes stops at the library's innermost frame and sometimes goes on (it
 * follows a register the library may or may not have kept), and the recorder
 * reuses a thread's last walk of a place for a while: one worker may show
 * mostly the cut stack and its twin mostly the whole one. So among the threads
 * of one identity, a stack that is the innermost part of longer ones seen
 * there (in the same role, its own part and its waker's part each a prefix of
 * theirs) counts as the longest of those, each by its share of their weight
 * over all the threads. How often a thread's walks were cut then does not
 * change how alike it is, and the result does not depend on the threads'
 * order.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/merge_internal.h"
#include "core/analysis/merge_likeness.h"
#include "core/util/cmp.h"

/* A stack seen among the threads: its frames, and its weight over all of them. */
struct seen {
	uint64_t key;
	uint8_t role;
	size_t frames, nown, nall; /* its frame keys: [frames, frames + nall) */
	double weight;
	int longer; /* an innermost part of longer stacks */
};

struct seen_set {
	struct seen *s;
	size_t n;
	struct wperf_buf frames;  /* uint64_t */
	struct wperf_buf targets; /* uint32_t: the longest stacks a cut one counts as */
	uint32_t *first, *count;  /* per stack: its targets */
};

static int by_key(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	return wperf_cmp_u64(x->key, y->key);
}

/* Whether stack b is a longer stack of which a is the innermost part. */
static int extends(const struct seen_set *set, const struct seen *a, const struct seen *b)
{
	const uint64_t *f = (const uint64_t *)(const void *)set->frames.data;
	size_t aother = a->nall - a->nown, bother = b->nall - b->nown;

	return a != b && a->role == b->role && a->nown <= b->nown && aother <= bother &&
	       !memcmp(f + a->frames, f + b->frames, a->nown * sizeof(*f)) &&
	       !memcmp(f + a->frames + a->nown, f + b->frames + b->nown, aother * sizeof(*f));
}

/* The stacks of the threads m[0, n), once each, with their frames. */
static int gather(const struct merge_profiles *p, const struct merge_member *m, size_t n,
		  struct seen_set *set)
{
	struct wperf_buf seen = {0};
	int e = 0;

	for (size_t i = 0; i < n && !e; i++) {
		const struct merge_use *u = merge_uses_of(p, m[i].entity);

		for (uint32_t k = 0; k < p->count[m[i].entity] && !e; k++) {
			struct seen s = {.key = u[k].key, .role = u[k].role, .weight = u[k].weight};

			s.frames = set->frames.len / sizeof(uint64_t);
			s.nall = merge_use_frames(p, &u[k], &set->frames, &s.nown, &e);
			if (!e)
				e = wperf_buf_append(&seen, &s, sizeof(s));
		}
	}
	set->s = (struct seen *)(void *)seen.data;
	/* equal keys, equal frames: once */
	set->n = merge_sort_sum(set->s, seen.len / sizeof(struct seen), sizeof(struct seen),
				offsetof(struct seen, weight), by_key);
	return e;
}

/* For each cut stack, the longest stacks it counts as. */
static int find_targets(struct seen_set *set)
{
	int e = 0;

	set->first = calloc(set->n + 1, sizeof(*set->first));
	set->count = calloc(set->n + 1, sizeof(*set->count));
	if (!set->first || !set->count)
		return -ENOMEM;
	for (size_t a = 0; a < set->n; a++)
		for (size_t b = 0; b < set->n && !set->s[a].longer; b++)
			set->s[a].longer = extends(set, &set->s[a], &set->s[b]);
	for (uint32_t a = 0; a < set->n && !e; a++) {
		set->first[a] = (uint32_t)(set->targets.len / sizeof(uint32_t));
		for (uint32_t b = 0; set->s[a].longer && b < set->n && !e; b++)
			if (!set->s[b].longer && extends(set, &set->s[a], &set->s[b])) {
				e = wperf_buf_append(&set->targets, &b, sizeof(b));
				set->count[a]++;
			}
	}
	return e;
}

static int by_member_stack(const void *a, const void *b)
{
	const struct merge_weight *x = a, *y = b;
	const uint64_t kx[] = {x->member, x->stack}, ky[] = {y->member, y->stack};

	return wperf_cmp_keys(kx, ky, 2);
}

/* Member i's weight w on stack index d (or on the stacks d counts as). */
static int add_weight(const struct seen_set *set, uint32_t i, uint32_t d, double w,
		      struct wperf_buf *out)
{
	const uint32_t *t;
	double total = 0;
	int e = 0;

	if (!set->count[d]) {
		struct merge_weight mw = {i, d, w};

		return wperf_buf_append(out, &mw, sizeof(mw));
	}
	/* Only now: with no targets at all there is no array to point into. */
	t = (const uint32_t *)(const void *)set->targets.data + set->first[d];
	for (uint32_t k = 0; k < set->count[d]; k++)
		total += set->s[t[k]].weight;
	for (uint32_t k = 0; k < set->count[d] && !e; k++) {
		struct merge_weight mw = {i, t[k], w * set->s[t[k]].weight / total};

		e = wperf_buf_append(out, &mw, sizeof(mw));
	}
	return e;
}

/* The members' weights, each on its stacks; summed, sorted by (member, stack). */
static int weigh(const struct merge_profiles *p, const struct merge_member *m, size_t n,
		 const struct seen_set *set, struct merge_likeness *out)
{
	struct merge_weight *w;
	size_t len;
	int e = 0;

	for (uint32_t i = 0; i < n && !e; i++) {
		const struct merge_use *u = merge_uses_of(p, m[i].entity);

		for (uint32_t k = 0; k < p->count[m[i].entity] && !e; k++) {
			struct seen key = {.key = u[k].key};
			const struct seen *s = bsearch(&key, set->s, set->n, sizeof(key), by_key);

			e = add_weight(set, i, (uint32_t)(s - set->s), u[k].weight, &out->weights);
		}
	}
	w = (struct merge_weight *)(void *)out->weights.data;
	len = merge_sort_sum(w, out->weights.len / sizeof(*w), sizeof(*w),
			     offsetof(struct merge_weight, weight), by_member_stack);
	out->weights.len = len * sizeof(*w);
	for (size_t i = 0; i < len; i++) {
		if (!out->count[w[i].member]++)
			out->first[w[i].member] = (uint32_t)i;
		out->norm[w[i].member] += w[i].weight * w[i].weight;
	}
	for (size_t i = 0; i < n; i++)
		out->norm[i] = sqrt(out->norm[i]);
	return e;
}

int merge_likeness_build(const struct merge_profiles *p, const struct merge_member *m, size_t n,
			 struct merge_likeness *out)
{
	struct seen_set set = {0};
	int e;

	memset(out, 0, sizeof(*out));
	out->first = calloc(n + 1, sizeof(*out->first));
	out->count = calloc(n + 1, sizeof(*out->count));
	out->norm = calloc(n + 1, sizeof(*out->norm));
	e = out->first && out->count && out->norm ? gather(p, m, n, &set) : -ENOMEM;
	if (!e)
		e = find_targets(&set);
	if (!e)
		e = weigh(p, m, n, &set, out);
	free(set.s);
	wperf_buf_release(&set.frames);
	wperf_buf_release(&set.targets);
	free(set.first);
	free(set.count);
	if (e)
		merge_likeness_release(out);
	return e;
}

double merge_likeness_cosine(const struct merge_likeness *l, size_t i, size_t j)
{
	const struct merge_weight *w = (const struct merge_weight *)(const void *)l->weights.data;
	const struct merge_weight *x = w + l->first[i], *y = w + l->first[j];
	size_t nx = l->count[i], ny = l->count[j], a = 0, b = 0;
	double dot = 0;

	if (!nx || !ny)
		return 0;
	while (a < nx && b < ny) {
		if (x[a].stack == y[b].stack)
			dot += x[a++].weight * y[b++].weight;
		else if (x[a].stack < y[b].stack)
			a++;
		else
			b++;
	}
	return dot / (l->norm[i] * l->norm[j]);
}

void merge_likeness_release(struct merge_likeness *l)
{
	wperf_buf_release(&l->weights);
	free(l->first);
	free(l->count);
	free(l->norm);
	memset(l, 0, sizeof(*l));
}
