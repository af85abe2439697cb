/* SPDX-License-Identifier: MIT */
/*
 * The lines of a whole check's Markdown about one finding (see
 * check_report.c): what changed and by how much, its level, its p values and
 * the call sites behind it; and which finding a scenario's row names.
 */
#include <math.h>
#include <stdio.h>

#include "core/gate/check_report_internal.h"
#include "core/gate/verdict_text.h"

/* "31.0 pp": a share of the window in percentage points. */
static void pp(struct md *m, double share)
{
	check_md_printf(m, "%.1f pp", share * 100);
}

static void p_value(struct md *m, const char *name, double p)
{
	if (!isnan(p))
		check_md_printf(m, p < 0.001 ? ", %s %.1e" : ", %s %.3f", name, p);
}

static void edge(struct md *m, const char *from, const char *to)
{
	check_md_code(m, from);
	check_md_printf(m, " → ");
	check_md_code(m, to);
}

/* What a finding says, without its level, note or sites: for the table's
 * reason and the details. */
void check_finding_what(struct md *m, const struct wperf_finding *f, const char *unit)
{
	switch (f->kind) {
	case WPERF_FINDING_NEW_KNOT:
		check_md_printf(m, "%s knot ", f->accepted ? "accepted" : "new");
		check_md_ids(m, &f->knot);
		check_md_printf(m, " in %zu of %zu runs", f->seen, f->runs);
		break;
	case WPERF_FINDING_KNOT_GONE:
		check_md_printf(m, "knot gone: ");
		check_md_ids(m, &f->knot);
		check_md_printf(m, " (now in %zu of %zu runs)", f->seen, f->runs);
		break;
	case WPERF_FINDING_EDGE:
		check_md_printf(m, "edge ");
		edge(m, f->from, f->to);
		if (!isnan(f->after) && !isnan(f->before)) {
			check_md_printf(m, ": ");
			pp(m, f->after);
			check_md_printf(m, ", was ");
			pp(m, f->before);
		}
		break;
	case WPERF_FINDING_METRIC:
	case WPERF_FINDING_THROUGHPUT:
		/* A metric is named; its unit is its own. */
		unit = f->kind == WPERF_FINDING_METRIC ? (f->unit ? f->unit : "") : unit;
		check_md_text(m, f->metric ? f->metric : "throughput");
		check_md_printf(m, " %.6g → %.6g", f->before, f->after);
		if (unit[0]) {
			check_md_printf(m, " ");
			check_md_text(m, unit);
		}
		if (!isnan(f->change))
			check_md_printf(m, " (%+.1f%%)", f->change * 100);
		break;
	case WPERF_FINDING_VERTEX:
		check_md_code(m, f->vertex);
		check_md_printf(m, " %s the %s in %zu of %zu runs (was %zu of %zu)",
				f->worse ? "joined" : "left", f->sink ? "sinks" : "bottleneck",
				f->seen, f->runs, f->before_seen, f->before_runs);
		if (f->from && f->to) {
			check_md_printf(m, ", through ");
			edge(m, f->from, f->to);
		}
		break;
	case WPERF_FINDING_EXPECTATION:
		check_md_printf(m, "the expected answer missed in %zu of %zu runs", f->seen,
				f->runs);
		break;
	}
}

static void site_line(struct md *m, const struct wperf_site *s)
{
	check_md_printf(m, "  - %.0f%%:", s->share * 100);
	if (s->waiter) {
		check_md_printf(m, " waits in ");
		check_md_code(m, s->waiter);
	}
	if (s->waiter && s->waker)
		check_md_printf(m, ",");
	if (s->waker) {
		check_md_printf(m, " woken from ");
		check_md_code(m, s->waker);
	}
	check_md_printf(m, "\n");
}

void check_finding_line(struct md *m, const struct wperf_finding *f, const char *unit)
{
	check_md_printf(m, "- %s ", wperf_md_level(f));
	check_finding_what(m, f, unit);
	if (f->kind == WPERF_FINDING_EDGE && !isnan(f->change))
		check_md_printf(m, " (%+.0f%%)", f->change * 100);
	p_value(m, "p", f->p);
	p_value(m, "q", f->q);
	if (f->inconclusive && f->runs_needed)
		check_md_printf(m, "; %zu runs a side could settle it", f->runs_needed);
	if (f->note && f->note[0]) {
		check_md_printf(m, ": ");
		check_md_text(m, f->note);
	}
	check_md_printf(m, "\n");
	for (size_t i = 0; i < f->nsites; i++)
		site_line(m, &f->sites[i]);
}

/* The order of the details: failures, then changes for the worse, then the rest. */
int check_finding_class(const struct wperf_finding *f)
{
	if (f->level == WPERF_LEVEL_FAIL)
		return 0;
	return f->worse ? 1 : 2;
}

/* The finding the table's reason names: the first failure, else the first
 * change for the worse; NULL when none. */
const struct wperf_finding *check_main_finding(const struct wperf_verdict *v)
{
	for (int class = 0; class < 2; class ++)
		for (size_t i = 0; i < v->nfindings; i++)
			if (check_finding_class(&v->findings[i]) == class &&
			    v->findings[i].level != WPERF_LEVEL_INFO)
				return &v->findings[i];
	return NULL;
}
