/* SPDX-License-Identifier: MIT */
/*
 * What the writers of a whole check's Markdown share (check_report.c: the
 * summary, its table and details under the length cap, on top;
 * check_report_findings.c: the lines about findings; check_report_md.c: the
 * text they write with, at the bottom). Not a public API.
 */
#ifndef WPERF_CHECK_REPORT_INTERNAL_H
#define WPERF_CHECK_REPORT_INTERNAL_H

#include "core/util/buf.h"
#include "core/gate/check.h"

/* Text being made; the first error sticks and later calls do nothing. */
struct md {
	struct wperf_buf b;
	int ret;
};

/* ---- check_report_md.c ---- */
void check_md_printf(struct md *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s (NULL: "") as a Markdown code span that is safe in a table cell. */
void check_md_code(struct md *m, const char *s);
/* s (NULL: "") as plain Markdown text. */
void check_md_text(struct md *m, const char *s);
/* s (NULL: "") as HTML text. */
void check_md_html(struct md *m, const char *s);
/* The identities of s as code spans, comma-separated. */
void check_md_ids(struct md *m, const struct wperf_idset *s);

/* ---- check_report_findings.c ---- */
/* What a finding says, without its level, note or sites: for the table's
 * reason and the details. */
void check_finding_what(struct md *m, const struct wperf_finding *f, const char *unit);
/* A finding as a list item, with its level, p values and call sites. */
void check_finding_line(struct md *m, const struct wperf_finding *f, const char *unit);
/* The order of the details: failures, then changes for the worse, then the rest. */
int check_finding_class(const struct wperf_finding *f);
/* The finding the table's reason names: the first failure, else the first
 * change for the worse; NULL when none. */
const struct wperf_finding *check_main_finding(const struct wperf_verdict *v);

#endif /* WPERF_CHECK_REPORT_INTERNAL_H */
