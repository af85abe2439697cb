/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the trace file: writer and reader round trips of every event
 * kind and every table, the event record codec, and the reader's refusal of
 * corrupt files (each refusal must name the byte offset).
 *
 * Traces go to a temporary directory under /tmp, removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "core/util/buf.h"
#include "core/trace/event_codec.h"
#include "core/trace/meta.h"
#include "core/trace/trace.h"
#include "core/util/varint.h"
#include "tests/lib/trace_builder.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/wperf-test-trace-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	char p[512];

	(void)state;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmpdir, de->d_name);
		unlink(p);
	}
	closedir(d);
	return rmdir(tmpdir);
}

/* A path in the temporary directory; each caller passes its own storage. */
static const char *tpath(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
	return buf;
}

#define TPATH(name) tpath((char[512]){0}, 512, name)

/* Fails the test, showing the message, unless msg contains needle. */
#define assert_msg_has(msg, needle)                                                                \
	do {                                                                                       \
		if (!strstr((msg), (needle)))                                                      \
			fail_msg("error message \"%s\" lacks \"%s\"", (msg), (needle));            \
	} while (0)

/* ---- writing and reading helpers ---- */

static int create_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	return fd;
}

static void write_trace(const char *path, const struct wperf_writer_opts *opts,
			const struct wperf_event *evs, size_t n,
			const struct wperf_trace_stats *stats)
{
	static const char *const keys[] = {WPERF_META_KERNEL, WPERF_META_NCPU};
	static const char *const values[] = {"6.1.0-test", "4"};
	struct wperf_trace_writer *w;
	struct wperf_error err = {0};
	int fd = create_file(path);

	assert_int_equal(wperf_trace_writer_new(fd, opts, &w, &err), 0);
	assert_int_equal(wperf_trace_writer_meta(w, keys, values, 2, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(wperf_trace_writer_event(w, &evs[i], &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, stats, &err), 0);
	assert_int_equal(wperf_trace_writer_offset(w), lseek(fd, 0, SEEK_END));
	wperf_trace_writer_free(w);
	close(fd);
}

/* Reads every event of path into out (max of them); returns how many. */
static size_t read_events(const char *path, struct wperf_event *out, size_t max)
{
	struct wperf_trace *t;
	struct wperf_event_iter *it;
	struct wperf_error err = {0};
	struct wperf_event ev;
	size_t n = 0;
	int ret;

	ret = wperf_trace_open(path, &t, &err);
	if (ret)
		fail_msg("open: %s", err.msg);
	assert_int_equal(wperf_event_iter_new(t, &it, &err), 0);
	while ((ret = wperf_event_iter_next(it, &ev, &err)) == 1) {
		if (n < max)
			out[n] = ev;
		n++;
	}
	if (ret)
		fail_msg("iterate: %s", err.msg);
	assert_int_equal(wperf_event_iter_next(it, &ev, &err), 0); /* the end stays the end */
	wperf_event_iter_free(it);
	wperf_trace_free(t);
	return n;
}

static void spit(const char *path, const void *p, size_t len)
{
	int fd = create_file(path);

	assert_int_equal(write(fd, p, len), (ssize_t)len);
	close(fd);
}

/* A section of a file we wrote ourselves (so walking it needs no checks). */
struct sec {
	size_t off;
	uint32_t kind, flags;
	uint64_t stored, raw;
};

static size_t walk(const uint8_t *f, size_t len, struct sec *out, size_t max)
{
	size_t off = WPERF_TRACE_HEADER_SIZE, n = 0;

	while (off + WPERF_SECTION_HEADER_SIZE <= len && n < max) {
		struct sec *s = &out[n++];

		s->off = off;
		s->kind = wperf_get_le32(f + off);
		s->flags = wperf_get_le32(f + off + 4);
		s->stored = wperf_get_le64(f + off + 8);
		s->raw = wperf_get_le64(f + off + 16);
		off += WPERF_SECTION_HEADER_SIZE + s->stored;
	}
	return n;
}

static const struct sec *find_sec(const struct sec *s, size_t n, uint32_t kind)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].kind == kind)
			return &s[i];
	fail_msg("no section of kind %u", kind);
	return NULL;
}

static void fix_crc(uint8_t *f, const struct sec *s)
{
	const uint8_t *payload = f + s->off + WPERF_SECTION_HEADER_SIZE;

	wperf_put_le32(f + s->off + 24, (uint32_t)crc32(0, payload, (uInt)s->stored));
}

/* ---- hand-made traces ---- */

static void craft_header(struct wperf_buf *b, uint16_t major)
{
	uint8_t h[WPERF_TRACE_HEADER_SIZE];

	memcpy(h, WPERF_TRACE_MAGIC, 8);
	wperf_put_le16(h + 8, major);
	wperf_put_le16(h + 10, WPERF_TRACE_MINOR);
	wperf_put_le32(h + 12, WPERF_TRACE_HEADER_SIZE);
	wperf_buf_append(b, h, sizeof(h));
}

static void craft_section(struct wperf_buf *b, uint32_t kind, uint32_t flags, const void *p,
			  size_t n, uint64_t raw)
{
	uint8_t h[WPERF_SECTION_HEADER_SIZE];

	wperf_put_le32(h, kind);
	wperf_put_le32(h + 4, flags);
	wperf_put_le64(h + 8, n);
	wperf_put_le64(h + 16, raw);
	wperf_put_le32(h + 24, (uint32_t)crc32(0, p, (uInt)n));
	wperf_put_le32(h + 28, 0);
	wperf_buf_append(b, h, sizeof(h));
	wperf_buf_append(b, p, n);
}

static void craft_end(struct wperf_buf *b, uint64_t nsections, uint64_t nevents)
{
	uint8_t end[16];

	wperf_put_le64(end, nsections);
	wperf_put_le64(end + 8, nevents);
	craft_section(b, WPERF_SECTION_END, 0, end, sizeof(end), sizeof(end));
}

/* A file: header, one uncompressed EVENTS section with payload, END promising nevents. */
static void craft_events_file(const char *path, const struct wperf_buf *payload, uint64_t nevents)
{
	struct wperf_buf f = {0};

	craft_header(&f, WPERF_TRACE_MAJOR);
	craft_section(&f, WPERF_SECTION_EVENTS, 0, payload->data, payload->len, payload->len);
	craft_end(&f, 1, nevents);
	spit(path, f.data, f.len);
	wperf_buf_release(&f);
}

static void expect_open_error(const char *path, const char *needle)
{
	struct wperf_trace *t = (void *)1;
	struct wperf_error err = {0};
	int ret = wperf_trace_open(path, &t, &err);

	if (ret == 0)
		fail_msg("%s opened, but it is corrupt", path);
	assert_true(ret < 0);
	assert_null(t);
	assert_int_equal(err.code, ret);
	assert_msg_has(err.msg, path);
	assert_msg_has(err.msg, "offset");
	if (needle)
		assert_msg_has(err.msg, needle);
}

/* Opens path (which must open) and iterates until an error naming needle. */
static void expect_iter_error(const char *path, const char *needle, size_t events_before)
{
	struct wperf_trace *t;
	struct wperf_event_iter *it;
	struct wperf_error err = {0}, again = {0};
	struct wperf_event ev;
	size_t n = 0;
	int ret;

	ret = wperf_trace_open(path, &t, &err);
	if (ret)
		fail_msg("open: %s", err.msg);
	assert_int_equal(wperf_event_iter_new(t, &it, &err), 0);
	while ((ret = wperf_event_iter_next(it, &ev, &err)) == 1)
		n++;
	assert_true(ret < 0);
	assert_int_equal(n, events_before);
	assert_msg_has(err.msg, path);
	assert_msg_has(err.msg, "offset");
	assert_msg_has(err.msg, needle);
	/* the error sticks */
	assert_int_equal(wperf_event_iter_next(it, &ev, &again), ret);
	assert_string_equal(again.msg, err.msg);
	wperf_event_iter_free(it);
	wperf_trace_free(t);
}

/* ---- tests: events ---- */

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(wperf_event_kind_name(WPERF_EV_SWITCH), "switch");
	assert_string_equal(wperf_event_kind_name(WPERF_EV_WAKEUP_NEW), "wakeup_new");
	assert_string_equal(wperf_event_kind_name(WPERF_EV_FALSE_WAKEUP), "false_wakeup");
	assert_string_equal(wperf_event_kind_name(0), "unknown");
	assert_string_equal(wperf_event_kind_name(WPERF_EV_KIND_MAX), "unknown");
	assert_string_equal(wperf_event_kind_name(1000), "unknown");
	for (unsigned k = 1; k < WPERF_EV_KIND_MAX; k++)
		assert_string_not_equal(wperf_event_kind_name(k), "unknown");
}

static void round_trip_all_kinds(int compress)
{
	struct wperf_writer_opts opts = {.compress = compress};
	struct wperf_event evs[80], got[80];
	size_t n = tb_all_kinds(evs, 80);
	const char *path = TPATH(compress ? "kinds-z.trace" : "kinds.trace");

	write_trace(path, &opts, evs, n, NULL);
	assert_int_equal(read_events(path, got, 80), n);
	for (size_t i = 0; i < n; i++)
		tb_assert_event_equal(&evs[i], &got[i]);

	/* the writer's counts by kind, and the sections' compression flags */
	struct wperf_trace *t;
	struct wperf_error err = {0};
	assert_int_equal(wperf_trace_open(path, &t, &err), 0);
	const struct wperf_trace_stats *st = wperf_trace_stats(t);
	assert_true(st->events[0] == 0);
	for (unsigned k = 1; k < WPERF_EV_KIND_MAX; k++)
		assert_true(st->events[k] == 3 + 2 * (k == WPERF_EV_EXIT));
	wperf_trace_free(t);

	size_t len;
	struct sec secs[16];
	uint8_t *f = (uint8_t *)tb_read_file(path, &len);
	size_t ns = walk(f, len, secs, 16);
	assert_int_equal(find_sec(secs, ns, WPERF_SECTION_EVENTS)->flags,
			 compress ? WPERF_SECTION_ZSTD : 0);
	assert_int_equal(secs[ns - 1].kind, WPERF_SECTION_END);
	free(f);
}

