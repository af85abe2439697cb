/* SPDX-License-Identifier: MIT */
/*
 * Writes a trace file (format: trace.h, docs/trace-format.md).
 *
 * Events are encoded into a batch as they come and the batch becomes one EVENTS
 * section when it is full; tables are written as sections when the caller hands
 * them over. Each section is compressed on its own, so a reader can decode them
 * one at a time. The writer keeps the file's totals for STATS and END.
 *
 * After a failed write the file is in an unknown state: the writer remembers
 * the error and refuses to go on, rather than produce a file that looks whole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "core/util/buf.h"
#include "core/trace/event_codec.h"
#include "core/trace/trace.h"
#include "core/util/varint.h"

#define DEFAULT_ZSTD_LEVEL	   1
#define DEFAULT_EVENTS_PER_SECTION 65536

/* Room kept at the start of a batch for its prelude: uvarint count + u64 base ts. */
#define PRELUDE_MAX (WPERF_VARINT_MAX + 8)

struct wperf_trace_writer {
	int fd;	      /* not ours: never closed */
	uint64_t off; /* bytes written so far */
	int failed;   /* the negative errno of a failed write; sticky */
	int finished;

	int compress;
	int zstd_level;
	uint32_t events_per_section;
	ZSTD_CCtx *cctx; /* reused: a context costs more to set up than a section to compress */

	/* The batch: PRELUDE_MAX spare bytes, then the records. */
	struct wperf_buf batch;
	uint32_t batch_count;
	uint64_t batch_base_ts;
	uint64_t batch_prev_ts; /* the ts that the next record's delta is taken from */

	struct wperf_buf table; /* a table section's payload while it is built */
	int table_err;		/* the first failed append to table */
	struct wperf_buf zbuf;	/* a section's compressed payload */

	/* The file's totals, for STATS and END. */
	uint64_t nsections;
	uint64_t nevents;
	uint64_t counts[WPERF_EV_KIND_MAX];
	uint64_t late_events;
	uint64_t last_ts; /* the previous event's ts, for late_events */
};

static int fail_errno(struct wperf_trace_writer *w, int code, uint64_t at, struct wperf_error *err)
{
	char sb[128];

	w->failed = code;
	return wperf_error_set(err, code, "writing trace at offset %llu: %s",
			       (unsigned long long)at, strerror_r(-code, sb, sizeof(sb)));
}

static int no_memory(struct wperf_error *err, const char *what)
{
	return wperf_error_set(err, -ENOMEM, "trace writer: out of memory %s", what);
}

/* The checks every call makes before it writes. */
static int check_usable(const struct wperf_trace_writer *w, struct wperf_error *err)
{
	if (w->failed)
		return wperf_error_set(err, w->failed,
				       "trace writer: an earlier write failed (offset %llu); "
				       "the file is incomplete",
				       (unsigned long long)w->off);
	if (w->finished)
		return wperf_error_set(err, -EINVAL, "trace writer: the trace is already finished");
	return 0;
}

/* write() until all n bytes are out: a pipe or a signal may cut a write short. */
static int write_all(struct wperf_trace_writer *w, const void *p, size_t n, struct wperf_error *err)
{
	const uint8_t *q = p;

	while (n > 0) {
		ssize_t r = write(w->fd, q, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return fail_errno(w, -errno, w->off, err);
		}
		if (r == 0) /* should not happen for a file; do not spin */
			return fail_errno(w, -EIO, w->off, err);
		q += r;
		n -= (size_t)r;
		w->off += (uint64_t)r;
	}
	return 0;
}

/*
 * Writes one section with raw as its payload. Compression is kept only when it
 * makes the payload smaller: tiny tables would grow by zstd's frame overhead.
 */
