/* SPDX-License-Identifier: MIT */
/*
 * The table of event kinds (core/trace/event_kinds.h) against what depends on
 * it: the bytes a trace of every kind is written as (the same as before the
 * table drove the encoder: tests/data/codec/all-kinds.trace was written by the
 * hand-written one), the hand-written fast decoder (it must read what the
 * table-driven checked one reads, on every committed trace and on events of
 * every kind with every field at its edges), and the doc table of
 * docs/trace-format.md.
 */
#include <ctype.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "core/trace/event_codec.h"
#include "core/trace/event_kinds.h"
#include "core/trace/trace.h"
#include "core/trace/trace_reader_internal.h"
#include "core/util/varint.h"
#include "tests/lib/trace_builder.h"

#define ALL_KINDS_TRACE "tests/data/codec/all-kinds.trace"
#define MAX_EVENTS	80

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
	want = tb_read_file(ALL_KINDS_TRACE, &want_len);
	got = tb_read_file(path, &got_len);
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

/*
 * Decodes the records of one EVENTS payload both ways: the checked decoder
 * reads each (none is corrupt), and whenever the fast one takes a record it
 * must give the same event and stop at the same byte. Returns how many it took.
 */
static size_t compare_decoders(const uint8_t *payload, size_t len)
{
	struct wperf_cursor c;
	const uint8_t *q;
	uint64_t count, prev;
	size_t nfast = 0;

	wperf_cursor_init(&c, payload, len);
	count = wperf_cur_count(&c, 2);
	prev = wperf_cur_le64(&c);
	assert_int_equal(c.err, 0);
	q = c.p;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *pc = q, *pf = q;
		uint64_t prev_checked = prev, prev_fast = prev;
		struct wperf_event checked, fast;
		const char *why = NULL;
		int ret = wperf_event_decode_checked(&pc, c.end, &prev_checked, &checked, &why);

		if (ret < 0)
			fail_msg("record %llu: %s", (unsigned long long)i, why);
		if (wperf_event_decode_fast(&pf, c.end, &prev_fast, &fast)) {
			assert_int_equal(ret, 1);
			assert_ptr_equal(pf, pc);
			assert_true(prev_fast == prev_checked);
			tb_assert_event_equal(&checked, &fast);
			nfast++;
		}
		q = pc;
		prev = prev_checked;
	}
	assert_ptr_equal(q, c.end);
	return nfast;
}

/* Every record of every EVENTS section of the trace at path; returns how many
 * the fast decoder took. */
static size_t compare_decoders_on(const char *path)
{
	struct wperf_trace *t;
	struct wperf_error err = {0};
	struct wperf_buf scratch = {0};
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	size_t nfast = 0;

	assert_non_null(dctx);
	if (wperf_trace_open(path, &t, &err) < 0)
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < t->events.len / sizeof(struct section); i++) {
		const struct section *s = (const struct section *)(void *)t->events.data + i;
		const uint8_t *payload;

		assert_int_equal(wperf_trace__section_payload(t, s, dctx, &scratch, &payload, &err),
				 0);
		nfast += compare_decoders(payload, s->raw);
	}
	wperf_buf_release(&scratch);
	ZSTD_freeDCtx(dctx);
	wperf_trace_free(t);
	return nfast;
}

/* Every committed trace: recordings of several workloads, and every kind. */
static void test_fast_decoder_on_committed_traces(void **state)
{
	glob_t g;

	(void)state;
	assert_int_equal(glob("tests/data/*.trace", 0, NULL, &g), 0);
	assert_int_equal(glob(ALL_KINDS_TRACE, GLOB_APPEND, NULL, &g), 0);
	assert_true(g.gl_pathc >= 2);
	for (size_t i = 0; i < g.gl_pathc; i++)
		/* every recording is mostly switches and wakeups, and so is all-kinds */
		if (compare_decoders_on(g.gl_pathv[i]) == 0)
			fail_msg("%s: the fast decoder took no record", g.gl_pathv[i]);
	globfree(&g);
}

/* The values at the edges of a field's type: around each varint length and
 * the type's limits. */
