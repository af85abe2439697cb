/* SPDX-License-Identifier: MIT */
/*
 * The table of event kinds (core/trace/event_kinds.h) against what depends on
 * it: the bytes a trace of every kind is written as (the same as before the
 * table drove the encoder: tests/data/codec/all-kinds.trace was written by the
 * hand-written one), and the doc table of docs/trace-format.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/trace/event_codec.h"
#include "core/trace/event_kinds.h"
#include "core/trace/trace.h"
#include "tests/lib/trace_builder.h"

#define ALL_KINDS_TRACE "tests/data/codec/all-kinds.trace"
#define MAX_EVENTS	80

/* The whole file at path, in a buffer the caller frees; *len its size. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data;
	long size;

	if (!f)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	assert_true(size >= 0);
	rewind(f);
	data = malloc((size_t)size + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
	data[size] = '\0';
	fclose(f);
	*len = (size_t)size;
	return data;
}

/* Every variant of every kind, written uncompressed to path. */
static void write_all_kinds(const char *path)
{
	struct wperf_event evs[MAX_EVENTS];
	uint64_t lost[1] = {0};
	struct wperf_trace_stats st = {
	    .start_ts = 1000000000ull, .end_ts = 2000000000ull, .ncpu = 1, .lost = lost};
	struct wperf_writer_opts opts = {.compress = 0};
	struct wperf_trace_writer *w;
	struct wperf_error err = {0};
	size_t n = tb_all_kinds(evs, MAX_EVENTS);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(wperf_trace_writer_new(fileno(f), &opts, &w, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(wperf_trace_writer_event(w, &evs[i], &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, &st, &err), 0);
	wperf_trace_writer_free(w);
	fclose(f);
}

/* A trace of every kind is written byte for byte as the committed one, and
 * reads back as the events it was made of. */
static void test_all_kinds_bytes(void **state)
{
	char path[] = "/tmp/wperf-test-kinds-XXXXXX";
	struct wperf_event evs[MAX_EVENTS], ev;
	size_t n = tb_all_kinds(evs, MAX_EVENTS), want_len, got_len, i = 0;
	struct wperf_trace *t;
	struct wperf_event_iter *it;
	struct wperf_error err = {0};
	char *want, *got;
	int fd = mkstemp(path), ret;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_all_kinds(path);
	want = slurp(ALL_KINDS_TRACE, &want_len);
	got = slurp(path, &got_len);
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
	free(want);
	free(got);
	unlink(path);

	assert_int_equal(wperf_trace_open(ALL_KINDS_TRACE, &t, &err), 0);
	assert_int_equal(wperf_event_iter_new(t, &it, &err), 0);
	while ((ret = wperf_event_iter_next(it, &ev, &err)) == 1) {
		assert_true(i < n);
		tb_assert_event_equal(&evs[i++], &ev);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(i, n);
	wperf_event_iter_free(it);
	wperf_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_kinds_bytes),
	};

	/* WPERF_WRITE_GOLDEN=1: (re)writes the committed trace, for a change of format. */
	if (getenv("WPERF_WRITE_GOLDEN"))
		write_all_kinds(ALL_KINDS_TRACE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
