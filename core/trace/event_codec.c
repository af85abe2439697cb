/* SPDX-License-Identifier: MIT */
/*
 * The compact record encoding of events in EVENTS sections.
 *
 * A struct wperf_event is 48 bytes in memory; on disk a scheduling event is about
 * 20 bytes before compression because every field is a varint and the timestamp
 * is a delta from the previous record. Records carry their body length, so a
 * reader can skip kinds it does not know and fields that later minors append.
 */
#include <errno.h>
#include <string.h>

#include "core/trace/event_codec.h"
#include "core/trace/event_kinds.h"
#include "core/trace/trace.h"
#include "core/util/varint.h"

/* A comm as u8 length + bytes; at most WPERF_COMM_LEN - 1 bytes, as the kernel's. */
static uint8_t *put_comm(uint8_t *q, const char *comm)
{
	size_t len = strnlen(comm, WPERF_COMM_LEN - 1);

	*q++ = (uint8_t)len;
	memcpy(q, comm, len);
	return q + len;
}

static void get_comm(struct wperf_cursor *c, char *comm)
{
	size_t len = wperf_cur_u8(c);
	const uint8_t *s = wperf_cur_bytes(c, len);

	if (!s)
		return; /* the cursor holds the error */
	/* Keep what fits: a later kernel may have longer names. */
	if (len > WPERF_COMM_LEN - 1)
		len = WPERF_COMM_LEN - 1;
	memcpy(comm, s, len);
	comm[len] = '\0';
}

static uint8_t *put_field(uint8_t *q, const struct wperf_event *ev, const struct wperf_field *f)
{
	switch (f->type) {
	case WPERF_FIELD_U8:
		*q++ = (uint8_t)wperf_field_get(ev, f);
		return q;
	case WPERF_FIELD_S32:
		return wperf_svarint_put(q, (int64_t)wperf_field_get(ev, f));
	case WPERF_FIELD_COMM:
		return put_comm(q, (const char *)ev + f->offset);
	default:
		return wperf_uvarint_put(q, wperf_field_get(ev, f));
	}
}

int wperf_event_encode(struct wperf_buf *b, const struct wperf_event *ev, uint64_t *prev_ts)
{
	/*
	 * The longest body (BLOCK_*) is 10+5+1+5+5 common bytes and 10+5+5+5+5+10+10
	 * of its own: 76 (EXIT's three u64 make 56), far below the 255 that the u8
	 * body length allows.
	 */
	const struct wperf_event_kind_info *k = wperf_event_kind_info(ev->hdr.kind);
	uint8_t rec[WPERF_RECORD_MAX];
	uint8_t *q = rec + 2;
	size_t ncommon;
	const struct wperf_field *common = wperf_event_common_fields(&ncommon);

	if (!k)
		return -EINVAL;
	/* Unsigned subtraction, then reinterpret: an out-of-order ts gives a negative delta. */
	q = wperf_svarint_put(q, (int64_t)(ev->hdr.ts - *prev_ts));
	for (size_t i = 0; i < ncommon; i++)
		q = put_field(q, ev, &common[i]);
	/* Appended fields are written too: the body is of the current minor. */
	for (size_t i = 0; i < k->nfields; i++)
		if (wperf_event_has_field(k, &k->fields[i], ev))
			q = put_field(q, ev, &k->fields[i]);
	rec[0] = ev->hdr.kind;
	rec[1] = (uint8_t)(q - rec - 2);
	*prev_ts = ev->hdr.ts;
	return wperf_buf_append(b, rec, (size_t)(q - rec));
}

/*
 * The fast path of the decoder, for the kinds a busy machine records most
 * (switches and wakeups; interrupts and packets: on a server under load they
 * are as many): each varint is read without a bounds check per byte, at most
 * FAST_VARINT bytes of it (35 bits: more than any field or ts delta of a valid
 * record needs, but for a gap of more than 17 s), when the section has FAST_SLACK
 * bytes past the record's header, room for the longest fields it could read.
 * Anything unusual (a longer varint, a value out of its field's range, fields
 * that run past the body) sends the record to the checked decoder, which reads
 * it again and says what is wrong: the result is the same either way.
 */
