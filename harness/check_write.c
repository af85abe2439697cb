/* SPDX-License-Identifier: MIT */
#include "check_write.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "harness/git_repo.h"
#include "harness/output.h"

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag;
	return ftw->level ? remove(path) : 0; /* the folder itself stays */
}

int check_write_clear(const char *dir, struct wperf_error *err)
{
	char mark[PATH_MAX];
	struct stat st;

	snprintf(mark, sizeof(mark), "%s/%s", dir, CHECK_MARK);
	if (stat(mark, &st) < 0)
		return wperf_error_set(err, -ENOTEMPTY,
				       "%s is not empty and holds no earlier check (%s): name "
				       "another folder with --results",
				       dir, CHECK_MARK);
	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return wperf_error_set(err, -errno, "emptying %s: %s", dir, strerror(errno));
	return 0;
}

void check_write_head(struct wperf_check *c)
{
	struct git_info g = {0};

	git_repo_info_of(".", &g);
	snprintf(c->head_commit, sizeof(c->head_commit), "%s", g.commit);
	snprintf(c->head_branch, sizeof(c->head_branch), "%s", g.branch);
	c->head_dirty = g.dirty;
}

static int write_buf(const char *dir, const char *name, const struct wperf_buf *b,
		     struct wperf_error *err)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return output_write(path, b->data, b->len, err);
}

int check_write(const struct wperf_check *c, const char *dir, struct wperf_error *err)
{
	struct wperf_buf md = {0}, junit = {0};
	const struct wperf_verdict **v = calloc(c->n ? c->n : 1, sizeof(*v));
	size_t nv = 0;
	int e = v ? 0 : -ENOMEM;

	for (size_t i = 0; !e && i < c->n; i++) {
		if (c->scenarios[i].error)
			continue;
		v[nv++] = &c->scenarios[i].verdict;
		e = wperf_verdict_markdown(&c->scenarios[i].verdict, 0, &md);
	}
	if (!e)
		e = wperf_verdict_junit(v, nv, &junit);
	if (e)
		e = wperf_error_set(err, -ENOMEM, "writing the check's summary: out of memory");
	if (!e)
		e = write_buf(dir, "summary.md", &md, err);
	if (!e)
		e = write_buf(dir, "junit.xml", &junit, err);
	free(v);
	wperf_buf_release(&md);
	wperf_buf_release(&junit);
	return e;
}
