/* SPDX-License-Identifier: MIT */
#include "core/analysis/short_lived.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
#include "core/util/idmap.h"
#include "core/util/cmp.h"

#define ENDED 3 /* a task's state when it is not alive: not born yet, or ended */

/* A short-lived thread and the entity of its creator. */
struct task {
	uint32_t creator, entity;
	uint64_t born;
	uint32_t tid;
};

static int by_creator(const void *a, const void *b)
{
	const struct task *x = a, *y = b;
	const uint64_t kx[] = {x->creator, x->born, x->tid, x->entity};
	const uint64_t ky[] = {y->creator, y->born, y->tid, y->entity};

	return wperf_cmp_keys(kx, ky, 4);
}

/* At t, task (of its group) enters its segment k; k == its nsegments: it ends. */
struct change {
	uint64_t t;
	uint32_t task, k;
};

static int by_time(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	const uint64_t kx[] = {x->t, x->task, x->k}, ky[] = {y->t, y->task, y->k};

	return wperf_cmp_keys(kx, ky, 3);
}

static int is_short_lived(const struct wperf_timeline *tl, const struct wperf_entity *e,
			  double fraction)
{
	return e->kind == WPERF_ENTITY_THREAD && fraction > 0 && e->creator != 0 &&
	       e->born > tl->start && e->died < tl->end &&
	       (double)(e->died - e->born) < fraction * (double)(tl->end - tl->start);
}

/* The short-lived threads of tl with their creators' entities, in tasks (struct
 * task), sorted by creator, then birth. */
static int find_tasks(const struct wperf_timeline *tl, double fraction, struct wperf_buf *tasks)
{
	struct wperf_idmap tids = {0};
	struct wperf_buf entity_of = {0}; /* uint32_t per index of tids: its first entity */
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
		int64_t c = wperf_idmap_find(&tids, en->creator);
		struct task t = {.entity = i, .born = en->born, .tid = en->tid};

		if (!is_short_lived(tl, en, fraction) || c < 0)
			continue;
		t.creator = ((const uint32_t *)(const void *)entity_of.data)[c];
		e = wperf_buf_append(tasks, &t, sizeof(t));
	}
	if (!e && tasks->len)
		qsort(tasks->data, tasks->len / sizeof(struct task), sizeof(struct task),
		      by_creator);
	wperf_buf_release(&entity_of);
	wperf_idmap_release(&tids);
	return e;
}

/* The state of the virtual thread while its tasks are in these states. */
static uint8_t union_state(const size_t count[4])
{
	if (count[WPERF_SEG_RUNNING])
		return WPERF_SEG_RUNNING;
	return count[WPERF_SEG_RUNNABLE] ? WPERF_SEG_RUNNABLE : WPERF_SEG_WAITING;
}

/* What ends a wait of the virtual thread: a task leaves its wait, or is born. */
struct wake_cause {
	int found;
	uint32_t task, k; /* entering its segment k */
	uint8_t from;	  /* the state it leaves: WAITING or ENDED (born) */
};

/* The wait of the virtual thread that cause ends: it waited for the waker of the
 * task's wait, or, for a task's birth, for its creator. */
static void wait_ended_by(const struct wperf_timeline *tl, const struct task *tasks,
			  const struct wake_cause *cause, struct wperf_segment *s)
{
	const struct wperf_segment *w;

	s->waker = WPERF_NO_ENTITY;
	if (!cause->found)
		return;
	if (cause->from == ENDED) {
		s->waker = tasks[cause->task].creator;
		return;
	}
	w = &tl->entities[tasks[cause->task].entity].segments[cause->k - 1];
	s->waker = w->waker;
	s->stacks = w->stacks;
	s->spin = w->spin;
}

/* Each task's segment starts and its end, in time order, into changes. */
static int task_changes(const struct wperf_timeline *tl, const struct task *tasks, size_t n,
			struct wperf_buf *changes)
{
	int e = 0;

