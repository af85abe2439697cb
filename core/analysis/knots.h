/* SPDX-License-Identifier: MIT */
/*
 * Knots and sinks of a wait-for graph, and their refinement (wPerf sections 3.2
 * and 4.2). A knot is a strongly connected component with no edge leaving it:
 * several vertices, or one with a self-loop. A sink is a vertex with no edge
 * leaving it. Each knot must contain a bottleneck (Theorem 3.2).
 *
 * A large knot is refined by removing its lowest-weight edges until it falls
 * apart, then finding the knots again inside it; refinement stops at a single
 * vertex, a simple cycle, or when the lowest weight left reaches the threshold.
 * A knot with no I/O pseudo-thread whose vertices use less than one CPU in all
 * is a background knot: reported, set aside, and the analysis goes on without it.
 * The same holds for a sink that is mostly idle (a thread sleeping on a timer, a
 * worker waiting for work): waiting for nobody and hardly running, it cannot be
 * what holds the others back.
 *
 * Ownership: a struct wperf_knot_set owns its knots and their vertex arrays;
 * wperf_knot_set_release frees them.
 */
#ifndef WPERF_KNOTS_H
#define WPERF_KNOTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"
#include "core/analysis/graph.h"

enum wperf_knot_kind {
	WPERF_KNOT = 0,
	WPERF_SINK = 1,
	WPERF_BACKGROUND_KNOT = 2,
	WPERF_BACKGROUND_SINK = 3, /* a sink that runs under sink_cpu: idle, not a bottleneck */
};

struct wperf_knot {
	uint8_t kind;	      /* enum wperf_knot_kind */
	uint8_t simple_cycle; /* the knot's edges form one cycle through all its vertices */
	uint32_t *vertices;   /* sorted */
	size_t nvertices;
	uint64_t min_weight;  /* the lowest weight of an edge left inside the knot */
	size_t removed_edges; /* edges refinement trimmed from the knot it came from */
	uint32_t parent;      /* the knot this one was refined from, or UINT32_MAX */
};

/*
 * The paper's background test is "less than 100% CPU in all". Threads that take
 * turns (B waits for C, C for B) add up to just under one CPU, since every
 * hand-over costs a wakeup: 0.96 CPU running and 1.005 with runnable time
 * counted, measured on fig1 --device=thread. So runnable time counts as CPU
 * wanted, and a knot is background only below 90% of a CPU: a heartbeat-style
 * thread that sleeps on timers is far below it.
 */
#define WPERF_BACKGROUND_CPU 0.9

struct wperf_knot_opts {
	uint64_t threshold;    /* refinement stops when a knot's lowest weight is >= this (ns) */
	const uint8_t *is_io;  /* per vertex: a disk or NIC pseudo-thread (may be NULL) */
	const double *cpu;     /* per vertex: CPUs used or wanted ((running + runnable) time /
				  window); NULL: no background knots */
	const uint8_t *ignore; /* per vertex: not part of the analysis (timers): its edges
				  are dropped (may be NULL) */
	double sink_cpu; /* a sink (no I/O) using fewer CPUs is background; 0: 0.5; with cpu */
	double background_cpu; /* a knot (no I/O) using fewer CPUs in all is background; 0:
				  WPERF_BACKGROUND_CPU; with cpu */
};

struct wperf_knot_set {
	struct wperf_knot *knots; /* final knots and sinks first, by decreasing weight of
				     their heaviest inner edge; then background knots; then the
				     intermediate knots refinement split (kind KNOT, listed as
				     parents) */
	size_t nknots;
	size_t nfinal; /* knots[0 .. nfinal) are the answer: knots and sinks */
};

/*
 * Strongly connected components by an iterative Tarjan (no recursion, so no
 * depth limit), over the edges of g not flagged in removed (NULL: none).
 * component[v] gets v's component; components are numbered in reverse
 * topological order (a component's successors have smaller numbers).
 */
int wperf_scc(const struct wperf_graph *g, const uint8_t *removed, uint32_t *component,
	      uint32_t *ncomponents, struct wperf_error *err);

int wperf_find_knots(const struct wperf_graph *g, const struct wperf_knot_opts *opts,
		     struct wperf_knot_set *out, struct wperf_error *err);

void wperf_knot_set_release(struct wperf_knot_set *s);

#endif /* WPERF_KNOTS_H */
