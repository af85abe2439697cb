/* SPDX-License-Identifier: MIT */
/*
 * A check spread over several machines (a CI matrix): `check-perf --shard I/N`
 * runs the selected scenarios whose rank, in the order of their names, is I-1
 * modulo N, and leaves beside its summary.json a shard.json that says which
 * share it ran of what:
 *
 *   {"format": "wperf-shard/1", "shard": 1, "of": 2,
 *    "selected": ["a", "b", "c"]}       every scenario of the whole check, sorted
 *
 * `check-perf --merge DIR...` reads the shards' folders back into one check
 * (check_merge), refusing a set with a shard missing, twice, or of another
 * selection, so that a job that lost its artifact cannot make a check pass.
 */
#ifndef WPERF_CHECK_SHARD_H
#define WPERF_CHECK_SHARD_H

#include <stddef.h>

#include "core/gate/check.h"
#include "core/util/error.h"

#define CHECK_SHARD_FILE   "shard.json"
#define CHECK_SHARD_FORMAT "wperf-shard/1"
#define CHECK_SHARD_MAX	   1000

struct check_shard {
	unsigned index, of; /* 1-based; of 0: the whole check */
};

/* "I/N", 1 <= I <= N <= CHECK_SHARD_MAX, into *out. 0 or -EINVAL with err. */
int check_shard_parse(const char *arg, struct check_shard *out, struct wperf_error *err);

/* Does shard s run the scenario of this rank (0-based, in name order)? */
int check_shard_has(const struct check_shard *s, size_t rank);

/* Writes dir/shard.json: s and the names of the whole selection (n, sorted). */
int check_shard_write(const char *dir, const struct check_shard *s, char *const *names, size_t n,
		      struct wperf_error *err);

/*
 * Reads the n check folders dirs (check-perf's, sharded or not) into *out,
 * one check: their scenarios in name order, each one's folder relative to
 * into (the merged check's folder), the time the longest took. The shards
 * must all be there once, of one selection, with the same mode, commits and
 * alpha; folders without shard.json must not share a scenario. 0, or a
 * negative errno with err naming the folder; *out is then empty.
 */
int check_merge(char *const *dirs, size_t n, const char *into, struct wperf_check *out,
		struct wperf_error *err);

#endif /* WPERF_CHECK_SHARD_H */
