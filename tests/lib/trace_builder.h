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

#include "core/analysis/analysis.h"
#include "core/util/buf.h"
#include "core/analysis/symbolize.h"
#include "core/trace/meta.h"
#include "core/trace/trace.h"

#define TB_MAX_CPUS 64

struct trace_builder {
	struct wperf_buf events;   /* struct wperf_event[] */
	struct wperf_buf threads;  /* struct wperf_thread[] */
	struct wperf_buf stacks;   /* struct wperf_stack[] */
	struct wperf_buf ksyms;	   /* struct wperf_ksym[] */
	struct wperf_buf perfmaps; /* struct wperf_perfmap[] */
	struct wperf_buf mappings; /* struct wperf_mapping[] */
	const char *meta_keys[16], *meta_values[16];
	size_t nmeta;
	char nic_meta[4][3][32]; /* tb_nic's two keys and speed, which META points into */
	size_t nnics;
	struct {
		uint32_t tid, tgid;
	} born[16]; /* threads born in the trace (tb_tgid) */
	size_t nborn;
	const struct wperf_counters *counters[2]; /* COUNTERS at the start and end; NULL: none */
	uint64_t start, end;			  /* the window */
	uint32_t ncpu;
	uint64_t lost[TB_MAX_CPUS];
	char path[128];
};

void tb_init(struct trace_builder *b, uint64_t start, uint64_t end);
void tb_release(struct trace_builder *b);

/* A thread of the THREADS table; events of tid get its tgid. */
void tb_thread(struct trace_builder *b, uint32_t tid, uint32_t tgid, const char *comm);
/* Events of tid, a thread born in the trace (not in THREADS), get tgid. */
void tb_tgid(struct trace_builder *b, uint32_t tid, uint32_t tgid);
void tb_meta(struct trace_builder *b, const char *key, const char *value);
/* META of network interface ifindex: its name (kept, not copied) and, unless 0,
 * its speed in bits per second. */
void tb_nic(struct trace_builder *b, uint32_t ifindex, const char *name, uint64_t speed_bps);
/* The STATS section's CPUs (2 by default) and records lost on each (lost NULL: none). */
void tb_cpus(struct trace_builder *b, uint32_t ncpu, const uint64_t *lost);

/*
 * Entries of the STACKS, KSYMS, PERFMAP and MAPPINGS tables. Like tb_meta's
 * strings, ips, name, text and path are kept, not copied: they must live until
 * tb_open.
 */
void tb_stack(struct trace_builder *b, int32_t id, int user, uint32_t nr, const uint64_t *ips);
void tb_ksym(struct trace_builder *b, uint64_t addr, const char *name);
void tb_perfmap(struct trace_builder *b, uint32_t tgid, const char *text);
/* An executable file mapping of process tgid (path kept, not copied). */
void tb_mapping(struct trace_builder *b, uint32_t tgid, uint64_t start, uint64_t end,
		uint64_t pgoff, const char *path);

/* The kernel's counters read at the window's start and end (COUNTERS sections);
 * kept, not copied, like tb_meta's strings. */
void tb_counters(struct trace_builder *b, const struct wperf_counters *start,
		 const struct wperf_counters *end);

/* An event of kind about tid at ts on cpu, zeroed otherwise, for the caller to fill. */
struct wperf_event *tb_add(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu,
			   uint32_t tid);
/* prev leaves cpu (blocked, with stacks ks/us, unless preempted); next enters. */
void tb_switch(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t prev, uint32_t next,
	       int preempted, int32_t ks, int32_t us);
/* Thread waker wakes tid, with the waker's stacks ks/us; returns the event to adjust. */
/* tid forks child (a new process when child_tgid is the child, a thread of
 * tid's process when it is tid's tgid), named comm. */
void tb_fork(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t tid, uint32_t child,
	     uint32_t child_tgid, const char *comm);
/* An EXEC or RENAME of tid: its name is comm from then on. */
void tb_name(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	     const char *comm);
struct wperf_event *tb_wake(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t tid,
			    uint32_t waker, int32_t ks, int32_t us);
/* An interrupt (context WPERF_CTX_*, irq) wakes tid. */
void tb_wake_irq(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t tid, uint8_t ctx,
		 int32_t irq);
/* A BLOCK_* event of format 1.0 (no rq, no jiffies); returns it to adjust. */
struct wperf_event *tb_block(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu,
			     uint32_t tid, uint8_t ctx, int32_t irq, uint32_t dev, uint64_t sector,
			     uint32_t bytes);
void tb_net(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	    uint8_t ctx, uint32_t ifindex, uint32_t bytes);
/* A USDT probe's event, made by tid on cpu (where it runs: a CPU runs one
 * thread at a time, and the timeline holds it to that). */
void tb_usdt(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	     uint64_t lock);
void tb_irq(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	    int32_t irq);

/*
 * Sets every field of ev, an event of kind at ts, as the table of event kinds
 * (core/trace/event_kinds.h) lists them: variant 0 ordinary values, 1 the
 * largest of every field (flags 0xff, 15-byte names), 2 the smallest (0,
 * INT32_MIN, empty names, flags 0). A field its flags leave out of the body
 * stays 0, as decoding leaves it; hdr.size is the kind's.
 */
void tb_fill_event(struct wperf_event *ev, unsigned kind, unsigned variant, uint64_t ts);

/* Every kind in the three variants, with timestamps that sometimes go
 * backwards, then EXITs at the extremes of the ts delta: how many it made. */
size_t tb_all_kinds(struct wperf_event *evs, size_t max);

/* Fails unless got equals want: field by field (the message names the
 * field), then every byte (decoding zeroes what a kind does not use). */
void tb_assert_event_equal(const struct wperf_event *want, const struct wperf_event *got);

/* The whole file at path, NUL-terminated, in a buffer the caller frees; *len
 * its size (len may be NULL). Fails the test when it cannot be read. */
char *tb_read_file(const char *path, size_t *len);

/* Puts the events in time order, stably: equal times keep the order added. */
void tb_sort(struct trace_builder *b);

/*
 * Writes the trace (in file order: as added) to a temporary file and opens it.
 * Called again, it writes a new file and removes the last one (traces opened
 * from it stay readable).
 */
struct wperf_trace *tb_open(struct trace_builder *b);

/*
 * tb_open, then the trace analyzed with the default options and its symbolizer:
 * what the report writers take. 0, or -1 with the error on stderr (for a
 * cmocka setup). tb_analysis_free frees the three (NULL-safe).
 */
int tb_analyze(struct trace_builder *b, struct wperf_trace **t, struct wperf_analysis **a,
	       struct wperf_symbolizer **sym);
void tb_analysis_free(struct wperf_trace *t, struct wperf_analysis *a,
		      struct wperf_symbolizer *sym);

#endif /* WPERF_TESTS_TRACE_BUILDER_H */
