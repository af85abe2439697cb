/* SPDX-License-Identifier: MIT */
/*
 * What the trace reader's files share: trace_reader.c (opening and
 * validation) on top, trace_reader_tables.c (the table sections, with
 * trace_reader_counters.c) and trace_reader_events.c (the event iterator)
 * under it, and trace_reader_sections.c (a section's name and payload, and
 * the errors) at the bottom. Private to libwperf: not
 * installed and not part of the API, which is trace.h.
 */
#ifndef WPERF_TRACE_READER_INTERNAL_H
#define WPERF_TRACE_READER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "core/util/buf.h"
#include "core/trace/counters.h"
#include "core/util/error.h"
#include "core/trace/trace.h"
#include "core/util/varint.h"

/* A section as found in the file. */
struct section {
	uint64_t off; /* of its header: what messages name */
	uint32_t kind;
	uint32_t flags;
	uint64_t stored;
	uint64_t raw;
	const uint8_t *payload; /* stored bytes, in the mapping */
};

/* An offset into a buffer that still grows, kept in a pointer field until the
 * buffer is final (then AS_OFF gets it back to make the pointer). */
#define AS_PTR(off) ((const void *)(uintptr_t)(off))
#define AS_OFF(ptr) ((size_t)(uintptr_t)(ptr))

/* A META pair, as offsets into the string arena. */
struct meta_kv {
	size_t key;
	size_t value;
};

/* The readings a COUNTERS section may hold (enum wperf_counters_when). */
#define WPERF_TRACE_COUNTERS_MAX 2

struct wperf_trace {
	char *path;
	char *debug_dir; /* wperf_trace_set_debug_dir's; NULL: none */
	uint8_t *map; /* the whole file, read-only */
	size_t size;
	uint16_t minor;

	/*
	 * Strings and stack frames of every table live in two arenas. They grow (and
	 * move) while the file loads, so the pointer fields of the tables hold arena
	 * offsets until wperf_trace__resolve_pointers() turns them into pointers at
	 * the end.
	 */
	struct wperf_buf arena; /* NUL-terminated strings */
	struct wperf_buf ips;	/* uint64_t frames */

	struct wperf_buf meta;	   /* struct meta_kv */
	struct wperf_buf threads;  /* struct wperf_thread */
	struct wperf_buf stacks;   /* struct wperf_stack, sorted by (user, id) */
	struct wperf_buf mappings; /* struct wperf_mapping */
	struct wperf_buf ksyms;	   /* struct wperf_ksym */
	struct wperf_buf perfmaps; /* struct wperf_perfmap */
	struct wperf_buf copies;   /* struct wperf_stack_copy, bytes in the arena */
	struct wperf_buf lost;	   /* uint64_t, stats.lost */
	struct wperf_trace_stats stats;
	int have_stats;

	/* COUNTERS, by enum wperf_counters_when (trace_reader_counters.c); NULL: none */
	struct wperf_counters_store *counters[WPERF_TRACE_COUNTERS_MAX];

	struct wperf_buf events; /* struct section: the EVENTS sections, in file order */
	uint64_t end_nevents;	 /* the total that END promises */
};

/* ---- trace_reader_sections.c: below the other three ---- */

/* The name of a section kind ("META", ...), or "unknown": for messages. */
const char *wperf_trace__section_name(uint32_t kind);

/* Sets err to "PATH: WHAT at offset OFF: message"; returns code. */
int wperf_trace__fail_at(struct wperf_error *err, int code, const char *path, const char *what,
			 uint64_t off, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/*
 * The raw payload (s->raw bytes) of a section that wperf_trace_open has checked:
 * its mapped bytes, or its zstd frame decompressed into scratch with dctx.
 */
int wperf_trace__section_payload(const struct wperf_trace *t, const struct section *s,
				 ZSTD_DCtx *dctx, struct wperf_buf *scratch, const uint8_t **out,
				 struct wperf_error *err);

/*
 * The error for a payload (a table, or an EVENTS section's prelude) that did not
 * decode: c->err says why and c->p is where it stopped.
 */
int wperf_trace__table_error(const struct wperf_trace *t, const struct section *s,
			     const uint8_t *payload, const struct wperf_cursor *c,
			     struct wperf_error *err);

/* ---- trace_reader_tables.c ---- */

/* Decodes a checked table section (a known kind but EVENTS and END) into t. */
int wperf_trace__load_table(struct wperf_trace *t, const struct section *s, ZSTD_DCtx *dctx,
			    struct wperf_buf *scratch, struct wperf_error *err);

/*
 * Once every section is loaded: turns the tables' arena offsets into pointers
 * and sorts the stacks for wperf_trace_stack().
 */
void wperf_trace__resolve_pointers(struct wperf_trace *t);

/* ---- trace_reader_counters.c ---- */

/*
 * Decodes a COUNTERS section's payload at c (a checked section) into
 * t->counters. Returns 0 (c->err set when the payload is corrupt), -ENOMEM, or
 * -EBADMSG with err set for a second reading of the same moment.
 */
int wperf_trace__load_counters(struct wperf_trace *t, const struct section *s,
			       struct wperf_cursor *c, struct wperf_error *err);

/* Frees t's counters (wperf_trace_free). */
void wperf_trace__free_counters(struct wperf_trace *t);

#endif /* WPERF_TRACE_READER_INTERNAL_H */
