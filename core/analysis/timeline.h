/* SPDX-License-Identifier: MIT */
/*
 * The first step of the analysis (wPerf section 4.2, "matching"): every
 * thread's time in the recording window cut into running, runnable and waiting
 * segments; each wait matched to the wakeup that ended it and its waker.
 *
 * Besides threads, the timeline has pseudo-threads (wPerf section 3.3): one per
 * disk and per network interface, and one per other interrupt source (timers,
 * other softirqs). A thread woken by a disk's completion waited for the disk; a
 * disk "waits" for the threads that issue I/O to it during its idle time.
 *
 * Ownership: a struct wperf_timeline owns all its arrays, each entity's segments
 * included; wperf_timeline_free releases it (NULL-safe).
 */
#ifndef WPERF_TIMELINE_H
#define WPERF_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"
#include "core/trace/trace.h"

#define WPERF_NO_ENTITY UINT32_MAX
/* The waker of a device's idle segment: the device waits for all the threads
 * that issued I/O to it, each by its share of the bytes (wperf_io_share). */
#define WPERF_WAKER_ISSUERS (UINT32_MAX - 1)

enum wperf_seg_state {
	WPERF_SEG_RUNNING = 0,
	WPERF_SEG_RUNNABLE = 1, /* ready, waiting for a CPU: preempted, or woken */
	WPERF_SEG_WAITING = 2,	/* blocked until its waker woke it */
};

enum wperf_entity_kind {
	WPERF_ENTITY_THREAD = 0,
	WPERF_ENTITY_DISK = 1, /* dev: the disk's dev_t (major << 20 | minor) */
	WPERF_ENTITY_NIC = 2,  /* dev: the interface's ifindex */
	WPERF_ENTITY_IRQ = 3,  /* timers and other interrupts: never a bottleneck */
};

/* Where a wait blocked and where its waker woke it: trace stack ids, or
 * WPERF_NO_STACK. */
struct wperf_wait_stacks {
	int32_t kstack, ustack;		    /* where it blocked */
	int32_t waker_kstack, waker_ustack; /* where its waker woke it */
};

/* The index in wperf_timeline.stacks of four WPERF_NO_STACK. */
#define WPERF_NO_STACKS 0
/* A timeline has fewer combinations of stacks than this (wperf_segment.stacks). */
#define WPERF_MAX_STACKS (1u << 29)

/*
 * 16 bytes: a timeline holds one or two per event, so their size is most of the
 * analyzer's memory (and of its time, memory being first touched). Whose segment
 * it is, is not stored: the entity whose array holds it (wperf_entity.segments)
 * is its owner. Nor where it starts: an entity's segments follow each other
 * without a gap, so a segment starts where the one before it ended, the first
 * at the entity's birth (wperf_segment_start). Nor its stacks: a thread blocks
 * and is woken in a few places again and again, and the timeline keeps each
 * combination once (stacks). Its state and spin flag share a word with that
 * index, as bit-fields.
 */
struct wperf_segment {
	uint64_t end;	      /* CLOCK_MONOTONIC ns, clipped to the window */
	uint32_t waker;	      /* WAITING: the entity that woke it, WPERF_WAKER_ISSUERS for a
				 device's idle time, WPERF_NO_ENTITY if the window ended first */
	unsigned state : 2;   /* enum wperf_seg_state */
	unsigned spin : 1;    /* WAITING: an annotated spin (wperf_annotate.h), not a block */
	unsigned stacks : 29; /* WAITING: its stacks, an index in wperf_timeline.stacks (equal
				 indexes, equal stacks); WPERF_NO_STACKS otherwise */
};
_Static_assert(sizeof(struct wperf_segment) == 16, "a segment is 16 bytes");

/*
 * Where the kernel's count of a thread's time parts from the model's, for the
 * checks (checks.h): what the kernel does not see as the model does.
 */
struct wperf_thread_acct {
	/* time in which a switch of the thread's lies that was not recorded (a
	 * break, wperf_cpu_tally): what its times may be off by */
	uint64_t guessed_ns;
	/* runnable time after wakeups handed to an idle CPU: the kernel queues the
	 * thread as that CPU wakes up, and counts no wait but, from then on (a
	 * moment the trace does not see), running time */
	uint64_t unqueued_ns;
	/* runnable time after wakeups from another CPU that preempted the thread
	 * running there: such a wakeup asks that CPU not to read its clock again
	 * at the switch (rq_clock_skip_update), which the kernel may so count at
	 * the wakeup: any of this time may be running time to it */
	uint64_t skipped_ns;
	/* on a CPU and runnable in the false wakeups removed (wperf_annotate.h):
	 * waiting to the model, the kernel's running and waiting time all the same */
	uint64_t false_run_ns, false_runnable_ns;
};

