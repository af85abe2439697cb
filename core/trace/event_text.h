/* SPDX-License-Identifier: MIT */
/*
 * An event's details as text, as `wperf-bench dump` prints them: what its
 * flags mean for its kind, then the kind's fields as name=value, each shown
 * as the table of event kinds says (core/trace/event_kinds.h): a tid with its
 * thread's name, a device as MAJOR:MINOR, a softirq by name, a block op by
 * its name.
 */
#ifndef WPERF_EVENT_TEXT_H
#define WPERF_EVENT_TEXT_H

#include <stddef.h>

#include "core/trace/thread_table.h"
#include "core/trace/trace.h"

/* The details of ev into buf (size bytes, NUL-terminated; "" for an unknown
 * kind), each part after a space; tt names the threads. */
void wperf_event_details(char *buf, size_t size, const struct wperf_event *ev,
			 const struct wperf_thread_table *tt);

#endif /* WPERF_EVENT_TEXT_H */
