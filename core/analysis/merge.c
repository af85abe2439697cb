/* SPDX-License-Identifier: MIT */
#include "core/analysis/merge.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
#include "core/analysis/merge_internal.h"
#include "core/util/cmp.h"

#define TASKS_SUFFIX "+tasks"

/*
 * A kernel worker names itself "kworker/CPU:ID" (a per-CPU pool), with "H" for
 * the high-priority pool, or "kworker/uPOOL:ID" (an unbound pool, numbered
 * after the per-CPU pools: the number follows the CPU count); /proc adds the
 * workqueue it last ran ("kworker/u8:2-events_unbound", "+" while it runs
 * one), which changes as it works. Its pool, what stays, is the name up to that
 * suffix, with every number folded: "kworker/u#:#", "kworker/#:#H". The H stays:
 * high-priority work (kblockd's) is not the default pool's. A rescuer,
 * "kworker/R-kblockd", serves one workqueue and keeps its name.
 */
static int is_pool_worker(const char *name)
{
	return !strncmp(name, "kworker/", 8) && strncmp(name, "kworker/R-", 10);
}

void wperf_fold_name(const char *name, char *out, size_t size)
{
	int pool = is_pool_worker(name);
	size_t len = 0;

	if (!size)
		return;
	for (const char *p = name; *p && len + 1 < size; p++) {
		/* An instance number follows a separator (worker-12, SyncThread:0,
		 * kworker/0:1); digits inside a word are part of the name (fig1, jbd2),
		 * but for a kernel worker's pool (u8). */
		int starts_number = isdigit((unsigned char)*p) &&
				    (pool || p == name || !isalnum((unsigned char)p[-1]));

		if (pool && (*p == '-' || *p == '+'))
			break; /* the workqueue it last ran */
		if (starts_number) {
			out[len++] = '#';
			while (isdigit((unsigned char)p[1]))
				p++;
		} else {
			out[len++] = *p;
		}
	}
	out[len] = '\0';
}

/* "PROCESS/THREAD" folded, or just the folded name for a process's namesake
 * thread (and kernel threads, their own process); pseudo-threads by name. */
static void base_identity(const struct wperf_entity *e, char *out, size_t size)
{
	char proc[WPERF_IDENTITY_LEN], name[WPERF_IDENTITY_LEN];

	if (e->kind != WPERF_ENTITY_THREAD) {
		snprintf(out, size, "%s", e->name);
		return;
	}
	wperf_fold_name(e->process[0] ? e->process : e->name, proc, sizeof(proc));
	wperf_fold_name(e->name, name, sizeof(name));
	if (!strcmp(proc, name))
		snprintf(out, size, "%s", name);
	else
		snprintf(out, size, "%.39s/%.39s", proc, name);
}

static int by_identity(const void *a, const void *b)
{
	const struct merge_member *x = a, *y = b;
	int c = strcmp(x->identity, y->identity);

	return c ? c : wperf_cmp_u64(x->entity, y->entity);
}

/*
 * Every entity of the view with the identity of its vertex, sorted by it: a
 * short-lived thread has its virtual thread's, the creator's with "+tasks".
 * Returns 0, or a negative errno with err set.
 */
static int identities(const struct wperf_trace *t, const struct wperf_short_lived *sl,
		      const struct wperf_merge_opts *o, struct merge_member *m,
		      struct wperf_error *err)
{
	const struct wperf_timeline *tl = &sl->view;
	double similar = o && o->similar ? o->similar : WPERF_DEFAULT_SIMILAR;
	int e;

	for (uint32_t i = 0; i < tl->nentities; i++) {
		uint32_t v = sl->stand_in[i];
		const struct wperf_entity *en = &tl->entities[v];

		m[i].entity = i;
		base_identity(en, m[i].identity, sizeof(m[i].identity));
		if (wperf_is_virtual(sl, v))
			strncat(m[i].identity, TASKS_SUFFIX,
				sizeof(m[i].identity) - strlen(m[i].identity) - 1);
		else if (similar < 0 && en->kind == WPERF_ENTITY_THREAD)
			snprintf(m[i].identity + strnlen(m[i].identity, WPERF_IDENTITY_LEN - 12),
				 12, "~%u", en->tid); /* every thread on its own */
	}
	qsort(m, tl->nentities, sizeof(*m), by_identity);
	if (similar < 0)
		return 0;
	e = merge_split_unlike(t, sl, m, tl->nentities, similar, err);
	qsort(m, tl->nentities, sizeof(*m), by_identity);
	return e;
}

