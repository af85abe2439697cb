/* SPDX-License-Identifier: MIT */
/*
 * From entities (threads, pseudo-threads) to the vertices of the graph that is
 * analyzed and compared across runs (wPerf section 3.3 and 4.2):
 *
 * - every vertex has a stable identity: "PROCESS/THREAD" with instance numbers
 *   folded ("java/NIOWorkerThread-#"), or the pseudo-thread's
 *   name ("disk:254:0"); never a tid, which changes from run to run;
 * - threads with the same identity are merged into one vertex when their user
 *   stacks are alike (merge_split.c); when they are not, each part of alike
 *   ones is a vertex named by a frame of its own ("pools@a_worker"); waits
 *   among the threads of a vertex become a self-loop;
 * - short-lived threads (created and ended inside the window) are one virtual
 *   thread per creator (short_lived.h), "CREATOR+tasks", which between its
 *   tasks waits for the creator.
 *
 * Ownership: a struct wperf_merged owns its arrays, graph and call sites;
 * wperf_merged_release frees them.
 */
#ifndef WPERF_MERGE_H
#define WPERF_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/callsites.h"
#include "core/util/error.h"
#include "core/analysis/graph.h"
#include "core/analysis/short_lived.h"
#include "core/trace/trace.h"

#define WPERF_IDENTITY_LEN    80
#define WPERF_DEFAULT_SIMILAR 0.5

struct wperf_vertex {
	char identity[WPERF_IDENTITY_LEN];
	uint8_t kind;	     /* enum wperf_entity_kind of its members */
	uint8_t short_lived; /* the virtual thread of a creator's short-lived threads */
	uint32_t nmembers;   /* threads */
	uint32_t first_tid;  /* of its first member, for people reading the report */
	/* Summed over its threads; short-lived ones count as their virtual thread,
	 * so that overlapping tasks are not counted twice. */
	uint64_t running_ns, runnable_ns, waiting_ns;
	/* parts of waiting_ns, summed likewise (see wperf_entity) */
	uint64_t no_waker_ns, unfinished_ns, timer_wait_ns;
	double cpu; /* CPUs used over the window: running_ns / window */
};

struct wperf_merge_opts {
	/* Threads of one identity are merged when the cosine similarity of their user
	 * stacks (merge_split.c) reaches this, in (0, 1]; 0: WPERF_DEFAULT_SIMILAR;
	 * < 0: keep every thread apart (each named "IDENTITY~TID"). */
	double similar;
	/* A thread created and ended inside the window is short-lived when it lived
	 * less than this fraction of the window; 0: WPERF_DEFAULT_SHORT_LIVED; < 0:
	 * never (wperf_short_lived_build). */
	double short_lived;
};

struct wperf_merged {
	struct wperf_vertex *vertices;
	uint32_t nvertices;
	uint32_t *vertex_of;	      /* per entity of the view (short_lived.h) */
	struct wperf_graph graph;     /* over vertices, finished */
	struct wperf_callsites sites; /* over vertices, finished */
};

/*
 * A thread's or process's name as it goes into an identity, into out:
 * "NIOWorkerThread-12" -> "NIOWorkerThread-#": a run of digits at the start or
 * after a separator becomes #; digits inside a word stay ("fig1", "jbd2").
 * A kernel worker of a pool is named after the pool, whatever the CPU count:
 * "kworker/u8:2" and "kworker/u8:2-events_unbound" -> "kworker/u#:#",
 * "kworker/0:1H-kblockd" -> "kworker/#:#H"; a workqueue's rescuer keeps its
 * workqueue: "kworker/R-kblockd".
 */
void wperf_fold_name(const char *name, char *out, size_t size);

/*
 * Merges the entities of sl's view (a timeline and its virtual threads) into
 * vertices and maps the entity graph and call sites (from wperf_cascade over
 * the view) onto them. t, the trace of the timeline, has the stacks and
 * mappings that tell threads apart.
 */
int wperf_merge(const struct wperf_trace *t, const struct wperf_short_lived *sl,
		const struct wperf_graph *entity_graph, const struct wperf_callsites *entity_sites,
		const struct wperf_merge_opts *opts, struct wperf_merged *out,
		struct wperf_error *err);

void wperf_merged_release(struct wperf_merged *m);

#endif /* WPERF_MERGE_H */
