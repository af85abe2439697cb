/* SPDX-License-Identifier: MIT */
/*
 * The verdict for CI: JUnit XML, one testsuite per scenario with a testcase
 * for the bottlenecks, one for the throughput and one per other metric (named
 * by the metric), failed by a failing finding
 * and skipped when inconclusive. See verdict.h and verdict_text.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/gate/verdict.h"
#include "core/gate/verdict_text.h"

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
	case WPERF_FINDING_METRIC:
	case WPERF_FINDING_THROUGHPUT:
		unit = f->kind == WPERF_FINDING_METRIC ? (f->unit ? f->unit : "") : unit;
		ret = wperf_buf_printf(b, "%s %.6g -> %.6g%s%s (%+.1f%%)",
				       f->metric ? f->metric : "throughput", f->before, f->after,
				       unit[0] ? " " : "", unit, f->change * 100);
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

/* The testcase of finding f: "bottlenecks", "throughput" or its metric's name. */
static const char *case_of(const struct wperf_finding *f)
{
	if (f->kind == WPERF_FINDING_METRIC)
		return f->metric;
	return f->kind == WPERF_FINDING_THROUGHPUT ? "throughput" : "bottlenecks";
}

/* The testcases of v: the bottlenecks, the throughput, then each metric. */
static size_t cases(const struct wperf_verdict *v)
{
	return 2 + v->nmetrics;
}

static const char *case_name(const struct wperf_verdict *v, size_t t)
{
	return t == 0 ? "bottlenecks" : t == 1 ? "throughput" : v->metrics[t - 2].name;
}

static int junit_case(struct wperf_buf *b, const struct wperf_verdict *v, const char *name)
{
	const int throughput = strcmp(name, "bottlenecks") != 0; /* a measure of the load */
	struct wperf_buf lines = {0}, first = {0};
	size_t fails = 0, unsure = 0;
	const char *type = "regression";
	int ret = wperf_buf_printf(b, "    <testcase classname=\"wperf-bench.");

	ret = ret ? ret : wperf_xml_text(b, v->scenario ? v->scenario : "");
	ret = ret ? ret : wperf_buf_printf(b, "\" name=\"");
	ret = ret ? ret : wperf_xml_text(b, name);
	ret = ret ? ret : wperf_buf_printf(b, "\">\n");
	for (size_t i = 0; i < v->nfindings && !ret; i++) {
		const struct wperf_finding *f = &v->findings[i];

		if (strcmp(case_of(f), name))
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
	for (size_t t = 0; t < cases(v); t++) {
		int fail = 0, unsure = 0;

		for (size_t i = 0; i < v->nfindings; i++) {
			int in = !strcmp(case_of(&v->findings[i]), case_name(v, t));

			fail |= in && v->findings[i].level == WPERF_LEVEL_FAIL;
			unsure |= in && v->findings[i].inconclusive;
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
	size_t start = out->len, fails = 0, skipped = 0, nerrors = 0, tests = 0;
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
		tests += cases(v[i]);
	}
	ret = wperf_buf_printf(out,
			       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			       "<testsuites name=\"wperf-bench\" tests=\"%zu\" failures=\"%zu\" "
			       "errors=\"%zu\" skipped=\"%zu\">\n",
			       tests + nerrors, fails, nerrors, skipped);
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
				"\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
				"skipped=\"%zu\">\n    <properties>\n"
				"      <property name=\"verdict\" value=\"%s\"/>\n"
				"      <property name=\"runs\" value=\"%zu\"/>\n"
				"      <property name=\"baseline_runs\" value=\"%zu\"/>\n"
				"    </properties>\n",
				cases(v[i]), f, s, wperf_verdict_name(v[i]->kind), v[i]->runs,
				v[i]->baseline_runs);
		for (size_t t = 0; t < cases(v[i]) && !ret; t++)
			ret = junit_case(out, v[i], case_name(v[i], t));
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
