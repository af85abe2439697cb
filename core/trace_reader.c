/* SPDX-License-Identifier: MIT */
/*
 * Reads a trace file (format: trace.h, docs/trace-format.md).
 *
 * The file is mapped, not read: traces of a gigabyte are common and most of the
 * bytes are events that are decoded one section at a time by the iterator.
 * wperf_trace_open walks every section header, checks every CRC, decodes the
 * tables into arrays owned by the trace and insists on the END section, so that
 * a trace that opens is a complete one.
 *
 * The input is untrusted: every length is checked against the bytes that are
 * really there before it is used, and every count against the bytes that could
 * hold it before anything is allocated for it. Errors name the file and the byte
 * offset of the section (and the byte within its payload) where the problem is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "buf.h"
#include "event_codec.h"
#include "trace.h"
#include "varint.h"

/*
 * The most a zstd frame can expand: every block has a header of 3 bytes and
 * holds at most 128 KiB. A raw size above stored size times this is a lie, and
 * refusing it keeps a corrupt header from making us allocate gigabytes.
 */
#define ZSTD_MAX_EXPANSION ((128 * 1024) / 3 + 1)

/* A section as found in the file. */
struct section {
	uint64_t off; /* of its header: what messages name */
	uint32_t kind;
	uint32_t flags;
	uint64_t stored;
	uint64_t raw;
	const uint8_t *payload; /* stored bytes, in the mapping */
};

/* A META pair, as offsets into the string arena. */
struct meta_kv {
	size_t key;
	size_t value;
};

struct wperf_trace {
	char *path;
	uint8_t *map; /* the whole file, read-only */
	size_t size;
	uint16_t minor;

	/*
	 * Strings and stack frames of every table live in two arenas. They grow (and
	 * move) while the file loads, so the pointer fields of the tables hold arena
	 * offsets until resolve_pointers() turns them into pointers at the end.
	 */
	struct wperf_buf arena; /* NUL-terminated strings */
	struct wperf_buf ips;	/* uint64_t frames */

	struct wperf_buf meta;	   /* struct meta_kv */
	struct wperf_buf threads;  /* struct wperf_thread */
	struct wperf_buf stacks;   /* struct wperf_stack, sorted by (user, id) */
	struct wperf_buf mappings; /* struct wperf_mapping */
	struct wperf_buf ksyms;	   /* struct wperf_ksym */
	struct wperf_buf perfmaps; /* struct wperf_perfmap */
	struct wperf_buf lost;	   /* uint64_t, stats.lost */
	struct wperf_trace_stats stats;
	int have_stats;

	struct wperf_buf events; /* struct section: the EVENTS sections, in file order */
	uint64_t end_nevents;	 /* the total that END promises */
};

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

static const char *section_name(uint32_t kind)
{
	static const char *const names[] = {
	    [WPERF_SECTION_META] = "META",	   [WPERF_SECTION_EVENTS] = "EVENTS",
	    [WPERF_SECTION_THREADS] = "THREADS",   [WPERF_SECTION_STACKS] = "STACKS",
	    [WPERF_SECTION_MAPPINGS] = "MAPPINGS", [WPERF_SECTION_KSYMS] = "KSYMS",
	    [WPERF_SECTION_PERFMAP] = "PERFMAP",   [WPERF_SECTION_STATS] = "STATS",
	    [WPERF_SECTION_END] = "END",
	};

	if (kind < sizeof(names) / sizeof(names[0]) && names[kind])
		return names[kind];
	return "unknown";
}

