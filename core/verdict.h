/* SPDX-License-Identifier: MIT */
/*
 * The gate: a set of runs against the baseline of their scenario, and the
 * verdict, with the findings behind it; then the verdict for people (Markdown)
 * and for CI (JUnit XML).
 *
 * The rules, with n the runs of the set, m the runs of the baseline, tol the
 * tolerance (edge_tolerance for edges, throughput_tolerance for the
 * throughput):
 *
 * Knots. A knot (its set of vertex identities) is NEW when more than half of
 * the runs have it (2 * seen > n), the baseline does not list the same set
 * (whatever its seen), and no accepted knot entry matches it. An entry
 * matches a knot when each of its globs (fnmatch(3), no flags) matches a
 * member and each member is matched by a glob. A new knot is a failure; an
 * accepted one is reported (level info) with its reason. A baseline knot that
 * most baseline runs had (2 * seen > m) is GONE when more than half of the runs
 * have neither it nor a knot nested with it (one that contains it or that it
 * contains): an improvement. (A member that joins a knot in some runs only,
 * such as a kernel worker near the threshold, is noise, not an improvement.)
 *
 * Edges and throughput. The samples are the edge's share of the window in
 * each run (0 in a run without the edge) or the measured throughputs. Before
 * and after are the medians of the baseline's and the runs' samples; the
 * change is (after - before) / before for the throughput, and (after - before)
 * / max(before, edge_floor) for an edge (a new edge is measured against the
 * floor); edges whose medians are both under edge_floor are not compared. An
 * edge gets worse when its share grows; the throughput when it falls (or grows,
 * with lower_is_better). The noise test:
 *   - n >= min_runs and m >= min_runs: beyond noise when the Mann-Whitney
 *     p < alpha, within noise otherwise;
 *   - fewer runs: beyond noise when the ranges [min, max] of the two sides
 *     are apart and that is unlikely by chance (2 / C(n + m, n) < alpha:
 *     3 runs a side are not enough, 4 are); unknown otherwise (a single
 *     sample on a side, overlapping ranges, too few runs).
 * Then, for a change for the worse:
 *   - |change| > tol, beyond noise: REGRESSION (fail), or INCONCLUSIVE when
 *     the baseline's environment names another CPU model or CPU count (the
 *     machine may be the cause);
 *   - |change| > tol, unknown: INCONCLUSIVE, with the runs per side that would
 *     settle it (at least min_runs);
 *   - |change| > tol, within noise: warn ("within run-to-run noise");
 *   - warn_ratio * tol < |change| <= tol, beyond noise: warn;
 *   - otherwise nothing.
 * A change for the better beyond tol and beyond noise is an improvement
 * (level info). An accepted edge entry (from and to globs) turns an edge's
 * failure or warning into info.
 *
 * The verdict, first that applies: NEW_BOTTLENECK (a new knot), REGRESSION (a
 * failed edge or throughput), INCONCLUSIVE, IMPROVED (the throughput improved
 * or a baseline knot is gone), PASS. Exit status (wperf_verdict_exit_code): 0
 * for pass, improved and inconclusive (which is not a failure: the report says
 * to add runs), 1 for new-bottleneck and regression; 2 is left to errors.
 *
 * Lost events. A run that lost more than max_lost of its events (lost /
 * (recorded + lost); a run that does not say how many it recorded and lost
 * any counts as over) may miss the very waits the gate looks for: with such
 * a run the gate cannot pass. PASS and IMPROVED become INCONCLUSIVE, with a
 * warning that says which runs and what to do; a failure stays a failure.
 *
 * Warnings (not findings): the environment differs (kernel, CPUs, CPU model,
 * tool), runs lost events, fewer runs than min_runs on either side.
 *
 * Ownership: a struct wperf_verdict owns its findings and warnings;
 * wperf_verdict_release frees them.
 */
#ifndef WPERF_VERDICT_H
#define WPERF_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"
#include "buf.h"
#include "error.h"
#include "runset.h"

#define WPERF_GATE_EDGE_TOLERANCE	0.10
#define WPERF_GATE_THROUGHPUT_TOLERANCE 0.05
#define WPERF_GATE_WARN_RATIO		0.5
#define WPERF_GATE_MIN_RUNS		5
#define WPERF_GATE_ALPHA		0.05
#define WPERF_GATE_EDGE_FLOOR		0.05
#define WPERF_GATE_MAX_LOST		0.001
/* A vertex matters when the share of runs that have it in the bottleneck
 * changes by more than this: from a minority of the runs to a majority. */
