/* SPDX-License-Identifier: MIT */
/*
 * Runs and run sets (see runset.h): what the gate keeps of an analysis, and
 * whether a run found the scenario's expected answer. A run is taken from an
 * analysis in run_from_analysis.c; identities and their sets are in idset.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
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

int wperf_run_set_metric(struct wperf_run *r, const char *name, double value)
{
	struct wperf_run_metric m = {.value = value};

	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name)) {
			r->metrics[i].value = value;
			return 0;
		}
	if (strlen(name) >= sizeof(m.name))
		return -EINVAL;
	strcpy(m.name, name);
	return push(&r->metrics, &r->nmetrics, &m, sizeof(m));
}

double wperf_run_metric(const struct wperf_run *r, const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return r->metrics[i].value;
	return NAN;
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
	const struct wperf_run_edge *e = wperf_run_edge(r, from, to);

	return e ? e->share : 0;
}

struct wperf_run_edge *wperf_run_edge(const struct wperf_run *r, const char *from, const char *to)
{
	int found;
	size_t at = find_edge(r, from, to, &found);

	return found ? &r->edges[at] : NULL;
}

static int same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int wperf_run_edge_add_site(struct wperf_run_edge *e, const char *waiter, const char *waker,
			    double share)
{
	struct wperf_run_site x = {.share = share};
	size_t at = 0;

	if (!isfinite(share) || share < 0 || (!waiter && !waker))
		return -EINVAL;
	while (at < e->nsites &&
	       !(same_text(e->sites[at].waiter, waiter) && same_text(e->sites[at].waker, waker)))
		at++;
	if (at < e->nsites) {
		e->sites[at].share += share;
	} else {
		x.waiter = waiter ? strdup(waiter) : NULL;
		x.waker = waker ? strdup(waker) : NULL;
		if ((waiter && !x.waiter) || (waker && !x.waker) ||
		    push(&e->sites, &e->nsites, &x, sizeof(x))) {
			free(x.waiter);
			free(x.waker);
			return -ENOMEM;
		}
	}
	/* Heaviest first: the site that grew moves up past the lighter ones. */
	for (; at > 0 && e->sites[at - 1].share < e->sites[at].share; at--) {
		x = e->sites[at - 1];
		e->sites[at - 1] = e->sites[at];
		e->sites[at] = x;
	}
	return 0;
}

void wperf_run_edge_keep_sites(struct wperf_run_edge *e, size_t keep)
{
	for (size_t i = keep; i < e->nsites; i++) {
		free(e->sites[i].waiter);
		free(e->sites[i].waker);
	}
	if (!keep) {
		free(e->sites);
		e->sites = NULL;
	}
	e->nsites = keep < e->nsites ? keep : e->nsites;
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
		wperf_run_edge_keep_sites(&r->edges[i], 0);
	}
	free(r->edges);
	wperf_idset_release(&r->sinks);
	free(r->cmetric_first);
	wperf_idset_release(&r->timer_paced);
	free(r->checks_first);
	free(r->metrics);
	wperf_run_init(r);
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
	free(rs->metrics);
	rs->metrics = NULL;
	rs->nmetrics = 0;
}