static void test_round_trip_compressed(void **state)
{
	(void)state;
	round_trip_all_kinds(1);
}

static void test_round_trip_uncompressed(void **state)
{
	(void)state;
	round_trip_all_kinds(0);
}

/* The codec alone: trailing body bytes are skipped, a short body is refused. */
static void test_codec_body_rules(void **state)
{
	struct wperf_buf b = {0};
	struct wperf_event ev, got;
	uint64_t prev = 100, dprev;
	const uint8_t *p;
	const char *why = NULL;

	(void)state;
	tb_fill_event(&ev, WPERF_EV_WAKEUP, 1, 5000);
	assert_int_equal(wperf_event_encode(&b, &ev, &prev), 0);
	assert_true(prev == 5000);
	assert_true(b.len <= WPERF_RECORD_MAX);

	/* three bytes a later minor might append: ignored */
	wperf_buf_append(&b, "\x01\x02\x03", 3);
	b.data[1] += 3;
	p = b.data;
	dprev = 100;
	assert_int_equal(wperf_event_decode(&p, b.data + b.len, &dprev, &got, &why), 1);
	assert_ptr_equal(p, b.data + b.len);
	tb_assert_event_equal(&ev, &got);

	/* every shorter body length: the fields overrun it */
	for (uint8_t len = 0; len < b.data[1] - 3; len++) {
		struct wperf_buf c = {0};

		wperf_buf_append(&c, b.data, b.len);
		c.data[1] = len;
		p = c.data;
		dprev = 100;
		assert_int_equal(wperf_event_decode(&p, c.data + c.len, &dprev, &got, &why),
				 -EBADMSG);
		assert_ptr_equal(p, c.data);
		assert_non_null(why);
		wperf_buf_release(&c);
	}

	/* an unknown kind given to the encoder */
	ev.hdr.kind = 0;
	assert_int_equal(wperf_event_encode(&b, &ev, &prev), -EINVAL);
	ev.hdr.kind = WPERF_EV_KIND_MAX;
	assert_int_equal(wperf_event_encode(&b, &ev, &prev), -EINVAL);
	wperf_buf_release(&b);
}

/* A BLOCK_* body of format 1.0 ends before rq and jiffies: it decodes with both
 * 0 and every other field as written. */
static void test_codec_block_1_0(void **state)
{
	struct wperf_buf b = {0};
	struct wperf_event ev, got;
	uint64_t prev = 100;
	const uint8_t *p;
	const char *why = NULL;
	uint8_t tail[20];
	size_t cut;

	(void)state;
	tb_fill_event(&ev, WPERF_EV_BLOCK_COMPLETE, 0, 5000);
	assert_int_equal(wperf_event_encode(&b, &ev, &prev), 0);
	cut = (size_t)(wperf_uvarint_put(wperf_uvarint_put(tail, ev.block.rq), ev.block.jiffies) -
		       tail);
	b.len -= cut;
	b.data[1] -= (uint8_t)cut;
	p = b.data;
	prev = 100;
	assert_int_equal(wperf_event_decode(&p, b.data + b.len, &prev, &got, &why), 1);
	assert_ptr_equal(p, b.data + b.len);
	ev.block.rq = ev.block.jiffies = 0;
	tb_assert_event_equal(&ev, &got);
	wperf_buf_release(&b);
}

/*
 * Decodes the record rec[0, n) twice: alone (the checked decoder: too close to
 * the end of the section for the fast one) and followed by bytes of filler (the
 * fast one, for a switch or a wakeup). Both must agree, on an error too.
 */
static void decode_both_ways(const uint8_t *rec, size_t n, uint8_t filler)
{
	uint8_t alone[WPERF_RECORD_MAX], padded[WPERF_RECORD_MAX + 128];
	struct wperf_event ev1, ev2;
	const uint8_t *p1 = alone, *p2 = padded;
	const char *why1 = NULL, *why2 = NULL;
	uint64_t prev1 = 1000, prev2 = 1000;
	int r1, r2;

	assert_true(n <= WPERF_RECORD_MAX);
	memcpy(alone, rec, n);
	memcpy(padded, rec, n);
	memset(padded + n, filler, sizeof(padded) - n);
	r1 = wperf_event_decode(&p1, alone + n, &prev1, &ev1, &why1);
	r2 = wperf_event_decode(&p2, padded + sizeof(padded), &prev2, &ev2, &why2);
	assert_int_equal(r1, r2);
	assert_int_equal(p1 - alone, p2 - padded);
	assert_true(prev1 == prev2);
	if (r1 == 1)
		assert_memory_equal(&ev1, &ev2, sizeof(ev1));
	if (r1 < 0)
		assert_string_equal(why1, why2);
}

/* The decoder's fast path for switches and wakeups reads what the checked one
 * does, valid or not: fields of every length, then every byte of the records
 * changed and every shorter body length. */
static void test_codec_fast_path(void **state)
{
	static const uint64_t mags[] = {
	    0, 1, 127, 128, 16383, 16384, (1u << 21), (1u << 28), UINT32_MAX - 1, UINT32_MAX};
	static const uint64_t deltas[] = {0,	      1,	  1000,		  1ull << 33,
					  1ull << 34, 1ull << 40, (uint64_t)-5000};
	static const unsigned kinds[] = {WPERF_EV_SWITCH, WPERF_EV_WAKEUP, WPERF_EV_WAKEUP_NEW};
	static const uint8_t fillers[] = {0x00, 0x80, 0xff};

	(void)state;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t m = 0; m < sizeof(mags) / sizeof(mags[0]); m++)
			for (size_t d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++) {
				struct wperf_event ev;
				struct wperf_buf b = {0};
				uint64_t prev = 1000;
				uint32_t u = (uint32_t)mags[m];
				int32_t s = (int32_t)(m % 2 ? u : -(int64_t)(u / 2) - 1);

				tb_fill_event(&ev, kinds[k], 0, 1000 + deltas[d]);
				ev.hdr.cpu = u;
				ev.hdr.tid = ev.hdr.tgid = u;
				ev.sw = (struct wperf_switch){u, u, u, s, s};
				if (kinds[k] != WPERF_EV_SWITCH)
					ev.wake = (struct wperf_wakeup){u, u, s, u, s, s};
				assert_int_equal(wperf_event_encode(&b, &ev, &prev), 0);
				for (size_t f = 0; f < sizeof(fillers); f++) {
					decode_both_ways(b.data, b.len, fillers[f]);
					for (size_t i = 2; i < b.len; i++) { /* every body byte */
						uint8_t keep = b.data[i];

						for (unsigned v = 0; v < 256; v += 0x3f) {
							b.data[i] = (uint8_t)v;
							decode_both_ways(b.data, b.len, fillers[f]);
						}
						b.data[i] = keep;
					}
					for (uint8_t len = 0; len < b.data[1]; len++) {
						uint8_t keep = b.data[1];

						b.data[1] = len;
						decode_both_ways(b.data, b.len, fillers[f]);
						b.data[1] = keep;
					}
				}
				wperf_buf_release(&b);
			}
}

static void test_multi_section(void **state)
{
	enum { N = 10007, PER = 1000 };
	struct wperf_writer_opts opts = {.compress = 1, .events_per_section = PER};
	struct wperf_event *evs = calloc(N, sizeof(*evs)), *got = calloc(N, sizeof(*got));
	const char *path = TPATH("multi.trace");

	(void)state;
	for (size_t i = 0; i < N; i++)
		tb_fill_event(&evs[i], 1 + i % (WPERF_EV_KIND_MAX - 1), i % 3, 1000 + i * 1234);
	write_trace(path, &opts, evs, N, NULL);
	assert_int_equal(read_events(path, got, N), N);
	for (size_t i = 0; i < N; i++)
		tb_assert_event_equal(&evs[i], &got[i]);

	size_t len, nev = 0;
	struct sec secs[64];
	uint8_t *f = (uint8_t *)tb_read_file(path, &len);
	size_t ns = walk(f, len, secs, 64);
	for (size_t i = 0; i < ns; i++)
		nev += secs[i].kind == WPERF_SECTION_EVENTS;
	assert_int_equal(nev, (N + PER - 1) / PER);
	free(f);
	free(evs);
	free(got);
}

static void test_default_options(void **state)
{
	enum { N = 70000 };
	struct wperf_event *evs = calloc(N, sizeof(*evs));
	const char *path = TPATH("defaults.trace");

	(void)state;
	for (size_t i = 0; i < N; i++)
		tb_fill_event(&evs[i], WPERF_EV_SWITCH, 0, i * 1000);
	write_trace(path, NULL, evs, N, NULL);
	assert_int_equal(read_events(path, NULL, 0), N);

	/* 65536 events in the first section, the rest in a second, both zstd */
	size_t len;
	struct sec secs[16];
	uint8_t *f = (uint8_t *)tb_read_file(path, &len);
	size_t ns = walk(f, len, secs, 16);
	const struct sec *ev = find_sec(secs, ns, WPERF_SECTION_EVENTS);
	assert_int_equal(ev->flags, WPERF_SECTION_ZSTD);
	assert_int_equal(ev[1].kind, WPERF_SECTION_EVENTS);
	assert_int_equal(ev[1].flags, WPERF_SECTION_ZSTD);
	free(f);
	free(evs);
}

