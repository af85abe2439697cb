/* SPDX-License-Identifier: MIT */
/*
 * The event iterator: it loads the EVENTS sections one at a time, in file
 * order, decompressing each into a buffer it reuses, and decodes their records
 * with event_codec.c. wperf_trace_open checked the sections' headers and CRCs;
 * the records are checked here, as they are read, and END's event total once the
 * last section is done.
 */
#include <errno.h>
#include <stdlib.h>

#include <zstd.h>

#include "core/util/buf.h"
#include "core/trace/event_codec.h"
#include "core/trace/trace.h"
#include "core/trace/trace_reader_internal.h"
#include "core/util/varint.h"

struct wperf_event_iter {
	const struct wperf_trace *t;
	ZSTD_DCtx *dctx;
	struct wperf_buf scratch;	  /* a decompressed section, reused */
	size_t next;			  /* the index in t->events of the next section to load */
	const struct section *sec;	  /* the section being read, or NULL */
	const uint8_t *payload, *p, *end; /* its records: start, cursor, end */
	uint64_t count;			  /* records the section holds */
	uint64_t left;			  /* records not read yet */
	uint64_t prev_ts;
	uint64_t nrecords; /* records read in all, to check END's total */
	int done;
	struct wperf_error failed; /* an error repeats on every later call */
};

int wperf_event_iter_new(const struct wperf_trace *t, struct wperf_event_iter **out,
			 struct wperf_error *err)
{
	struct wperf_event_iter *it = calloc(1, sizeof(*it));

	*out = NULL;
	if (!it || !(it->dctx = ZSTD_createDCtx())) {
		free(it);
		return wperf_error_set(err, -ENOMEM, "%s: out of memory for an event iterator",
				       t->path);
	}
	it->t = t;
	*out = it;
	return 0;
}

/* Records the iterator's error: every later call returns it again. */
static int iter_fail(struct wperf_event_iter *it, struct wperf_error *err)
{
	it->failed = *err;
	return err->code;
}

/* Loads the next EVENTS section and reads its prelude. */
static int iter_load(struct wperf_event_iter *it, struct wperf_error *err)
{
	const struct wperf_trace *t = it->t;
	const struct section *s = (const struct section *)(void *)t->events.data + it->next;
	struct wperf_cursor c;
	const uint8_t *p;
	int ret;

	ret = wperf_trace__section_payload(t, s, it->dctx, &it->scratch, &p, err);
	if (ret)
		return ret;
	wperf_cursor_init(&c, p, s->raw);
	it->count = wperf_cur_count(&c, 2); /* a record is 2 bytes at least */
	it->prev_ts = wperf_cur_le64(&c);
	if (c.err)
		return wperf_trace__table_error(t, s, p, &c, err);
	it->sec = s;
	it->payload = p;
	it->p = c.p;
	it->end = c.end;
	it->left = it->count;
	it->next++;
	return 0;
}

int wperf_event_iter_next(struct wperf_event_iter *it, struct wperf_event *ev,
			  struct wperf_error *err)
{
	struct wperf_error tmp;
	const struct wperf_trace *t = it->t;
	const char *why;
	int ret;

	if (!err)
		err = &tmp; /* we keep the message even when the caller does not */
	if (it->failed.code)
		return wperf_error_set(err, it->failed.code, "%s", it->failed.msg);
	if (it->done)
		return 0;
	for (;;) {
		while (it->left > 0) {
			const uint8_t *rec = it->p;

			if (rec == it->end) {
				wperf_trace__fail_at(
				    err, -EBADMSG, t->path, "corrupt", it->sec->off,
				    "EVENTS section ends after %llu of its %llu records",
				    (unsigned long long)(it->count - it->left),
				    (unsigned long long)it->count);
				return iter_fail(it, err);
			}
			ret = wperf_event_decode(&it->p, it->end, &it->prev_ts, ev, &why);
			if (ret < 0) {
				wperf_trace__fail_at(
				    err, ret, t->path, "corrupt", it->sec->off,
				    "EVENTS section, record at payload byte %zu: %s",
				    (size_t)(rec - it->payload), why);
				return iter_fail(it, err);
			}
			it->left--;
			it->nrecords++;
			if (ret == 1)
				return 1;
		}
		if (it->sec && it->p != it->end) {
			wperf_trace__fail_at(err, -EBADMSG, t->path, "corrupt", it->sec->off,
					     "EVENTS section has %zu bytes after its %llu records",
					     (size_t)(it->end - it->p),
					     (unsigned long long)it->count);
			return iter_fail(it, err);
		}
		if (it->next == t->events.len / sizeof(struct section)) {
			if (it->nrecords != t->end_nevents) {
				wperf_trace__fail_at(
				    err, -EBADMSG, t->path, "corrupt", t->size,
				    "END promises %llu events, the EVENTS sections hold %llu",
				    (unsigned long long)t->end_nevents,
				    (unsigned long long)it->nrecords);
				return iter_fail(it, err);
			}
			it->done = 1;
			return 0;
		}
		ret = iter_load(it, err);
		if (ret)
			return iter_fail(it, err);
	}
}

void wperf_event_iter_free(struct wperf_event_iter *it)
{
	if (!it)
		return;
	ZSTD_freeDCtx(it->dctx);
	wperf_buf_release(&it->scratch);
	free(it);
}
