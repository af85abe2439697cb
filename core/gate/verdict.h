/* SPDX-License-Identifier: MIT */
/*
 * The gate: a set of runs against the baseline of their scenario, and the
 * verdict, with the findings behind it; then the verdict for people (Markdown)
 * and for CI (JUnit XML).
 *
 * The rules (the tests, their levels, the verdict) are written down in
 * docs/gate-rules.md; docs/ci.md explains the statistics for users. In short:
 * every comparison is a one-sided test in the direction of the change; the
 * primaries (the load's metrics, the expected answer, each vertex's
 * membership of the bottleneck) decide, adjusted together by Holm's
 * step-down with Tarone's divisor; an edge fails only beside a failing
 * primary; an improvement is never a regression.
 *
 * Ownership: a struct wperf_verdict owns its findings and warnings;
 * wperf_verdict_release frees them.
 */
#ifndef WPERF_VERDICT_H
#define WPERF_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "core/gate/baseline.h"
#include "core/util/buf.h"
#include "core/util/error.h"
#include "core/gate/runset.h"

#define WPERF_GATE_EDGE_TOLERANCE	0.10
#define WPERF_GATE_THROUGHPUT_TOLERANCE 0.05
#define WPERF_GATE_WARN_RATIO		0.5
#define WPERF_GATE_MIN_RUNS		5
#define WPERF_GATE_ALPHA		0.05
#define WPERF_GATE_EDGE_FLOOR		0.05
#define WPERF_GATE_MAX_LOST		0.001
/* The target's CPU time per operation (a metric of that name, in ms, tested
 * against the base's runs): a change of this much matters. */
#define WPERF_GATE_COST_METRIC	  "target.cpu_per_op"
#define WPERF_GATE_COST_TOLERANCE 0.05
/* A vertex matters when the share of runs that have it in the bottleneck
 * changes by more than this: from a minority of the runs to a majority. */
#define WPERF_GATE_VERTEX_TOLERANCE 0.5
/* A change beyond the tolerance whose own p value is under this, but that is
 * not significant over the scenario's tests, is undecided: more runs tell. */
#define WPERF_GATE_SUGGESTIVE 0.05
/* One whose adjusted p is within this many times alpha is inconclusive: a
 * check whose inconclusive scenarios fail too (--strict) keeps its rate of
 * false failures under this many times alpha. */
#define WPERF_GATE_INCONCLUSIVE 2

/* The gate's options; a zeroed struct gives the defaults above. */
struct wperf_gate_opts {
	double edge_tolerance;	     /* relative change of an edge's median share; 0: 0.10 */
	double throughput_tolerance; /* relative change of the median throughput; 0: 0.05 */
	double warn_ratio;	     /* warn beyond warn_ratio * tolerance; 0: 0.5; < 0: never */
	size_t min_runs;	     /* per side for the Mann-Whitney test; 0: 5 */
	double alpha;		     /* significance level of the test; 0: 0.05 */
	double edge_floor;	     /* share under which edges are not compared; 0: 0.05 */
	double detect;	     /* the throughput change the runs must tell; 0: throughput_tolerance */
	int lower_is_better; /* the throughput is a latency or a time */
	double max_lost;     /* share of a run's events it may lose; 0: 0.001; < 0: any */
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
	const char *machine_why; /* structure_only: how the machines differ; may be NULL */
	/* The baseline's numbers were not measured beside these runs (a stored
	 * baseline in a check): a drift of the machine between the two sessions
	 * moves the throughput and the metrics as much as the code does, so
	 * their changes warn and do not fail; the structure (vertices, the
	 * expected answer) still does. */
	int numbers_inform;
	/* Runs whose expectation (a synthetic scenario's known answer) was missed,
	 * of those checked; expect_base_*: the base's runs (paired mode). */
	size_t expect_missed, expect_checked;
	size_t expect_base_missed, expect_base_checked;
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
	WPERF_FINDING_METRIC,	   /* another metric of the load changed (metric, unit) */
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
	int inconclusive; /* the change passes the tolerance, the runs nearly tell */
	int undecided;	  /* more runs could settle it: the looks go on (not saved) */
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
	/* The p value adjusted over its kind's tests of the scenario (Holm and
	 * Tarone): the finding fails when q <= the verdict's alpha. NaN when not
	 * tested. */
	double q;
	/* The smallest change (in the unit of change) the runs could have told
	 * from noise at the verdict's alpha with 80% power; NaN when unknown. */
	double detectable;
	struct wperf_site *sites; /* EDGE, VERTEX: the call sites behind from -> to */
	size_t nsites;
	char *metric, *unit; /* METRIC: its name and unit (unit may be NULL); else NULL */
};

