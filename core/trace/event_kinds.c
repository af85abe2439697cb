/* SPDX-License-Identifier: MIT */
/*
 * The table of event kinds (event_kinds.h): each kind's fields, spelled once.
 * A field's entry names its member in struct wperf_event; the compiler checks
 * that the member has the size its stored type says.
 */
#include <string.h>

#include "core/trace/event_kinds.h"
#include "core/trace/trace.h"

#define SIZE_U8	  1
#define SIZE_U32  4
#define SIZE_S32  4
#define SIZE_U64  8
#define SIZE_COMM WPERF_COMM_LEN

/* The member's offset; a compile error (an array of size -1) when the member's
 * size is not the one its type stores. */
#define MEMBER_OFFSET(member, type)                                                                \
	(offsetof(struct wperf_event, member) +                                                    \
	 0 * sizeof(char[sizeof(((struct wperf_event *)0)->member) == SIZE_##type ? 1 : -1]))

#define FIELD_SINCE(payload, member, type, presence, since, show)                                  \
	{                                                                                          \
#member, MEMBER_OFFSET(payload.member, type), WPERF_FIELD_##type,                  \
		    WPERF_FIELD_##presence, since, WPERF_SHOW_##show                               \
	}
#define FIELD(payload, member, type, show) FIELD_SINCE(payload, member, type, ALWAYS, 0, show)

static const struct wperf_field common_fields[] = {
    FIELD(hdr, cpu, U32, DEC),
    FIELD(hdr, flags, U8, HEX),
    FIELD(hdr, tid, U32, TID),
    FIELD(hdr, tgid, U32, DEC),
};

static const struct wperf_field switch_fields[] = {
    FIELD(sw, next_tid, U32, TID), FIELD(sw, next_tgid, U32, DEC), FIELD(sw, prev_state, U32, HEX),
    FIELD(sw, kstack, S32, DEC),   FIELD(sw, ustack, S32, DEC),
};

static const struct wperf_field wakeup_fields[] = {
    FIELD(wake, waker_tid, U32, TID), FIELD(wake, waker_tgid, U32, DEC),
    FIELD(wake, irq, S32, IRQ),	      FIELD(wake, target_cpu, U32, DEC),
    FIELD(wake, kstack, S32, DEC),    FIELD(wake, ustack, S32, DEC),
};

static const struct wperf_field fork_fields[] = {
    FIELD(fork, child_tid, U32, TID),
    FIELD(fork, child_tgid, U32, DEC),
    FIELD(fork, comm, COMM, DEC),
};

static const struct wperf_field name_fields[] = {FIELD(name, comm, COMM, DEC)};

/* Format 1.1: the exiting thread's schedstat, when the kernel has one. */
static const struct wperf_field exit_fields[] = {
    FIELD_SINCE(exit, run_ns, U64, IF_FLAG, 1, DEC),
    FIELD_SINCE(exit, wait_ns, U64, IF_FLAG, 1, DEC),
    FIELD_SINCE(exit, slices, U64, IF_FLAG, 1, DEC),
};

static const struct wperf_field irq_fields[] = {FIELD(irq, irq, S32, DEC)};
static const struct wperf_field softirq_fields[] = {FIELD(irq, irq, S32, SOFTIRQ)};

static const struct wperf_field block_fields[] = {
    FIELD(block, sector, U64, SECTOR),
    FIELD(block, dev, U32, DEV),
    FIELD(block, bytes, U32, DEC),
    FIELD(block, op, U32, BLOCK_OP),
    FIELD(block, irq, S32, IRQ),
    FIELD_SINCE(block, rq, U64, APPENDED, 2, HEX),
    FIELD_SINCE(block, jiffies, U64, APPENDED, 2, DEC),
};

static const struct wperf_field net_fields[] = {
    FIELD(net, ifindex, U32, DEC),
    FIELD(net, bytes, U32, DEC),
    FIELD(net, irq, S32, IRQ),
};

static const struct wperf_field usdt_fields[] = {FIELD(usdt, lock, U64, HEX)};

#define PAYLOAD_SIZE(payload)                                                                      \
	(sizeof(struct wperf_event_hdr) + sizeof(((struct wperf_event *)0)->payload))
#define NFIELDS(fields) (sizeof(fields) / sizeof(fields[0]))
#define KIND(name, payload, fields, flags, data_flag, since)                                       \
	{                                                                                          \
		name, PAYLOAD_SIZE(payload), since, WPERF_FLAGS_##flags, data_flag,                \
		    NFIELDS(fields), fields                                                        \
	}

static const struct wperf_event_kind_info kinds[WPERF_EV_KIND_MAX] = {
    [WPERF_EV_SWITCH] = KIND("switch", sw, switch_fields, SWITCH, 0, 0),
    [WPERF_EV_WAKEUP] = KIND("wakeup", wake, wakeup_fields, CONTEXT, 0, 0),
    [WPERF_EV_WAKEUP_NEW] = KIND("wakeup_new", wake, wakeup_fields, CONTEXT, 0, 0),
    [WPERF_EV_FORK] = KIND("fork", fork, fork_fields, NONE, 0, 0),
    [WPERF_EV_EXEC] = KIND("exec", name, name_fields, NONE, 0, 0),
    [WPERF_EV_EXIT] = KIND("exit", exit, exit_fields, DATA, WPERF_EXIT_SCHEDSTAT, 0),
    [WPERF_EV_RENAME] = KIND("rename", name, name_fields, NONE, 0, 0),
    [WPERF_EV_HARDIRQ_ENTRY] = KIND("hardirq_entry", irq, irq_fields, NONE, 0, 0),
    [WPERF_EV_HARDIRQ_EXIT] = KIND("hardirq_exit", irq, irq_fields, NONE, 0, 0),
    [WPERF_EV_SOFTIRQ_ENTRY] = KIND("softirq_entry", irq, softirq_fields, NONE, 0, 0),
    [WPERF_EV_SOFTIRQ_EXIT] = KIND("softirq_exit", irq, softirq_fields, NONE, 0, 0),
    [WPERF_EV_BLOCK_ISSUE] = KIND("block_issue", block, block_fields, CONTEXT, 0, 0),
    [WPERF_EV_BLOCK_COMPLETE] = KIND("block_complete", block, block_fields, CONTEXT, 0, 0),
    [WPERF_EV_NET_XMIT] = KIND("net_xmit", net, net_fields, CONTEXT, 0, 0),
    [WPERF_EV_NET_RECV] = KIND("net_recv", net, net_fields, CONTEXT, 0, 0),
    [WPERF_EV_SPIN_BEFORE] = KIND("spin_before", usdt, usdt_fields, NONE, 0, 0),
    [WPERF_EV_SPIN_AFTER] = KIND("spin_after", usdt, usdt_fields, NONE, 0, 0),
    [WPERF_EV_SPIN_RELEASE] = KIND("spin_release", usdt, usdt_fields, NONE, 0, 0),
    /* USDT wperf:false_wakeup() has no argument: the common fields only */
    [WPERF_EV_FALSE_WAKEUP] = {"false_wakeup", sizeof(struct wperf_event_hdr), 0, WPERF_FLAGS_NONE,
			       0, 0, NULL},
    [WPERF_EV_BLOCK_START] = KIND("block_start", block, block_fields, CONTEXT, 0, 2),
    [WPERF_EV_BLOCK_DONE] = KIND("block_done", block, block_fields, CONTEXT, 0, 2),
};

const struct wperf_event_kind_info *wperf_event_kind_info(unsigned kind)
{
	return kind < WPERF_EV_KIND_MAX && kinds[kind].name ? &kinds[kind] : NULL;
}

const struct wperf_field *wperf_event_common_fields(size_t *n)
{
	*n = NFIELDS(common_fields);
	return common_fields;
}

const char *wperf_event_kind_name(unsigned kind)
{
	const struct wperf_event_kind_info *k = wperf_event_kind_info(kind);

	return k ? k->name : "unknown";
}

uint16_t wperf_event_size(unsigned kind)
{
	const struct wperf_event_kind_info *k = wperf_event_kind_info(kind);

	return k ? k->size : 0;
}

int wperf_event_has_field(const struct wperf_event_kind_info *k, const struct wperf_field *f,
			  const struct wperf_event *ev)
{
	return f->presence != WPERF_FIELD_IF_FLAG || (ev->hdr.flags & k->data_flag);
}

const char *wperf_softirq_name(int32_t vec)
{
	static const char *const names[] = {"HI",	"TIMER",   "NET_TX", "NET_RX",	"BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

	return vec >= 0 && vec < (int32_t)(sizeof(names) / sizeof(*names)) ? names[vec] : NULL;
}

const char *wperf_block_op_name(uint32_t op)
{
	static const char *const names[] = {"read", "write", "flush", "discard"};

	return (op & 0xff) < sizeof(names) / sizeof(*names) ? names[op & 0xff] : NULL;
}