static size_t edge_values(uint8_t type, uint64_t *out)
{
	static const uint64_t u[] = {
	    0, 1, 127, 128, 16383, 16384, (1ull << 28) - 1, 1ull << 28, UINT32_MAX - 1, UINT32_MAX};
	static const int32_t s[] = {0, -1, 1, -64, 63, -65, 64, INT32_MIN, INT32_MAX};
	size_t n = 0;

	if (type == WPERF_FIELD_S32) {
		for (; n < sizeof(s) / sizeof(s[0]); n++)
			out[n] = (uint64_t)(int64_t)s[n];
		return n;
	}
	for (; n < sizeof(u) / sizeof(u[0]); n++)
		out[n] = u[n];
	if (type == WPERF_FIELD_U64) {
		out[n++] = 1ull << 35;
		out[n++] = UINT64_MAX - 1;
		out[n++] = UINT64_MAX;
	}
	if (type == WPERF_FIELD_U8)
		n = 4; /* 0, 1, 127, 128 */
	return n;
}

/* ev encoded, then read by the checked decoder alone and by the fast one with
 * room past the record: both give ev back. */
static void round_trip_both_ways(const struct wperf_event *ev)
{
	uint8_t padded[WPERF_RECORD_MAX + 128] = {0};
	struct wperf_buf b = {0};
	struct wperf_event got;
	uint64_t prev = ev->hdr.ts - 1000;
	const uint8_t *p;
	const char *why = NULL;
	/* the kinds the fast decoder takes: their fields are all u32 or s32 */
	static const unsigned fast_kinds[] = {
	    WPERF_EV_SWITCH,	    WPERF_EV_WAKEUP,	   WPERF_EV_WAKEUP_NEW,
	    WPERF_EV_HARDIRQ_ENTRY, WPERF_EV_HARDIRQ_EXIT, WPERF_EV_SOFTIRQ_ENTRY,
	    WPERF_EV_SOFTIRQ_EXIT,  WPERF_EV_NET_XMIT,	   WPERF_EV_NET_RECV};
	int fast_kind = 0;

	for (size_t i = 0; i < sizeof(fast_kinds) / sizeof(*fast_kinds); i++)
		fast_kind |= ev->hdr.kind == fast_kinds[i];

	assert_int_equal(wperf_event_encode(&b, ev, &prev), 0);
	p = b.data;
	prev = ev->hdr.ts - 1000;
	assert_int_equal(wperf_event_decode_checked(&p, b.data + b.len, &prev, &got, &why), 1);
	assert_ptr_equal(p, b.data + b.len);
	tb_assert_event_equal(ev, &got);

	memcpy(padded, b.data, b.len);
	p = padded;
	prev = ev->hdr.ts - 1000;
	/* a u32 or s32 takes five bytes at most, which the fast decoder reads */
	assert_int_equal(wperf_event_decode_fast(&p, padded + sizeof(padded), &prev, &got),
			 fast_kind);
	if (fast_kind) {
		assert_ptr_equal(p, padded + b.len);
		tb_assert_event_equal(ev, &got);
	}
	wperf_buf_release(&b);
}

/* Field f of an event of kind k at each of its edge values, the others ordinary. */
static void round_trip_edges(unsigned kind, const struct wperf_event_kind_info *k,
			     const struct wperf_field *f)
{
	uint64_t values[16];
	size_t n = f->type == WPERF_FIELD_COMM ? 0 : edge_values(f->type, values);

	for (size_t v = 0; v < n; v++) {
		struct wperf_event ev;

		tb_fill_event(&ev, kind, 0, 1000000);
		wperf_field_set(&ev, f, values[v]);
		/* the flags decide what the body holds: what they leave out decodes as 0 */
		for (size_t j = 0; j < k->nfields; j++)
			if (!wperf_event_has_field(k, &k->fields[j], &ev))
				wperf_field_set(&ev, &k->fields[j], 0);
		round_trip_both_ways(&ev);
	}
}

/* Every field of every kind at its edges, then whole events in every variant:
 * names of every length, flags set and not. */
