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

int wperf_event_encode(struct wperf_buf *b, const struct wperf_event *ev, uint64_t *prev_ts)
{
	/*
	 * The longest body (BLOCK_*) is 10+5+1+5+5 common bytes and 10+5+5+5+5+10+10
	 * of its own: 76 (EXIT's three u64 make 56), far below the 255 that the u8
	 * body length allows.
	 */
	uint8_t rec[WPERF_RECORD_MAX];
	uint8_t *q = rec + 2;
	unsigned kind = ev->hdr.kind;

	if (!wperf_event_size(kind))
		return -EINVAL;

	/* Unsigned subtraction, then reinterpret: an out-of-order ts gives a negative delta. */
	q = wperf_svarint_put(q, (int64_t)(ev->hdr.ts - *prev_ts));
	q = wperf_uvarint_put(q, ev->hdr.cpu);
	*q++ = ev->hdr.flags;
	q = wperf_uvarint_put(q, ev->hdr.tid);
	q = wperf_uvarint_put(q, ev->hdr.tgid);

	switch (kind) {
	case WPERF_EV_SWITCH:
		q = wperf_uvarint_put(q, ev->sw.next_tid);
		q = wperf_uvarint_put(q, ev->sw.next_tgid);
		q = wperf_uvarint_put(q, ev->sw.prev_state);
		q = wperf_svarint_put(q, ev->sw.kstack);
		q = wperf_svarint_put(q, ev->sw.ustack);
		break;
	case WPERF_EV_WAKEUP:
	case WPERF_EV_WAKEUP_NEW:
		q = wperf_uvarint_put(q, ev->wake.waker_tid);
		q = wperf_uvarint_put(q, ev->wake.waker_tgid);
		q = wperf_svarint_put(q, ev->wake.irq);
		q = wperf_uvarint_put(q, ev->wake.target_cpu);
		q = wperf_svarint_put(q, ev->wake.kstack);
		q = wperf_svarint_put(q, ev->wake.ustack);
		break;
	case WPERF_EV_FORK:
		q = wperf_uvarint_put(q, ev->fork.child_tid);
		q = wperf_uvarint_put(q, ev->fork.child_tgid);
		q = put_comm(q, ev->fork.comm);
		break;
	case WPERF_EV_EXEC:
	case WPERF_EV_RENAME:
		q = put_comm(q, ev->name.comm);
		break;
	case WPERF_EV_EXIT:
		/* Appended in format 1.1, only when there is a reading. */
		if (ev->hdr.flags & WPERF_EXIT_SCHEDSTAT) {
			q = wperf_uvarint_put(q, ev->exit.run_ns);
			q = wperf_uvarint_put(q, ev->exit.wait_ns);
			q = wperf_uvarint_put(q, ev->exit.slices);
		}
		break;
	case WPERF_EV_FALSE_WAKEUP:
		break;
	case WPERF_EV_HARDIRQ_ENTRY:
	case WPERF_EV_HARDIRQ_EXIT:
	case WPERF_EV_SOFTIRQ_ENTRY:
	case WPERF_EV_SOFTIRQ_EXIT:
		q = wperf_svarint_put(q, ev->irq.irq);
		break;
	case WPERF_EV_BLOCK_ISSUE:
	case WPERF_EV_BLOCK_COMPLETE:
	case WPERF_EV_BLOCK_START:
	case WPERF_EV_BLOCK_DONE:
		q = wperf_uvarint_put(q, ev->block.sector);
		q = wperf_uvarint_put(q, ev->block.dev);
		q = wperf_uvarint_put(q, ev->block.bytes);
		q = wperf_uvarint_put(q, ev->block.op);
		q = wperf_svarint_put(q, ev->block.irq);
		q = wperf_uvarint_put(q, ev->block.rq); /* since 1.2 */
		q = wperf_uvarint_put(q, ev->block.jiffies);
		break;
	case WPERF_EV_NET_XMIT:
	case WPERF_EV_NET_RECV:
		q = wperf_uvarint_put(q, ev->net.ifindex);
		q = wperf_uvarint_put(q, ev->net.bytes);
		q = wperf_svarint_put(q, ev->net.irq);
		break;
	case WPERF_EV_SPIN_BEFORE:
	case WPERF_EV_SPIN_AFTER:
	case WPERF_EV_SPIN_RELEASE:
		q = wperf_uvarint_put(q, ev->usdt.lock);
		break;
	}

	rec[0] = (uint8_t)kind;
	rec[1] = (uint8_t)(q - rec - 2);
	*prev_ts = ev->hdr.ts;
	return wperf_buf_append(b, rec, (size_t)(q - rec));
}

