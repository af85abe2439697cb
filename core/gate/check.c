/* SPDX-License-Identifier: MIT */
/*
 * The outcome of a whole check (see check.h): its worst verdict, and
 * CHECK/summary.json written (read back strictly in check_read.c).
 */
#include "core/gate/check_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/json_util.h"

const char *const check_finding_kinds[CHECK_FINDING_KINDS] = {
    "new-knot", "knot-gone", "edge", "throughput", "vertex", "expectation", "metric"};
const char *const check_levels[CHECK_LEVELS] = {"info", "warn", "fail"};

enum wperf_verdict_kind wperf_check_kind(const struct wperf_check *c, int *error)
{
	/* From the best to the worst. */
	static const enum wperf_verdict_kind order[] = {
	    WPERF_VERDICT_PASS, WPERF_VERDICT_IMPROVED, WPERF_VERDICT_INCONCLUSIVE,
	    WPERF_VERDICT_REGRESSION, WPERF_VERDICT_NEW_BOTTLENECK};
	size_t worst = 0;

	*error = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->scenarios[i].error) {
			*error = 1;
			continue;
		}
		for (size_t k = worst + 1; k < NAMES(order); k++)
			if (order[k] == c->scenarios[i].verdict.kind)
				worst = k;
	}
	return order[worst];
}

void wperf_check_scenario_release(struct wperf_check_scenario *s)
{
	free(s->name);
	free(s->dir);
	free(s->reason);
	for (size_t i = 0; i < s->nsettings_changed; i++)
		free(s->settings_changed[i]);
	free(s->settings_changed);
	free(s->flame);
	for (size_t i = 0; i < s->ngrowing; i++)
		free(s->growing[i]);
	free(s->growing);
	wperf_verdict_release(&s->verdict);
	memset(s, 0, sizeof(*s));
}

void wperf_check_release(struct wperf_check *c)
{
	for (size_t i = 0; i < c->n; i++)
		wperf_check_scenario_release(&c->scenarios[i]);
	free(c->scenarios);
	memset(c, 0, sizeof(*c));
}

/* ---- writing ---- */

/* A number, or null for NaN; -EINVAL for an infinity, which JSON lacks. */
static int put_number(struct json_object *o, const char *key, double v)
{
	if (isnan(v))
		return wperf_json_put_null(o, key);
	return isfinite(v) ? wperf_json_put(o, key, wperf_json_number(v)) : -EINVAL;
}

static int put_string(struct json_object *o, const char *key, const char *s)
{
	return s ? wperf_json_put(o, key, json_object_new_string(s)) : wperf_json_put_null(o, key);
}

static int put_bool(struct json_object *o, const char *key, int b)
{
	return wperf_json_put(o, key, json_object_new_boolean(b != 0));
}

static int put_count(struct json_object *o, const char *key, uint64_t n)
{
	return wperf_json_put(o, key, json_object_new_uint64(n));
}

/* Appends v, or null for NaN (v finite otherwise). */
static int append_number(struct json_object *a, double v)
{
	if (isnan(v))
		return json_object_array_add(a, NULL) ? -ENOMEM : 0;
	return wperf_json_append(a, wperf_json_number(v));
}

/* [lo, hi], or null when both are NaN. */
static int put_range(struct json_object *o, const char *key, double lo, double hi)
{
	struct json_object *a;
	int ret;

	if (isnan(lo) && isnan(hi))
		return wperf_json_put_null(o, key);
	if (isinf(lo) || isinf(hi))
		return -EINVAL;
	a = json_object_new_array();
	ret = wperf_json_put(o, key, a);
	ret = ret ? ret : append_number(a, lo);
	return ret ? ret : append_number(a, hi);
}

/* A new object put under key in o, into *sub. */
static int put_object(struct json_object *o, const char *key, struct json_object **sub)
{
	*sub = json_object_new_object();
	return wperf_json_put(o, key, *sub);
}

static int put_array(struct json_object *o, const char *key, struct json_object **sub)
{
	*sub = json_object_new_array();
	return wperf_json_put(o, key, *sub);
}

static int site_to_json(struct json_object *a, const struct wperf_site *s)
{
	struct json_object *o = json_object_new_object();
	int ret = wperf_json_append(a, o);

	ret = ret ? ret : put_string(o, "waiter", s->waiter);
	ret = ret ? ret : put_string(o, "waker", s->waker);
	return ret ? ret : put_number(o, "share", s->share);
}

