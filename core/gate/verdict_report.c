/* SPDX-License-Identifier: MIT */
/*
 * The verdict for people: a Markdown summary, for a pull-request comment or a
 * CI job summary, cut to a length the forges take. See verdict.h; the JUnit
 * XML for CI is in verdict_junit.c, the escapes in verdict_text.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/gate/verdict.h"
#include "core/gate/verdict_text.h"

#define MD_NOTE_ROOM 300 /* kept free for the note that says what was left out */

struct md {
	struct wperf_buf *out;
	struct wperf_buf line; /* the line being made */
	size_t start, max;     /* out's length before the summary; the cap */
	size_t dropped;	       /* lines left out once the cap was reached */
	int ret;
};

/* Adds the line made so far (and a newline) if it fits under the cap; once one
 * line does not fit, no later one is added either, so nothing is cut midway. */
static void md_end(struct md *m)
{
	if (!m->ret && (m->ret = wperf_buf_append(&m->line, "\n", 1)))
		return;
	if (!m->dropped && m->out->len - m->start + m->line.len + MD_NOTE_ROOM <= m->max)
		m->ret = m->ret ? m->ret : wperf_buf_append(m->out, m->line.data, m->line.len);
	else
		m->dropped++;
	wperf_buf_clear(&m->line);
}

static void md_printf(struct md *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void md_printf(struct md *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!m->ret)
		m->ret = wperf_buf_vprintf(&m->line, fmt, ap);
	va_end(ap);
}

static void md_code_(struct md *m, const char *s)
{
	if (!m->ret)
		m->ret = wperf_md_code(&m->line, s) ? -ENOMEM : 0;
}

static void md_text_(struct md *m, const char *s)
{
	if (!m->ret)
		m->ret = wperf_md_text(&m->line, s) ? -ENOMEM : 0;
}

static const char *verdict_sentence(enum wperf_verdict_kind k)
{
	switch (k) {
	case WPERF_VERDICT_PASS:
		return "No vertex joined the bottleneck, and neither the throughput nor a metric "
		       "is "
		       "worse beyond the tolerance and the noise";
	case WPERF_VERDICT_IMPROVED:
		return "Better than the baseline, and nothing got worse";
	case WPERF_VERDICT_NEW_BOTTLENECK:
		return "A new vertex holds the throughput down: the gate fails";
	case WPERF_VERDICT_REGRESSION:
		return "Worse than the baseline beyond the tolerance and the run-to-run noise: the "
		       "gate fails";
	case WPERF_VERDICT_INCONCLUSIVE:
		return "A change passes the tolerance but the runs cannot yet tell it from noise "
		       "(see the findings: more runs would), or runs lost too many events to be "
		       "trusted (see the warnings); this does not fail the gate";
	}
	return "";
}

/* "40.0% (38.5-41.0)": a median share of the window and the range of the runs. */
static void md_share(struct md *m, double median, double lo, double hi)
{
	md_printf(m, "%.1f%% (%.1f–%.1f)", median * 100, lo * 100, hi * 100);
}

static void md_p(struct md *m, double p)
{
	if (isnan(p))
		md_printf(m, "–");
	else
		md_printf(m, p < 0.001 ? "%.1e" : "%.3f", p);
}

/* The sites behind an edge, one per line under it. */
static void md_sites(struct md *m, const struct wperf_finding *f)
{
	for (size_t i = 0; i < f->nsites; i++) {
		md_printf(m, "  - %.0f%%: blocked in ", f->sites[i].share * 100);
		md_code_(m, f->sites[i].waiter ? f->sites[i].waiter : "?");
		md_printf(m, ", woken from ");
		md_code_(m, f->sites[i].waker ? f->sites[i].waker : "?");
		md_end(m);
	}
}

/* Vertices that joined or left the bottleneck, and missed expectations. */
static void md_knots(struct md *m, const struct wperf_verdict *v)
{
	size_t shown = 0;

	md_printf(m, "\n#### Bottleneck (knots and sinks the target waits for)");
	md_end(m);
	for (size_t i = 0; i < v->nfindings; i++) {
		const struct wperf_finding *f = &v->findings[i];

		if (f->kind == WPERF_FINDING_EXPECTATION) {
			md_printf(m, "- %s: ", wperf_md_level(f));
			md_text_(m, f->note);
			md_end(m);
			shown++;
			continue;
		}
		if (f->kind != WPERF_FINDING_VERTEX)
			continue;
		md_printf(m, "- %s: ", wperf_md_level(f));
		md_code_(m, f->vertex);
		md_printf(m, " %s the %s: in %zu of %zu runs, was %zu of %zu (p ",
			  f->worse ? "**joined**" : "left", f->sink ? "sinks" : "knots", f->seen,
			  f->runs, f->before_seen, f->before_runs);
		md_p(m, f->p);
		md_printf(m, ", q ");
		md_p(m, f->q);
		md_printf(m, ")");
		if (f->from) {
			md_printf(m, ", through ");
			md_code_(m, f->from);
			md_printf(m, " → ");
			md_code_(m, f->to);
		}
		md_printf(m, " — ");
		md_text_(m, f->note);
		md_end(m);
		md_sites(m, f);
		shown++;
	}
	if (!shown) {
		md_printf(m, "No vertex joined or left the bottleneck.");
		md_end(m);
	}
}

#define MD_INFO_EDGES 10 /* improvements and accepted edges shown; failures and warnings all */

