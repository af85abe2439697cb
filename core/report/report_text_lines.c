/* SPDX-License-Identifier: MIT */
/*
 * The bottom of the report for people: a line, a vertex's name, a share of
 * the window, a stack and the call sites behind an edge, which the verdict
 * (report_text.c), the waits (report_text_waits.c) and the checks
 * (report_text_checks.c) all write with.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/report/report_text_internal.h"

void text_put(struct text *t, const char *fmt, ...)
{
	char line[4096];
	va_list ap;

	if (t->err)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	t->err = wperf_buf_append(t->out, line, strlen(line));
}

const char *text_vname(const struct text *t, uint32_t v)
{
	return wperf_report_display(&t->o, t->a->merged.vertices[v].identity);
}

double text_pct(const struct text *t, uint64_t ns)
{
	return t->a->window ? 100.0 * (double)ns / (double)t->a->window : 0;
}

/* A stack, innermost first, without the scheduler's own frames. */
void text_stack(struct text *t, int32_t id, int user, uint32_t tgid, char *buf, size_t size)
{
	wperf_stack_brief(t->sym, id, user, tgid, t->o.frames, " <- ", buf, size);
}

/* One line of a call site: the share on the first, the rest indented under it. */
static void site_line(struct text *t, int *first, double share, const char *label,
		      const char *frames)
{
	if (*first)
		text_put(t, "        %3.0f%%  %-10s %s\n", share, label, frames);
	else
		text_put(t, "              %-10s %s\n", label, frames);
	*first = 0;
}

/* The line of one stack of a call site, when it has it (id >= 0). */
static void site_stack(struct text *t, int *first, double share, const char *label, int32_t id,
		       int user, uint32_t tgid)
{
	char stack[STACK_TEXT];

	if (id < 0)
		return;
	text_stack(t, id, user, tgid, stack, sizeof(stack));
	site_line(t, first, share, label, stack);
}

void text_edge_sites(struct text *t, const struct wperf_edge *ed)
{
	const struct wperf_vertex *from = &t->a->merged.vertices[ed->from];
	size_t first, n;

	if (from->kind != WPERF_ENTITY_THREAD) {
		/* wPerf 4.1: a device's idle time, split over the threads that used it. */
		text_put(t, "              the device idles, waiting for I/O from %s\n",
			 text_vname(t, ed->to));
		return;
	}
	wperf_callsites_of_edge(&t->a->merged.sites, ed->from, ed->to, &first, &n);
	for (size_t i = first; i < first + n && i < first + t->o.top_sites; i++) {
		const struct wperf_callsite *s = &t->a->merged.sites.sites[i];
		double share = ed->weight ? 100.0 * (double)s->weight / (double)ed->weight : 0;
		int line = 1;

		site_stack(t, &line, share, "blocked in", s->ustack, 1, s->waiter_tgid);
		site_stack(t, &line, share, "kernel", s->kstack, 0, 0);
		site_stack(t, &line, share, "woken from", s->waker_ustack, 1, s->waker_tgid);
		site_stack(t, &line, share, "waker kernel", s->waker_kstack, 0, 0);
		if (line)
			site_line(t, &line, share, "(no stacks)",
				  "recorded with --stacks none, or an "
				  "interrupt woke it");
	}
}
