/* SPDX-License-Identifier: MIT */
/*
 * The timeline as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and
 * chrome://tracing load:
 *
 *   {"traceEvents":[ ... ],"displayTimeUnit":"ms"}
 *
 * - a track per thread (pid = its tgid, tid = its tid), named by "thread_name"
 *   metadata events, each process named by "process_name"; a thread in a knot
 *   that the target waits for has " [knot N]" after its name (N as the text
 *   report numbers knots);
 * - a process of its own per disk or NIC, named after it ("disk:8:0",
 *   "nic:eth0"), with one track: pid = tid = a made-up number above every real
 *   pid and tid;
 * - a complete event ("ph":"X") per segment, named "running", "runnable" or
 *   "waiting"; a waiting one has args {"waker": the identity of the waker's
 *   vertex}, and "spin": true when it was an annotated spin;
 * - a flow arrow per wakeup by a thread or a device: "ph":"s" on the waker's
 *   track and "ph":"f" ("bp":"e": bound to the enclosing slice) on the waiter's,
 *   both at the end of the wait, with a shared id.
 * Times are microseconds from the window's start, with 3 decimals (exact: they
 * are formatted from the nanoseconds, not through a double). Interrupt
 * pseudo-threads have no track.
 *
 * A trace of more than MAX_SEGMENTS segments would make a file no viewer opens:
 * then only the entities inside final knots and sinks are written, and a
 * metadata event "wperf_note" says so.
 *
 * Each event is built as a json-c object (which does the escaping) and written
 * out at once, so memory stays that of one event, not of the whole array.
 */
#include "core/report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/util/cmp.h"

#define MAX_SEGMENTS   2000000
#define NOTE_PID       0
#define DEVICE_ID_BASE 1000000 /* device pids from here, or above every real pid and tid */

struct perfetto {
	const struct wperf_analysis *a;
	struct wperf_buf *out;
	int err;
	size_t nevents;	   /* written so far: a comma goes before every one but the first */
	uint8_t *keep;	   /* per entity: has a track */
	uint32_t *knot_of; /* per merged vertex: its knot's number, or 0 */
	uint32_t device_base;
	uint64_t next_flow;
};

static const char *const state_names[] = {"running", "runnable", "waiting"};

/* Writes one event and frees it. */
static void emit(struct perfetto *p, json_object *ev)
{
	const char *text;

	if (!ev) {
		p->err = -ENOMEM;
		return;
	}
	text = p->err ? NULL
		      : json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!p->err && !text)
		p->err = -ENOMEM;
	if (!p->err)
		p->err = wperf_buf_printf(p->out, "%s\n%s", p->nevents ? "," : "", text);
	p->nevents++;
	json_object_put(ev);
}

static void add(json_object *o, const char *key, json_object *value)
{
	json_object_object_add(o, key, value);
}

/* ns after the window's start, as microseconds with exactly 3 decimals. */
static json_object *micros(uint64_t ns)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
	return json_object_new_double_s((double)ns / 1000.0, text);
}

static int has_track(const struct wperf_analysis *a, uint32_t e)
{
	return a->timeline->entities[e].kind != WPERF_ENTITY_IRQ;
}

static uint32_t pid_of(const struct perfetto *p, uint32_t e)
{
	const struct wperf_entity *en = &p->a->timeline->entities[e];

	return en->kind == WPERF_ENTITY_THREAD ? en->tgid : p->device_base + e;
}

static uint32_t tid_of(const struct perfetto *p, uint32_t e)
{
	const struct wperf_entity *en = &p->a->timeline->entities[e];

	return en->kind == WPERF_ENTITY_THREAD ? en->tid : p->device_base + e;
}

/* An event on entity e's track: {"ph":ph,"name":name,"pid":..,"tid":..}. */
static json_object *event(const struct perfetto *p, const char *ph, const char *name, uint32_t e)
{
	json_object *ev = json_object_new_object();

	add(ev, "ph", json_object_new_string(ph));
	add(ev, "name", json_object_new_string(name));
	add(ev, "pid", json_object_new_int64(pid_of(p, e)));
	add(ev, "tid", json_object_new_int64(tid_of(p, e)));
	return ev;
}

