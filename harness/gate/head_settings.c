/* SPDX-License-Identifier: MIT */
#include "harness/gate/head_settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/doc_yaml.h"
#include "harness/base/output.h"

/* As lenient as the most lenient reader of a gate file (a scenario: aliases
 * allowed): a file its own reader takes is compared. */
static const struct wperf_yaml_limits limits = {"a gate file", 32, 1};

/* One side: its document, or none (missing, empty); 1 when loaded, 0 when
 * there is nothing, a negative errno with err when it cannot be read. */
static int load_side(const char *path, struct wperf_buf *text, struct wperf_yaml *y,
		     struct wperf_error *err)
{
	int e = output_read_all(path, text, err);

	if (e == -ENOENT || (!e && !text->len))
		return 0;
	if (!e)
		e = wperf_yaml_load(y, path, text->data, text->len, &limits, err);
	return e ? e : 1;
}

/* The node compared: the root, or its value at key. */
static const yaml_node_t *compared(struct wperf_yaml *y, int loaded, const char *key)
{
	yaml_node_t *root = loaded ? wperf_yaml_root(y) : NULL;

	if (!root || !key)
		return root;
	return root->type == YAML_MAPPING_NODE ? wperf_yaml_lookup(y, root, key) : NULL;
}

/* Each line of changes as "LABEL: LINE". */
static int prefix_lines(const char *label, const struct wperf_buf *changes, struct wperf_buf *out)
{
	const char *p = (const char *)changes->data, *end = p + changes->len;
	int e = 0;

	while (!e && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		e = wperf_buf_printf(out, "%s: %.*s\n", label, (int)len, p);
		p += len + 1;
	}
	return e;
}

int head_settings_diff(const char *label, const char *base_path, const char *head_path,
		       const char *key, struct wperf_buf *out)
{
	struct wperf_buf text[2] = {{0}}, changes = {0};
	struct wperf_yaml y[2] = {{0}};
	struct wperf_error err = {0};
	const char *path[2] = {base_path, head_path};
	int loaded[2] = {0}, e = 0, unreadable = 0;

	for (int i = 0; i < 2 && !e; i++) {
		loaded[i] = load_side(path[i], &text[i], &y[i], &err);
		if (loaded[i] == -ENOMEM)
			e = -ENOMEM;
		else if (loaded[i] < 0 && !unreadable++)
			e = wperf_buf_printf(out, "%s: cannot be compared: %s\n", label, err.msg);
	}
	if (!e && !unreadable) {
		long n = wperf_yaml_diff(&y[0], compared(&y[0], loaded[0] > 0, key), &y[1],
					 compared(&y[1], loaded[1] > 0, key), key,
					 HEAD_SETTINGS_MAX_LINES, &changes);

		e = n < 0 ? (int)n : prefix_lines(label, &changes, out);
	}
	for (int i = 0; i < 2; i++) {
		if (loaded[i] != 0) /* a failed load is released as well */
			wperf_yaml_release(&y[i]);
		wperf_buf_release(&text[i]);
	}
	wperf_buf_release(&changes);
	return e < 0 ? -ENOMEM : 0;
}

int head_settings_lines(const struct wperf_buf *text, char ***lines, size_t *n)
{
	const char *p = (const char *)text->data, *end = p + text->len;

	*lines = NULL;
	*n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char **grown = realloc(*lines, (*n + 1) * sizeof(**lines));

		if (!grown || !(grown[*n] = strndup(p, len))) {
			*lines = grown ? grown : *lines;
			return -ENOMEM;
		}
		*lines = grown;
		(*n)++;
		p += len + 1;
	}
	return 0;
}