static void test_decoders_on_every_field(void **state)
{
	struct wperf_event evs[MAX_EVENTS];
	size_t ncommon, n = tb_all_kinds(evs, MAX_EVENTS);
	const struct wperf_field *common = wperf_event_common_fields(&ncommon);

	(void)state;
	for (unsigned kind = 1; kind < WPERF_EV_KIND_MAX; kind++) {
		const struct wperf_event_kind_info *k = wperf_event_kind_info(kind);

		assert_non_null(k);
		for (size_t i = 0; i < ncommon; i++)
			round_trip_edges(kind, k, &common[i]);
		for (size_t i = 0; i < k->nfields; i++)
			round_trip_edges(kind, k, &k->fields[i]);
	}
	for (size_t i = 0; i < n; i++)
		if (evs[i].hdr.ts > 1000)
			round_trip_both_ways(&evs[i]);
}

/*
 * The doc table's row of kind k: "| N | NAME | fields |", fields as
 * docs/trace-format.md spells them (u: uvarint, s: svarint, str: u8 length and
 * bytes), a group of IF_FLAG fields after "with flags 0xF (1.M):", a group of
 * APPENDED ones after "since 1.M:".
 */
static void doc_row(unsigned kind, const struct wperf_event_kind_info *k, char *row, size_t size)
{
	static const char *const types[] = {"u8", "u", "s", "u", "str"};
	size_t len = (size_t)snprintf(row, size, "| %u | ", kind);

	for (const char *c = k->name; *c; c++)
		len += (size_t)snprintf(row + len, size - len, "%c", toupper((unsigned char)*c));
	if (k->since)
		len += (size_t)snprintf(row + len, size - len, " (1.%u)", k->since);
	len += (size_t)snprintf(row + len, size - len, " | %s", k->nfields ? "" : "(none)");
	for (size_t i = 0; i < k->nfields; i++) {
		const struct wperf_field *f = &k->fields[i];
		int starts = i == 0 || f[-1].presence != f->presence || f[-1].since != f->since;

		len += (size_t)snprintf(row + len, size - len, "%s", i ? ", " : "");
		if (starts && f->presence == WPERF_FIELD_IF_FLAG)
			len += (size_t)snprintf(row + len, size - len,
						"with flags 0x%x (1.%u): ", k->data_flag, f->since);
		if (starts && f->presence == WPERF_FIELD_APPENDED)
			len += (size_t)snprintf(row + len, size - len, "since 1.%u: ", f->since);
		len += (size_t)snprintf(row + len, size - len, "%s %s", types[f->type], f->name);
	}
	snprintf(row + len, size - len, " |");
}

/* The line, its cells' spaces squeezed to one ("|  1 |" -> "| 1 |"). */
static void squeeze(const char *line, char *out, size_t size)
{
	size_t n = 0;

	for (; *line && *line != '\n' && n + 1 < size; line++)
		if (*line != ' ' || (n && out[n - 1] != ' '))
			out[n++] = *line;
	out[n] = '\0';
}

/* docs/trace-format.md's table of event kinds, row by row, is the table's. */
static void test_doc_table(void **state)
{
	size_t len, nrows = 0;
	char *doc = tb_read_file("docs/trace-format.md", &len), want[512], got[512];
	const char *line = strstr(doc, "| kind | name | fields |");

	(void)state;
	assert_non_null(line);
	line = strchr(strchr(line, '\n') + 1, '\n') + 1; /* past the header and its rule */
	for (unsigned kind = 1; kind < WPERF_EV_KIND_MAX; kind++, nrows++) {
		const struct wperf_event_kind_info *k = wperf_event_kind_info(kind);

		doc_row(kind, k, want, sizeof(want));
		squeeze(line, got, sizeof(got));
		if (strcmp(got, want))
			fail_msg("docs/trace-format.md has\n%s\nwhere the table of kinds makes\n%s",
				 got, want);
		line = strchr(line, '\n') + 1;
	}
	if (*line == '|')
		fail_msg("docs/trace-format.md has a row of no kind: %.60s", line);
	assert_int_equal(nrows, WPERF_EV_KIND_MAX - 1);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_kinds_bytes),
	    cmocka_unit_test(test_fast_decoder_on_committed_traces),
	    cmocka_unit_test(test_decoders_on_every_field),
	    cmocka_unit_test(test_doc_table),
	};

	/* WPERF_WRITE_GOLDEN=1: (re)writes the committed trace, for a change of format. */
	if (getenv("WPERF_WRITE_GOLDEN"))
		write_all_kinds(ALL_KINDS_TRACE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
