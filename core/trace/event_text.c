/* SPDX-License-Identifier: MIT */
#include "core/trace/event_text.h"

#include <stdbool.h>
#include <stdio.h>

#include "core/trace/event_kinds.h"

/* What the flags of ev say, by what they mean for its kind k; "" for nothing. */
static const char *flags_text(const struct wperf_event_kind_info *k, const struct wperf_event *ev)
{
	static const char *const contexts[] = {"in thread", "in hardirq", "in softirq"};

	if (k->flags == WPERF_FLAGS_SWITCH)
		return ev->hdr.flags & WPERF_SWITCH_PREEMPTED ? "preempted" : "blocked";
	if (k->flags == WPERF_FLAGS_CONTEXT)
		return ev->hdr.flags < 3 ? contexts[ev->hdr.flags] : "in ?";
	return "";
}

/* A signed field: an irq is named when it is a softirq's ("9(RCU)"). */
static int format_signed(char *buf, size_t size, const struct wperf_event *ev,
			 const struct wperf_field *f, int32_t v)
{
	bool softirq = f->show == WPERF_SHOW_SOFTIRQ ||
		       (f->show == WPERF_SHOW_IRQ && ev->hdr.flags == WPERF_CTX_SOFTIRQ);

	if (softirq && wperf_softirq_name(v))
		return snprintf(buf, size, " %s=%d(%s)", f->name, v, wperf_softirq_name(v));
	return snprintf(buf, size, " %s=%d", f->name, v);
}

/* " name=value" of field f of ev, as the table of event kinds says to show it. */
static int format_field(char *buf, size_t size, const struct wperf_event *ev,
			const struct wperf_field *f, const struct wperf_thread_table *tt)
{
	unsigned long long v = wperf_field_get(ev, f);

	if (f->type == WPERF_FIELD_COMM)
		return snprintf(buf, size, " %s=%.16s", f->name, (const char *)ev + f->offset);
	if (f->type == WPERF_FIELD_S32)
		return format_signed(buf, size, ev, f, (int32_t)v);
	switch (f->show) {
	case WPERF_SHOW_HEX:
		return snprintf(buf, size, " %s=0x%llx", f->name, v);
	case WPERF_SHOW_TID:
		return snprintf(buf, size, " %s=%llu(%s)", f->name, v,
				wperf_thread_table_name(tt, (uint32_t)v));
	case WPERF_SHOW_DEV:
		return snprintf(buf, size, " %s=%llu:%llu", f->name, v >> 20, v & 0xfffff);
	case WPERF_SHOW_BLOCK_OP:
		return snprintf(buf, size, " %s=0x%llx(%s)", f->name, v,
				wperf_block_op_name((uint32_t)v) ? wperf_block_op_name((uint32_t)v)
								 : "?");
	case WPERF_SHOW_SECTOR:
		return v == UINT64_MAX ? snprintf(buf, size, " %s=-", f->name)
				       : snprintf(buf, size, " %s=%llu", f->name, v);
	default:
		return snprintf(buf, size, " %s=%llu", f->name, v);
	}
}

void wperf_event_details(char *buf, size_t size, const struct wperf_event *ev,
			 const struct wperf_thread_table *tt)
{
	const struct wperf_event_kind_info *k = wperf_event_kind_info(ev->hdr.kind);
	const char *flags;
	size_t len;

	buf[0] = '\0';
	if (!k)
		return;
	flags = flags_text(k, ev);
	len = (size_t)snprintf(buf, size, "%s%s", *flags ? " " : "", flags);
	for (size_t i = 0; i < k->nfields && len < size; i++)
		if (wperf_event_has_field(k, &k->fields[i], ev))
			len += (size_t)format_field(buf + len, size - len, ev, &k->fields[i], tt);
}
