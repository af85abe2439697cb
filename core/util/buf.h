/* SPDX-License-Identifier: MIT */
/*
 * The one growable byte buffer of libwperf. Every variable-length thing the
 * library builds (encoded sections, tables, strings) grows in one of these,
 * instead of ad hoc realloc calls.
 *
 * Ownership: a struct wperf_buf owns data; wperf_buf_release frees it and leaves
 * an empty buffer that can be used again. A zeroed struct is a valid empty buffer.
 */
#ifndef WPERF_BUF_H
#define WPERF_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct wperf_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

void wperf_buf_init(struct wperf_buf *b);
void wperf_buf_release(struct wperf_buf *b);

/* Makes room for extra more bytes; returns 0, or -ENOMEM (the buffer is unchanged). */
int wperf_buf_reserve(struct wperf_buf *b, size_t extra);

/*
 * Asks for huge pages for the memory of [p, p + n) (the whole pages it is on):
 * an array of hundreds of megabytes filled front to back then costs one page
 * fault per 2 MiB instead of one per 4 KiB. A hint, which the kernel may
 * ignore. wperf_buf_reserve gives it for every large buffer.
 */
void wperf_hugepage_hint(void *p, size_t n);

/* Appends a zeroed element of size bytes and returns it; NULL when out of
 * memory (the buffer is unchanged). */
void *wperf_buf_push(struct wperf_buf *b, size_t size);

/* Appends n bytes; returns 0 or -ENOMEM. */
int wperf_buf_append(struct wperf_buf *b, const void *p, size_t n);

/* Appends a string with its terminating NUL; returns 0 or -ENOMEM. */
int wperf_buf_append_str(struct wperf_buf *b, const char *s);

/* Appends an unsigned LEB128 varint (1..10 bytes); returns 0 or -ENOMEM. */
int wperf_buf_append_uvarint(struct wperf_buf *b, uint64_t v);

/* Appends fixed-width little-endian integers; return 0 or -ENOMEM. */
int wperf_buf_append_u32(struct wperf_buf *b, uint32_t v);
int wperf_buf_append_u64(struct wperf_buf *b, uint64_t v);

/* Appends printf-formatted text (no NUL kept after it); returns 0, -ENOMEM, or
 * -EINVAL for a format vsnprintf refuses. wperf_buf_vprintf leaves ap as
 * vsnprintf does (indeterminate). */
int wperf_buf_vprintf(struct wperf_buf *b, const char *fmt, va_list ap);
int wperf_buf_printf(struct wperf_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Empties the buffer but keeps its memory. */
static inline void wperf_buf_clear(struct wperf_buf *b)
{
	b->len = 0;
}

#endif /* WPERF_BUF_H */
