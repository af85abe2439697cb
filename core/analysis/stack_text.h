/* SPDX-License-Identifier: MIT */
/*
 * A recorded stack as people read it: the symbolizer's frames without the
 * recorder's own, and, in a line, without the scheduler's either. Every
 * report writer and the gate's call sites show stacks so.
 */
#ifndef WPERF_STACK_TEXT_H
#define WPERF_STACK_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/symbolize.h"

/*
 * The stack with this id (user: of process tgid) into buf (size > 0): its
 * frames innermost first, one a line ('\n' between them), as
 * wperf_symbolize_stack formats them (C++ and Rust names demangled), without
 * the recorder's own frames at the top of a kernel stack (its BPF program,
 * "bpf_prog_..._sched_switch", and the tracepoint's glue, "bpf_trace_run4",
 * "__bpf_trace_...", "__traceiter_..."): it begins at the kernel's first
 * frame of its own.
 */
void wperf_stack_text(struct wperf_symbolizer *sym, int32_t id, int user, uint32_t tgid, char *buf,
		      size_t size);

/*
 * The stack in a line: wperf_stack_text, then without the scheduler's frames
 * either (wperf_stack_scheduler_frame), at most max_frames of them (0: all)
 * joined by sep, into buf (size > 0; truncated to fit). Empty when there is
 * no stack or nothing of it is left.
 */
void wperf_stack_brief(struct wperf_symbolizer *sym, int32_t id, int user, uint32_t tgid,
		       unsigned max_frames, const char *sep, char *buf, size_t size);

/* Is frame (a symbolized kernel frame, "__schedule+0x618") the recorder's or
 * the scheduler's own, where every wait ends, and so no news to a reader? */
int wperf_stack_scheduler_frame(const char *frame);

#endif /* WPERF_STACK_TEXT_H */
