/* SPDX-License-Identifier: MIT */
/*
 * Text escaped for Markdown and for XML or HTML (see verdict_text.h), and a
 * finding's level as Markdown, for the writers of a verdict and of a whole
 * check.
 */
#include <errno.h>
#include <string.h>

#include "core/gate/verdict_text.h"
#include "core/util/utf8.h"

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

const char *wperf_md_level(const struct wperf_finding *f)
{
	if (f->inconclusive)
		return "inconclusive";
	return f->level == WPERF_LEVEL_FAIL   ? "**fail**"
	       : f->level == WPERF_LEVEL_WARN ? "warn"
					      : "info";
}
