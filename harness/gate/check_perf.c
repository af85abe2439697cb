/* SPDX-License-Identifier: MIT */
#include "harness/gate/check_perf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/gate/check_shard.h"
#include "harness/gate/check_write.h"
#include "harness/git/base_tree.h"

char *check_path_from_here(const char *path)
{
	char cwd[PATH_MAX], *out;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	return asprintf(&out, "%s/%s", cwd, path) < 0 ? NULL : out;
}

int check_default_operands(const struct repo_config *config, struct wperf_buf *out)
{
	size_t n = config->nscenarios ? config->nscenarios : 1;

	for (size_t i = 0; i < n; i++) {
		char *copy = strdup(config->nscenarios ? config->scenarios[i] : "scenarios");

		if (!copy || wperf_buf_append(out, &copy, sizeof(copy)) < 0) {
			free(copy);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The shards' folders dirs (n) merged into one check c, written into into. */
static int merge(char *const *dirs, size_t n, const char *into, struct wperf_check *c,
		 struct wperf_error *err)
{
	char dir[PATH_MAX], real_into[PATH_MAX];
	int e = 0;

	/* into is emptied first: it must be none of the shards'. */
	for (size_t i = 0; i < n && !e; i++)
		if (realpath(dirs[i], dir) && realpath(into, real_into) && !strcmp(dir, real_into))
			e = wperf_error_set(
			    err, -EINVAL,
			    "%s is one of the shards: name another folder with --results", dirs[i]);
	e = e ? e : check_write_prepare(into, err);
	e = e ? e : check_merge(dirs, n, into, c, err);
	return e ? e : check_write(c, into, err);
}

int check_perf(struct check_perf_opts *o, struct check_perf_state *st, char *const *operands,
	       size_t n, struct wperf_check *c, struct wperf_error *err)
{
	struct check_selection *sel = &st->sel;
	int e;

	if (o->merge)
		return merge(operands, n, o->run.results, c, err);
	/* the base's tree first: its scenario files decide the selection */
	if (o->base_mode &&
	    (e = base_tree_open(o->run.base_ref, o->target, o->keep_tree, &st->tree, err)) < 0)
		return e;
	sel->tag = o->tag;
	sel->build_dir = o->run.build_dir;
	sel->defs = o->run.defs;
	sel->tree = o->run.trust_head ? NULL : st->tree;
	sel->shard = &o->shard;
	e = check_select(sel, operands, n, err);
	if (e)
		return e;
	o->run.sel = sel;
	o->run.shard = &o->shard;
	o->run.tree = st->tree;
	c->base_mode = o->base_mode;
	return check_run(&o->run, c, err);
}

void check_perf_release(struct check_perf_state *st)
{
	check_selection_release(&st->sel);
	base_tree_free(st->tree);
	st->tree = NULL;
}
