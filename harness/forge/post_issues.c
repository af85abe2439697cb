/* SPDX-License-Identifier: MIT */
/*
 * The issues of `post --changes` (see post_issues.h): changes.json read
 * strictly, and each change point's marker, title and body.
 */
#include "harness/forge/post_issues.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gate/verdict_text.h"
#include "core/util/json_util.h"
#include "harness/base/output.h"
#include "harness/forge/forge_comments.h"

#define OID_HEX	  40
#define SHORT_OID 12

static const char *const metric_names[] = {"throughput", "edge", "knot"};

/* ---- reading changes.json ---- */

/* A string member, or NULL for a JSON null when it may be one. */
static int get_text(struct json_object *v, const char *path, const char *key, int nullable,
		    const char **out, struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];
	size_t len;

	wperf_json_key_path(sub, path, key);
	*out = NULL;
	if (!v && nullable)
		return 0;
	if (!v)
		return wperf_json_expected(v, sub, "a string", err);
	return wperf_json_get_string(v, sub, out, &len, err);
}

/* A commit's id: 40 hex digits (NULL for a JSON null when nullable). */
static int get_oid(struct json_object *v, const char *path, const char *key, int nullable,
		   const char **out, struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];
	int e = get_text(v, path, key, nullable, out, err);

	if (e || !*out)
		return e;
	if (strlen(*out) != OID_HEX || strspn(*out, "0123456789abcdef") != OID_HEX) {
		wperf_json_key_path(sub, path, key);
		return wperf_json_expected(v, sub, "a commit's id (40 hex digits)", err);
	}
	return 0;
}

/* A finite number in r, or NaN for a JSON null when nullable. */
static int get_level(struct json_object *v, const char *path, const char *key, int nullable,
		     const struct wperf_doc_range *r, double *out, struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];

	wperf_json_key_path(sub, path, key);
	*out = NAN;
	return !v && nullable ? 0 : wperf_json_get_number(v, sub, r, out, err);
}

/* What moved: the metric's name, and its edge or vertex, present exactly
 * when the metric has one. */
static int get_metric(struct json_object **v, const char *path, struct post_change *c,
		      struct wperf_error *err)
{
	char sub[WPERF_JSON_PATH_LEN];
	const char *name;
	int e = get_text(v[0], path, "metric", 0, &name, err);
	size_t m = 0;

	while (!e && m < 3 && strcmp(name, metric_names[m]))
		m++;
	if (!e && m == 3) {
		wperf_json_key_path(sub, path, "metric");
		return wperf_json_expected(v[0], sub, "one of throughput, edge, knot", err);
	}
	c->metric = (enum post_change_metric)m;
	if (!e)
		e = get_text(v[1], path, "from", m != POST_CHANGE_EDGE, &c->from, err);
	if (!e)
		e = get_text(v[2], path, "to", m != POST_CHANGE_EDGE, &c->to, err);
	if (!e)
		e = get_text(v[3], path, "vertex", m != POST_CHANGE_KNOT, &c->vertex, err);
	if (!e && (m != POST_CHANGE_EDGE) != !(c->from || c->to))
		return wperf_json_fail(err, path, "\"from\" and \"to\" are an edge's only");
	if (!e && (m != POST_CHANGE_KNOT) != !c->vertex)
		return wperf_json_fail(err, path, "\"vertex\" is a knot's only");
	return e;
}

/* changes[i]. */
static int read_change(struct json_object *o, const char *path, struct post_change *c,
		       struct wperf_error *err)
{
	static const char *const keys[] = {"metric", "from",	"to",	  "vertex",
					   "commit", "subject", "date",	  "previous",
					   "before", "after",	"change", "p"};
	static const struct wperf_doc_range any = {-INFINITY, INFINITY, 0, 0};
	static const struct wperf_doc_range level = {0, 1, 0, 0};
	struct json_object *v[12];
	int e = wperf_json_get_keys(o, path, keys, 12, 12, v, err);

	if (!e)
		e = get_metric(v, path, c, err);
	if (!e)
		e = get_oid(v[4], path, "commit", 0, &c->commit, err);
	if (!e)
		e = get_text(v[5], path, "subject", 0, &c->subject, err);
	if (!e)
		e = get_text(v[6], path, "date", 0, &c->date, err);
	if (!e)
		e = get_oid(v[7], path, "previous", 1, &c->previous, err);
	if (!e)
		e = get_level(v[8], path, "before", 1, &any, &c->before, err);
	if (!e)
		e = get_level(v[9], path, "after", 1, &any, &c->after, err);
	if (!e)
		e = get_level(v[10], path, "change", 1, &any, &c->change, err);
	if (!e)
		e = get_level(v[11], path, "p", 0, &level, &c->p, err);
	return e;
}

/* The document's top: its format, scenario, unit and level, and its array
 * of changes into *changes. */
