/* SPDX-License-Identifier: MIT */
/*
 * What the report writers share: names, call-site lookup, knot selection.
 */
#include "core/report/report.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/cmp.h"

#define STACK_BRIEF_TEXT 8192 /* a stack's frames before they are cut short */

/* Does frame begin with one of the n prefixes? */
static int begins_with(const char *frame, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(frame, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* The recorder's own: its BPF program, "bpf_prog_TAG_NAME" (TAG: 16 hex digits,
 * not bpf_prog_free_deferred, a kernel function), and the tracepoint's glue
 * that ran it. */
static int recorder_frame(const char *frame)
{
	static const char *const glue[] = {"bpf_trace_run", "__bpf_trace_", "__traceiter_"};
	const char *tag = frame + strlen("bpf_prog_");

	if (!strncmp(frame, "bpf_prog_", strlen("bpf_prog_")) &&
	    strspn(tag, "0123456789abcdef") == 16 && tag[16] == '_')
		return 1;
	return begins_with(frame, glue, sizeof(glue) / sizeof(*glue));
}

int wperf_report_scheduler_frame(const char *frame)
{
	static const char *const sched[] = {"__schedule", "schedule", "preempt_schedule",
					    "io_schedule"};

	return recorder_frame(frame) || begins_with(frame, sched, sizeof(sched) / sizeof(*sched));
}

void wperf_report_stack(struct wperf_symbolizer *sym, int32_t id, int user, uint32_t tgid,
			char *buf, size_t size)
{
	char *p = buf;

	wperf_symbolize_stack(sym, id, user, tgid, "\n", 0, buf, size);
	/* Only a kernel stack has them, and only innermost: where the recorder took it. */
	while (!user && *p && recorder_frame(p)) {
		char *nl = strchr(p, '\n');

		p = nl ? nl + 1 : p + strlen(p);
	}
	memmove(buf, p, strlen(p) + 1);
}

void wperf_report_stack_brief(struct wperf_symbolizer *sym, int32_t id, int user, uint32_t tgid,
			      unsigned max_frames, const char *sep, char *buf, size_t size)
{
	char all[STACK_BRIEF_TEXT];
	const char *p = all;
	size_t len = 0;

	wperf_report_stack(sym, id, user, tgid, all, sizeof(all));
	while (!user && *p && wperf_report_scheduler_frame(p)) {
		const char *nl = strchr(p, '\n');

		p = nl ? nl + 1 : p + strlen(p);
	}
	buf[0] = '\0';
	for (unsigned f = 0; *p && len + 1 < size && (!max_frames || f < max_frames); f++) {
		size_t n = strcspn(p, "\n");

		len += (size_t)snprintf(buf + len, size - len, "%s%.*s", f ? sep : "", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

const char *wperf_report_display(const struct wperf_report_opts *opts, const char *identity)
{
	size_t len = strlen(identity);

	for (size_t i = 0; opts && i < opts->naliases; i++)
		if (!strncmp(opts->aliases[i], identity, len) && opts->aliases[i][len] == '=')
			return opts->aliases[i] + len + 1;
	return identity;
}

const char *wperf_vertex_kind_name(uint8_t kind)
{
	static const char *const names[] = {"thread", "disk", "nic", "irq"};

	return kind < sizeof(names) / sizeof(*names) ? names[kind] : "unknown";
}

void wperf_report_edge_sites(const struct wperf_analysis *a, uint32_t from, uint32_t to,
			     size_t *first, size_t *n)
{
	const struct wperf_callsite *s = a->merged.sites.sites;
	size_t lo = 0, hi = a->merged.sites.n;

	while (lo < hi) { /* the first site of (from, to) or later */
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].from < from || (s[mid].from == from && s[mid].to < to))
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	for (*n = 0; lo + *n < a->merged.sites.n && s[lo + *n].from == from && s[lo + *n].to == to;)
		(*n)++;
}

int wperf_report_check_counts(const struct wperf_checks *c, size_t i, const char *target)
{
	const struct wperf_checks_line *l = &c->lines[i];

	return l->kind < WPERF_CHECK_THREAD_RUN || l->kind > WPERF_CHECK_THREAD_SLICES ||
	       wperf_analysis_is_target(target, l->tgid, l->process);
}

/* The lines of c that pick (c, i, target) takes, and disagree; *ok: agree. */
static size_t count_warnings(const struct wperf_checks *c, const char *target, size_t *ok,
			     int (*pick)(const struct wperf_checks *, size_t, const char *))
{
	size_t warn = 0, counted = 0;

	for (size_t i = 0; i < c->n; i++)
		if (pick(c, i, target)) {
			counted++;
			warn += c->lines[i].status == WPERF_CHECK_WARN;
		}
	if (ok)
		*ok = counted - warn;
	return warn;
}

size_t wperf_report_checks_warnings(const struct wperf_checks *c, const char *target, size_t *ok)
{
	return count_warnings(c, target, ok, wperf_report_check_counts);
}

/* A device's line: what confirms the graph (report.h). */
static int confirms(const struct wperf_checks *c, size_t i, const char *target)
{
	const struct wperf_checks_line *l = &c->lines[i];

	(void)target; /* a device serves every process */
	return l->kind == WPERF_CHECK_DISK_BUSY || l->kind == WPERF_CHECK_NIC_TX ||
	       l->kind == WPERF_CHECK_NIC_RX;
}

size_t wperf_report_checks_confirming(const struct wperf_checks *c, size_t *ok)
{
	return count_warnings(c, NULL, ok, confirms);
}

const struct wperf_checks_line *wperf_report_checks_unconfirmed(const struct wperf_checks *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->lines[i].status == WPERF_CHECK_WARN && confirms(c, i, NULL))
			return &c->lines[i];
	return NULL;
}

int wperf_report_knot_wanted(const struct wperf_analysis *a, const struct wperf_knot *k,
			     const char *target)
{
	uint8_t *reached;
	int wanted = 0;

	if (!target || !*target)
		return 1;
	/* What the target waits for, directly or not: its knots are the target's. */
	reached = calloc(a->merged.nvertices + 1, 1);
	if (!reached || wperf_analysis_mark_reach(a, &a->knot_graph, target, reached) < 0) {
		free(reached);
		return 1; /* out of memory: better show too much than hide a knot */
	}
	for (size_t i = 0; i < k->nvertices && !wanted; i++)
		wanted = reached[k->vertices[i]];
	free(reached);
	return wanted;
}

uint32_t wperf_report_number_knots(const struct wperf_analysis *a, const char *target,
				   uint32_t *knot_of)
{
	uint32_t n = 0;

	memset(knot_of, 0, a->merged.nvertices * sizeof(*knot_of));
	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (k->kind != WPERF_KNOT || !wperf_report_knot_wanted(a, k, target))
			continue;
		n++;
		for (size_t j = 0; j < k->nvertices; j++)
			if (!knot_of[k->vertices[j]])
				knot_of[k->vertices[j]] = n;
	}
	return n;
}

int wperf_report_in_knot(const struct wperf_analysis *a, uint32_t v)
{
	for (size_t i = 0; i < a->knots.nfinal; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (k->kind != WPERF_KNOT)
			continue;
		for (size_t j = 0; j < k->nvertices; j++)
			if (k->vertices[j] == v)
				return 1;
	}
	return 0;
}

static int most_held_first(const void *pa, const void *pb)
{
	const struct wperf_timer_paced *a = pa, *b = pb;
	const uint64_t ka[] = {wperf_key_desc(a->held_ns), a->vertex};
	const uint64_t kb[] = {wperf_key_desc(b->held_ns), b->vertex};

	return wperf_cmp_keys(ka, kb, 2);
}

int wperf_report_waits_on(const struct wperf_analysis *a, const uint8_t *mine,
			  const struct wperf_edge *ed, uint32_t v)
{
	return ed->to == v && ed->from != v && mine[ed->from] &&
	       a->merged.vertices[ed->from].kind == WPERF_ENTITY_THREAD &&
	       ed->weight >= a->min_edge_ns;
}

/* Does a thread of mine wait for v (wperf_report_waits_on)? */
static int waited_by(const struct wperf_analysis *a, const uint8_t *mine, uint32_t v)
{
	for (size_t i = 0; i < a->merged.graph.nedges; i++)
		if (wperf_report_waits_on(a, mine, &a->merged.graph.edges[i], v))
			return 1;
	return 0;
}

/*
 * Cascaded re-distribution (wPerf Figure 4) adds to the edge v -> timer v's
 * own sleeps on timers and, for each wait of another thread on v (or on a
 * thread waiting for v, and so on), the part of it during which v slept on a
 * timer. The weight beyond v's own sleeps is so the waiting of others that
 * v's sleeps explain: a thread that paces the throughput has much, a heartbeat
 * thread or a main thread waiting for the end has none. An idle kernel worker
 * waiting for work from v adds to it too (a main thread that syncs its file
 * once wakes one), so v must also be waited for by the target's own threads,
 * as much as the knot search keeps: then it is on the target's path.
 */
int wperf_report_timer_paced(const struct wperf_analysis *a, const uint8_t *mine,
			     struct wperf_timer_paced **out, size_t *n)
{
	const struct wperf_timeline *tl = a->timeline;
	uint32_t timer;

	*out = NULL;
	*n = 0;
	if (tl->timer == WPERF_NO_ENTITY)
		return 0;
	timer = a->merged.vertex_of[tl->timer];
	for (uint32_t v = 0; v < a->merged.nvertices; v++) {
		const struct wperf_vertex *x = &a->merged.vertices[v];
		int64_t i = wperf_graph_find(&a->merged.graph, v, timer);
		uint64_t weight = i < 0 ? 0 : a->merged.graph.edges[i].weight;
		struct wperf_timer_paced *p;

		if (x->kind != WPERF_ENTITY_THREAD || weight <= x->timer_wait_ns ||
		    weight - x->timer_wait_ns < a->min_edge_ns || !waited_by(a, mine, v))
			continue;
		if (!(p = realloc(*out, (*n + 1) * sizeof(**out)))) {
			free(*out);
			*out = NULL;
			*n = 0;
			return -ENOMEM;
		}
		*out = p;
		p[(*n)++] = (struct wperf_timer_paced){.vertex = v,
						       .sleep_ns = x->timer_wait_ns,
						       .held_ns = weight - x->timer_wait_ns};
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), most_held_first);
	return 0;
}
