/* SPDX-License-Identifier: MIT */
/*
 * The base commit of a comparison written into a temporary folder from git's
 * objects (the repository's index, HEAD and work tree are not touched), so
 * that base and head can run in turns on one machine: `ab` for one scenario,
 * `check-perf --base` for all of them, from one export.
 *
 * Ownership: base_tree_open gives a struct base_tree that base_tree_free
 * releases (NULL-safe), removing the folder unless it was asked to keep it.
 */
#ifndef WPERF_BASE_TREE_H
#define WPERF_BASE_TREE_H

#include <limits.h>

#include "core/util/error.h"
#include "harness/git/git_repo.h"

struct base_tree {
	struct git_repo *repo;	       /* the repository of the working directory */
	struct git_info head;	       /* the work tree's commit, branch, dirty flag */
	char ref[128];		       /* the base as named; "" : the merge base */
	char commit[GIT_REPO_OID_HEX]; /* the base commit */
	char dir[256];		       /* the base's tree */
	int keep;		       /* leave dir: 1 for people to look at (said at the end), or
					* BASE_TREE_KEEP_QUIET (a folder its caller reuses) */
};

#define BASE_TREE_KEEP_QUIET 2
#define BASE_TREE_MARK	     ".wperf-tree" /* in a reused tree: the commit it holds */

/*
 * Opens the repository that holds the working directory, resolves ref (NULL or
 * "": the merge base of HEAD with target, NULL: the default target) and writes
 * the base commit into $TMPDIR/wperf-base-XXXXXX.
 */
int base_tree_open(const char *ref, const char *target, int keep, struct base_tree **out,
		   struct wperf_error *err);

/*
 * The tree of ref (a revision) in dir, kept there to be reused (bisect builds
 * each commit once): written unless dir already holds a finished export of
 * that commit (its BASE_TREE_MARK file names it), after removing whatever
 * else dir holds.
 */
int base_tree_open_at(const char *ref, const char *dir, struct base_tree **out,
		      struct wperf_error *err);

/* The base's copy of path (a file of the work tree): its path in the base's
 * tree into out; -ENOENT when the base commit has no such file. */
int base_tree_path(const struct base_tree *t, const char *path, char *out, size_t size,
		   struct wperf_error *err);

void base_tree_free(struct base_tree *t);

#endif /* WPERF_BASE_TREE_H */
