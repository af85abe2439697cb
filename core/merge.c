/* SPDX-License-Identifier: MIT */
#include "merge.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "idmap.h"

#define DEFAULT_SHORT_LIVED 0.5
#define TASKS_SUFFIX	    "+tasks"

void wperf_fold_name(const char *name, char *out, size_t size)
{
	size_t len = 0;

	if (!size)
		return;
	for (const char *p = name; *p && len + 1 < size; p++) {
		/* An instance number follows a separator (worker-12, SyncThread:0,
		 * kworker/0:1); digits inside a word are part of the name (fig1, jbd2). */
		int starts_number =
		    isdigit((unsigned char)*p) && (p == name || !isalnum((unsigned char)p[-1]));

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

/*
 * The folded name of a thread or process. A kernel worker renames itself after
 * the workqueue it last ran ("kworker/u8:2-events_unbound"): its pool, what
 * stays, is the name up to that suffix.
 */
static void fold(const char *name, char *out, size_t size)
{
	char pool[WPERF_IDENTITY_LEN];
	const char *dash = strchr(name, '-');

	if (!strncmp(name, "kworker/", 8) && dash) {
		snprintf(pool, sizeof(pool), "%.*s", (int)(dash - name), name);
		name = pool;
	}
	wperf_fold_name(name, out, size);
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
	fold(e->process[0] ? e->process : e->name, proc, sizeof(proc));
	fold(e->name, name, sizeof(name));
	if (!strcmp(proc, name))
		snprintf(out, size, "%s", name);
	else
		snprintf(out, size, "%.39s/%.39s", proc, name);
}

static int is_short_lived(const struct wperf_timeline *tl, const struct wperf_entity *e,
			  double fraction)
{
	return e->kind == WPERF_ENTITY_THREAD && fraction > 0 && e->creator != 0 &&
	       e->born > tl->start && e->died < tl->end &&
	       (double)(e->died - e->born) < fraction * (double)(tl->end - tl->start);
}

static int by_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* An entity, its identity, and the similarity group it falls in. */
struct member {
	uint32_t entity;
	uint32_t group; /* 0, or n for the n-th group of unlike stacks with this identity */
	char identity[WPERF_IDENTITY_LEN];
};

static int by_identity(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->identity, y->identity);

	if (c)
		return c;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->entity > y->entity) - (x->entity < y->entity);
}

/* A thread's blocking stacks, weighted by how long it waited in each. */
struct stack_weight {
	int32_t kstack;
	double weight;
};

static int by_stack(const void *a, const void *b)
{
	const struct stack_weight *x = a, *y = b;

	return (x->kstack > y->kstack) - (x->kstack < y->kstack);
}

static int stack_profile(const struct wperf_timeline *tl, uint32_t e, struct wperf_buf *out)
{
	size_t n, len = 0;
	const struct wperf_segment *s = wperf_timeline_segments(tl, e, &n);
	struct stack_weight *w;

	wperf_buf_clear(out);
	for (size_t i = 0; i < n; i++) {
		struct stack_weight sw = {
		    wperf_segment_stacks(tl, &s[i])->kstack,
		    (double)(s[i].end - wperf_segment_start(&tl->entities[e], i))};

		if (s[i].state == WPERF_SEG_WAITING && wperf_buf_append(out, &sw, sizeof(sw)) < 0)
			return -ENOMEM;
	}
	w = (struct stack_weight *)out->data;
	n = out->len / sizeof(*w);
	if (n)
		qsort(w, n, sizeof(*w), by_stack);
	for (size_t i = 0; i < n; i++) { /* sum equal stacks */
		if (len && w[len - 1].kstack == w[i].kstack)
			w[len - 1].weight += w[i].weight;
		else
			w[len++] = w[i];
	}
	out->len = len * sizeof(*w);
	return 0;
}

static double cosine(const struct wperf_buf *a, const struct wperf_buf *b)
{
	const struct stack_weight *x = (const void *)a->data, *y = (const void *)b->data;
	size_t nx = a->len / sizeof(*x), ny = b->len / sizeof(*y), i = 0, j = 0;
	double dot = 0, xx = 0, yy = 0;

	for (size_t k = 0; k < nx; k++)
		xx += x[k].weight * x[k].weight;
	for (size_t k = 0; k < ny; k++)
		yy += y[k].weight * y[k].weight;
	while (i < nx && j < ny) {
		if (x[i].kstack == y[j].kstack)
			dot += x[i++].weight * y[j++].weight;
		else if (x[i].kstack < y[j].kstack)
			i++;
		else
			j++;
	}
	if (xx == 0 || yy == 0)
		return xx == yy ? 1.0 : 0.0; /* two threads that never blocked are alike */
	return dot / sqrt(xx * yy);
}

