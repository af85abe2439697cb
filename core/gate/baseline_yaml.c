/* SPDX-License-Identifier: MIT */
/*
 * Baselines (see baseline.h) as YAML: written with libyaml's emitter, read
 * with libyaml's document API and checked key by key, strictly.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "core/gate/baseline.h"
#include "core/gate/baseline_internal.h"

/* ---- writing ---- */

/* The emitter and the first error: once one call fails, the others do nothing,
 * so that the document is written as straight-line code and checked once. */
struct writer {
	yaml_emitter_t e;
	struct wperf_buf *out;
	int failed;   /* 0, or -ENOMEM or -EINVAL */
	int nomem;    /* the output buffer could not grow */
	int infinite; /* a number that is not finite */
};

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	struct writer *w = data;

	if (wperf_buf_append(w->out, buffer, size) < 0) {
		w->nomem = 1;
		return 0;
	}
	return 1;
}

/* Would a plain scalar read back as something else than this string (a number,
 * a boolean, null) in YAML 1.1 or 1.2? Then it is written double-quoted. */
static int needs_quotes(const char *s)
{
	static const char *const words[] = {"y",   "n",	   "yes", "no",	  "true", "false", "on",
					    "off", "null", "~",	  ".nan", ".inf", "-.inf", "+.inf"};
	char *end;

	if (!*s || strchr("-?:,[]{}#&*!|>'\"%@` ", *s) || s[strlen(s) - 1] == ' ')
		return 1;
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcasecmp(s, words[i]))
			return 1;
	strtod(s, &end);
	return *end == '\0' || strspn(s, "0123456789_:.+-eExXoObB") == strlen(s);
}

/* Emits an event that init made (0: it could not, out of memory or a string
 * that is not UTF-8). yaml_emitter_emit frees the event, also when it fails. */
static void emit(struct writer *w, yaml_event_t *ev, int made)
{
	if (w->failed) {
		if (made)
			yaml_event_delete(ev);
		return;
	}
	if (!made || !yaml_emitter_emit(&w->e, ev))
		w->failed = w->nomem || w->e.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
}

static void scalar(struct writer *w, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (w->failed)
		return;
	emit(w, &ev,
	     yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
					  style));
}

/* A key of a mapping: always one of the format's plain words. */
static void key(struct writer *w, const char *k)
{
	scalar(w, k, YAML_PLAIN_SCALAR_STYLE);
}

static void string(struct writer *w, const char *s)
{
	scalar(w, s, needs_quotes(s) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE);
}

/* The shortest of %.15g, %.16g, %.17g that reads back as the same double. */
static void number(struct writer *w, double v)
{
	char text[40];

	if (!isfinite(v)) {
		w->infinite = 1;
		w->failed = w->failed ? w->failed : -EINVAL;
		return;
	}
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(text, sizeof(text), "%.*g", digits, v);
		if (strtod(text, NULL) == v)
			break;
	}
	scalar(w, text, YAML_PLAIN_SCALAR_STYLE);
}

static void count(struct writer *w, uint64_t v)
{
	char text[24];

	snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	scalar(w, text, YAML_PLAIN_SCALAR_STYLE);
}

static void mapping_start(struct writer *w, int flow)
{
	yaml_event_t ev;

	emit(w, &ev,
	     !w->failed && yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							       flow ? YAML_FLOW_MAPPING_STYLE
								    : YAML_BLOCK_MAPPING_STYLE));
}

static void mapping_end(struct writer *w)
{
	yaml_event_t ev;

	emit(w, &ev, !w->failed && yaml_mapping_end_event_initialize(&ev));
}

static void sequence_start(struct writer *w, int flow)
{
	yaml_event_t ev;

	emit(w, &ev,
	     !w->failed && yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
								flow ? YAML_FLOW_SEQUENCE_STYLE
								     : YAML_BLOCK_SEQUENCE_STYLE));
}

static void sequence_end(struct writer *w)
{
	yaml_event_t ev;

	emit(w, &ev, !w->failed && yaml_sequence_end_event_initialize(&ev));
}

/* Flow sequences: [a, b] and [0.5, 0.25]. */
static void strings(struct writer *w, char *const *s, size_t n)
{
	sequence_start(w, 1);
	for (size_t i = 0; i < n; i++)
		string(w, s[i]);
	sequence_end(w);
}

