/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the growable buffer (core/util/buf.c), the varint encodings
 * (core/util/varint.h) and error reporting (core/util/error.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "core/util/varint.h"

static void test_empty_buffer(void **state)
{
	struct wperf_buf b = {0};

	(void)state;
	assert_null(b.data);
	assert_int_equal(wperf_buf_append(&b, NULL, 0), 0);
	assert_int_equal(b.len, 0);
	wperf_buf_release(&b); /* a zeroed buffer releases cleanly */
	wperf_buf_init(&b);
	assert_null(b.data);
	assert_int_equal(b.cap, 0);
}

static void test_append_grows(void **state)
{
	struct wperf_buf b;
	uint8_t chunk[100];

	(void)state;
	wperf_buf_init(&b);
	for (int i = 0; i < 1000; i++) {
		memset(chunk, i & 0xff, sizeof(chunk));
		assert_int_equal(wperf_buf_append(&b, chunk, sizeof(chunk)), 0);
	}
	assert_int_equal(b.len, 100000);
	assert_true(b.cap >= b.len);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(b.data[i * 100 + 99], i & 0xff);

	/* clear keeps the memory, release frees it and the buffer stays usable */
	size_t cap = b.cap;
	wperf_buf_clear(&b);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, cap);
	wperf_buf_release(&b);
	assert_null(b.data);
	assert_int_equal(wperf_buf_append_str(&b, "again"), 0);
	assert_string_equal((char *)b.data, "again");
	wperf_buf_release(&b);
}

/* Pushed elements come zeroed, in order, and keep their contents as the
 * buffer grows under them. */
static void test_push(void **state)
{
	struct wperf_buf b = {0};

	(void)state;
	for (uint32_t i = 0; i < 1000; i++) {
		uint32_t *e = wperf_buf_push(&b, 3 * sizeof(uint32_t));

		assert_non_null(e);
		assert_true(e[0] == 0 && e[1] == 0 && e[2] == 0);
		e[0] = i, e[1] = ~i, e[2] = 7 * i;
		assert_int_equal(b.len, (i + 1) * 3 * sizeof(uint32_t));
	}
	for (uint32_t i = 0; i < 1000; i++) {
		const uint32_t *e = (const uint32_t *)(const void *)b.data + 3 * i;

		assert_true(e[0] == i && e[1] == ~i && e[2] == 7 * i);
	}
	wperf_buf_release(&b);
}

static void test_reserve(void **state)
{
	struct wperf_buf b = {0};

	(void)state;
	assert_int_equal(wperf_buf_reserve(&b, 10), 0);
	assert_true(b.cap >= 10);
	assert_int_equal(b.len, 0);
	assert_int_equal(wperf_buf_append(&b, "abc", 3), 0);

	/* a size that wraps or cannot be allocated leaves the buffer as it was */
	uint8_t *data = b.data;
	size_t cap = b.cap;
	assert_int_equal(wperf_buf_reserve(&b, SIZE_MAX), -ENOMEM);
	assert_int_equal(wperf_buf_reserve(&b, SIZE_MAX - 2), -ENOMEM);
	assert_int_equal(wperf_buf_append(&b, "x", SIZE_MAX), -ENOMEM);
	assert_ptr_equal(b.data, data);
	assert_int_equal(b.cap, cap);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "abc", 3);
	wperf_buf_release(&b);
}

static void test_fixed_width(void **state)
{
	struct wperf_buf b = {0};
	static const uint8_t want[] = {0x78, 0x56, 0x34, 0x12, 0x08, 0x07, 0x06, 0x05,
				       0x04, 0x03, 0x02, 0x01, 'h',  'i',  0};

	(void)state;
	assert_int_equal(wperf_buf_append_u32(&b, 0x12345678), 0);
	assert_int_equal(wperf_buf_append_u64(&b, 0x0102030405060708ull), 0);
	assert_int_equal(wperf_buf_append_str(&b, "hi"), 0);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	assert_int_equal(wperf_get_le32(b.data), 0x12345678);
	assert_true(wperf_get_le64(b.data + 4) == 0x0102030405060708ull);
	wperf_buf_release(&b);
}

static const uint64_t uvalues[] = {
    0,
    1,
    127,
    128,
    255,
    16383,
    16384,
    2097151,
    2097152,
    UINT32_MAX,
    1ull << 35,
    1ull << 56,
    (1ull << 63) - 1,
    1ull << 63,
    UINT64_MAX - 1,
    UINT64_MAX,
};