static int finding_to_json(struct json_object *a, const struct wperf_finding *f)
{
	struct json_object *o = json_object_new_object(), *sub;
	int ret = wperf_json_append(a, o);

	ret = ret ? ret : put_string(o, "kind", check_finding_kinds[f->kind]);
	ret = ret ? ret : put_string(o, "level", check_levels[f->level]);
	ret = ret ? ret : put_bool(o, "worse", f->worse);
	ret = ret ? ret : put_bool(o, "inconclusive", f->inconclusive);
	ret = ret ? ret : put_bool(o, "accepted", f->accepted);
	ret = ret ? ret : put_string(o, "from", f->from);
	ret = ret ? ret : put_string(o, "to", f->to);
	ret = ret ? ret : put_string(o, "vertex", f->vertex);
	ret = ret ? ret : put_bool(o, "sink", f->sink);
	if (!ret && f->knot.n) {
		ret = put_array(o, "knot", &sub);
		for (size_t i = 0; i < f->knot.n && !ret; i++)
			ret = wperf_json_append(sub, json_object_new_string(f->knot.ids[i]));
	} else if (!ret) {
		ret = wperf_json_put_null(o, "knot");
	}
	ret = ret ? ret : put_number(o, "before", f->before);
	ret = ret ? ret : put_number(o, "after", f->after);
	ret = ret ? ret : put_number(o, "change", f->change);
	ret = ret ? ret : put_range(o, "before_range", f->before_lo, f->before_hi);
	ret = ret ? ret : put_range(o, "after_range", f->after_lo, f->after_hi);
	ret = ret ? ret : put_count(o, "seen", f->seen);
	ret = ret ? ret : put_count(o, "runs", f->runs);
	ret = ret ? ret : put_count(o, "before_seen", f->before_seen);
	ret = ret ? ret : put_count(o, "before_runs", f->before_runs);
	ret = ret ? ret : put_number(o, "p", f->p);
	ret = ret ? ret : put_number(o, "q", f->q);
	ret = ret ? ret : put_number(o, "detectable", f->detectable);
	ret = ret ? ret : put_count(o, "runs_needed", f->runs_needed);
	ret = ret ? ret : put_string(o, "note", f->note);
	ret = ret ? ret : put_array(o, "sites", &sub);
	for (size_t i = 0; i < f->nsites && !ret; i++)
		ret = site_to_json(sub, &f->sites[i]);
	if (!ret && f->metric) { /* came with metrics: only where there is one */
		ret = put_string(o, "metric", f->metric);
		ret = ret ? ret : put_string(o, "unit", f->unit);
	}
	return ret;
}

/* "metrics": [{name, unit, before, after}], only when the scenario has some. */
static int metrics_to_json(struct json_object *o, const struct wperf_verdict *v)
{
	struct json_object *a, *m;
	int ret = v->nmetrics ? put_array(o, "metrics", &a) : 0;

	for (size_t i = 0; i < v->nmetrics && !ret; i++) {
		m = json_object_new_object();
		ret = wperf_json_append(a, m);
		ret = ret ? ret : put_string(m, "name", v->metrics[i].name);
		ret = ret ? ret : put_string(m, "unit", v->metrics[i].unit);
		ret = ret ? ret : put_number(m, "before", v->metrics[i].before);
		ret = ret ? ret : put_number(m, "after", v->metrics[i].after);
	}
	return ret;
}

