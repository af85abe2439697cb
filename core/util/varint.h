/* SPDX-License-Identifier: MIT */
/*
 * Integer encodings of the trace format: LEB128 unsigned varints, zigzag signed
 * varints and fixed-width little-endian integers, plus a bounds-checked cursor
 * to decode them from untrusted bytes.
 *
 * Decoding never reads at or past end. A cursor remembers its first failure and
 * then returns zeros, so a decoder can read a whole record and check once at the
 * end (the style of libbpf's btf parsing), without a test after every field.
 */
#ifndef WPERF_VARINT_H
#define WPERF_VARINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"

#define WPERF_VARINT_MAX 10 /* bytes of the longest uvarint (64 bits / 7, rounded up) */

/* Why a decode failed (0: it did not). */
enum wperf_decode_error {
	WPERF_DEC_OK = 0,
	WPERF_DEC_TRUNCATED = 1, /* the value runs past the end of its bytes */
	WPERF_DEC_OVERLONG = 2,	 /* a varint longer than 10 bytes or above 2^64-1 */
	WPERF_DEC_RANGE = 3,	 /* a value too large for its field */
};

static inline const char *wperf_decode_strerror(int e)
{
	switch (e) {
	case WPERF_DEC_OK:
		return "no error";
	case WPERF_DEC_TRUNCATED:
		return "a field runs past the end of its data";
	case WPERF_DEC_OVERLONG:
		return "overlong varint";
	case WPERF_DEC_RANGE:
		return "a value is out of range for its field";
	}
	return "unknown decode error";
}

/* ---- encoding ---- */

/* Zigzag maps small negative numbers to small unsigned ones: 0,-1,1,-2 -> 0,1,2,3. */
static inline uint64_t wperf_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t wperf_unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* Writes v at q, which has room for WPERF_VARINT_MAX bytes; returns the end. */
static inline uint8_t *wperf_uvarint_put(uint8_t *q, uint64_t v)
{
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	return q;
}

static inline uint8_t *wperf_svarint_put(uint8_t *q, int64_t v)
{
	return wperf_uvarint_put(q, wperf_zigzag(v));
}

static inline void wperf_put_le16(uint8_t *q, uint16_t v)
{
	q[0] = (uint8_t)v;
	q[1] = (uint8_t)(v >> 8);
}

static inline void wperf_put_le32(uint8_t *q, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		q[i] = (uint8_t)(v >> (8 * i));
}

static inline void wperf_put_le64(uint8_t *q, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		q[i] = (uint8_t)(v >> (8 * i));
}

static inline int wperf_buf_append_svarint(struct wperf_buf *b, int64_t v)
{
	return wperf_buf_append_uvarint(b, wperf_zigzag(v));
}

/* ---- decoding ---- */

/* Reads fixed-width integers; the caller has checked that the bytes are there. */
static inline uint16_t wperf_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t wperf_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t wperf_get_le64(const uint8_t *p)
{
	return (uint64_t)wperf_get_le32(p) | (uint64_t)wperf_get_le32(p + 4) << 32;
}

/*
 * Decodes the uvarint at *p, reading no byte at or past end. Returns 0 and
 * advances *p, or a WPERF_DEC_* error and leaves *p alone. The tenth byte may
 * only carry the top bit of a 64-bit value; anything longer is overlong.
 */
static inline int wperf_uvarint_get(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	const uint8_t *q = *p;
	uint64_t v = 0;

	for (unsigned shift = 0;; shift += 7) {
		if (q >= end)
			return WPERF_DEC_TRUNCATED;
		uint8_t c = *q++;
		if (shift == 63 && c > 1)
			return WPERF_DEC_OVERLONG; /* an 11th byte, or bits above 2^64 */
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
	}
	*p = q;
	*out = v;
	return 0;
}

