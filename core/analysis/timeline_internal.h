/* SPDX-License-Identifier: MIT */
/*
 * What the files of the timeline builder share (timeline_build.c: the events
 * in time order; timeline.c: what each does; timeline_threads.c: the
 * thread-state machine; timeline_stacks.c: the wait stacks;
 * timeline_devices.c: disks and NICs; timeline_irq.c: interrupts as wakers;
 * timeline_assemble.c: annotations and the final arrays). Not a public API.
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

/* A thread's state machine (tl_thread.state). */
enum tl_state {
	TL_UNKNOWN = 0, /* nothing seen yet that tells */
	TL_RUNNING,
	TL_RUNNABLE,
	TL_WAITING,
	TL_DEAD, /* exited: later events of its tid are ignored */
};

struct tl_thread {
	uint32_t tid, tgid, creator;
	uint32_t ppid;	   /* its process's parent process (wperf_thread.ppid) */
	uint32_t cpu;	   /* TL_RUNNING: the CPU it runs on */
	uint32_t woken_on; /* TL_RUNNABLE after a wakeup: the waker's CPU; else TL_NONE */
	struct wperf_thread_acct acct;
	uint8_t state;		    /* enum tl_state */
	uint8_t spinning;	    /* a SPIN_BEFORE waits for its SPIN_AFTER */
	int32_t kstack, ustack;	    /* TL_WAITING: where it blocked */
	uint64_t born, died, since; /* since: start of the open segment */
	uint64_t irq_ns;
	uint64_t spin_lock, spin_t1;
	char name[32], process[16];
	char exe[16]; /* its process's program (wperf_thread.exe of the main thread) */
	/* The stacks of its last wait and their index in tl_builder.stacks: a
	 * thread blocks and is woken in the same places again and again. */
	struct wperf_wait_stacks last_stacks;
	uint32_t last_stacks_id;
	/* Its segments (provisional wakers): the array its entity keeps. A large one
	 * grows without being copied (realloc moves mapped memory by remapping). */
	struct wperf_buf segs; /* struct wperf_segment */
};

/* Per CPU: the interrupt being timed, and the devices its latest I/O events
 * named (to tell which device an interrupt's wakeup came from). */
struct tl_cpu {
	uint32_t irq_depth;  /* nested hard and soft interrupts */
	uint32_t irq_thread; /* the thread they interrupted, or TL_NONE */
	uint64_t irq_start;
	uint32_t blk_dev; /* device of the latest BLOCK_COMPLETE, or TL_NONE */
	int32_t blk_irq;
	uint8_t blk_ctx;
	uint32_t net_rx, net_tx; /* devices of the latest NET_RECV and NET_XMIT */
	uint64_t rx_bytes;	 /* received on net_rx since a receiver was woken */
	/* Loopback is no device: the latest packet received here came over it
	 * (rx_loopback), sent by lo_sender (a thread, or TL_NONE). */
	uint8_t rx_loopback;
	uint32_t lo_sender;
	/* The switch chain (wperf_cpu_tally): the thread the last switch put on the
	 * CPU (when have_cur), and when; its idle time so far, and the interrupt
	 * being timed came while it was idle (irq_idle). */
	uint8_t have_cur, irq_idle;
	uint32_t cur_tid, cur_tgid;
	uint64_t cur_since, cur_seen; /* put there, and last seen there (an event it made) */
	uint64_t idle_irq_ns;	      /* interrupts served while idle: out of tally.idle_ns */
	struct wperf_cpu_tally tally;
};

/* Annotations, applied once every segment is known. */
struct tl_spin {
	uint32_t thread;
	uint64_t t1, t2, lock;
};

struct tl_release {
	uint64_t lock, ts, seq;
	uint32_t thread;
	uint32_t prev_other; /* latest earlier release of lock by another thread */
};

struct tl_mark {
	uint32_t thread;
	uint64_t ts;
};

/* Where a block request is (timeline_devices.c). */
enum tl_req_state {
	TL_REQ_MADE = 1, /* made (BLOCK_START), not issued */
	TL_REQ_ISSUED,
	TL_REQ_ENDED, /* its interval is in its disk's reqs */
};

/* When something happened: CLOCK_MONOTONIC ns, and the kernel's jiffies then
 * (0: not in the trace). */
struct tl_when {
	uint64_t ns, jiffies;
};