static void numbers(struct writer *w, const double *v, size_t n)
{
	sequence_start(w, 1);
	for (size_t i = 0; i < n; i++)
		number(w, v[i]);
	sequence_end(w);
}

static void write_env(struct writer *w, const struct wperf_env *env)
{
	key(w, "environment");
	/* On one line, unless it has the CPU model: that one is long, and the
	 * emitter would fold it in the middle to keep within its width. */
	mapping_start(w, !env->cpu_model[0]);
	if (env->kernel[0]) {
		key(w, "kernel");
		string(w, env->kernel);
	}
	if (env->cpus) {
		key(w, "cpus");
		count(w, env->cpus);
	}
	if (env->tool[0]) {
		key(w, "tool");
		string(w, env->tool);
	}
	if (env->cpu_model[0]) {
		key(w, "cpu");
		string(w, env->cpu_model);
	}
	if (env->calibration > 0) { /* NaN too is unknown */
		key(w, "calibration");
		number(w, env->calibration);
	}
	mapping_end(w);
}

static void write_throughput(struct writer *w, const struct wperf_baseline *b)
{
	key(w, "throughput");
	mapping_start(w, 1);
	key(w, "samples");
	numbers(w, b->throughput, b->nthroughput);
	if (b->unit) {
		key(w, "unit");
		string(w, b->unit);
	}
	mapping_end(w);
}

static void write_knots(struct writer *w, const struct wperf_baseline *b)
{
	key(w, "knots");
	sequence_start(w, !b->nknots); /* [] when empty */
	for (size_t i = 0; i < b->nknots; i++) {
		mapping_start(w, 0);
		key(w, "vertices");
		strings(w, b->knots[i].vertices.ids, b->knots[i].vertices.n);
		key(w, "seen");
		count(w, b->knots[i].seen);
		mapping_end(w);
	}
	sequence_end(w);
}

static void write_edges(struct writer *w, const struct wperf_baseline *b)
{
	key(w, "edges");
	sequence_start(w, !b->nedges);
	for (size_t i = 0; i < b->nedges; i++) {
		mapping_start(w, 0);
		key(w, "from");
		string(w, b->edges[i].from);
		key(w, "to");
		string(w, b->edges[i].to);
		key(w, "samples");
		numbers(w, b->edges[i].samples, b->runs);
		mapping_end(w);
	}
	sequence_end(w);
}

static void write_accepted(struct writer *w, const struct wperf_baseline *b)
{
	if (!b->naccepted)
		return;
	key(w, "accepted");
	sequence_start(w, 0);
	for (size_t i = 0; i < b->naccepted; i++) {
		const struct wperf_accepted *a = &b->accepted[i];

		mapping_start(w, 0);
		if (a->is_edge) {
			key(w, "edge");
			mapping_start(w, 1);
			key(w, "from");
			string(w, a->globs[0]);
			key(w, "to");
			string(w, a->globs[1]);
			mapping_end(w);
		} else {
			key(w, "knot");
			strings(w, a->globs, a->nglobs);
		}
		key(w, "reason");
		string(w, a->reason);
		mapping_end(w);
	}
	sequence_end(w);
}