/* A bounds-checked reader over [p, end) that keeps its first error in err. */
struct wperf_cursor {
	const uint8_t *p;
	const uint8_t *end;
	int err; /* WPERF_DEC_*: once set, every read returns 0 and p stays put */
};

static inline void wperf_cursor_init(struct wperf_cursor *c, const void *p, size_t n)
{
	c->p = (const uint8_t *)p;
	c->end = c->p + n;
	c->err = 0;
}

static inline size_t wperf_cursor_left(const struct wperf_cursor *c)
{
	return (size_t)(c->end - c->p);
}

static inline void wperf_cursor_fail(struct wperf_cursor *c, int e)
{
	if (!c->err)
		c->err = e;
}

static inline uint64_t wperf_cur_uvarint(struct wperf_cursor *c)
{
	uint64_t v;
	int e;

	if (c->err)
		return 0;
	/* Fast path: most fields are one byte. */
	if (c->p < c->end && *c->p < 0x80)
		return *c->p++;
	e = wperf_uvarint_get(&c->p, c->end, &v);
	if (e) {
		c->err = e;
		return 0;
	}
	return v;
}

static inline int64_t wperf_cur_svarint(struct wperf_cursor *c)
{
	return wperf_unzigzag(wperf_cur_uvarint(c));
}

/* A uvarint that must fit in 32 bits. */
static inline uint32_t wperf_cur_u32(struct wperf_cursor *c)
{
	uint64_t v = wperf_cur_uvarint(c);

	if (v > UINT32_MAX) {
		wperf_cursor_fail(c, WPERF_DEC_RANGE);
		return 0;
	}
	return (uint32_t)v;
}

/* An svarint that must fit in 32 bits. */
static inline int32_t wperf_cur_s32(struct wperf_cursor *c)
{
	int64_t v = wperf_cur_svarint(c);

	if (v < INT32_MIN || v > INT32_MAX) {
		wperf_cursor_fail(c, WPERF_DEC_RANGE);
		return 0;
	}
	return (int32_t)v;
}

/*
 * Returns a pointer to the next n bytes and skips them, or NULL if they are not
 * all there. n is 64-bit so that a length read from the file is never truncated.
 */
static inline const uint8_t *wperf_cur_bytes(struct wperf_cursor *c, uint64_t n)
{
	const uint8_t *q = c->p;

	if (c->err)
		return NULL;
	if (n > wperf_cursor_left(c)) {
		c->err = WPERF_DEC_TRUNCATED;
		return NULL;
	}
	c->p += n;
	return q;
}

static inline uint8_t wperf_cur_u8(struct wperf_cursor *c)
{
	const uint8_t *q = wperf_cur_bytes(c, 1);

	return q ? *q : 0;
}

static inline uint64_t wperf_cur_le64(struct wperf_cursor *c)
{
	const uint8_t *q = wperf_cur_bytes(c, 8);

	return q ? wperf_get_le64(q) : 0;
}

/*
 * A count of items that each take at least min_size bytes: a count that cannot
 * fit in the bytes left is corrupt, and refusing it here keeps a decoder from
 * allocating for it.
 */
static inline uint64_t wperf_cur_count(struct wperf_cursor *c, size_t min_size)
{
	uint64_t n = wperf_cur_uvarint(c);

	if (n > wperf_cursor_left(c) / min_size) {
		wperf_cursor_fail(c, WPERF_DEC_TRUNCATED);
		return 0;
	}
	return n;
}

/* A count as wperf_cur_count that must also fit in a uint32_t (frames, CPUs, a
 * row's fields): a larger one fails the cursor with WPERF_DEC_RANGE. 0 on failure. */
static inline uint32_t wperf_cur_count32(struct wperf_cursor *c, size_t min_size)
{
	uint64_t n = wperf_cur_count(c, min_size);

	if (n > UINT32_MAX) {
		wperf_cursor_fail(c, WPERF_DEC_RANGE);
		return 0;
	}
	return (uint32_t)n;
}

#endif /* WPERF_VARINT_H */