/* A block request's time in flight. */
struct tl_req_interval {
	struct tl_when start, end;
};

/*
 * A block request, keyed by (device, the request's rq), kept when ended: a
 * completion of a request never seen is then known to be of one made before
 * the window, and the end of a request that asked for a cache flush (BLOCK_DONE,
 * after its completion) finds its interval. Traces of format 1.0 have no rq:
 * their requests are keyed by sector, and forgotten when done (a sector is
 * written again and again).
 */
struct tl_request {
	uint64_t key;		/* rq, or the sector when rq is 0 */
	struct tl_when start;	/* made; issued, when it was not seen made */
	struct tl_when issued;	/* TL_REQ_ISSUED */
	size_t iv;		/* TL_REQ_ENDED: its interval, an index in its disk's reqs */
	uint32_t dev;		/* device index + 1; 0: empty slot */
	uint32_t left;		/* TL_REQ_ISSUED: bytes not yet completed */
	uint32_t owner;		/* the thread that made it (BLOCK_START); TL_NONE: unseen */
	uint8_t state;		/* enum tl_req_state */
	uint8_t made_by_thread; /* made in a thread's context (an excluded one's too) */
	uint8_t unowned;	/* issued, and no thread made or issued it */
};

struct tl_device {
	uint8_t kind; /* WPERF_ENTITY_DISK or WPERF_ENTITY_NIC */
	uint32_t key; /* dev_t or ifindex */
	uint64_t bytes, ios;
	uint64_t busy_ns, measured_ns;	    /* busy_ns as reported; measured: union of intervals */
	uint32_t inflight;		    /* NICs: an interval is open */
	uint64_t busy_start, busy_end;	    /* NICs: the busy interval being built */
	struct wperf_buf reqs;		    /* disks: struct tl_req_interval of each request */
	uint64_t io_ticks;		    /* disks: busy jiffies, as the kernel counts them */
	uint64_t done_bytes, unowned_bytes; /* disks: see struct wperf_entity */
	struct wperf_buf busy;		    /* uint64_t pairs [start, end): sorted, disjoint */
	struct wperf_idmap share_of;	    /* thread index -> index in shares */
	struct wperf_buf shares;	    /* struct wperf_io_share, device field unused */
	uint64_t speed_bps;		    /* NICs */
	const char *speed_from;		    /* NICs: where speed_bps came from */
	char name[32];
	uint32_t entity; /* final index */
};

/* An interrupt that woke a thread and is not (yet) known to be a device. */
struct tl_source {
	uint8_t ctx; /* enum wperf_context, or 3 for the fixed ones below */
	int32_t irq;
	uint8_t used;
	uint32_t entity; /* final index */
};

/* The fixed sources, always present at these indexes. */
enum { TL_SRC_TIMER = 0, TL_SRC_IDLE = 1, TL_SRC_UNKNOWN = 2, TL_NFIXED = 3 };

/* A tid and its current thread (TL_NONE never), in tl_builder.recent. */
struct tl_recent {
	uint32_t tid, thread;
};

#define TL_RECENT 256 /* a power of two */

/* Majority vote of the devices an irq number completed I/O for. */
struct tl_vote {
	uint32_t device, count;
};

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

/* The CPU state of cpu, or NULL for an absurd cpu number (at or above
 * TL_MAX_CPUS: its per-CPU work is skipped) or when out of memory (b->oom). */
#define TL_MAX_CPUS 65536
static inline struct tl_cpu *tl_cpu(struct tl_builder *b, uint32_t cpu)
{
	size_t n = TL_COUNT(b->cpus, struct tl_cpu);

	if (cpu >= TL_MAX_CPUS)
		return NULL;
	for (; n <= cpu; n++) {
		struct tl_cpu *c = wperf_buf_push(&b->cpus, sizeof(*c));

		if (!c) {
			b->oom = 1;
			return NULL;
		}
		c->irq_thread = c->blk_dev = c->net_rx = c->net_tx = c->lo_sender = TL_NONE;
	}
	return &TL_AT(b->cpus, struct tl_cpu, cpu);
}
/* timeline.c: what event ev does to the threads, CPUs and devices it concerns. */
void tl_step(struct tl_builder *b, const struct wperf_event *ev);

