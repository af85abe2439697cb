/* SPDX-License-Identifier: MIT */
#include "harness/git/base_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/output.h"

/* A new tree of ref (see base_tree_open), its folder not yet chosen. */
static int tree_new(const char *ref, const char *target, int keep, struct base_tree **out,
		    struct wperf_error *err)
{
	struct base_tree *t = calloc(1, sizeof(*t));
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
	return e;
}

int base_tree_open(const char *ref, const char *target, int keep, struct base_tree **out,
		   struct wperf_error *err)
{
	const char *tmp = getenv("TMPDIR");
	struct base_tree *t;
	int e = tree_new(ref, target, keep, out, err);

	if (e)
		return e;
	t = *out;
	snprintf(t->dir, sizeof(t->dir), "%s/wperf-base-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t->dir)) {
		e = wperf_error_set(err, -errno, "%s: %s", t->dir, strerror(errno));
		t->dir[0] = '\0';
		return e;
	}
	return git_repo_export(t->repo, t->commit, t->dir, err);
}

/* Whether dir holds a finished export of commit: its mark names it. */
static int exported(const char *dir, const char *commit)
{
	char path[PATH_MAX], line[GIT_REPO_OID_HEX + 2] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/" BASE_TREE_MARK, dir);
	if (!(f = fopen(path, "r")))
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return !strcmp(line, commit);
}

int base_tree_open_at(const char *ref, const char *dir, struct base_tree **out,
		      struct wperf_error *err)
{
	char mark[PATH_MAX];
	struct base_tree *t;
	FILE *f;
	int written, e = tree_new(ref, NULL, BASE_TREE_KEEP_QUIET, out, err);

	if (e)
		return e;
	t = *out;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	if (exported(dir, t->commit))
		return 0;
	/* a folder left by an export that was cut short, or of another commit */
	e = output_remove_tree(dir, 0, err);
	if (!e)
		e = output_make_dirs(dir, err);
	if (!e)
		e = git_repo_export(t->repo, t->commit, dir, err);
	if (e)
		return e;
	/* the mark last: a folder without it is an export cut short */
	snprintf(mark, sizeof(mark), "%s/" BASE_TREE_MARK, dir);
	if (!(f = fopen(mark, "w")))
		return wperf_error_set(err, -errno, "%s: %s", mark, strerror(errno));
	written = fprintf(f, "%s\n", t->commit);
	if (fclose(f) != 0 || written < 0)
		return wperf_error_set(err, -EIO, "%s: cannot write", mark);
	return 0;
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
	struct wperf_error err = {0};

	if (!t)
		return;
	if (t->dir[0] && t->keep == 1)
		fprintf(stderr, "wperf-bench: the base's tree is kept in %s\n", t->dir);
	else if (t->dir[0] && !t->keep && output_remove_tree(t->dir, 0, &err) < 0)
		fprintf(stderr, "wperf-bench: warning: %s\n", err.msg);
	git_repo_free(t->repo);
	free(t);
}