static void test_late_events(void **state)
{
	static const uint64_t ts[] = {100, 200, 150, 300, 300, 299, 10, 400};
	struct wperf_event evs[8], got[8];
	struct wperf_trace *t;
	struct wperf_error err = {0};
	const char *path = TPATH("late.trace");
	struct wperf_writer_opts opts = {.compress = 1, .events_per_section = 3};

	(void)state;
	for (size_t i = 0; i < 8; i++)
		tb_fill_event(&evs[i], WPERF_EV_WAKEUP, 0, ts[i]);
	write_trace(path, &opts, evs, 8, NULL);
	assert_int_equal(wperf_trace_open(path, &t, &err), 0);
	/* 150 < 200, 299 < 300, 10 < 299: an equal ts is not late; across sections too */
	assert_true(wperf_trace_stats(t)->late_events == 3);
	assert_true(wperf_trace_stats(t)->events[WPERF_EV_WAKEUP] == 8);
	wperf_trace_free(t);
	assert_int_equal(read_events(path, got, 8), 8);
	for (size_t i = 0; i < 8; i++)
		assert_true(got[i].hdr.ts == ts[i]);
}

/* ---- tests: tables ---- */

static const uint64_t kips[] = {0xffffffff81234567ull, 0xffffffff81000010ull,
				0xffffffffc0a01234ull};
static const uint64_t uips[] = {0x7f12345678aull, 0x55d0c0de0000ull, 0x7f1234500000ull, 0};

static void write_tables(const char *path, int compress)
{
	static const char *const keys[] = {WPERF_META_KERNEL, WPERF_META_NCPU, WPERF_META_COMMAND,
					   "empty"};
	static const char *const values[] = {"6.1.0-18-amd64", "4", "./bench --fast", ""};
	struct wperf_thread th[300];
	struct wperf_stack st[] = {
	    {.id = 7, .user = 0, .nr = 3, .ips = kips},
	    {.id = 7, .user = 1, .nr = 4, .ips = uips},
	    {.id = 0, .user = 1, .nr = 0, .ips = NULL},
	    {.id = -5, .user = 0, .nr = 1, .ips = kips + 2},
	    {.id = INT32_MAX, .user = 1, .nr = 2, .ips = uips + 1},
	};
	struct wperf_mapping m1[] = {
	    {.tgid = 4242,
	     .start = 0x55d0c0de0000,
	     .end = 0x55d0c0e00000,
	     .pgoff = 0x1000,
	     .build_id_len = 20,
	     .path = "/usr/bin/bench"},
	    {.tgid = 4242,
	     .start = 0x7f1234500000,
	     .end = 0x7f1234700000,
	     .pgoff = 0,
	     .build_id_len = 0,
	     .path = "/usr/lib/x86_64-linux-gnu/libc.so.6"},
	};
	struct wperf_mapping m2[] = {
	    {.tgid = 99,
	     .start = 0x400000,
	     .end = 0x401000,
	     .pgoff = UINT64_MAX,
	     .build_id_len = 8,
	     .path = ""},
	};
	struct wperf_ksym ks[] = {
	    {0xffffffff81234560ull, "schedule+0x7"},
	    {0xffffffff81000000ull, "__x64_sys_futex+0x10"},
	    {0, ""},
	};
	static const char pm_text[] = "7f0000001000 40 jitted_fn_a\n7f0000001040 80 b\n";
	struct wperf_perfmap pm[] = {{1234, pm_text, sizeof(pm_text) - 1}, {77, "", 0}};
	uint64_t lost[6] = {0, 5, UINT64_MAX, 0, 1, 2};
	struct wperf_trace_stats stats = {.start_ts = 111,
					  .end_ts = UINT64_MAX - 1,
					  .ncpu = 6,
					  .lost = lost,
					  .stack_lost = 33,
					  .stack_fault = 44,
					  /* the writer's own figures replace these */
					  .late_events = 999,
					  .events = {5, 5, 5}};
	struct wperf_writer_opts opts = {.compress = compress};
	struct wperf_trace_writer *w;
	struct wperf_error err = {0};
	struct wperf_event ev;
	int fd = create_file(path);

	for (int i = 0; i < 20; i++)
		m1[0].build_id[i] = (uint8_t)(0xa0 + i);
	for (int i = 0; i < 8; i++)
		m2[0].build_id[i] = (uint8_t)(i * 31);
	for (unsigned i = 0; i < 300; i++) {
		th[i] = (struct wperf_thread){.tid = 10000 + i, .tgid = 10000 + i / 10, .ppid = i};
		snprintf(th[i].comm, sizeof(th[i].comm), "thread-%u", i);
	}
	strcpy(th[299].comm, "fifteen-chars-x");
	th[298].comm[0] = 0;

	assert_int_equal(wperf_trace_writer_new(fd, &opts, &w, &err), 0);
	assert_int_equal(wperf_trace_writer_meta(w, keys, values, 4, &err), 0);
	tb_fill_event(&ev, WPERF_EV_SWITCH, 0, 5);
	assert_int_equal(wperf_trace_writer_event(w, &ev, &err), 0);
	assert_int_equal(wperf_trace_writer_flush(w, &err), 0);
	assert_int_equal(wperf_trace_writer_threads(w, th, 300, &err), 0);
	assert_int_equal(wperf_trace_writer_stacks(w, st, 5, &err), 0);
	assert_int_equal(wperf_trace_writer_mappings(w, m1, 2, &err), 0);
	assert_int_equal(wperf_trace_writer_ksyms(w, ks, 3, &err), 0);
	assert_int_equal(wperf_trace_writer_perfmap(w, &pm[0], &err), 0);
	assert_int_equal(wperf_trace_writer_event(w, &ev, &err), 0);
	assert_int_equal(wperf_trace_writer_mappings(w, m2, 1, &err), 0);
	assert_int_equal(wperf_trace_writer_perfmap(w, &pm[1], &err), 0);
	assert_int_equal(wperf_trace_writer_threads(w, NULL, 0, &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, &stats, &err), 0);
	wperf_trace_writer_free(w);
	close(fd);
}

