/* SPDX-License-Identifier: MIT */
/*
 * Hand-made traces for unit tests: add threads and events, then write them to
 * a temporary file and open it with the real reader, so that the analysis is
 * tested from a trace exactly as it would be from a recording.
 */
#ifndef WPERF_TESTS_TRACE_BUILDER_H
#define WPERF_TESTS_TRACE_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/trace.h"

struct trace_builder {
	struct wperf_buf events;  /* struct wperf_event[] */
	struct wperf_buf threads; /* struct wperf_thread[] */
	const char *meta_keys[16], *meta_values[16];
	size_t nmeta;
	uint64_t start, end; /* the window */
	uint32_t ncpu;
	uint64_t lost[2];
	char path[128];
};

void tb_init(struct trace_builder *b, uint64_t start, uint64_t end);
void tb_release(struct trace_builder *b);

/* A thread of the THREADS table; events of tid get its tgid. */
void tb_thread(struct trace_builder *b, uint32_t tid, uint32_t tgid, const char *comm);
void tb_meta(struct trace_builder *b, const char *key, const char *value);

/* An event of kind about tid at ts on cpu, zeroed otherwise, for the caller to fill. */
struct wperf_event *tb_add(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu,
			   uint32_t tid);
/* prev leaves cpu (blocked, with stacks ks/us, unless preempted); next enters. */
void tb_switch(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t prev, uint32_t next,
	       int preempted, int32_t ks, int32_t us);
/* Thread waker wakes tid, with the waker's stacks ks/us. */
void tb_wake(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t tid, uint32_t waker,
	     int32_t ks, int32_t us);
/* An interrupt (context WPERF_CTX_*, irq) wakes tid. */
void tb_wake_irq(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t tid, uint8_t ctx,
		 int32_t irq);
void tb_block(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	      uint8_t ctx, int32_t irq, uint32_t dev, uint64_t sector, uint32_t bytes);
void tb_net(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	    uint8_t ctx, uint32_t ifindex, uint32_t bytes);
void tb_usdt(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t tid, uint64_t lock);
void tb_irq(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	    int32_t irq);

/* Writes the trace (in file order: as added) to a temporary file and opens it. */
struct wperf_trace *tb_open(struct trace_builder *b);

#endif /* WPERF_TESTS_TRACE_BUILDER_H */