/* Sets err to "PATH: WHAT at offset OFF: message". */
static int __attribute__((format(printf, 6, 7)))
fail_at(struct wperf_error *err, int code, const char *path, const char *what, uint64_t off,
	const char *fmt, ...)
{
	char msg[WPERF_ERROR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wperf_error_set(err, code, "%s: %s at offset %llu: %s", path, what,
			       (unsigned long long)off, msg);
}

/* ---- section payloads ---- */

/*
 * Checks what can be checked of a section without decompressing it: its flags,
 * and that its raw size agrees with the stored bytes.
 */
static int check_section(const struct wperf_trace *t, const struct section *s,
			 struct wperf_error *err)
{
	const char *name = section_name(s->kind);
	unsigned long long fcs;

	if (s->flags & ~(uint32_t)WPERF_SECTION_ZSTD)
		return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
			       "%s section has unknown flags 0x%x", name, s->flags);
	if (!(s->flags & WPERF_SECTION_ZSTD)) {
		if (s->stored != s->raw)
			return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
				       "%s section stores %llu bytes but says it holds %llu", name,
				       (unsigned long long)s->stored, (unsigned long long)s->raw);
		return 0;
	}
	if (s->raw > SIZE_MAX || s->raw / ZSTD_MAX_EXPANSION > s->stored)
		return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
			       "%s section: %llu compressed bytes cannot hold %llu", name,
			       (unsigned long long)s->stored, (unsigned long long)s->raw);
	fcs = ZSTD_getFrameContentSize(s->payload, s->stored);
	if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN)
		return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
			       "%s section: the payload is not a zstd frame with a content size",
			       name);
	if (fcs != s->raw)
		return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
			       "%s section: the zstd frame decompresses to %llu bytes, the "
			       "header says %llu",
			       name, fcs, (unsigned long long)s->raw);
	return 0;
}

/*
 * The raw payload of a checked section: its mapped bytes, or its frame
 * decompressed into scratch.
 */
static int section_payload(const struct wperf_trace *t, const struct section *s, ZSTD_DCtx *dctx,
			   struct wperf_buf *scratch, const uint8_t **out, struct wperf_error *err)
{
	size_t n;

	if (!(s->flags & WPERF_SECTION_ZSTD)) {
		*out = s->payload;
		return 0;
	}
	wperf_buf_clear(scratch);
	if (wperf_buf_reserve(scratch, s->raw))
		return fail_at(err, -ENOMEM, t->path, "reading", s->off,
			       "out of memory for a %s section of %llu bytes",
			       section_name(s->kind), (unsigned long long)s->raw);
	n = ZSTD_decompressDCtx(dctx, scratch->data, s->raw, s->payload, s->stored);
	if (ZSTD_isError(n))
		return fail_at(err, -EBADMSG, t->path, "corrupt", s->off, "%s section: zstd: %s",
			       section_name(s->kind), ZSTD_getErrorName(n));
	if (n != s->raw)
		return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
			       "%s section decompresses to %zu bytes, the header says %llu",
			       section_name(s->kind), n, (unsigned long long)s->raw);
	scratch->len = n;
	*out = scratch->data;
	return 0;
}

/* ---- tables ---- */

/* The error for a table whose payload did not decode; c->p is where it stopped. */
static int table_error(const struct wperf_trace *t, const struct section *s, const uint8_t *payload,
		       const struct wperf_cursor *c, struct wperf_error *err)
{
	return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
		       "%s section, payload byte %zu: %s", section_name(s->kind),
		       (size_t)(c->p - payload), wperf_decode_strerror(c->err));
}

/* Makes room for one more element of size bytes in b and returns it, zeroed. */
static void *push(struct wperf_buf *b, size_t size)
{
	void *e;

	if (wperf_buf_reserve(b, size))
		return NULL;
	e = b->data + b->len;
	memset(e, 0, size);
	b->len += size;
	return e;
}

/* Copies a uvarint-length string into the arena; returns its offset, or SIZE_MAX. */
static size_t arena_lstr(struct wperf_trace *t, struct wperf_cursor *c, size_t *len_out)
{
	uint64_t len = wperf_cur_uvarint(c);
	const uint8_t *s = wperf_cur_bytes(c, len);
	size_t off = t->arena.len;

	if (!s)
		return 0; /* the cursor has the error; the caller checks it */
	if (wperf_buf_reserve(&t->arena, len + 1))
		return SIZE_MAX;
	wperf_buf_append(&t->arena, s, len);
	wperf_buf_append(&t->arena, "", 1);
	if (len_out)
		*len_out = len;
	return off;
}

#define AS_PTR(off) ((const void *)(uintptr_t)(off)) /* an arena offset, until resolved */
#define AS_OFF(ptr) ((size_t)(uintptr_t)(ptr))

static int load_meta(struct wperf_trace *t, const struct section *s, const uint8_t *p, size_t n,
		     struct wperf_error *err)
{
	size_t i = 0;