static void test_uvarint_round_trip(void **state)
{
	struct wperf_buf b = {0};
	const size_t n = sizeof(uvalues) / sizeof(uvalues[0]);

	(void)state;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(wperf_buf_append_uvarint(&b, uvalues[i]), 0);

	const uint8_t *p = b.data, *end = b.data + b.len;
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		const uint8_t *before = p;

		assert_int_equal(wperf_uvarint_get(&p, end, &v), 0);
		assert_true(v == uvalues[i]);
		/* 7 bits a byte: the length is ceil(bits / 7), one byte for 0 */
		size_t len = 1;
		for (uint64_t x = uvalues[i] >> 7; x; x >>= 7)
			len++;
		assert_int_equal(p - before, len);
	}
	assert_ptr_equal(p, end);
	wperf_buf_release(&b);
}

static void test_svarint_round_trip(void **state)
{
	static const int64_t values[] = {0,	    -1,	      1,	 -64,	    63,
					 -65,	    64,	      INT32_MIN, INT32_MAX, INT64_MIN,
					 INT64_MAX, -1000000, 1000000};
	struct wperf_buf b = {0};
	const size_t n = sizeof(values) / sizeof(values[0]);

	(void)state;
	assert_true(wperf_zigzag(0) == 0);
	assert_true(wperf_zigzag(-1) == 1);
	assert_true(wperf_zigzag(1) == 2);
	assert_true(wperf_zigzag(INT64_MIN) == UINT64_MAX);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(wperf_buf_append_svarint(&b, values[i]), 0);
	/* small magnitudes of either sign take one byte */
	assert_int_equal(b.data[0], 0);
	assert_int_equal(b.data[1], 1);

	struct wperf_cursor c;
	wperf_cursor_init(&c, b.data, b.len);
	for (size_t i = 0; i < n; i++)
		assert_true(wperf_cur_svarint(&c) == values[i]);
	assert_int_equal(c.err, 0);
	assert_int_equal(wperf_cursor_left(&c), 0);
	wperf_buf_release(&b);
}

static void test_uvarint_truncated(void **state)
{
	uint8_t enc[WPERF_VARINT_MAX];
	uint8_t *q = wperf_uvarint_put(enc, UINT64_MAX);

	(void)state;
	assert_int_equal(q - enc, 10);
	/* every proper prefix is refused without reading past it */
	for (size_t len = 0; len < 10; len++) {
		const uint8_t *p = enc;
		uint64_t v = 42;

		assert_int_equal(wperf_uvarint_get(&p, enc + len, &v), WPERF_DEC_TRUNCATED);
		assert_ptr_equal(p, enc); /* not advanced on failure */
		assert_true(v == 42);
	}
}

static void test_uvarint_overlong(void **state)
{
	uint8_t eleven[11];
	uint8_t big10[10];
	const uint8_t *p;
	uint64_t v;

	(void)state;
	/* 11 bytes: ten with the continuation bit, then an end */
	memset(eleven, 0x80, sizeof(eleven));
	eleven[10] = 0;
	p = eleven;
	assert_int_equal(wperf_uvarint_get(&p, eleven + 11, &v), WPERF_DEC_OVERLONG);
	assert_ptr_equal(p, eleven);

	/* 10 bytes whose last carries more than the 64th bit */
	memset(big10, 0xff, sizeof(big10));
	big10[9] = 0x02;
	p = big10;
	assert_int_equal(wperf_uvarint_get(&p, big10 + 10, &v), WPERF_DEC_OVERLONG);

	/* many continuation bytes: refused after ten, whatever follows */
	uint8_t many[64];
	memset(many, 0xff, sizeof(many));
	p = many;
	assert_int_equal(wperf_uvarint_get(&p, many + sizeof(many), &v), WPERF_DEC_OVERLONG);
}

static void test_cur_count32(void **state)
{
	struct wperf_buf b = {0};
	struct wperf_cursor c;

	(void)state;
	wperf_buf_append_uvarint(&b, 3);
	wperf_buf_append_uvarint(&b, 300);
	wperf_buf_append(&b, "abc", 3);
	wperf_cursor_init(&c, b.data, b.len);
	/* 3 items of 1 byte fit in the 5 bytes left */
	assert_int_equal(wperf_cur_count32(&c, 1), 3);
	assert_int_equal(c.err, 0);
	/* 300 items cannot fit in the 3 bytes left: corrupt, and no count */
	assert_int_equal(wperf_cur_count32(&c, 1), 0);
	assert_int_equal(c.err, WPERF_DEC_TRUNCATED);
	wperf_buf_release(&b);
}