/* A metadata event {"ph":"M","name":name,"pid":pid,["tid":tid,]"args":{key:value}}. */
static void metadata(struct perfetto *p, const char *name, uint32_t pid, int64_t tid,
		     const char *key, const char *value)
{
	json_object *ev = json_object_new_object(), *args = json_object_new_object();

	add(ev, "ph", json_object_new_string("M"));
	add(ev, "name", json_object_new_string(name));
	add(ev, "pid", json_object_new_int64(pid));
	if (tid >= 0)
		add(ev, "tid", json_object_new_int64(tid));
	add(args, key, json_object_new_string(value));
	add(ev, "args", args);
	emit(p, ev);
}

/*
 * Which entities get a track: every one but interrupt sources; past
 * MAX_SEGMENTS, only those in the final knots and sinks (the analysis's
 * answer). Returns whether it capped.
 */
static int choose_tracks(struct perfetto *p)
{
	const struct wperf_analysis *a = p->a;
	const struct wperf_timeline *tl = a->timeline;
	size_t total = 0;
	uint32_t max_id = 0;
	int capped;

	for (uint32_t e = 0; e < tl->nentities; e++) {
		if (!has_track(a, e))
			continue;
		p->keep[e] = 1;
		total += tl->entities[e].nsegments;
		if (tl->entities[e].kind != WPERF_ENTITY_THREAD)
			continue;
		if (tl->entities[e].tid > max_id)
			max_id = tl->entities[e].tid;
		if (tl->entities[e].tgid > max_id)
			max_id = tl->entities[e].tgid;
	}
	/* made-up ids must not collide with a real one */
	p->device_base = max_id < DEVICE_ID_BASE ? DEVICE_ID_BASE : max_id + 1;
	capped = total > MAX_SEGMENTS;
	if (capped) {
		uint8_t *in_knot = calloc(a->merged.nvertices + 1, 1);

		if (!in_knot) {
			p->err = -ENOMEM;
			return capped;
		}
		for (size_t i = 0; i < a->knots.nfinal; i++) /* knots and sinks */
			for (size_t j = 0; j < a->knots.knots[i].nvertices; j++)
				in_knot[a->knots.knots[i].vertices[j]] = 1;
		for (uint32_t e = 0; e < tl->nentities; e++)
			p->keep[e] = p->keep[e] && in_knot[a->merged.vertex_of[e]];
		free(in_knot);
	}
	return capped;
}

/* A process and the first entity of it with a track, which names it. */
struct proc {
	uint32_t tgid, entity;
};

static int by_tgid(const void *pa, const void *pb)
{
	const struct proc *x = pa, *y = pb;
	const uint64_t kx[] = {x->tgid, x->entity}, ky[] = {y->tgid, y->entity};

	return wperf_cmp_keys(kx, ky, 2);
}

/* process_name of every process with a track, by pid: threads' processes,
 * then each device's. */
static void processes(struct perfetto *p)
{
	const struct wperf_timeline *tl = p->a->timeline;
	struct proc *procs = malloc((tl->nentities + 1) * sizeof(*procs));
	size_t n = 0;

	if (!procs) {
		p->err = -ENOMEM;
		return;
	}
	for (uint32_t e = 0; e < tl->nentities; e++) {
		if (!p->keep[e])
			continue;
		if (tl->entities[e].kind == WPERF_ENTITY_THREAD)
			procs[n++] = (struct proc){tl->entities[e].tgid, e};
	}
	qsort(procs, n, sizeof(*procs), by_tgid);
	for (size_t i = 0; i < n; i++) {
		const struct wperf_entity *en = &tl->entities[procs[i].entity];

		if (i == 0 || procs[i].tgid != procs[i - 1].tgid)
			metadata(p, "process_name", en->tgid, -1, "name",
				 en->process[0] ? en->process : en->name);
	}
	for (uint32_t e = 0; e < tl->nentities; e++)
		if (p->keep[e] && tl->entities[e].kind != WPERF_ENTITY_THREAD)
			metadata(p, "process_name", pid_of(p, e), -1, "name", tl->entities[e].name);
	free(procs);
}

