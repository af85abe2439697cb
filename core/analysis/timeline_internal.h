/* SPDX-License-Identifier: MIT */
/*
 * The state the files of the timeline builder share, at the bottom of its
 * stack: timeline_build.c (the events in time order) on top, timeline.c (what
 * each does) under it, then the parts it drives, each with its own header:
 * timeline_threads.h (the thread-state machine and the wait stacks),
 * timeline_cpu.h (the CPUs, and the tallies of timeline_tally.c),
 * timeline_devices.h (disks and NICs), timeline_irq.h (interrupts as
 * wakers); timeline_assemble.c makes the final arrays. Not a public API.
 *
 * While events are read, entities have provisional ids: threads, devices and
 * interrupt sources are numbered separately, and a waker is a tagged value
 * (PV_*). Once every event is read they get their final entity indexes:
 * threads first, then devices, then the interrupt entities that are not devices.
 */
#ifndef WPERF_TIMELINE_INTERNAL_H
#define WPERF_TIMELINE_INTERNAL_H

#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/idmap.h"
#include "core/trace/thread_table.h"
#include "core/analysis/timeline.h"

#define TL_NONE UINT32_MAX

/* Provisional wakers: a thread index, a device index or a source index, tagged
 * in the top two bits. WPERF_NO_ENTITY and WPERF_WAKER_ISSUERS keep their value
 * (both have the top two bits set, which no tag uses). */
#define PV_TAG	  0xC0000000u
#define PV_THREAD 0x00000000u
#define PV_DEVICE 0x40000000u
#define PV_SOURCE 0x80000000u
#define PV_MAX	  0x3FFFFFFFu /* indexes stay below this */

/* When something happened: CLOCK_MONOTONIC ns, and the kernel's jiffies then
 * (0: not in the trace). */
struct tl_when {
	uint64_t ns, jiffies;
};

/* A tid and its current thread (TL_NONE never), in tl_builder.recent. */
struct tl_recent {
	uint32_t tid, thread;
};

#define TL_RECENT 256 /* a power of two */

struct tl_builder {
	const struct wperf_trace *t;
	struct wperf_timeline_opts opts;
	struct wperf_error *err;
	int oom;	     /* an allocation failed: the build stops after this event */
	uint64_t start, end; /* the window */

	struct wperf_thread_table names;
	struct wperf_idmap tids;     /* tid -> slot in tid_thread */
	struct wperf_buf tid_thread; /* uint32_t: the tid's current thread, or TL_NONE */
	/* The threads of recent tids, by the tid's low bits (tid 0: empty). Nearly
	 * every event names tids named a moment before, and this is cheaper than
	 * tids; an entry always agrees with tid_thread. */
	struct tl_recent recent[TL_RECENT];
	struct wperf_buf threads; /* struct tl_thread */
	struct wperf_buf cpus;	  /* struct tl_cpu */

	/* The stacks of the waits, each combination once (struct wperf_wait_stacks,
	 * WPERF_NO_STACKS first): the timeline's stacks. A hash table of open
	 * addressing (a power of two, at most half full) holds their indexes + 1. */
	struct wperf_buf stacks;
	uint32_t *stacks_slots;
	size_t stacks_cap;

	struct wperf_buf spins, releases, marks; /* annotations */
	uint64_t release_seq;

	struct wperf_idmap disks, nics; /* dev / ifindex -> slot in disk_index / nic_index */
	struct wperf_buf disk_index, nic_index; /* uint32_t: the device index */
	struct wperf_buf devices;		/* struct tl_device */
	struct tl_request *reqs;		/* open addressing, a power of two */
	size_t reqs_cap, reqs_count;
	/* disk requests made before the window (completed in it), never completed
	 * in it, and whose completion was lost: wperf_timeline's counts of them */
	uint64_t reqs_before, reqs_unfinished, reqs_lost;
	uint64_t reqs_made; /* BLOCK_START events: the kernel has block_io_start */
	/* when a CPU's events were lost first and last (0: never), for the disks:
	 * a request's start or completion may have been lost with them; known in
	 * a recording of the whole machine only */
	uint64_t lost_from, lost_until;
	int whole_machine;
	/* the first and the last block event with jiffies: the length of one */
	struct tl_when jiffy_first, jiffy_last;
	uint64_t jiffy_ns;
	struct wperf_idmap source_of; /* tl_source_key() -> index in sources - TL_NFIXED */
	struct wperf_buf sources;     /* struct tl_source: the fixed ones, then the others */
	struct wperf_idmap vote_of;   /* hard irq number -> index in votes */
	struct wperf_buf votes;	      /* struct tl_vote */

	/* the tallies for the checks (timeline_tally.c) */
	struct wperf_idmap break_of;  /* tid -> index in break_tally */
	struct wperf_buf break_tally; /* struct wperf_break_tally */
	struct wperf_buf nic_tally;   /* struct wperf_nic_tally */
	struct wperf_buf exits;	      /* struct wperf_exit_reading, entity: the thread */
};

/* a * b / c without overflow, saturated; 0 when c is 0. */
static inline uint64_t tl_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 r;

	if (!c)
		return 0;
	r = (unsigned __int128)a * b / c;
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

#define TL_AT(buf, type, i) (((type *)(void *)(buf).data)[i])
#define TL_COUNT(buf, type) ((buf).len / sizeof(type))

/* t clipped to the window. */
static inline uint64_t tl_clamp(const struct tl_builder *b, uint64_t t)
{
	return t < b->start ? b->start : t > b->end ? b->end : t;
}

/* timeline.c: what event ev does to the threads, CPUs and devices it concerns. */
void tl_step(struct tl_builder *b, const struct wperf_event *ev);
/* timeline_assemble.c: tl's entities, segments and shares from the builder's state. */
int tl_assemble(struct tl_builder *b, struct wperf_timeline *tl);

#endif /* WPERF_TIMELINE_INTERNAL_H */
