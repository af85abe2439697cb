/* SPDX-License-Identifier: MIT */
/*
 * The halving of a bisection, apart from how a commit is judged: given the
 * marks of the commits after a good one up to a bad one (oldest first, the
 * bad one last), which commit to judge next, or what the bisection found.
 *
 * The bad commit is judged first: a change must be there to be found. Then
 * the commits between the last one known good and the first one known bad
 * are halved, the middle one judged. A commit that could not be told ends
 * the bisection there (more runs may tell it: the caller marks it untested
 * again to go on). Marks read from an earlier bisection's log are trusted:
 * the same halving then asks for the same commits, and finds them marked.
 */
#ifndef WPERF_BISECT_PLAN_H
#define WPERF_BISECT_PLAN_H

#include <stddef.h>

/* Never renumbered: bisect logs name them. */
enum wperf_bisect_mark {
	WPERF_BISECT_UNTESTED = 0,
	WPERF_BISECT_GOOD,
	WPERF_BISECT_BAD,
	WPERF_BISECT_UNCLEAR,
};

enum wperf_bisect_step {
	WPERF_BISECT_JUDGE,	/* judge commit *at, mark it, ask again */
	WPERF_BISECT_FOUND,	/* *at is the first bad commit */
	WPERF_BISECT_NO_CHANGE, /* the bad commit is good: nothing to find */
	WPERF_BISECT_STUCK,	/* commit *at could not be told */
};

/* What to do next with the n (> 0) commits' marks; *at the commit it names. */
enum wperf_bisect_step wperf_bisect_next(const enum wperf_bisect_mark *marks, size_t n, size_t *at);

/* The judgments a bisection of n commits can need at the most: the bad
 * commit, then one per halving (1 + ceil(log2 n)). */
size_t wperf_bisect_judgments(size_t n);

/* "untested", "good", "bad", "unclear"; and back (-1: none of them). */
const char *wperf_bisect_mark_name(enum wperf_bisect_mark m);
int wperf_bisect_mark_parse(const char *name);

#endif /* WPERF_BISECT_PLAN_H */
