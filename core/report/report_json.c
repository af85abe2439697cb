/* SPDX-License-Identifier: MIT */
/*
 * The report for machines, built with json-c. The schema is documented in
 * docs/report-schema.md; "schema" names its version, and fields are only ever
 * added to a version, never changed.
 */
#include "core/report/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define STACK_TEXT 8192

static json_object *u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

/* A stack as an array of frames, innermost first; null when there is none. */
static json_object *frames(struct wperf_symbolizer *sym, int32_t id, int user, uint32_t tgid)
{
	char text[STACK_TEXT], *save = NULL;
	json_object *arr;

	if (id < 0)
		return NULL;
	arr = json_object_new_array();
	wperf_stack_text(sym, id, user, tgid, text, sizeof(text));
	for (char *f = strtok_r(text, "\n", &save); f; f = strtok_r(NULL, "\n", &save))
		json_object_array_add(arr, json_object_new_string(f));
	return arr;
}

static json_object *vertices(const struct wperf_analysis *a, const struct wperf_report_opts *opts,
			     const uint8_t *mine)
{
	json_object *arr = json_object_new_array();

	for (uint32_t v = 0; v < a->merged.nvertices; v++) {
		const struct wperf_vertex *x = &a->merged.vertices[v];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_int(v));
		json_object_object_add(o, "identity", json_object_new_string(x->identity));
		json_object_object_add(
		    o, "display", json_object_new_string(wperf_report_display(opts, x->identity)));
		json_object_object_add(o, "kind",
				       json_object_new_string(wperf_vertex_kind_name(x->kind)));
		json_object_object_add(o, "members", json_object_new_int(x->nmembers));
		json_object_object_add(o, "first_tid", json_object_new_int64(x->first_tid));
		json_object_object_add(o, "short_lived", json_object_new_boolean(x->short_lived));
		json_object_object_add(o, "running_ns", u64(x->running_ns));
		json_object_object_add(o, "runnable_ns", u64(x->runnable_ns));
		json_object_object_add(o, "waiting_ns", u64(x->waiting_ns));
		json_object_object_add(o, "no_waker_ns", u64(x->no_waker_ns));
		json_object_object_add(o, "unfinished_ns", u64(x->unfinished_ns));
		json_object_object_add(o, "timer_wait_ns", u64(x->timer_wait_ns));
		json_object_object_add(o, "target", json_object_new_boolean(mine[v]));
		json_object_object_add(o, "cpu", json_object_new_double(x->cpu));
		json_object_object_add(o, "cmetric_ns", u64(a->vertex_cmetric[v]));
		json_object_object_add(o, "ignored", json_object_new_boolean(a->ignored[v]));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *call_sites(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			       const struct wperf_edge *ed, unsigned top)
{
	json_object *arr = json_object_new_array();
	size_t first, n;

	wperf_callsites_of_edge(&a->merged.sites, ed->from, ed->to, &first, &n);
	for (size_t i = first; i < first + n && i < first + top; i++) {
		const struct wperf_callsite *s = &a->merged.sites.sites[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "weight_ns", u64(s->weight));
		json_object_object_add(
		    o, "share",
		    json_object_new_double(ed->weight ? (double)s->weight / (double)ed->weight
						      : 0));
		json_object_object_add(o, "waiter_user", frames(sym, s->ustack, 1, s->waiter_tgid));
		json_object_object_add(o, "waiter_kernel", frames(sym, s->kstack, 0, 0));
		json_object_object_add(o, "waker_user",
				       frames(sym, s->waker_ustack, 1, s->waker_tgid));
		json_object_object_add(o, "waker_kernel", frames(sym, s->waker_kstack, 0, 0));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *edges(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
			  unsigned top_sites)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < a->merged.graph.nedges; i++) {
		const struct wperf_edge *ed = &a->merged.graph.edges[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "from", json_object_new_int(ed->from));
		json_object_object_add(o, "to", json_object_new_int(ed->to));
		json_object_object_add(o, "weight_ns", u64(ed->weight));
		json_object_object_add(
		    o, "share",
		    json_object_new_double(a->window ? (double)ed->weight / (double)a->window : 0));
		json_object_object_add(o, "call_sites", call_sites(a, sym, ed, top_sites));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *knots(const struct wperf_analysis *a, const char *target)
{
	static const char *const kinds[] = {"knot", "sink", "background", "background-sink"};
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < a->knots.nknots; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];
		json_object *o = json_object_new_object(), *ids = json_object_new_array();
		json_object *names = json_object_new_array();

		for (size_t j = 0; j < k->nvertices; j++) {
			json_object_array_add(ids, json_object_new_int(k->vertices[j]));
			json_object_array_add(
			    names,
			    json_object_new_string(a->merged.vertices[k->vertices[j]].identity));
		}
		json_object_object_add(o, "kind", json_object_new_string(kinds[k->kind % 4]));
		json_object_object_add(o, "final", json_object_new_boolean(i < a->knots.nfinal));
		json_object_object_add(
		    o, "target", json_object_new_boolean(wperf_knot_wanted(a, k, target)));
		json_object_object_add(o, "vertices", ids);
		json_object_object_add(o, "identities", names);
		json_object_object_add(o, "min_weight_ns", u64(k->min_weight));
		json_object_object_add(o, "simple_cycle", json_object_new_boolean(k->simple_cycle));
		json_object_object_add(o, "removed_edges", json_object_new_int64(k->removed_edges));
		json_object_object_add(
		    o, "parent", k->parent == UINT32_MAX ? NULL : json_object_new_int64(k->parent));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* The threads the target waits for that pace it with a timer
 * (wperf_timer_paced_threads); NULL when out of memory. */
static json_object *timer_paced(const struct wperf_analysis *a, const uint8_t *mine)
{
	json_object *arr;
	struct wperf_timer_paced *p;
	size_t n;

	if (wperf_timer_paced_threads(a, mine, &p, &n) < 0)
		return NULL;
	arr = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "vertex", json_object_new_int(p[i].vertex));
		json_object_object_add(o, "sleep_ns", u64(p[i].sleep_ns));
		json_object_object_add(o, "held_ns", u64(p[i].held_ns));
		json_object_array_add(arr, o);
	}
	free(p);
	return arr;
}

/* The checks against the kernel's counters (checks.h); null for a trace
 * without counters. */
static json_object *checks(const struct wperf_checks *c, const char *target)
{
	static const char *const irq_time[] = {"thread", "apart", "unknown"};
	json_object *o, *lines;
	size_t ok, warn;

	if (!c->have_counters)
		return NULL;
	o = json_object_new_object();
	lines = json_object_new_array();
	warn = wperf_checks_warnings(c, target, &ok);
	json_object_object_add(o, "ok", json_object_new_uint64(ok));
	json_object_object_add(o, "warn", json_object_new_uint64(warn));
	json_object_object_add(o, "irq_time", json_object_new_string(irq_time[c->irq_time % 3]));
	json_object_object_add(o, "irq_in_threads_ns", u64(c->irq_in_threads_ns));
	json_object_object_add(o, "steal_ns", u64(c->steal_ns));
	json_object_object_add(o, "cpus_checked", json_object_new_boolean(c->cpus_checked));
	json_object_object_add(o, "threads_unread", json_object_new_uint64(c->threads_unread));
	for (size_t i = 0; i < c->n; i++) {
		const struct wperf_checks_line *l = &c->lines[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "kind",
				       json_object_new_string(wperf_check_kind_name(l->kind)));
		json_object_object_add(x, "of", json_object_new_string(l->subject));
		json_object_object_add(x, "unit",
				       json_object_new_string(wperf_check_unit_name(l->kind)));
		json_object_object_add(x, "model", u64(l->model));
		json_object_object_add(x, "kernel", u64(l->kernel));
		json_object_object_add(x, "diff", json_object_new_int64(l->diff));
		json_object_object_add(x, "tolerance", u64(l->tolerance));
		json_object_object_add(
		    x, "status",
		    json_object_new_string(l->status == WPERF_CHECK_OK ? "OK" : "WARN"));
		json_object_object_add(
		    x, "counted", json_object_new_boolean(wperf_check_counts(c, i, target)));
		if (l->kind == WPERF_CHECK_CPU_IDLE)
			json_object_object_add(x, "exits", u64(l->exits));
		if (l->kind >= WPERF_CHECK_THREAD_RUN && l->kind <= WPERF_CHECK_THREAD_SLICES) {
			json_object_object_add(x, "tid", json_object_new_int64(l->tid));
			json_object_object_add(x, "tgid", json_object_new_int64(l->tgid));
		}
		json_object_array_add(lines, x);
	}
	json_object_object_add(o, "lines", lines);
	return o;
}

int wperf_report_json(const struct wperf_analysis *a, struct wperf_symbolizer *sym,
		      const struct wperf_report_opts *opts, struct wperf_buf *out)
{
	const struct wperf_timeline *tl = a->timeline;
	json_object *root = json_object_new_object(), *params = json_object_new_object();
	json_object *notes = json_object_new_object();
	unsigned top_sites = opts && opts->top_sites ? opts->top_sites : 3;
	const char *target = opts ? opts->target : NULL;
	uint8_t *mine = calloc(a->merged.nvertices + 1, 1);
	json_object *paced = NULL;
	const char *text;
	int e;

	if (mine) {
		wperf_analysis_mark_target(a, target, mine);
		paced = timer_paced(a, mine);
	}
	if (!paced) {
		free(mine);
		json_object_put(root);
		json_object_put(params);
		json_object_put(notes);
		return -ENOMEM;
	}

	json_object_object_add(root, "schema", json_object_new_string(WPERF_REPORT_SCHEMA));
	json_object_object_add(root, "trace",
			       opts && opts->trace_name ? json_object_new_string(opts->trace_name)
							: NULL);
	json_object_object_add(root, "start_ns", u64(a->start));
	json_object_object_add(root, "end_ns", u64(a->end));
	json_object_object_add(root, "window_ns", u64(a->window));
	json_object_object_add(root, "ncpu", json_object_new_int(tl->ncpu));
	json_object_object_add(root, "lost_events", u64(tl->lost_events));
	json_object_object_add(params, "threshold", json_object_new_double(a->threshold));
	json_object_object_add(params, "threshold_ns", u64(a->threshold_ns));
	json_object_object_add(params, "min_edge", json_object_new_double(a->min_edge));
	json_object_object_add(params, "min_edge_ns", u64(a->min_edge_ns));
	json_object_object_add(params, "jobs", json_object_new_int(a->jobs));
	json_object_object_add(params, "target",
			       opts && opts->target ? json_object_new_string(opts->target) : NULL);
	json_object_object_add(params, "cmetric_threads",
			       json_object_new_int64(a->cmetric.threads));
	json_object_object_add(params, "cmetric_min_parallelism",
			       json_object_new_double(a->cmetric.min_parallelism));
	json_object_object_add(root, "params", params);
	json_object_object_add(notes, "devices", json_object_new_string(tl->capacity_note));
	json_object_object_add(notes, "false_wakeups_removed", u64(tl->false_wakeups_removed));
	json_object_object_add(notes, "spins_converted", u64(tl->spins_converted));
	json_object_object_add(root, "notes", notes);
	json_object_object_add(root, "vertices", vertices(a, opts, mine));
	json_object_object_add(root, "edges", edges(a, sym, top_sites));
	json_object_object_add(root, "knots", knots(a, target));
	json_object_object_add(root, "timer_paced", paced);
	json_object_object_add(root, "checks", checks(&a->checks, target));
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							JSON_C_TO_STRING_NOSLASHESCAPE);
	e = text ? wperf_buf_append(out, text, strlen(text)) : -ENOMEM;
	if (!e)
		e = wperf_buf_append(out, "\n", 1);
	json_object_put(root);
	free(mine);
	return e;
}
