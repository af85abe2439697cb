/* SPDX-License-Identifier: MIT */
/*
 * The verdict for people (a Markdown summary, for a pull-request comment or a
 * CI job summary) and for CI (JUnit XML). See verdict.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/gate/verdict.h"
#include "core/gate/verdict_text.h"

/* ---- text pieces ---- */

/* A character to write otherwise, in a table ending with {0, NULL}. */
struct escape {
	char c;
	const char *as;
};

/* Markdown code spans in tables: a backquote would end the span, a bar the cell. */
static const struct escape md_code_escapes[] = {
    {'`', "'"},
    {'|', "\\|"},
    {0, NULL},
};

/* Plain Markdown text: nothing that starts markup or breaks a table. */
static const struct escape md_text_escapes[] = {
    {'|', "\\|"}, {'<', "&lt;"}, {'>', "&gt;"}, {'*', "\\*"},
    {'_', "\\_"}, {'`', "'"},	 {'[', "\\["},	{0, NULL},
};

/* XML text and attribute values (newlines and tabs kept in attributes too). */
static const struct escape xml_escapes[] = {
    {'&', "&amp;"},   {'<', "&lt;"},   {'>', "&gt;"},  {'"', "&quot;"},
    {'\'', "&apos;"}, {'\n', "&#10;"}, {'\t', "&#9;"}, {0, NULL},
};

/*
 * Appends s with the characters of esc replaced; every byte that is not part of
 * valid UTF-8, every other control character and U+FFFE and U+FFFF (not
 * characters; XML rejects them) become '?'.
 */
static int append_clean(struct wperf_buf *b, const char *s, const struct escape *esc)
{
	int ret = 0;

	while (*s && !ret) {
		size_t len = wperf_utf8_seq(s);
		const char *as = NULL;

		for (size_t i = 0; esc[i].as && len == 1 && !as; i++)
			if (*s == esc[i].c)
				as = esc[i].as;
		if (len == 3 && !memcmp(s, "\xef\xbf", 2) && ((unsigned char)s[2] & 0xfe) == 0xbe)
			len = 0;
		if (len == 0) {
			ret = wperf_buf_append(b, "?", 1);
			len = 1;
		} else if (as) {
			ret = wperf_buf_append(b, as, strlen(as));
		} else if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			ret = wperf_buf_append(b, "?", 1);
		} else {
			ret = wperf_buf_append(b, s, len);
		}
		s += len;
	}
	return ret;
}

int wperf_md_code(struct wperf_buf *b, const char *s)
{
	return wperf_buf_append(b, "`", 1) || append_clean(b, s, md_code_escapes) ||
		       wperf_buf_append(b, "`", 1)
		   ? -ENOMEM
		   : 0;
}

int wperf_md_text(struct wperf_buf *b, const char *s)
{
	return append_clean(b, s, md_text_escapes) ? -ENOMEM : 0;
}

int wperf_xml_text(struct wperf_buf *b, const char *s)
{
	return append_clean(b, s, xml_escapes) ? -ENOMEM : 0;
}

int wperf_markdown_ids(struct wperf_buf *b, const struct wperf_idset *s)
{
	int ret = 0;

	for (size_t i = 0; i < s->n && !ret; i++)
		ret = (i ? wperf_buf_append(b, ", ", 2) : 0) || wperf_md_code(b, s->ids[i]);
	return ret ? -ENOMEM : 0;
}

/* ---- Markdown, with a cap on its length ---- */

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
		return "No vertex joined the bottleneck, and no edge or throughput is worse beyond "
		       "the tolerance and the noise";
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

static const char *level_name(const struct wperf_finding *f)
{
	if (f->inconclusive)
		return "inconclusive";
	return f->level == WPERF_LEVEL_FAIL   ? "**fail**"
	       : f->level == WPERF_LEVEL_WARN ? "warn"
					      : "info";
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
			md_printf(m, "- %s: ", level_name(f));
			md_text_(m, f->note);
			md_end(m);
			shown++;
			continue;
		}
		if (f->kind != WPERF_FINDING_VERTEX)
			continue;
		md_printf(m, "- %s: ", level_name(f));
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
		md_printf(m, "| %s | ", level_name(f));
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

