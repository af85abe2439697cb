/* SPDX-License-Identifier: MIT */
/*
 * The scenario loader's YAML layer: reads the file with libyaml's document
 * API, and gives the rest of the loader errors that say where (file:line:column)
 * and at which key path, the scenario's memory, and checked mapping keys.
 *
 * Hostile input is expected (scenarios come from pull requests): the file's
 * size, the nesting depth and the memory that aliases can multiply are all
 * bounded, because libyaml bounds none of them (and slows down quadratically
 * with the depth).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/run/scenario_internal.h"

#define SC_MAX_FILE  (1u << 20)	 /* bytes of YAML */
#define SC_MAX_DEPTH 32		 /* nested lists and mappings; the schema needs 5 */
#define SC_MAX_BYTES (64u << 20) /* of values, however many times aliases repeat them */

static int fail_v(struct loader *L, int code, size_t line, size_t col, const char *fmt, va_list ap)
{
	char msg[WPERF_ERROR_MSG_LEN];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (L->pathlen)
		wperf_error_set(L->err, code, "%s:%zu:%zu: %s: %s", L->file, line, col, L->path,
				msg);
	else
		wperf_error_set(L->err, code, "%s:%zu:%zu: %s", L->file, line, col, msg);
	return -1;
}

int sc_fail_mark(struct loader *L, yaml_mark_t mark, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_v(L, -EINVAL, mark.line + 1, mark.column + 1, fmt, ap);
	va_end(ap);
	return -1;
}

int sc_fail(struct loader *L, const yaml_node_t *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_v(L, -EINVAL, at->start_mark.line + 1, at->start_mark.column + 1, fmt, ap);
	va_end(ap);
	return -1;
}

int sc_oom(struct loader *L)
{
	wperf_error_set(L->err, -ENOMEM, "%s: out of memory", L->file);
	return -1;
}

void sc_quote(char *buf, size_t size, const char *s, size_t n)
{
	size_t shown = n > 40 ? 37 : n, len = 0, i;

	while (shown < n && shown > 0 && ((unsigned char)s[shown] & 0xc0) == 0x80)
		shown--; /* cut between UTF-8 characters, not inside one */
	if (size < 8) {
		buf[0] = '\0';
		return;
	}
	buf[len++] = '"';
	/* 8 bytes to spare: an escape, then "..." and the closing quote. */
	for (i = 0; i < shown && len + 8 < size; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			buf[len++] = '\\';
			buf[len++] = c;
		} else if (c < 0x20 || c == 0x7f) {
			len += snprintf(buf + len, size - len, "\\x%02x", c);
		} else {
			buf[len++] = c;
		}
	}
	if (i < n)
		len += snprintf(buf + len, size - len, "...");
	buf[len++] = '"';
	buf[len] = '\0';
}

const char *sc_describe(const yaml_node_t *n, char *buf, size_t size)
{
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type != YAML_SCALAR_NODE)
		return "nothing";
	if (sc_is_null(n))
		return "null";
	sc_quote(buf, size, (const char *)n->data.scalar.value, n->data.scalar.length);
	return buf;
}

/* ---- memory: every block belongs to the scenario, under one size limit ---- */

void *sc_alloc(struct loader *L, const yaml_node_t *at, size_t n)
{
	void *p;

	if (n > SC_MAX_BYTES - L->bytes) {
		yaml_mark_t start = {0, 0, 0};

		sc_fail_mark(L, at ? at->start_mark : start,
			     "the scenario is too large: its values take more than %u MiB",
			     SC_MAX_BYTES >> 20);
		return NULL;
	}
	p = malloc(n ? n : 1);
	if (!p || wperf_buf_append(&L->s->mem, &p, sizeof(p)) < 0) {
		free(p);
		sc_oom(L);
		return NULL;
	}
	L->bytes += n;
	return p;
}