#define FAST_VARINT 5
#define FAST_SLACK  64 /* >= the 11 fields of a wakeup, FAST_VARINT bytes each (flags: 1) */

/* The uvarint at *p (FAST_VARINT bytes can be read there); *bad set when longer. */
static inline uint64_t fast_uvarint(const uint8_t **p, int *bad)
{
	const uint8_t *q = *p;
	uint64_t v = 0;

	if (q[0] < 0x80) {
		*p = q + 1;
		return q[0];
	}
	if (q[1] < 0x80) {
		*p = q + 2;
		return (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
	}
	for (int i = 0; i < FAST_VARINT; i++) {
		v |= (uint64_t)(q[i] & 0x7f) << (7 * i);
		if (q[i] < 0x80) {
			*p = q + i + 1;
			return v;
		}
	}
	*bad = 1;
	return 0;
}

static inline uint32_t fast_u32(const uint8_t **p, int *bad)
{
	uint64_t v = fast_uvarint(p, bad);

	*bad |= v > UINT32_MAX;
	return (uint32_t)v;
}

static inline int32_t fast_s32(const uint8_t **p, int *bad)
{
	int64_t v = wperf_unzigzag(fast_uvarint(p, bad));

	*bad |= v < INT32_MIN || v > INT32_MAX;
	return (int32_t)v;
}

/* The fields of the kinds the fast path takes, after the common ones; 0 for
 * any other kind (the checked path reads it). */
static int fast_fields(unsigned kind, const uint8_t **f, struct wperf_event *ev, int *bad)
{
	switch (kind) {
	case WPERF_EV_SWITCH:
		ev->sw.next_tid = fast_u32(f, bad);
		ev->sw.next_tgid = fast_u32(f, bad);
		ev->sw.prev_state = fast_u32(f, bad);
		ev->sw.kstack = fast_s32(f, bad);
		ev->sw.ustack = fast_s32(f, bad);
		return 1;
	case WPERF_EV_WAKEUP:
	case WPERF_EV_WAKEUP_NEW:
		ev->wake.waker_tid = fast_u32(f, bad);
		ev->wake.waker_tgid = fast_u32(f, bad);
		ev->wake.irq = fast_s32(f, bad);
		ev->wake.target_cpu = fast_u32(f, bad);
		ev->wake.kstack = fast_s32(f, bad);
		ev->wake.ustack = fast_s32(f, bad);
		return 1;
	case WPERF_EV_HARDIRQ_ENTRY:
	case WPERF_EV_HARDIRQ_EXIT:
	case WPERF_EV_SOFTIRQ_ENTRY:
	case WPERF_EV_SOFTIRQ_EXIT:
		ev->irq.irq = fast_s32(f, bad);
		return 1;
	case WPERF_EV_NET_XMIT:
	case WPERF_EV_NET_RECV:
		ev->net.ifindex = fast_u32(f, bad);
		ev->net.bytes = fast_u32(f, bad);
		ev->net.irq = fast_s32(f, bad);
		return 1;
	}
	return 0;
}

int wperf_event_decode_fast(const uint8_t **p, const uint8_t *end, uint64_t *prev_ts,
			    struct wperf_event *ev)
{
	const uint8_t *q = *p, *f = q + 2;
	unsigned kind, len;
	int bad = 0;
	uint64_t ts;

	if (end - q < 2 + FAST_SLACK)
		return 0;
	kind = q[0];
	len = q[1];
	if (kind >= WPERF_EV_KIND_MAX || len > (size_t)(end - q - 2))
		return 0;
	ts = *prev_ts + (uint64_t)wperf_unzigzag(fast_uvarint(&f, &bad));
	memset(ev, 0, sizeof(*ev));
	ev->hdr.size = wperf_event_size(kind);
	ev->hdr.kind = (uint8_t)kind;
	ev->hdr.ts = ts;
	ev->hdr.cpu = fast_u32(&f, &bad);
	ev->hdr.flags = *f++;
	ev->hdr.tid = fast_u32(&f, &bad);
	ev->hdr.tgid = fast_u32(&f, &bad);
	if (!fast_fields(kind, &f, ev, &bad) || bad || f > q + 2 + len)
		return 0;
	/* Bytes left in the body are fields of a later minor: skipped. */
	*prev_ts = ts;
	*p = q + 2 + len;
	return 1;
}

static const char *cursor_why(int e)
{
	if (e == WPERF_DEC_TRUNCATED)
		return "its fields run past its body length";
	return wperf_decode_strerror(e);
}

static void get_field(struct wperf_cursor *c, struct wperf_event *ev, const struct wperf_field *f)
{
	switch (f->type) {
	case WPERF_FIELD_U8:
		wperf_field_set(ev, f, wperf_cur_u8(c));
		break;
	case WPERF_FIELD_U32:
		wperf_field_set(ev, f, wperf_cur_u32(c));
		break;
	case WPERF_FIELD_S32:
		wperf_field_set(ev, f, (uint64_t)(int64_t)wperf_cur_s32(c));
		break;
	case WPERF_FIELD_U64:
		wperf_field_set(ev, f, wperf_cur_uvarint(c));
		break;
	default:
		get_comm(c, (char *)ev + f->offset);
	}
}

/*
 * Reads the fields of ev's kind k. An APPENDED field that starts a minor's
 * group of them ends the reading when the body ended before it (or is already
 * wrong): a body of an earlier minor, whose absent fields stay 0.
 */
static void get_kind_fields(struct wperf_cursor *c, const struct wperf_event_kind_info *k,
			    struct wperf_event *ev)
{
	for (size_t i = 0; i < k->nfields; i++) {
		const struct wperf_field *f = &k->fields[i];

		if (!wperf_event_has_field(k, f, ev))
			continue;
		if (f->presence == WPERF_FIELD_APPENDED && (i == 0 || f[-1].since != f->since) &&
		    (c->err || !wperf_cursor_left(c)))
			break;
		get_field(c, ev, f);
	}
}

int wperf_event_decode_checked(const uint8_t **p, const uint8_t *end, uint64_t *prev_ts,
			       struct wperf_event *ev, const char **why)
{
	const uint8_t *q = *p;
	const struct wperf_event_kind_info *k;
	struct wperf_cursor c;
	size_t ncommon;
	const struct wperf_field *common = wperf_event_common_fields(&ncommon);
	uint64_t ts;

	if (end - q < 2) {
		*why = "the record header runs past the end of the section";
		return -EBADMSG;
	}
	if (q[1] > (size_t)(end - q - 2)) {
		*why = "the record's body length runs past the end of the section";
		return -EBADMSG;
	}
	wperf_cursor_init(&c, q + 2, q[1]);
	/*
	 * Every kind, including ones added later, starts its body with the ts delta:
	 * reading it even for a kind we skip keeps the next record's time right.
	 */
	ts = *prev_ts + (uint64_t)wperf_cur_svarint(&c);
	k = wperf_event_kind_info(q[0]);
	if (k) {
		memset(ev, 0, sizeof(*ev));
		ev->hdr.size = k->size;
		ev->hdr.kind = q[0];
		ev->hdr.ts = ts;
		for (size_t i = 0; i < ncommon; i++)
			get_field(&c, ev, &common[i]);
		get_kind_fields(&c, k, ev);
	}
	if (c.err) {
		*why = cursor_why(c.err);
		return -EBADMSG;
	}
	/* Bytes left in the body are fields of a later minor (or of a kind we do not
	 * know): skipped. */
	*prev_ts = ts;
	*p = q + 2 + q[1];
	return k ? 1 : 0;
}

int wperf_event_decode(const uint8_t **p, const uint8_t *end, uint64_t *prev_ts,
		       struct wperf_event *ev, const char **why)
{
	if (wperf_event_decode_fast(p, end, prev_ts, ev))
		return 1;
	return wperf_event_decode_checked(p, end, prev_ts, ev, why);
}