/*
 * The fast path of the decoder, for switches and wakeups (nearly all the
 * events): each varint is read without a bounds check per byte, at most
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

/* A switch or a wakeup whose body is the len bytes at q + 2 (see above):
 * 1 when decoded, 0 to leave it to the checked decoder. */
static int decode_fast(const uint8_t *q, unsigned kind, unsigned len, uint64_t *prev_ts,
		       struct wperf_event *ev)
{
	const uint8_t *p = q + 2;
	int bad = 0;
	uint64_t ts = *prev_ts + (uint64_t)wperf_unzigzag(fast_uvarint(&p, &bad));

	memset(ev, 0, sizeof(*ev));
	ev->hdr.size = wperf_event_size(kind);
	ev->hdr.kind = (uint8_t)kind;
	ev->hdr.ts = ts;
	ev->hdr.cpu = fast_u32(&p, &bad);
	ev->hdr.flags = *p++;
	ev->hdr.tid = fast_u32(&p, &bad);
	ev->hdr.tgid = fast_u32(&p, &bad);
	if (kind == WPERF_EV_SWITCH) {
		ev->sw.next_tid = fast_u32(&p, &bad);
		ev->sw.next_tgid = fast_u32(&p, &bad);
		ev->sw.prev_state = fast_u32(&p, &bad);
		ev->sw.kstack = fast_s32(&p, &bad);
		ev->sw.ustack = fast_s32(&p, &bad);
	} else {
		ev->wake.waker_tid = fast_u32(&p, &bad);
		ev->wake.waker_tgid = fast_u32(&p, &bad);
		ev->wake.irq = fast_s32(&p, &bad);
		ev->wake.target_cpu = fast_u32(&p, &bad);
		ev->wake.kstack = fast_s32(&p, &bad);
		ev->wake.ustack = fast_s32(&p, &bad);
	}
	if (bad || p > q + 2 + len)
		return 0;
	/* Bytes left in the body are fields of a later minor: skipped. */
	*prev_ts = ts;
	return 1;
}

static const char *cursor_why(int e)
{
	if (e == WPERF_DEC_TRUNCATED)
		return "its fields run past its body length";
	return wperf_decode_strerror(e);
}

int wperf_event_decode(const uint8_t **p, const uint8_t *end, uint64_t *prev_ts,
		       struct wperf_event *ev, const char **why)
{
	const uint8_t *q = *p;
	struct wperf_cursor c;
	unsigned kind, len;
	uint64_t ts;
	uint16_t size;

	if (end - q < 2) {
		*why = "the record header runs past the end of the section";
		return -EBADMSG;
	}
	kind = q[0];
	len = q[1];
	if (len > (size_t)(end - q - 2)) {
		*why = "the record's body length runs past the end of the section";
		return -EBADMSG;
	}
	if ((kind == WPERF_EV_SWITCH || kind == WPERF_EV_WAKEUP || kind == WPERF_EV_WAKEUP_NEW) &&
	    end - q >= 2 + FAST_SLACK && decode_fast(q, kind, len, prev_ts, ev)) {
		*p = q + 2 + len;
		return 1;
	}
	wperf_cursor_init(&c, q + 2, len);

	/*
	 * Every kind, including ones added later, starts its body with the ts delta:
	 * reading it even for a kind we skip keeps the next record's time right.
	 */
	ts = *prev_ts + (uint64_t)wperf_cur_svarint(&c);
	size = wperf_event_size(kind);
	if (!size) {
		if (c.err) {
			*why = cursor_why(c.err);
			return -EBADMSG;
		}
		*prev_ts = ts;
		*p = q + 2 + len;
		return 0;
	}