static void check_tables(const char *path)
{
	struct wperf_trace *t;
	struct wperf_error err = {0};
	size_t n;

	if (wperf_trace_open(path, &t, &err))
		fail_msg("open: %s", err.msg);
	assert_int_equal(wperf_trace_version_minor(t), WPERF_TRACE_MINOR);

	/* META */
	assert_int_equal(wperf_trace_meta_count(t), 4);
	assert_string_equal(wperf_trace_meta(t, WPERF_META_KERNEL), "6.1.0-18-amd64");
	assert_string_equal(wperf_trace_meta(t, WPERF_META_COMMAND), "./bench --fast");
	assert_string_equal(wperf_trace_meta(t, "empty"), "");
	assert_null(wperf_trace_meta(t, "nope"));
	const char *k, *v;
	wperf_trace_meta_at(t, 1, &k, &v);
	assert_string_equal(k, WPERF_META_NCPU);
	assert_string_equal(v, "4");

	/* THREADS: both sections, in order */
	const struct wperf_thread *th = wperf_trace_threads(t, &n);
	assert_int_equal(n, 300);
	for (unsigned i = 0; i < 300; i++) {
		char comm[WPERF_COMM_LEN];

		assert_int_equal(th[i].tid, 10000 + i);
		assert_int_equal(th[i].tgid, 10000 + i / 10);
		assert_int_equal(th[i].ppid, i);
		snprintf(comm, sizeof(comm), "thread-%u", i);
		if (i == 299)
			strcpy(comm, "fifteen-chars-x");
		if (i == 298)
			comm[0] = 0;
		assert_string_equal(th[i].comm, comm);
	}

	/* STACKS: lookup by (id, user) */
	const struct wperf_stack *st = wperf_trace_stacks(t, &n);
	assert_int_equal(n, 5);
	(void)st;
	const struct wperf_stack *s = wperf_trace_stack(t, 7, 0);
	assert_non_null(s);
	assert_int_equal(s->user, 0);
	assert_int_equal(s->nr, 3);
	assert_memory_equal(s->ips, kips, sizeof(kips));
	s = wperf_trace_stack(t, 7, 1);
	assert_non_null(s);
	assert_int_equal(s->user, 1);
	assert_int_equal(s->nr, 4);
	assert_memory_equal(s->ips, uips, sizeof(uips));
	s = wperf_trace_stack(t, 0, 1);
	assert_non_null(s);
	assert_int_equal(s->nr, 0);
	s = wperf_trace_stack(t, -5, 0);
	assert_non_null(s);
	assert_int_equal(s->nr, 1);
	assert_true(s->ips[0] == kips[2]);
	s = wperf_trace_stack(t, INT32_MAX, 5); /* any non-zero user means user */
	assert_non_null(s);
	assert_true(s->ips[1] == uips[2]);
	assert_null(wperf_trace_stack(t, 0, 0));
	assert_null(wperf_trace_stack(t, -5, 1));
	assert_null(wperf_trace_stack(t, WPERF_NO_STACK, 0));

	/* MAPPINGS: two sections, concatenated */
	const struct wperf_mapping *m = wperf_trace_mappings(t, &n);
	assert_int_equal(n, 3);
	assert_int_equal(m[0].tgid, 4242);
	assert_true(m[0].start == 0x55d0c0de0000 && m[0].end == 0x55d0c0e00000);
	assert_true(m[0].pgoff == 0x1000);
	assert_int_equal(m[0].build_id_len, 20);
	for (int i = 0; i < 20; i++)
		assert_int_equal(m[0].build_id[i], 0xa0 + i);
	assert_string_equal(m[0].path, "/usr/bin/bench");
	assert_int_equal(m[1].build_id_len, 0);
	assert_string_equal(m[1].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_int_equal(m[2].tgid, 99);
	assert_true(m[2].pgoff == UINT64_MAX);
	assert_int_equal(m[2].build_id_len, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(m[2].build_id[i], (uint8_t)(i * 31));
	assert_string_equal(m[2].path, "");

	/* KSYMS */
	const struct wperf_ksym *ks = wperf_trace_ksyms(t, &n);
	assert_int_equal(n, 3);
	assert_true(ks[0].addr == 0xffffffff81234560ull);
	assert_string_equal(ks[0].name, "schedule+0x7");
	assert_string_equal(ks[1].name, "__x64_sys_futex+0x10");
	assert_true(ks[2].addr == 0);
	assert_string_equal(ks[2].name, "");

	/* PERFMAP */
	const struct wperf_perfmap *pm = wperf_trace_perfmaps(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(pm[0].tgid, 1234);
	assert_int_equal(pm[0].len, strlen(pm[0].text));
	assert_string_equal(pm[0].text, "7f0000001000 40 jitted_fn_a\n7f0000001040 80 b\n");
	assert_int_equal(pm[1].tgid, 77);
	assert_int_equal(pm[1].len, 0);

	/* STATS */
	const struct wperf_trace_stats *stats = wperf_trace_stats(t);
	assert_true(stats->start_ts == 111);
	assert_true(stats->end_ts == UINT64_MAX - 1);
	assert_int_equal(stats->ncpu, 6);
	assert_true(stats->lost[1] == 5 && stats->lost[2] == UINT64_MAX && stats->lost[5] == 2);
	assert_true(stats->stack_lost == 33 && stats->stack_fault == 44);
	assert_true(stats->late_events == 0);
	assert_true(stats->events[0] == 0 && stats->events[2] == 0);
	assert_true(stats->events[WPERF_EV_SWITCH] == 2);
	wperf_trace_free(t);

	assert_int_equal(read_events(path, NULL, 0), 2);
}

static void test_tables_compressed(void **state)
{
	const char *path = TPATH("tables-z.trace");

	(void)state;
	write_tables(path, 1);
	check_tables(path);
}

static void test_tables_uncompressed(void **state)
{
	const char *path = TPATH("tables.trace");

	(void)state;
	write_tables(path, 0);
	check_tables(path);
}

/* Two copies of user stacks (--stacks dwarf) over two sections, read back;
 * then stacks unwound from them added to a STACKS table that already has
 * stacks, every one still found by its id. */
static void test_stack_copies(void **state)
{
	const char *path = TPATH("copies.trace");
	static const uint64_t walked[] = {0x401000, 0x402000};
	const struct wperf_stack st = {.id = 3, .user = 1, .nr = 2, .ips = walked};
	struct wperf_stack_copy c[2] = {
	    {.id = 40000,
	     .tgid = 7,
	     .tid = 8,
	     .nregs = 17,
	     .ip = 0x7f0000001234,
	     .base = 0x7ffc0000fc00,
	     .size = 2048},
	    {.id = 40001, .tgid = 7, .tid = 9, .nregs = 0, .ip = 1, .base = 0, .size = 0},
	};
	static uint8_t bytes[2048];
	const uint64_t unwound[] = {0x7f0000001234, 0x401234, 0x400abc};
	const struct wperf_stack added = {.id = 40000, .user = 1, .nr = 3, .ips = unwound};
	struct wperf_trace_writer *w;
	struct wperf_error err = {0};
	struct wperf_trace *t;
	const struct wperf_stack_copy *r;
	const struct wperf_stack *s;
	int fd = create_file(path);
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 7);
	c[0].bytes = bytes;
	for (uint32_t i = 0; i < 17; i++)
		c[0].regs[i] = UINT64_MAX - i;
	assert_int_equal(wperf_trace_writer_new(fd, NULL, &w, &err), 0);
	assert_int_equal(wperf_trace_writer_stacks(w, &st, 1, &err), 0);
	assert_int_equal(wperf_trace_writer_stack_copies(w, &c[0], 1, &err), 0);
	assert_int_equal(wperf_trace_writer_stack_copies(w, &c[1], 1, &err), 0);
	c[1].nregs = WPERF_COPY_REGS + 1;
	assert_int_equal(wperf_trace_writer_stack_copies(w, &c[1], 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "stack copy 40001 has 33 registers"));
	wperf_trace_writer_free(w);
	close(fd);
	fd = create_file(path); /* again, without the refused row */
	c[1].nregs = 0;
	assert_int_equal(wperf_trace_writer_new(fd, NULL, &w, &err), 0);
	assert_int_equal(wperf_trace_writer_stacks(w, &st, 1, &err), 0);
	assert_int_equal(wperf_trace_writer_stack_copies(w, &c[0], 1, &err), 0);
	assert_int_equal(wperf_trace_writer_stack_copies(w, &c[1], 1, &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, NULL, &err), 0);
	wperf_trace_writer_free(w);
	close(fd);

	if (wperf_trace_open(path, &t, &err))
		fail_msg("open: %s", err.msg);
	r = wperf_trace_stack_copies(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].id, 40000);
	assert_true(r[0].tgid == 7 && r[0].tid == 8 && r[0].nregs == 17);
	assert_true(r[0].ip == 0x7f0000001234 && r[0].base == 0x7ffc0000fc00);
	assert_true(r[0].regs[0] == UINT64_MAX && r[0].regs[16] == UINT64_MAX - 16);
	assert_int_equal(r[0].size, sizeof(bytes));
	assert_memory_equal(r[0].bytes, bytes, sizeof(bytes));
	assert_true(r[1].id == 40001 && r[1].tid == 9 && r[1].size == 0 && r[1].nregs == 0);
	assert_null(wperf_trace_stack(t, 40000, 1)); /* a copy is no stack until unwound */

	assert_int_equal(wperf_trace_add_stacks(t, &added, 1, &err), 0);
	s = wperf_trace_stack(t, 40000, 1);
	assert_non_null(s);
	assert_int_equal(s->nr, 3);
	assert_memory_equal(s->ips, unwound, sizeof(unwound));
	s = wperf_trace_stack(t, 3, 1);
	assert_non_null(s);
	assert_int_equal(s->nr, 2);
	assert_memory_equal(s->ips, walked, sizeof(walked));
	wperf_trace_free(t);
}

static void test_empty_trace(void **state)
{
	const char *path = TPATH("empty.trace");
	struct wperf_trace *t;
	struct wperf_error err = {0};
	size_t n = 1;

	(void)state;
	write_trace(path, NULL, NULL, 0, NULL);
	assert_int_equal(read_events(path, NULL, 0), 0);
	assert_int_equal(wperf_trace_open(path, &t, &err), 0);
	assert_null(wperf_trace_threads(t, &n));
	assert_int_equal(n, 0);
	assert_null(wperf_trace_stack(t, 1, 1));
	assert_int_equal(wperf_trace_stats(t)->ncpu, 0);
	assert_null(wperf_trace_stats(t)->lost);
	wperf_trace_free(t);
	wperf_trace_free(NULL);
}

/* ---- tests: the writer's errors ---- */

static void test_writer_errors(void **state)
{
	struct wperf_trace_writer *w = (void *)1;
	struct wperf_error err = {0};
	struct wperf_event ev;
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC);

	(void)state;
	/* the file header cannot be written */
	if (full >= 0) {
		assert_int_equal(wperf_trace_writer_new(full, NULL, &w, &err), -ENOSPC);
		assert_null(w);
		assert_msg_has(err.msg, "writing trace at offset 0: No space left on device");
	}

	/* a section cannot be written: the writer says where, and then stays failed */
	int fd = create_file(TPATH("fail.trace"));
	assert_int_equal(wperf_trace_writer_new(fd, NULL, &w, &err), 0);
	tb_fill_event(&ev, WPERF_EV_SWITCH, 0, 1);
	assert_int_equal(wperf_trace_writer_event(w, &ev, &err), 0);
	if (full >= 0) {
		dup2(full, fd);
		assert_int_equal(wperf_trace_writer_flush(w, &err), -ENOSPC);
		assert_msg_has(err.msg, "writing trace at offset 16: No space left on device");
		assert_int_equal(wperf_trace_writer_event(w, &ev, &err), -ENOSPC);
		assert_msg_has(err.msg, "earlier write failed");
		assert_int_equal(wperf_trace_writer_finish(w, NULL, &err), -ENOSPC);
	}
	wperf_trace_writer_free(w);
	close(fd);

	/* a bad fd */
	assert_int_equal(wperf_trace_writer_new(-1, NULL, &w, &err), -EBADF);
	assert_msg_has(err.msg, "offset 0");

	/* unknown kinds, bad tables, and use after finish */
	fd = create_file(TPATH("bad-use.trace"));
	assert_int_equal(wperf_trace_writer_new(fd, NULL, &w, &err), 0);
	ev.hdr.kind = WPERF_EV_KIND_MAX;
	assert_int_equal(wperf_trace_writer_event(w, &ev, &err), -EINVAL);
	assert_msg_has(err.msg, "kind");
	struct wperf_mapping m = {.build_id_len = 21};
	assert_int_equal(wperf_trace_writer_mappings(w, &m, 1, &err), -EINVAL);
	struct wperf_stack s = {.id = 1, .nr = 2};
	assert_int_equal(wperf_trace_writer_stacks(w, &s, 1, &err), -EINVAL);
	assert_int_equal(wperf_trace_writer_finish(w, NULL, &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, NULL, &err), -EINVAL);
	assert_int_equal(wperf_trace_writer_threads(w, NULL, 0, &err), -EINVAL);
	wperf_trace_writer_free(w);
	wperf_trace_writer_free(NULL);
	close(fd);
	/* the refused calls left nothing behind: the file reads */
	assert_int_equal(read_events(TPATH("bad-use.trace"), NULL, 0), 0);
	if (full >= 0)
		close(full);
}

