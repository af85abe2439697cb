/* SPDX-License-Identifier: MIT */
/*
 * The COUNTERS sections of a trace (format 1.1): the kernel's own counters as
 * the recorder read them at the window's start and end, each decoded into a
 * store (counters.h) that the trace owns.
 *
 * The payload is untrusted: reads go through the bounds-checked cursor and
 * every count is checked against the bytes that could hold it before anything
 * is allocated. A row of fields is kept whatever its length: a later kernel may
 * have more fields, and the checks read those they know when they are there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
#include "core/trace/counters.h"
#include "core/trace/trace.h"
#include "core/trace/trace_reader_internal.h"
#include "core/util/varint.h"

/* What a section decodes with: its store, and room for one row's values. */
struct decoder {
	struct wperf_cursor *c;
	struct wperf_counters_store *s;
	struct wperf_buf row; /* uint64_t */
	char name[256], desc[256];
};

/* A uvarint-length string into buf (cut to its size: names are short). */
static const char *get_str(struct decoder *d, char *buf, size_t size)
{
	uint64_t len = wperf_cur_uvarint(d->c);
	const uint8_t *p = wperf_cur_bytes(d->c, len);
	size_t n = p ? (len < size ? len : size - 1) : 0;

	memcpy(buf, p ? (const char *)p : "", n);
	buf[n] = '\0';
	return buf;
}

/* A row, uvarint n then n uvarints, into d->row; its length, or -ENOMEM. */
static int64_t get_row(struct decoder *d)
{
	uint64_t n = wperf_cur_count32(d->c, 1);

	wperf_buf_clear(&d->row);
	if (d->c->err)
		return 0;
	if (wperf_buf_reserve(&d->row, n * sizeof(uint64_t)))
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = wperf_cur_uvarint(d->c);

		wperf_buf_append(&d->row, &v, sizeof(v)); /* reserved: cannot fail */
	}
	return (int64_t)n;
}

#define ROW(d) ((const uint64_t *)(const void *)(d)->row.data)

/* Each reads a count and its rows: 0, or -ENOMEM; a corrupt payload stops at
 * the cursor's error. */
/* Disks and interfaces: rows of two ids (major, minor; ifindex, type), a name
 * and the kernel's numbers, each stored by add. */
static int get_named_rows(struct decoder *d,
			  int (*add)(struct wperf_counters_store *s, uint32_t, uint32_t,
				     const char *, const uint64_t *, uint32_t))
{
	uint64_t n = wperf_cur_count(d->c, 4); /* two ids, name length, nfields */

	for (uint64_t i = 0; i < n && !d->c->err; i++) {
		uint32_t a = wperf_cur_u32(d->c), b = wperf_cur_u32(d->c);
		const char *name = get_str(d, d->name, sizeof(d->name));
		int64_t nf = get_row(d);

		if (nf < 0 || (!d->c->err && add(d->s, a, b, name, ROW(d), (uint32_t)nf)))
			return -ENOMEM;
	}
	return 0;
}

static int get_cpus(struct decoder *d)
{
	uint64_t n = wperf_cur_count(d->c, 2); /* cpu, nfields */

	for (uint64_t i = 0; i < n && !d->c->err; i++) {
		uint32_t cpu = wperf_cur_u32(d->c);
		int64_t nf = get_row(d);

		if (nf < 0 ||
		    (!d->c->err && wperf_counters_store_cpu(d->s, cpu, ROW(d), (uint32_t)nf)))
			return -ENOMEM;
	}
	return 0;
}

static int get_irqs(struct decoder *d, int soft)
{
	uint64_t n = wperf_cur_count(d->c, 3); /* name length, desc length, ncpu */

	for (uint64_t i = 0; i < n && !d->c->err; i++) {
		const char *name = get_str(d, d->name, sizeof(d->name));
		const char *desc = get_str(d, d->desc, sizeof(d->desc));
		int64_t nf = get_row(d);

		if (nf < 0 || (!d->c->err && wperf_counters_store_irq(d->s, soft, name, desc,
								      ROW(d), (uint32_t)nf)))
			return -ENOMEM;
	}
	return 0;
}

static int get_threads(struct decoder *d)
{
	uint64_t n = wperf_cur_count(d->c, 6); /* six varints */

	for (uint64_t i = 0; i < n && !d->c->err; i++) {
		struct wperf_thread_counters th;

		th.tid = wperf_cur_u32(d->c);
		th.tgid = wperf_cur_u32(d->c);
		th.ts = d->s->c.ts + (uint64_t)wperf_cur_svarint(d->c);
		th.run_ns = wperf_cur_uvarint(d->c);
		th.wait_ns = wperf_cur_uvarint(d->c);
		th.slices = wperf_cur_uvarint(d->c);
		if (!d->c->err && wperf_counters_store_thread(d->s, &th))
			return -ENOMEM;
	}
	return 0;
}

/* The payload after `when`, into d->s; -ENOMEM, or 0 (the cursor says if corrupt). */
static int decode(struct decoder *d)
{
	struct wperf_counters *k = &d->s->c;
	int ret;

	k->flags = wperf_cur_u32(d->c);
	k->hz = wperf_cur_u32(d->c);
	k->user_hz = wperf_cur_u32(d->c);
	k->irq_time = wperf_cur_u32(d->c);
	k->ts = wperf_cur_le64(d->c);
	ret = get_named_rows(d, wperf_counters_store_disk);
	if (!ret)
		ret = get_named_rows(d, wperf_counters_store_nic);
	if (!ret)
		ret = get_cpus(d);
	if (!ret)
		ret = get_irqs(d, 0);
	if (!ret)
		ret = get_irqs(d, 1);
	if (!ret)
		ret = get_threads(d);
	return ret;
}

int wperf_trace__load_counters(struct wperf_trace *t, const struct section *s,
			       struct wperf_cursor *c, struct wperf_error *err)
{
	uint64_t when = wperf_cur_uvarint(c);
	struct decoder d = {.c = c};
	int ret;

	if (c->err || when >= WPERF_TRACE_COUNTERS_MAX)
		return 0; /* corrupt (the cursor says), or a reading a later minor added */
	if (t->counters[when])
		return wperf_trace__fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
					    "a second COUNTERS section for the window's %s",
					    when == WPERF_COUNTERS_START ? "start" : "end");
	d.s = calloc(1, sizeof(*d.s));
	if (!d.s)
		return -ENOMEM;
	d.s->c.when = (uint32_t)when;
	ret = decode(&d);
	wperf_buf_release(&d.row);
	if (ret || c->err) {
		wperf_counters_store_release(d.s);
		free(d.s);
		return ret;
	}
	wperf_counters_store_finish(d.s);
	t->counters[when] = d.s;
	return 0;
}

void wperf_trace__free_counters(struct wperf_trace *t)
{
	for (unsigned i = 0; i < WPERF_TRACE_COUNTERS_MAX; i++) {
		if (t->counters[i])
			wperf_counters_store_release(t->counters[i]);
		free(t->counters[i]);
		t->counters[i] = NULL;
	}
}

const struct wperf_counters *wperf_trace_counters(const struct wperf_trace *t, unsigned when)
{
	return when < WPERF_TRACE_COUNTERS_MAX && t->counters[when] ? &t->counters[when]->c : NULL;
}
