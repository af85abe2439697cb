/* SPDX-License-Identifier: MIT */
/*
 * The folders of a check's shards read back into one check (check_shard.h):
 * every shard once, of one selection, run on the same commits.
 */
#include "harness/gate/check_shard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/util/json_util.h"
#include "harness/base/output.h"

/* One folder's shard.json; of 0 when it has none. */
struct shard_file {
	struct check_shard s;
	struct json_object *doc, *selected; /* doc owns selected */
};

static int read_shard(const char *dir, struct shard_file *f, struct wperf_error *err)
{
	static const char *const keys[] = {"format", "shard", "of", "selected"};
	struct json_object *v[4];
	struct wperf_buf text = {0};
	char file[PATH_MAX], top[WPERF_JSON_PATH_LEN], sub[WPERF_JSON_PATH_LEN],
	    item[WPERF_JSON_PATH_LEN];
	uint64_t index = 0, of = 0;
	const char *format;
	int e;

	snprintf(file, sizeof(file), "%s/" CHECK_SHARD_FILE, dir);
	wperf_json_file_path(top, file);
	e = output_read_all(file, &text, err);
	if (e == -ENOENT)
		return 0;
	if (!e && (e = wperf_buf_append(&text, "", 1))) /* the parser reads up to a NUL */
		e = wperf_json_no_memory(err, top);
	if (!e && !(f->doc = json_tokener_parse((const char *)text.data)))
		e = wperf_json_fail(err, top, "expected a JSON object");
	wperf_buf_release(&text);
	e = e ? e : wperf_json_want_type(f->doc, top, json_type_object, err);
	e = e ? e : wperf_json_get_keys(f->doc, top, keys, 4, 4, v, err);
	wperf_json_key_path(sub, top, "format");
	e = e ? e : wperf_json_get_identity(v[0], sub, &format, err);
	if (!e && strcmp(format, CHECK_SHARD_FORMAT))
		e = wperf_json_expected(v[0], sub, "\"" CHECK_SHARD_FORMAT "\"", err);
	wperf_json_key_path(sub, top, "of");
	e = e ? e : wperf_json_get_count(v[2], sub, 1, CHECK_SHARD_MAX, "a whole number", &of, err);
	wperf_json_key_path(sub, top, "shard");
	e = e ? e : wperf_json_get_count(v[1], sub, 1, of, "a shard from 1 to \"of\"", &index, err);
	wperf_json_key_path(sub, top, "selected");
	e = e ? e : wperf_json_want_type(v[3], sub, json_type_array, err);
	for (size_t i = 0; !e && i < json_object_array_length(v[3]); i++) {
		const char *name; /* a scenario's: selected_has compares them */

		wperf_json_index_path(item, sub, i);
		e = wperf_json_get_identity(json_object_array_get_idx(v[3], i), item, &name, err);
	}
	f->s = (struct check_shard){(unsigned)index, (unsigned)of};
	f->selected = e ? NULL : v[3];
	return e;
}

/* Is name among the names of the JSON array a? */
static int selected_has(struct json_object *a, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(a, i)), name))
			return 1;
	return 0;
}

/* Every shard once, of one selection. */
static int check_shards(char *const *dirs, const struct shard_file *f, size_t n,
			struct wperf_error *err)
{
	unsigned of = f[0].s.of;
	const char *first = json_object_to_json_string(f[0].selected);

	for (size_t i = 0; i < n; i++) {
		if (!f[i].s.of != !of)
			return wperf_error_set(err, -EINVAL,
					       "%s and %s: one is a shard (--shard), the other not",
					       dirs[0], dirs[i]);
		if (of &&
		    (f[i].s.of != of || strcmp(json_object_to_json_string(f[i].selected), first)))
			return wperf_error_set(err, -EINVAL,
					       "%s and %s are shards of different checks (another "
					       "number of shards or another selection)",
					       dirs[0], dirs[i]);
		for (size_t j = 0; j < i && of; j++)
			if (f[j].s.index == f[i].s.index)
				return wperf_error_set(err, -EINVAL,
						       "%s and %s are both shard %u/%u", dirs[j],
						       dirs[i], f[i].s.index, of);
	}
	if (of && n != of)
		return wperf_error_set(err, -EINVAL,
				       "%zu of the %u shards given: a check's verdict needs all of "
				       "them",
				       n, of);
	return 0;
}

/* The path of to (absolute) relative to the folder from (absolute), into out. */
static void relative_path(const char *from, const char *to, char *out, size_t size)
{
	size_t i = 0, common = 0, len = 0, from_len = strlen(from);

	while (from[i] && from[i] == to[i])
		if (from[i++] == '/')
			common = i;
	if (!from[i] && (to[i] == '/' || !to[i]))
		common = to[i] ? i + 1 : i; /* to is under from */
	out[0] = '\0';
	for (const char *p = from + (common < from_len ? common : from_len); *p;) {
		len += (size_t)snprintf(out + len, len < size ? size - len : 0, "../");
		p += strcspn(p, "/");
		p += *p == '/';
	}
	snprintf(out + len, len < size ? size - len : 0, "%s", to + common);
}