	/* key\0value\0 pairs to the end of the payload; no count. */
	while (i < n) {
		const uint8_t *k = p + i, *kend = memchr(k, 0, n - i), *v, *vend;
		struct meta_kv *kv;

		v = kend ? kend + 1 : NULL;
		vend = v && v < p + n ? memchr(v, 0, (size_t)(p + n - v)) : NULL;
		if (!vend)
			return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
				       "META section, payload byte %zu: a key without a "
				       "NUL-terminated value",
				       i);
		kv = push(&t->meta, sizeof(*kv));
		if (!kv)
			return -ENOMEM;
		kv->key = t->arena.len;
		if (wperf_buf_append(&t->arena, k, (size_t)(vend - k) + 1))
			return -ENOMEM;
		kv->value = kv->key + (size_t)(v - k);
		i = (size_t)(vend + 1 - p);
	}
	return 0;
}

static int load_threads(struct wperf_trace *t, struct wperf_cursor *c)
{
	/* The smallest thread is 4 bytes: three one-byte ids and an empty name. */
	uint64_t n = wperf_cur_count(c, 4);

	if (wperf_buf_reserve(&t->threads, n * sizeof(struct wperf_thread)))
		return -ENOMEM;
	for (uint64_t i = 0; i < n && !c->err; i++) {
		struct wperf_thread *th = push(&t->threads, sizeof(*th)); /* reserved: no NULL */
		uint64_t len;
		const uint8_t *comm;

		th->tid = wperf_cur_u32(c);
		th->tgid = wperf_cur_u32(c);
		th->ppid = wperf_cur_u32(c);
		len = wperf_cur_uvarint(c);
		comm = wperf_cur_bytes(c, len);
		if (comm)
			memcpy(th->comm, comm, len < WPERF_COMM_LEN ? len : WPERF_COMM_LEN - 1);
	}
	return 0;
}

static int load_stacks(struct wperf_trace *t, struct wperf_cursor *c)
{
	uint64_t n = wperf_cur_count(c, 3); /* id, user, nr: a byte each at least */

	if (wperf_buf_reserve(&t->stacks, n * sizeof(struct wperf_stack)))
		return -ENOMEM;
	for (uint64_t i = 0; i < n && !c->err; i++) {
		struct wperf_stack *st = push(&t->stacks, sizeof(*st)); /* reserved */
		uint64_t nr, ip = 0;
		uint64_t *ips;

		st->id = wperf_cur_s32(c);
		st->user = wperf_cur_u8(c) != 0;
		nr = wperf_cur_count(c, 1);
		if (nr > UINT32_MAX)
			wperf_cursor_fail(c, WPERF_DEC_RANGE);
		if (c->err)
			break;
		st->nr = (uint32_t)nr;
		st->ips = AS_PTR(t->ips.len / sizeof(uint64_t));
		if (nr == 0)
			continue;
		if (wperf_buf_reserve(&t->ips, nr * sizeof(uint64_t)))
			return -ENOMEM;
		ips = (uint64_t *)(void *)(t->ips.data + t->ips.len);
		for (uint64_t j = 0; j < nr; j++) {
			ip += (uint64_t)wperf_cur_svarint(c);
			ips[j] = ip;
		}
		t->ips.len += nr * sizeof(uint64_t);
	}
	return 0;
}

static int load_mappings(struct wperf_trace *t, struct wperf_cursor *c)
{
	/* tgid, start, end, pgoff, build id length, path length: 6 bytes at least */
	uint64_t n = wperf_cur_count(c, 6);

	if (wperf_buf_reserve(&t->mappings, n * sizeof(struct wperf_mapping)))
		return -ENOMEM;
	for (uint64_t i = 0; i < n && !c->err; i++) {
		struct wperf_mapping *m = push(&t->mappings, sizeof(*m)); /* reserved */
		const uint8_t *bid;
		size_t path;

		m->tgid = wperf_cur_u32(c);
		m->start = wperf_cur_uvarint(c);
		m->end = wperf_cur_uvarint(c);
		m->pgoff = wperf_cur_uvarint(c);
		m->build_id_len = wperf_cur_u8(c);
		if (m->build_id_len > sizeof(m->build_id))
			wperf_cursor_fail(c, WPERF_DEC_RANGE);
		bid = wperf_cur_bytes(c, m->build_id_len);
		if (bid)
			memcpy(m->build_id, bid, m->build_id_len);
		path = arena_lstr(t, c, NULL);
		if (path == SIZE_MAX)
			return -ENOMEM;
		m->path = AS_PTR(path);
	}
	return 0;
}

