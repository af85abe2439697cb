/* SPDX-License-Identifier: MIT */
/*
 * What the verdict's writers (verdict_report.c, verdict_junit.c) share with
 * those of a whole check (check_report.c): text escaped for Markdown and for
 * XML or HTML and a finding's level (verdict_text.c), and the JUnit XML of
 * scenarios some of which could not run (verdict_junit.c).
 *
 * Every byte that is not valid UTF-8, every control character and U+FFFE and
 * U+FFFF become '?'. Each function that takes b appends to it and returns 0
 * or -ENOMEM.
 */
#ifndef WPERF_VERDICT_TEXT_H
#define WPERF_VERDICT_TEXT_H

#include "core/util/buf.h"
#include "core/gate/verdict.h"

/* `s` as a Markdown code span that is also safe in a table cell. */
int wperf_md_code(struct wperf_buf *b, const char *s);

/* s as plain Markdown text: nothing that starts markup or breaks a table. */
int wperf_md_text(struct wperf_buf *b, const char *s);

/* s as XML (or HTML) text or attribute value. */
int wperf_xml_text(struct wperf_buf *b, const char *s);

/* A finding's level as Markdown: "inconclusive", "**fail**", "warn" or "info". */
const char *wperf_md_level(const struct wperf_finding *f);

/* wperf_verdict_junit, where errors[i] (errors may be NULL), when not NULL,
 * says why scenario i (named by v[i]->scenario, the rest of v[i] unused)
 * could not run: a testsuite of one testcase in error. */
int wperf_verdict_junit_errors(const struct wperf_verdict *const *v, const char *const *errors,
			       size_t n, struct wperf_buf *out);

#endif /* WPERF_VERDICT_TEXT_H */
