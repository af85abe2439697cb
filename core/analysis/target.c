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
#include "core/util/pidlist.h"

/* Is tgid one of the pids of the list "PID[,PID...]" (a PID+ counts as PID)? */
static int pid_listed(const char *list, unsigned long tgid)
{
	uint32_t pid;

	while (wperf_pid_list_next(&list, &pid))
		if (pid == tgid)
			return 1;
	return 0;
}

/* Is target a list of pids rather than a process name? */
static int is_pid_list(const char *target)
{
	return strspn(target, "0123456789,+") == strlen(target) && isdigit((unsigned char)*target);
}

/* ---- a process and its descendants: PID+ ---- */

/* Is tgid in buf (uint32_t; NULL: empty)? */
static int has_tgid(const struct wperf_buf *buf, uint32_t tgid)
{
	const uint32_t *s = buf ? (const uint32_t *)buf->data : NULL;

	for (size_t i = 0; s && i < buf->len / sizeof(*s); i++)
		if (s[i] == tgid)
			return 1;
	return 0;
}

/* Appends tgid to buf unless it is there; 0 or -ENOMEM. */
static int add_tgid(struct wperf_buf *buf, uint32_t tgid)
{
	return has_tgid(buf, tgid) ? 0 : wperf_buf_append(buf, &tgid, sizeof(tgid));
}

/*
 * The tgids of target's PIDs into out, with each PID+'s descendants in tl: a
 * process whose parent (as the trace knew it when the process was made) is
 * the PID or one of its descendants, until a pass adds none (each goes a
 * generation deeper). A daemon that forked twice keeps its chain: its parent
 * is the one that made it, not the init it was handed to. No process of
 * elsewhere (uint32_t; NULL: none) joins through its parent.
 */
static int tree_tgids(const struct wperf_timeline *tl, const char *target,
		      const struct wperf_buf *elsewhere, struct wperf_buf *out)
{
	struct wperf_buf tree = {0}; /* uint32_t: whose children belong */
	size_t before;
	int e = 0;

	for (const char *p = target; *p && !e;) {
		char *end;
		uint32_t pid = (uint32_t)strtoul(p, &end, 10);

		e = add_tgid(out, pid);
		if (!e && *end == '+')
			e = add_tgid(&tree, pid);
		p = end + (*end == '+');
		p += *p == ',';
	}
	do {
		before = tree.len;
		for (uint32_t i = 0; i < tl->nentities && !e; i++) {
			const struct wperf_entity *en = &tl->entities[i];

			if (en->kind == WPERF_ENTITY_THREAD && en->ppid &&
			    has_tgid(&tree, en->ppid) && !has_tgid(&tree, en->tgid) &&
			    !has_tgid(elsewhere, en->tgid))
				e = add_tgid(&tree, en->tgid) ? -ENOMEM : add_tgid(out, en->tgid);
		}
	} while (!e && tree.len != before);
	wperf_buf_release(&tree);
	return e;
}

/* ---- a control group: cgroup:PATH ---- */

#define CGROUP_PREFIX "cgroup:"

/* Is the group at line (of the META cgroups) path or one below it? */
static int group_within(const char *line, size_t len, const char *path)
{
	size_t n = strlen(path);

	if (n > 1 && path[n - 1] == '/')
		n--; /* "/system.slice/" as "/system.slice" */
	return len >= n && !strncmp(line, path, n) &&
	       (len == n || line[n] == '/' || (n == 1 && path[0] == '/'));
}

/*
 * "P+,P+,..." for the processes of the group path and the groups below it in
 * cgroups (the META text: a line "PATH<TAB>PID[,PID...]" per group), into
 * list: each with the descendants born in the window, which a fork leaves in
 * its parent's group; the processes of the other groups into elsewhere
 * (uint32_t), which never join through a parent. Empty when none; 0 or
 * -ENOMEM.
 */
