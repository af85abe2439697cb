/* SPDX-License-Identifier: MIT */
/*
 * A recorded stack as people read it (see stack_text.h).
 */
#include "core/analysis/stack_text.h"

#include <stdio.h>
#include <string.h>

#define STACK_BRIEF_TEXT 8192 /* a stack's frames before they are cut short */

/* Does frame begin with one of the n prefixes? */
static int begins_with(const char *frame, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(frame, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* The recorder's own: its BPF program, "bpf_prog_TAG_NAME" (TAG: 16 hex digits,
 * not bpf_prog_free_deferred, a kernel function), and the tracepoint's glue
 * that ran it. */
static int recorder_frame(const char *frame)
{
	static const char *const glue[] = {"bpf_trace_run", "__bpf_trace_", "__traceiter_"};
	const char *tag = frame + strlen("bpf_prog_");

	if (!strncmp(frame, "bpf_prog_", strlen("bpf_prog_")) &&
	    strspn(tag, "0123456789abcdef") == 16 && tag[16] == '_')
		return 1;
	return begins_with(frame, glue, sizeof(glue) / sizeof(*glue));
}

int wperf_stack_scheduler_frame(const char *frame)
{
	static const char *const sched[] = {"__schedule", "schedule", "preempt_schedule",
					    "io_schedule"};

	return recorder_frame(frame) || begins_with(frame, sched, sizeof(sched) / sizeof(*sched));
}

void wperf_stack_text(struct wperf_symbolizer *sym, int32_t id, int user, uint32_t tgid, char *buf,
		      size_t size)
{
	char *p = buf;

	wperf_symbolize_stack(sym, id, user, tgid, "\n", 0, buf, size);
	/* Only a kernel stack has them, and only innermost: where the recorder took it. */
	while (!user && *p && recorder_frame(p)) {
		char *nl = strchr(p, '\n');

		p = nl ? nl + 1 : p + strlen(p);
	}
	memmove(buf, p, strlen(p) + 1);
}

void wperf_stack_brief(struct wperf_symbolizer *sym, int32_t id, int user, uint32_t tgid,
		       unsigned max_frames, const char *sep, char *buf, size_t size)
{
	char all[STACK_BRIEF_TEXT];
	const char *p = all;
	size_t len = 0;

	wperf_stack_text(sym, id, user, tgid, all, sizeof(all));
	while (!user && *p && wperf_stack_scheduler_frame(p)) {
		const char *nl = strchr(p, '\n');

		p = nl ? nl + 1 : p + strlen(p);
	}
	buf[0] = '\0';
	for (unsigned f = 0; *p && len + 1 < size && (!max_frames || f < max_frames); f++) {
		size_t n = strcspn(p, "\n");

		len += (size_t)snprintf(buf + len, size - len, "%s%.*s", f ? sep : "", (int)n, p);
		p += n + (p[n] == '\n');
	}
}