/* The thread_name of e's track: its name, and its knot's number if it has one. */
static void track_name(struct perfetto *p, uint32_t e)
{
	const struct wperf_entity *en = &p->a->timeline->entities[e];
	uint32_t knot = p->knot_of[p->a->merged.vertex_of[e]];
	char name[sizeof(en->name) + 32];

	if (knot)
		snprintf(name, sizeof(name), "%s [knot %u]", en->name, knot);
	else
		snprintf(name, sizeof(name), "%s", en->name);
	metadata(p, "thread_name", pid_of(p, e), tid_of(p, e), "name", name);
}

/* A wakeup arrow from the waker's track to the track of the waiter e, at the
 * wait's end. */
static void flow(struct perfetto *p, uint32_t e, const struct wperf_segment *s)
{
	uint64_t id = ++p->next_flow, ts = s->end - p->a->start;
	json_object *start = event(p, "s", "wakeup", s->waker);
	json_object *finish = event(p, "f", "wakeup", e);

	add(start, "cat", json_object_new_string("wakeup"));
	add(start, "id", json_object_new_uint64(id));
	add(start, "ts", micros(ts));
	add(finish, "cat", json_object_new_string("wakeup"));
	add(finish, "id", json_object_new_uint64(id));
	add(finish, "ts", micros(ts));
	add(finish, "bp", json_object_new_string("e"));
	emit(p, start);
	emit(p, finish);
}

/* Segment s of entity e, which starts at start. */
static void segment(struct perfetto *p, uint32_t e, uint64_t start, const struct wperf_segment *s)
{
	const struct wperf_analysis *a = p->a;
	const struct wperf_timeline *tl = a->timeline;
	uint8_t state = s->state < 3 ? s->state : WPERF_SEG_WAITING;
	json_object *ev = event(p, "X", state_names[state], e);

	add(ev, "cat", json_object_new_string("state"));
	add(ev, "ts", micros(start - a->start));
	add(ev, "dur", micros(s->end - start));
	if (state == WPERF_SEG_WAITING) {
		json_object *args = json_object_new_object(), *waker = NULL;

		if (s->waker < tl->nentities)
			waker = json_object_new_string(
			    a->merged.vertices[a->merged.vertex_of[s->waker]].identity);
		else if (s->waker == WPERF_WAKER_ISSUERS)
			waker = json_object_new_string("the threads that issued I/O to it");
		add(args, "waker", waker);
		if (s->spin)
			add(args, "spin", json_object_new_boolean(1));
		add(ev, "args", args);
	}
	emit(p, ev);
	if (state == WPERF_SEG_WAITING && s->waker < tl->nentities && p->keep[s->waker])
		flow(p, e, s);
}

int wperf_report_perfetto(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			  const struct wperf_report_opts *opts, struct wperf_buf *out)
{
	const struct wperf_timeline *tl = a->timeline;
	struct perfetto p = {.a = a, .out = out};

	(void)sym; /* no stacks on the timeline */
	p.keep = calloc(tl->nentities + 1, 1);
	p.knot_of = calloc(a->merged.nvertices + 1, sizeof(*p.knot_of));
	if (!p.keep || !p.knot_of) {
		free(p.keep);
		free(p.knot_of);
		return -ENOMEM;
	}
	wperf_number_knots(a, opts ? opts->target : NULL, p.knot_of);
	p.err = wperf_buf_printf(out, "{\"traceEvents\":[");
	if (choose_tracks(&p)) {
		char note[256];

		snprintf(note, sizeof(note),
			 "more than %d segments: only the threads and devices in final knots "
			 "and sinks are shown",
			 MAX_SEGMENTS);
		metadata(&p, "wperf_note", NOTE_PID, 0, "note", note);
	}
	processes(&p);
	for (uint32_t e = 0; e < tl->nentities && !p.err; e++) {
		size_t n;
		const struct wperf_segment *s = wperf_timeline_segments(tl, e, &n);

		if (!p.keep[e])
			continue;
		track_name(&p, e);
		for (size_t i = 0; i < n && !p.err; i++)
			segment(&p, e, wperf_segment_start(&tl->entities[e], i), &s[i]);
	}
	if (!p.err)
		p.err = wperf_buf_printf(out, "\n],\"displayTimeUnit\":\"ms\"}\n");
	free(p.keep);
	free(p.knot_of);
	return p.err ? -ENOMEM : 0;
}