static int load_ksyms(struct wperf_trace *t, struct wperf_cursor *c)
{
	uint64_t n = wperf_cur_count(c, 9); /* u64 addr, name length */

	if (wperf_buf_reserve(&t->ksyms, n * sizeof(struct wperf_ksym)))
		return -ENOMEM;
	for (uint64_t i = 0; i < n && !c->err; i++) {
		struct wperf_ksym *k = push(&t->ksyms, sizeof(*k)); /* reserved */
		size_t name;

		k->addr = wperf_cur_le64(c);
		name = arena_lstr(t, c, NULL);
		if (name == SIZE_MAX)
			return -ENOMEM;
		k->name = AS_PTR(name);
	}
	return 0;
}

static int load_perfmap(struct wperf_trace *t, struct wperf_cursor *c)
{
	struct wperf_perfmap *pm = push(&t->perfmaps, sizeof(*pm));
	size_t text, len = 0;

	if (!pm)
		return -ENOMEM;
	pm->tgid = wperf_cur_u32(c);
	text = arena_lstr(t, c, &len);
	if (text == SIZE_MAX)
		return -ENOMEM;
	pm->text = AS_PTR(text);
	pm->len = len;
	return 0;
}

static int load_stats(struct wperf_trace *t, const struct section *s, struct wperf_cursor *c,
		      struct wperf_error *err)
{
	struct wperf_trace_stats *st = &t->stats;
	uint64_t ncpu, nkinds;

	if (t->have_stats)
		return fail_at(err, -EBADMSG, t->path, "corrupt", s->off, "a second STATS section");
	t->have_stats = 1;
	st->start_ts = wperf_cur_le64(c);
	st->end_ts = wperf_cur_le64(c);
	ncpu = wperf_cur_count(c, 1);
	if (ncpu > UINT32_MAX)
		wperf_cursor_fail(c, WPERF_DEC_RANGE);
	if (c->err)
		return 0;
	st->ncpu = (uint32_t)ncpu;
	if (wperf_buf_reserve(&t->lost, ncpu * sizeof(uint64_t)))
		return -ENOMEM;
	for (uint64_t i = 0; i < ncpu; i++) {
		uint64_t v = wperf_cur_uvarint(c);

		wperf_buf_append(&t->lost, &v, sizeof(v));
	}
	st->stack_lost = wperf_cur_uvarint(c);
	st->stack_fault = wperf_cur_uvarint(c);
	st->late_events = wperf_cur_uvarint(c);
	/* A writer with more kinds than we know writes more counts: keep ours. */
	nkinds = wperf_cur_count(c, 1);
	for (uint64_t k = 0; k < nkinds; k++) {
		uint64_t v = wperf_cur_uvarint(c);

		if (k < WPERF_EV_KIND_MAX)
			st->events[k] = v;
	}
	return 0;
}

/* Decodes a table section into the trace's arrays. Unknown bytes at its end are ignored. */
static int load_table(struct wperf_trace *t, const struct section *s, ZSTD_DCtx *dctx,
		      struct wperf_buf *scratch, struct wperf_error *err)
{
	const uint8_t *p;
	struct wperf_cursor c;
	int ret;

	ret = section_payload(t, s, dctx, scratch, &p, err);
	if (ret)
		return ret;
	wperf_cursor_init(&c, p, s->raw);
	switch (s->kind) {
	case WPERF_SECTION_META:
		ret = load_meta(t, s, p, s->raw, err);
		if (ret && ret != -ENOMEM)
			return ret;
		break;
	case WPERF_SECTION_THREADS:
		ret = load_threads(t, &c);
		break;
	case WPERF_SECTION_STACKS:
		ret = load_stacks(t, &c);
		break;
	case WPERF_SECTION_MAPPINGS:
		ret = load_mappings(t, &c);
		break;
	case WPERF_SECTION_KSYMS:
		ret = load_ksyms(t, &c);
		break;
	case WPERF_SECTION_PERFMAP:
		ret = load_perfmap(t, &c);
		break;
	case WPERF_SECTION_STATS:
		ret = load_stats(t, s, &c, err);
		if (ret && ret != -ENOMEM)
			return ret;
		break;
	}
	if (ret == -ENOMEM)
		return fail_at(err, -ENOMEM, t->path, "reading", s->off,
			       "out of memory for the %s table", section_name(s->kind));
	if (c.err)
		return table_error(t, s, p, &c, err);
	return 0;
}

/* ---- opening ---- */