/*
 * Splits the threads of one identity, members[first, first + n), into groups of
 * alike blocking stacks: each joins the first group whose first member is at
 * least `similar` alike, or starts a new one.
 */
static int split_unlike(const struct wperf_timeline *tl, struct member *members, size_t n,
			double similar)
{
	struct wperf_buf mine = {0}, theirs = {0};
	uint32_t ngroups = 0;
	int e = 0;

	for (size_t i = 0; i < n && !e; i++) {
		uint32_t g;

		e = stack_profile(tl, members[i].entity, &mine);
		for (g = 0; g < ngroups && !e; g++) {
			size_t leader = 0;

			while (members[leader].group != g)
				leader++;
			e = stack_profile(tl, members[leader].entity, &theirs);
			if (!e && cosine(&mine, &theirs) >= similar)
				break;
		}
		members[i].group = g;
		if (g == ngroups)
			ngroups++;
	}
	wperf_buf_release(&mine);
	wperf_buf_release(&theirs);
	return e;
}

static int group_members(const struct wperf_timeline *tl, const struct wperf_merge_opts *o,
			 struct member *m)
{
	double fraction = o && o->short_lived ? o->short_lived : DEFAULT_SHORT_LIVED;
	struct wperf_idmap tids = {0};
	struct wperf_buf entity_of = {0}; /* uint32_t per index of tids */
	int e = 0;

	for (uint32_t i = 0; i < tl->nentities && !e; i++) {
		int added;

		if (tl->entities[i].kind != WPERF_ENTITY_THREAD)
			continue;
		if (wperf_idmap_get(&tids, tl->entities[i].tid, &added) < 0 ||
		    (added && wperf_buf_append(&entity_of, &i, sizeof(i)) < 0))
			e = -ENOMEM;
	}
	for (uint32_t i = 0; i < tl->nentities && !e; i++) {
		const struct wperf_entity *en = &tl->entities[i];
		int64_t c = en->creator ? wperf_idmap_find(&tids, en->creator) : -1;
		uint32_t creator = c < 0 ? WPERF_NO_ENTITY : ((uint32_t *)entity_of.data)[c];

		m[i].entity = i;
		m[i].group = 0;
		if (is_short_lived(tl, en, fraction) && creator != WPERF_NO_ENTITY) {
			base_identity(&tl->entities[creator], m[i].identity, sizeof(m[i].identity));
			strncat(m[i].identity, TASKS_SUFFIX,
				sizeof(m[i].identity) - strlen(m[i].identity) - 1);
		} else {
			base_identity(en, m[i].identity, sizeof(m[i].identity));
		}
		if (o && o->similar < 0 && en->kind == WPERF_ENTITY_THREAD)
			m[i].group = i + 1; /* every thread on its own */
	}
	wperf_buf_release(&entity_of);
	wperf_idmap_release(&tids);
	if (e)
		return e;
	qsort(m, tl->nentities, sizeof(*m), by_identity);
	if (!o || o->similar <= 0)
		return 0;
	for (size_t first = 0, i = 1; i <= tl->nentities && !e; i++) {
		if (i < tl->nentities && !strcmp(m[i].identity, m[first].identity))
			continue;
		e = split_unlike(tl, m + first, i - first, o->similar);
		first = i;
	}
	qsort(m, tl->nentities, sizeof(*m), by_identity);
	return e;
}

/* The creator entity of a short-lived thread (or WPERF_NO_ENTITY). */
static uint32_t creator_entity(const struct wperf_timeline *tl, uint32_t e)
{
	uint32_t tid = tl->entities[e].creator;

	for (uint32_t i = 0; tid && i < tl->nentities; i++)
		if (tl->entities[i].kind == WPERF_ENTITY_THREAD && tl->entities[i].tid == tid)
			return i;
	return WPERF_NO_ENTITY;
}

/*
 * Between its tasks a virtual thread of short-lived threads waits for their
 * creator: the span from the first task's birth to the last one's end, less the
 * time some task was alive.
 */
