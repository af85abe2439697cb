/* SPDX-License-Identifier: MIT */
#include "core/util/doc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

size_t wperf_doc_path_key(struct wperf_doc_path *p, const char *key)
{
	size_t saved = p->len;

	if (is_word(key) && strlen(key) <= 64) {
		snprintf(p->text + p->len, sizeof(p->text) - p->len, "%s%s", p->len ? "." : "",
			 key);
	} else {
		char q[64];

		wperf_doc_quote(q, sizeof(q), key, strlen(key));
		snprintf(p->text + p->len, sizeof(p->text) - p->len, "[%s]", q);
	}
	p->len = strlen(p->text);
	return saved;
}

size_t wperf_doc_path_index(struct wperf_doc_path *p, size_t i)
{
	size_t saved = p->len;

	snprintf(p->text + p->len, sizeof(p->text) - p->len, "[%zu]", i);
	p->len = strlen(p->text);
	return saved;
}

void wperf_doc_path_pop(struct wperf_doc_path *p, size_t len)
{
	p->len = len;
	p->text[len] = '\0';
}

int wperf_doc_fail(struct wperf_error *err, int code, const char *file, size_t line, size_t col,
		   const char *path, const char *fmt, ...)
{
	char msg[WPERF_ERROR_MSG_LEN], where[48] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(where, sizeof(where), ":%zu:%zu", line, col);
	return wperf_error_set(err, code, "%s%s: %s%s%s", file, where, path ? path : "",
			       path && *path ? ": " : "", msg);
}

int wperf_doc_no_memory(struct wperf_error *err, const char *file)
{
	return wperf_error_set(err, -ENOMEM, "%s: out of memory", file);
}

void wperf_doc_quote(char *buf, size_t size, const char *s, size_t n)
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

void wperf_doc_key_list(char *buf, size_t size, const char *const *keys, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", keys[i]);

		len += w > 0 ? (size_t)w : 0;
	}
}

/* A bound as people write it: 1000000 rather than 1e+06. */
static void bound_text(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%g", v);
}

void wperf_doc_range_text(char *buf, size_t size, const struct wperf_doc_range *r)
{
	char lo[32], hi[32];

	bound_text(lo, sizeof(lo), r->min);
	bound_text(hi, sizeof(hi), r->max);
	if (isinf(r->min) && isinf(r->max))
		snprintf(buf, size, "a number");
	else if (isinf(r->max))
		snprintf(buf, size, "a number %s %s", r->min_open ? ">" : ">=", lo);
	else if (isinf(r->min))
		snprintf(buf, size, "a number %s %s", r->max_open ? "<" : "<=", hi);
	else
		snprintf(buf, size, "a number in %c%s, %s%c", r->min_open ? '(' : '[', lo, hi,
			 r->max_open ? ')' : ']');
}

int wperf_doc_in_range(double d, const struct wperf_doc_range *r)
{
	return d >= r->min && d <= r->max && !(r->min_open && d == r->min) &&
	       !(r->max_open && d == r->max);
}

void wperf_doc_number_text(char text[WPERF_DOC_NUMBER_LEN], double v)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(text, WPERF_DOC_NUMBER_LEN, "%.*g", digits, v);
		if (strtod(text, NULL) == v)
			break;
	}
}
