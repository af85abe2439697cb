/* SPDX-License-Identifier: MIT */
/*
 * The strict-document kit: what libwperf's YAML and JSON readers and writers
 * share (doc_yaml.h and json_util.h are its two sides). A document is read
 * strictly: every mistake is an error in one format,
 *
 *	FILE:LINE:COL: key.path: what was expected
 *
 * (FILE: key.path: ... where the format has no positions, as JSON read by
 * json-c; the key path is left out at the top), returned through struct
 * wperf_error. Numbers are written with the fewest digits that read back
 * exactly.
 */
#ifndef WPERF_DOC_H
#define WPERF_DOC_H

#include <stddef.h>

#include "core/util/error.h"

/* ---- key paths: "record.on_stop[2]", aliases["fig1/B"] ---- */

#define WPERF_DOC_PATH_MAX 256 /* longer paths are cut; messages are 512 bytes anyway */

struct wperf_doc_path {
	char text[WPERF_DOC_PATH_MAX]; /* "" at the top */
	size_t len;
};

/* Each pushes one step and returns the length to give back to pop. A key that
 * is a word is written .key, anything else ["quoted"]. */
size_t wperf_doc_path_key(struct wperf_doc_path *p, const char *key);
size_t wperf_doc_path_index(struct wperf_doc_path *p, size_t i);
void wperf_doc_path_pop(struct wperf_doc_path *p, size_t len);

/* ---- the one error format ---- */

/* Sets err to code and "FILE:LINE:COL: PATH: WHAT" (line 0: "FILE: PATH: WHAT";
 * path NULL or "": no "PATH: "); returns code. */
int wperf_doc_fail(struct wperf_error *err, int code, const char *file, size_t line, size_t col,
		   const char *path, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* "FILE: out of memory", -ENOMEM. */
int wperf_doc_no_memory(struct wperf_error *err, const char *file);

/* ---- what was expected, what was found ---- */

/* s (n bytes) quoted and escaped into buf, cut to about 40 characters. */
void wperf_doc_quote(char *buf, size_t size, const char *s, size_t n);

/* The comma-separated list of the n keys, for "unknown key (allowed here: ...)". */
void wperf_doc_key_list(char *buf, size_t size, const char *const *keys, size_t n);

/* A range of numbers; an infinite bound is no bound. */
struct wperf_doc_range {
	double min, max;
	int min_open, max_open; /* (min, ...] rather than [min, ...] */
};

/* "a number in [0, 1]", "a number >= 0", "a number": for "expected ...". */
void wperf_doc_range_text(char *buf, size_t size, const struct wperf_doc_range *r);

/* Is d in r? */
int wperf_doc_in_range(double d, const struct wperf_doc_range *r);

/* ---- exact numbers ---- */

#define WPERF_DOC_NUMBER_LEN 32

/* The fewest of %.15g, %.16g, %.17g that reads back as the finite v. */
void wperf_doc_number_text(char text[WPERF_DOC_NUMBER_LEN], double v);

#endif /* WPERF_DOC_H */
