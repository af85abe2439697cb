/* SPDX-License-Identifier: MIT */
/*
 * The event kinds of an EVENTS section, field by field: the one table that the
 * encoder and the checked decoder (event_codec.c), `wperf-bench dump`, the
 * tests' event maker and the doc table of docs/trace-format.md (checked by
 * tests/unit/test_event_table.c) all follow. A kind's fields are listed in the
 * order its body holds them, after the common ones (wperf_event_common_fields).
 * The structs are bpf/wperf_event.h's; the table only says how each field of
 * theirs is stored.
 */
#ifndef WPERF_EVENT_KINDS_H
#define WPERF_EVENT_KINDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bpf/wperf_event.h"

/* How a field is stored in a body. */
enum wperf_field_type {
	WPERF_FIELD_U8,	  /* one byte (the flags) */
	WPERF_FIELD_U32,  /* u: uvarint, at most 2^32 - 1 */
	WPERF_FIELD_S32,  /* s: zigzag svarint, a 32-bit signed value */
	WPERF_FIELD_U64,  /* u: uvarint */
	WPERF_FIELD_COMM, /* str: u8 length + bytes, a name of at most WPERF_COMM_LEN - 1 */
};

/* When a body holds a field. */
enum wperf_field_presence {
	WPERF_FIELD_ALWAYS,
	WPERF_FIELD_IF_FLAG,  /* only when hdr.flags has its kind's data_flag */
	WPERF_FIELD_APPENDED, /* appended by minor `since`: a body of an earlier minor ends
				 before it, and decodes it (and the fields after it) as 0 */
};

/* How `dump` shows a field's value. */
enum wperf_field_show {
	WPERF_SHOW_DEC,
	WPERF_SHOW_HEX,
	WPERF_SHOW_TID,	     /* a thread id: with the thread's name */
	WPERF_SHOW_DEV,	     /* a disk's dev_t, major << 20 | minor: as MAJOR:MINOR */
	WPERF_SHOW_SOFTIRQ,  /* a softirq vector: with its name, 9(RCU) */
	WPERF_SHOW_IRQ,	     /* the irq of the event's context: a softirq's with its name */
	WPERF_SHOW_BLOCK_OP, /* cmd_flags: with the REQ_OP_* of its low byte, 0x801(write) */
	WPERF_SHOW_SECTOR,   /* a sector; a flush's (sector_t)-1 as "-" */
};

struct wperf_field {
	const char *name; /* its member's name in bpf/wperf_event.h */
	uint16_t offset;  /* of the member in struct wperf_event */
	uint8_t type;	  /* enum wperf_field_type */
	uint8_t presence; /* enum wperf_field_presence */
	uint8_t since;	  /* the minor of the format that added it */
	uint8_t show;	  /* enum wperf_field_show */
};

/* What the flags of a kind say. */
enum wperf_flags_meaning {
	WPERF_FLAGS_NONE,
	WPERF_FLAGS_SWITCH,  /* WPERF_SWITCH_PREEMPTED */
	WPERF_FLAGS_CONTEXT, /* enum wperf_context */
	WPERF_FLAGS_DATA,    /* data_flag: the IF_FLAG fields are there */
};

struct wperf_event_kind_info {
	const char *name;  /* "switch": dump's, --kind's and the report's */
	uint16_t size;	   /* hdr.size: sizeof(hdr) + the kind's payload struct */
	uint8_t since;	   /* the minor of the format that added the kind */
	uint8_t flags;	   /* enum wperf_flags_meaning */
	uint8_t data_flag; /* the flag the IF_FLAG fields come with */
	uint8_t nfields;
	const struct wperf_field *fields; /* in body order */
};

/* The kind's entry, or NULL for a kind this library does not know. */
const struct wperf_event_kind_info *wperf_event_kind_info(unsigned kind);

/* hdr.size of an event of kind: sizeof(hdr) + the size of the kind's payload
 * struct, or 0 for a kind this library does not know. */
uint16_t wperf_event_size(unsigned kind);

/* The kernel's name of softirq vector vec ("RCU"), or NULL for one it has not. */
const char *wperf_softirq_name(int32_t vec);

/* The name of the REQ_OP_* in the low byte of a block request's cmd_flags
 * ("write"), or NULL for one of the rarer ops. */
const char *wperf_block_op_name(uint32_t op);

/* The fields every body starts with after the ts delta: cpu, flags, tid, tgid. */
const struct wperf_field *wperf_event_common_fields(size_t *n);

/* Field f of ev as a number (an S32 sign-extended). A COMM is not a number: its
 * name is the NUL-terminated string at (const char *)ev + f->offset. Inline:
 * the codec calls it for every field of every event. */
static inline uint64_t wperf_field_get(const struct wperf_event *ev, const struct wperf_field *f)
{
	const uint8_t *at = (const uint8_t *)ev + f->offset;
	uint32_t u32;
	int32_t s32;
	uint64_t u64;

	switch (f->type) {
	case WPERF_FIELD_U8:
		return *at;
	case WPERF_FIELD_U32:
		memcpy(&u32, at, sizeof(u32));
		return u32;
	case WPERF_FIELD_S32:
		memcpy(&s32, at, sizeof(s32));
		return (uint64_t)(int64_t)s32;
	case WPERF_FIELD_U64:
		memcpy(&u64, at, sizeof(u64));
		return u64;
	default: /* a COMM */
		return 0;
	}
}

/* Sets field f of ev to v, cut to the field's width (not for a COMM). */
static inline void wperf_field_set(struct wperf_event *ev, const struct wperf_field *f, uint64_t v)
{
	uint8_t *at = (uint8_t *)ev + f->offset;
	uint32_t u32 = (uint32_t)v;

	switch (f->type) {
	case WPERF_FIELD_U8:
		*at = (uint8_t)v;
		break;
	case WPERF_FIELD_U32:
	case WPERF_FIELD_S32:
		memcpy(at, &u32, sizeof(u32));
		break;
	case WPERF_FIELD_U64:
		memcpy(at, &v, sizeof(v));
		break;
	default: /* a COMM: not a number */
		break;
	}
}

/* Whether ev's body holds field f of its kind k (an IF_FLAG field needs its flag). */
int wperf_event_has_field(const struct wperf_event_kind_info *k, const struct wperf_field *f,
			  const struct wperf_event *ev);

#endif /* WPERF_EVENT_KINDS_H */
