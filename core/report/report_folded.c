/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks, the input format of FlameGraph's flamegraph.pl (the output of
 * its stackcollapse scripts) that speedscope also reads: one line per stack,
 * its frames root first joined by ';', a space, and a count, here microseconds
 * of wait-for weight.
 *
 * Every call site of every edge of the merged wait-for graph is a line in the
 * style of the off-CPU article's chain graphs: the waiter's stack where it
 * blocked at the bottom, a "--" frame, and above it the waker's stack where it
 * woke the waiter, reversed (its innermost frame lowest):
 *
 *   FROM->TO;waiter user root..leaf;waiter kernel root..leaf;--;waker kernel
 *   leaf..root;waker user leaf..root WEIGHT_US
 *
 * A part with no stack is left out, and so is "--" when the waker has no stack
 * (a device's completion, or stacks were off). Weight of an edge that no call
 * site accounts for (the virtual thread of short-lived threads waiting for its
 * creator) is a line "FROM->TO;[no_call_site]", so that each edge's lines sum
 * to its weight.
 *
 * Then the CMetric's critical slices (GAPP), per thread:
 *
 *   cmetric;VERTEX;user root..leaf;kernel root..leaf WEIGHT_US
 *
 * the stacks being where the slice ended: where the thread blocked.
 *
 * Frame text is made safe for the format: ';', spaces and control characters
 * become '_'. Counts are rounded so that the lines of one edge (or one thread's
 * slices) sum to its weight rounded to the microsecond; a line that rounds to 0
 * is left out (its weight is carried into the next line of its edge).
 */
#include "core/report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define STACK_TEXT 16384

struct folded {
	const struct wperf_analysis *a;
	struct wperf_symbolizer *sym;
	struct wperf_buf *out;
	struct wperf_buf line; /* the frames of the line being built */
	int err;
	/* rounding: ns of the current group so far, and µs written for it */
	uint64_t group_ns, group_us;
};

int wperf_folded_frame(struct wperf_buf *line, const char *text, size_t n)
{
	if ((line->len && wperf_buf_append(line, ";", 1) < 0) || wperf_buf_reserve(line, n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];

		line->data[line->len++] = c == ';' || c == ' ' || c < 0x20 || c == 0x7f ? '_' : c;
	}
	return 0;
}

/* Appends one frame to the line (nothing for an empty one). */
static void frame(struct folded *f, const char *text, size_t n)
{
	if (!f->err && n)
		f->err = wperf_folded_frame(&f->line, text, n);
}

static void frame_str(struct folded *f, const char *text)
{
	frame(f, text, strlen(text));
}

/*
 * Appends the frames of a stack: innermost first as the symbolizer gives them,
 * or root first (reversed). Nothing when there is no stack.
 */
static void stack(struct folded *f, int32_t id, int user, uint32_t tgid, int root_first)
{
	char text[STACK_TEXT];
	const char *end;

	if (id < 0)
		return;
	if (f->sym) {
		wperf_stack_text(f->sym, id, user, tgid, text, sizeof(text));
	} else {
		snprintf(text, sizeof(text), "[%s stack %" PRId32 "]", user ? "user" : "kernel",
			 id);
	}
	end = text + strlen(text);
	if (!root_first) {
		for (const char *p = text; p < end;) {
			size_t n = strcspn(p, "\n");

			frame(f, p, n);
			p += n + 1;
		}
		return;
	}
	/* from the last frame back to the first */
	for (const char *stop = end; stop > text;) {
		const char *p = stop;

		while (p > text && p[-1] != '\n')
			p--;
		frame(f, p, (size_t)(stop - p));
		stop = p > text ? p - 1 : text;
	}
}

/* Starts a group of lines whose counts must sum to the group's weight. */
static void group_start(struct folded *f)
{
	f->group_ns = f->group_us = 0;
}

/* Ends the line with its share ns of the group's weight, rounded. */
static void line_end(struct folded *f, uint64_t ns)
{
	uint64_t us;

	f->group_ns += ns;
	us = (f->group_ns + 500) / 1000 - f->group_us;
	if (!f->err && us > 0 && f->line.len) {
		f->err = wperf_buf_append(f->out, f->line.data, f->line.len);
		if (!f->err)
			f->err = wperf_buf_printf(f->out, " %" PRIu64 "\n", us);
		f->group_us += us;
	}
	wperf_buf_clear(&f->line);
}

/* The root frame of an edge's lines: "FROM->TO". */
static void edge_frame(struct folded *f, uint32_t from, uint32_t to)
{
	char root[2 * WPERF_IDENTITY_LEN + 3];

	snprintf(root, sizeof(root), "%s->%s", f->a->merged.vertices[from].identity,
		 f->a->merged.vertices[to].identity);
	frame_str(f, root);
}

static void edges(struct folded *f)
{
	const struct wperf_analysis *a = f->a;
	const struct wperf_graph *g = &a->merged.graph;

	for (size_t e = 0; e < g->nedges && !f->err; e++) {
		const struct wperf_edge *ed = &g->edges[e];
		uint64_t sites_ns = 0;
		size_t first, n;

		group_start(f);
		wperf_callsites_of_edge(&a->merged.sites, ed->from, ed->to, &first, &n);
		for (size_t i = first; i < first + n; i++) {
			const struct wperf_callsite *s = &a->merged.sites.sites[i];
			size_t waiter_end;

			edge_frame(f, ed->from, ed->to);
			stack(f, s->ustack, 1, s->waiter_tgid, 1);
			stack(f, s->kstack, 0, 0, 1);
			waiter_end = f->line.len;
			frame_str(f, "--");
			stack(f, s->waker_kstack, 0, 0, 0);
			stack(f, s->waker_ustack, 1, s->waker_tgid, 0);
			if (s->waker_kstack < 0 && s->waker_ustack < 0)
				f->line.len = waiter_end; /* no waker part: no "--" either */
			line_end(f, s->weight);
			sites_ns += s->weight;
		}
		if (ed->weight > sites_ns) {
			edge_frame(f, ed->from, ed->to);
			frame_str(f, "[no_call_site]");
			line_end(f, ed->weight - sites_ns);
		}
	}
}

static void cmetric(struct folded *f)
{
	const struct wperf_analysis *a = f->a;
	const struct wperf_callsites *c = &a->cmetric.critical;

	for (size_t i = 0; i < c->n && !f->err; i++) {
		const struct wperf_callsite *s = &c->sites[i];
		uint32_t v;

		if (s->from >= a->timeline->nentities)
			continue;
		if (i == 0 || s->from != c->sites[i - 1].from)
			group_start(f); /* sorted by entity: one group per thread */
		v = a->merged.vertex_of[s->from];
		frame_str(f, "cmetric");
		frame_str(f, a->merged.vertices[v].identity);
		stack(f, s->ustack, 1, s->waiter_tgid, 1);
		stack(f, s->kstack, 0, 0, 1);
		line_end(f, s->weight);
	}
}

int wperf_report_folded(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			const struct wperf_report_opts *opts, struct wperf_buf *out)
{
	struct folded f = {.a = a, .sym = sym, .out = out};

	(void)opts; /* every edge and every site: a flame graph shows the small ones small */
	edges(&f);
	cmetric(&f);
	wperf_buf_release(&f.line);
	return f.err ? -ENOMEM : 0;
}
