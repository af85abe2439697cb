/* SPDX-License-Identifier: MIT */
/*
 * The bottom of the trace reader: what opening, the tables and the events all
 * use of a section (its name, its payload decompressed) and how each of them
 * says what is wrong with it. Calls nothing of the reader above it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <zstd.h>

#include "core/trace/trace_reader_internal.h"

const char *wperf_trace__section_name(uint32_t kind)
{
	static const char *const names[] = {
	    [WPERF_SECTION_META] = "META",
	    [WPERF_SECTION_EVENTS] = "EVENTS",
	    [WPERF_SECTION_THREADS] = "THREADS",
	    [WPERF_SECTION_STACKS] = "STACKS",
	    [WPERF_SECTION_MAPPINGS] = "MAPPINGS",
	    [WPERF_SECTION_KSYMS] = "KSYMS",
	    [WPERF_SECTION_PERFMAP] = "PERFMAP",
	    [WPERF_SECTION_STATS] = "STATS",
	    [WPERF_SECTION_END] = "END",
	    [WPERF_SECTION_COUNTERS] = "COUNTERS",
	    [WPERF_SECTION_STACK_COPIES] = "STACK_COPIES",
	};

	if (kind < sizeof(names) / sizeof(names[0]) && names[kind])
		return names[kind];
	return "unknown";
}

/* Sets err to "PATH: WHAT at offset OFF: message". */
int wperf_trace__fail_at(struct wperf_error *err, int code, const char *path, const char *what,
			 uint64_t off, const char *fmt, ...)
{
	char msg[WPERF_ERROR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wperf_error_set(err, code, "%s: %s at offset %llu: %s", path, what,
			       (unsigned long long)off, msg);
}

/*
 * The raw payload of a checked section: its mapped bytes, or its frame
 * decompressed into scratch.
 */
int wperf_trace__section_payload(const struct wperf_trace *t, const struct section *s,
				 ZSTD_DCtx *dctx, struct wperf_buf *scratch, const uint8_t **out,
				 struct wperf_error *err)
{
	size_t n;

	if (!(s->flags & WPERF_SECTION_ZSTD)) {
		*out = s->payload;
		return 0;
	}
	wperf_buf_clear(scratch);
	if (wperf_buf_reserve(scratch, s->raw))
		return wperf_trace__fail_at(err, -ENOMEM, t->path, "reading", s->off,
					    "out of memory for a %s section of %llu bytes",
					    wperf_trace__section_name(s->kind),
					    (unsigned long long)s->raw);
	n = ZSTD_decompressDCtx(dctx, scratch->data, s->raw, s->payload, s->stored);
	if (ZSTD_isError(n))
		return wperf_trace__fail_at(
		    err, -EBADMSG, t->path, "corrupt", s->off, "%s section: zstd: %s",
		    wperf_trace__section_name(s->kind), ZSTD_getErrorName(n));
	if (n != s->raw)
		return wperf_trace__fail_at(
		    err, -EBADMSG, t->path, "corrupt", s->off,
		    "%s section decompresses to %zu bytes, the header says %llu",
		    wperf_trace__section_name(s->kind), n, (unsigned long long)s->raw);
	scratch->len = n;
	*out = scratch->data;
	return 0;
}

/* The error for a payload that did not decode; c->p is where it stopped. */
int wperf_trace__table_error(const struct wperf_trace *t, const struct section *s,
			     const uint8_t *payload, const struct wperf_cursor *c,
			     struct wperf_error *err)
{
	return wperf_trace__fail_at(err, -EBADMSG, t->path, "corrupt", s->off,
				    "%s section, payload byte %zu: %s",
				    wperf_trace__section_name(s->kind), (size_t)(c->p - payload),
				    wperf_decode_strerror(c->err));
}
