/* SPDX-License-Identifier: MIT */
/*
 * The writer thread of a recording: drains the BPF ring buffer (having the
 * programs hand over their per-CPU batches now and then), puts the records
 * back in time order, writes them through the trace writer, and notes what the
 * trace's tables will need: the stacks referenced, and the mappings of every
 * process that appears in a user stack: from the kernel's mmap records for
 * programs started while recording, from /proc/PID/maps for the others.
 */
#ifndef WPERF_TRACE_SINK_H
#define WPERF_TRACE_SINK_H

#include <stdint.h>

#include "core/util/error.h"
#include "core/trace/trace.h"
#include "harness/record/mmap_watch.h"
#include "harness/record/proc_info.h"

struct trace_sink_opts {
	int ringbuf_fd;
	struct wperf_trace_writer *writer; /* used by the thread until trace_sink_stop */
	int poll_ms;			   /* how often the ring buffer is drained */
	uint64_t reorder_ns;	 /* how late a record may arrive and still be put in order */
	int (*flush)(void *ctx); /* has the programs hand over what they staged, or NULL */
	void *flush_ctx;
	uint64_t flush_ns;	  /* how often to call flush: well under reorder_ns */
	uint32_t stack_ids;	  /* ids of the stack map are below this */
	struct mmap_watch *mmaps; /* the kernel's mmap records, or NULL: /proc only */
};

struct trace_sink;

int trace_sink_start(const struct trace_sink_opts *opts, struct trace_sink **out,
		     struct wperf_error *err);

/* Records written so far (any thread may ask). */
uint64_t trace_sink_events(const struct trace_sink *s);

/* Non-zero once the thread has failed (the disk filled up, say); err gets why. */
int trace_sink_failed(struct trace_sink *s, struct wperf_error *err);

/*
 * Flushes and drains what is left, writes it and joins the thread. Call it
 * after the BPF programs are detached, so that nothing arrives afterwards.
 */
int trace_sink_stop(struct trace_sink *s, struct wperf_error *err);

/* After stop: was stack id referenced as a user (1) or kernel (0) stack? */
int trace_sink_stack_used(const struct trace_sink *s, int32_t id, int user);

/* After stop: the mappings snapshotted while recording (owned by the sink). */
struct proc_mappings *trace_sink_mappings(struct trace_sink *s);

/* After stop: calls fn for each process whose mappings were read. */
void trace_sink_for_each_process(const struct trace_sink *s, void (*fn)(uint32_t tgid, void *ctx),
				 void *ctx);

void trace_sink_free(struct trace_sink *s);

#endif /* WPERF_TRACE_SINK_H */