	memset(ev, 0, sizeof(*ev));
	ev->hdr.size = size;
	ev->hdr.kind = (uint8_t)kind;
	ev->hdr.ts = ts;
	ev->hdr.cpu = wperf_cur_u32(&c);
	ev->hdr.flags = wperf_cur_u8(&c);
	ev->hdr.tid = wperf_cur_u32(&c);
	ev->hdr.tgid = wperf_cur_u32(&c);

	switch (kind) {
	case WPERF_EV_SWITCH:
		ev->sw.next_tid = wperf_cur_u32(&c);
		ev->sw.next_tgid = wperf_cur_u32(&c);
		ev->sw.prev_state = wperf_cur_u32(&c);
		ev->sw.kstack = wperf_cur_s32(&c);
		ev->sw.ustack = wperf_cur_s32(&c);
		break;
	case WPERF_EV_WAKEUP:
	case WPERF_EV_WAKEUP_NEW:
		ev->wake.waker_tid = wperf_cur_u32(&c);
		ev->wake.waker_tgid = wperf_cur_u32(&c);
		ev->wake.irq = wperf_cur_s32(&c);
		ev->wake.target_cpu = wperf_cur_u32(&c);
		ev->wake.kstack = wperf_cur_s32(&c);
		ev->wake.ustack = wperf_cur_s32(&c);
		break;
	case WPERF_EV_FORK:
		ev->fork.child_tid = wperf_cur_u32(&c);
		ev->fork.child_tgid = wperf_cur_u32(&c);
		get_comm(&c, ev->fork.comm);
		break;
	case WPERF_EV_EXEC:
	case WPERF_EV_RENAME:
		get_comm(&c, ev->name.comm);
		break;
	case WPERF_EV_HARDIRQ_ENTRY:
	case WPERF_EV_HARDIRQ_EXIT:
	case WPERF_EV_SOFTIRQ_ENTRY:
	case WPERF_EV_SOFTIRQ_EXIT:
		ev->irq.irq = wperf_cur_s32(&c);
		break;
	case WPERF_EV_BLOCK_ISSUE:
	case WPERF_EV_BLOCK_COMPLETE:
	case WPERF_EV_BLOCK_START:
	case WPERF_EV_BLOCK_DONE:
		ev->block.sector = wperf_cur_uvarint(&c);
		ev->block.dev = wperf_cur_u32(&c);
		ev->block.bytes = wperf_cur_u32(&c);
		ev->block.op = wperf_cur_u32(&c);
		ev->block.irq = wperf_cur_s32(&c);
		/* Appended in 1.2: an earlier body ends before them, and leaves them 0. */
		if (!c.err && wperf_cursor_left(&c)) {
			ev->block.rq = wperf_cur_uvarint(&c);
			ev->block.jiffies = wperf_cur_uvarint(&c);
		}
		break;
	case WPERF_EV_NET_XMIT:
	case WPERF_EV_NET_RECV:
		ev->net.ifindex = wperf_cur_u32(&c);
		ev->net.bytes = wperf_cur_u32(&c);
		ev->net.irq = wperf_cur_s32(&c);
		break;
	case WPERF_EV_SPIN_BEFORE:
	case WPERF_EV_SPIN_AFTER:
	case WPERF_EV_SPIN_RELEASE:
		ev->usdt.lock = wperf_cur_uvarint(&c);
		break;
	case WPERF_EV_EXIT:
		/* Format 1.0 has no reading; with the flag, 1.1 appends it. */
		if (ev->hdr.flags & WPERF_EXIT_SCHEDSTAT) {
			ev->exit.run_ns = wperf_cur_uvarint(&c);
			ev->exit.wait_ns = wperf_cur_uvarint(&c);
			ev->exit.slices = wperf_cur_uvarint(&c);
		}
		break;
	default: /* FALSE_WAKEUP: the common fields only */
		break;
	}
	if (c.err) {
		*why = cursor_why(c.err);
		return -EBADMSG;
	}
	/* Bytes left in the body are fields of a later minor: skipped. */
	*prev_ts = ts;
	*p = q + 2 + len;
	return 1;
}
