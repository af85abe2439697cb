/* SPDX-License-Identifier: MIT */
#include "harness/git/base_tree.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int base_tree_open(const char *ref, const char *target, int keep, struct base_tree **out,
		   struct wperf_error *err)
{
	struct base_tree *t = calloc(1, sizeof(*t));
	const char *tmp = getenv("TMPDIR");
	int e;

	*out = t;
	if (!t)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	t->keep = keep;
	snprintf(t->ref, sizeof(t->ref), "%s", ref ? ref : "");
	e = git_repo_open(".", &t->repo, err);
	if (!e)
		e = git_repo_resolve(t->repo, ref, target, t->commit, err);
	if (!e)
		e = git_repo_info(t->repo, target, &t->head, err);
	if (e)
		return e;
	snprintf(t->dir, sizeof(t->dir), "%s/wperf-base-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t->dir)) {
		e = wperf_error_set(err, -errno, "%s: %s", t->dir, strerror(errno));
		t->dir[0] = '\0';
		return e;
	}
	return git_repo_export(t->repo, t->commit, t->dir, err);
}

int base_tree_path(const struct base_tree *t, const char *path, char *out, size_t size,
		   struct wperf_error *err)
{
	char rel[PATH_MAX];
	struct stat st;
	int e = git_repo_relative(t->repo, path, rel, sizeof(rel), err);

	if (e)
		return e;
	if ((size_t)snprintf(out, size, "%s/%s", t->dir, rel) >= size)
		return wperf_error_set(err, -ENAMETOOLONG, "%s/%s: path too long", t->dir, rel);
	if (stat(out, &st) < 0)
		return wperf_error_set(err, -ENOENT, "%s is not in the base commit %.12s", rel,
				       t->commit);
	return 0;
}

void base_tree_free(struct base_tree *t)
{
	if (!t)
		return;
	if (t->dir[0] && t->keep)
		fprintf(stderr, "wperf-bench: the base's tree is kept in %s\n", t->dir);
	else if (t->dir[0] && nftw(t->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "wperf-bench: warning: could not remove %s: %s\n", t->dir,
			strerror(errno));
	git_repo_free(t->repo);
	free(t);
}
