/* SPDX-License-Identifier: MIT */
/*
 * What the writers of the report for people share (report_text.c: the
 * verdict, the knots and the CMetric, on top; report_text_waits.c: what is
 * not the bottleneck; report_text_checks.c: the checks; report_text_lines.c:
 * what they all write with, at the bottom). Not a public API.
 */
#ifndef WPERF_REPORT_TEXT_INTERNAL_H
#define WPERF_REPORT_TEXT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/report/report.h"

#define STACK_TEXT 2048

struct text {
	const struct wperf_analysis *a;
	struct wperf_symbolizer *sym;
	struct wperf_report_opts o;
	struct wperf_buf *out;
	/* per vertex: a thread of the target (every thread without one), and the
	 * target's vertices with all they wait for in the knot search's graph */
	uint8_t *mine, *reach;
	int err;
};

/* ---- report_text_lines.c ---- */
/* Appends a printf-formatted line (at most 4 KiB) to t->out; t->err on failure. */
void text_put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The name vertex v is shown by. */
const char *text_vname(const struct text *t, uint32_t v);
/* ns as a percentage of the window. */
double text_pct(const struct text *t, uint64_t ns);
/* A stack, innermost first, without the scheduler's own frames, at most
 * t->o.frames of them. */
void text_stack(struct text *t, int32_t id, int user, uint32_t tgid, char *buf, size_t size);
/* The call sites behind edge ed (or the device it waits for). */
void text_edge_sites(struct text *t, const struct wperf_edge *ed);

/* The plural ending for n things. */
static inline const char *text_plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* ---- report_text_waits.c ---- */
/* With no knot: the target's threads that may be busy waiting. */
void text_busy_hint(struct text *t);
/* The sinks the target waits for and its background knots; the others counted. */
void text_set_aside(struct text *t);
/* The longest waits of the target's threads outside the knots. */
void text_longest_waits(struct text *t);
/* The time the target's threads waited that no waker ended. */
void text_unexplained(struct text *t);
/* The threads the target waits for that timers pace. */
void text_timer_paced(struct text *t);

/* ---- report_text_checks.c ---- */
/* The checks of c, the target's threads (or the busiest without one). */
void text_checks(struct text *t, const struct wperf_checks *c, const char *target);

#endif /* WPERF_REPORT_TEXT_INTERNAL_H */
