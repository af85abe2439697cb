/* SPDX-License-Identifier: MIT */
/*
 * The timeline builder's threads (timeline_threads.c: each thread's state
 * machine and segments), the stacks of their waits (timeline_stacks.c) and
 * the annotations that mark them (applied by timeline_assemble.c).
 */
#ifndef WPERF_TIMELINE_THREADS_H
#define WPERF_TIMELINE_THREADS_H

#include "core/analysis/timeline_internal.h"

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

/* The index of k in b->stacks, added when new;
 * WPERF_NO_STACKS (and b->oom set) when out of memory, or when a new one would
 * be the WPERF_MAX_STACKS-th (more than any trace could have, and treated
 * alike). */
uint32_t tl_stacks_id(struct tl_builder *b, const struct wperf_wait_stacks *k);

/* The table with its first entry, WPERF_NO_STACKS; 0 or -ENOMEM. */
int tl_stacks_init(struct tl_builder *b);
/* The index of the stacks of thread th's wait, woken at wks and wus (b->oom
 * set when out of memory). */
uint32_t tl_wait_stacks(struct tl_builder *b, struct tl_thread *th, int32_t wks, int32_t wus);

static inline struct tl_thread *tl_thr(struct tl_builder *b, uint32_t i)
{
	return &TL_AT(b->threads, struct tl_thread, i);
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

#endif /* WPERF_TIMELINE_THREADS_H */
