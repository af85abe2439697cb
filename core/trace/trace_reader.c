/* SPDX-License-Identifier: MIT */
/*
 * Reads a trace file (format: trace.h, docs/trace-format.md): opening and
 * validating it. The tables are decoded in trace_reader_tables.c and the events
 * in trace_reader_events.c; trace_reader_internal.h is what the three share.
 *
 * The file is mapped, not read: traces of a gigabyte are common and most of the
 * bytes are events that are decoded one section at a time by the iterator.
 * wperf_trace_open walks every section header, checks every CRC, decodes the
 * tables into arrays owned by the trace and insists on the END section, so that
 * a trace that opens is a complete one.
 *
 * The input is untrusted: every length is checked against the bytes that are
 * really there before it is used. Errors name the file and the byte offset of
 * the section (and the byte within its payload) where the problem is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "core/util/buf.h"
#include "core/trace/trace.h"
#include "core/trace/trace_reader_internal.h"
#include "core/util/varint.h"

/*
 * The most a zstd frame can expand: every block has a header of 3 bytes and
 * holds at most 128 KiB. A raw size above stored size times this is a lie, and
 * refusing it keeps a corrupt header from making us allocate gigabytes.
 */
#define ZSTD_MAX_EXPANSION ((128 * 1024) / 3 + 1)

/* ---- section payloads ---- */

/*
 * Checks what can be checked of a section without decompressing it: its flags,
 * and that its raw size agrees with the stored bytes.
 */
static int check_section(const struct wperf_trace *t, const struct section *s,
			 struct wperf_error *err)
{
	const char *name = wperf_trace__section_name(s->kind);
	unsigned long long fcs;