/* timeline_stacks.c: the index of k in b->stacks, added when new;
 * WPERF_NO_STACKS (and b->oom set) when out of memory, or when a new one would
 * be the WPERF_MAX_STACKS-th (more than any trace could have, and treated
 * alike). */
uint32_t tl_stacks_id(struct tl_builder *b, const struct wperf_wait_stacks *k);

/* ---- timeline_stacks.c ---- */
/* The table with its first entry, WPERF_NO_STACKS; 0 or -ENOMEM. */
int tl_stacks_init(struct tl_builder *b);
/* The index of the stacks of thread th's wait, woken at wks and wus (b->oom
 * set when out of memory). */
uint32_t tl_wait_stacks(struct tl_builder *b, struct tl_thread *th, int32_t wks, int32_t wus);

/* ---- timeline_threads.c ---- */
static inline struct tl_thread *tl_thr(struct tl_builder *b, uint32_t i)
{
	return &TL_AT(b->threads, struct tl_thread, i);
}
/* t clipped to the window. */
static inline uint64_t tl_clamp(const struct tl_builder *b, uint64_t t)
{
	return t < b->start ? b->start : t > b->end ? b->end : t;
}
/* Time never goes backwards for one thread, even in a trace that was not sorted. */
static inline uint64_t tl_at(const struct tl_thread *th, uint64_t t)
{
	return t < th->since ? th->since : t;
}
/* Is tgid one of the excluded processes (opts->exclude_tgids)? */
int tl_excluded(const struct tl_builder *b, uint32_t tgid);
/* A new thread of tid, its state unknown; TL_NONE (b->oom set) when out of memory. */
uint32_t tl_new_thread(struct tl_builder *b, uint32_t tid, uint32_t tgid);
/* The slot holding the current thread of tid (creating the slot), or NULL. */
uint32_t *tl_tid_slot(struct tl_builder *b, uint32_t tid);
/* Makes thread i (or TL_NONE) the current thread of tid, whose slot it is. */
void tl_set_thread(struct tl_builder *b, uint32_t *slot, uint32_t tid, uint32_t i);
/* The thread now holding tid, made when new; TL_NONE for the idle task (tid 0),
 * an excluded process, or out of memory. */
uint32_t tl_thread_of(struct tl_builder *b, uint32_t tid, uint32_t tgid);
/* Appends a segment of thread i, clipped to the window; empty ones vanish. */
void tl_emit(struct tl_builder *b, uint32_t i, uint8_t state, uint64_t start, uint64_t end,
	     uint32_t waker, int32_t wks, int32_t wus);
/* Ends thread i's open segment at t (a wait with no known waker). */
void tl_close_open(struct tl_builder *b, uint32_t i, uint64_t t);
/* Thread i (or TL_NONE) is on the CPU of ev at its time. */
void tl_seen_running(struct tl_builder *b, uint32_t i, const struct wperf_event *ev);
/* Thread i, running on a CPU as far as the model knows, is seen on another. */
void tl_moved_unseen(struct tl_builder *b, uint32_t i);
/* tid (of tgid) is current on ev's CPU at its time: it made the event (a
 * break in the CPU's switch chain is mended). */
void tl_on_cpu_now(struct tl_builder *b, uint32_t tid, uint32_t tgid, const struct wperf_event *ev);
/* The thread the event's hdr.tid names, running now (most kinds run in it). */
uint32_t tl_current(struct tl_builder *b, const struct wperf_event *ev);
/* Takes the name the thread has now, for a thread that leaves. */
void tl_take_name(struct tl_builder *b, struct tl_thread *th);

/* ---- timeline_devices.c ---- */
void tl_devices_release(struct tl_builder *b);
/* The device index of a disk (dev) or NIC (ifindex), made when new; TL_NONE
 * when out of memory. */
uint32_t tl_device_of(struct tl_builder *b, uint8_t kind, uint32_t key);
/* Appends [s, e), clipped to the window, to the device's busy intervals, merged
 * with the last when they touch (intervals come in order of their starts). */
void tl_add_busy(struct tl_builder *b, struct tl_device *d, uint64_t s, uint64_t e);
/* thread issued bytes to the device (nothing for TL_NONE or 0 bytes). */
void tl_add_share(struct tl_builder *b, struct tl_device *d, uint32_t thread, uint64_t bytes);
/* NET_* events; issuer: the thread that sent, or TL_NONE. */
int tl_net_event(struct tl_builder *b, const struct wperf_event *ev, uint32_t issuer);
/* A wakeup from an interrupt tied to waker (provisional): when that is a NIC
 * receiving, thread gets the share of the bytes received since the last one. */