static int write_section(struct wperf_trace_writer *w, uint32_t kind, const uint8_t *raw,
			 size_t raw_len, int may_compress, struct wperf_error *err)
{
	const uint8_t *stored = raw;
	size_t stored_len = raw_len;
	uint32_t flags = 0;
	uint8_t hdr[WPERF_SECTION_HEADER_SIZE];
	int ret;

	if (w->compress && may_compress && raw_len > 0) {
		size_t bound = ZSTD_compressBound(raw_len);
		size_t z;

		if (wperf_buf_reserve(&w->zbuf, bound))
			return no_memory(err, "for a compressed section");
		z = ZSTD_compressCCtx(w->cctx, w->zbuf.data, bound, raw, raw_len, w->zstd_level);
		if (ZSTD_isError(z))
			return wperf_error_set(err, -EIO, "writing trace at offset %llu: zstd: %s",
					       (unsigned long long)w->off, ZSTD_getErrorName(z));
		if (z < raw_len) {
			stored = w->zbuf.data;
			stored_len = z;
			flags = WPERF_SECTION_ZSTD;
		}
	}

	wperf_put_le32(hdr, kind);
	wperf_put_le32(hdr + 4, flags);
	wperf_put_le64(hdr + 8, stored_len);
	wperf_put_le64(hdr + 16, raw_len);
	wperf_put_le32(hdr + 24, (uint32_t)crc32_z(0, stored, stored_len));
	wperf_put_le32(hdr + 28, 0);

	ret = write_all(w, hdr, sizeof(hdr), err);
	if (!ret)
		ret = write_all(w, stored, stored_len, err);
	if (!ret)
		w->nsections++;
	return ret;
}

int wperf_trace_writer_new(int fd, const struct wperf_writer_opts *opts,
			   struct wperf_trace_writer **out, struct wperf_error *err)
{
	struct wperf_trace_writer *w;
	uint8_t hdr[WPERF_TRACE_HEADER_SIZE];
	int ret;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return no_memory(err, "for the writer");
	w->fd = fd;
	w->compress = opts ? opts->compress : 1;
	w->zstd_level = opts && opts->zstd_level ? opts->zstd_level : DEFAULT_ZSTD_LEVEL;
	w->events_per_section = opts && opts->events_per_section ? opts->events_per_section
								 : DEFAULT_EVENTS_PER_SECTION;
	if (w->compress) {
		w->cctx = ZSTD_createCCtx();
		if (!w->cctx) {
			free(w);
			return no_memory(err, "for a zstd context");
		}
	}