static void md_throughput(struct md *m, const struct wperf_verdict *v)
{
	const struct wperf_finding *f = NULL;

	md_printf(m, "\n#### Throughput");
	md_end(m);
	for (size_t i = 0; i < v->nfindings && !f; i++)
		if (v->findings[i].kind == WPERF_FINDING_THROUGHPUT)
			f = &v->findings[i];
	if (isnan(v->throughput_before) || isnan(v->throughput_after)) {
		md_printf(m, "Not compared (see the warnings).");
		md_end(m);
		return;
	}
	md_printf(m, "%.6g → %.6g", v->throughput_before, v->throughput_after);
	if (v->unit[0]) {
		md_printf(m, " ");
		md_text_(m, v->unit);
	}
	md_printf(m, " (%+.1f%%, medians)",
		  v->throughput_before ? (v->throughput_after - v->throughput_before) /
					     fabs(v->throughput_before) * 100
				       : 0.0);
	if (f) {
		md_printf(m, ", runs %.6g–%.6g against %.6g–%.6g, p ", f->after_lo, f->after_hi,
			  f->before_lo, f->before_hi);
		md_p(m, f->p);
		md_printf(m, ": %s, ", level_name(f));
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
		md_printf(&m, "; %zu tests, each held to %.2g (Benjamini-Hochberg)", v->tests,
			  v->alpha);
	if (!isnan(v->detectable))
		md_printf(&m, "; the runs could tell a throughput change of %.1f%%",
			  v->detectable * 100);
	md_printf(&m, ".");
	md_end(&m);
	md_knots(&m, v);
	md_edges(&m, v);
	md_throughput(&m, v);
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

/* ---- JUnit XML ---- */

/* One line about a finding, for failure messages and system-out. */
static int finding_line(struct wperf_buf *b, const struct wperf_finding *f, const char *unit)
{
	int ret = 0;

	switch (f->kind) {
	case WPERF_FINDING_NEW_KNOT:
	case WPERF_FINDING_KNOT_GONE:
		ret = wperf_buf_printf(b, "%s knot {",
				       f->kind == WPERF_FINDING_NEW_KNOT ? "new" : "gone");
		for (size_t i = 0; i < f->knot.n && !ret; i++)
			ret = wperf_buf_printf(b, "%s%s", i ? ", " : "", f->knot.ids[i]);
		ret = ret ? ret : wperf_buf_printf(b, "} in %zu of %zu runs", f->seen, f->runs);
		break;
	case WPERF_FINDING_EDGE:
		ret = wperf_buf_printf(b, "edge %s -> %s: %.1f%% -> %.1f%% of the window (%+.1f%%)",
				       f->from, f->to, f->before * 100, f->after * 100,
				       f->change * 100);
		break;
	case WPERF_FINDING_THROUGHPUT:
		ret = wperf_buf_printf(b, "throughput %.6g -> %.6g%s%s (%+.1f%%)", f->before,
				       f->after, unit[0] ? " " : "", unit, f->change * 100);
		break;
	case WPERF_FINDING_VERTEX:
		ret = wperf_buf_printf(b, "%s %s the %s in %zu of %zu runs (was %zu of %zu)",
				       f->vertex ? f->vertex : "?", f->worse ? "joined" : "left",
				       f->sink ? "sinks" : "knots", f->seen, f->runs,
				       f->before_seen, f->before_runs);
		if (!ret && f->from && f->to)
			ret = wperf_buf_printf(b, ", through %s -> %s", f->from, f->to);
		break;
	case WPERF_FINDING_EXPECTATION:
		ret = wperf_buf_printf(b, "the expected answer missed in %zu of %zu runs", f->seen,
				       f->runs);
		break;
	}
	if (!ret && !isnan(f->p))
		ret = wperf_buf_printf(b, ", p %.3g", f->p);
	if (!ret && f->note)
		ret = wperf_buf_printf(b, ": %s", f->note);
	return ret;
}

/* "N of M runs lost too many events" or "... disagree with the kernel's counters",
 * NUL-terminated, into b. */
static int untrusted_line(struct wperf_buf *b, const struct wperf_verdict *v)
{
	wperf_buf_clear(b);
	if (v->lossy_runs)
		return wperf_buf_printf(b, "%zu of %zu runs lost too many events to be trusted",
					v->lossy_runs, v->runs) ||
		       wperf_buf_append(b, "", 1);
	return wperf_buf_printf(b, "%zu runs disagree with the kernel's own counters",
				v->unconfirmed_runs) ||
	       wperf_buf_append(b, "", 1);
}

/* Is finding f about the testcase (0: bottlenecks, 1: throughput)? */
static int in_case(const struct wperf_finding *f, int throughput)
{
	return (f->kind == WPERF_FINDING_THROUGHPUT) == throughput;
}

static int junit_case(struct wperf_buf *b, const struct wperf_verdict *v, int throughput)
{
	const char *name = throughput ? "throughput" : "bottlenecks";
	struct wperf_buf lines = {0}, first = {0};
	size_t fails = 0, unsure = 0;
	const char *type = "regression";
	int ret = wperf_buf_printf(b, "    <testcase classname=\"wperf-bench.");

	ret = ret ? ret : wperf_xml_text(b, v->scenario ? v->scenario : "");
	ret = ret ? ret : wperf_buf_printf(b, "\" name=\"%s\">\n", name);
	for (size_t i = 0; i < v->nfindings && !ret; i++) {
		const struct wperf_finding *f = &v->findings[i];

		if (!in_case(f, throughput))
			continue;
		/* The message: the first failure, else the first inconclusive finding. */
		if (f->level == WPERF_LEVEL_FAIL) {
			if (fails++ == 0) {
				if (f->kind == WPERF_FINDING_NEW_KNOT ||
				    f->kind == WPERF_FINDING_VERTEX)
					type = "new-bottleneck";
				wperf_buf_clear(&first);
				ret = finding_line(&first, f, v->unit) ||
				      wperf_buf_append(&first, "", 1);
			}
			ret = ret || finding_line(&lines, f, v->unit) ||
			      wperf_buf_append(&lines, "\n", 1);
		} else if (f->inconclusive && unsure++ == 0 && !fails) {
			wperf_buf_clear(&first);
			ret = finding_line(&first, f, v->unit) || wperf_buf_append(&first, "", 1);
		}
	}
	ret = ret ? ret : wperf_buf_append(&lines, "", 1);
	if (!ret && fails) {
		ret = wperf_buf_printf(b, "      <failure type=\"%s\" message=\"", type);
		ret = ret ? ret : wperf_xml_text(b, (const char *)first.data);
		ret = ret ? ret : wperf_buf_printf(b, "\">");
		ret = ret ? ret : wperf_xml_text(b, (const char *)lines.data);
		ret = ret ? ret : wperf_buf_printf(b, "</failure>\n");
	} else if (!ret && (unsure || (!throughput && wperf_verdict_untrusted(v)))) {
		/* Runs with too many lost events, or graphs the kernel contradicts,
		 * cannot vouch for the bottlenecks. */
		if (!unsure)
			ret = untrusted_line(&first, v);
		ret = ret ? ret : wperf_buf_printf(b, "      <skipped message=\"inconclusive: ");
		ret = ret ? ret : wperf_xml_text(b, (const char *)first.data);
		ret = ret ? ret : wperf_buf_printf(b, "\"/>\n");
	}
	ret = ret ? ret : wperf_buf_printf(b, "    </testcase>\n");
	wperf_buf_release(&lines);
	wperf_buf_release(&first);
	return ret ? -ENOMEM : 0;
}

/* Warnings and warn-level findings, for people reading the CI log. */
static int junit_out(struct wperf_buf *b, const struct wperf_verdict *v)
{
	struct wperf_buf text = {0};
	int ret = 0;

	for (size_t i = 0; i < v->nwarnings && !ret; i++)
		ret = wperf_buf_printf(&text, "warning: %s\n", v->warnings[i]);
	for (size_t i = 0; i < v->nfindings && !ret; i++) {
		const struct wperf_finding *f = &v->findings[i];

		if (f->level == WPERF_LEVEL_FAIL)
			continue;
		ret = wperf_buf_printf(&text, "%s: ",
				       f->inconclusive		      ? "inconclusive"
				       : f->level == WPERF_LEVEL_WARN ? "warn"
								      : "info");
		ret = ret ? ret : finding_line(&text, f, v->unit);
		ret = ret ? ret : wperf_buf_append(&text, "\n", 1);
	}
	if (!ret && text.len) {
		ret = wperf_buf_append(&text, "", 1) || wperf_buf_printf(b, "    <system-out>") ||
		      wperf_xml_text(b, (const char *)text.data) ||
		      wperf_buf_printf(b, "</system-out>\n");
	}
	wperf_buf_release(&text);
	return ret ? -ENOMEM : 0;
}

/* How many testcases of v fail and are skipped (inconclusive). */
static void junit_counts(const struct wperf_verdict *v, size_t *fails, size_t *skipped)
{
	*fails = *skipped = 0;
	for (int t = 0; t < 2; t++) {
		int fail = 0, unsure = 0;

		for (size_t i = 0; i < v->nfindings; i++) {
			fail |=
			    in_case(&v->findings[i], t) && v->findings[i].level == WPERF_LEVEL_FAIL;
			unsure |= in_case(&v->findings[i], t) && v->findings[i].inconclusive;
		}
		*fails += fail;
		*skipped += !fail && (unsure || (t == 0 && wperf_verdict_untrusted(v)));
	}
}

/* A scenario that could not run: one testcase, in error, with why. */
static int junit_error(struct wperf_buf *b, const char *scenario, const char *why)
{
	int ret = wperf_buf_printf(b, "  <testsuite name=\"");

	ret = ret ? ret : wperf_xml_text(b, scenario);
	ret = ret ? ret
		  : wperf_buf_printf(b, "\" tests=\"1\" failures=\"0\" errors=\"1\" "
					"skipped=\"0\">\n    <testcase classname=\"wperf-bench.");
	ret = ret ? ret : wperf_xml_text(b, scenario);
	ret = ret ? ret : wperf_buf_printf(b, "\" name=\"run\">\n      <error message=\"");
	ret = ret ? ret : wperf_xml_text(b, why);
	return ret ? ret : wperf_buf_printf(b, "\"/>\n    </testcase>\n  </testsuite>\n");
}

int wperf_verdict_junit_errors(const struct wperf_verdict *const *v, const char *const *errors,
			       size_t n, struct wperf_buf *out)
{
	size_t start = out->len, fails = 0, skipped = 0, nerrors = 0;
	int ret;

	for (size_t i = 0; i < n; i++) {
		size_t f, s;

		if (errors && errors[i]) {
			nerrors++;
			continue;
		}
		junit_counts(v[i], &f, &s);
		fails += f;
		skipped += s;
	}
	ret = wperf_buf_printf(out,
			       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			       "<testsuites name=\"wperf-bench\" tests=\"%zu\" failures=\"%zu\" "
			       "errors=\"%zu\" skipped=\"%zu\">\n",
			       2 * (n - nerrors) + nerrors, fails, nerrors, skipped);
	for (size_t i = 0; i < n && !ret; i++) {
		size_t f, s;

		if (errors && errors[i]) {
			ret = junit_error(out, v[i]->scenario ? v[i]->scenario : "", errors[i]);
			continue;
		}
		junit_counts(v[i], &f, &s);
		ret = wperf_buf_printf(out, "  <testsuite name=\"");
		ret = ret ? ret : wperf_xml_text(out, v[i]->scenario ? v[i]->scenario : "");
		ret = ret ? ret
			  : wperf_buf_printf(
				out,
				"\" tests=\"2\" failures=\"%zu\" errors=\"0\" "
				"skipped=\"%zu\">\n    <properties>\n"
				"      <property name=\"verdict\" value=\"%s\"/>\n"
				"      <property name=\"runs\" value=\"%zu\"/>\n"
				"      <property name=\"baseline_runs\" value=\"%zu\"/>\n"
				"    </properties>\n",
				f, s, wperf_verdict_name(v[i]->kind), v[i]->runs,
				v[i]->baseline_runs);
		ret = ret ? ret : junit_case(out, v[i], 0);
		ret = ret ? ret : junit_case(out, v[i], 1);
		ret = ret ? ret : junit_out(out, v[i]);
		ret = ret ? ret : wperf_buf_printf(out, "  </testsuite>\n");
	}
	ret = ret ? ret : wperf_buf_printf(out, "</testsuites>\n");
	if (ret)
		out->len = start;
	return ret ? -ENOMEM : 0;
}

int wperf_verdict_junit(const struct wperf_verdict *const *v, size_t n, struct wperf_buf *out)
{
	return wperf_verdict_junit_errors(v, NULL, n, out);
}