char *sc_strndup(struct loader *L, const yaml_node_t *at, const char *p, size_t n)
{
	char *s = sc_alloc(L, at, n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

/* ---- the key path ---- */

static int is_word(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '_' && *s != '-')
			return 0;
	return 1;
}

size_t sc_path_key(struct loader *L, const char *key)
{
	size_t saved = L->pathlen, len = L->pathlen;
	char *p = L->path;

	/* A word is written services.zk; anything else as aliases["fig1/B"]. */
	if (is_word(key) && strlen(key) <= 64) {
		snprintf(p + len, sizeof(L->path) - len, "%s%s", len ? "." : "", key);
	} else {
		char q[64];

		sc_quote(q, sizeof(q), key, strlen(key));
		snprintf(p + len, sizeof(L->path) - len, "[%s]", q);
	}
	L->pathlen = strlen(p);
	return saved;
}

size_t sc_path_index(struct loader *L, size_t i)
{
	size_t saved = L->pathlen;

	snprintf(L->path + L->pathlen, sizeof(L->path) - L->pathlen, "[%zu]", i);
	L->pathlen = strlen(L->path);
	return saved;
}

/* ---- reading the file ---- */

/* Line and column (1-based, in characters) of a byte offset, for reader errors. */
static void offset_position(const struct wperf_buf *b, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < b->len; i++) {
		if (b->data[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if ((b->data[i] & 0xc0) != 0x80) {
			(*col)++; /* UTF-8 continuation bytes are part of one character */
		}
	}
}

static int syntax_error(struct loader *L, const yaml_parser_t *p, const struct wperf_buf *b)
{
	char ctx[160] = "";
	size_t line, col;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return sc_oom(L);
	case YAML_READER_ERROR:
		offset_position(b, p->problem_offset, &line, &col);
		if (p->problem_value >= 0)
			snprintf(ctx, sizeof(ctx), " (byte 0x%02x)", p->problem_value & 0xff);
		wperf_error_set(L->err, -EINVAL, "%s:%zu:%zu: not valid YAML: %s%s", L->file, line,
				col, p->problem ? p->problem : "unreadable", ctx);
		return -1;
	default:
		if (p->context)
			snprintf(ctx, sizeof(ctx), " (%s at line %zu, column %zu)", p->context,
				 p->context_mark.line + 1, p->context_mark.column + 1);
		wperf_error_set(L->err, -EINVAL, "%s:%zu:%zu: not valid YAML: %s%s", L->file,
				p->problem_mark.line + 1, p->problem_mark.column + 1,
				p->problem ? p->problem : "syntax error", ctx);
		return -1;
	}
}

/*
 * A first pass over the events, before libyaml builds the document: it stops
 * at the first level too deep (libyaml itself has no limit, and slows down
 * quadratically with depth) and at a second document.
 */
static int check_events(struct loader *L, const struct wperf_buf *b)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, docs = 0, ret = 0;

	if (!yaml_parser_initialize(&p))
		return sc_oom(L);
	yaml_parser_set_input_string(&p, b->data, b->len);
	for (;;) {
		if (!yaml_parser_parse(&p, &ev)) {
			ret = syntax_error(L, &p, b);
			break;
		}
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > SC_MAX_DEPTH)
				ret = sc_fail_mark(L, ev.start_mark, "nested deeper than %d levels",
						   SC_MAX_DEPTH);
		} else if (ev.type == YAML_SEQUENCE_END_EVENT ||
			   ev.type == YAML_MAPPING_END_EVENT) {
			depth--;
		} else if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			ret = sc_fail_mark(L, ev.start_mark,
					   "a second YAML document: a scenario is one document");
		}
		int end = ev.type == YAML_STREAM_END_EVENT;

		yaml_event_delete(&ev);
		if (ret || end)
			break;
	}
	yaml_parser_delete(&p);
	return ret;
}

/* The whole file into b, refusing what is not a regular file or too large. */
static int read_file(struct loader *L, struct wperf_buf *b)
{
	struct stat st;
	size_t n;
	FILE *f;

	/* stat first: opening a FIFO would wait for a writer. */
	if (stat(L->file, &st) == 0 && !S_ISREG(st.st_mode)) {
		wperf_error_set(L->err, -EINVAL, "%s: not a regular file", L->file);
		return -1;
	}
	f = fopen(L->file, "rb");
	if (!f) {
		wperf_error_set(L->err, -errno, "%s: %s", L->file, strerror(errno));
		return -1;
	}
	/* In pieces, so that a small file takes little memory; one byte past the limit
	 * tells a file that is too large. */
	do {
		if (wperf_buf_reserve(b, 1 << 16) < 0) {
			fclose(f);
			return sc_oom(L);
		}
		n = fread(b->data + b->len, 1, 1 << 16, f);
		b->len += n;
	} while (n > 0 && b->len <= SC_MAX_FILE);
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		fclose(f);
		wperf_error_set(L->err, -e, "%s: %s", L->file, strerror(e));
		return -1;
	}
	fclose(f);
	if (b->len > SC_MAX_FILE) {
		wperf_error_set(L->err, -EFBIG, "%s: larger than %u KiB: not a scenario", L->file,
				SC_MAX_FILE >> 10);
		return -1;
	}
	return 0;
}

