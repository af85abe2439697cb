/* SPDX-License-Identifier: MIT */
/*
 * Runs and run sets (see runset.h): what the gate keeps of an analysis.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
#include "core/report/report.h"
#include "core/gate/runset.h"

/*
 * Appends one element of size bytes to the array *arr of *n elements. The
 * array is reallocated through a struct wperf_buf whose capacity is its length,
 * so every call may copy it: fine for the few knots and runs it is used for.
 */
static int push(void *arr, size_t *n, const void *elem, size_t size)
{
	struct wperf_buf b = {.len = *n * size, .cap = *n * size};
	int ret;

	/* arr points to a pointer of some element type: read and write it with
	 * memcpy rather than through a void ** (strict aliasing). */
	memcpy(&b.data, arr, sizeof(b.data));
	ret = wperf_buf_append(&b, elem, size);
	if (ret)
		return ret;
	memcpy(arr, &b.data, sizeof(b.data));
	(*n)++;
	return 0;
}

/* ---- identities ---- */

size_t wperf_utf8_seq(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len;
	uint32_t cp, min;

	if (s[0] < 0x80)
		return s[0] ? 1 : 0;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* No overlong forms, no surrogates, nothing past U+10FFFF. */
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

char *wperf_identity_dup(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t len = wperf_utf8_seq(s + i);

		if (len == 0) {
			out[i++] = '?';
			continue;
		}
		memcpy(out + i, s + i, len);
		i += len;
	}
	out[n] = '\0';
	return out;
}

/* ---- identity sets ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int wperf_idset_from(const char *const *ids, size_t n, struct wperf_idset *out)
{
	size_t kept = 0;

	out->ids = NULL;
	out->n = 0;
	if (n == 0)
		return 0;
	out->ids = calloc(n, sizeof(*out->ids));
	if (!out->ids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		out->ids[i] = wperf_identity_dup(ids[i]);
		if (!out->ids[i]) {
			out->n = i;
			wperf_idset_release(out);
			return -ENOMEM;
		}
	}
	qsort(out->ids, n, sizeof(*out->ids), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (kept && !strcmp(out->ids[kept - 1], out->ids[i]))
			free(out->ids[i]); /* a duplicate */
		else
			out->ids[kept++] = out->ids[i];
	}
	out->n = kept;
	return 0;
}

int wperf_idset_copy(const struct wperf_idset *s, struct wperf_idset *out)
{
	return wperf_idset_from((const char *const *)s->ids, s->n, out);
}

int wperf_idset_cmp(const struct wperf_idset *a, const struct wperf_idset *b)
{
	for (size_t i = 0; i < a->n && i < b->n; i++) {
		int c = strcmp(a->ids[i], b->ids[i]);

		if (c)
			return c;
	}
	return (a->n > b->n) - (a->n < b->n);
}

void wperf_idset_release(struct wperf_idset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->ids[i]);
	free(s->ids);
	s->ids = NULL;
	s->n = 0;
}

/* ---- one run ---- */

void wperf_run_init(struct wperf_run *r)
{
	memset(r, 0, sizeof(*r));
	r->throughput = NAN;
}

int wperf_run_add_knot(struct wperf_run *r, const char *const *ids, size_t n)
{
	struct wperf_idset s;
	int ret = wperf_idset_from(ids, n, &s);

	if (ret)
		return ret;
	ret = push(&r->knots, &r->nknots, &s, sizeof(s));
	if (ret)
		wperf_idset_release(&s);
	return ret;
}