static void write_document(struct writer *w, const struct wperf_baseline *b)
{
	yaml_event_t ev;

	emit(w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	emit(w, &ev, !w->failed && yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
	mapping_start(w, 0);
	key(w, "format");
	scalar(w, WPERF_BASELINE_FORMAT, YAML_PLAIN_SCALAR_STYLE);
	key(w, "scenario");
	string(w, b->scenario);
	write_env(w, &b->env);
	key(w, "runs");
	count(w, b->runs);
	write_throughput(w, b);
	write_knots(w, b);
	write_edges(w, b);
	write_accepted(w, b);
	mapping_end(w);
	emit(w, &ev, !w->failed && yaml_document_end_event_initialize(&ev, 1));
	emit(w, &ev, !w->failed && yaml_stream_end_event_initialize(&ev));
	if (!w->failed && !yaml_emitter_flush(&w->e))
		w->failed = -ENOMEM;
}

int wperf_baseline_write(const struct wperf_baseline *b, struct wperf_buf *out,
			 struct wperf_error *err)
{
	struct writer w = {.out = out};
	size_t start = out->len;

	if (!b->scenario)
		return wperf_error_set(err, -EINVAL, "the baseline has no scenario name");
	if (!yaml_emitter_initialize(&w.e))
		return wperf_error_set(err, -ENOMEM, "out of memory while writing a baseline");
	yaml_emitter_set_output(&w.e, write_handler, &w);
	yaml_emitter_set_unicode(&w.e, 1);
	yaml_emitter_set_width(&w.e, 100);
	if (wperf_buf_printf(
		out, "# The wperf-bench baseline of a scenario, written by `wperf-bench "
		     "baseline update`.\n# Edit only accepted: known bottlenecks, each with a "
		     "reason.\n") < 0)
		w.failed = -ENOMEM;
	else
		write_document(&w, b);
	yaml_emitter_delete(&w.e);
	if (!w.failed)
		return 0;
	out->len = start;
	if (w.nomem || w.failed == -ENOMEM)
		return wperf_error_set(err, -ENOMEM, "out of memory while writing a baseline");
	return wperf_error_set(err, -EINVAL, "cannot write the baseline of %s: %s", b->scenario,
			       w.infinite ? "a number is not finite"
					  : "a string is not valid UTF-8");
}

/* ---- reading ---- */

struct reader {
	const char *path;
	yaml_document_t doc;
	uint8_t *visited; /* per node: an alias would visit a node twice */
	size_t nnodes;
	struct wperf_error *err;
	struct wperf_buf knots, edges, accepted; /* the arrays of out, growing */
};

/* "path:line:col: where: message", at node n. */
static int fail(struct reader *r, const yaml_node_t *n, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct reader *r, const yaml_node_t *n, const char *where, const char *fmt, ...)
{
	char msg[WPERF_ERROR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wperf_error_set(r->err, -EINVAL, "%s:%zu:%zu: %s%s%s", r->path,
			       n->start_mark.line + 1, n->start_mark.column + 1, where,
			       *where ? ": " : "", msg);
}

/* The node at index, marked as visited; NULL (with the error set) when an alias
 * brings it a second time: a baseline has no anchors and aliases. */
static yaml_node_t *node(struct reader *r, int index, const char *where)
{
	yaml_node_t *n = yaml_document_get_node(&r->doc, index);
	size_t i = (size_t)index - 1;

	if (!n) { /* libyaml never gives a dangling index; guard anyway */
		wperf_error_set(r->err, -EINVAL, "%s: %s: a node that does not exist", r->path,
				where);
		return NULL;
	}
	if (i < r->nnodes) {
		if (r->visited[i]) {
			fail(r, n, where, "aliases (*name) are not allowed in a baseline");
			return NULL;
		}
		r->visited[i] = 1;
	}
	return n;
}

static const char *node_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static int is_null(const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;

	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*v || !strcmp(v, "~") || !strcasecmp(v, "null"));
}

/* A string: any scalar but a plain null, without NUL bytes; *out is malloc'ed. */
static int get_string(struct reader *r, const yaml_node_t *n, const char *where, char **out)
{
	if (n->type != YAML_SCALAR_NODE || is_null(n))
		return fail(r, n, where, "expected a string, found %s",
			    n->type == YAML_SCALAR_NODE ? "nothing" : node_kind(n));
	if (memchr(n->data.scalar.value, '\0', n->data.scalar.length))
		return fail(r, n, where, "a string with a NUL character");
	*out = strndup((const char *)n->data.scalar.value, n->data.scalar.length);
	return *out ? 0 : wperf_error_set(r->err, -ENOMEM, "out of memory reading %s", r->path);
}

/* A string into a fixed-size field. */
static int get_fixed(struct reader *r, const yaml_node_t *n, const char *where, char *out,
		     size_t size)
{
	char *s;
	int ret = get_string(r, n, where, &s);

	if (ret)
		return ret;
	if (strlen(s) >= size) {
		free(s);
		return fail(r, n, where, "longer than %zu bytes", size - 1);
	}
	strcpy(out, s);
	free(s);
	return 0;
}

/* A plain scalar: numbers are never quoted. */
static const char *plain(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

/* A whole number from 0 to max. */
static int get_count(struct reader *r, const yaml_node_t *n, const char *where, uint64_t max,
		     uint64_t *out)
{
	const char *v = plain(n);
	unsigned long long x;
	char *end;

	if (!v || !*v || strspn(v, "0123456789") != strlen(v))
		return fail(r, n, where, "expected a whole number");
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || x > max)
		return fail(r, n, where, "%s is out of range (at most %llu)", v,
			    (unsigned long long)max);
	*out = x;
	return 0;
}

/* A finite number, not below min. */
static int get_number(struct reader *r, const yaml_node_t *n, const char *where, double min,
		      double *out)
{
	const char *v = plain(n);
	char *end;

	if (!v || !*v || strspn(v, "0123456789+-.eE") != strlen(v))
		return fail(r, n, where, "expected a number");
	*out = strtod(v, &end);
	if (*end || !isfinite(*out))
		return fail(r, n, where, "expected a number");
	if (*out < min)
		return fail(r, n, where, "%s is below %g", v, min);
	return 0;
}

static int want_type(struct reader *r, const yaml_node_t *n, const char *where,
		     yaml_node_type_t type)
{
	if (n->type == type)
		return 0;
	return fail(r, n, where, "expected %s, found %s",
		    type == YAML_MAPPING_NODE ? "a mapping" : "a list", node_kind(n));
}

/*
 * The values of mapping n for the nkeys known keys (NULL where a key is
 * missing). An unknown key, a key that is not a string, a duplicate, or a
 * missing key of the first nrequired is an error.
 */
static int get_keys(struct reader *r, const yaml_node_t *n, const char *where,
		    const char *const *keys, size_t nkeys, size_t nrequired, yaml_node_t **values)
{
	int ret = want_type(r, n, where, YAML_MAPPING_NODE);
	char sub[256];

	if (ret)
		return ret;
	for (size_t i = 0; i < nkeys; i++)
		values[i] = NULL;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node(r, p->key, where), *v;
		size_t i = 0;

		if (!k)
			return -EINVAL;
		if (k->type != YAML_SCALAR_NODE)
			return fail(r, k, where, "a key must be a word, found %s", node_kind(k));
		while (i < nkeys && strcmp((const char *)k->data.scalar.value, keys[i]))
			i++;
		snprintf(sub, sizeof(sub), "%s%s%.80s", where, *where ? "." : "",
			 (const char *)k->data.scalar.value);
		if (i == nkeys)
			return fail(r, k, sub, "unknown key");
		if (values[i])
			return fail(r, k, sub, "duplicate key");
		v = node(r, p->value, sub);
		if (!v)
			return -EINVAL;
		values[i] = v;
	}
	for (size_t i = 0; i < nrequired; i++)
		if (!values[i])
			return fail(r, n, where, "missing key \"%s\"", keys[i]);
	return 0;
}

/* The items of list n: *items from the document's item stack, *count of them. */
static int get_list(struct reader *r, const yaml_node_t *n, const char *where,
		    yaml_node_item_t **items, size_t *count)
{
	int ret = want_type(r, n, where, YAML_SEQUENCE_NODE);

	if (ret)
		return ret;
	*items = n->data.sequence.items.start;
	*count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	return 0;
}

/* A list of numbers (not below min) into a malloc'ed array. */
static int get_numbers(struct reader *r, const yaml_node_t *n, const char *where, double min,
		       double **out, size_t *count)
{
	yaml_node_item_t *items;
	char sub[300];
	int ret = get_list(r, n, where, &items, count);

	if (ret)
		return ret;
	*out = calloc(*count ? *count : 1, sizeof(**out));
	if (!*out)
		return wperf_error_set(r->err, -ENOMEM, "out of memory reading %s", r->path);
	for (size_t i = 0; i < *count; i++) {
		yaml_node_t *v;

		snprintf(sub, sizeof(sub), "%s[%zu]", where, i);
		if (!(v = node(r, items[i], sub)))
			return -EINVAL;
		if ((ret = get_number(r, v, sub, min, &(*out)[i])))
			return ret;
	}
	return 0;
}

/* A non-empty list of strings into a malloc'ed array of malloc'ed strings. */
static int get_strings(struct reader *r, const yaml_node_t *n, const char *where, char ***out,
		       size_t *count)
{
	yaml_node_item_t *items;
	size_t nitems;
	char sub[300];
	int ret = get_list(r, n, where, &items, &nitems);

	if (ret)
		return ret;
	if (!nitems)
		return fail(r, n, where, "expected at least one name");
	*out = calloc(nitems, sizeof(**out));
	if (!*out)
		return wperf_error_set(r->err, -ENOMEM, "out of memory reading %s", r->path);
	for (*count = 0; *count < nitems; (*count)++) {
		yaml_node_t *v;

		snprintf(sub, sizeof(sub), "%s[%zu]", where, *count);
		if (!(v = node(r, items[*count], sub)))
			return -EINVAL;
		if ((ret = get_string(r, v, sub, &(*out)[*count])))
			return ret;
	}
	return 0;
}

static int read_env(struct reader *r, const yaml_node_t *n, struct wperf_env *env)
{
	static const char *const keys[] = {"kernel", "cpus", "tool", "cpu", "calibration"};
	yaml_node_t *v[5];
	uint64_t cpus = 0;
	int ret = get_keys(r, n, "environment", keys, 5, 0, v);

	if (!ret && v[0])
		ret = get_fixed(r, v[0], "environment.kernel", env->kernel, sizeof(env->kernel));
	if (!ret && v[1])
		ret = get_count(r, v[1], "environment.cpus", UINT32_MAX, &cpus);
	if (!ret && v[2])
		ret = get_fixed(r, v[2], "environment.tool", env->tool, sizeof(env->tool));
	if (!ret && v[3])
		ret = get_fixed(r, v[3], "environment.cpu", env->cpu_model, sizeof(env->cpu_model));
	if (!ret && v[4])
		ret = get_number(r, v[4], "environment.calibration", 0, &env->calibration);
	if (!(env->calibration > 0)) /* -0 too is unknown, and left out when written */
		env->calibration = 0;
	env->cpus = (uint32_t)cpus;
	return ret;
}

static int read_throughput(struct reader *r, const yaml_node_t *n, struct wperf_baseline *b)
{
	static const char *const keys[] = {"samples", "unit"};
	yaml_node_t *v[2];
	int ret = get_keys(r, n, "throughput", keys, 2, 1, v);

	if (!ret)
		ret = get_numbers(r, v[0], "throughput.samples", -INFINITY, &b->throughput,
				  &b->nthroughput);
	if (!ret && b->nthroughput > b->runs)
		ret = fail(r, v[0], "throughput.samples", "%zu samples for %zu runs",
			   b->nthroughput, b->runs);
	if (!ret && v[1])
		ret = get_string(r, v[1], "throughput.unit", &b->unit);
	return ret;
}

/* A knot or an edge as read, with its place in the file's list, for sorting. */
struct placed {
	const void *item; /* a struct wperf_baseline_knot or edge */
	size_t index;
};

static int cmp_placed_knot(const void *pa, const void *pb)
{
	const struct placed *a = pa, *b = pb;
	const struct wperf_baseline_knot *ka = a->item, *kb = b->item;
	int c = wperf_idset_cmp(&ka->vertices, &kb->vertices);

	return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* The node of item i of list n. */
static const yaml_node_t *item_node(struct reader *r, const yaml_node_t *n, size_t i)
{
	return yaml_document_get_node(&r->doc, n->data.sequence.items.start[i]);
}

/* No knot twice (the second one in the file is named); the order is kept. */
static int check_knots(struct reader *r, const yaml_node_t *n, const struct wperf_baseline *b)
{
	struct placed *p;
	int ret = 0;

	if (b->nknots < 2)
		return 0;
	p = calloc(b->nknots, sizeof(*p));
	if (!p)
		return wperf_error_set(r->err, -ENOMEM, "out of memory reading %s", r->path);
	for (size_t i = 0; i < b->nknots; i++)
		p[i] = (struct placed){&b->knots[i], i};
	qsort(p, b->nknots, sizeof(*p), cmp_placed_knot);
	for (size_t i = 1; i < b->nknots && !ret; i++) {
		const struct wperf_baseline_knot *prev = p[i - 1].item, *k = p[i].item;

		if (!wperf_idset_cmp(&prev->vertices, &k->vertices))
			ret = fail(r, item_node(r, n, p[i].index), "",
				   "knots[%zu]: the same knot as knots[%zu]", p[i].index,
				   p[i - 1].index);
	}
	free(p);
	return ret;
}

static int read_knots(struct reader *r, const yaml_node_t *n, struct wperf_baseline *b)
{
	static const char *const keys[] = {"vertices", "seen"};
	yaml_node_item_t *items;
	size_t count = 0;
	int ret = get_list(r, n, "knots", &items, &count);

	for (size_t i = 0; i < count && !ret; i++) {
		struct wperf_baseline_knot k = {0};
		yaml_node_t *item, *v[2];
		char where[64], sub[80];
		uint64_t seen = 0;
		char **ids = NULL;
		size_t nids = 0;

		snprintf(where, sizeof(where), "knots[%zu]", i);
		if (!(item = node(r, items[i], where)))
			return -EINVAL;
		ret = get_keys(r, item, where, keys, 2, 2, v);
		snprintf(sub, sizeof(sub), "%s.vertices", where);
		ret = ret ? ret : get_strings(r, v[0], sub, &ids, &nids);
		snprintf(sub, sizeof(sub), "%s.seen", where);
		ret = ret ? ret : get_count(r, v[1], sub, b->runs, &seen);
		if (!ret)
			ret = wperf_idset_from((const char *const *)ids, nids, &k.vertices);
		k.seen = seen;
		if (!ret)
			ret = wperf_baseline_grow(&r->knots, &b->knots, &b->nknots, &k, sizeof(k));
		if (ret == -ENOMEM)
			wperf_error_set(r->err, ret, "out of memory reading %s", r->path);
		if (ret)
			wperf_idset_release(&k.vertices);
		wperf_baseline_free_strings(ids, nids);
	}
	return ret ? ret : check_knots(r, n, b);
}

static int read_edges(struct reader *r, const yaml_node_t *n, struct wperf_baseline *b)
{
	static const char *const keys[] = {"from", "to", "samples"};
	yaml_node_item_t *items;
	size_t count = 0;
	int ret = get_list(r, n, "edges", &items, &count);

	for (size_t i = 0; i < count && !ret; i++) {
		struct wperf_baseline_edge e = {0};
		yaml_node_t *item, *v[3];
		char where[64], sub[80];
		size_t nsamples = 0;

		snprintf(where, sizeof(where), "edges[%zu]", i);
		if (!(item = node(r, items[i], where)))
			return -EINVAL;
		ret = get_keys(r, item, where, keys, 3, 3, v);
		snprintf(sub, sizeof(sub), "%s.from", where);
		ret = ret ? ret : get_string(r, v[0], sub, &e.from);
		snprintf(sub, sizeof(sub), "%s.to", where);
		ret = ret ? ret : get_string(r, v[1], sub, &e.to);
		snprintf(sub, sizeof(sub), "%s.samples", where);
		ret = ret ? ret : get_numbers(r, v[2], sub, 0, &e.samples, &nsamples);
		if (!ret && nsamples != b->runs)
			ret = fail(r, v[2], sub, "%zu samples, expected one per run: %zu", nsamples,
				   b->runs);
		if (!ret)
			ret = wperf_baseline_grow(&r->edges, &b->edges, &b->nedges, &e, sizeof(e));
		if (ret) {
			free(e.from);
			free(e.to);
			free(e.samples);
		}
	}
	return ret;
}

static int cmp_placed_edge(const void *pa, const void *pb)
{
	const struct placed *a = pa, *b = pb;
	int c = wperf_baseline_cmp_edge(a->item, b->item);

	return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* The edges sorted, and no edge twice (the second one in the file is named). */
static int check_edges(struct reader *r, const yaml_node_t *n, struct wperf_baseline *b)
{
	struct wperf_baseline_edge *sorted;
	struct placed *p;
	int ret = 0;

	if (b->nedges < 2)
		return 0;
	p = calloc(b->nedges, sizeof(*p));
	sorted = calloc(b->nedges, sizeof(*sorted));
	if (!p || !sorted) {
		free(p);
		free(sorted);
		return wperf_error_set(r->err, -ENOMEM, "out of memory reading %s", r->path);
	}
	for (size_t i = 0; i < b->nedges; i++)
		p[i] = (struct placed){&b->edges[i], i};
	qsort(p, b->nedges, sizeof(*p), cmp_placed_edge);
	for (size_t i = 0; i < b->nedges; i++) {
		sorted[i] = b->edges[p[i].index];
		if (i && !ret && !wperf_baseline_cmp_edge(&sorted[i - 1], &sorted[i]))
			ret = fail(r, item_node(r, n, p[i].index), "",
				   "edges[%zu]: edge %s -> %s, listed twice", p[i].index,
				   sorted[i].from, sorted[i].to);
	}
	memcpy(b->edges, sorted, b->nedges * sizeof(*sorted));
	free(sorted);
	free(p);
	return ret;
}

static int read_accepted(struct reader *r, const yaml_node_t *n, struct wperf_baseline *b)
{
	static const char *const keys[] = {"reason", "knot", "edge"};
	static const char *const edge_keys[] = {"from", "to"};
	yaml_node_item_t *items;
	size_t count = 0;
	int ret = get_list(r, n, "accepted", &items, &count);

	for (size_t i = 0; i < count && !ret; i++) {
		struct wperf_accepted a = {0};
		yaml_node_t *item, *v[3], *ends[2];
		char where[64], sub[80];

		snprintf(where, sizeof(where), "accepted[%zu]", i);
		if (!(item = node(r, items[i], where)))
			return -EINVAL;
		ret = get_keys(r, item, where, keys, 3, 1, v);
		if (!ret && !v[1] == !v[2])
			ret = fail(r, item, where, "expected one of \"knot\" or \"edge\"");
		snprintf(sub, sizeof(sub), "%s.reason", where);
		ret = ret ? ret : get_string(r, v[0], sub, &a.reason);
		if (!ret && !*a.reason)
			ret = fail(r, v[0], sub, "say why this bottleneck is accepted");
		if (!ret && v[1]) {
			snprintf(sub, sizeof(sub), "%s.knot", where);
			ret = get_strings(r, v[1], sub, &a.globs, &a.nglobs);
		} else if (!ret) {
			a.is_edge = 1;
			snprintf(sub, sizeof(sub), "%s.edge", where);
			ret = get_keys(r, v[2], sub, edge_keys, 2, 2, ends);
			if (!ret && !(a.globs = calloc(2, sizeof(*a.globs))))
				ret = wperf_error_set(r->err, -ENOMEM, "out of memory reading %s",
						      r->path);
			snprintf(sub, sizeof(sub), "%s.edge.from", where);
			ret = ret ? ret : get_string(r, ends[0], sub, &a.globs[a.nglobs++]);
			snprintf(sub, sizeof(sub), "%s.edge.to", where);
			ret = ret ? ret : get_string(r, ends[1], sub, &a.globs[a.nglobs++]);
		}
		if (!ret)
			ret = wperf_baseline_grow(&r->accepted, &b->accepted, &b->naccepted, &a,
						  sizeof(a));
		if (ret) {
			wperf_baseline_free_strings(a.globs, a.nglobs);
			free(a.reason);
		}
	}
	return ret;
}

/* The format is checked before anything else: a baseline of another version
 * may well have keys this one does not know, but that is not what to say. */
static int check_format(struct reader *r, const yaml_node_t *root)
{
	if (root->type != YAML_MAPPING_NODE)
		return 0; /* read_root says so */
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&r->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&r->doc, p->value);

		if (!k || !v || k->type != YAML_SCALAR_NODE ||
		    strcmp((const char *)k->data.scalar.value, "format"))
			continue;
		if (v->type != YAML_SCALAR_NODE)
			return fail(r, v, "format", "expected a string, found %s", node_kind(v));
		if (strcmp((const char *)v->data.scalar.value, WPERF_BASELINE_FORMAT))
			return fail(r, v, "format",
				    "unsupported format \"%.100s\" (this wperf-bench reads %s)",
				    (const char *)v->data.scalar.value, WPERF_BASELINE_FORMAT);
	}
	return 0;
}

static int read_root(struct reader *r, const yaml_node_t *root, struct wperf_baseline *b)
{
	static const char *const keys[] = {"format",	 "scenario", "runs",  "environment",
					   "throughput", "knots",    "edges", "accepted"};
	yaml_node_t *v[8];
	uint64_t runs = 0;
	int ret = check_format(r, root);

	ret = ret ? ret : get_keys(r, root, "", keys, 8, 3, v);
	/* format is there (a required key) and right (check_format). */
	ret = ret ? ret : get_string(r, v[1], "scenario", &b->scenario);
	ret = ret ? ret : get_count(r, v[2], "runs", 1000000, &runs);
	if (!ret && runs == 0)
		ret = fail(r, v[2], "runs", "a baseline needs at least one run");
	b->runs = runs;
	if (!ret && v[3])
		ret = read_env(r, v[3], &b->env);
	if (!ret && v[4])
		ret = read_throughput(r, v[4], b);
	if (!ret && v[5])
		ret = read_knots(r, v[5], b);
	if (!ret && v[6])
		ret = read_edges(r, v[6], b);
	if (!ret && v[6])
		ret = check_edges(r, v[6], b);
	if (!ret && v[7])
		ret = read_accepted(r, v[7], b);
	return ret;
}

/* The parser's error as "path:line:col: problem (context at line:col)". */
static int parse_error(struct reader *r, const yaml_parser_t *p, const char *text, size_t len)
{
	if (p->error == YAML_MEMORY_ERROR)
		return wperf_error_set(r->err, -ENOMEM, "out of memory reading %s", r->path);
	if (p->error == YAML_READER_ERROR) {
		/* Bad bytes: libyaml gives an offset, not a mark. */
		size_t line = 1, col = 1;

		for (size_t i = 0; i < p->problem_offset && i < len; i++, col++)
			if (text[i] == '\n')
				line++, col = 0;
		return wperf_error_set(r->err, -EINVAL, "%s:%zu:%zu: %s (byte 0x%02x)", r->path,
				       line, col, p->problem ? p->problem : "not UTF-8",
				       (unsigned)p->problem_value & 0xff);
	}
	if (p->context)
		return wperf_error_set(r->err, -EINVAL, "%s:%zu:%zu: %s (%s at %zu:%zu)", r->path,
				       p->problem_mark.line + 1, p->problem_mark.column + 1,
				       p->problem ? p->problem : "not YAML", p->context,
				       p->context_mark.line + 1, p->context_mark.column + 1);
	return wperf_error_set(r->err, -EINVAL, "%s:%zu:%zu: %s", r->path, p->problem_mark.line + 1,
			       p->problem_mark.column + 1, p->problem ? p->problem : "not YAML");
}

/* A baseline nests 4 levels deep (accepted, an entry, its edge, from); deeper
 * is a mistake, and libyaml's scanner slows down quadratically with depth. */
#define MAX_DEPTH 16

/* A first pass over the events, which stops at the first level too deep before
 * the slow part can start; it also reports syntax errors. */
static int check_depth(struct reader *r, const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, ret = 0;

	if (!yaml_parser_initialize(&p))
		return wperf_error_set(r->err, -ENOMEM, "out of memory reading %s", r->path);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!ret) {
		yaml_event_type_t type;

		if (!yaml_parser_parse(&p, &ev)) {
			ret = parse_error(r, &p, text, len);
			break;
		}
		type = ev.type;
		if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT)
			depth--;
		if (depth > MAX_DEPTH)
			ret = wperf_error_set(
			    r->err, -EINVAL, "%s:%zu:%zu: nested deeper than %d levels", r->path,
			    ev.start_mark.line + 1, ev.start_mark.column + 1, MAX_DEPTH);
		yaml_event_delete(&ev);
		if (type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&p);
	return ret;
}