#define WPERF_GATE_VERTEX_TOLERANCE 0.5
/* A change beyond the tolerance whose own p value is under this, but that is
 * not significant over the scenario's tests, is inconclusive: more runs tell. */
#define WPERF_GATE_SUGGESTIVE 0.05

/* The gate's options; a zeroed struct gives the defaults above. */
struct wperf_gate_opts {
	double edge_tolerance;	     /* relative change of an edge's median share; 0: 0.10 */
	double throughput_tolerance; /* relative change of the median throughput; 0: 0.05 */
	double warn_ratio;	     /* warn beyond warn_ratio * tolerance; 0: 0.5; < 0: never */
	size_t min_runs;	     /* per side for the Mann-Whitney test; 0: 5 */
	double alpha;		     /* significance level of the test; 0: 0.05 */
	double edge_floor;	     /* share under which edges are not compared; 0: 0.05 */
	int lower_is_better;	     /* the throughput is a latency or a time */
	double max_lost;	     /* share of a run's events it may lose; 0: 0.001; < 0: any */
	const struct wperf_env *env; /* of the runs, compared with the baseline's; NULL: not */
	/* The baseline was made from runs interleaved with these, one machine, one
	 * session: its edge samples and throughput samples are in the order of the
	 * runs, sample i taken just before or after run i (a pair). The tests are
	 * then paired t tests on the differences, which cancel the drift. */
	int paired;
	/* The base's runs themselves, when the baseline was made from them (paired
	 * mode): their sinks are compared too (a baseline file keeps no sinks). */
	const struct wperf_runset *base_runs;
	/* The baseline's numbers (edge shares, throughput) are from another machine:
	 * only the structure is compared (vertices joining the bottleneck,
	 * expectations). Set by the caller from the machines' fingerprints. */
	int structure_only;
	/* Runs whose expectation (a synthetic scenario's known answer) was missed,
	 * of those checked: a majority missed fails the gate. */
	size_t expect_missed, expect_checked;
};

enum wperf_verdict_kind {
	WPERF_VERDICT_PASS = 0,
	WPERF_VERDICT_IMPROVED,
	WPERF_VERDICT_NEW_BOTTLENECK,
	WPERF_VERDICT_REGRESSION,
	WPERF_VERDICT_INCONCLUSIVE,
};

enum wperf_finding_kind {
	WPERF_FINDING_NEW_KNOT,	   /* a knot that most runs have and the baseline does not */
	WPERF_FINDING_KNOT_GONE,   /* a baseline knot that most runs no longer have */
	WPERF_FINDING_EDGE,	   /* an edge's share of the window changed */
	WPERF_FINDING_THROUGHPUT,  /* the throughput changed */
	WPERF_FINDING_VERTEX,	   /* a vertex joined or left the bottleneck (knots or sinks) */
	WPERF_FINDING_EXPECTATION, /* runs missed the scenario's expected answer */
};

/* A call site behind an edge, as the text report prints it: where the waiter
 * blocked and where its waker woke it ("fsync (fig1.c:88)"), either may be
 * NULL when unknown, and the share of the edge's weight from that pair. */
struct wperf_site {
	char *waiter, *waker;
	double share;
};

enum wperf_level {
	WPERF_LEVEL_INFO = 0, /* an improvement, or an accepted bottleneck */
	WPERF_LEVEL_WARN,     /* worth a look, does not fail */
	WPERF_LEVEL_FAIL,     /* fails the gate (inconclusive findings are WARN) */
};