/* Where edge from -> to is in r->edges, or where it would go (*found 0). */
static size_t find_edge(const struct wperf_run *r, const char *from, const char *to, int *found)
{
	size_t lo = 0, hi = r->nedges;

	*found = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(r->edges[mid].from, from);

		if (!c)
			c = strcmp(r->edges[mid].to, to);
		if (!c) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int wperf_run_add_edge(struct wperf_run *r, const char *from, const char *to, double share)
{
	struct wperf_run_edge e = {.share = share};
	int found, ret = -ENOMEM;
	size_t at;

	if (!isfinite(share) || share < 0)
		return -EINVAL;
	/* The identities as they are kept, before looking for their place. */
	e.from = wperf_identity_dup(from);
	e.to = wperf_identity_dup(to);
	if (e.from && e.to) {
		at = find_edge(r, e.from, e.to, &found);
		if (found)
			r->edges[at].share += share;
		else if (!(ret = push(&r->edges, &r->nedges, &e, sizeof(e)))) {
			/* push put it last: move it to its place. */
			memmove(&r->edges[at + 1], &r->edges[at], (r->nedges - 1 - at) * sizeof(e));
			r->edges[at] = e;
			return 0;
		}
		ret = found ? 0 : ret;
	}
	free(e.from);
	free(e.to);
	return ret;
}

double wperf_run_edge_share(const struct wperf_run *r, const char *from, const char *to)
{
	int found;
	size_t at = find_edge(r, from, to, &found);

	return found ? r->edges[at].share : 0;
}

int wperf_run_has_knot(const struct wperf_run *r, const struct wperf_idset *s)
{
	for (size_t i = 0; i < r->nknots; i++)
		if (!wperf_idset_cmp(&r->knots[i], s))
			return 1;
	return 0;
}

/* The first member of s that glob matches, or NULL. */
static const char *idset_match(const struct wperf_idset *s, const char *glob)
{
	for (size_t i = 0; i < s->n; i++)
		if (!fnmatch(glob, s->ids[i], 0))
			return s->ids[i];
	return NULL;
}

/* Appends "{a, b}" for s to why (truncating quietly: it is a message). */
static void append_idset(char *why, size_t size, const struct wperf_idset *s)
{
	size_t len = strlen(why);

	for (size_t i = 0; i < s->n && len < size; i++, len = strlen(why))
		snprintf(why + len, size - len, "%s%s", i ? ", " : "{", s->ids[i]);
	if (len < size)
		snprintf(why + len, size - len, "%s}", s->n ? "" : "{");
}

/* The index of the first knot of r that matches x's knot, or -1 with why set. */
static int expect_knot(const struct wperf_run *r, const struct wperf_expect *x, char *why,
		       size_t size)
{
	const char *missing = x->knot[0];
	const char *intruder = NULL;

	for (size_t k = 0; k < r->nknots; k++) {
		const struct wperf_idset *s = &r->knots[k];
		size_t i, j;

		for (i = 0; i < x->nknot && idset_match(s, x->knot[i]); i++)
			;
		if (i < x->nknot) {
			if (i > 0) /* the closest miss is the more useful message */
				missing = x->knot[i];
			continue;
		}
		for (j = 0; j < x->nnot_in_knot && !idset_match(s, x->not_in_knot[j]); j++)
			;
		if (j == x->nnot_in_knot)
			return (int)k;
		intruder = idset_match(s, x->not_in_knot[j]);
	}
	if (intruder)
		snprintf(why, size, "the knot has %s, which it should not", intruder);
	else if (r->nknots)
		snprintf(why, size, "no knot has %s", missing);
	else
		snprintf(why, size, "no knot was found");
	return -1;
}

int wperf_run_expect(const struct wperf_run *r, const struct wperf_expect *x, char *why,
		     size_t size)
{
	int found = 0;
	size_t len;

	if (x->nknot)
		found = expect_knot(r, x, why, size);
	else if (x->no_knot && r->nknots)
		snprintf(why, size, "a knot was found"), found = -1;
	for (size_t i = 0; found >= 0 && i < x->nsink; i++)
		if (!idset_match(&r->sinks, x->sink[i])) {
			snprintf(why, size, "no sink is %s; sinks: ", x->sink[i]);
			append_idset(why, size, &r->sinks);
			return -1;
		}
	for (size_t i = 0; found >= 0 && i < x->ntimer_paced; i++)
		if (!idset_match(&r->timer_paced, x->timer_paced[i])) {
			snprintf(why, size,
				 "no thread paced by a timer is %s; paced: ", x->timer_paced[i]);
			append_idset(why, size, &r->timer_paced);
			return -1;
		}
	if (found >= 0 && x->cmetric_first &&
	    (!r->cmetric_first || fnmatch(x->cmetric_first, r->cmetric_first, 0))) {
		snprintf(why, size, "the CMetric ranks %s first, not %s",
			 r->cmetric_first ? r->cmetric_first : "nothing", x->cmetric_first);
		return -1;
	}
	for (size_t k = 0; found < 0 && k < r->nknots; k++) {
		len = strlen(why);
		if (len < size)
			snprintf(why + len, size - len, k ? ", " : "; knots: ");
		append_idset(why, size, &r->knots[k]);
	}
	return found;
}

void wperf_run_release(struct wperf_run *r)
{
	for (size_t i = 0; i < r->nknots; i++)
		wperf_idset_release(&r->knots[i]);
	free(r->knots);
	for (size_t i = 0; i < r->nedges; i++) {
		free(r->edges[i].from);
		free(r->edges[i].to);
	}
	free(r->edges);
	wperf_idset_release(&r->sinks);
	free(r->cmetric_first);
	wperf_idset_release(&r->timer_paced);
	free(r->checks_first);
	wperf_run_init(r);
}

/* ---- from an analysis ---- */

/* The knots and sinks of a that the target waits for, as identity sets. */
static int take_knots(const struct wperf_analysis *a, const char *target, struct wperf_run *out)
{
	const struct wperf_vertex *v = a->merged.vertices;
	struct wperf_buf ids = {0}, sinks = {0}; /* const char *: one knot's identities; sinks */
	int ret = 0;

	for (size_t i = 0; i < a->knots.nfinal && !ret; i++) {
		const struct wperf_knot *k = &a->knots.knots[i];

		if (!wperf_report_knot_wanted(a, k, target))
			continue;
		if (k->kind == WPERF_SINK) {
			const char *id = v[k->vertices[0]].identity;

			ret = wperf_buf_append(&sinks, &id, sizeof(id));
			continue;
		}
		if (k->kind != WPERF_KNOT)
			continue;
		wperf_buf_clear(&ids);
		for (size_t j = 0; j < k->nvertices && !ret; j++) {
			const char *id = v[k->vertices[j]].identity;

			ret = wperf_buf_append(&ids, &id, sizeof(id));
		}
		if (!ret)
			ret = wperf_run_add_knot(out, (const char *const *)ids.data, k->nvertices);
	}
	if (!ret)
		ret = wperf_idset_from((const char *const *)sinks.data,
				       sinks.len / sizeof(const char *), &out->sinks);
	wperf_buf_release(&ids);
	wperf_buf_release(&sinks);
	return ret;
}

/* The identity of the target's vertex (every thread without a target) with
 * the largest CMetric, into out->cmetric_first. */
static int take_cmetric_first(const struct wperf_analysis *a, const char *target,
			      struct wperf_run *out)
{
	uint32_t n = a->merged.nvertices, best = UINT32_MAX;
	uint8_t *mine = calloc(n + 1, 1);

	if (!mine)
		return -ENOMEM;
	wperf_report_mark_target(a, target, mine);
	for (uint32_t v = 0; v < n; v++)
		if (mine[v] && a->vertex_cmetric[v] &&
		    (best == UINT32_MAX || a->vertex_cmetric[v] > a->vertex_cmetric[best]))
			best = v;
	free(mine);
	if (best == UINT32_MAX)
		return 0;
	out->cmetric_first = wperf_identity_dup(a->merged.vertices[best].identity);
	return out->cmetric_first ? 0 : -ENOMEM;
}

/* The threads that pace the target with a timer, as identities. */
static int take_timer_paced(const struct wperf_analysis *a, const char *target,
			    struct wperf_run *out)
{
	uint8_t *mine = calloc(a->merged.nvertices + 1, 1);
	const char **ids = NULL;
	struct wperf_timer_paced *p = NULL;
	size_t n = 0;
	int ret = mine ? 0 : -ENOMEM;

	if (!ret) {
		wperf_report_mark_target(a, target, mine);
		ret = wperf_report_timer_paced(a, mine, &p, &n);
	}
	if (!ret && n && !(ids = calloc(n, sizeof(*ids))))
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < n; i++)
		ids[i] = a->merged.vertices[p[i].vertex].identity;
	if (!ret)
		ret = wperf_idset_from(ids, n, &out->timer_paced);
	free(ids);
	free(p);
	free(mine);
	return ret;
}