/* ---- tests: forward compatibility ---- */

static void test_unknown_section_skipped(void **state)
{
	struct wperf_event evs[80], got[80];
	size_t n = tb_all_kinds(evs, 80), len;
	const char *path = TPATH("future.trace");
	struct wperf_buf f = {0};
	struct sec secs[16];

	(void)state;
	write_trace(path, NULL, evs, n, NULL);
	uint8_t *old = (uint8_t *)tb_read_file(path, &len);
	size_t ns = walk(old, len, secs, 16);
	const struct sec *end = &secs[ns - 1];

	/* everything up to END, two sections of kinds from the future, a new END */
	wperf_buf_append(&f, old, end->off);
	craft_section(&f, 77, 0, "a future table", 14, 14);
	craft_section(&f, 0x10000, 0x80000001, "\xff\xfe", 2, 1000); /* even odd flags */
	craft_end(&f, ns - 1 + 2, n);
	spit(path, f.data, f.len);
	assert_int_equal(read_events(path, got, 80), n);
	for (size_t i = 0; i < n; i++)
		tb_assert_event_equal(&evs[i], &got[i]);

	/* and a file of a later minor with a bigger header still reads */
	wperf_buf_clear(&f);
	wperf_buf_append(&f, old, 8);
	wperf_buf_append(&f, "\x01\x00\x09\x00\x18\x00\x00\x00", 8); /* 1.9, header of 24 */
	wperf_buf_append(&f, "newfield", 8);
	wperf_buf_append(&f, old + 16, len - 16);
	spit(path, f.data, f.len);
	assert_int_equal(read_events(path, got, 80), n);
	struct wperf_trace *t;
	struct wperf_error err = {0};
	assert_int_equal(wperf_trace_open(path, &t, &err), 0);
	assert_int_equal(wperf_trace_version_minor(t), 9);
	wperf_trace_free(t);
	wperf_buf_release(&f);
	free(old);
}

/* ---- COUNTERS ---- */

/* A reading with a row of every table, the largest values among them. */
static void fill_counters(struct wperf_counters *c, unsigned when)
{
	static const uint64_t disk[17] = {1,	  2,  3,  4,  5,  6,  7,  8,	     9,
					  123456, 11, 12, 13, 14, 15, 16, UINT64_MAX};
	static const uint64_t nic[16] = {1000, 10, 0, 0, 0, 0, 0, 0, 2000, 20};
	static const uint64_t cpu[10] = {100, 0, 50, 700, 30, 0, 5, 1};
	static const uint64_t irq[2] = {17, 0}, soft[3] = {5, 6, 7};
	static const struct wperf_disk_counters disks[] = {{254, 0, "vda", 17, disk},
							   {7, 1, "loop1", 11, disk}};
	static const struct wperf_nic_counters nics[] = {{1, 772, "lo", 16, nic},
							 {4, 1, "eth0", 0, NULL}};
	static const struct wperf_cpu_counters cpus[] = {{0, 10, cpu}, {3, 8, cpu}};
	static const struct wperf_irq_counters irqs[] = {{"24", "IO-APIC 5-edge ACPI:Ged", 2, irq},
							 {"LOC", "", 1, irq}};
	static const struct wperf_irq_counters softirqs[] = {{"TIMER", "", 3, soft}};
	static const struct wperf_thread_counters threads[] = {
	    {4711, 4711, 5000000000ull, 123456789, 987654321, 42},
	    {4712, 4711, 4999999000ull, 0, 0, 0}, /* read before ts: a negative delta */
	    {UINT32_MAX, UINT32_MAX, 5000000001ull, UINT64_MAX, UINT64_MAX, UINT64_MAX}};

	*c = (struct wperf_counters){
	    .when = when,
	    .flags = WPERF_COUNTERS_WHOLE_MACHINE,
	    .hz = 250,
	    .user_hz = 100,
	    .irq_time = WPERF_IRQ_TIME_APART,
	    .ts = 5000000000ull,
	    .disks = disks,
	    .ndisks = 2,
	    .nics = nics,
	    .nnics = 2,
	    .cpus = cpus,
	    .ncpus = 2,
	    .irqs = irqs,
	    .nirqs = 2,
	    .softirqs = softirqs,
	    .nsoftirqs = 1,
	    .threads = threads,
	    .nthreads = 3,
	};
}

static void assert_rows_equal(const uint64_t *want, uint32_t nwant, const uint64_t *got,
			      uint32_t ngot)
{
	assert_int_equal(ngot, nwant);
	for (uint32_t i = 0; i < nwant; i++)
		assert_true(got[i] == want[i]);
}

static void assert_irqs_equal(const struct wperf_irq_counters *w,
			      const struct wperf_irq_counters *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(g[i].name, w[i].name);
		assert_string_equal(g[i].desc, w[i].desc);
		assert_rows_equal(w[i].counts, w[i].ncpu, g[i].counts, g[i].ncpu);
	}
}

/* Every field of every row, as written. */
static void assert_counters_equal(const struct wperf_counters *w, const struct wperf_counters *g)
{
	assert_non_null(g);
	assert_int_equal(g->when, w->when);
	assert_int_equal(g->flags, w->flags);
	assert_int_equal(g->hz, w->hz);
	assert_int_equal(g->user_hz, w->user_hz);
	assert_int_equal(g->irq_time, w->irq_time);
	assert_true(g->ts == w->ts);
	assert_int_equal(g->ndisks, w->ndisks);
	for (size_t i = 0; i < w->ndisks; i++) {
		assert_int_equal(g->disks[i].major, w->disks[i].major);
		assert_int_equal(g->disks[i].minor, w->disks[i].minor);
		assert_string_equal(g->disks[i].name, w->disks[i].name);
		assert_rows_equal(w->disks[i].fields, w->disks[i].nfields, g->disks[i].fields,
				  g->disks[i].nfields);
	}
	assert_int_equal(g->nnics, w->nnics);
	for (size_t i = 0; i < w->nnics; i++) {
		assert_int_equal(g->nics[i].ifindex, w->nics[i].ifindex);
		assert_int_equal(g->nics[i].type, w->nics[i].type);
		assert_string_equal(g->nics[i].name, w->nics[i].name);
		assert_rows_equal(w->nics[i].fields, w->nics[i].nfields, g->nics[i].fields,
				  g->nics[i].nfields);
	}
	assert_int_equal(g->ncpus, w->ncpus);
	for (size_t i = 0; i < w->ncpus; i++) {
		assert_int_equal(g->cpus[i].cpu, w->cpus[i].cpu);
		assert_rows_equal(w->cpus[i].fields, w->cpus[i].nfields, g->cpus[i].fields,
				  g->cpus[i].nfields);
	}
	assert_int_equal(g->nirqs, w->nirqs);
	assert_irqs_equal(w->irqs, g->irqs, w->nirqs);
	assert_int_equal(g->nsoftirqs, w->nsoftirqs);
	assert_irqs_equal(w->softirqs, g->softirqs, w->nsoftirqs);
	assert_int_equal(g->nthreads, w->nthreads);
	assert_memory_equal(g->threads, w->threads, w->nthreads * sizeof(*w->threads));
}