static int group_pids(const char *cgroups, const char *path, struct wperf_buf *list,
		      struct wperf_buf *elsewhere)
{
	for (const char *line = cgroups; line && *line;) {
		size_t len = strcspn(line, "\n"), plen = strcspn(line, "\t\n");
		char *pids = NULL;
		const char *p;
		uint32_t pid;
		int e = 0;

		int within = group_within(line, plen, path);

		if (line[plen] == '\t' && !(pids = strndup(line + plen + 1, len - plen - 1)))
			return -ENOMEM;
		for (p = pids; !e && wperf_pid_list_next(&p, &pid);)
			e = within ? wperf_buf_printf(list, "%s%u+", list->len ? "," : "", pid)
				   : add_tgid(elsewhere, pid);
		free(pids);
		if (e)
			return -ENOMEM;
		line += len + (line[len] == '\n');
	}
	return 0;
}

/* The error of a group with no process: its name and the closest groups. */
static int no_group(const char *cgroups, const char *path, struct wperf_error *err)
{
	struct wperf_buf names = {0}; /* const char *, each a copy */
	size_t closest[5], n = 0, len = 0;
	char list[WPERF_ERROR_MSG_LEN / 2] = "";
	int e = 0;

	for (const char *line = cgroups; line && *line && !e;) {
		size_t plen = strcspn(line, "\t\n"), llen = strcspn(line, "\n");
		char *name = strndup(line, plen);

		e = name ? wperf_buf_append(&names, &name, sizeof(name)) : -ENOMEM;
		if (e)
			free(name);
		line += llen + (line[llen] == '\n');
	}
	if (!e)
		n = wperf_closest(path, (const char *const *)names.data, names.len / sizeof(char *),
				  SIZE_MAX, closest, 5);
	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					((char *const *)names.data)[closest[i]]);
	for (size_t i = 0; i < names.len / sizeof(char *); i++)
		free(((char **)names.data)[i]);
	wperf_buf_release(&names);
	if (e)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	if (!cgroups || !*cgroups)
		return wperf_error_set(err, -ENOENT,
				       "target " CGROUP_PREFIX "%s: the trace has no control "
				       "groups (recorded before they were kept, or without cgroup "
				       "v2)",
				       path);
	return wperf_error_set(err, -ENOENT,
			       "target " CGROUP_PREFIX "%s: no process was in that control group "
			       "as the recording started; the closest groups: %s",
			       path, n ? list : "none");
}

int wperf_analysis_expand_target(const struct wperf_timeline *tl, const char *target,
				 const char *cgroups, char **out, struct wperf_error *err)
{
	struct wperf_buf set = {0}, text = {0}, groups = {0}, elsewhere = {0};
	const uint32_t *s;
	int e = 0;

	*out = NULL;
	if (target && !strncmp(target, CGROUP_PREFIX, strlen(CGROUP_PREFIX))) {
		e = group_pids(cgroups, target + strlen(CGROUP_PREFIX), &groups, &elsewhere);
		if (!e && !groups.len) {
			wperf_buf_release(&elsewhere);
			return no_group(cgroups, target + strlen(CGROUP_PREFIX), err);
		}
		e = e ? e : wperf_buf_append(&groups, "", 1);
		target = (const char *)groups.data;
	}
	if (!e && (!target || !is_pid_list(target) || !strchr(target, '+')))
		return 0;
	e = e ? e : tree_tgids(tl, target, &elsewhere, &set);
	s = (const uint32_t *)set.data;
	for (size_t i = 0; !e && i < set.len / sizeof(*s); i++)
		e = wperf_buf_printf(&text, "%s%u", i ? "," : "", s[i]);
	e = e ? e : wperf_buf_append(&text, "", 1);
	wperf_buf_release(&set);
	wperf_buf_release(&groups);
	wperf_buf_release(&elsewhere);
	if (e) {
		wperf_buf_release(&text);
		return wperf_error_set(err, -ENOMEM, "out of memory");
	}
	*out = (char *)text.data;
	return 0;
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