static int cmp_edge(const void *pa, const void *pb)
{
	const struct wperf_run_edge *a = pa, *b = pb;
	int c = strcmp(a->from, b->from);

	return c ? c : strcmp(a->to, b->to);
}

/*
 * Marks in reach the target's vertices and every vertex they wait for,
 * directly or through others, over every edge of the merged graph. NULL
 * target: nothing to restrict, reach is left NULL.
 */
static int target_reach(const struct wperf_analysis *a, const char *target, uint8_t **reach)
{
	*reach = NULL;
	if (!target || !*target)
		return 0;
	if (!(*reach = calloc(a->merged.nvertices + 1, 1)))
		return -ENOMEM;
	return wperf_report_mark_reach(a, &a->merged.graph, target, *reach);
}

/*
 * The edges of the merged graph at or above WPERF_RUN_MIN_SHARE of the
 * window; with a target, only those among what it waits for. The rest of the
 * machine (a shell of the CI runner waiting for RCU, kernel workers flushing
 * another job's writes) comes and goes from run to run, and the gate would
 * take its noise for the workload's regression.
 */
static int take_edges(const struct wperf_analysis *a, const char *target, struct wperf_run *out)
{
	const struct wperf_graph *g = &a->merged.graph;
	const struct wperf_vertex *v = a->merged.vertices;
	struct wperf_buf b = {0}; /* struct wperf_run_edge */
	struct wperf_run_edge *e;
	uint8_t *reach;
	size_t n = 0, total;
	int ret = target_reach(a, target, &reach);

	for (size_t i = 0; i < g->nedges && !ret; i++) {
		const struct wperf_edge *ge = &g->edges[i];
		struct wperf_run_edge re;

		if (a->ignored && (a->ignored[ge->from] || a->ignored[ge->to]))
			continue;
		if (reach && !reach[ge->from])
			continue;
		re.share = (double)ge->weight / (double)a->window;
		if (re.share < WPERF_RUN_MIN_SHARE)
			continue;
		re.from = wperf_identity_dup(v[ge->from].identity);
		re.to = wperf_identity_dup(v[ge->to].identity);
		ret = re.from && re.to ? wperf_buf_append(&b, &re, sizeof(re)) : -ENOMEM;
		if (ret) {
			free(re.from);
			free(re.to);
		}
	}
	e = (struct wperf_run_edge *)b.data;
	total = b.len / sizeof(*e);
	if (!ret && total)
		qsort(e, total, sizeof(*e), cmp_edge);
	/* Vertices that share an identity (kept apart by merge options) make edges
	 * with the same ends: they add up. */
	for (size_t i = 0; i < total; i++) {
		if (!ret && n && !cmp_edge(&e[n - 1], &e[i])) {
			e[n - 1].share += e[i].share;
		} else if (!ret) {
			e[n++] = e[i];
			continue;
		}
		free(e[i].from);
		free(e[i].to);
	}
	free(reach);
	if (ret) {
		n = 0;
		wperf_buf_release(&b);
	}
	/* The run takes the buffer's memory. */
	out->edges = (struct wperf_run_edge *)b.data;
	out->nedges = n;
	return ret;
}

