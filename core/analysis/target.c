/* SPDX-License-Identifier: MIT */
/*
 * The target (see analysis.h): which threads are its (a process name, or
 * pids "PID[,PID...]"), which vertices hold them, and what they wait for.
 * The analysis chooses its knot level on what the target reaches; the
 * writers and the gate keep the knots the target waits for.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/analysis.h"
#include "core/util/buf.h"
#include "core/util/closest.h"

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

int wperf_analysis_is_target(const char *target, uint32_t tgid, const char *process)
{
	if (!target || !*target)
		return 1;
	return is_pid_list(target) ? pid_listed(target, tgid) : !strcmp(process, target);
}

int wperf_analysis_in_target(const struct wperf_entity *en, const char *target)
{
	/* People name the program they start; its main thread may rename itself. */
	int by_exe =
	    target && *target && !is_pid_list(target) && en->exe[0] && !strcmp(en->exe, target);

	return en->kind == WPERF_ENTITY_THREAD &&
	       (by_exe || wperf_analysis_is_target(target, en->tgid, en->process));
}

/* Adds name to names (const char *) unless it is empty or there. */
static int add_name(struct wperf_buf *names, const char *name)
{
	const char *const *seen = (const char *const *)names->data;
	size_t n = names->len / sizeof(*seen), j = 0;

	while (*name && j < n && strcmp(seen[j], name))
		j++;
	return !*name || j < n ? 0 : wperf_buf_append(names, &name, sizeof(name));
}

/* The distinct process and program names of the timeline's threads, into
 * names (const char *, pointing into the timeline); 0 or -ENOMEM. */
static int process_names(const struct wperf_timeline *tl, struct wperf_buf *names)
{
	for (uint32_t i = 0; i < tl->nentities; i++) {
		const struct wperf_entity *en = &tl->entities[i];

		if (en->kind != WPERF_ENTITY_THREAD)
			continue;
		if (add_name(names, en->process) < 0 || add_name(names, en->exe) < 0)
			return -ENOMEM;
	}
	return 0;
}

#define TARGET_SUGGESTIONS 5

int wperf_analysis_check_target(const struct wperf_analysis *a, struct wperf_error *err)
{
	const struct wperf_timeline *tl = a->timeline;
	struct wperf_buf names = {0}; /* const char *: the trace's process names */
	size_t closest[TARGET_SUGGESTIONS], n = 0;
	char list[WPERF_ERROR_MSG_LEN / 2] = "";
	size_t len = 0;

	if (!a->target || !*a->target)
		return 0;
	for (uint32_t i = 0; i < tl->nentities; i++)
		if (wperf_analysis_in_target(&tl->entities[i], a->target))
			return 0;
	if (is_pid_list(a->target))
		return wperf_error_set(
		    err, -ENOENT, "target %s: no thread of these pids in the trace", a->target);
	if (process_names(tl, &names) < 0) {
		wperf_buf_release(&names);
		return wperf_error_set(err, -ENOMEM, "out of memory");
	}
	n = wperf_closest(a->target, (const char *const *)names.data,
			  names.len / sizeof(const char *), SIZE_MAX, closest, TARGET_SUGGESTIONS);
	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					((const char *const *)names.data)[closest[i]]);
	wperf_buf_release(&names);
	return wperf_error_set(err, -ENOENT,
			       "target '%s' is no process of the trace; the closest names: %s",
			       a->target, n ? list : "none (the trace has no thread)");
}

void wperf_analysis_mark_target(const struct wperf_analysis *a, const char *target, uint8_t *mark)
{
	const struct wperf_timeline *tl = a->timeline;

	for (uint32_t e = 0; e < tl->nentities; e++)
		if (wperf_analysis_in_target(&tl->entities[e], target))
			mark[a->merged.vertex_of[e]] = 1;
}

int wperf_analysis_mark_reach(const struct wperf_analysis *a, const struct wperf_graph *g,
			      const char *target, uint8_t *mark)
{
	uint32_t n = a->merged.nvertices;
	uint32_t *queue = malloc((n + 1) * sizeof(*queue));
	size_t head = 0, tail = 0;

	if (!queue)
		return -ENOMEM;
	wperf_analysis_mark_target(a, target, mark);
	for (uint32_t v = 0; v < n; v++)
		if (mark[v])
			queue[tail++] = v;
	while (head < tail) {
		size_t first, m;

		wperf_graph_out(g, queue[head++], &first, &m);
		for (size_t i = first; i < first + m; i++)
			if (!mark[g->edges[i].to]) {
				mark[g->edges[i].to] = 1;
				queue[tail++] = g->edges[i].to;
			}
	}
	free(queue);
	return 0;
}
