/* SPDX-License-Identifier: MIT */
/*
 * Which scenarios a check runs (see check_select.h).
 */
#include "harness/gate/check_select.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/scenario/scenario.h"

/* Adds path to the selection when src (path, or the base's copy of it) is
 * tagged; a file that does not load is selected (the check reports it). */
static int select_one(struct check_selection *sel, const char *path, const char *src,
		      struct wperf_error *err)
{
	const struct scenario_vars vars = {.results_dir = "<results>",
					   .build_dir = sel->build_dir,
					   .defs = sel->defs,
					   .env = environ};
	const char *slash = strrchr(path, '/'), *stem = slash ? slash + 1 : path;
	struct wperf_error ignored = {0};
	struct scenario *s = NULL;
	struct check_selected one = {0};
	int tagged = 1;

	if (scenario_load(src, &vars, &s, &ignored) == 0)
		tagged = scenario_has_tag(s, sel->tag);
	if (tagged) {
		one.file = strdup(path);
		one.name = s ? strdup(s->name) : strndup(stem, strcspn(stem, "."));
	}
	scenario_free(s);
	if (!tagged)
		return 0;
	if (!one.file || !one.name || wperf_buf_append(&sel->buf, &one, sizeof(one)) < 0) {
		free(one.file);
		free(one.name);
		return wperf_error_set(err, -ENOMEM, "out of memory");
	}
	sel->files = (struct check_selected *)sel->buf.data;
	sel->nfiles++;
	return 0;
}

/* The file whose tags and variants decide path's selection: the base's copy,
 * or path itself when there is no base or it has none (a new scenario). */
static const char *tag_source(const struct check_selection *sel, const char *path, char *buf,
			      size_t size)
{
	struct wperf_error ignored = {0};

	if (!sel->tree)
		return path;
	return base_tree_path(sel->tree, path, buf, size, &ignored) == 0 ? buf : path;
}

/* Each variant of the file at path (the file itself without a matrix), as
 * its tag source has them; each selected as path@SELECTION. */
static int select_file(struct check_selection *sel, const char *path, struct wperf_error *err)
{
	struct wperf_error ignored = {0};
	char **variants, buf[PATH_MAX], head[2 * PATH_MAX];
	const char *src = tag_source(sel, path, buf, sizeof(buf));
	size_t n;
	int e = 0;

	if (scenario_variants(src, &variants, &n, &ignored) < 0)
		return select_one(sel, path, src, err); /* selected, and its error reported */
	for (size_t i = 0; i < n && !e; i++) {
		snprintf(head, sizeof(head), "%s%s", path, variants[i] + strlen(src));
		e = select_one(sel, head, variants[i], err);
	}
	scenario_variants_free(variants);
	return e;
}

/* With a base, the scenarios of the base's copy of dir that the head removed:
 * they still run (both sides run the base's file). */
static int select_removed(struct check_selection *sel, const char *dir, struct wperf_error *err)
{
	char base_dir[PATH_MAX], pattern[PATH_MAX + 16], head[2 * PATH_MAX];
	struct wperf_error ignored = {0};
	int e = 0;
	glob_t g;

	if (!sel->tree || base_tree_path(sel->tree, dir, base_dir, sizeof(base_dir), &ignored) < 0)
		return 0;
	snprintf(pattern, sizeof(pattern), "%s/*.yaml", base_dir);
	if (glob(pattern, 0, NULL, &g) == 0)
		for (size_t k = 0; k < g.gl_pathc && !e; k++) {
			snprintf(head, sizeof(head), "%s/%s", dir, strrchr(g.gl_pathv[k], '/') + 1);
			if (access(head, F_OK) < 0)
				e = select_file(sel, head, err);
		}
	globfree(&g);
	return e;
}

/* An operand: a scenario file (or FILE@VARIANT), or a folder of them. */
static int select_operand(struct check_selection *sel, const char *op, struct wperf_error *err)
{
	struct stat st;
	char pattern[PATH_MAX];
	glob_t g;
	int e = 0;

	if (stat(op, &st) < 0 && !strchr(op, '@'))
		return wperf_error_set(err, -errno, "%s: %s", op, strerror(errno));
	if (strchr(op, '@') || !S_ISDIR(st.st_mode))
		return select_file(sel, op, err);
	snprintf(pattern, sizeof(pattern), "%s/*.yaml", op);
	if (glob(pattern, 0, NULL, &g) == 0)
		for (size_t k = 0; k < g.gl_pathc && !e; k++)
			e = select_file(sel, g.gl_pathv[k], err);
	globfree(&g);
	return e ? e : select_removed(sel, op, err);
}

static int cmp_selected(const void *pa, const void *pb)
{
	const struct check_selected *a = pa, *b = pb;

	return strcmp(a->name, b->name);
}

/* The selection in name order, each name once; the shard's share of it. */
static int take_share(struct check_selection *sel, struct wperf_error *err)
{
	qsort(sel->files, sel->nfiles, sizeof(*sel->files), cmp_selected);
	for (size_t i = 1; i < sel->nfiles; i++)
		if (!strcmp(sel->files[i - 1].name, sel->files[i].name))
			return wperf_error_set(err, -EINVAL, "%s and %s are both scenario %s",
					       sel->files[i - 1].file, sel->files[i].file,
					       sel->files[i].name);
	for (size_t i = 0; i < sel->nfiles; i++)
		sel->nshare += !sel->shard || check_shard_has(sel->shard, i);
	if (!sel->nshare)
		return wperf_error_set(err, -EINVAL,
				       "shard %u/%u has no scenario: %zu are tagged %s",
				       sel->shard->index, sel->shard->of, sel->nfiles, sel->tag);
	return 0;
}

int check_select(struct check_selection *sel, char *const *operands, size_t n,
		 struct wperf_error *err)
{
	int e = 0;

	for (size_t i = 0; i < n && !e; i++)
		e = select_operand(sel, operands[i], err);
	if (!e && !sel->nfiles)
		e = wperf_error_set(err, -ENOENT, "no scenario is tagged %s", sel->tag);
	return e ? e : take_share(sel, err);
}

void check_selection_release(struct check_selection *sel)
{
	for (size_t i = 0; i < sel->nfiles; i++) {
		free(sel->files[i].file);
		free(sel->files[i].name);
	}
	wperf_buf_release(&sel->buf);
	memset(sel, 0, sizeof(*sel));
}