/* The medians of one of the scenario's other metrics (core/gate/metric.h),
 * shown whether or not a finding came of it. */
struct wperf_verdict_metric {
	char name[WPERF_METRIC_NAME_MAX];
	char unit[WPERF_METRIC_UNIT_MAX];
	double before, after; /* NaN when a side has none */
};

struct wperf_verdict {
	enum wperf_verdict_kind kind;
	char *scenario;
	size_t runs, baseline_runs;
	uint64_t lost_events; /* summed over the runs */
	size_t lossy_runs;    /* runs that lost more than max_lost of their events */
	/* runs (of either side) with a check against the kernel's counters in WARN */
	size_t unconfirmed_runs;
	char unit[32];				    /* of the throughput */
	double throughput_before, throughput_after; /* medians; NaN when a side has none */
	struct wperf_finding *findings; /* fail, then warn, then info; biggest change first */
	size_t nfindings;
	char **warnings; /* sentences */
	size_t nwarnings;
	int paired;	    /* the tests were paired (see wperf_gate_opts) */
	int structure_only; /* the numbers were not compared (another machine) */
	double alpha;	    /* the scenario's level: of any primary failing falsely */
	size_t tests;	    /* how many primary tests the scenario made */
	double detectable;  /* the smallest throughput change (relative) the runs could
			     * have detected; NaN when unknown */
	double detect;	    /* the change they were to tell (wperf_gate_opts.detect) */
	/* A vertex in none of the base's runs would fail in this many of the
	 * runs (or more); 0: in none, these runs cannot fail a new bottleneck. */
	size_t presence;
	/* The runs could not tell the detect change, or no new vertex could fail:
	 * a pass of these runs is weaker than it reads. */
	int underpowered;
	struct wperf_verdict_metric *metrics; /* the run set's metrics, in its order */
	size_t nmetrics;
};

int wperf_verdict(const struct wperf_runset *rs, const struct wperf_baseline *b,
		  const struct wperf_gate_opts *g, struct wperf_verdict *out,
		  struct wperf_error *err);

void wperf_verdict_release(struct wperf_verdict *v);

/*
 * Gives the findings of v that have no call sites those of their edge in the
 * runs of rs: EDGE findings for the worse at level warn or fail, and VERTEX
 * findings with an edge (from, to). Each gets the sites its edge keeps
 * (struct wperf_run_edge, at most WPERF_RUN_SITES) in one run: the run whose
 * share of the edge is the median (the lower one of two) among the runs that
 * have the edge; a site's share is of the edge's weight in that run.
 * wperf_verdict does it with the runs it judges. 0 or -ENOMEM (the findings
 * keep what they were given, which v owns).
 */
int wperf_verdict_take_sites(struct wperf_verdict *v, const struct wperf_runset *rs);

/* "pass", "improved", "new-bottleneck", "regression", "inconclusive". */
const char *wperf_verdict_name(enum wperf_verdict_kind kind);

/* 0: pass, improved, inconclusive (with a warning in the report); 1: new-bottleneck,
 * regression. (2, an error, is the caller's.) */
int wperf_verdict_exit_code(enum wperf_verdict_kind kind);

/* Does a scenario whose verdict is kind fail a check: exit code 1, or, with
 * strict, inconclusive too? */
int wperf_verdict_fails_check(enum wperf_verdict_kind kind, int strict);

/* Do some runs fail to vouch for the graphs (v->lossy_runs lost too many events,
 * or v->unconfirmed_runs the kernel's counters contradict)? Then v cannot pass
 * and its bottlenecks are inconclusive. */
int wperf_verdict_untrusted(const struct wperf_verdict *v);

/*
 * Is v settled, or would more runs tell? A finding that is undecided wants
 * them (its own p suggests a change the family cannot show yet); so, when v
 * fails already, does a vertex that joined the bottleneck in more runs than
 * the tolerance but not yet beyond the noise: it may settle the failure as a
 * new bottleneck rather than a regression (the throughput fails first, the
 * vertex's test needs more runs), which costs runs only on a change that
 * fails anyway; and so does a pass whose runs are underpowered. A check's
 * looks go on until this says yes (harness/gate/check_scenario.h).
 */
int wperf_verdict_settled(const struct wperf_verdict *v);

/* Does accepted knot entry a match the knot of identities s? */
int wperf_accepted_matches_knot(const struct wperf_accepted *a, const struct wperf_idset *s);

/* ---- writers (verdict_report.c, verdict_text.c, verdict_junit.c) ---- */

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
