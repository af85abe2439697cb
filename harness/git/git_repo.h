/* SPDX-License-Identifier: MIT */
/*
 * The git repository a scenario runs in, through libgit2: what commit the
 * results were made from, a baseline file as it is at another commit (read
 * from the object database, no checkout), the commits that changed a file,
 * and a commit's tree written into a folder of its own for `ab`.
 *
 * Revisions are what git rev-parse takes ("main", "HEAD~2", "origin/main",
 * a commit id). The target branch of a merge base, when not given, is the
 * CI's ($GITHUB_BASE_REF, $CI_MERGE_REQUEST_TARGET_BRANCH_NAME), then the
 * remote's default branch (origin/HEAD), then main, then master; a branch is
 * looked up as origin/NAME before NAME, since a CI clone seldom has the local
 * branch.
 *
 * Ownership: git_repo_open gives a struct git_repo that git_repo_free
 * releases (NULL-safe). Every function returns 0 or a negative errno with err
 * naming the repository and the revision or path.
 */
#ifndef WPERF_GIT_REPO_H
#define WPERF_GIT_REPO_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/error.h"

#define GIT_REPO_OID_HEX 41 /* 40 hex digits and the NUL */

/* Where results come from; all empty when not made in a git repository. */
struct git_info {
	char repository[512];		   /* origin's URL, else the work tree's path */
	char commit[GIT_REPO_OID_HEX];	   /* HEAD */
	char branch[256];		   /* HEAD's branch; empty when detached */
	int dirty;			   /* tracked files differ from HEAD */
	char target[256];		   /* the branch merge_base is taken with */
	char merge_base[GIT_REPO_OID_HEX]; /* empty: no target branch or no common commit */
};

struct git_repo;

/* Opens the repository that holds path (its folder or a parent); -ENOENT
 * when there is none. */
int git_repo_open(const char *path, struct git_repo **out, struct wperf_error *err);
void git_repo_free(struct git_repo *r);

/* The work tree's absolute path, with a trailing '/'. */
const char *git_repo_workdir(const struct git_repo *r);

/* Fills *out for HEAD; target NULL: the default target branch (above). A
 * missing target branch leaves target and merge_base empty, not an error. */
int git_repo_info(struct git_repo *r, const char *target, struct git_info *out,
		  struct wperf_error *err);

/* git_repo_info with the default target branch, for the repository that holds
 * path: the commit results are made from. Nothing to report: outside a
 * repository *out is left as it is, and a HEAD that cannot be read leaves it
 * empty. */
void git_repo_info_of(const char *path, struct git_info *out);

/* Resolves rev to a commit id (hex): as git rev-parse does ("HEAD~1" is this
 * clone's), else as origin/REV (a branch a CI clone has only there). rev NULL
 * or "": the merge base of HEAD with target (NULL: the default target
 * branch), the target looked up as origin/NAME first. */
int git_repo_resolve(struct git_repo *r, const char *rev, const char *target,
		     char oid[GIT_REPO_OID_HEX], struct wperf_error *err);

/* Appends the file at path (relative to the work tree) as it is in commit oid
 * to out; -ENOENT when the commit has no such file. */
int git_repo_read_file(struct git_repo *r, const char *oid, const char *path, struct wperf_buf *out,
		       struct wperf_error *err);

/* A commit that changed a file. */
struct git_change {
	char oid[GIT_REPO_OID_HEX];
	int64_t time;	   /* the commit's time, seconds since the epoch */
	char subject[128]; /* the first line of its message */
};

/*
 * The commits reachable from HEAD, and not from since (NULL: the root), whose
 * first parent had a different path (a blob of other content, or none); oldest
 * first, into *out (free it), *n of them. The first-parent line only, as the
 * history of a branch reads.
 */
int git_repo_changes(struct git_repo *r, const char *path, const char *since,
		     struct git_change **out, size_t *n, struct wperf_error *err);

/*
 * The commits after good up to bad (commit ids, hex), on bad's first-parent
 * line, oldest first (bad last), into *out (free it), *n of them: what a
 * bisection searches. -EINVAL when good is not an ancestor of bad.
 */
int git_repo_range(struct git_repo *r, const char *good, const char *bad, struct git_change **out,
		   size_t *n, struct wperf_error *err);

/*
 * The commit that last changed line (from 1) of path (relative to the work
 * tree), into *out: as the file is in commit oid, or with oid NULL as it is
 * in the work tree, whose lines not yet committed give -ENOENT (err says so),
 * as does a line past the end.
 */
int git_repo_blame_line(struct git_repo *r, const char *oid, const char *path, size_t line,
			struct git_change *out, struct wperf_error *err);

/* Writes the tree of commit oid into dir (which must not exist or be empty),
 * as a checkout would, without touching the repository's index or HEAD. */
int git_repo_export(struct git_repo *r, const char *oid, const char *dir, struct wperf_error *err);

/* path relative to the work tree (it need not exist); -EINVAL when path is
 * outside it. */
int git_repo_relative(const struct git_repo *r, const char *path, char *out, size_t size,
		      struct wperf_error *err);

#endif /* WPERF_GIT_REPO_H */
