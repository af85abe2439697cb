/* SPDX-License-Identifier: MIT */
/*
 * Which of some names is closest to a word that matched none of them: what
 * "did you mean" suggestions and "no such process; closest: ..." errors say.
 */
#ifndef WPERF_CLOSEST_H
#define WPERF_CLOSEST_H

#include <stddef.h>

/* The bytes of a word that count: names longer than this are compared by
 * their beginning (commands, options and process names are far shorter). */
#define WPERF_EDIT_MAX 64

/* The most names wperf_closest returns. */
#define WPERF_CLOSEST_MAX 8

/*
 * The edit distance between a and b: the fewest insertions, deletions,
 * substitutions and swaps of two neighbouring bytes that turn one into the
 * other (the optimal string alignment distance: "reprot" is 1 from "report").
 */
size_t wperf_edit_distance(const char *a, const char *b);

/*
 * The indices of at most max (up to WPERF_CLOSEST_MAX) of the n names closest to word, closest
 * first (in the names' order among equals), into out, when no farther than within (SIZE_MAX:
 * however far); returns how many.
 */
size_t wperf_closest(const char *word, const char *const *names, size_t n, size_t within,
		     size_t *out, size_t max);

/* How far a name may be from a mistyped word to be suggested for it: a
 * third of the word, at least 1 and at most 3. */
size_t wperf_suggest_distance(const char *word);

#endif /* WPERF_CLOSEST_H */