struct wperf_entity {
	uint8_t kind;	     /* enum wperf_entity_kind */
	uint32_t tid, tgid;  /* threads */
	uint32_t creator;    /* the tid that created the thread, 0 if it predates the window */
	uint32_t dev;	     /* disks and NICs */
	char name[32];	     /* thread name; "disk:254:0", "nic:lo", "timer", "softirq:RCU" */
	char process[16];    /* the process's name (its main thread's), threads only */
	char exe[16];	     /* its program's name, when the trace saw it start; else "" */
	uint32_t ppid;	     /* threads: the parent process of its process; 0: unknown */
	uint64_t born, died; /* when it existed, within the window */
	/* Time in each state within the window; irq_ns is interrupt time that fell in
	 * its running segments (taken out of running_ns: not the thread's own work). */
	uint64_t running_ns, runnable_ns, waiting_ns, irq_ns;
	/* Parts of waiting_ns. no_waker_ns: the waits with no waker (WPERF_NO_ENTITY),
	 * which the cascade cannot follow and the graph does not explain: woken by a
	 * process left out of the analysis (the recorder, the harness), a wakeup the
	 * recorder lost, and the wait still going when the window ended, which is
	 * unfinished_ns (a part of no_waker_ns). timer_wait_ns: the waits a timer
	 * ended (nanosleep, timerfd, a timed wait that timed out). */
	uint64_t no_waker_ns, unfinished_ns, timer_wait_ns;
	struct wperf_thread_acct acct; /* threads */
	/* devices: the bytes and requests they served, and how long they were busy */
	uint64_t bytes, ios, busy_ns;
	/* disks: their measured busy time as the kernel counts a disk's io_ticks
	 * (/sys/block/DEV/stat field 10, iostat's %util): in whole jiffies, each
	 * busy period adding the jiffies from its first request's start to its
	 * last one's end (see timeline_devices.c); 0 when the trace has no jiffies
	 * (format 1.0). In ns: io_ticks * the timeline's jiffy_ns. */
	uint64_t io_ticks;
	/* disks: the bytes their requests completed in the window (what the
	 * kernel's sector counts have), and the part of them whose request no
	 * thread made or issued (all in interrupt context): no thread has a share
	 * of those. A request made before the window has its issuer unseen, not
	 * none. */
	uint64_t done_bytes, unowned_bytes;
	/* Its segments, in time order and contiguous: the first starts at born, each
	 * other where the one before it ends, the last ends at died. An array of its
	 * own, which the timeline grew as the events came, never copied into one for
	 * all. Numbered first_segment to first_segment + nsegments - 1 across the
	 * timeline (entity after entity), for arrays that hold something per segment. */
	struct wperf_segment *segments;
	uint32_t first_segment, nsegments;
};

/* Bytes a thread issued to a device: splits the device's idle time over them. */
struct wperf_io_share {
	uint32_t device, thread; /* entity indexes */
	uint64_t bytes;
};

/* Device capacities. 0 leaves the default: busy time measured from requests
 * (disks), link speed from the trace or 1 Gbit/s (NICs). */
struct wperf_capacity {
	uint64_t disk_bytes_per_s; /* with disk_iops: busy = max(bytes/bw, ios/iops) */
	uint64_t disk_iops;
	uint64_t nic_bits_per_s;
};

struct wperf_timeline_opts {
	/* Processes left out: the recorder and the harness's own (analysis.c
	 * reads them from the trace). Borrowed while the timeline is built. */
	const uint32_t *exclude_tgids;
	size_t nexclude;
	struct wperf_capacity capacity;
};

/*
 * What the checks (checks.h) set against the kernel's own counters, tallied
 * from the events as the timeline is built.
 *
 * Each CPU's switches form a chain: a switch's prev is the thread the CPU's
 * switch before it put there, and a thread that makes an event is the one on
 * its CPU. A break is a switch or an event by another thread: the switch
 * between them was not recorded (lost; or never delivered: on some machines
 * the events of the hypervisor's agent never arrive). The timeline takes the
 * unrecorded switch to have come as early as the evidence allows, when the
 * thread the chain had there was last seen: the thread found there ran since
 * then.
 */