	wperf_buf_clear(changes);
	for (uint32_t i = 0; i < n && !e; i++) {
		const struct wperf_entity *en = &tl->entities[tasks[i].entity];

		for (uint32_t k = 0; k <= en->nsegments && !e; k++) {
			struct change ch = {
			    k < en->nsegments ? wperf_segment_start(en, k) : en->died, i, k};

			e = wperf_buf_append(changes, &ch, sizeof(ch));
		}
	}
	if (!e && changes->len)
		qsort(changes->data, changes->len / sizeof(struct change), sizeof(struct change),
		      by_time);
	return e;
}

/*
 * The segments of the virtual thread v of tasks[0, n) (one creator's, in birth
 * order), appended to segs; changes is scratch. Sets v's life, its time by
 * state and its waits by what ended them (it ends inside the window: none is
 * unfinished).
 */
static int union_segments(const struct wperf_timeline *tl, const struct task *tasks, size_t n,
			  struct wperf_entity *v, struct wperf_buf *changes, struct wperf_buf *segs)
{
	size_t count[4] = {0, 0, 0, n}, nchanges;
	uint8_t *state = malloc(n);
	uint64_t open_start = 0, by[3] = {0, 0, 0};
	uint8_t open = WPERF_SEG_RUNNABLE;
	const struct change *c;
	int e = state ? task_changes(tl, tasks, n, changes) : -ENOMEM;

	c = (const struct change *)(const void *)changes->data;
	nchanges = e ? 0 : changes->len / sizeof(*c);
	if (state)
		memset(state, ENDED, n);
	for (size_t i = 0; i < nchanges && !e;) {
		uint64_t t = c[i].t;
		struct wake_cause cause = {0};

		for (; i < nchanges && c[i].t == t; i++) {
			const struct wperf_entity *en = &tl->entities[tasks[c[i].task].entity];
			uint8_t from = state[c[i].task],
				to = c[i].k < en->nsegments ? en->segments[c[i].k].state : ENDED;

			count[from]--;
			count[to]++;
			state[c[i].task] = to;
			if (!cause.found && to < WPERF_SEG_WAITING &&
			    (from == WPERF_SEG_WAITING || from == ENDED))
				cause = (struct wake_cause){1, c[i].task, c[i].k, from};
		}
		if (t == c[0].t) { /* the first task is born */
			v->born = t;
		} else if (i == nchanges || union_state(count) != open) {
			struct wperf_segment s = {.end = t, .state = open};

			if (open == WPERF_SEG_WAITING) {
				wait_ended_by(tl, tasks, &cause, &s);
				/* what ended it, as the timeline counts a thread's */
				v->no_waker_ns += s.waker == WPERF_NO_ENTITY ? t - open_start : 0;
				v->timer_wait_ns += s.waker == tl->timer ? t - open_start : 0;
			}
			by[open] += t - open_start;
			e = wperf_buf_append(segs, &s, sizeof(s));
		} else {
			continue;
		}
		open = union_state(count);
		open_start = t;
	}
	free(state);
	v->died = open_start;
	v->nsegments = (uint32_t)(segs->len / sizeof(struct wperf_segment));
	v->running_ns = by[WPERF_SEG_RUNNING];
	v->runnable_ns = by[WPERF_SEG_RUNNABLE];
	v->waiting_ns = by[WPERF_SEG_WAITING];
	return e;
}

/*
 * The virtual thread of tasks[0, n), one creator's, into v. Its interrupt time is
 * its tasks', at most its running time (exact unless two tasks were interrupted
 * at once).
 */
static int virtual_thread(const struct wperf_timeline *tl, const struct task *tasks, size_t n,
			  struct wperf_entity *v, struct wperf_buf *changes)
{
	const struct wperf_entity *creator = &tl->entities[tasks[0].creator];
	struct wperf_buf segs = {0};
	uint64_t irq = 0;
	int e;