	memcpy(hdr, WPERF_TRACE_MAGIC, 8);
	wperf_put_le16(hdr + 8, WPERF_TRACE_MAJOR);
	wperf_put_le16(hdr + 10, WPERF_TRACE_MINOR);
	wperf_put_le32(hdr + 12, WPERF_TRACE_HEADER_SIZE);
	ret = write_all(w, hdr, sizeof(hdr), err);
	if (ret) {
		wperf_trace_writer_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

int wperf_trace_writer_flush(struct wperf_trace_writer *w, struct wperf_error *err)
{
	uint8_t prelude[PRELUDE_MAX];
	size_t n;
	uint8_t *start;
	int ret = check_usable(w, err);

	if (ret || w->batch_count == 0)
		return ret;

	/* Put the prelude right before the records, in the room kept for it. */
	n = (size_t)(wperf_uvarint_put(prelude, w->batch_count) - prelude);
	wperf_put_le64(prelude + n, w->batch_base_ts);
	n += 8;
	start = w->batch.data + PRELUDE_MAX - n;
	memcpy(start, prelude, n);

	ret =
	    write_section(w, WPERF_SECTION_EVENTS, start, w->batch.len - (PRELUDE_MAX - n), 1, err);
	w->batch_count = 0;
	wperf_buf_clear(&w->batch);
	return ret;
}

int wperf_trace_writer_event(struct wperf_trace_writer *w, const struct wperf_event *ev,
			     struct wperf_error *err)
{
	int ret = check_usable(w, err);

	if (ret)
		return ret;
	if (!wperf_event_size(ev->hdr.kind))
		return wperf_error_set(err, -EINVAL, "trace writer: event kind %u is not known",
				       ev->hdr.kind);

	if (w->batch_count == 0) {
		wperf_buf_clear(&w->batch);
		if (wperf_buf_reserve(&w->batch, PRELUDE_MAX))
			return no_memory(err, "for an events section");
		w->batch.len = PRELUDE_MAX;
		w->batch_base_ts = ev->hdr.ts;
		w->batch_prev_ts = ev->hdr.ts;
	}
	if (wperf_event_encode(&w->batch, ev, &w->batch_prev_ts))
		return no_memory(err, "for an events section");

	w->batch_count++;
	if (w->nevents > 0 && ev->hdr.ts < w->last_ts)
		w->late_events++;
	w->last_ts = ev->hdr.ts;
	w->nevents++;
	w->counts[ev->hdr.kind]++;

	if (w->batch_count >= w->events_per_section)
		return wperf_trace_writer_flush(w, err);
	return 0;
}

/*
 * Table payloads are built with these appenders. The first failed append is kept
 * in table_err and the rest do nothing, so a table is written without checking
 * every field; table_end reports it, and checks the writer is usable before it
 * writes (building the payload in memory touches no file).
 */
static void table_begin(struct wperf_trace_writer *w)
{
	wperf_buf_clear(&w->table);
	w->table_err = 0;
}

static void put_uvarint(struct wperf_trace_writer *w, uint64_t v)
{
	if (!w->table_err)
		w->table_err = wperf_buf_append_uvarint(&w->table, v);
}

static void put_svarint(struct wperf_trace_writer *w, int64_t v)
{
	if (!w->table_err)
		w->table_err = wperf_buf_append_svarint(&w->table, v);
}

static void put_u64(struct wperf_trace_writer *w, uint64_t v)
{
	if (!w->table_err)
		w->table_err = wperf_buf_append_u64(&w->table, v);
}

static void put_bytes(struct wperf_trace_writer *w, const void *p, size_t n)
{
	if (!w->table_err)
		w->table_err = wperf_buf_append(&w->table, p, n);
}

/* A string as uvarint length + bytes. */
static void put_lstr(struct wperf_trace_writer *w, const char *s, size_t len)
{
	put_uvarint(w, len);
	put_bytes(w, s, len);
}

/* A table of rows: their count first, as trace.h has every such table. */
static void rows_begin(struct wperf_trace_writer *w, size_t n)
{
	table_begin(w);
	put_uvarint(w, n);
}

static int table_end(struct wperf_trace_writer *w, uint32_t kind, struct wperf_error *err)
{
	int ret = check_usable(w, err);

	if (ret)
		return ret;
	if (w->table_err)
		return no_memory(err, "for a table section");
	return write_section(w, kind, w->table.data, w->table.len, 1, err);
}

int wperf_trace_writer_meta(struct wperf_trace_writer *w, const char *const *keys,
			    const char *const *values, size_t n, struct wperf_error *err)
{
	table_begin(w);
	/* key\0value\0 pairs, as trace.h has it: no count, the pairs fill the payload. */
	for (size_t i = 0; i < n; i++) {
		if (!keys[i] || !values[i])
			return wperf_error_set(err, -EINVAL, "trace writer: META pair %zu is NULL",
					       i);
		put_bytes(w, keys[i], strlen(keys[i]) + 1);
		put_bytes(w, values[i], strlen(values[i]) + 1);
	}
	return table_end(w, WPERF_SECTION_META, err);
}

int wperf_trace_writer_threads(struct wperf_trace_writer *w, const struct wperf_thread *t, size_t n,
			       struct wperf_error *err)
{
	rows_begin(w, n);
	for (size_t i = 0; i < n; i++) {
		put_uvarint(w, t[i].tid);
		put_uvarint(w, t[i].tgid);
		put_uvarint(w, t[i].ppid);
		put_lstr(w, t[i].comm, strnlen(t[i].comm, WPERF_COMM_LEN - 1));
	}
	return table_end(w, WPERF_SECTION_THREADS, err);
}

int wperf_trace_writer_stacks(struct wperf_trace_writer *w, const struct wperf_stack *s, size_t n,
			      struct wperf_error *err)
{
	rows_begin(w, n);
	for (size_t i = 0; i < n; i++) {
		uint8_t user = s[i].user != 0;
		uint64_t prev = 0;

		if (s[i].nr && !s[i].ips)
			return wperf_error_set(err, -EINVAL,
					       "trace writer: stack %d has %u frames but no ips",
					       s[i].id, s[i].nr);
		put_svarint(w, s[i].id);
		put_bytes(w, &user, 1);
		put_uvarint(w, s[i].nr);
		/*
		 * Frames as deltas from the previous frame: return addresses of one
		 * stack sit close together, so most deltas take 2-4 bytes, not 8-10.
		 */
		for (uint32_t j = 0; j < s[i].nr; j++) {
			put_svarint(w, (int64_t)(s[i].ips[j] - prev));
			prev = s[i].ips[j];
		}
	}
	return table_end(w, WPERF_SECTION_STACKS, err);
}

int wperf_trace_writer_mappings(struct wperf_trace_writer *w, const struct wperf_mapping *m,
				size_t n, struct wperf_error *err)
{
	rows_begin(w, n);
	for (size_t i = 0; i < n; i++) {
		const char *path = m[i].path ? m[i].path : "";

		if (m[i].build_id_len > sizeof(m[i].build_id))
			return wperf_error_set(
			    err, -EINVAL, "trace writer: mapping %zu has a build id of %u bytes", i,
			    m[i].build_id_len);
		put_uvarint(w, m[i].tgid);
		put_uvarint(w, m[i].start);
		put_uvarint(w, m[i].end);
		put_uvarint(w, m[i].pgoff);
		put_bytes(w, &m[i].build_id_len, 1);
		put_bytes(w, m[i].build_id, m[i].build_id_len);
		put_lstr(w, path, strlen(path));
	}
	return table_end(w, WPERF_SECTION_MAPPINGS, err);
}

int wperf_trace_writer_ksyms(struct wperf_trace_writer *w, const struct wperf_ksym *k, size_t n,
			     struct wperf_error *err)
{
	rows_begin(w, n);
	for (size_t i = 0; i < n; i++) {
		const char *name = k[i].name ? k[i].name : "";

		/* Kernel addresses have their top bits set: 8 fixed bytes beat a 10-byte varint. */
		put_u64(w, k[i].addr);
		put_lstr(w, name, strlen(name));
	}
	return table_end(w, WPERF_SECTION_KSYMS, err);
}

int wperf_trace_writer_stack_copies(struct wperf_trace_writer *w, const struct wperf_stack_copy *c,
				    size_t n, struct wperf_error *err)
{
	rows_begin(w, n);
	for (size_t i = 0; i < n; i++) {
		if (c[i].nregs > WPERF_COPY_REGS || (c[i].size && !c[i].bytes))
			return wperf_error_set(err, -EINVAL,
					       "trace writer: stack copy %d has %u registers and "
					       "%u bytes%s",
					       c[i].id, c[i].nregs, c[i].size,
					       c[i].bytes ? "" : " but no data");
		put_svarint(w, c[i].id);
		put_uvarint(w, c[i].tgid);
		put_uvarint(w, c[i].tid);
		put_uvarint(w, c[i].ip);
		put_uvarint(w, c[i].base);
		put_uvarint(w, c[i].nregs);
		for (uint32_t r = 0; r < c[i].nregs; r++)
			put_uvarint(w, c[i].regs[r]);
		put_uvarint(w, c[i].size);
		put_bytes(w, c[i].bytes, c[i].size);
	}
	return table_end(w, WPERF_SECTION_STACK_COPIES, err);
}

int wperf_trace_writer_perfmap(struct wperf_trace_writer *w, const struct wperf_perfmap *p,
			       struct wperf_error *err)
{
	table_begin(w);
	if (p->len && !p->text)
		return wperf_error_set(err, -EINVAL, "trace writer: perf map of %u has no text",
				       p->tgid);
	put_uvarint(w, p->tgid);
	put_lstr(w, p->text, p->len);
	return table_end(w, WPERF_SECTION_PERFMAP, err);
}

/* A string as put_lstr, NULL as "". */
static void put_str(struct wperf_trace_writer *w, const char *s)
{
	put_lstr(w, s ? s : "", s ? strlen(s) : 0);
}

/* A row of counters: uvarint n, n uvarints. */
static void put_fields(struct wperf_trace_writer *w, uint32_t n, const uint64_t *f)
{
	put_uvarint(w, n);
	for (uint32_t i = 0; i < n; i++)
		put_uvarint(w, f[i]);
}

/* A disk's or an interface's row: two ids (major, minor; ifindex, type), a
 * name and the kernel's numbers (the reader's get_named_rows). */
static void put_named_row(struct wperf_trace_writer *w, uint32_t a, uint32_t b, const char *name,
			  uint32_t nfields, const uint64_t *fields)
{
	put_uvarint(w, a);
	put_uvarint(w, b);
	put_str(w, name);
	put_fields(w, nfields, fields);
}

static void put_irq_rows(struct wperf_trace_writer *w, const struct wperf_irq_counters *r, size_t n)
{
	put_uvarint(w, n);
	for (size_t i = 0; i < n; i++) {
		put_str(w, r[i].name);
		put_str(w, r[i].desc);
		put_fields(w, r[i].ncpu, r[i].counts);
	}
}

/* Are the arrays of c there, and each row's fields? */
static int counters_complete(const struct wperf_counters *c)
{
	int ok = (!c->ndisks || c->disks) && (!c->nnics || c->nics) && (!c->ncpus || c->cpus) &&
		 (!c->nirqs || c->irqs) && (!c->nsoftirqs || c->softirqs) &&
		 (!c->nthreads || c->threads);

	for (size_t i = 0; ok && i < c->ndisks; i++)
		ok = !c->disks[i].nfields || c->disks[i].fields;
	for (size_t i = 0; ok && i < c->nnics; i++)
		ok = !c->nics[i].nfields || c->nics[i].fields;
	for (size_t i = 0; ok && i < c->ncpus; i++)
		ok = !c->cpus[i].nfields || c->cpus[i].fields;
	for (size_t i = 0; ok && i < c->nirqs; i++)
		ok = !c->irqs[i].ncpu || c->irqs[i].counts;
	for (size_t i = 0; ok && i < c->nsoftirqs; i++)
		ok = !c->softirqs[i].ncpu || c->softirqs[i].counts;
	return ok;
}

int wperf_trace_writer_counters(struct wperf_trace_writer *w, const struct wperf_counters *c,
				struct wperf_error *err)
{
	table_begin(w);
	if (!counters_complete(c))
		return wperf_error_set(err, -EINVAL,
				       "trace writer: counters with a count but no array");
	put_uvarint(w, c->when);
	put_uvarint(w, c->flags);
	put_uvarint(w, c->hz);
	put_uvarint(w, c->user_hz);
	put_uvarint(w, c->irq_time);
	put_u64(w, c->ts);
	put_uvarint(w, c->ndisks);
	for (size_t i = 0; i < c->ndisks; i++) {
		const struct wperf_disk_counters *d = &c->disks[i];

		put_named_row(w, d->major, d->minor, d->name, d->nfields, d->fields);
	}
	put_uvarint(w, c->nnics);
	for (size_t i = 0; i < c->nnics; i++) {
		const struct wperf_nic_counters *n = &c->nics[i];

		put_named_row(w, n->ifindex, n->type, n->name, n->nfields, n->fields);
	}
	put_uvarint(w, c->ncpus);
	for (size_t i = 0; i < c->ncpus; i++) {
		put_uvarint(w, c->cpus[i].cpu);
		put_fields(w, c->cpus[i].nfields, c->cpus[i].fields);
	}
	put_irq_rows(w, c->irqs, c->nirqs);
	put_irq_rows(w, c->softirqs, c->nsoftirqs);
	put_uvarint(w, c->nthreads);
	for (size_t i = 0; i < c->nthreads; i++) {
		const struct wperf_thread_counters *th = &c->threads[i];

		put_uvarint(w, th->tid);
		put_uvarint(w, th->tgid);
		/* Read a moment after c->ts (or, for a thread read first, before it). */
		put_svarint(w, (int64_t)(th->ts - c->ts));
		put_uvarint(w, th->run_ns);
		put_uvarint(w, th->wait_ns);
		put_uvarint(w, th->slices);
	}
	return table_end(w, WPERF_SECTION_COUNTERS, err);
}

static int write_stats(struct wperf_trace_writer *w, const struct wperf_trace_stats *st,
		       struct wperf_error *err)
{
	static const struct wperf_trace_stats none;
	table_begin(w);
	if (!st)
		st = &none;
	put_u64(w, st->start_ts);
	put_u64(w, st->end_ts);
	put_uvarint(w, st->ncpu);
	for (uint32_t i = 0; i < st->ncpu; i++)
		put_uvarint(w, st->lost ? st->lost[i] : 0);
	put_uvarint(w, st->stack_lost);
	put_uvarint(w, st->stack_fault);
	put_uvarint(w, w->late_events);
	/* The number of kinds goes first, so readers with fewer or more kinds agree. */
	put_uvarint(w, WPERF_EV_KIND_MAX);
	for (unsigned k = 0; k < WPERF_EV_KIND_MAX; k++)
		put_uvarint(w, w->counts[k]);
	return table_end(w, WPERF_SECTION_STATS, err);
}

int wperf_trace_writer_finish(struct wperf_trace_writer *w, const struct wperf_trace_stats *stats,
			      struct wperf_error *err)
{
	uint8_t end[16];
	int ret;

	ret = wperf_trace_writer_flush(w, err);
	if (!ret)
		ret = write_stats(w, stats, err);
	if (ret)
		return ret;
	/* END is never compressed: a reader finds the totals without zstd. */
	wperf_put_le64(end, w->nsections);
	wperf_put_le64(end + 8, w->nevents);
	ret = write_section(w, WPERF_SECTION_END, end, sizeof(end), 0, err);
	if (!ret)
		w->finished = 1;
	return ret;
}

uint64_t wperf_trace_writer_offset(const struct wperf_trace_writer *w)
{
	return w->off;
}

void wperf_trace_writer_free(struct wperf_trace_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	wperf_buf_release(&w->batch);
	wperf_buf_release(&w->table);
	wperf_buf_release(&w->zbuf);
	free(w);
}
