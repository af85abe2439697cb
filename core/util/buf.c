/* SPDX-License-Identifier: MIT */
/*
 * The growable byte buffer (see buf.h). Capacity doubles so that appending n
 * bytes one piece at a time costs O(n) in total.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "core/util/varint.h"

#define WPERF_BUF_MIN_CAP 64
#define HUGE_MIN_CAP	  ((size_t)8 << 20) /* 4 huge pages: smaller buffers gain too little */

void wperf_buf_init(struct wperf_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void wperf_buf_release(struct wperf_buf *b)
{
	free(b->data);
	wperf_buf_init(b);
}

int wperf_buf_reserve(struct wperf_buf *b, size_t extra)
{
	size_t need, cap;
	uint8_t *p;

	if (extra > SIZE_MAX - b->len)
		return -ENOMEM; /* len + extra would wrap */
	need = b->len + extra;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : WPERF_BUF_MIN_CAP;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM; /* realloc left the old block in place */
	b->data = p;
	b->cap = cap;
	if (cap >= HUGE_MIN_CAP)
		wperf_hugepage_hint(p, cap);
	return 0;
}

void wperf_hugepage_hint(void *p, size_t n)
{
	/* The pages p's bytes are on, whole: a block malloc mapped on its own, all of
	 * it, so that the mapping stays one and realloc can still move it with mremap
	 * (which cannot take a range over two mappings) instead of copying it. */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)p & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + n + page - 1) & ~(page - 1);

	madvise((void *)start, end - start, MADV_HUGEPAGE); /* a hint: errors do not matter */
}

void *wperf_buf_push(struct wperf_buf *b, size_t size)
{
	void *p;

	if (wperf_buf_reserve(b, size))
		return NULL;
	p = b->data + b->len;
	memset(p, 0, size);
	b->len += size;
	return p;
}

int wperf_buf_append(struct wperf_buf *b, const void *p, size_t n)
{
	int ret;

	if (n == 0)
		return 0; /* p may be NULL then; memcpy would not like it */
	ret = wperf_buf_reserve(b, n);
	if (ret)
		return ret;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int wperf_buf_append_str(struct wperf_buf *b, const char *s)
{
	return wperf_buf_append(b, s, strlen(s) + 1);
}

int wperf_buf_append_uvarint(struct wperf_buf *b, uint64_t v)
{
	int ret = wperf_buf_reserve(b, WPERF_VARINT_MAX);

	if (ret)
		return ret;
	b->len = (size_t)(wperf_uvarint_put(b->data + b->len, v) - b->data);
	return 0;
}

int wperf_buf_append_u32(struct wperf_buf *b, uint32_t v)
{
	uint8_t le[4];

	wperf_put_le32(le, v);
	return wperf_buf_append(b, le, sizeof(le));
}

int wperf_buf_append_u64(struct wperf_buf *b, uint64_t v)
{
	uint8_t le[8];

	wperf_put_le64(le, v);
	return wperf_buf_append(b, le, sizeof(le));
}

int wperf_buf_vprintf(struct wperf_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n, ret = 0;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0)
		ret = -EINVAL;
	/* Room for the NUL vsnprintf writes; it is not counted in len. */
	else if (wperf_buf_reserve(b, (size_t)n + 1) < 0)
		ret = -ENOMEM;
	if (!ret) {
		vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, again);
		b->len += n;
	}
	va_end(again);
	return ret;
}

int wperf_buf_printf(struct wperf_buf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = wperf_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return ret;
}
