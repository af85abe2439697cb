/* SPDX-License-Identifier: MIT */
/*
 * The bottom of a check's Markdown: text appended with its first error kept
 * (struct md), as code spans, plain text, HTML or identities. The summary
 * (check_report.c) and the findings (check_report_findings.c) write with it.
 */
#include <stdarg.h>

#include "core/gate/check_report_internal.h"
#include "core/gate/verdict_text.h"

void check_md_printf(struct md *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!m->ret)
		m->ret = wperf_buf_vprintf(&m->b, fmt, ap);
	va_end(ap);
}

void check_md_code(struct md *m, const char *s)
{
	if (!m->ret)
		m->ret = wperf_md_code(&m->b, s ? s : "");
}

void check_md_text(struct md *m, const char *s)
{
	if (!m->ret)
		m->ret = wperf_md_text(&m->b, s ? s : "");
}

void check_md_html(struct md *m, const char *s)
{
	if (!m->ret)
		m->ret = wperf_xml_text(&m->b, s ? s : "");
}

void check_md_ids(struct md *m, const struct wperf_idset *s)
{
	if (!m->ret)
		m->ret = wperf_markdown_ids(&m->b, s);
}
