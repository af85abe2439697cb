/* SPDX-License-Identifier: MIT */
/*
 * What the report writers share: names, call-site lookup, knot selection.
 */
#include "report.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int wperf_report_scheduler_frame(const char *frame)
{
	static const char *const sched[] = {"bpf_prog_",	"bpf_trace_run", "__bpf_trace",
					    "__traceiter",	"__schedule",	 "schedule",
					    "preempt_schedule", "io_schedule"};

	for (size_t i = 0; i < sizeof(sched) / sizeof(*sched); i++)
		if (!strncmp(frame, sched[i], strlen(sched[i])))
			return 1;
	return 0;
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

/* Is tgid one of the pids of the list "PID[,PID...]"? */
static int pid_listed(const char *list, unsigned long tgid)
{
	for (const char *p = list; *p;) {
		char *end;
		unsigned long pid = strtoul(p, &end, 10);

		if (pid == tgid)
			return 1;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/* Is target a list of pids rather than a process name? */
static int is_pid_list(const char *target)
{
	return strspn(target, "0123456789,") == strlen(target) && isdigit((unsigned char)*target);
}

int wperf_report_is_target(const char *target, uint32_t tgid, const char *process)
{
	if (!target || !*target)
		return 1;
	return is_pid_list(target) ? pid_listed(target, tgid) : !strcmp(process, target);
}

int wperf_report_check_counts(const struct wperf_checks *c, size_t i, const char *target)
{
	const struct wperf_checks_line *l = &c->lines[i];

	return l->kind < WPERF_CHECK_THREAD_RUN || l->kind > WPERF_CHECK_THREAD_SLICES ||
	       wperf_report_is_target(target, l->tgid, l->process);
}

size_t wperf_report_checks_warnings(const struct wperf_checks *c, const char *target, size_t *ok)
{
	size_t warn = 0, counted = 0;

	for (size_t i = 0; i < c->n; i++)
		if (wperf_report_check_counts(c, i, target)) {
			counted++;
			warn += c->lines[i].status == WPERF_CHECK_WARN;
		}
	if (ok)
		*ok = counted - warn;
	return warn;
}

void wperf_report_mark_target(const struct wperf_analysis *a, const char *target, uint8_t *mark)
{
	const struct wperf_timeline *tl = a->timeline;

	for (uint32_t e = 0; e < tl->nentities; e++) {
		const struct wperf_entity *en = &tl->entities[e];

		if (en->kind == WPERF_ENTITY_THREAD &&
		    wperf_report_is_target(target, en->tgid, en->process))
			mark[a->merged.vertex_of[e]] = 1;
	}
}

int wperf_report_knot_wanted(const struct wperf_analysis *a, const struct wperf_knot *k,
			     const char *target)
{
	const struct wperf_graph *g = &a->knot_graph;
	uint32_t n = a->merged.nvertices;
	uint8_t *reached;
	uint32_t *queue;
	size_t head = 0, tail = 0;
	int wanted = 0;

	if (!target || !*target)
		return 1;
	/* What the target waits for, directly or not: its knots are the target's. */
	reached = calloc(n + 1, 1);
	queue = malloc((n + 1) * sizeof(*queue));
	if (!reached || !queue) {
		free(reached);
		free(queue);
		return 1; /* out of memory: better show too much than hide a knot */
	}
	wperf_report_mark_target(a, target, reached);
	for (uint32_t v = 0; v < n; v++)
		if (reached[v])
			queue[tail++] = v;
	while (head < tail) {
		size_t first, m;

		wperf_graph_out(g, queue[head++], &first, &m);
		for (size_t i = first; i < first + m; i++)
			if (!reached[g->edges[i].to]) {
				reached[g->edges[i].to] = 1;
				queue[tail++] = g->edges[i].to;
			}
	}
	for (size_t i = 0; i < k->nvertices && !wanted; i++)
		wanted = reached[k->vertices[i]];
	free(reached);
	free(queue);
	return wanted;
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