static int map_file(struct wperf_trace *t, const char *path, struct wperf_error *err)
{
	char sb[128];
	struct stat stt;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		return wperf_error_set(err, e, "%s: cannot open: %s", path,
				       strerror_r(-e, sb, sizeof(sb)));
	}
	if (fstat(fd, &stt) < 0) {
		e = -errno;
		close(fd);
		return wperf_error_set(err, e, "%s: cannot stat: %s", path,
				       strerror_r(-e, sb, sizeof(sb)));
	}
	if (!S_ISREG(stt.st_mode)) {
		close(fd);
		return wperf_error_set(err, -EINVAL, "%s: not a regular file", path);
	}
	if (stt.st_size == 0) {
		close(fd);
		return fail_at(err, -EBADMSG, path, "truncated", 0, "the file is empty");
	}
	if ((uint64_t)stt.st_size > SIZE_MAX) {
		close(fd);
		return wperf_error_set(err, -EFBIG, "%s: too large to map", path);
	}
	t->map = mmap(NULL, (size_t)stt.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	e = -errno;
	close(fd); /* the mapping keeps the file */
	if (t->map == MAP_FAILED) {
		t->map = NULL;
		return wperf_error_set(err, e, "%s: cannot map: %s", path,
				       strerror_r(-e, sb, sizeof(sb)));
	}
	t->size = (size_t)stt.st_size;
	madvise(t->map, t->size, MADV_SEQUENTIAL); /* a hint; its failure does not matter */
	return 0;
}

static int check_file_header(struct wperf_trace *t, uint64_t *first, struct wperf_error *err)
{
	uint16_t major;
	uint32_t hsize;

	if (t->size < WPERF_TRACE_HEADER_SIZE)
		return fail_at(err, -EBADMSG, t->path, "truncated", t->size,
			       "the file header needs %d bytes", WPERF_TRACE_HEADER_SIZE);
	if (memcmp(t->map, WPERF_TRACE_MAGIC, 8) != 0)
		return fail_at(err, -EBADMSG, t->path, "not a wperf trace", 0,
			       "bad magic (expected \"%s\")", WPERF_TRACE_MAGIC);
	major = wperf_get_le16(t->map + 8);
	t->minor = wperf_get_le16(t->map + 10);
	if (major != WPERF_TRACE_MAJOR)
		return fail_at(err, -ENOTSUP, t->path, "unsupported version", 8,
			       "the trace is format %u.%u; this reader reads %d.x", major, t->minor,
			       WPERF_TRACE_MAJOR);
	/* A later minor may grow the header: sections start where it says. */
	hsize = wperf_get_le32(t->map + 12);
	if (hsize < WPERF_TRACE_HEADER_SIZE || hsize > t->size)
		return fail_at(err, -EBADMSG, t->path, "corrupt", 12,
			       "bad header size %u (file of %zu bytes)", hsize, t->size);
	*first = hsize;
	return 0;
}

static int load_end(struct wperf_trace *t, const struct section *s, uint64_t nsections,
		    struct wperf_error *err)
{
	uint64_t next = s->off + WPERF_SECTION_HEADER_SIZE + s->stored;
	uint64_t promised;

	/* END is written uncompressed; a reader needs no zstd to find the totals. */
	if (s->flags != 0 || s->stored != s->raw || s->raw < 16)
		return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
			       "END section must be 16 uncompressed bytes (flags 0x%x, %llu bytes)",
			       s->flags, (unsigned long long)s->raw);
	if (next != t->size)
		return fail_at(err, -EBADMSG, t->path, "corrupt", next,
			       "%llu bytes after the END section",
			       (unsigned long long)(t->size - next));
	promised = wperf_get_le64(s->payload);
	if (promised != nsections)
		return fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
			       "END says the file has %llu sections before it, it has %llu",
			       (unsigned long long)promised, (unsigned long long)nsections);
	t->end_nevents = wperf_get_le64(s->payload + 8);
	return 0;
}

