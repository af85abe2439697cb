/* SPDX-License-Identifier: MIT */
/*
 * The baseline of a scenario: what its repeated runs looked like on a known
 * good commit, kept as YAML under baselines/ for people to read and review
 * (format wperf-baseline/1, or /2 with metrics; every key is documented in
 * docs/scenarios.md, "The baseline file"). The reader is strict: an error
 * names the file, line, column and key path.
 *
 * Ownership: a struct wperf_baseline owns all its strings and arrays;
 * wperf_baseline_release frees them and leaves a zeroed struct.
 */
#ifndef WPERF_BASELINE_H
#define WPERF_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/gate/env.h"
#include "core/util/error.h"
#include "core/gate/runset.h"

#define WPERF_BASELINE_FORMAT	      "wperf-baseline/1"
#define WPERF_BASELINE_FORMAT_METRICS "wperf-baseline/2" /* /1 and metrics: */

struct wperf_baseline_knot {
	struct wperf_idset vertices;
	size_t seen; /* in how many of the runs */
};

struct wperf_baseline_edge {
	char *from, *to;
	double *samples; /* share of the window in each run: the baseline's runs of them */
};

struct wperf_baseline_metric {
	struct wperf_metric metric; /* its tolerance is the scenario's, not kept: 0 */
	double *samples;	    /* one per run that measured it */
	size_t nsamples;
};

struct wperf_accepted {
	int is_edge;  /* else a knot */
	char **globs; /* in the file's order; knot: for its members; edge: from, to */
	size_t nglobs;
	char *reason;		/* never NULL */
	size_t line, last_line; /* its lines in its file (from 1); 0: not read from one */
	char *origin;		/* who accepted it, "COMMIT (SUBJECT)", set by the caller that
				 * knows the file's history; NULL: unknown (not written) */
};

struct wperf_baseline {
	char *scenario;
	struct wperf_env env;
	size_t runs;
	double *throughput; /* nthroughput samples, one per run that measured it */
	size_t nthroughput;
	char *unit;			   /* of the throughput; NULL when unknown */
	struct wperf_baseline_knot *knots; /* by seen, most first, then by vertices */
	size_t nknots;
	struct wperf_baseline_edge *edges; /* sorted by (from, to), unique */
	size_t nedges;
	struct wperf_baseline_metric *metrics; /* in the scenario's order */
	size_t nmetrics;
	struct wperf_accepted *accepted; /* in the file's order */
	size_t naccepted;
};

/*
 * What b's throughput samples can tell, judged against as many new runs with
 * an unpaired test at level alpha (the gate's against a stored baseline):
 * the smallest relative change, into *detectable (NaN: fewer than two
 * samples, or one not > 0), and the runs a side that would tell detect, into
 * *runs_needed (1000 at most; 0: unknown).
 */
void wperf_baseline_power(const struct wperf_baseline *b, double detect, double alpha,
			  double *detectable, size_t *runs_needed);

/*
 * The baseline of scenario from its runs (at least one) made on env (NULL:
 * unknown). The throughput unit comes from rs->unit, the metrics from
 * rs->metrics. No accepted entries: see
 * wperf_baseline_merge_accepted. 0, -EINVAL or -ENOMEM.
 */
int wperf_baseline_from_runs(const struct wperf_runset *rs, const char *scenario,
			     const struct wperf_env *env, struct wperf_baseline *out,
			     struct wperf_error *err);

/* Appends the YAML text of b to out (the caller writes it to disk atomically).
 * Numbers are written with the fewest digits that read back exactly.
 * 0, -EINVAL (a number that is not finite) or -ENOMEM. */
int wperf_baseline_write(const struct wperf_baseline *b, struct wperf_buf *out,
			 struct wperf_error *err);

/*
 * Reads a baseline from len bytes of YAML text; path_for_messages names the
 * file in errors. 0, -EINVAL (the message has the position) or -ENOMEM; on
 * error out is left empty.
 */
int wperf_baseline_read(const char *path_for_messages, const char *text, size_t len,
			struct wperf_baseline *out, struct wperf_error *err);

/*
 * Why name cannot be in an accepted entry, or NULL when it can. An entry
 * names identities exactly, or threads of one process with a glob after the
 * process's name ("PROCESS/GLOB", not a family of the kernel's threads such
 * as kworker): a class (every disk, every kernel worker, a thread name in any
 * program) would accept a bottleneck that joins from anywhere.
 */
const char *wperf_accepted_name_why(const char *name);

/*
 * Adds an accepted entry: a knot (is_edge 0) whose members the n globs match,
 * or an edge (is_edge 1, n 2: from and to), with a reason (not empty), each
 * glob one wperf_accepted_name_why lets be. 0, -EINVAL or -ENOMEM.
 */
int wperf_baseline_accept(struct wperf_baseline *b, int is_edge, const char *const *globs, size_t n,
			  const char *reason);

/*
 * Carries the accepted entries of old over to fresh, a baseline just made from
 * runs, so that updating a baseline keeps what people accepted. Entries fresh
 * has already (same globs) are not doubled. 0 or -ENOMEM (fresh keeps the
 * entries added so far).
 */
int wperf_baseline_merge_accepted(struct wperf_baseline *fresh, const struct wperf_baseline *old);

/* The samples of metric name, or NULL when b does not have it. */
const struct wperf_baseline_metric *wperf_baseline_metric(const struct wperf_baseline *b,
							  const char *name);

/* The samples of edge from -> to, or NULL when b does not have it. */
const struct wperf_baseline_edge *wperf_baseline_edge(const struct wperf_baseline *b,
						      const char *from, const char *to);

void wperf_baseline_release(struct wperf_baseline *b);

#endif /* WPERF_BASELINE_H */