int wperf_baseline_read(const char *path_for_messages, const char *text, size_t len,
			struct wperf_baseline *out, struct wperf_error *err)
{
	struct reader r = {.path = path_for_messages ? path_for_messages : "baseline", .err = err};
	yaml_parser_t p;
	yaml_document_t next;
	yaml_node_t *root;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = check_depth(&r, text, len)))
		return ret;
	if (!yaml_parser_initialize(&p))
		return wperf_error_set(err, -ENOMEM, "out of memory reading %s", r.path);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &r.doc)) {
		ret = parse_error(&r, &p, text, len);
		yaml_parser_delete(&p);
		return ret;
	}
	root = yaml_document_get_root_node(&r.doc);
	if (!root) {
		ret = wperf_error_set(err, -EINVAL, "%s: empty: expected a baseline", r.path);
	} else if (!yaml_parser_load(&p, &next)) {
		ret = parse_error(&r, &p, text, len);
	} else {
		/* One document only: a second one would be silently ignored otherwise. */
		yaml_node_t *second = yaml_document_get_root_node(&next);

		ret =
		    second ? fail(&r, second, "", "a second YAML document; a baseline is one") : 0;
		yaml_document_delete(&next);
	}
	if (!ret) {
		r.nnodes = (size_t)(r.doc.nodes.top - r.doc.nodes.start);
		r.visited = calloc(r.nnodes ? r.nnodes : 1, 1);
		if (!r.visited)
			ret = wperf_error_set(err, -ENOMEM, "out of memory reading %s", r.path);
		else
			r.visited[0] = 1; /* the root */
	}
	if (!ret)
		ret = read_root(&r, root, out);
	free(r.visited);
	yaml_document_delete(&r.doc);
	yaml_parser_delete(&p);
	if (ret)
		wperf_baseline_release(out);
	return ret;
}