struct wperf_finding {
	enum wperf_finding_kind kind;
	enum wperf_level level;
	int worse;	  /* 1: for the worse (a new knot, a heavier edge, a lower throughput) */
	int inconclusive; /* the change passes the tolerance, the runs cannot tell */
	int accepted;	  /* an accepted entry covers it (level info) */
	struct wperf_idset knot; /* NEW_KNOT, KNOT_GONE: its members */
	char *from, *to;	 /* EDGE: its ends */
	double before, after;	 /* medians: share of the window, or throughput; knots: NaN */
	double before_lo, before_hi, after_lo, after_hi; /* the ranges of the samples */
	double change;	    /* (after - before) / reference; NaN for knots */
	double p;	    /* Mann-Whitney p (decides only with min_runs a side); NaN: knots */
	size_t runs_needed; /* inconclusive: runs per side that could settle it */
	size_t seen, runs;  /* knots, vertices: in how many of the set's runs, of how many */
	char *note;	    /* why, for people: the accepted reason, "within noise", ... */
	/* VERTEX: the identity; sink: 1 when it is about the sinks, not the knots;
	 * before_seen of before_runs: the base's (or baseline's) count; worse: it
	 * joined. from/to: the edge that brought it, the one between it and the
	 * bottleneck that grew most (may be NULL). */
	char *vertex;
	int sink;
	size_t before_seen, before_runs;
	/* The p value adjusted for the scenario's tests (Benjamini-Hochberg): the
	 * finding fails when q <= the verdict's alpha. NaN when not tested. */
	double q;
	/* The smallest change (in the unit of change) the runs could have told
	 * from noise at the verdict's alpha with 80% power; NaN when unknown. */
	double detectable;
	struct wperf_site *sites; /* EDGE, VERTEX: the call sites behind from -> to */
	size_t nsites;
};

struct wperf_verdict {
	enum wperf_verdict_kind kind;
	char *scenario;
	size_t runs, baseline_runs;
	uint64_t lost_events; /* summed over the runs */
	size_t lossy_runs;    /* runs that lost more than max_lost of their events */
	char unit[32];	      /* of the throughput */
	double throughput_before, throughput_after; /* medians; NaN when a side has none */
	struct wperf_finding *findings; /* fail, then warn, then info; biggest change first */
	size_t nfindings;
	char **warnings; /* sentences */
	size_t nwarnings;
	int paired;	    /* the tests were paired (see wperf_gate_opts) */
	int structure_only; /* the numbers were not compared (another machine) */
	double alpha;	    /* the level each of the scenario's tests was held to */
	size_t tests;	    /* how many tests the scenario's p values were adjusted over */
	double detectable;  /* the smallest throughput change (relative) the runs could
			     * have detected; NaN when unknown */
};

int wperf_verdict(const struct wperf_runset *rs, const struct wperf_baseline *b,
		  const struct wperf_gate_opts *g, struct wperf_verdict *out,
		  struct wperf_error *err);

void wperf_verdict_release(struct wperf_verdict *v);

/* "pass", "improved", "new-bottleneck", "regression", "inconclusive". */
const char *wperf_verdict_name(enum wperf_verdict_kind kind);

/* 0: pass, improved, inconclusive (with a warning in the report); 1: new-bottleneck,
 * regression. (2, an error, is the caller's.) */
int wperf_verdict_exit_code(enum wperf_verdict_kind kind);

/* Does accepted knot entry a match the knot of identities s? */
int wperf_accepted_matches_knot(const struct wperf_accepted *a, const struct wperf_idset *s);

/* ---- writers (verdict_report.c) ---- */

#define WPERF_VERDICT_MD_MAX 60000 /* under the forges' 65,535-character comments */

/*
 * Appends a Markdown summary of v to out: the verdict line first, then knots
 * added and removed, the edge changes (before -> after, with the ranges), the
 * throughput, and the warnings. At most max_chars bytes (0: WPERF_VERDICT_MD_MAX;
 * at least 1000); past that it stops at a line's end with a note of what was
 * left out. 0 or -ENOMEM.
 */
int wperf_verdict_markdown(const struct wperf_verdict *v, size_t max_chars, struct wperf_buf *out);

/* Appends the identities of s as Markdown code spans, ", " between them, safe
 * in a table cell; 0 or -ENOMEM. */
int wperf_markdown_ids(struct wperf_buf *b, const struct wperf_idset *s);

/*
 * Appends a JUnit XML report of the verdicts of n scenarios to out: one
 * testsuite per scenario, with the testcases "bottlenecks" (knots and edges)
 * and "throughput"; a failure per failing testcase, skipped for an
 * inconclusive one, warnings in system-out. Every text is escaped, and bytes
 * that are not UTF-8 or not allowed in XML become '?'. 0 or -ENOMEM.
 */
int wperf_verdict_junit(const struct wperf_verdict *const *v, size_t n, struct wperf_buf *out);

#endif /* WPERF_VERDICT_H */
