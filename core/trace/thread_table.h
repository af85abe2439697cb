/* SPDX-License-Identifier: MIT */
/*
 * The threads of a trace as the events go by: the THREADS snapshot, then every
 * fork, exec and rename applied in time order, so that a thread has the name
 * it had at that moment of the trace.
 *
 * Ownership: the table owns its threads array and map; wperf_thread_table_release
 * frees them. A zeroed struct is a valid empty table.
 */
#ifndef WPERF_THREAD_TABLE_H
#define WPERF_THREAD_TABLE_H

#include "core/util/buf.h"
#include "core/util/idmap.h"
#include "core/trace/trace.h"

struct wperf_thread_table {
	struct wperf_idmap index; /* tid -> position in threads */
	struct wperf_buf threads; /* struct wperf_thread[] */
};

/* Starts from the trace's THREADS table. */
int wperf_thread_table_init(struct wperf_thread_table *tt, const struct wperf_trace *t);

/* Applies a FORK, EXEC or RENAME event (others are ignored); 0 or -ENOMEM. */
int wperf_thread_table_apply(struct wperf_thread_table *tt, const struct wperf_event *ev);

/* The thread tid, or NULL when the trace never named it. */
const struct wperf_thread *wperf_thread_table_find(const struct wperf_thread_table *tt,
						   uint32_t tid);

/* The thread's name, or "?" when unknown. */
const char *wperf_thread_table_name(const struct wperf_thread_table *tt, uint32_t tid);

void wperf_thread_table_release(struct wperf_thread_table *tt);

#endif /* WPERF_THREAD_TABLE_H */