static void md_edges(struct md *m, const struct wperf_verdict *v)
{
	size_t shown = 0, info = 0;

	md_printf(m, "\n#### Edges (share of the window: median of the runs, their range)");
	md_end(m);
	for (size_t i = 0; i < v->nfindings; i++) {
		const struct wperf_finding *f = &v->findings[i];

		if (f->kind != WPERF_FINDING_EDGE)
			continue;
		if (f->level == WPERF_LEVEL_INFO && info++ >= MD_INFO_EDGES)
			continue;
		if (!shown++) {
			md_printf(m, "\n| | edge | before | after | change | p | q | |");
			md_end(m);
			md_printf(m, "|---|---|---|---|---|---|---|---|");
			md_end(m);
		}
		md_printf(m, "| %s | ", wperf_md_level(f));
		md_code_(m, f->from);
		md_printf(m, " → ");
		md_code_(m, f->to);
		md_printf(m, " | ");
		md_share(m, f->before, f->before_lo, f->before_hi);
		md_printf(m, " | ");
		md_share(m, f->after, f->after_lo, f->after_hi);
		md_printf(m, " | %+.1f%% | ", f->change * 100);
		md_p(m, f->p);
		md_printf(m, " | ");
		md_p(m, f->q);
		md_printf(m, " | ");
		md_text_(m, f->note);
		md_printf(m, " |");
		md_end(m);
		md_sites(m, f);
	}
	if (!shown) {
		md_printf(m, "No edge changed beyond the warning level.");
		md_end(m);
	}
	if (info > MD_INFO_EDGES) {
		md_printf(m, "\n%zu more edges got lighter or are accepted.", info - MD_INFO_EDGES);
		md_end(m);
	}
}

/* A measure of the load: the throughput (metric NULL) or one of the other
 * metrics, its medians and its finding if any. */
static void md_measure(struct md *m, const struct wperf_verdict *v, const char *metric,
		       const char *unit, double before, double after)
{
	const struct wperf_finding *f = NULL;

	md_printf(m, "\n#### %s", metric ? "Metric " : "Throughput");
	if (metric)
		md_code_(m, metric);
	md_end(m);
	for (size_t i = 0; i < v->nfindings && !f; i++)
		if (metric ? v->findings[i].metric && !strcmp(v->findings[i].metric, metric)
			   : v->findings[i].kind == WPERF_FINDING_THROUGHPUT)
			f = &v->findings[i];
	if (isnan(before) || isnan(after)) {
		md_printf(m, "Not compared (see the warnings).");
		md_end(m);
		return;
	}
	md_printf(m, "%.6g → %.6g", before, after);
	if (unit[0]) {
		md_printf(m, " ");
		md_text_(m, unit);
	}
	md_printf(m, " (%+.1f%%, medians)", before ? (after - before) / fabs(before) * 100 : 0.0);
	if (f) {
		md_printf(m, ", runs %.6g–%.6g against %.6g–%.6g, p ", f->after_lo, f->after_hi,
			  f->before_lo, f->before_hi);
		md_p(m, f->p);
		md_printf(m, ": %s, ", wperf_md_level(f));
		md_text_(m, f->note);
	} else {
		md_printf(m, ": within the tolerance or the noise");
	}
	md_printf(m, ".");
	md_end(m);
}

int wperf_verdict_markdown(const struct wperf_verdict *v, size_t max_chars, struct wperf_buf *out)
{
	struct md m = {.out = out, .start = out->len};
	int ret;

	m.max = max_chars ? max_chars : WPERF_VERDICT_MD_MAX;
	if (m.max < 1000)
		m.max = 1000;
	/* The verdict line first: it is what a reader of the comment sees. */
	md_printf(&m, "### wperf-bench ");
	md_code_(&m, v->scenario ? v->scenario : "");
	md_printf(&m, ": **%s**", wperf_verdict_name(v->kind));
	md_end(&m);
	md_printf(&m, "\n%s. %zu runs against %s of %zu", verdict_sentence(v->kind), v->runs,
		  v->paired ? "the base's runs, interleaved," : "a baseline", v->baseline_runs);
	if (v->tests)
		md_printf(&m, "; %zu primary tests, held to %.2g together (Holm and Tarone)",
			  v->tests, v->alpha);
	if (!isnan(v->detectable))
		md_printf(&m, "; the runs could tell a throughput change of %.1f%%%s",
			  v->detectable * 100,
			  v->detectable > v->detect ? ", more than the one asked" : "");
	if (v->presence)
		md_printf(&m, "; a new vertex fails when in %zu of %zu runs", v->presence, v->runs);
	else
		md_printf(&m, "; no new vertex could fail with these runs");
	md_printf(&m, ".");
	md_end(&m);
	md_knots(&m, v);
	md_edges(&m, v);
	md_measure(&m, v, NULL, v->unit, v->throughput_before, v->throughput_after);
	for (size_t i = 0; i < v->nmetrics; i++)
		md_measure(&m, v, v->metrics[i].name, v->metrics[i].unit, v->metrics[i].before,
			   v->metrics[i].after);
	if (v->nwarnings) {
		md_printf(&m, "\n#### Warnings");
		md_end(&m);
	}
	for (size_t i = 0; i < v->nwarnings; i++) {
		md_printf(&m, "- ");
		md_text_(&m, v->warnings[i]);
		md_end(&m);
	}
	wperf_buf_release(&m.line);
	ret = m.ret;
	if (!ret && m.dropped)
		ret = wperf_buf_printf(out,
				       "\n_%zu more lines left out: this summary stops at %zu "
				       "characters. The full results are in the run's folder._\n",
				       m.dropped, m.max);
	if (ret)
		out->len = m.start;
	return ret ? -ENOMEM : 0;
}
