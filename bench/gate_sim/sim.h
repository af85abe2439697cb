/* SPDX-License-Identifier: MIT */
/*
 * The core of gate_sim (bench/gate_sim.c, which says what it measures): the
 * pools of runs, the draws, the planted effects and the looks of a check,
 * judged by the real verdict. Apart from the command so that each file stays
 * small; sim.c's header comments say how each step follows the real check.
 *
 * Ownership: struct sim owns its scenarios, and each its pool and scratch;
 * sim_release frees them.
 */
#ifndef WPERF_BENCH_GATE_SIM_H
#define WPERF_BENCH_GATE_SIM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gate/baseline.h"
#include "core/gate/verdict.h"
#include "harness/gate/check_scenario.h"
#include "harness/run/results.h"

#define SIM_VERTEX "sim/planted"
#define SIM_KINDS  (WPERF_VERDICT_INCONCLUSIVE + 1)

/* What is planted on the head's runs; a zeroed struct: nothing (A/A). */
struct effects {
	double throughput; /* relative change for the better (< 0: worse); 0: none */
	double vertex;	   /* chance a head run has SIM_VERTEX in its first knot; 0: none */
	double edge;	   /* factor of the chosen edge's share; 0: none */
};

/* What planting changes of one pooled run: owned here, the rest is the pool's. */
struct planted {
	struct wperf_idset *knots; /* the run's knots; the first (ours) has SIM_VERTEX */
	size_t nknots;
	struct wperf_run_edge *edges; /* the run's edges, the chosen one scaled */
};

struct sim_scenario {
	const char *dir;
	struct results pool;		/* every run of the folder, both sides */
	struct wperf_baseline accepted; /* only its accepted entries count */
	char accepted_from[PATH_MAX];	/* its file, or "none" */
	char settings_from[PATH_MAX];	/* the scenario file of its gate options, or "the runs'" */
	struct planted *planted;	/* per pooled run */
	char *edge_from, *edge_to;	/* the edge effect's edge (NULL: none yet) */
	double edge_factor;		/* of the planted edges; 0: none yet */
	size_t *order;			/* a permutation of the pool (or its pairs), drawn from */
	/* A check's folder: its runs were made in pairs, base run i (pooled
	 * run i) beside head run i (pooled run head_at + i); 0 pairs: a results
	 * folder, no pairs. */
	size_t pairs, head_at;
	/* The trial's runs (shallow copies of the pool's) and the two sides made
	 * of them, as gate_options and the verdict read a check's. */
	struct wperf_run *drawn[2];
	struct results_expect *drawn_expect[2];
	struct results side[2];
	/* The tallies of the last pass: verdicts by kind, failures (exit code 1,
	 * or inconclusive with strict), runs per side summed over the trials. */
	size_t kinds[SIM_KINDS], fails, runs_used;
};

struct sim {
	/* set by the caller before sim_setup */
	unsigned trials, first, max;
	double alpha; /* the check's */
	int strict;   /* an inconclusive scenario fails the check too */
	uint64_t seed;
	/* set by sim_setup */
	struct check_looks plan;
	unsigned looks;
	double scenario_alpha;
	struct sim_scenario *sc;
	size_t nsc;
	/* the tallies of the last pass */
	size_t check_fails;
	double seconds;
};

/*
 * Loads the n folders of runs, one scenario each (a run's results folder, or a
 * check's scenario folder with base/ and head/, pooled), and sets the looks
 * and each scenario's alpha as check-perf would. 0 or a negative errno with
 * err; call sim_release either way.
 */
int sim_setup(struct sim *s, char *const *dirs, size_t n, struct wperf_error *err);

/* s->trials checks with effects eff planted, the PRNG seeded afresh from
 * s->seed (every pass sees the same draws); the tallies into s and its
 * scenarios. 0 or a negative errno with err. */
int sim_pass(struct sim *s, const struct effects *eff, struct wperf_error *err);

/* The Wilson score interval, 95%, of k successes in n trials. */
void sim_wilson(size_t k, size_t n, double *lo, double *hi);

/* A monotonic clock, in seconds. */
double sim_now(void);

void sim_release(struct sim *s);

#endif /* WPERF_BENCH_GATE_SIM_H */
