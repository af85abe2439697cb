/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own counters, read for a trace's COUNTERS section (trace.h):
 * /sys/block/NAME/stat of every whole disk, /proc/net/dev, /proc/stat's CPU
 * lines, /proc/interrupts, /proc/softirqs, and the schedstat of threads; with
 * the kernel's tick and where it counts interrupt time, from its configuration.
 */
#ifndef WPERF_PROC_COUNTERS_H
#define WPERF_PROC_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/counters.h"
#include "core/util/error.h"

struct proc_counters_opts {
	unsigned when;	       /* enum wperf_counters_when */
	uint32_t flags;	       /* WPERF_COUNTERS_*: with WHOLE_MACHINE, every thread is read */
	const uint32_t *tgids; /* otherwise the threads of these processes */
	size_t ntgids;
};

/*
 * Reads the counters into out (an empty store; finished on return), and into
 * *edge the window's edge they make: /proc/net/dev and /proc/stat are read
 * first at the window's start and last at its end, so that the interfaces'
 * bytes and the CPUs' times span the window closely, and *edge is the clock
 * just before the first read (out->c.ts too) or just after the last. A
 * process or thread that exits meanwhile is skipped. 0, or a negative errno
 * with err set (the files every Linux has, /proc/stat and /proc/net/dev,
 * could not be read; or out of memory).
 */
int proc_counters_read(const struct proc_counters_opts *o, struct wperf_counters_store *out,
		       uint64_t *edge, struct wperf_error *err);

#endif /* WPERF_PROC_COUNTERS_H */