static int add_task_gaps(const struct wperf_timeline *tl, struct wperf_merged *out,
			 const struct member *m, size_t first, size_t n)
{
	uint64_t span_start = UINT64_MAX, span_end = 0, covered = 0, cursor = 0;
	uint32_t creator = creator_entity(tl, m[first].entity);
	struct wperf_buf lives = {0};
	int e = 0;

	if (creator == WPERF_NO_ENTITY)
		return 0;
	for (size_t i = first; i < first + n && !e; i++) {
		const struct wperf_entity *en = &tl->entities[m[i].entity];
		uint64_t life[2] = {en->born, en->died};

		e = wperf_buf_append(&lives, life, sizeof(life));
		span_start = en->born < span_start ? en->born : span_start;
		span_end = en->died > span_end ? en->died : span_end;
	}
	if (!e) {
		uint64_t(*l)[2] = (void *)lives.data;

		qsort(l, n, sizeof(*l), by_u64_pair);
		for (size_t i = 0; i < n; i++) {
			uint64_t from = l[i][0] > cursor ? l[i][0] : cursor;

			if (l[i][1] > from)
				covered += l[i][1] - from;
			cursor = l[i][1] > cursor ? l[i][1] : cursor;
		}
		if (span_end > span_start + covered)
			e = wperf_graph_add(&out->graph, out->vertex_of[m[first].entity],
					    out->vertex_of[creator],
					    span_end - span_start - covered);
	}
	wperf_buf_release(&lives);
	return e;
}

/* Starts a vertex for the members that share m's identity and group. */
static int new_vertex(struct wperf_buf *vertices, const struct member *m, uint32_t rank,
		      const struct wperf_entity *en)
{
	struct wperf_vertex v = {.kind = en->kind, .first_tid = en->tid};
	size_t len = strlen(TASKS_SUFFIX), n = strlen(m->identity);

	if (rank)
		snprintf(v.identity, sizeof(v.identity), "%.70s~%u", m->identity, rank + 1);
	else
		snprintf(v.identity, sizeof(v.identity), "%s", m->identity);
	v.short_lived = n > len && !strcmp(m->identity + n - len, TASKS_SUFFIX);
	return wperf_buf_append(vertices, &v, sizeof(v));
}

static int build_vertices(const struct wperf_timeline *tl, const struct member *m,
			  struct wperf_merged *out)
{
	struct wperf_buf vertices = {0};
	double window = (double)(tl->end > tl->start ? tl->end - tl->start : 1);
	uint32_t rank = 0;

	for (size_t i = 0; i < tl->nentities; i++) {
		const struct wperf_entity *en = &tl->entities[m[i].entity];
		int same_identity = i > 0 && !strcmp(m[i].identity, m[i - 1].identity);
		struct wperf_vertex *v;

		if (!same_identity || m[i].group != m[i - 1].group) {
			rank = same_identity ? rank + 1 : 0;
			if (new_vertex(&vertices, &m[i], rank, en) < 0) {
				wperf_buf_release(&vertices);
				return -ENOMEM;
			}
		}
		v = (struct wperf_vertex *)(vertices.data + vertices.len) - 1;
		v->nmembers++;
		v->running_ns += en->running_ns;
		v->runnable_ns += en->runnable_ns;
		v->waiting_ns += en->waiting_ns;
		v->no_waker_ns += en->no_waker_ns;
		v->unfinished_ns += en->unfinished_ns;
		v->timer_wait_ns += en->timer_wait_ns;
		v->cpu = (double)v->running_ns / window;
		out->vertex_of[m[i].entity] = vertices.len / sizeof(*v) - 1;
	}
	out->vertices = (struct wperf_vertex *)vertices.data;
	out->nvertices = vertices.len / sizeof(struct wperf_vertex);
	return 0;
}

int wperf_merge(const struct wperf_timeline *tl, const struct wperf_graph *entity_graph,
		const struct wperf_callsites *entity_sites, const struct wperf_merge_opts *opts,
		struct wperf_merged *out, struct wperf_error *err)
{
	struct member *m = calloc(tl->nentities + 1, sizeof(*m));
	int e = 0;

	memset(out, 0, sizeof(*out));
	out->vertex_of = calloc(tl->nentities + 1, sizeof(*out->vertex_of));
	if (!m || !out->vertex_of)
		e = -ENOMEM;
	if (!e)
		e = group_members(tl, opts, m);
	if (!e)
		e = build_vertices(tl, m, out);
	if (!e)
		e = wperf_graph_init(&out->graph, out->nvertices);
	for (size_t i = 0; i < entity_graph->nedges && !e; i++) {
		const struct wperf_edge *ed = &entity_graph->edges[i];

		e = wperf_graph_add(&out->graph, out->vertex_of[ed->from], out->vertex_of[ed->to],
				    ed->weight);
	}
	for (size_t first = 0, i = 1; tl->nentities && i <= tl->nentities && !e; i++) {
		uint32_t v = out->vertex_of[m[first].entity];

		if (i < tl->nentities && out->vertex_of[m[i].entity] == v)
			continue;
		if (out->vertices[v].short_lived)
			e = add_task_gaps(tl, out, m, first, i - first);
		first = i;
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
		return wperf_error_set(err, e, "merging threads: out of memory");
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
