/* SPDX-License-Identifier: MIT */
/*
 * A reading of the kernel's counters (struct wperf_counters, trace.h) being
 * put together: by the trace reader from a COUNTERS section, by the recorder
 * from /proc and /sys. Rows are added one by one, copied; once finished, the
 * struct's arrays point into the store.
 *
 * Ownership: a struct wperf_counters_store owns every array and string of its
 * struct wperf_counters; wperf_counters_store_release frees them (and leaves an
 * empty store). A zeroed store is empty.
 */
#ifndef WPERF_COUNTERS_H
#define WPERF_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/trace/trace.h"

struct wperf_counters_store {
	/* when, flags, hz, user_hz, irq_time, ts: the caller's; the arrays: valid
	 * after wperf_counters_store_finish */
	struct wperf_counters c;
	struct wperf_buf disks, nics, cpus, irqs, softirqs, threads;
	struct wperf_buf values;  /* uint64_t: every row's fields */
	struct wperf_buf strings; /* NUL-terminated names */
};

/* Each adds a row (copying name, desc and the n values); 0 or -ENOMEM. */
int wperf_counters_store_disk(struct wperf_counters_store *s, uint32_t major, uint32_t minor,
			      const char *name, const uint64_t *fields, uint32_t n);
int wperf_counters_store_nic(struct wperf_counters_store *s, uint32_t ifindex, uint32_t type,
			     const char *name, const uint64_t *fields, uint32_t n);
int wperf_counters_store_cpu(struct wperf_counters_store *s, uint32_t cpu, const uint64_t *fields,
			     uint32_t n);
/* A row of /proc/softirqs when soft, of /proc/interrupts otherwise. */
int wperf_counters_store_irq(struct wperf_counters_store *s, int soft, const char *name,
			     const char *desc, const uint64_t *counts, uint32_t ncpu);
int wperf_counters_store_thread(struct wperf_counters_store *s,
				const struct wperf_thread_counters *th);

/* Points s->c's arrays into the store; call it after the last row. */
void wperf_counters_store_finish(struct wperf_counters_store *s);

void wperf_counters_store_release(struct wperf_counters_store *s);

#endif /* WPERF_COUNTERS_H */
