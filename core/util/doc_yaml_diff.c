/* SPDX-License-Identifier: MIT */
/*
 * What changed from one YAML document to another, key path by key path (see
 * doc_yaml.h): mappings are matched by key, lists by position, and every
 * scalar that differs, appears or goes is one line. A subtree on one side
 * only is walked down to its scalars, so that "gate.throughput_tolerance:
 * absent -> 0.9" names the setting rather than "gate: absent -> a mapping".
 */
#include "core/util/doc_yaml.h"

#include <errno.h>
#include <string.h>

#define DIFF_MAX_VISITS 100000 /* aliases can make a small file a large tree */

struct yaml_diff {
	struct wperf_yaml *ya, *yb;
	struct wperf_doc_path path;
	size_t max, changes, visits;
	struct wperf_buf *out;
	int e;
};

/* A scalar as people wrote it (plain: as is; else quoted), cut short; a list
 * or a mapping by its kind; NULL: absent. */
static const char *shown(const yaml_node_t *n, char *buf, size_t size)
{
	if (!n)
		return "absent";
	if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    n->data.scalar.length < 48 &&
	    !memchr(n->data.scalar.value, '\n', n->data.scalar.length)) {
		memcpy(buf, n->data.scalar.value, n->data.scalar.length);
		buf[n->data.scalar.length] = '\0';
		return buf;
	}
	return wperf_yaml_describe(n, buf, size);
}

static void change(struct yaml_diff *d, const yaml_node_t *a, const yaml_node_t *b)
{
	char before[64], after[64];

	if (++d->changes > d->max || d->e)
		return;
	d->e = wperf_buf_printf(d->out, "%s: %s -> %s\n", d->path.text[0] ? d->path.text : "(top)",
				shown(a, before, sizeof(before)), shown(b, after, sizeof(after)));
}

static int same_scalar(const yaml_node_t *a, const yaml_node_t *b)
{
	return a->data.scalar.length == b->data.scalar.length &&
	       !memcmp(a->data.scalar.value, b->data.scalar.value, a->data.scalar.length);
}

static void walk(struct yaml_diff *d, const yaml_node_t *a, const yaml_node_t *b);

/* The value of the mapping m (of document y) at the key of the scalar key, or
 * NULL; m NULL or no mapping: NULL. */
static const yaml_node_t *value_at(struct wperf_yaml *y, const yaml_node_t *m,
				   const yaml_node_t *key)
{
	if (!m || m->type != YAML_MAPPING_NODE || key->type != YAML_SCALAR_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		const yaml_node_t *k = wperf_yaml_node(y, p->key);

		if (k && k->type == YAML_SCALAR_NODE && same_scalar(k, key))
			return wperf_yaml_node(y, p->value);
	}
	return NULL;
}

/* The keys of from (of document yf) each against the other side's value;
 * a_side: from is the before side. Keys both sides have are walked once, from
 * the before side. */
static void walk_keys(struct yaml_diff *d, const yaml_node_t *from, const yaml_node_t *other,
		      int a_side)
{
	struct wperf_yaml *yf = a_side ? d->ya : d->yb, *yo = a_side ? d->yb : d->ya;

	for (yaml_node_pair_t *p = from->data.mapping.pairs.start; p < from->data.mapping.pairs.top;
	     p++) {
		const yaml_node_t *k = wperf_yaml_node(yf, p->key),
				  *v = wperf_yaml_node(yf, p->value);
		const yaml_node_t *ov;
		size_t len;

		if (!k || k->type != YAML_SCALAR_NODE)
			continue;
		ov = value_at(yo, other, k);
		if (!a_side && ov)
			continue;
		len = wperf_doc_path_key(&d->path, (const char *)k->data.scalar.value);
		if (a_side)
			walk(d, v, ov);
		else
			walk(d, NULL, v);
		wperf_doc_path_pop(&d->path, len);
	}
}

static const yaml_node_t *item(struct wperf_yaml *y, const yaml_node_t *list, size_t i)
{
	size_t n;

	if (!list || list->type != YAML_SEQUENCE_NODE)
		return NULL;
	n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
	return i < n ? wperf_yaml_node(y, list->data.sequence.items.start[i]) : NULL;
}

static void walk(struct yaml_diff *d, const yaml_node_t *a, const yaml_node_t *b)
{
	int type;

	if (d->e || ++d->visits > DIFF_MAX_VISITS || (!a && !b))
		return;
	type = a ? (int)a->type : (int)b->type;
	if (a && b && a->type != b->type) {
		change(d, a, b);
	} else if (type == YAML_MAPPING_NODE) {
		if (a)
			walk_keys(d, a, b, 1);
		if (b)
			walk_keys(d, b, a, 0);
	} else if (type == YAML_SEQUENCE_NODE) {
		for (size_t i = 0;; i++) {
			const yaml_node_t *x = item(d->ya, a, i), *y = item(d->yb, b, i);
			size_t len;

			if (!x && !y)
				break;
			len = wperf_doc_path_index(&d->path, i);
			walk(d, x, y);
			wperf_doc_path_pop(&d->path, len);
		}
	} else if (!a || !b || !same_scalar(a, b)) {
		change(d, a, b);
	}
}

long wperf_yaml_diff(struct wperf_yaml *ya, const yaml_node_t *a, struct wperf_yaml *yb,
		     const yaml_node_t *b, const char *key, size_t max, struct wperf_buf *out)
{
	struct yaml_diff d = {.ya = ya, .yb = yb, .max = max, .out = out};

	if (key)
		wperf_doc_path_key(&d.path, key);
	walk(&d, a, b);
	if (!d.e && d.changes > max)
		d.e = wperf_buf_printf(out, "... and %zu more changes\n", d.changes - max);
	if (!d.e && d.visits > DIFF_MAX_VISITS)
		d.e = wperf_buf_printf(out, "... and more: the documents are too large to compare "
					    "whole\n");
	return d.e ? -ENOMEM : (long)d.changes;
}