/* Were a and b run on the same commits, in the same mode, at the same alpha? */
static int same_run(const struct wperf_check *a, const struct wperf_check *b)
{
	return a->base_mode == b->base_mode && !strcmp(a->base_commit, b->base_commit) &&
	       !strcmp(a->head_commit, b->head_commit) && a->alpha == b->alpha;
}

static int cmp_scenario(const void *pa, const void *pb)
{
	const struct wperf_check_scenario *a = pa, *b = pb;

	return strcmp(a->name, b->name);
}

/* Moves the scenarios of c (read from dir) into out, each one's folder made
 * relative to into. */
static int take(struct wperf_check *out, struct wperf_check *c, const char *dir, const char *into,
		struct wperf_error *err)
{
	void *grown = realloc(out->scenarios, (out->n + c->n + 1) * sizeof(*out->scenarios));
	char abs[PATH_MAX], rel[2 * PATH_MAX], folder[PATH_MAX + 256];

	if (!grown)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	out->scenarios = grown;
	if (!realpath(dir, abs))
		return wperf_error_set(err, -errno, "%s: %s", dir, strerror(errno));
	for (size_t i = 0; i < c->n; i++) {
		struct wperf_check_scenario *s = &c->scenarios[i];
		char *moved;

		for (size_t j = 0; j < out->n; j++)
			if (!strcmp(out->scenarios[j].name, s->name))
				return wperf_error_set(err, -EINVAL, "%s: scenario %s is twice",
						       dir, s->name);
		snprintf(folder, sizeof(folder), "%s/%s", abs, s->dir);
		relative_path(into, folder, rel, sizeof(rel));
		if (!(moved = strdup(rel)))
			return wperf_error_set(err, -ENOMEM, "out of memory");
		free(s->dir);
		s->dir = moved;
		out->scenarios[out->n++] = *s;
		memset(s, 0, sizeof(*s));
	}
	c->n = 0;
	return 0;
}

int check_merge(char *const *dirs, size_t n, const char *into, struct wperf_check *out,
		struct wperf_error *err)
{
	struct shard_file *f = calloc(n, sizeof(*f));
	char file[PATH_MAX], abs_into[PATH_MAX];
	int e = f ? 0 : wperf_error_set(err, -ENOMEM, "out of memory");

	memset(out, 0, sizeof(*out));
	if (!e && !realpath(into, abs_into))
		e = wperf_error_set(err, -errno, "%s: %s", into, strerror(errno));
	for (size_t i = 0; i < n && !e; i++)
		e = read_shard(dirs[i], &f[i], err);
	e = e ? e : check_shards(dirs, f, n, err);
	for (size_t i = 0; i < n && !e; i++) {
		struct wperf_check c = {0};
		struct wperf_buf text = {0};

		snprintf(file, sizeof(file), "%s/summary.json", dirs[i]);
		e = output_read_all(file, &text, err);
		e = e ? e : wperf_check_from_json(file, (const char *)text.data, text.len, &c, err);
		if (!e && i && !same_run(out, &c))
			e = wperf_error_set(
			    err, -EINVAL, "%s and %s are checks of other commits, modes or alphas",
			    dirs[0], dirs[i]);
		if (!e && !i) { /* the first one's account of what was compared */
			out->base_mode = c.base_mode;
			out->alpha = c.alpha;
			out->head_dirty = c.head_dirty;
			memcpy(out->base_ref, c.base_ref, sizeof(c.base_ref));
			memcpy(out->base_commit, c.base_commit, sizeof(c.base_commit));
			memcpy(out->head_commit, c.head_commit, sizeof(c.head_commit));
			memcpy(out->head_branch, c.head_branch, sizeof(c.head_branch));
		}
		if (!e && c.seconds > out->seconds)
			out->seconds = c.seconds;
		for (size_t k = 0; !e && f[i].s.of && k < c.n; k++)
			if (!selected_has(f[i].selected, c.scenarios[k].name))
				e = wperf_error_set(err, -EINVAL, "%s: scenario %s is not in %s",
						    dirs[i], c.scenarios[k].name, CHECK_SHARD_FILE);
		e = e ? e : take(out, &c, dirs[i], abs_into, err);
		wperf_check_release(&c);
		wperf_buf_release(&text);
	}
	/* Their scenarios are all there: a shard's check did not stop early. */
	if (!e && f[0].s.of && out->n != json_object_array_length(f[0].selected))
		e = wperf_error_set(err, -EINVAL,
				    "the shards hold %zu scenarios of the %zu selected: a shard's "
				    "check stopped early",
				    out->n, json_object_array_length(f[0].selected));
	if (!e)
		qsort(out->scenarios, out->n, sizeof(*out->scenarios), cmp_scenario);
	for (size_t i = 0; f && i < n; i++)
		json_object_put(f[i].doc);
	free(f);
	if (e)
		wperf_check_release(out);
	return e;
}