static void test_cursor(void **state)
{
	struct wperf_buf b = {0};
	struct wperf_cursor c;

	(void)state;
	wperf_buf_append_uvarint(&b, UINT32_MAX);
	wperf_buf_append_uvarint(&b, (uint64_t)UINT32_MAX + 1);
	wperf_cursor_init(&c, b.data, b.len);
	assert_true(wperf_cur_u32(&c) == UINT32_MAX);
	assert_int_equal(c.err, 0);
	assert_int_equal(wperf_cur_u32(&c), 0);
	assert_int_equal(c.err, WPERF_DEC_RANGE);
	/* sticky: later reads return zeros and do not move */
	const uint8_t *p = c.p;
	assert_true(wperf_cur_uvarint(&c) == 0);
	assert_null(wperf_cur_bytes(&c, 0));
	assert_ptr_equal(c.p, p);
	assert_int_equal(c.err, WPERF_DEC_RANGE);

	/* s32 range */
	wperf_buf_clear(&b);
	wperf_buf_append_svarint(&b, INT32_MIN);
	wperf_buf_append_svarint(&b, (int64_t)INT32_MIN - 1);
	wperf_cursor_init(&c, b.data, b.len);
	assert_int_equal(wperf_cur_s32(&c), INT32_MIN);
	wperf_cur_s32(&c);
	assert_int_equal(c.err, WPERF_DEC_RANGE);

	/* bytes and fixed-width reads stop at the end */
	static const uint8_t raw[5] = {1, 2, 3, 4, 5};
	wperf_cursor_init(&c, raw, sizeof(raw));
	assert_int_equal(wperf_cur_u8(&c), 1);
	assert_true(wperf_cur_le64(&c) == 0);
	assert_int_equal(c.err, WPERF_DEC_TRUNCATED);
	wperf_cursor_init(&c, raw, sizeof(raw));
	assert_ptr_equal(wperf_cur_bytes(&c, 5), raw);
	assert_null(wperf_cur_bytes(&c, 1));

	/* a count that the bytes left cannot hold is refused before any allocation */
	wperf_buf_clear(&b);
	wperf_buf_append_uvarint(&b, 3);
	wperf_buf_append(&b, "abcdef", 6);
	wperf_cursor_init(&c, b.data, b.len);
	assert_int_equal(wperf_cur_count(&c, 2), 3);
	wperf_cursor_init(&c, b.data, b.len);
	assert_int_equal(wperf_cur_count(&c, 3), 0);
	assert_int_equal(c.err, WPERF_DEC_TRUNCATED);
	wperf_buf_clear(&b);
	wperf_buf_append_uvarint(&b, UINT64_MAX);
	wperf_cursor_init(&c, b.data, b.len);
	assert_int_equal(wperf_cur_count(&c, 1), 0);
	assert_int_equal(c.err, WPERF_DEC_TRUNCATED);
	wperf_buf_release(&b);
}

static void test_error_set(void **state)
{
	struct wperf_error err = {0};
	char big[2 * WPERF_ERROR_MSG_LEN];

	(void)state;
	assert_int_equal(wperf_error_set(NULL, -EIO, "nobody listens"), -EIO);
	assert_int_equal(wperf_error_set(&err, -ENOENT, "%s: %d", "file", 42), -ENOENT);
	assert_int_equal(err.code, -ENOENT);
	assert_string_equal(err.msg, "file: 42");

	/* a message longer than the buffer is cut, and still terminated */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	wperf_error_set(&err, -EINVAL, "%s", big);
	assert_int_equal(strlen(err.msg), WPERF_ERROR_MSG_LEN - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty_buffer),
	    cmocka_unit_test(test_append_grows),
	    cmocka_unit_test(test_push),
	    cmocka_unit_test(test_reserve),
	    cmocka_unit_test(test_fixed_width),
	    cmocka_unit_test(test_uvarint_round_trip),
	    cmocka_unit_test(test_svarint_round_trip),
	    cmocka_unit_test(test_uvarint_truncated),
	    cmocka_unit_test(test_uvarint_overlong),
	    cmocka_unit_test(test_cursor),
	    cmocka_unit_test(test_cur_count32),
	    cmocka_unit_test(test_error_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
