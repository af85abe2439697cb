/* SPDX-License-Identifier: MIT */
/*
 * One event record of an EVENTS section (the encoding is documented in trace.h
 * and docs/trace-format.md): u8 kind, u8 body length, body.
 */
#ifndef WPERF_EVENT_CODEC_H
#define WPERF_EVENT_CODEC_H

#include <stdint.h>

#include "bpf/wperf_event.h"
#include "core/trace/event_kinds.h"
#include "core/util/buf.h"

/* The longest record: kind, length, and a body of at most 255 bytes. */
#define WPERF_RECORD_MAX (2 + 255)

/*
 * Appends the record of ev to b. *prev_ts is the timestamp the delta is taken
 * from (the section's base for its first record) and becomes ev's. Returns 0,
 * -EINVAL for a kind this library does not know, or -ENOMEM.
 */
int wperf_event_encode(struct wperf_buf *b, const struct wperf_event *ev, uint64_t *prev_ts);

/*
 * Decodes the record at *p; end is the end of the section's records. Returns
 * 1 with ev filled (every field, hdr.size included, the rest zeroed), 0 for a
 * record of a kind this library does not know (skipped; ev is undefined), both
 * advancing *p and *prev_ts; or -EBADMSG with *why set to a static sentence and
 * *p left at the record.
 */
int wperf_event_decode(const uint8_t **p, const uint8_t *end, uint64_t *prev_ts,
		       struct wperf_event *ev, const char **why);

/*
 * The two halves of wperf_event_decode, apart for the tests that hold them to
 * each other. The checked decoder reads any record as the table of event kinds
 * (event_kinds.h) says, checking every byte, with wperf_event_decode's
 * contract. The fast one, written by hand, reads a switch or a wakeup with
 * fewer checks when the section has room past it: 1 when it decoded the record
 * (advancing *p and *prev_ts), 0 when it leaves the record to the checked one
 * (*p and *prev_ts unchanged, ev undefined). Both give the same event.
 */
int wperf_event_decode_checked(const uint8_t **p, const uint8_t *end, uint64_t *prev_ts,
			       struct wperf_event *ev, const char **why);
int wperf_event_decode_fast(const uint8_t **p, const uint8_t *end, uint64_t *prev_ts,
			    struct wperf_event *ev);

#endif /* WPERF_EVENT_CODEC_H */
