/* SPDX-License-Identifier: MIT */
/*
 * include: shared service definitions. A scenario (or an included file) may
 * list files, relative to itself, whose services: (and include:, nothing
 * else) join its own, before them and in the list's order. Each file is read
 * with the same limits as a scenario, its errors name it with its own line
 * and column, and a file that includes itself, directly or not, is refused.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario/scenario_internal.h"

/* The services (and includes) of the file at path, read into a document of its
 * own while L->y holds it; the including file's document is put back after. */
static int include_file(struct loader *L, const char *path, const char *real)
{
	static const char *const keys[] = {"include", "services"};
	struct wperf_yaml outer = L->y;
	const char *outer_file = L->file;
	const yaml_node_t *root;
	char got[64];
	int ret;

	memset(&L->y, 0, sizeof(L->y));
	L->y.file = path;
	L->y.err = L->err;
	L->file = path;
	L->including[L->depth++] = real;
	ret = sc_read_document(L);
	if (!ret) {
		root = wperf_yaml_root(&L->y);
		if (root->type != YAML_MAPPING_NODE)
			ret = wperf_yaml_fail(&L->y, root,
					      "expected a mapping of services: (and include:), "
					      "found %s",
					      wperf_yaml_describe(root, got, sizeof(got)));
		else
			ret = SC_KEYS(L, root, keys, 0) < 0 || sc_services(L, root) < 0 ? -1 : 0;
	}
	L->depth--;
	wperf_yaml_release(&L->y);
	L->y = outer;
	L->file = outer_file;
	return ret;
}

/* item, a path relative to the including file, resolved into path and real. */
static int resolve(struct loader *L, const yaml_node_t *item, char *path, char *real)
{
	const char *slash = strrchr(L->file, '/');
	int dir = slash ? (int)(slash - L->file + 1) : 0;
	char *rel, *r;

	if (sc_string(L, item, SC_NONEMPTY, &rel) < 0)
		return -1;
	if ((size_t)snprintf(path, PATH_MAX, "%.*s%s", rel[0] == '/' ? 0 : dir, L->file, rel) >=
	    PATH_MAX)
		return wperf_yaml_fail(&L->y, item, "path too long");
	r = realpath(path, NULL);
	if (!r)
		return wperf_yaml_fail(&L->y, item, "%s: %s", path, strerror(errno));
	snprintf(real, PATH_MAX, "%s", r);
	free(r);
	for (size_t i = 0; i < L->depth; i++)
		if (!strcmp(L->including[i], real))
			return wperf_yaml_fail(&L->y, item, "%s includes itself", path);
	if (L->depth == SC_MAX_INCLUDES)
		return wperf_yaml_fail(&L->y, item, "includes nested deeper than %d",
				       SC_MAX_INCLUDES);
	return 0;
}

int sc_includes(struct loader *L, const yaml_node_t *root)
{
	const yaml_node_t *list = wperf_yaml_lookup(&L->y, root, "include");
	const yaml_node_item_t *items;
	size_t saved, k;

	if (!list)
		return 0;
	if (!L->depth) { /* the scenario itself, the first of the chain */
		char *top = realpath(L->file, NULL);

		if (!top || !(L->including[0] = sc_strndup(L, list, top, strlen(top)))) {
			free(top);
			return top ? -1
				   : wperf_error_set(L->err, -errno, "%s: %s", L->file,
						     strerror(errno));
		}
		free(top);
		L->depth = 1;
	}
	saved = wperf_doc_path_key(&L->y.path, "include");
	if (wperf_yaml_list(&L->y, list, &items, &k) < 0)
		return -1;
	for (size_t i = 0; i < k; i++) {
		size_t at = wperf_doc_path_index(&L->y.path, i);
		char path[PATH_MAX], real[PATH_MAX];

		if (resolve(L, wperf_yaml_node(&L->y, items[i]), path, real) < 0 ||
		    include_file(L, path, real) < 0)
			return -1;
		wperf_doc_path_pop(&L->y.path, at);
	}
	wperf_doc_path_pop(&L->y.path, saved);
	return 0;
}