/* Writes a trace with the readings of c (n of them) and opens it. */
static struct wperf_trace *counters_trace(const char *path, const struct wperf_writer_opts *opts,
					  const struct wperf_counters *c, size_t n)
{
	struct wperf_trace_writer *w;
	struct wperf_trace *t = NULL;
	struct wperf_error err = {0};
	int fd = create_file(path);

	assert_int_equal(wperf_trace_writer_new(fd, opts, &w, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(wperf_trace_writer_counters(w, &c[i], &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, NULL, &err), 0);
	wperf_trace_writer_free(w);
	close(fd);
	wperf_trace_open(path, &t, &err);
	return t;
}

/* Both readings, written and read back, compressed or not. */
static void test_counters_round_trip(void **state)
{
	struct wperf_counters c[2];
	const char *path = TPATH("counters.trace");

	(void)state;
	fill_counters(&c[0], WPERF_COUNTERS_START);
	fill_counters(&c[1], WPERF_COUNTERS_END);
	c[1].nthreads = 1;
	c[1].ts = 9000000000ull;
	for (int compress = 0; compress <= 1; compress++) {
		struct wperf_writer_opts o = {.compress = compress};
		struct wperf_trace *t = counters_trace(path, &o, c, 2);

		assert_non_null(t);
		assert_int_equal(wperf_trace_version_minor(t), WPERF_TRACE_MINOR);
		assert_counters_equal(&c[0], wperf_trace_counters(t, WPERF_COUNTERS_START));
		assert_counters_equal(&c[1], wperf_trace_counters(t, WPERF_COUNTERS_END));
		assert_null(wperf_trace_counters(t, 2));
		wperf_trace_free(t);
	}
}

/* A reading of a moment a later minor added is skipped; a second reading of
 * the same moment, or a table cut short, is corrupt, with its offset. */
static void test_counters_errors(void **state)
{
	struct wperf_counters c[2];
	struct wperf_trace *t;
	struct wperf_trace_writer *w;
	struct wperf_error err = {0};
	const char *path = TPATH("counters-bad.trace");
	struct wperf_buf f = {0};
	struct sec secs[8];
	uint8_t *data;
	size_t len, ns;
	int fd;

	(void)state;
	fill_counters(&c[0], 7);
	fill_counters(&c[1], WPERF_COUNTERS_END);
	t = counters_trace(path, NULL, c, 2);
	assert_non_null(t);
	assert_null(wperf_trace_counters(t, WPERF_COUNTERS_START));
	assert_non_null(wperf_trace_counters(t, WPERF_COUNTERS_END));
	wperf_trace_free(t);

	fill_counters(&c[0], WPERF_COUNTERS_END);
	assert_null(counters_trace(path, NULL, c, 2));
	expect_open_error(path, "a second COUNTERS section for the window's end");

	/* the payload cut short anywhere: every field is needed */
	fd = create_file(path);
	struct wperf_writer_opts o = {.compress = 0};
	assert_int_equal(wperf_trace_writer_new(fd, &o, &w, &err), 0);
	assert_int_equal(wperf_trace_writer_counters(w, &c[1], &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, NULL, &err), 0);
	wperf_trace_writer_free(w);
	close(fd);
	data = (uint8_t *)tb_read_file(path, &len);
	ns = walk(data, len, secs, 8);
	assert_true(ns >= 1);
	assert_int_equal(secs[0].kind, WPERF_SECTION_COUNTERS);
	for (size_t cut = 0; cut < secs[0].stored; cut++) {
		wperf_buf_clear(&f);
		craft_header(&f, WPERF_TRACE_MAJOR);
		craft_section(&f, WPERF_SECTION_COUNTERS, 0,
			      data + secs[0].off + WPERF_SECTION_HEADER_SIZE, cut, cut);
		craft_end(&f, 1, 0);
		spit(path, f.data, f.len);
		expect_open_error(path, cut ? "COUNTERS section, payload byte" : NULL);
	}
	wperf_buf_release(&f);
	free(data);
}

static void test_unknown_event_kind_skipped(void **state)
{
	struct wperf_buf p = {0};
	struct wperf_event a, b, got[4];
	uint64_t prev = 1000;
	const char *path = TPATH("unknown-kind.trace");

	(void)state;
	tb_fill_event(&a, WPERF_EV_SWITCH, 0, 1500);
	tb_fill_event(&b, WPERF_EV_NET_RECV, 1, 2600);

	wperf_buf_append_uvarint(&p, 4); /* four records */
	wperf_buf_append_u64(&p, 1000);	 /* base ts */
	assert_int_equal(wperf_event_encode(&p, &a, &prev), 0);
	/* kind 200 at ts 1500+600, with fields we do not know */
	wperf_buf_append(&p, "\xc8\x05", 2);
	wperf_buf_append_svarint(&p, 600);
	wperf_buf_append(&p, "\xde\xad\xbe", 3);
	prev += 600;
	/* kind 0 with only its ts delta */
	wperf_buf_append(&p, "\x00\x02", 2);
	wperf_buf_append_svarint(&p, -100); /* zigzag 199: two bytes */
	prev -= 100;
	assert_int_equal(wperf_event_encode(&p, &b, &prev), 0);
	craft_events_file(path, &p, 4);

	assert_int_equal(read_events(path, got, 4), 2);
	tb_assert_event_equal(&a, &got[0]);
	tb_assert_event_equal(&b, &got[1]); /* its ts came through the skipped records */

	/* an unknown record too short to hold its ts delta is corrupt */
	wperf_buf_clear(&p);
	wperf_buf_append_uvarint(&p, 1);
	wperf_buf_append_u64(&p, 1000);
	wperf_buf_append(&p, "\xc8\x00", 2);
	craft_events_file(path, &p, 1);
	expect_iter_error(path, "payload byte 9", 0);
	wperf_buf_release(&p);
}

/* ---- tests: corruption ---- */

/* A small trace with every kind of section, for the corruption tests. */
static void small_trace(const char *path, int compress)
{
	struct wperf_writer_opts opts = {.compress = compress, .events_per_section = 8};
	struct wperf_event evs[80];
	size_t n = tb_all_kinds(evs, 80);
	struct wperf_thread th[40];
	struct wperf_stack st = {.id = 3, .user = 1, .nr = 3, .ips = uips};
	struct wperf_mapping m = {.tgid = 1, .start = 0x1000, .end = 0x2000, .path = "/bin/true"};
	struct wperf_ksym ks = {0xffffffff81000000ull, "schedule"};
	struct wperf_perfmap pm = {5, "1000 10 f\n", 10};
	uint64_t lost[2] = {1, 2};
	struct wperf_trace_stats stats = {.ncpu = 2, .lost = lost};
	struct wperf_trace_writer *w;
	struct wperf_error err = {0};
	int fd = create_file(path);

	for (unsigned i = 0; i < 40; i++)
		th[i] = (struct wperf_thread){.tid = 500 + i, .tgid = 500, .comm = "pool-worker"};
	assert_int_equal(wperf_trace_writer_new(fd, &opts, &w, &err), 0);
	assert_int_equal(
	    wperf_trace_writer_meta(w, (const char *[]){"k"}, (const char *[]){"v"}, 1, &err), 0);
	assert_true(n >= 20);
	for (size_t i = 0; i < 20; i++)
		assert_int_equal(wperf_trace_writer_event(w, &evs[i], &err), 0);
	assert_int_equal(wperf_trace_writer_threads(w, th, 40, &err), 0);
	assert_int_equal(wperf_trace_writer_stacks(w, &st, 1, &err), 0);
	assert_int_equal(wperf_trace_writer_mappings(w, &m, 1, &err), 0);
	assert_int_equal(wperf_trace_writer_ksyms(w, &ks, 1, &err), 0);
	assert_int_equal(wperf_trace_writer_perfmap(w, &pm, &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, &stats, &err), 0);
	wperf_trace_writer_free(w);
	close(fd);
	assert_int_equal(read_events(path, NULL, 0), 20);
}

static void truncate_everywhere(int compress)
{
	const char *path = TPATH(compress ? "small-z.trace" : "small.trace");
	const char *cut = TPATH("cut.trace");
	size_t len, at_boundary = 0;
	struct sec secs[32];

	small_trace(path, compress);
	uint8_t *f = (uint8_t *)tb_read_file(path, &len);
	size_t ns = walk(f, len, secs, 32);

	assert_true(ns >= 8);
	for (size_t l = 0; l < len; l++) {
		int boundary = l == WPERF_TRACE_HEADER_SIZE;

		for (size_t i = 0; i < ns; i++)
			boundary |= l == secs[i].off;
		spit(cut, f, l);
		/* a prefix that stops between sections lacks END; any other is cut short */
		expect_open_error(cut, boundary ? "no END section" : "truncated at offset");
		at_boundary += boundary;
	}
	assert_int_equal(at_boundary, ns);
	free(f);
}

static void test_truncated_everywhere(void **state)
{
	(void)state;
	truncate_everywhere(1);
	truncate_everywhere(0);
}

static void test_crc_each_section(void **state)
{
	const char *path = TPATH("crc.trace");
	const char *bad = TPATH("crc-bad.trace");
	size_t len;
	struct sec secs[32];
	char where[64];

	(void)state;
	small_trace(path, 1);
	uint8_t *f = (uint8_t *)tb_read_file(path, &len);
	size_t ns = walk(f, len, secs, 32);
	for (size_t i = 0; i < ns; i++) {
		size_t at = secs[i].off + WPERF_SECTION_HEADER_SIZE + secs[i].stored / 2;

		assert_true(secs[i].stored > 0);
		f[at] ^= 0x10;
		spit(bad, f, len);
		snprintf(where, sizeof(where), "at offset %zu: ", secs[i].off);
		expect_open_error(bad, "bad CRC");
		expect_open_error(bad, where);
		f[at] ^= 0x10;
	}
	free(f);
}

static void test_bad_header(void **state)
{
	const char *path = TPATH("hdr.trace");
	const char *bad = TPATH("hdr-bad.trace");
	struct wperf_trace *t;
	struct wperf_error err = {0};
	size_t len;

	(void)state;
	small_trace(path, 1);
	uint8_t *f = (uint8_t *)tb_read_file(path, &len);

	f[0] = 'X';
	spit(bad, f, len);
	expect_open_error(bad, "not a wperf trace at offset 0");
	f[0] = 'W';

	wperf_put_le16(f + 10, 0); /* minor 0, which the messages name */
	wperf_put_le16(f + 8, WPERF_TRACE_MAJOR + 1);
	spit(bad, f, len);
	expect_open_error(bad, "offset 8");
	assert_int_equal(wperf_trace_open(bad, &t, &err), -ENOTSUP);
	assert_msg_has(err.msg, "format 2.0");
	wperf_put_le16(f + 8, 0);
	spit(bad, f, len);
	expect_open_error(bad, "format 0.0");
	wperf_put_le16(f + 8, WPERF_TRACE_MAJOR);

	/* a newer minor is fine */
	wperf_put_le16(f + 10, 42);
	spit(bad, f, len);
	assert_int_equal(wperf_trace_open(bad, &t, &err), 0);
	assert_int_equal(wperf_trace_version_minor(t), 42);
	wperf_trace_free(t);

	wperf_put_le32(f + 12, 8);
	spit(bad, f, len);
	expect_open_error(bad, "bad header size 8");
	wperf_put_le32(f + 12, (uint32_t)len + 1);
	spit(bad, f, len);
	expect_open_error(bad, "bad header size");
	wperf_put_le32(f + 12, WPERF_TRACE_HEADER_SIZE);

	/* bytes after END */
	uint8_t *longer = malloc(len + 3);
	memcpy(longer, f, len);
	memcpy(longer + len, "xyz", 3);
	spit(bad, longer, len + 3);
	expect_open_error(bad, "3 bytes after the END section");
	free(longer);

	/* END's section count disagrees */
	struct sec secs[32];
	size_t ns = walk(f, len, secs, 32);
	wperf_put_le64(f + secs[ns - 1].off + WPERF_SECTION_HEADER_SIZE, ns);
	fix_crc(f, &secs[ns - 1]);
	spit(bad, f, len);
	expect_open_error(bad, "sections before it");

	/* a file that is not there, a directory */
	assert_int_equal(wperf_trace_open(TPATH("nothing-here"), &t, &err), -ENOENT);
	assert_msg_has(err.msg, "nothing-here");
	assert_int_equal(wperf_trace_open(tmpdir, &t, &err), -EINVAL);
	free(f);
}

static void test_section_size_overflow(void **state)
{
	static const uint64_t sizes[] = {UINT64_MAX, UINT64_MAX - 16, UINT64_MAX - 47, 1ull << 63,
					 1ull << 40};
	const char *path = TPATH("ovf.trace");
	const char *bad = TPATH("ovf-bad.trace");
	size_t len;
	struct sec secs[32];

	(void)state;
	small_trace(path, 0);
	uint8_t *f = (uint8_t *)tb_read_file(path, &len);
	size_t ns = walk(f, len, secs, 32);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t j = 0; j < ns; j += ns - 1) { /* the first and the END */
			uint8_t *h = f + secs[j].off;
			char where[64];

			wperf_put_le64(h + 8, sizes[i]);
			spit(bad, f, len);
			snprintf(where, sizeof(where), "truncated at offset %zu", secs[j].off);
			expect_open_error(bad, where);
			expect_open_error(bad, "runs past the end of the file");
			wperf_put_le64(h + 8, secs[j].stored);
		}
	}
	free(f);
}

