/* SPDX-License-Identifier: MIT */
/*
 * The kit's YAML reader (doc_yaml.h): loading one bounded document, errors at
 * a node, and checked mappings. The scalars are in doc_yaml_values.c.
 */
#include "core/util/doc_yaml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/cmp.h"

static int fail_at(struct wperf_yaml *y, size_t line, size_t col, const char *fmt, va_list ap)
{
	char msg[WPERF_ERROR_MSG_LEN];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return wperf_doc_fail(y->err, -EINVAL, y->file, line, col, y->path.text, "%s", msg);
}

int wperf_yaml_fail(struct wperf_yaml *y, const yaml_node_t *at, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fail_at(y, at ? at->start_mark.line + 1 : 1, at ? at->start_mark.column + 1 : 1, fmt,
		      ap);
	va_end(ap);
	return ret;
}

static int fail_mark(struct wperf_yaml *y, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_mark(struct wperf_yaml *y, yaml_mark_t mark, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fail_at(y, mark.line + 1, mark.column + 1, fmt, ap);
	va_end(ap);
	return ret;
}

int wperf_yaml_no_memory(struct wperf_yaml *y)
{
	return wperf_doc_no_memory(y->err, y->file);
}

/* ---- loading ---- */

/* Line and column (1-based, in characters) of a byte offset, for reader errors:
 * libyaml gives bad bytes an offset, not a mark. */
static yaml_mark_t offset_mark(const unsigned char *text, size_t len, size_t off)
{
	yaml_mark_t m = {off, 0, 0};

	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			m.line++;
			m.column = 0;
		} else if ((text[i] & 0xc0) != 0x80) {
			m.column++; /* UTF-8 continuation bytes are part of one character */
		}
	}
	return m;
}

static int syntax_error(struct wperf_yaml *y, const yaml_parser_t *p, const void *text, size_t len)
{
	char ctx[160] = "";

	if (p->error == YAML_MEMORY_ERROR)
		return wperf_yaml_no_memory(y);
	if (p->error == YAML_READER_ERROR) {
		if (p->problem_value >= 0)
			snprintf(ctx, sizeof(ctx), " (byte 0x%02x)", p->problem_value & 0xff);
		return fail_mark(y, offset_mark(text, len, p->problem_offset),
				 "not valid YAML: %s%s", p->problem ? p->problem : "unreadable",
				 ctx);
	}
	if (p->context)
		snprintf(ctx, sizeof(ctx), " (%s at line %zu, column %zu)", p->context,
			 p->context_mark.line + 1, p->context_mark.column + 1);
	return fail_mark(y, p->problem_mark, "not valid YAML: %s%s",
			 p->problem ? p->problem : "syntax error", ctx);
}

/* What one event does to the checks of check_events: 0 or an error. */
static int check_event(struct wperf_yaml *y, const yaml_event_t *ev, int *depth, int *docs)
{
	const struct wperf_yaml_limits *l = y->limits;

	switch (ev->type) {
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (++*depth > l->max_depth)
			return fail_mark(y, ev->start_mark, "nested deeper than %d levels",
					 l->max_depth);
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		--*depth;
		return 0;
	case YAML_ALIAS_EVENT:
		return l->aliases ? 0
				  : fail_mark(y, ev->start_mark,
					      "aliases (*name) are not allowed in %s", l->what);
	case YAML_DOCUMENT_START_EVENT:
		return ++*docs > 1
			   ? fail_mark(y, ev->start_mark,
				       "a second YAML document: %s is one document", l->what)
			   : 0;
	default:
		return 0;
	}
}

/*
 * A first pass over the events, before libyaml builds the document: it stops
 * at the first level too deep, at an alias when they are refused, and at a
 * second document.
 */
static int check_events(struct wperf_yaml *y, const void *text, size_t len)
{
	int depth = 0, docs = 0, ret = 0, end = 0;
	yaml_parser_t p;
	yaml_event_t ev;

	if (!yaml_parser_initialize(&p))
		return wperf_yaml_no_memory(y);
	yaml_parser_set_input_string(&p, text, len);
	while (!ret && !end) {
		if (!yaml_parser_parse(&p, &ev)) {
			ret = syntax_error(y, &p, text, len);
			break;
		}
		ret = check_event(y, &ev, &depth, &docs);
		end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return ret;
}

int wperf_yaml_load(struct wperf_yaml *y, const char *file, const void *text, size_t len,
		    const struct wperf_yaml_limits *limits, struct wperf_error *err)
{
	yaml_parser_t p;
	int ret;

	memset(y, 0, sizeof(*y));
	if (!text)
		text = ""; /* an empty file read into an empty buffer: libyaml asserts on NULL */
	y->file = file;
	y->limits = limits;
	y->err = err;
	if ((ret = check_events(y, text, len)))
		return ret;
	if (!yaml_parser_initialize(&p))
		return wperf_yaml_no_memory(y);
	yaml_parser_set_input_string(&p, text, len);
	if (!yaml_parser_load(&p, &y->doc))
		ret = syntax_error(y, &p, text, len);
	else
		y->loaded = 1;
	yaml_parser_delete(&p);
	if (!ret && !yaml_document_get_root_node(&y->doc))
		ret = wperf_doc_fail(err, -EINVAL, file, 0, 0, NULL, "empty: expected %s",
				     limits->what);
	return ret;
}

void wperf_yaml_release(struct wperf_yaml *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	y->loaded = 0;
}

yaml_node_t *wperf_yaml_root(struct wperf_yaml *y)
{
	return yaml_document_get_root_node(&y->doc);
}

yaml_node_t *wperf_yaml_node(struct wperf_yaml *y, int id)
{
	return yaml_document_get_node(&y->doc, id);
}

/* ---- nodes ---- */

int wperf_yaml_is_null(const yaml_node_t *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(*nulls); i++)
		if (!strcmp((const char *)n->data.scalar.value, nulls[i]))
			return 1;
	return 0;
}