/* Walks the sections from off to END: headers, bounds, CRCs, tables. */
static int load_sections(struct wperf_trace *t, uint64_t off, struct wperf_error *err)
{
	struct wperf_buf scratch = {0};
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	uint64_t nsections = 0;
	int ret = 0;

	if (!dctx)
		return wperf_error_set(err, -ENOMEM, "%s: out of memory for zstd", t->path);
	for (;;) {
		const uint8_t *h = t->map + off;
		struct section s;
		uint32_t crc;

		if (off == t->size) {
			ret = fail_at(err, -EBADMSG, t->path, "truncated", off,
				      "no END section (the recording did not finish)");
			break;
		}
		if (t->size - off < WPERF_SECTION_HEADER_SIZE) {
			ret =
			    fail_at(err, -EBADMSG, t->path, "truncated", off,
				    "a section header needs %d bytes, %llu are left",
				    WPERF_SECTION_HEADER_SIZE, (unsigned long long)(t->size - off));
			break;
		}
		s.off = off;
		s.kind = wperf_get_le32(h);
		s.flags = wperf_get_le32(h + 4);
		s.stored = wperf_get_le64(h + 8);
		s.raw = wperf_get_le64(h + 16);
		s.payload = h + WPERF_SECTION_HEADER_SIZE;
		/* Compare with what is left, never add: a huge size must not wrap. */
		if (s.stored > t->size - off - WPERF_SECTION_HEADER_SIZE) {
			ret = fail_at(err, -EBADMSG, t->path, "truncated", off,
				      "%s section of %llu bytes runs past the end of the file "
				      "(%zu bytes)",
				      section_name(s.kind), (unsigned long long)s.stored, t->size);
			break;
		}
		crc = (uint32_t)crc32_z(0, s.payload, s.stored);
		if (crc != wperf_get_le32(h + 24)) {
			ret = fail_at(err, -EBADMSG, t->path, "corrupt", off,
				      "%s section: bad CRC (header 0x%08x, payload 0x%08x)",
				      section_name(s.kind), wperf_get_le32(h + 24), crc);
			break;
		}

		if (s.kind == WPERF_SECTION_END) {
			ret = load_end(t, &s, nsections, err);
			break;
		}
		if (s.kind >= WPERF_SECTION_META && s.kind < WPERF_SECTION_END) {
			ret = check_section(t, &s, err);
			if (ret)
				break;
			if (s.kind == WPERF_SECTION_EVENTS) {
				if (wperf_buf_append(&t->events, &s, sizeof(s)))
					ret = fail_at(err, -ENOMEM, t->path, "reading", off,
						      "out of memory");
			} else {
				ret = load_table(t, &s, dctx, &scratch, err);
			}
			if (ret)
				break;
		}
		/* Sections of kinds we do not know are skipped: a later minor added them. */
		nsections++;
		off += WPERF_SECTION_HEADER_SIZE + s.stored;
	}
	ZSTD_freeDCtx(dctx);
	wperf_buf_release(&scratch);
	return ret;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct wperf_stack *x = a, *y = b;

	if (x->user != y->user)
		return x->user < y->user ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The arenas are final now: turn the offsets in the tables into pointers. */
static void resolve_pointers(struct wperf_trace *t)
{
	struct wperf_stack *st = (struct wperf_stack *)(void *)t->stacks.data;
	struct wperf_mapping *m = (struct wperf_mapping *)(void *)t->mappings.data;
	struct wperf_ksym *k = (struct wperf_ksym *)(void *)t->ksyms.data;
	struct wperf_perfmap *pm = (struct wperf_perfmap *)(void *)t->perfmaps.data;
	const char *arena = (const char *)t->arena.data;
	const uint64_t *ips = (const uint64_t *)(void *)t->ips.data;

	for (size_t i = 0; i < t->stacks.len / sizeof(*st); i++)
		st[i].ips = st[i].nr ? ips + AS_OFF(st[i].ips) : NULL;
	for (size_t i = 0; i < t->mappings.len / sizeof(*m); i++)
		m[i].path = arena + AS_OFF(m[i].path);
	for (size_t i = 0; i < t->ksyms.len / sizeof(*k); i++)
		k[i].name = arena + AS_OFF(k[i].name);
	for (size_t i = 0; i < t->perfmaps.len / sizeof(*pm); i++)
		pm[i].text = arena + AS_OFF(pm[i].text);
	t->stats.lost = (uint64_t *)(void *)t->lost.data;
	if (t->stacks.len)
		qsort(st, t->stacks.len / sizeof(*st), sizeof(*st), cmp_stack);
}

int wperf_trace_open(const char *path, struct wperf_trace **out, struct wperf_error *err)
{
	struct wperf_trace *t;
	uint64_t first = 0;
	int ret;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		free(t);
		return wperf_error_set(err, -ENOMEM, "%s: out of memory", path);
	}
	ret = map_file(t, path, err);
	if (!ret)
		ret = check_file_header(t, &first, err);
	if (!ret)
		ret = load_sections(t, first, err);
	if (ret) {
		wperf_trace_free(t);
		return ret;
	}
	resolve_pointers(t);
	*out = t;
	return 0;
}