static void test_record_overruns_section(void **state)
{
	struct wperf_buf p = {0};
	struct wperf_event a;
	uint64_t prev = 0;
	const char *path = TPATH("overrun.trace");

	(void)state;
	tb_fill_event(&a, WPERF_EV_SWITCH, 0, 50);
	wperf_buf_append_uvarint(&p, 2);
	wperf_buf_append_u64(&p, 0);
	wperf_event_encode(&p, &a, &prev);
	size_t second = p.len;
	wperf_event_encode(&p, &a, &prev);
	p.data[second + 1] += 1; /* its body claims one byte more than the section has */
	craft_events_file(path, &p, 2);
	char where[64];
	snprintf(where, sizeof(where), "record at payload byte %zu", second);
	expect_iter_error(path, where, 1);
	expect_iter_error(path, "body length runs past the end of the section", 1);

	/* a record header cut in half */
	p.data[second + 1] -= 1;
	p.len = second + 1;
	craft_events_file(path, &p, 2);
	expect_iter_error(path, "record header runs past", 1);

	/* a body too short for the fields of its kind */
	p.len = second;
	wperf_event_encode(&p, &a, &prev);
	p.data[second + 1] = 6;
	p.len = second + 2 + 6;
	craft_events_file(path, &p, 2);
	expect_iter_error(path, "run past its body length", 1);
	wperf_buf_release(&p);
}

static void test_record_counts(void **state)
{
	struct wperf_buf p = {0};
	struct wperf_event a;
	uint64_t prev = 0;
	const char *path = TPATH("counts.trace");

	(void)state;
	tb_fill_event(&a, WPERF_EV_EXIT, 0, 0);

	/* the prelude promises more records than there are */
	wperf_buf_append_uvarint(&p, 3);
	wperf_buf_append_u64(&p, 0);
	wperf_event_encode(&p, &a, &prev);
	wperf_event_encode(&p, &a, &prev);
	craft_events_file(path, &p, 3);
	expect_iter_error(path, "ends after 2 of its 3 records", 2);

	/* ... or fewer */
	p.data[0] = 1;
	craft_events_file(path, &p, 1);
	expect_iter_error(path, "bytes after its 1 records", 1);

	/* a count that cannot fit in the section */
	p.data[0] = 100;
	craft_events_file(path, &p, 100);
	expect_iter_error(path, "EVENTS section, payload byte 1", 0);

	/* END promises another total */
	p.data[0] = 2;
	craft_events_file(path, &p, 5);
	expect_iter_error(path, "END promises 5 events", 2);
	wperf_buf_release(&p);
}

static void test_overlong_varint(void **state)
{
	struct wperf_buf p = {0};
	const char *path = TPATH("overlong.trace");

	(void)state;
	/* a SWITCH whose ts delta is 11 bytes long */
	wperf_buf_append_uvarint(&p, 1);
	wperf_buf_append_u64(&p, 0);
	wperf_buf_append(&p, "\x01\x14", 2);
	for (int i = 0; i < 11; i++)
		wperf_buf_append(&p, "\x80", 1);
	wperf_buf_append(&p, "\0\0\0\0\0\0\0\0\0", 9);
	craft_events_file(path, &p, 1);
	expect_iter_error(path, "overlong varint", 0);
	expect_iter_error(path, "record at payload byte 9", 0);

	/* in the prelude */
	wperf_buf_clear(&p);
	for (int i = 0; i < 12; i++)
		wperf_buf_append(&p, "\xff", 1);
	wperf_buf_append(&p, "\x01\0\0\0\0\0\0\0\0", 9);
	craft_events_file(path, &p, 0);
	expect_iter_error(path, "overlong varint", 0);

	/* in a table: the thread count */
	struct wperf_buf f = {0};
	wperf_buf_clear(&p);
	for (int i = 0; i < 10; i++)
		wperf_buf_append(&p, "\x81", 1);
	wperf_buf_append(&p, "\x01", 1);
	craft_header(&f, WPERF_TRACE_MAJOR);
	craft_section(&f, WPERF_SECTION_THREADS, 0, p.data, p.len, p.len);
	craft_end(&f, 1, 0);
	spit(path, f.data, f.len);
	expect_open_error(path, "THREADS section, payload byte 0: overlong varint");
	wperf_buf_release(&f);
	wperf_buf_release(&p);
}

static void test_bad_tables(void **state)
{
	static const struct {
		uint32_t kind;
		const char *payload;
		size_t len;
		const char *needle;
	} cases[] = {
	    /* a count the payload cannot hold */
	    {WPERF_SECTION_THREADS, "\x05\x01\x01\x01\x00", 5, "payload byte 1"},
	    {WPERF_SECTION_STACKS, "\xff\xff\xff\xff\x0f", 5, "STACKS section"},
	    /* a stack with more frames than bytes */
	    {WPERF_SECTION_STACKS, "\x01\x02\x01\x09\x01\x01", 6, "STACKS section"},
	    /* a tid above 32 bits */
	    {WPERF_SECTION_THREADS, "\x01\x80\x80\x80\x80\x10\x01\x01\x00", 9, "out of range"},
	    /* a comm running past the end */
	    {WPERF_SECTION_THREADS, "\x01\x01\x01\x01\x10\x41\x41\x00\x00", 9, "runs past"},
	    /* a build id of 21 bytes */
	    {WPERF_SECTION_MAPPINGS, "\x01\x01\x01\x01\x01\x15\x00\x00\x00\x00\x00\x00", 12,
	     "out of range"},
	    {WPERF_SECTION_KSYMS,
	     "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x05"
	     "ab",
	     12, "KSYMS section"},
	    {WPERF_SECTION_PERFMAP, "\x01\x80", 2, "PERFMAP section"},
	    /* a stack copy with 33 registers, then one with more bytes than the section */
	    {WPERF_SECTION_STACK_COPIES,
	     "\x01\x02\x01\x01\x01\x01\x21" /* then 34 zeros: the registers and a size */
	     "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
	     41, "out of range"},
	    {WPERF_SECTION_STACK_COPIES, "\x01\x02\x01\x01\x01\x01\x00\x05\x00", 9, "runs past"},
	    {WPERF_SECTION_STATS, "\x00\x00\x00\x00", 4, "STATS section"},
	    {WPERF_SECTION_STATS,
	     "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09\x00", 18,
	     "STATS section"},
	    {WPERF_SECTION_META, "key\0value", 9, "META section"},
	    {WPERF_SECTION_META, "key\0value\0lonely\0", 17, "META section, payload byte 10"},
	    /* stored 3 bytes but says 4 */
	    {WPERF_SECTION_META, "k\0v", 3, "stores 3 bytes but says it holds 4"},
	};
	const char *path = TPATH("tables-bad.trace");

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wperf_buf f = {0};
		uint64_t raw = i == sizeof(cases) / sizeof(cases[0]) - 1 ? 4 : cases[i].len;

		craft_header(&f, WPERF_TRACE_MAJOR);
		craft_section(&f, cases[i].kind, 0, cases[i].payload, cases[i].len, raw);
		craft_end(&f, 1, 0);
		spit(path, f.data, f.len);
		expect_open_error(path, cases[i].needle);
		wperf_buf_release(&f);
	}

	/* two STATS sections */
	struct wperf_buf f = {0};
	uint8_t stats[24] = {0};
	craft_header(&f, WPERF_TRACE_MAJOR);
	craft_section(&f, WPERF_SECTION_STATS, 0, stats, sizeof(stats), sizeof(stats));
	craft_section(&f, WPERF_SECTION_STATS, 0, stats, sizeof(stats), sizeof(stats));
	craft_end(&f, 2, 0);
	spit(path, f.data, f.len);
	expect_open_error(path, "a second STATS section");
	wperf_buf_release(&f);

	/* an END that is too short, or compressed */
	craft_header(&f, WPERF_TRACE_MAJOR);
	craft_section(&f, WPERF_SECTION_END, 0, stats, 8, 8);
	spit(path, f.data, f.len);
	expect_open_error(path, "END section must be 16");
	wperf_buf_release(&f);
}