const char *wperf_yaml_describe(const yaml_node_t *n, char *buf, size_t size)
{
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type != YAML_SCALAR_NODE)
		return "nothing";
	if (wperf_yaml_is_null(n))
		return "null";
	wperf_doc_quote(buf, size, (const char *)n->data.scalar.value, n->data.scalar.length);
	return buf;
}

int wperf_yaml_mapping(struct wperf_yaml *y, const yaml_node_t *n)
{
	char found[64];

	if (n->type == YAML_MAPPING_NODE)
		return 0;
	return wperf_yaml_fail(y, n, "expected a mapping, found %s",
			       wperf_yaml_describe(n, found, sizeof(found)));
}

int wperf_yaml_list(struct wperf_yaml *y, const yaml_node_t *n, const yaml_node_item_t **items,
		    size_t *count)
{
	char found[64];

	if (n->type != YAML_SEQUENCE_NODE)
		return wperf_yaml_fail(y, n, "expected a list, found %s",
				       wperf_yaml_describe(n, found, sizeof(found)));
	*items = n->data.sequence.items.start;
	*count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	return 0;
}

/* ---- mappings ---- */

struct key_ref {
	const char *key;
	size_t index; /* of the pair, in the file's order */
};

static int by_key(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : wperf_cmp_u64(x->index, y->index);
}

/* Each key a string, and one of keys (when not NULL). */
static int check_key_names(struct wperf_yaml *y, const yaml_node_t *map, const char *const *keys,
			   size_t nkeys)
{
	const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
	size_t n = (size_t)(map->data.mapping.pairs.top - pairs);
	char found[64], list[256];

	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *k = wperf_yaml_node(y, pairs[i].key);
		const char *key;
		size_t a = 0;

		if (!k || k->type != YAML_SCALAR_NODE || wperf_yaml_is_null(k))
			return wperf_yaml_fail(y, k ? k : map, "expected a string as key, found %s",
					       k ? wperf_yaml_describe(k, found, sizeof(found))
						 : "nothing");
		key = (const char *)k->data.scalar.value;
		if (strlen(key) != k->data.scalar.length)
			return wperf_yaml_fail(y, k, "keys cannot hold NUL characters");
		while (keys && a < nkeys && strcmp(keys[a], key))
			a++;
		if (keys && a == nkeys) {
			wperf_doc_key_list(list, sizeof(list), keys, nkeys);
			wperf_doc_path_key(&y->path, key);
			return wperf_yaml_fail(y, k, "unknown key (allowed here: %s)", list);
		}
	}
	return 0;
}

/* No key twice; sorted, duplicates are neighbours: O(n log n) for thousands.
 * The repetition that comes first in the file is the one named. */
static int check_duplicates(struct wperf_yaml *y, const yaml_node_t *map)
{
	const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
	size_t n = (size_t)(map->data.mapping.pairs.top - pairs), dup = SIZE_MAX, first = 0;
	struct key_ref *r;
	const yaml_node_t *k;

	if (n < 2)
		return 0;
	if (!(r = calloc(n, sizeof(*r))))
		return wperf_yaml_no_memory(y);
	for (size_t i = 0; i < n; i++)
		r[i] = (struct key_ref){
		    (const char *)wperf_yaml_node(y, pairs[i].key)->data.scalar.value, i};
	qsort(r, n, sizeof(*r), by_key);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(r[i].key, r[i - 1].key) && r[i].index < dup) {
			dup = r[i].index;
			first = r[i - 1].index;
		}
	free(r);
	if (dup == SIZE_MAX)
		return 0;
	k = wperf_yaml_node(y, pairs[dup].key);
	wperf_doc_path_key(&y->path, (const char *)k->data.scalar.value);
	return wperf_yaml_fail(y, k, "duplicate key (first at line %zu)",
			       wperf_yaml_node(y, pairs[first].key)->start_mark.line + 1);
}

yaml_node_t *wperf_yaml_lookup(struct wperf_yaml *y, const yaml_node_t *map, const char *key)
{
	if (map->type != YAML_MAPPING_NODE)
		return NULL;
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = wperf_yaml_node(y, p->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)k->data.scalar.value, key))
			return wperf_yaml_node(y, p->value);
	}
	return NULL;
}

int wperf_yaml_keys(struct wperf_yaml *y, const yaml_node_t *map, const char *const *keys,
		    size_t nkeys, size_t nrequired, yaml_node_t **values)
{
	int ret = wperf_yaml_mapping(y, map);

	ret = ret ? ret : check_key_names(y, map, keys, nkeys);
	ret = ret ? ret : check_duplicates(y, map);
	for (size_t i = 0; !ret && keys && i < nkeys; i++) {
		yaml_node_t *v = wperf_yaml_lookup(y, map, keys[i]);

		if (values)
			values[i] = v;
		if (!v && i < nrequired)
			ret = wperf_yaml_fail(y, map, "missing key \"%s\"", keys[i]);
	}
	return ret;
}