/* "disk busy disk:254:0 vda: 1.230 s by the model, 1.100 s by the kernel's
 * (tolerance 0.150 s)": the first check that leaves r unconfirmed. */
static int take_checks_first(const struct wperf_analysis *a, struct wperf_run *r)
{
	const struct wperf_checks_line *l = wperf_report_checks_unconfirmed(&a->checks);
	int ns, digits;
	double scale;
	const char *unit;

	if (!l)
		return 0;
	ns = !strcmp(wperf_check_unit_name(l->kind), "ns");
	digits = ns ? 3 : 0;
	scale = ns ? 1e9 : 1;
	unit = ns ? "s" : wperf_check_unit_name(l->kind);
	return asprintf(&r->checks_first,
			"%s %s: %.*f %s by the model, %.*f %s by the kernel's (tolerance %.*f %s)",
			wperf_check_kind_name(l->kind), l->subject, digits, l->model / scale, unit,
			digits, l->kernel / scale, unit, digits, l->tolerance / scale, unit) < 0
		   ? -ENOMEM
		   : 0;
}

int wperf_run_from_analysis(const struct wperf_analysis *a, const char *target, double throughput,
			    struct wperf_run *out, struct wperf_error *err)
{
	size_t ok;
	int ret;

	wperf_run_init(out);
	if (a->window == 0)
		return wperf_error_set(
		    err, -EINVAL, "the analysis has an empty recording window: no run to compare");
	out->throughput = throughput;
	out->window_ns = a->window;
	out->lost_events = a->timeline ? a->timeline->lost_events : 0;
	out->events = a->timeline ? a->timeline->recorded_events : 0;
	out->have_checks = a->checks.have_counters;
	out->checks_warn = wperf_report_checks_confirming(&a->checks, &ok);
	out->checks_ok = ok;
	ret = take_checks_first(a, out);
	if (!ret)
		ret = take_knots(a, target, out);
	if (!ret)
		ret = take_edges(a, target, out);
	if (!ret)
		ret = take_cmetric_first(a, target, out);
	if (!ret)
		ret = take_timer_paced(a, target, out);
	if (ret) {
		wperf_run_release(out);
		return wperf_error_set(err, ret, "out of memory while keeping a run for the gate");
	}
	return 0;
}

uint64_t wperf_run_checks_warn(const struct wperf_run *r)
{
	return r->have_checks ? r->checks_warn : 0;
}

/* ---- the run set ---- */

size_t wperf_runset_runs_warned(const struct wperf_runset *rs)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->nruns; i++)
		n += wperf_run_checks_warn(&rs->runs[i]) > 0;
	return n;
}

int wperf_runset_add(struct wperf_runset *rs, struct wperf_run *r)
{
	int ret = push(&rs->runs, &rs->nruns, r, sizeof(*r));

	if (!ret)
		wperf_run_init(r); /* the set owns what r pointed to */
	return ret;
}

void wperf_runset_release(struct wperf_runset *rs)
{
	for (size_t i = 0; i < rs->nruns; i++)
		wperf_run_release(&rs->runs[i]);
	free(rs->runs);
	rs->runs = NULL;
	rs->nruns = 0;
	rs->unit[0] = '\0';
}
