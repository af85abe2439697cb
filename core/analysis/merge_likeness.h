/* SPDX-License-Identifier: MIT */
/*
 * How alike the threads of one identity are (merge_likeness.c): each a vector
 * of its waiting time on the identity's stacks, compared by cosine, for
 * merge_split.c. struct merge_likeness owns its arrays; merge_likeness_release
 * frees them (a zeroed struct is empty).
 */
#ifndef WPERF_MERGE_LIKENESS_H
#define WPERF_MERGE_LIKENESS_H

#include "core/analysis/merge_internal.h"

/* A member's weight on one stack of its identity. */
struct merge_weight {
	uint32_t member, stack;
	double weight;
};

/* The threads of one identity, made comparable. */
struct merge_likeness {
	struct wperf_buf weights; /* struct merge_weight, by (member, stack) */
	uint32_t *first, *count;  /* per member: its weights */
	double *norm;		  /* per member: the Euclidean norm of its weights */
};

/* Of threads m[0, n) of one identity (with profiles in p). 0 or -ENOMEM. */
int merge_likeness_build(const struct merge_profiles *p, const struct merge_member *m, size_t n,
			 struct merge_likeness *out);
/* The cosine similarity of members i and j; 0 when either has no stack. */
double merge_likeness_cosine(const struct merge_likeness *l, size_t i, size_t j);
void merge_likeness_release(struct merge_likeness *l);

#endif /* WPERF_MERGE_LIKENESS_H */