int sc_read_document(struct loader *L)
{
	struct wperf_buf b = {0};
	yaml_parser_t p;
	int ret = -1;

	if (read_file(L, &b) < 0 || check_events(L, &b) < 0)
		goto out;
	if (!yaml_parser_initialize(&p)) {
		sc_oom(L);
		goto out;
	}
	yaml_parser_set_input_string(&p, b.data, b.len);
	if (!yaml_parser_load(&p, &L->doc)) {
		syntax_error(L, &p, &b);
	} else {
		L->have_doc = 1;
		ret = 0;
	}
	yaml_parser_delete(&p);
out:
	wperf_buf_release(&b);
	return ret;
}

/* ---- nodes ---- */

yaml_node_t *sc_node(struct loader *L, int id)
{
	return yaml_document_get_node(&L->doc, id);
}

int sc_is_null(const yaml_node_t *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(*nulls); i++)
		if (!strcmp((const char *)n->data.scalar.value, nulls[i]))
			return 1;
	return 0;
}

int sc_mapping(struct loader *L, const yaml_node_t *n)
{
	char got[64];

	if (n->type == YAML_MAPPING_NODE)
		return 0;
	return sc_fail(L, n, "expected a mapping, got %s", sc_describe(n, got, sizeof(got)));
}

int sc_sequence(struct loader *L, const yaml_node_t *n)
{
	char got[64];

	if (n->type == YAML_SEQUENCE_NODE)
		return 0;
	return sc_fail(L, n, "expected a list, got %s", sc_describe(n, got, sizeof(got)));
}

struct key_ref {
	const char *key;
	size_t index; /* of the pair, in the file's order */
};

static int by_key(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The text of allowed, comma-separated, for "unknown key" messages. */
static void list_keys(char *buf, size_t size, const char *const *allowed)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; allowed[i] && len < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", allowed[i]);

		len += w > 0 ? (size_t)w : 0;
	}
}

int sc_check_keys(struct loader *L, const yaml_node_t *map, const char *const *allowed)
{
	const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
	size_t n = map->data.mapping.pairs.top - pairs, dup = SIZE_MAX, first = 0;
	struct wperf_buf refs = {0};
	struct key_ref *r;
	char got[64];

	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *k = sc_node(L, pairs[i].key);
		const char *key;
		size_t a = 0;
		char list[256];

		if (!k || k->type != YAML_SCALAR_NODE || sc_is_null(k))
			return sc_fail(L, k ? k : map, "expected a string as key, got %s",
				       k ? sc_describe(k, got, sizeof(got)) : "nothing");
		key = (const char *)k->data.scalar.value;
		if (strlen(key) != k->data.scalar.length)
			return sc_fail(L, k, "keys cannot hold NUL characters");
		while (allowed && allowed[a] && strcmp(allowed[a], key))
			a++;
		if (allowed && !allowed[a]) {
			list_keys(list, sizeof(list), allowed);
			sc_path_key(L, key);
			return sc_fail(L, k, "unknown key (allowed here: %s)", list);
		}
	}
	/* Sorted, duplicates are neighbours: O(n log n) for an env of thousands. */
	for (size_t i = 0; i < n; i++) {
		struct key_ref ref = {(const char *)sc_node(L, pairs[i].key)->data.scalar.value, i};

		if (wperf_buf_append(&refs, &ref, sizeof(ref)) < 0) {
			wperf_buf_release(&refs);
			return sc_oom(L);
		}
	}
	r = (struct key_ref *)refs.data;
	if (n > 1)
		qsort(r, n, sizeof(*r), by_key);
	/* Report the repetition that comes first in the file. */
	for (size_t i = 1; i < n; i++)
		if (!strcmp(r[i].key, r[i - 1].key) && r[i].index < dup) {
			dup = r[i].index;
			first = r[i - 1].index;
		}
	wperf_buf_release(&refs);
	if (dup != SIZE_MAX) {
		const yaml_node_t *k = sc_node(L, pairs[dup].key);

		sc_path_key(L, (const char *)k->data.scalar.value);
		return sc_fail(L, k, "duplicate key (first at line %zu)",
			       sc_node(L, pairs[first].key)->start_mark.line + 1);
	}
	return 0;
}

yaml_node_t *sc_lookup(struct loader *L, const yaml_node_t *map, const char *key)
{
	if (map->type != YAML_MAPPING_NODE)
		return NULL;
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = sc_node(L, p->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)k->data.scalar.value, key))
			return sc_node(L, p->value);
	}
	return NULL;
}

int sc_require(struct loader *L, const yaml_node_t *map, const char *const *required)
{
	for (size_t i = 0; required[i]; i++)
		if (!sc_lookup(L, map, required[i]))
			return sc_fail(L, map, "missing required key \"%s\"", required[i]);
	return 0;
}