static int read_top(struct post_changes *c, const char *path, struct json_object **changes,
		    struct wperf_error *err)
{
	static const char *const keys[] = {"format", "scenario", "unit", "max_p", "changes"};
	static const struct wperf_doc_range level = {0, 1, 1, 0};
	struct json_object *v[5];
	const char *format;
	int e = wperf_json_get_keys(c->doc, path, keys, 5, 5, v, err);

	if (!e && !(e = get_text(v[0], path, "format", 0, &format, err)) &&
	    strcmp(format, WPERF_CHANGES_FORMAT)) {
		char sub[WPERF_JSON_PATH_LEN];

		wperf_json_key_path(sub, path, "format");
		return wperf_json_expected(v[0], sub, "\"" WPERF_CHANGES_FORMAT "\"", err);
	}
	if (!e)
		e = get_text(v[1], path, "scenario", 0, &c->scenario, err);
	if (!e && !c->scenario[0])
		return wperf_json_fail(err, path, "\"scenario\" is empty");
	if (!e)
		e = get_text(v[2], path, "unit", 0, &c->unit, err);
	if (!e)
		e = get_level(v[3], path, "max_p", 0, &level, &c->max_p, err);
	if (!e)
		e = wperf_json_get_member(c->doc, path, "changes", json_type_array, 1, changes,
					  err);
	return e;
}

int post_changes_read(const char *path, struct post_changes *out, struct wperf_error *err)
{
	struct wperf_buf text = {0};
	struct json_object *changes = NULL;
	char top[WPERF_JSON_PATH_LEN], list[WPERF_JSON_PATH_LEN], sub[WPERF_JSON_PATH_LEN];
	int e = output_read_all(path, &text, err);

	*out = (struct post_changes){0};
	if (e)
		return e;
	out->doc = forge_parse_json((const char *)text.data, text.len, path, err);
	wperf_buf_release(&text);
	if (!out->doc)
		return -EINVAL;
	wperf_json_file_path(top, path);
	wperf_json_key_path(list, top, "changes");
	e = read_top(out, top, &changes, err);
	if (!e && json_object_array_length(changes) &&
	    !(out->v = calloc(json_object_array_length(changes), sizeof(*out->v))))
		e = wperf_json_no_memory(err, top);
	for (size_t i = 0; !e && i < json_object_array_length(changes); i++) {
		wperf_json_index_path(sub, list, i);
		if (!(e = read_change(json_object_array_get_idx(changes, i), sub, &out->v[i], err)))
			out->n++;
	}
	if (e)
		post_changes_release(out);
	return e;
}

void post_changes_release(struct post_changes *c)
{
	json_object_put(c->doc);
	free(c->v);
	*c = (struct post_changes){0};
}

/* ---- an issue's text ---- */

/* name into b for the marker: '%', '<', '>', '!' and white space or
 * control characters percent-encoded, so that it is one word that cannot
 * end the HTML comment. */
static int marker_word(struct wperf_buf *b, const char *name)
{
	int e = 0;

	for (const unsigned char *p = (const unsigned char *)name; !e && *p; p++)
		e = *p <= ' ' || *p == 0x7f || strchr("%<>!", *p)
			? wperf_buf_printf(b, "%%%02X", *p)
			: wperf_buf_printf(b, "%c", *p);
	return e;
}

static int compose_marker(const struct post_changes *cs, const struct post_change *c,
			  struct wperf_buf *b)
{
	int e = wperf_buf_printf(b, "<!-- wperf-bench change: ");

	if (!e)
		e = marker_word(b, cs->scenario);
	if (!e)
		e = wperf_buf_printf(b, " %s ", metric_names[c->metric]);
	if (!e)
		e = marker_word(b, c->metric == POST_CHANGE_EDGE   ? c->from
				   : c->metric == POST_CHANGE_KNOT ? c->vertex
								   : "");
	if (!e && c->metric == POST_CHANGE_EDGE)
		e = wperf_buf_printf(b, " ");
	if (!e && c->metric == POST_CHANGE_EDGE)
		e = marker_word(b, c->to);
	if (!e)
		e = wperf_buf_printf(b, "%s%s -->", c->metric == POST_CHANGE_THROUGHPUT ? "" : " ",
				     c->commit);
	return e;
}

/* The level v of c's metric for people: a throughput as measured, a share
 * in percent. */
static int level_text(struct wperf_buf *b, const struct post_changes *cs,
		      const struct post_change *c, double v)
{
	if (isnan(v))
		return wperf_buf_printf(b, "-");
	if (c->metric == POST_CHANGE_THROUGHPUT)
		return wperf_buf_printf(b, "%.6g%s%s", v, cs->unit[0] ? " " : "", cs->unit);
	return wperf_buf_printf(b, "%.3g%%", 100 * v);
}

/* How much it moved: "+3.1%", "joined", "left", else the two levels. */
static int change_text(struct wperf_buf *b, const struct post_changes *cs,
		       const struct post_change *c)
{
	int e;

	if (c->metric == POST_CHANGE_KNOT)
		return wperf_buf_printf(b, "%s", c->after > c->before ? "joined" : "left");
	if (isfinite(c->change))
		return wperf_buf_printf(b, "%+.1f%%", 100 * c->change);
	e = level_text(b, cs, c, c->before);
	if (!e)
		e = wperf_buf_printf(b, " -> ");
	return e ? e : level_text(b, cs, c, c->after);
}