	memset(v, 0, sizeof(*v));
	v->kind = WPERF_ENTITY_THREAD;
	v->tgid = creator->tgid;
	v->creator = creator->tid;
	memcpy(v->name, creator->name, sizeof(v->name));
	memcpy(v->process, creator->process, sizeof(v->process));
	e = union_segments(tl, tasks, n, v, changes, &segs);
	if (e) {
		wperf_buf_release(&segs);
		return e;
	}
	v->segments = (struct wperf_segment *)(void *)segs.data; /* v's now */
	for (size_t i = 0; i < n; i++)
		irq += tl->entities[tasks[i].entity].irq_ns;
	v->irq_ns = irq < v->running_ns ? irq : v->running_ns;
	v->running_ns -= v->irq_ns;
	return 0;
}

/* The view's entities: tl's, then one virtual thread per creator of tasks. */
static int build_view(const struct wperf_timeline *tl, const struct task *tasks, size_t ntasks,
		      struct wperf_short_lived *out)
{
	struct wperf_buf entities = {0}, changes = {0};
	size_t total = tl->nsegments;
	int e = wperf_buf_append(&entities, tl->entities, tl->nentities * sizeof(*tl->entities));

	out->view.entities = NULL;
	for (size_t first = 0, i = 1; i <= ntasks && !e; i++) {
		struct wperf_entity v;
		uint32_t index = (uint32_t)(entities.len / sizeof(v));

		if (i < ntasks && tasks[i].creator == tasks[first].creator)
			continue;
		e = virtual_thread(tl, tasks + first, i - first, &v, &changes);
		if (!e) {
			v.first_segment = (uint32_t)total;
			total += v.nsegments;
			e = total < UINT32_MAX ? wperf_buf_append(&entities, &v, sizeof(v))
					       : -E2BIG;
			if (e)
				free(v.segments);
		}
		for (size_t k = first; k < i && !e; k++)
			out->stand_in[tasks[k].entity] = index;
		first = i;
	}
	wperf_buf_release(&changes);
	out->view.entities = (struct wperf_entity *)(void *)entities.data;
	out->view.nentities = entities.len / sizeof(struct wperf_entity);
	out->view.nsegments = total;
	return e;
}

int wperf_short_lived_build(const struct wperf_timeline *tl, double fraction,
			    struct wperf_short_lived *out, struct wperf_error *err)
{
	struct wperf_buf tasks = {0};
	size_t ntasks;
	int e;

	memset(out, 0, sizeof(*out));
	out->view = *tl;
	out->view.entities = NULL;
	out->view.nentities = 0;
	out->nreal = (uint32_t)tl->nentities;
	e = find_tasks(tl, fraction ? fraction : WPERF_DEFAULT_SHORT_LIVED, &tasks);
	ntasks = tasks.len / sizeof(struct task);
	/* at most one virtual thread per task */
	out->stand_in = malloc((tl->nentities + ntasks + 1) * sizeof(*out->stand_in));
	if (!e && !out->stand_in)
		e = -ENOMEM;
	for (uint32_t i = 0; !e && i < tl->nentities + ntasks; i++)
		out->stand_in[i] = i;
	if (!e)
		e = build_view(tl, (const struct task *)(const void *)tasks.data, ntasks, out);
	wperf_buf_release(&tasks);
	if (e) {
		wperf_short_lived_release(out);
		return wperf_error_set(err, e, "merging short-lived threads: %s",
				       e == -E2BIG ? "too many segments for one timeline"
						   : "out of memory");
	}
	return 0;
}

void wperf_short_lived_release(struct wperf_short_lived *s)
{
	if (!s)
		return;
	for (size_t i = s->nreal; s->view.entities && i < s->view.nentities; i++)
		free(s->view.entities[i].segments);
	free(s->view.entities);
	free(s->stand_in);
	memset(s, 0, sizeof(*s));
}
