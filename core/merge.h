/* SPDX-License-Identifier: MIT */
/*
 * From entities (threads, pseudo-threads) to the vertices of the graph that is
 * analyzed and compared across runs (wPerf section 3.3 and 4.2):
 *
 * - every vertex has a stable identity: "PROCESS/THREAD" with instance numbers
 *   folded ("java/NIOWorkerThread-#"), or the pseudo-thread's
 *   name ("disk:254:0"); never a tid, which changes from run to run;
 * - threads with the same identity are merged into one vertex (optionally only
 *   when their blocking call stacks are alike); waits among them become a
 *   self-loop;
 * - short-lived threads (created and ended inside the window) are merged into
 *   one virtual thread per creator, which between its tasks waits for the
 *   creator.
 *
 * Ownership: a struct wperf_merged owns its arrays, graph and call sites;
 * wperf_merged_release frees them.
 */
#ifndef WPERF_MERGE_H
#define WPERF_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "callsites.h"
#include "error.h"
#include "graph.h"
#include "timeline.h"

#define WPERF_IDENTITY_LEN 80

struct wperf_vertex {
	char identity[WPERF_IDENTITY_LEN];
	uint8_t kind;	     /* enum wperf_entity_kind of its members */
	uint8_t short_lived; /* the virtual thread of a creator's short-lived threads */
	uint32_t nmembers;
	uint32_t first_tid; /* of its first member, for people reading the report */
	uint64_t running_ns, runnable_ns, waiting_ns; /* summed over its members */
	/* parts of waiting_ns, summed likewise (see wperf_entity) */
	uint64_t no_waker_ns, unfinished_ns, timer_wait_ns;
	double cpu; /* CPUs used over the window: running_ns / window */
};

struct wperf_merge_opts {
	/* < 0: keep every thread apart; 0: merge threads by identity; (0, 1]: and only
	 * when the cosine similarity of their blocking stacks reaches this. */
	double similar;
	/* A thread created and ended inside the window is short-lived when it lived
	 * less than this fraction of the window; 0: the default, 0.5; < 0: never. */
	double short_lived;
};

struct wperf_merged {
	struct wperf_vertex *vertices;
	uint32_t nvertices;
	uint32_t *vertex_of;	      /* per timeline entity */
	struct wperf_graph graph;     /* over vertices, finished */
	struct wperf_callsites sites; /* over vertices, finished */
};

/*
 * "NIOWorkerThread-12" -> "NIOWorkerThread-#", "kworker/0:1H" -> "kworker/#:#H":
 * a run of digits at the start or after a separator becomes #; digits inside a
 * word stay ("fig1", "jbd2").
 */
void wperf_fold_name(const char *name, char *out, size_t size);

/*
 * Merges tl's entities into vertices and maps the entity graph and call sites
 * (from wperf_cascade) onto them.
 */
int wperf_merge(const struct wperf_timeline *tl, const struct wperf_graph *entity_graph,
		const struct wperf_callsites *entity_sites, const struct wperf_merge_opts *opts,
		struct wperf_merged *out, struct wperf_error *err);

void wperf_merged_release(struct wperf_merged *m);

#endif /* WPERF_MERGE_H */