static int compose_title(const struct post_changes *cs, const struct post_change *c,
			 struct wperf_buf *b)
{
	int e = wperf_buf_printf(b, "wperf-bench: %s: ", cs->scenario);

	if (!e && c->metric == POST_CHANGE_THROUGHPUT)
		e = wperf_buf_printf(b, "throughput");
	else if (!e && c->metric == POST_CHANGE_EDGE)
		e = wperf_buf_printf(b, "edge %s->%s", c->from, c->to);
	else if (!e)
		e = wperf_buf_printf(b, "knot member %s", c->vertex);
	if (!e)
		e = wperf_buf_printf(b, " changed at %.*s (", SHORT_OID, c->commit);
	if (!e)
		e = change_text(b, cs, c);
	return e ? e : wperf_buf_printf(b, ")");
}

/* The body's first lines: what moved, and by how much. */
static int what_moved(const struct post_changes *cs, const struct post_change *c,
		      struct wperf_buf *b)
{
	int e = wperf_buf_printf(b, "- **what moved**: ");

	if (!e && c->metric == POST_CHANGE_THROUGHPUT)
		e = wperf_buf_printf(b, "the throughput of `%s`", cs->scenario);
	if (!e && c->metric != POST_CHANGE_THROUGHPUT)
		e = wperf_md_code(b, c->metric == POST_CHANGE_EDGE ? c->from : c->vertex);
	if (!e && c->metric == POST_CHANGE_EDGE)
		e = wperf_buf_printf(b, " → ");
	if (!e && c->metric == POST_CHANGE_EDGE)
		e = wperf_md_code(b, c->to);
	if (!e && c->metric != POST_CHANGE_THROUGHPUT)
		e = wperf_buf_printf(b, c->metric == POST_CHANGE_EDGE
					    ? ": its share of the window"
					    : ": its being in a knot (the share of the commits)");
	if (!e)
		e = wperf_buf_printf(b, "\n- **before → after**: ");
	if (!e)
		e = level_text(b, cs, c, c->before);
	if (!e)
		e = wperf_buf_printf(b, " → ");
	if (!e)
		e = level_text(b, cs, c, c->after);
	if (!e)
		e = wperf_buf_printf(b, "\n- **change**: ");
	if (!e)
		e = change_text(b, cs, c);
	return e ? e
		 : wperf_buf_printf(b,
				    ", p %.2g (Student's t between the levels; found at p below "
				    "%g)\n",
				    c->p, cs->max_p);
}

/* The commit, and how to see the change again and find its cause. */
static int where_and_how(const struct post_changes *cs, const struct post_change *c,
			 struct wperf_buf *b)
{
	int e = wperf_buf_printf(b, "- **commit**: `%s` %s (%s)\n", c->commit, c->subject, c->date);

	if (!e && c->previous)
		e = wperf_buf_printf(b, "- **the point before**: `%s`\n", c->previous);
	if (!e)
		e = wperf_buf_printf(b,
				     "\nFound by `wperf-bench history --changes` in the baseline "
				     "of `%s` across the commits that changed it (E-Divisive "
				     "means, after Apache Otava).\n\n### Reproduce\n\n```sh\n"
				     "wperf-bench history --changes %s\n",
				     cs->scenario, cs->scenario);
	if (!e && c->previous)
		e = wperf_buf_printf(b, "wperf-bench bisect --good %s --bad %s scenarios/%s.yaml\n",
				     c->previous, c->commit, cs->scenario);
	return e ? e
		 : wperf_buf_printf(b, "```\n\nThe next run that finds this change updates this "
				       "issue in place; once closed, it stays closed.\n");
}

int post_issue_compose(const struct post_changes *cs, size_t i, struct post_issue *out)
{
	const struct post_change *c = &cs->v[i];
	int e;

	*out = (struct post_issue){0};
	e = compose_marker(cs, c, &out->marker);
	if (!e)
		e = wperf_buf_append(&out->marker, "", 1); /* C strings, all three */
	if (!e)
		e = compose_title(cs, c, &out->title);
	if (!e)
		e = wperf_buf_append(&out->title, "", 1);
	if (!e)
		e = wperf_buf_printf(&out->body, "%s\n", (const char *)out->marker.data);
	if (!e)
		e = what_moved(cs, c, &out->body);
	if (!e)
		e = where_and_how(cs, c, &out->body);
	if (!e)
		e = wperf_buf_append(&out->body, "", 1);
	if (e)
		post_issue_release(out);
	return e;
}

void post_issue_release(struct post_issue *i)
{
	wperf_buf_release(&i->marker);
	wperf_buf_release(&i->title);
	wperf_buf_release(&i->body);
}