	if (s->flags & ~(uint32_t)WPERF_SECTION_ZSTD)
		return wperf_trace__fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
					    "%s section has unknown flags 0x%x", name, s->flags);
	if (!(s->flags & WPERF_SECTION_ZSTD)) {
		if (s->stored != s->raw)
			return wperf_trace__fail_at(
			    err, -EBADMSG, t->path, "corrupt", s->off,
			    "%s section stores %llu bytes but says it holds %llu", name,
			    (unsigned long long)s->stored, (unsigned long long)s->raw);
		return 0;
	}
	if (s->raw > SIZE_MAX || s->raw / ZSTD_MAX_EXPANSION > s->stored)
		return wperf_trace__fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
					    "%s section: %llu compressed bytes cannot hold %llu",
					    name, (unsigned long long)s->stored,
					    (unsigned long long)s->raw);
	fcs = ZSTD_getFrameContentSize(s->payload, s->stored);
	if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN)
		return wperf_trace__fail_at(
		    err, -EBADMSG, t->path, "corrupt", s->off,
		    "%s section: the payload is not a zstd frame with a content size", name);
	if (fcs != s->raw)
		return wperf_trace__fail_at(
		    err, -EBADMSG, t->path, "corrupt", s->off,
		    "%s section: the zstd frame decompresses to %llu bytes, the "
		    "header says %llu",
		    name, fcs, (unsigned long long)s->raw);
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
		return wperf_trace__fail_at(err, -EBADMSG, path, "truncated", 0,
					    "the file is empty");
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
		return wperf_trace__fail_at(err, -EBADMSG, t->path, "truncated", t->size,
					    "the file header needs %d bytes",
					    WPERF_TRACE_HEADER_SIZE);
	if (memcmp(t->map, WPERF_TRACE_MAGIC, 8) != 0)
		return wperf_trace__fail_at(err, -EBADMSG, t->path, "not a wperf trace", 0,
					    "bad magic (expected \"%s\")", WPERF_TRACE_MAGIC);
	major = wperf_get_le16(t->map + 8);
	t->minor = wperf_get_le16(t->map + 10);
	if (major != WPERF_TRACE_MAJOR)
		return wperf_trace__fail_at(err, -ENOTSUP, t->path, "unsupported version", 8,
					    "the trace is format %u.%u; this reader reads %d.x",
					    major, t->minor, WPERF_TRACE_MAJOR);
	/* A later minor may grow the header: sections start where it says. */
	hsize = wperf_get_le32(t->map + 12);
	if (hsize < WPERF_TRACE_HEADER_SIZE || hsize > t->size)
		return wperf_trace__fail_at(err, -EBADMSG, t->path, "corrupt", 12,
					    "bad header size %u (file of %zu bytes)", hsize,
					    t->size);
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
		return wperf_trace__fail_at(
		    err, -EBADMSG, t->path, "corrupt", s->off,
		    "END section must be 16 uncompressed bytes (flags 0x%x, %llu bytes)", s->flags,
		    (unsigned long long)s->raw);
	if (next != t->size)
		return wperf_trace__fail_at(err, -EBADMSG, t->path, "corrupt", next,
					    "%llu bytes after the END section",
					    (unsigned long long)(t->size - next));
	promised = wperf_get_le64(s->payload);
	if (promised != nsections)
		return wperf_trace__fail_at(
		    err, -EBADMSG, t->path, "corrupt", s->off,
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
			ret = wperf_trace__fail_at(err, -EBADMSG, t->path, "truncated", off,
						   "no END section (the recording did not finish)");
			break;
		}
		if (t->size - off < WPERF_SECTION_HEADER_SIZE) {
			ret = wperf_trace__fail_at(err, -EBADMSG, t->path, "truncated", off,
						   "a section header needs %d bytes, %llu are left",
						   WPERF_SECTION_HEADER_SIZE,
						   (unsigned long long)(t->size - off));
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
			ret = wperf_trace__fail_at(
			    err, -EBADMSG, t->path, "truncated", off,
			    "%s section of %llu bytes runs past the end of the file "
			    "(%zu bytes)",
			    wperf_trace__section_name(s.kind), (unsigned long long)s.stored,
			    t->size);
			break;
		}
		crc = (uint32_t)crc32_z(0, s.payload, s.stored);
		if (crc != wperf_get_le32(h + 24)) {
			ret = wperf_trace__fail_at(
			    err, -EBADMSG, t->path, "corrupt", off,
			    "%s section: bad CRC (header 0x%08x, payload 0x%08x)",
			    wperf_trace__section_name(s.kind), wperf_get_le32(h + 24), crc);
			break;
		}

		if (s.kind == WPERF_SECTION_END) {
			ret = load_end(t, &s, nsections, err);
			break;
		}
		if (s.kind >= WPERF_SECTION_META && s.kind <= WPERF_SECTION_STACK_COPIES) {
			ret = check_section(t, &s, err);
			if (ret)
				break;
			if (s.kind == WPERF_SECTION_EVENTS) {
				if (wperf_buf_append(&t->events, &s, sizeof(s)))
					ret = wperf_trace__fail_at(err, -ENOMEM, t->path, "reading",
								   off, "out of memory");
			} else {
				ret = wperf_trace__load_table(t, &s, dctx, &scratch, err);
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
	wperf_trace__resolve_pointers(t);
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
	wperf_buf_release(&t->copies);
	wperf_buf_release(&t->lost);
	wperf_buf_release(&t->events);
	wperf_trace__free_counters(t);
	free(t->debug_dir);
	free(t->path);
	free(t);
}

int wperf_trace_set_debug_dir(struct wperf_trace *t, const char *dir)
{
	char *copy;

	if (dir && strchr(dir, ':'))
		return -EINVAL;
	copy = dir && *dir ? strdup(dir) : NULL;
	if (dir && *dir && !copy)
		return -ENOMEM;
	free(t->debug_dir);
	t->debug_dir = copy;
	return 0;
}

const char *wperf_trace_debug_dir(const struct wperf_trace *t)
{
	return t->debug_dir;
}

/* ---- accessors ---- */

uint16_t wperf_trace_version_minor(const struct wperf_trace *t)
{
	return t->minor;
}