static void test_zstd_size_mismatch(void **state)
{
	const char *path = TPATH("zsize.trace");
	const char *bad = TPATH("zsize-bad.trace");
	size_t len;
	struct sec secs[32];
	char where[64];

	(void)state;
	small_trace(path, 1);
	uint8_t *f = (uint8_t *)tb_read_file(path, &len);
	size_t ns = walk(f, len, secs, 32);
	const struct sec *ev = NULL;
	const struct sec *th = find_sec(secs, ns, WPERF_SECTION_THREADS);
	for (size_t i = 0; i < ns && !ev; i++)
		if (secs[i].kind == WPERF_SECTION_EVENTS && secs[i].flags == WPERF_SECTION_ZSTD)
			ev = &secs[i];
	assert_non_null(ev);
	assert_int_equal(th->flags, WPERF_SECTION_ZSTD);

	/* the header's raw size differs from the frame's: one more, one less */
	for (int d = -1; d <= 1; d += 2) {
		wperf_put_le64(f + ev->off + 16, ev->raw + (uint64_t)d);
		spit(bad, f, len);
		snprintf(where, sizeof(where), "at offset %zu: EVENTS", ev->off);
		expect_open_error(bad, where);
		expect_open_error(bad, "decompresses to");
		wperf_put_le64(f + ev->off + 16, ev->raw);

		wperf_put_le64(f + th->off + 16, th->raw + (uint64_t)d);
		spit(bad, f, len);
		expect_open_error(bad, "THREADS section: the zstd frame decompresses to");
		wperf_put_le64(f + th->off + 16, th->raw);
	}

	/* a raw size no frame of this size can reach: refused before allocating */
	wperf_put_le64(f + ev->off + 16, 1ull << 45);
	spit(bad, f, len);
	expect_open_error(bad, "cannot hold");
	wperf_put_le64(f + ev->off + 16, ev->raw);

	/* a frame that is not zstd (CRC fixed so that zstd sees it) */
	uint8_t *payload = f + ev->off + WPERF_SECTION_HEADER_SIZE;
	payload[0] ^= 0xff;
	fix_crc(f, ev);
	spit(bad, f, len);
	expect_open_error(bad, "not a zstd frame");
	payload[0] ^= 0xff;

	/*
	 * A reserved block type right after the frame header: the frame header is
	 * intact, so the damage is found when the events are read.
	 */
	uint8_t fhd = payload[4];
	int single = (fhd >> 5) & 1;
	static const int dict_size[] = {0, 1, 2, 4}, fcs_size[] = {0, 2, 4, 8};
	size_t fh = 4 + 1 + !single + dict_size[fhd & 3] + (fhd >> 6 ? fcs_size[fhd >> 6] : single);
	assert_true(fh + 3 <= ev->stored);
	memset(payload + fh, 0xff, 3);
	fix_crc(f, ev);
	spit(bad, f, len);
	expect_iter_error(bad, "EVENTS section", 0);
	free(f);
}

/* Random damage, CRCs fixed so that the decoders see it: errors, never a crash. */
static void fuzz(int compress)
{
	const char *path = TPATH("fuzz.trace");
	const char *bad = TPATH("fuzz-bad.trace");
	size_t len, opened = 0, failed = 0;
	struct sec secs[32];
	uint32_t seed = 12345;

	small_trace(path, compress);
	uint8_t *orig = (uint8_t *)tb_read_file(path, &len);
	uint8_t *f = malloc(len);
	size_t ns = walk(orig, len, secs, 32);

	for (int round = 0; round < 1500; round++) {
		memcpy(f, orig, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245 + 12345;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245 + 12345;
			f[at] = (uint8_t)(seed >> 16);
		}
		for (size_t i = 0; i < ns; i++)
			if (wperf_get_le64(f + secs[i].off + 8) == secs[i].stored)
				fix_crc(f, &secs[i]);
		spit(bad, f, len);

		struct wperf_trace *t;
		struct wperf_error err = {0};
		if (wperf_trace_open(bad, &t, &err)) {
			assert_msg_has(err.msg, "offset");
			failed++;
			continue;
		}
		opened++;
		struct wperf_event_iter *it;
		struct wperf_event ev;
		int ret;
		assert_int_equal(wperf_event_iter_new(t, &it, &err), 0);
		while ((ret = wperf_event_iter_next(it, &ev, &err)) == 1)
			assert_true(ev.hdr.kind > 0 && ev.hdr.kind < WPERF_EV_KIND_MAX);
		if (ret < 0)
			assert_msg_has(err.msg, "offset");
		wperf_event_iter_free(it);
		wperf_trace_free(t);
	}
	assert_true(opened > 0 && failed > 0);
	free(f);
	free(orig);
}

static void test_fuzz(void **state)
{
	(void)state;
	fuzz(0);
	fuzz(1);
}

/* ---- measurements ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A context-switch storm: two threads of 5-digit tids take turns on one CPU
 * every 1-3 us, blocking with a small stack id or being preempted without one.
 */
static void storm(struct wperf_event *evs, size_t n)
{
	uint32_t seed = 42;
	uint64_t ts = 5000000000000ull;

	for (size_t i = 0; i < n; i++) {
		struct wperf_event *e = &evs[i];
		int a = i % 2 == 0;
		int preempted;

		seed = seed * 1103515245 + 12345;
		ts += 1000 + (seed >> 8) % 2000;
		preempted = (seed >> 20) % 8 == 0;
		memset(e, 0, sizeof(*e));
		e->hdr.kind = WPERF_EV_SWITCH;
		e->hdr.size = wperf_event_size(WPERF_EV_SWITCH);
		e->hdr.cpu = 3;
		e->hdr.ts = ts;
		e->hdr.flags = preempted ? WPERF_SWITCH_PREEMPTED : 0;
		e->hdr.tid = a ? 31337 : 31342;
		e->hdr.tgid = a ? 31337 : 31340;
		e->sw.next_tid = a ? 31342 : 31337;
		e->sw.next_tgid = a ? 31340 : 31337;
		e->sw.prev_state = preempted ? 0 : 1;
		e->sw.kstack = preempted ? WPERF_NO_STACK : (int32_t)((seed >> 24) % 6);
		e->sw.ustack = preempted ? WPERF_NO_STACK : (int32_t)((seed >> 27) % 4);
	}
}

/* Bytes the EVENTS sections (headers included) take, per event. */
static double events_bytes_per_event(const char *path, size_t n)
{
	size_t len, total = 0;
	struct sec secs[64];
	uint8_t *f = (uint8_t *)tb_read_file(path, &len);
	size_t ns = walk(f, len, secs, 64);

	for (size_t i = 0; i < ns; i++)
		if (secs[i].kind == WPERF_SECTION_EVENTS)
			total += WPERF_SECTION_HEADER_SIZE + secs[i].stored;
	free(f);
	return (double)total / (double)n;
}

static void test_switch_storm_size(void **state)
{
	enum { N = 1 << 18 };
	struct wperf_event *evs = malloc(N * sizeof(*evs));
	struct wperf_event *got = malloc(N * sizeof(*got));
	const char *pz = TPATH("storm-z.trace"), *pr = TPATH("storm.trace");
	struct wperf_writer_opts raw = {.compress = 0};
	double t0, t1, t2;

	(void)state;
	storm(evs, N);
	t0 = now();
	write_trace(pz, NULL, evs, N, NULL);
	t1 = now();
	write_trace(pr, &raw, evs, N, NULL);
	t2 = now();
	double z = events_bytes_per_event(pz, N), r = events_bytes_per_event(pr, N);

	print_message("switch storm, %d events: %.2f bytes/event compressed (zstd 1), "
		      "%.2f uncompressed; in memory %zu\n",
		      N, z, r, sizeof(struct wperf_event));
	print_message("write: %.1f M events/s compressed, %.1f M events/s uncompressed\n",
		      N / (t1 - t0) / 1e6, N / (t2 - t1) / 1e6);
	assert_true(z <= 16.0);

	/* decoding speed (and a check that the storm survives the trip) */
	t0 = now();
	assert_int_equal(read_events(pz, got, N), N);
	t1 = now();
	assert_int_equal(read_events(pr, NULL, 0), N);
	t2 = now();
	print_message("read: %.1f M events/s compressed, %.1f M events/s uncompressed "
		      "(open, CRC and decode)\n",
		      N / (t1 - t0) / 1e6, N / (t2 - t1) / 1e6);
	for (size_t i = 0; i < N; i += 997)
		tb_assert_event_equal(&evs[i], &got[i]);
	free(evs);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kind_names),
	    cmocka_unit_test(test_round_trip_compressed),
	    cmocka_unit_test(test_round_trip_uncompressed),
	    cmocka_unit_test(test_codec_body_rules),
	    cmocka_unit_test(test_codec_block_1_0),
	    cmocka_unit_test(test_codec_fast_path),
	    cmocka_unit_test(test_multi_section),
	    cmocka_unit_test(test_default_options),
	    cmocka_unit_test(test_late_events),
	    cmocka_unit_test(test_tables_compressed),
	    cmocka_unit_test(test_tables_uncompressed),
	    cmocka_unit_test(test_stack_copies),
	    cmocka_unit_test(test_empty_trace),
	    cmocka_unit_test(test_writer_errors),
	    cmocka_unit_test(test_unknown_section_skipped),
	    cmocka_unit_test(test_unknown_event_kind_skipped),
	    cmocka_unit_test(test_counters_round_trip),
	    cmocka_unit_test(test_counters_errors),
	    cmocka_unit_test(test_truncated_everywhere),
	    cmocka_unit_test(test_crc_each_section),
	    cmocka_unit_test(test_bad_header),
	    cmocka_unit_test(test_section_size_overflow),
	    cmocka_unit_test(test_record_overruns_section),
	    cmocka_unit_test(test_record_counts),
	    cmocka_unit_test(test_overlong_varint),
	    cmocka_unit_test(test_bad_tables),
	    cmocka_unit_test(test_zstd_size_mismatch),
	    cmocka_unit_test(test_fuzz),
	    cmocka_unit_test(test_switch_storm_size),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