/* Starts a vertex for the members that share m's identity. */
static int new_vertex(struct wperf_buf *vertices, const struct merge_member *m,
		      const struct wperf_entity *en)
{
	struct wperf_vertex v = {.kind = en->kind, .first_tid = en->tid};
	size_t len = strlen(TASKS_SUFFIX), n = strlen(m->identity);

	snprintf(v.identity, sizeof(v.identity), "%s", m->identity);
	v.short_lived = n > len && !strcmp(m->identity + n - len, TASKS_SUFFIX);
	return wperf_buf_append(vertices, &v, sizeof(v));
}

/* The vertices of the members m (sorted by identity), and vertex_of. */
static int build_vertices(const struct wperf_short_lived *sl, const struct merge_member *m,
			  struct wperf_merged *out)
{
	const struct wperf_timeline *tl = &sl->view;
	struct wperf_buf vertices = {0};
	double window = (double)(tl->end > tl->start ? tl->end - tl->start : 1);

	for (size_t i = 0; i < tl->nentities; i++) {
		const struct wperf_entity *en = &tl->entities[m[i].entity];
		struct wperf_vertex *v;

		if ((!i || strcmp(m[i].identity, m[i - 1].identity)) &&
		    new_vertex(&vertices, &m[i], en) < 0) {
			wperf_buf_release(&vertices);
			return -ENOMEM;
		}
		v = (struct wperf_vertex *)(void *)(vertices.data + vertices.len) - 1;
		out->vertex_of[m[i].entity] = vertices.len / sizeof(*v) - 1;
		/* a thread counts as a member; its time, or its virtual thread's */
		v->nmembers += !wperf_is_virtual(sl, m[i].entity);
		if (sl->stand_in[m[i].entity] != m[i].entity)
			continue;
		v->running_ns += en->running_ns;
		v->runnable_ns += en->runnable_ns;
		v->waiting_ns += en->waiting_ns;
		v->no_waker_ns += en->no_waker_ns;
		v->unfinished_ns += en->unfinished_ns;
		v->timer_wait_ns += en->timer_wait_ns;
		v->cpu = (double)v->running_ns / window;
	}
	out->vertices = (struct wperf_vertex *)(void *)vertices.data;
	out->nvertices = vertices.len / sizeof(struct wperf_vertex);
	return 0;
}

int wperf_merge(const struct wperf_trace *t, const struct wperf_short_lived *sl,
		const struct wperf_graph *entity_graph, const struct wperf_callsites *entity_sites,
		const struct wperf_merge_opts *opts, struct wperf_merged *out,
		struct wperf_error *err)
{
	size_t n = sl->view.nentities;
	struct merge_member *m = calloc(n + 1, sizeof(*m));
	int e = 0, reported = 0;

	memset(out, 0, sizeof(*out));
	out->vertex_of = calloc(n + 1, sizeof(*out->vertex_of));
	if (!m || !out->vertex_of)
		e = -ENOMEM;
	if (!e)
		reported = (e = identities(t, sl, opts, m, err)) != 0;
	if (!e && build_vertices(sl, m, out) < 0)
		e = -ENOMEM;
	if (!e)
		e = wperf_graph_init(&out->graph, out->nvertices);
	for (size_t i = 0; i < entity_graph->nedges && !e; i++) {
		const struct wperf_edge *ed = &entity_graph->edges[i];

		e = wperf_graph_add(&out->graph, out->vertex_of[ed->from], out->vertex_of[ed->to],
				    ed->weight);
	}
	for (size_t i = 0; i < entity_sites->n && !e; i++) {
		struct wperf_callsite key = entity_sites->sites[i];

		key.from = out->vertex_of[key.from];
		key.to = out->vertex_of[key.to];
		e = wperf_callsites_add(&out->sites, &key, key.weight);
	}
	free(m);
	if (e) {
		wperf_merged_release(out);
		return reported ? e : wperf_error_set(err, e, "merging threads: out of memory");
	}
	wperf_graph_finish(&out->graph);
	wperf_callsites_finish(&out->sites);
	return 0;
}

void wperf_merged_release(struct wperf_merged *m)
{
	free(m->vertices);
	free(m->vertex_of);
	wperf_graph_release(&m->graph);
	wperf_callsites_release(&m->sites);
	memset(m, 0, sizeof(*m));
}