void tl_net_receiver(struct tl_builder *b, const struct wperf_event *ev, uint32_t waker,
		     uint32_t thread);
/* Closes the busy intervals and applies the capacity model. */
void tl_devices_finish(struct tl_builder *b);
/* Gives the devices their entity indexes from first on, appending their struct
 * wperf_entity to entities; returns the next free index, or -ENOMEM. */
int64_t tl_devices_entities(struct tl_builder *b, uint32_t first, struct wperf_buf *entities);
/* Appends the device's busy (running) and idle (waiting) segments. */
int tl_device_segments(const struct tl_builder *b, uint32_t device, struct wperf_buf *out);
/* Appends the I/O shares, with final entity indexes. */
int tl_device_shares(const struct tl_builder *b, struct wperf_buf *out);
void tl_capacity_note(const struct tl_builder *b, char *note, size_t size);

/* ---- timeline_disks.c ---- */
/* BLOCK_* events; issuer: the thread that issued, or TL_NONE. */
int tl_block_event(struct tl_builder *b, const struct wperf_event *ev, uint32_t issuer);
/* At the window's end, before tl_devices_finish uses them: the disks' busy
 * intervals and io_ticks. */
void tl_disks_finish(struct tl_builder *b);

/* ---- timeline_irq.c ---- */
int tl_sources_init(struct tl_builder *b);
void tl_sources_release(struct tl_builder *b);
/* A device's I/O completed in hard irq number irq. */
void tl_vote(struct tl_builder *b, int32_t irq, uint32_t device);
/* The provisional waker of a wakeup from an interrupt, or from the idle task
 * (marks its source used). */
uint32_t tl_interrupt_waker(struct tl_builder *b, const struct wperf_event *ev);
/* After tl_devices_entities: the used sources that are no device become
 * interrupt entities, appended from first on; returns the next free index. */
int64_t tl_sources_entities(struct tl_builder *b, uint32_t first, struct wperf_buf *entities);
/* After tl_sources_entities: the entity of the timer interrupts, or
 * WPERF_NO_ENTITY when no timer woke anybody. */
uint32_t tl_timer_entity(const struct tl_builder *b);
/* The final entity of a provisional waker. */
uint32_t tl_final_waker(const struct tl_builder *b, uint32_t pv);

/* ---- timeline_tally.c ---- */
/* Does a switch from prev_tid on c break the CPU's chain? */
static inline int tl_chain_broken(const struct tl_cpu *c, uint32_t prev_tid)
{
	return c->have_cur && c->cur_tid != prev_tid;
}
/* A switch on c (its chain mended first): counts it, adds the idle time it
 * ends, and makes its next the CPU's current thread. */
void tl_tally_switch(struct tl_builder *b, struct tl_cpu *c, const struct wperf_event *ev);
/* A break in c's chain mended: tid (of tgid) came on the CPU at t, unrecorded,
 * after the thread the chain had there (idle time, if it was the idle task);
 * an event at shown showed it. */
void tl_tally_break(struct tl_builder *b, struct tl_cpu *c, uint32_t tid, uint32_t tgid, uint64_t t,
		    uint64_t shown);
/* An interrupt served from s to e on c, which entered while c was idle. */
void tl_tally_idle_irq(struct tl_builder *b, struct tl_cpu *c, uint64_t s, uint64_t e);
/* A NET_* event, whoever sent it. */
void tl_tally_net(struct tl_builder *b, const struct wperf_event *ev);
/* The reading of thread's EXIT event, if it has one. */
void tl_tally_exit(struct tl_builder *b, uint32_t thread, const struct wperf_event *ev);
/* At the window's end: the idle time of the CPUs idle then. */
void tl_tally_finish(struct tl_builder *b);
/* Hands the tallies to tl; 0 or -ENOMEM. */
int tl_tally_assemble(struct tl_builder *b, struct wperf_timeline *tl);
void tl_tally_release(struct tl_builder *b);

/* ---- timeline_assemble.c ---- */
/* Builds tl's entities, segments and shares from the builder's state. */
int tl_assemble(struct tl_builder *b, struct wperf_timeline *tl);

#endif /* WPERF_TIMELINE_INTERNAL_H */