static int scenario_to_json(struct json_object *a, const struct wperf_check_scenario *s)
{
	const struct wperf_verdict *v = &s->verdict;
	struct json_object *o = json_object_new_object(), *sub;
	int ret = wperf_json_append(a, o);

	ret = ret ? ret : put_string(o, "name", s->name ? s->name : "");
	ret = ret ? ret : put_string(o, "dir", s->dir ? s->dir : "");
	ret = ret ? ret
		  : put_string(o, "verdict", s->error ? ERROR_NAME : wperf_verdict_name(v->kind));
	ret = ret ? ret : put_string(o, "reason", s->reason);
	ret = ret ? ret : put_count(o, "pairs", s->pairs);
	ret = ret ? ret : put_number(o, "seconds", s->seconds);
	ret = ret ? ret : put_count(o, "runs", v->runs);
	ret = ret ? ret : put_count(o, "baseline_runs", v->baseline_runs);
	ret = ret ? ret : put_bool(o, "paired", v->paired);
	ret = ret ? ret : put_number(o, "alpha", v->alpha);
	ret = ret ? ret : put_count(o, "tests", v->tests);
	ret = ret ? ret : put_number(o, "detectable", v->detectable);
	ret = ret ? ret : put_number(o, "detect", v->detect);
	ret = ret ? ret : put_count(o, "presence", v->presence);
	ret = ret ? ret : put_bool(o, "underpowered", v->underpowered);
	ret = ret ? ret : put_bool(o, "structure_only", v->structure_only);
	ret = ret ? ret : put_count(o, "lost_events", v->lost_events);
	ret = ret ? ret : put_count(o, "lossy_runs", v->lossy_runs);
	ret = ret ? ret : put_count(o, "unconfirmed_runs", v->unconfirmed_runs);
	ret = ret ? ret : put_object(o, "throughput", &sub);
	ret = ret ? ret : put_number(sub, "before", v->throughput_before);
	ret = ret ? ret : put_number(sub, "after", v->throughput_after);
	ret = ret ? ret
		  : wperf_json_put(sub, "unit",
				   json_object_new_string_len(
				       v->unit, (int)strnlen(v->unit, sizeof(v->unit))));
	ret = ret ? ret : metrics_to_json(o, v);
	ret = ret ? ret : put_array(o, "findings", &sub);
	for (size_t i = 0; i < v->nfindings && !ret; i++)
		ret = finding_to_json(sub, &v->findings[i]);
	ret = ret ? ret : put_array(o, "warnings", &sub);
	for (size_t i = 0; i < v->nwarnings && !ret; i++)
		ret = wperf_json_append(sub, json_object_new_string(v->warnings[i]));
	ret = ret ? ret : put_array(o, "settings_changed", &sub);
	for (size_t i = 0; i < s->nsettings_changed && !ret; i++)
		ret = wperf_json_append(sub, json_object_new_string(s->settings_changed[i]));
	if (s->flame) {
		ret = ret ? ret : put_string(o, "flame", s->flame);
		ret = ret ? ret : put_array(o, "growing", &sub);
		for (size_t i = 0; i < s->ngrowing && !ret; i++)
			ret = wperf_json_append(sub, json_object_new_string(s->growing[i]));
	}
	return ret;
}

int wperf_check_to_json(const struct wperf_check *c, struct json_object **out)
{
	struct json_object *o = json_object_new_object(), *sub;
	int error, ret = o ? 0 : -ENOMEM;
	enum wperf_verdict_kind kind = wperf_check_kind(c, &error);

	*out = NULL;
	ret = ret ? ret : put_string(o, "format", WPERF_CHECK_FORMAT);
	ret = ret ? ret : put_string(o, "verdict", error ? ERROR_NAME : wperf_verdict_name(kind));
	ret = ret ? ret : put_string(o, "mode", c->base_mode ? "base" : "baselines");
	if (!ret && c->base_mode) {
		ret = put_object(o, "base", &sub);
		ret = ret ? ret : put_string(sub, "ref", c->base_ref);
		ret = ret ? ret : put_string(sub, "commit", c->base_commit);
		ret = ret ? ret : put_bool(sub, "trust_head_settings", c->trust_head_settings);
	} else if (!ret) {
		ret = wperf_json_put_null(o, "base");
	}
	ret = ret ? ret : put_object(o, "head", &sub);
	ret = ret ? ret : put_string(sub, "commit", c->head_commit[0] ? c->head_commit : NULL);
	ret = ret ? ret : put_string(sub, "branch", c->head_branch[0] ? c->head_branch : NULL);
	ret = ret ? ret : put_bool(sub, "dirty", c->head_dirty);
	ret = ret ? ret : put_number(o, "alpha", c->alpha);
	ret = ret ? ret : put_number(o, "seconds", c->seconds);
	ret = ret ? ret : put_array(o, "scenarios", &sub);
	for (size_t i = 0; i < c->n && !ret; i++)
		ret = scenario_to_json(sub, &c->scenarios[i]);
	if (ret) {
		json_object_put(o);
		return ret;
	}
	*out = o;
	return 0;
}
