/* SPDX-License-Identifier: MIT */
/*
 * Runs for the gate's tests (core/gate/runset.h) written as text: a run's
 * knots as "a b;c d" (a knot per ';'-separated group of space-separated
 * identities). Header only: each test includes what it uses.
 */
#ifndef WPERF_TESTS_RUNS_H
#define WPERF_TESTS_RUNS_H

#include <stdio.h>
#include <string.h>

#include "core/gate/runset.h"

/* Adds spec's knots to r (NULL or "": none); asserts each is added. */
static inline void runs_add_knots(struct wperf_run *r, const char *spec)
{
	char copy[256], *group, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", spec ? spec : "");
	for (group = strtok_r(copy, ";", &save); group; group = strtok_r(NULL, ";", &save)) {
		const char *ids[16];
		char *id, *save2 = NULL;
		size_t n = 0;

		for (id = strtok_r(group, " ", &save2); id && n < 16;
		     id = strtok_r(NULL, " ", &save2))
			ids[n++] = id;
		assert_int_equal(wperf_run_add_knot(r, ids, n), 0);
	}
}

#endif /* WPERF_TESTS_RUNS_H */
