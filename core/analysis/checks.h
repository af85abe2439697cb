/* SPDX-License-Identifier: MIT */
/*
 * How well a trace's model agrees with the kernel's own counters, read by the
 * recorder at the window's start and end (trace.h, struct wperf_counters):
 *
 *   disk busy     the disk's busy time in the model, counted the kernel's way
 *                 (whole jiffies, each busy period from the jiffy its first
 *                 request started in to the one its last ended in), vs its
 *                 io_ticks (/sys/block/NAME/stat, iostat's %util); tolerance
 *                 3% of the window
 *   disk owned    the bytes the disk's requests completed in the window whose
 *                 owner the model knows (the thread that made the request, or
 *                 issued it; one made before the window, its unseen maker) vs
 *                 the sectors the kernel counted read, written and discarded:
 *                 a request the trace missed, or one no thread made or issued,
 *                 gives no thread its share of the disk. Tolerance 1% of the
 *                 kernel's bytes and 1 MiB: the counters are read a moment
 *                 before the window opens and after it closes
 *   nic tx, rx    the bytes of the trace's packets vs /proc/net/dev, counted
 *                 the interface's way: a packet is traced with its link header
 *                 as it leaves and without as it arrives; an Ethernet driver
 *                 counts whole frames, loopback counts without the header (14
 *                 bytes). Tolerance 1% of the kernel's bytes
 *   thread run    a thread's time on a CPU between the two readings of its
 *                 schedstat vs their difference; interrupts that came while it
 *                 ran count as its time when the kernel counts them so
 *                 (CONFIG_IRQ_TIME_ACCOUNTING off), apart otherwise
 *   thread wait   its time runnable, waiting for a CPU, vs its run-queue wait;
 *                 the kernel adds a wait when it ends, and so does the check;
 *                 a wakeup handed to an idle CPU is no wait to the kernel
 *                 (wperf_thread_acct, timeline.h)
 *   thread slices the times it got a CPU vs the kernel's count of them
 *   cpu idle      a CPU's idle time vs /proc/stat's idle + iowait; tolerance 1%
 *                 of the window and the counter's unit (a USER_HZ tick). The
 *                 model counts idle from the switch to the idle task; the
 *                 kernel's clock starts inside the idle loop's way in (the
 *                 tick stopped: an hrtimer reprogrammed, a VM exit), which no
 *                 tracepoint marks. The line says how many times the CPU came
 *                 out of idle; at high wakeup rates on a VM the difference,
 *                 about 6-15 us each (measured), exceeds the tolerance
 *                 (docs/report-schema.md)
 *   cpu chain     each recorded switch on a CPU starts from the thread the one
 *                 before put there; a break is a switch that was not recorded
 *
 * A thread's tolerance is 1% of the kernel's value: relative, because a share
 * of the window would let a thread that ran for a millisecond be off by all of
 * it. Plus the kernel's resolution where it applies: a thread on a CPU when its
 * schedstat is read is counted as of its last tick or switch, up to a tick
 * (1/CONFIG_HZ) behind; a wait starts for the trace at the wakeup's first step,
 * for the kernel at the enqueue after it (WAKE_PATH_NS, checks.c). But at
 * least 0.1% of the window: below that a thread's time moves no edge of the
 * graph, and both sides' clocks are read microseconds apart at every switch.
 * And plus the time the model cannot place as the kernel does
 * (wperf_thread_acct): where the thread's unrecorded switches lie (the breaks
 * of the CPUs' chains, whose lines say how much was guessed), and the wakeups
 * whose enqueue or clock read the trace does not see.
 *
 * The CPU checks need every switch of every CPU: a recording made with --pid
 * has only its processes' and they are not made. Threads of the processes the
 * analysis leaves out (the recorder, the harness) have no model and are not
 * checked either; nor are the ones whose two readings are not both there.
 *
 * Ownership: a struct wperf_checks owns its lines; wperf_checks_release frees
 * them and leaves an empty struct. A zeroed struct is empty.
 */
#ifndef WPERF_CHECKS_H
#define WPERF_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "core/analysis/timeline.h"
#include "core/trace/trace.h"

enum wperf_check_kind {
	WPERF_CHECK_DISK_BUSY = 0,
	WPERF_CHECK_NIC_TX,
	WPERF_CHECK_NIC_RX,
	WPERF_CHECK_THREAD_RUN,
	WPERF_CHECK_THREAD_WAIT,
	WPERF_CHECK_THREAD_SLICES,
	WPERF_CHECK_CPU_IDLE,
	WPERF_CHECK_CPU_CHAIN,
	WPERF_CHECK_DISK_OWNED,
	WPERF_CHECK_KINDS
};

enum wperf_check_unit {
	WPERF_CHECK_NS = 0,
	WPERF_CHECK_BYTES = 1,
	WPERF_CHECK_COUNT = 2,
};

enum wperf_check_status {
	WPERF_CHECK_OK = 0,
	WPERF_CHECK_WARN = 1, /* off by more than the tolerance */
};

/* One line: a quantity of the model and the kernel's count of the same. */
struct wperf_checks_line {
	uint8_t kind;	    /* enum wperf_check_kind */
	uint8_t status;	    /* enum wperf_check_status */
	char subject[64];   /* "disk:254:0 vda", "nic:lo", "cpu0", "app/worker-1 4711" */
	uint32_t tid, tgid; /* thread lines */
	uint64_t exits;	    /* cpu idle lines: the times the CPU came out of idle */
	char process[16];   /* thread lines: the process's name */
	uint64_t model, kernel, tolerance; /* in the kind's unit */
	int64_t diff;			   /* model - kernel */
	char note[96];			   /* chains: the thread most often left at a break */
};

struct wperf_checks {
	int have_counters;	    /* 0: the trace has no counters (recorded before format 1.1) */
	uint32_t irq_time;	    /* enum wperf_irq_time: how the thread lines count interrupts */
	uint64_t irq_in_threads_ns; /* interrupt time the thread lines count as the threads' */
	int cpus_checked;	    /* the recording has every CPU's switches */
	size_t threads_unread;	    /* threads with a model but not both readings */
	uint64_t steal_ns;	    /* taken by the hypervisor (/proc/stat), 0: none or unknown */
	struct wperf_checks_line *lines; /* disks, NICs, threads, CPUs, chains */
	size_t n;
	size_t warn; /* lines with WPERF_CHECK_WARN */
};

struct wperf_checks_opts {
	const uint32_t *exclude_tgids; /* processes with no model (analysis.c's) */
	size_t nexclude;
};

/*
 * Checks timeline tl against the counters read at the window's start and end
 * (NULL, NULL: the trace has none; out->have_counters is then 0). opts may be
 * NULL. 0, or -ENOMEM with err set; out is empty on error.
 */
int wperf_checks_compute(const struct wperf_timeline *tl, const struct wperf_counters *start,
			 const struct wperf_counters *end, const struct wperf_checks_opts *opts,
			 struct wperf_checks *out, struct wperf_error *err);

void wperf_checks_release(struct wperf_checks *c);

/* "disk busy", "thread run", ... */
const char *wperf_check_kind_name(unsigned kind);

/* "ns", "bytes", "count": the unit of a kind's numbers. */
const char *wperf_check_unit_name(unsigned kind);

#endif /* WPERF_CHECKS_H */
