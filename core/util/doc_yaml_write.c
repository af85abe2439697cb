/* SPDX-License-Identifier: MIT */
/*
 * The kit's YAML writer (doc_yaml.h), over libyaml's emitter: strings quoted
 * only when they would read back as something else, numbers exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util/doc_yaml.h"

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	struct wperf_yaml_writer *w = data;

	if (wperf_buf_append(w->out, buffer, size) < 0) {
		w->nomem = 1;
		return 0;
	}
	return 1;
}

/* Would a plain scalar read back as something else than this string (a number,
 * a boolean, null) in YAML 1.1 or 1.2? Then it is written double-quoted. */
static int needs_quotes(const char *s)
{
	static const char *const words[] = {"y",   "n",	   "yes", "no",	  "true", "false", "on",
					    "off", "null", "~",	  ".nan", ".inf", "-.inf", "+.inf"};
	char *end;

	if (!*s || strchr("-?:,[]{}#&*!|>'\"%@` ", *s) || s[strlen(s) - 1] == ' ')
		return 1;
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcasecmp(s, words[i]))
			return 1;
	strtod(s, &end);
	return *end == '\0' || strspn(s, "0123456789_:.+-eExXoObB") == strlen(s);
}

/* Emits an event that init made (0: it could not, out of memory or a string
 * that is not UTF-8). yaml_emitter_emit frees the event, also when it fails. */
static void emit(struct wperf_yaml_writer *w, yaml_event_t *ev, int made)
{
	if (w->failed) {
		if (made)
			yaml_event_delete(ev);
		return;
	}
	if (!made || !yaml_emitter_emit(&w->e, ev))
		w->failed = w->nomem || w->e.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
}

static void scalar(struct wperf_yaml_writer *w, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (w->failed)
		return;
	emit(w, &ev,
	     yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
					  style));
}

int wperf_yaml_writer_init(struct wperf_yaml_writer *w, struct wperf_buf *out, int width)
{
	yaml_event_t ev;

	memset(w, 0, sizeof(*w));
	w->out = out;
	if (!yaml_emitter_initialize(&w->e))
		return w->failed = -ENOMEM;
	w->ready = 1;
	yaml_emitter_set_output(&w->e, write_handler, w);
	yaml_emitter_set_unicode(&w->e, 1);
	yaml_emitter_set_width(&w->e, width);
	emit(w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	emit(w, &ev, !w->failed && yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
	return w->failed;
}

int wperf_yaml_writer_finish(struct wperf_yaml_writer *w)
{
	yaml_event_t ev;

	emit(w, &ev, !w->failed && yaml_document_end_event_initialize(&ev, 1));
	emit(w, &ev, !w->failed && yaml_stream_end_event_initialize(&ev));
	if (!w->failed && !yaml_emitter_flush(&w->e))
		w->failed = -ENOMEM;
	if (w->nomem)
		w->failed = -ENOMEM;
	return w->failed;
}

void wperf_yaml_writer_release(struct wperf_yaml_writer *w)
{
	if (w->ready)
		yaml_emitter_delete(&w->e);
	w->ready = 0;
}

void wperf_yaml_write_key(struct wperf_yaml_writer *w, const char *k)
{
	scalar(w, k, YAML_PLAIN_SCALAR_STYLE);
}

void wperf_yaml_write_plain(struct wperf_yaml_writer *w, const char *s)
{
	scalar(w, s, YAML_PLAIN_SCALAR_STYLE);
}

void wperf_yaml_write_string(struct wperf_yaml_writer *w, const char *s)
{
	scalar(w, s, needs_quotes(s) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE);
}

void wperf_yaml_write_number(struct wperf_yaml_writer *w, double v)
{
	char text[WPERF_DOC_NUMBER_LEN];

	if (!isfinite(v)) {
		w->infinite = 1;
		w->failed = w->failed ? w->failed : -EINVAL;
		return;
	}
	wperf_doc_number_text(text, v);
	scalar(w, text, YAML_PLAIN_SCALAR_STYLE);
}

void wperf_yaml_write_count(struct wperf_yaml_writer *w, uint64_t v)
{
	char text[24];

	snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	scalar(w, text, YAML_PLAIN_SCALAR_STYLE);
}

/* The start (start) or end of a mapping (mapping) or a list, in flow or block style. */
static void collection(struct wperf_yaml_writer *w, int mapping, int start, int flow)
{
	yaml_event_t ev;
	int made;

	if (w->failed)
		return;
	if (mapping && start)
		made = yaml_mapping_start_event_initialize(
		    &ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	else if (start)
		made = yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							    flow ? YAML_FLOW_SEQUENCE_STYLE
								 : YAML_BLOCK_SEQUENCE_STYLE);
	else
		made = mapping ? yaml_mapping_end_event_initialize(&ev)
			       : yaml_sequence_end_event_initialize(&ev);
	emit(w, &ev, made);
}

void wperf_yaml_write_mapping(struct wperf_yaml_writer *w, int flow)
{
	collection(w, 1, 1, flow);
}

void wperf_yaml_write_mapping_end(struct wperf_yaml_writer *w)
{
	collection(w, 1, 0, 0);
}

void wperf_yaml_write_list(struct wperf_yaml_writer *w, int flow)
{
	collection(w, 0, 1, flow);
}

void wperf_yaml_write_list_end(struct wperf_yaml_writer *w)
{
	collection(w, 0, 0, 0);
}
