/* SPDX-License-Identifier: MIT */
/*
 * The strict-document kit's YAML side (see doc.h): a document read with
 * libyaml's document API and checked node by node, every error at its node's
 * line and column and under the key path being read; and a writer over
 * libyaml's emitter.
 *
 * Hostile input is expected (scenarios come from pull requests): the nesting
 * depth is bounded before libyaml builds the document (it has no limit of its
 * own, and slows down quadratically with depth), and aliases can be refused.
 *
 * Every function that can fail returns 0 or a negative errno (-EINVAL,
 * -ENOMEM) with the error set in the reader's err.
 */
#ifndef WPERF_DOC_YAML_H
#define WPERF_DOC_YAML_H

#include <stdint.h>
#include <yaml.h>

#include "core/util/buf.h"
#include "core/util/doc.h"

/* ---- reading ---- */

struct wperf_yaml_limits {
	const char *what; /* what the document is, "a baseline": for messages */
	int max_depth;	  /* nested lists and mappings */
	int aliases;	  /* 0: *alias is an error */
};

/* One document being read. path is the key path errors name: push a step
 * (wperf_doc_path_key, _index) before reading below it, pop it after. */
struct wperf_yaml {
	const char *file; /* as given, for messages */
	const struct wperf_yaml_limits *limits;
	struct wperf_error *err;
	struct wperf_doc_path path;
	yaml_document_t doc;
	int loaded;
};

/* Parses the one document of text into y (which refers to file, limits and
 * err, kept by the caller). A syntax error, a level deeper than the limit, an
 * alias (when refused), a second document and an empty one are errors. Release
 * y after, whatever the result. */
int wperf_yaml_load(struct wperf_yaml *y, const char *file, const void *text, size_t len,
		    const struct wperf_yaml_limits *limits, struct wperf_error *err);
void wperf_yaml_release(struct wperf_yaml *y);

/* The root node (the document is not empty once loaded). */
yaml_node_t *wperf_yaml_root(struct wperf_yaml *y);
/* The node of an id (a pair's key or value, a list's item). */
yaml_node_t *wperf_yaml_node(struct wperf_yaml *y, int id);

/* "FILE:LINE:COL: PATH: WHAT" at node at (NULL: the top of the file). */
int wperf_yaml_fail(struct wperf_yaml *y, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int wperf_yaml_no_memory(struct wperf_yaml *y);

/* A short description of a node for "found ...": "abc" quoted, null, a list, a mapping. */
const char *wperf_yaml_describe(const yaml_node_t *n, char *buf, size_t size);
/* A plain null: "", ~, null, Null, NULL. */
int wperf_yaml_is_null(const yaml_node_t *n);

/* Fails unless n is a mapping; unless a list, whose items it gives. */
int wperf_yaml_mapping(struct wperf_yaml *y, const yaml_node_t *n);
int wperf_yaml_list(struct wperf_yaml *y, const yaml_node_t *n, const yaml_node_item_t **items,
		    size_t *count);

/*
 * Checks mapping map: its keys are strings, each once, each one of the nkeys
 * keys (keys NULL: any key), and the first nrequired are there. When values is
 * not NULL, values[i] is the value of keys[i], or NULL when it is absent.
 */
int wperf_yaml_keys(struct wperf_yaml *y, const yaml_node_t *map, const char *const *keys,
		    size_t nkeys, size_t nrequired, yaml_node_t **values);
/* The value of key in map, or NULL. */
yaml_node_t *wperf_yaml_lookup(struct wperf_yaml *y, const yaml_node_t *map, const char *key);

/* ---- what changed (doc_yaml_diff.c) ---- */

/*
 * Appends to out a line "PATH: BEFORE -> AFTER" for each scalar that differs
 * between node a of document ya and node b of document yb (either NULL:
 * absent; a value on one side only reads "absent" on the other), mappings
 * matched by key and lists by position; the paths start at key (a and b are
 * the values of that top-level key; NULL: they are the roots). At most max
 * lines, then one that counts the rest. The number of changes, or -ENOMEM.
 */
long wperf_yaml_diff(struct wperf_yaml *ya, const yaml_node_t *a, struct wperf_yaml *yb,
		     const yaml_node_t *b, const char *key, size_t max, struct wperf_buf *out);

/* ---- scalars: the message says what was expected and what was found ---- */

#define WPERF_YAML_NONEMPTY 1 /* an empty string is an error */

/* Any scalar but a plain null, without NUL characters; *s points into the document. */
int wperf_yaml_string(struct wperf_yaml *y, const yaml_node_t *n, int flags, const char **s,
		      size_t *len);
/* The same into a malloc'ed copy. */
int wperf_yaml_strdup(struct wperf_yaml *y, const yaml_node_t *n, int flags, char **out);
/* The same into a fixed-size array (size with its NUL). */
int wperf_yaml_fixed(struct wperf_yaml *y, const yaml_node_t *n, char *out, size_t size);
/* A plain (unquoted) decimal number in r. */
int wperf_yaml_number(struct wperf_yaml *y, const yaml_node_t *n, const struct wperf_doc_range *r,
		      double *out);
/* A plain whole number from min to max. */
int wperf_yaml_integer(struct wperf_yaml *y, const yaml_node_t *n, long long min, long long max,
		       long long *out);
/* true or false (True, TRUE, False, FALSE), plain. */
int wperf_yaml_bool(struct wperf_yaml *y, const yaml_node_t *n, int *out);
/* One of the n names, as its index. */
int wperf_yaml_enum(struct wperf_yaml *y, const yaml_node_t *n, const char *const *names,
		    size_t count, size_t *out);

/* ---- writing ---- */

/* The emitter and the first error: once one call fails, the others do nothing,
 * so that a document is written as straight-line code and checked once. */
struct wperf_yaml_writer {
	yaml_emitter_t e;
	struct wperf_buf *out;
	int failed;   /* 0, or -ENOMEM or -EINVAL */
	int nomem;    /* the output buffer could not grow */
	int infinite; /* a number that is not finite */
	int ready;    /* the emitter was initialized */
};

/* Starts a stream and a document appended to out, lines cut at width.
 * Release w after, whatever the result. */
int wperf_yaml_writer_init(struct wperf_yaml_writer *w, struct wperf_buf *out, int width);
/* Ends them; returns w->failed. Release w after, whatever the result. */
int wperf_yaml_writer_finish(struct wperf_yaml_writer *w);
void wperf_yaml_writer_release(struct wperf_yaml_writer *w);

/* A key of a mapping: one of the format's plain words. */
void wperf_yaml_write_key(struct wperf_yaml_writer *w, const char *k);
/* A string, double-quoted when it would read back as something else. */
void wperf_yaml_write_string(struct wperf_yaml_writer *w, const char *s);
/* A word written as it is (a format's name). */
void wperf_yaml_write_plain(struct wperf_yaml_writer *w, const char *s);
/* A finite number, exactly (wperf_doc_number_text). */
void wperf_yaml_write_number(struct wperf_yaml_writer *w, double v);
void wperf_yaml_write_count(struct wperf_yaml_writer *w, uint64_t v);
/* Flow ([a, b], {k: v}) or block style. */
void wperf_yaml_write_mapping(struct wperf_yaml_writer *w, int flow);
void wperf_yaml_write_mapping_end(struct wperf_yaml_writer *w);
void wperf_yaml_write_list(struct wperf_yaml_writer *w, int flow);
void wperf_yaml_write_list_end(struct wperf_yaml_writer *w);

#endif /* WPERF_DOC_YAML_H */