void wperf_trace_free(struct wperf_trace *t)
{
	if (!t)
		return;
	if (t->map)
		munmap(t->map, t->size);
	wperf_buf_release(&t->arena);
	wperf_buf_release(&t->ips);
	wperf_buf_release(&t->meta);
	wperf_buf_release(&t->threads);
	wperf_buf_release(&t->stacks);
	wperf_buf_release(&t->mappings);
	wperf_buf_release(&t->ksyms);
	wperf_buf_release(&t->perfmaps);
	wperf_buf_release(&t->lost);
	wperf_buf_release(&t->events);
	free(t->path);
	free(t);
}

/* ---- accessors ---- */

uint16_t wperf_trace_version_minor(const struct wperf_trace *t)
{
	return t->minor;
}

size_t wperf_trace_meta_count(const struct wperf_trace *t)
{
	return t->meta.len / sizeof(struct meta_kv);
}

void wperf_trace_meta_at(const struct wperf_trace *t, size_t i, const char **key,
			 const char **value)
{
	const struct meta_kv *kv = (const struct meta_kv *)(void *)t->meta.data + i;

	*key = (const char *)t->arena.data + kv->key;
	*value = (const char *)t->arena.data + kv->value;
}

const char *wperf_trace_meta(const struct wperf_trace *t, const char *key)
{
	for (size_t i = 0; i < wperf_trace_meta_count(t); i++) {
		const char *k, *v;

		wperf_trace_meta_at(t, i, &k, &v);
		if (strcmp(k, key) == 0)
			return v; /* the first pair with that key */
	}
	return NULL;
}

const struct wperf_trace_stats *wperf_trace_stats(const struct wperf_trace *t)
{
	return &t->stats;
}

#define TABLE(t, field, type, n)                                                                   \
	(*(n) = (t)->field.len / sizeof(type), (const type *)(void *)(t)->field.data)

const struct wperf_thread *wperf_trace_threads(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, threads, struct wperf_thread, n);
}

const struct wperf_stack *wperf_trace_stacks(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, stacks, struct wperf_stack, n);
}

const struct wperf_stack *wperf_trace_stack(const struct wperf_trace *t, int32_t id, int user)
{
	struct wperf_stack key = {.id = id, .user = user != 0};
	size_t n;
	const struct wperf_stack *s = wperf_trace_stacks(t, &n);

	if (!n)
		return NULL;
	return bsearch(&key, s, n, sizeof(*s), cmp_stack);
}

const struct wperf_mapping *wperf_trace_mappings(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, mappings, struct wperf_mapping, n);
}

const struct wperf_ksym *wperf_trace_ksyms(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, ksyms, struct wperf_ksym, n);
}

const struct wperf_perfmap *wperf_trace_perfmaps(const struct wperf_trace *t, size_t *n)
{
	return TABLE(t, perfmaps, struct wperf_perfmap, n);
}

/* ---- events ---- */

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

	ret = section_payload(t, s, it->dctx, &it->scratch, &p, err);
	if (ret)
		return ret;
	wperf_cursor_init(&c, p, s->raw);
	it->count = wperf_cur_count(&c, 2); /* a record is 2 bytes at least */
	it->prev_ts = wperf_cur_le64(&c);
	if (c.err)
		return table_error(t, s, p, &c, err);
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
				fail_at(err, -EBADMSG, t->path, "corrupt", it->sec->off,
					"EVENTS section ends after %llu of its %llu records",
					(unsigned long long)(it->count - it->left),
					(unsigned long long)it->count);
				return iter_fail(it, err);
			}
			ret = wperf_event_decode(&it->p, it->end, &it->prev_ts, ev, &why);
			if (ret < 0) {
				fail_at(err, ret, t->path, "corrupt", it->sec->off,
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
			fail_at(err, -EBADMSG, t->path, "corrupt", it->sec->off,
				"EVENTS section has %zu bytes after its %llu records",
				(size_t)(it->end - it->p), (unsigned long long)it->count);
			return iter_fail(it, err);
		}
		if (it->next == t->events.len / sizeof(struct section)) {
			if (it->nrecords != t->end_nevents) {
				fail_at(err, -EBADMSG, t->path, "corrupt", t->size,
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