struct wperf_cpu_tally {
	uint64_t idle_ns;    /* running its idle task, the interrupts it served taken out */
	uint64_t switches;   /* recorded on it */
	uint64_t idle_exits; /* of them, the idle task's: the CPU came out of idle */
	uint64_t breaks;     /* switches whose prev was not the last switch's next */
	/* Time in which each break's missing switch lies: from when it is taken to
	 * have come to the event that showed it. What the model may be off by. */
	uint64_t guessed_ns;
};

/* A thread whose switch-out was missing at a break, and how often. */
struct wperf_break_tally {
	uint32_t tid, tgid;
	uint64_t breaks;
};

/* An interface's packets in the trace, all of them (the harness's too). */
struct wperf_nic_tally {
	uint32_t ifindex;
	uint64_t tx_bytes, tx_packets, rx_bytes, rx_packets;
};

/* A thread's schedstat as it exited (an EXIT event with WPERF_EXIT_SCHEDSTAT). */
struct wperf_exit_reading {
	uint32_t entity;
	uint64_t ts, run_ns, wait_ns, slices;
};

struct wperf_timeline {
	uint64_t start, end; /* the recording window */
	uint32_t ncpu;
	struct wperf_entity *entities;
	size_t nentities;
	uint32_t timer;	  /* the entity of the timer interrupts, or WPERF_NO_ENTITY if none woke
			     anybody */
	size_t nsegments; /* of all entities */
	struct wperf_io_share *shares;
	size_t nshares;
	/* The stacks of the waits, each combination once; stacks[WPERF_NO_STACKS]
	 * (there is always one) has none. */
	struct wperf_wait_stacks *stacks;
	size_t nstacks;
	uint64_t lost_events;	  /* from the trace: every report must say so */
	uint64_t recorded_events; /* the records the trace holds, of every kind */
	uint64_t false_wakeups_removed, spins_converted;
	/* Disk requests that the window cuts: completed in it but made before it
	 * (their disk is busy from the window's start), and issued in it but never
	 * completed (busy up to the window's end); and requests whose completion
	 * the trace lacks though their request was used again (lost events: busy
	 * from when they were made to their issue only). */
	uint64_t disk_requests_before, disk_requests_unfinished, disk_requests_lost;
	/* The kernel's jiffy (1 s / CONFIG_HZ), measured over the trace's block
	 * events; 0 when it has none with jiffies. */
	uint64_t jiffy_ns;
	char capacity_note[256]; /* which device capacities were used, for the report */
	/* for the checks: ncpu CPU tallies; the threads left without a switch-out at
	 * breaks, most often first; the interfaces in ifindex order; the exits'
	 * readings in time order */
	struct wperf_cpu_tally *cpus;
	struct wperf_break_tally *break_threads;
	size_t nbreak_threads;
	struct wperf_nic_tally *nics;
	size_t nnics;
	struct wperf_exit_reading *exits;
	size_t nexits;
};

/*
 * Builds the timeline of a trace. Events are read in time order (a trace with
 * late events is sorted first). Annotations are applied: a false wakeup's
 * wakeup/wait pair is removed, an annotated spin becomes a wait on the thread
 * that released the lock.
 */
int wperf_timeline_build(const struct wperf_trace *t, const struct wperf_timeline_opts *opts,
			 struct wperf_timeline **out, struct wperf_error *err);

void wperf_timeline_free(struct wperf_timeline *tl);

/* The stacks of a wait s of tl. */
static inline const struct wperf_wait_stacks *wperf_segment_stacks(const struct wperf_timeline *tl,
								   const struct wperf_segment *s)
{
	return &tl->stacks[s->stacks];
}

/* Where segment k of entity en starts: where segment k - 1 ended, or its birth. */
static inline uint64_t wperf_segment_start(const struct wperf_entity *en, size_t k)
{
	return k ? en->segments[k - 1].end : en->born;
}

/* The segments of entity e. */
static inline const struct wperf_segment *wperf_timeline_segments(const struct wperf_timeline *tl,
								  uint32_t e, size_t *n)
{
	*n = tl->entities[e].nsegments;
	return tl->entities[e].segments;
}

#endif /* WPERF_TIMELINE_H */
