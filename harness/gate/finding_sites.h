/* SPDX-License-Identifier: MIT */
/*
 * The call sites behind a verdict's findings, for people to see where the
 * time goes: read from the reports of the head's runs (RESULTS/runs/N/
 * report.json, docs/report-schema.md), whose edges join merged vertices named
 * by their identity, as the gate names them (wperf_identity_dup: bytes that
 * are not UTF-8 become '?'). Edges of one identity pair add up, as in the gate.
 *
 * A site is where the waiter blocked ("fsync (fsync.c:27) <- [fig1+0x2de5]"):
 * its user stack, five frames deep (far enough to leave the C library and
 * reach the program's own frame), else its kernel stack past the scheduler's
 * frames, two deep; likewise where the waker woke it; NULL when there is no
 * stack (an interrupt, a device's idle time).
 */
#ifndef WPERF_FINDING_SITES_H
#define WPERF_FINDING_SITES_H

#include "core/util/error.h"
#include "core/gate/verdict.h"

#define FINDING_SITES_MAX 3

/*
 * Fills the sites of v's findings that have none: EDGE findings for the worse
 * at level warn or fail, and VERTEX findings with an edge (from, to). Each
 * gets the FINDING_SITES_MAX heaviest sites of its edge in one run: the run
 * whose share of the edge is the median (the lower one of two) among the
 * runs that have the edge; share is of the edge's weight in that run. Runs
 * without a report.json (one that failed) are left out. dir is the results
 * folder of `wperf-bench run`. 0, or a negative errno with err naming the
 * file (and key) at fault; the findings filled before an error keep their
 * sites, which v owns.
 */
int finding_sites_fill(const char *dir, struct wperf_verdict *v, struct wperf_error *err);

#endif /* WPERF_FINDING_SITES_H */
