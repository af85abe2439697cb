/* SPDX-License-Identifier: MIT */
/*
 * What the files of the gate share (verdict.c: warnings and the verdict, on
 * top; verdict_tests.c and verdict_metrics.c: the tests; verdict_levels.c:
 * the family's adjusted p values and the findings' levels;
 * verdict_findings.c: adding findings and warnings, at the bottom). Not a
 * public API.
 */
#ifndef WPERF_VERDICT_INTERNAL_H
#define WPERF_VERDICT_INTERNAL_H

#include <stddef.h>

#include "core/util/buf.h"
#include "core/gate/stats.h"
#include "core/gate/verdict.h"

/* A comparison made, waiting for the scenario's adjustment of its p values. */
struct pending {
	struct wperf_finding f; /* medians, change, p; level and note come later */
	double tol;		/* beyond it the change matters */
	double sd;		/* of the differences (paired) or pooled; NaN: unknown */
	size_t n;		/* pairs, or the smaller side's runs */
	int paired;
	int log_scale; /* sd is of log values: the change is exp(x) - 1 */
	/* The smallest p value the test could give with these sample sizes (and
	 * Fisher's margins), in the better [0] and the worse [1] direction: a
	 * test that cannot reach a level costs the family none of it (Tarone).
	 * 0 for a continuous test. */
	double floor[2];
	double q_twice; /* its adjusted p in the step-down at twice alpha: inconclusive */
};

struct gate {
	struct wperf_gate_opts o; /* with the defaults filled in */
	const struct wperf_runset *rs;
	const struct wperf_baseline *b;
	struct wperf_verdict *out;
	struct wperf_buf findings, warnings; /* the arrays of out, growing */
	struct wperf_buf pending;	     /* struct pending: every test of the scenario */
	double *after, *before;		     /* scratch: one sample per run */
	double *zeros;			     /* the baseline samples of an edge it lacks */
	size_t divisor; /* the primaries' Holm-Tarone divisor at the first step */
	int busier;	/* the target waited for CPUs more per operation (test_costs) */
};

/* ---- verdict_findings.c ---- */
/* printf into a new string; NULL when out of memory. */
char *gate_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Frees the strings and arrays of f. */
void gate_release_finding(struct wperf_finding *f);
/* Takes f (its strings) into the verdict; on error frees them instead. */
int gate_add_finding(struct gate *s, struct wperf_finding *f);
/* Adds a warning made by gate_format (NULL: out of memory). */
int gate_add_warning(struct gate *s, char *w);

/* ---- verdict_tests.c: each test adds a pending comparison (or a finding) ---- */
/* The scenario's expected answer, in how many runs it was found. */
int gate_test_expectation(struct gate *s);
/* The vertices in the bottleneck (sink: the sinks, with base runs) now and before. */
int gate_test_vertices(struct gate *s, int sink);
int gate_test_edges(struct gate *s);
int gate_test_throughput(struct gate *s);
/* One measure of the load, the throughput (m NULL) or metric m: the samples
 * before (the baseline's) and after (the runs'), their medians into
 * *median_before and *median_after; a test, or a warning that says why not. */
int gate_test_measure(struct gate *s, const struct wperf_metric *m, const double *before, size_t nb,
		      const double *after, size_t na, double *median_before, double *median_after);
/* With the base's runs (paired): the measure (name NULL: the throughput) of
 * run i of each side into before[n] and after[n], pair by pair, a pair that
 * lacks it on either side left out (head run i was made beside base run i);
 * n is returned. Each array holds the head's nruns at least. */
size_t gate_paired_measures(const struct gate *s, const char *name, double *before, double *after);
/* Every metric of the run set (verdict_metrics.c). */
int gate_test_metrics(struct gate *s);

/* ---- verdict_levels.c ---- */
/* The pending tests as one family: adjusted p values, then each finding's
 * level (accepted entries only inform); 0 or -ENOMEM. */
int gate_judge_tests(struct gate *s);

#endif /* WPERF_VERDICT_INTERNAL_H */
