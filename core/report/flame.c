/* SPDX-License-Identifier: MIT */
/*
 * The differential flame graph's tree (flame.h, flame_internal.h): filled from
 * stacks and folded text, and written as text: the differential folded
 * stacks and the stacks that grew most. The picture is flame_svg.c's.
 */
#include "core/report/flame_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/report/report.h"

/* ---- the tree ---- */

/* Makes the node named name (n bytes) under parent, not yet among its kids. */
static int64_t make_node(struct wperf_flame *f, uint32_t parent, const char *name, size_t n)
{
	struct flame_node *made;
	size_t id = node_count(f), offset = f->names.len;

	if (id >= UINT32_MAX || offset > UINT32_MAX || wperf_buf_reserve(&f->names, n + 1) < 0)
		return -ENOMEM;
	made = wperf_buf_push(&f->nodes, sizeof(*made));
	if (!made)
		return -ENOMEM;
	made->name = (uint32_t)offset;
	made->parent = parent;
	memcpy(f->names.data + offset, name, n);
	f->names.data[offset + n] = '\0';
	f->names.len += n + 1;
	return (int64_t)id;
}

/* The callee of node named name (n bytes): its index, or -1 and in *pos where
 * it would go among node's kids. */
static int64_t find_kid(const struct wperf_flame *f, uint32_t node, const char *name, size_t n,
			size_t *pos)
{
	size_t lo = 0, hi;
	const uint32_t *kids = kids_of(node_at(f, node), &hi);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *kid = name_of(f, node_at(f, kids[mid]));
		size_t kid_len = strlen(kid);
		int c = memcmp(kid, name, kid_len < n ? kid_len : n);

		if (!c)
			c = (kid_len > n) - (kid_len < n);
		if (!c)
			return kids[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return -1;
}

/* The callee of node named name (n bytes), made when it is not there yet. */
static int64_t descend(struct wperf_flame *f, uint32_t node, const char *name, size_t n)
{
	size_t pos, count;
	int64_t kid = find_kid(f, node, name, n, &pos);
	struct flame_node *p;
	uint32_t *kids;

	if (kid >= 0)
		return kid;
	if (wperf_buf_reserve(&node_at(f, node)->kids, sizeof(uint32_t)) < 0)
		return -ENOMEM;
	kid = make_node(f, node, name, n);
	if (kid < 0)
		return kid;
	p = node_at(f, node); /* the nodes may have moved */
	kids = (uint32_t *)p->kids.data;
	count = p->kids.len / sizeof(uint32_t);
	memmove(kids + pos + 1, kids + pos, (count - pos) * sizeof(uint32_t));
	kids[pos] = (uint32_t)kid;
	p->kids.len += sizeof(uint32_t);
	return kid;
}

/* Counts a stack that ends at leaf: its time in every frame down to the root. */
static void add_counts(struct wperf_flame *f, uint32_t leaf, double a, double b)
{
	node_at(f, leaf)->self_a += a;
	node_at(f, leaf)->self_b += b;
	for (uint32_t id = leaf;; id = node_at(f, id)->parent) {
		node_at(f, id)->a += a;
		node_at(f, id)->b += b;
		if (id == ROOT)
			break;
	}
}

static int count_ok(double v)
{
	return isfinite(v) && v >= 0;
}

/* The frame of a ';'-joined stack (len bytes) at *at: its start, its length in
 * *n, and *at moved past it and its ';'; NULL after the last frame. */
static const char *next_frame(const char *stack, size_t len, size_t *at, size_t *n)
{
	const char *start, *semi;

	if (*at > len)
		return NULL;
	start = stack + *at;
	semi = memchr(start, ';', len - *at);
	*n = semi ? (size_t)(semi - start) : len - *at;
	*at += *n + 1;
	return start;
}

/* What is wrong with a ';'-joined stack (len bytes), NULL when nothing is. */
static const char *stack_problem(const char *stack, size_t len)
{
	size_t at = 0, n, frames = 0;

	while (next_frame(stack, len, &at, &n)) {
		if (n == 0)
			return "an empty frame (';;', or ';' at an end)";
		if (++frames > WPERF_FLAME_MAX_FRAMES)
			return "more than " STR(WPERF_FLAME_MAX_FRAMES) " frames";
	}
	return NULL;
}

/* Adds a ';'-joined stack without a stack_problem. */
static int add_joined(struct wperf_flame *f, const char *stack, size_t len, double a, double b)
{
	int64_t node = ROOT;
	size_t at = 0, n;
	const char *frame;

	if (a == 0 && b == 0)
		return 0;
	while (node >= 0 && (frame = next_frame(stack, len, &at, &n)))
		node = descend(f, (uint32_t)node, frame, n);
	if (node < 0)
		return (int)node;
	add_counts(f, (uint32_t)node, a, b);
	return 0;
}

int wperf_flame_new(struct wperf_flame **out)
{
	struct wperf_flame *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f || make_node(f, ROOT, ROOT_NAME, strlen(ROOT_NAME)) < 0) {
		wperf_flame_free(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void wperf_flame_free(struct wperf_flame *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < node_count(f); i++)
		wperf_buf_release(&node_at(f, (uint32_t)i)->kids);
	wperf_buf_release(&f->nodes);
	wperf_buf_release(&f->names);
	free(f);
}

int wperf_flame_add(struct wperf_flame *f, const char *const *frames, size_t n, double count_a,
		    double count_b)
{
	int64_t node = ROOT;

	if (!count_ok(count_a) || !count_ok(count_b) || n == 0 || n > WPERF_FLAME_MAX_FRAMES)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!frames[i][0])
			return -EINVAL;
	if (count_a == 0 && count_b == 0)
		return 0;
	for (size_t i = 0; i < n && node >= 0; i++)
		node = descend(f, (uint32_t)node, frames[i], strlen(frames[i]));
	if (node < 0)
		return (int)node;
	add_counts(f, (uint32_t)node, count_a, count_b);
	return 0;
}

int wperf_flame_add_stack(struct wperf_flame *f, const char *stack, double count_a, double count_b)
{
	size_t len = strlen(stack);

	if (!count_ok(count_a) || !count_ok(count_b) || stack_problem(stack, len))
		return -EINVAL;
	return add_joined(f, stack, len, count_a, count_b);
}

/* ---- folded text ---- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The count of a line, its n bytes at text; 0, or -EINVAL when it is no count. */
static int parse_count(const char *text, size_t n, double *count)
{
	char number[64], *end;

	if (n == 0 || n >= sizeof(number))
		return -EINVAL;
	memcpy(number, text, n);
	number[n] = '\0';
	*count = strtod(number, &end);
	return end == number + n && count_ok(*count) ? 0 : -EINVAL;
}

/* Adds one line of folded text (len bytes, its '\n' left out), line lineno. */
static int parse_line(struct wperf_flame *f, enum wperf_flame_side side, const char *line,
		      size_t len, size_t lineno, struct wperf_error *err)
{
	size_t sep, stack_len;
	const char *problem;
	double count;

	if (memchr(line, '\0', len))
		return wperf_error_set(err, -EINVAL, "line %zu: a NUL byte", lineno);
	while (len && (is_blank(line[len - 1]) || line[len - 1] == '\r'))
		len--;
	if (len == 0)
		return 0;
	for (sep = len; sep > 0 && !is_blank(line[sep - 1]); sep--)
		;
	if (sep == 0)
		return wperf_error_set(err, -EINVAL,
				       "line %zu: no count after the stack (FRAME;FRAME;... COUNT)",
				       lineno);
	if (parse_count(line + sep, len - sep, &count) < 0)
		return wperf_error_set(err, -EINVAL,
				       "line %zu: '%.*s' is not a count (a number >= 0)", lineno,
				       (int)(len - sep < 40 ? len - sep : 40), line + sep);
	for (stack_len = sep; stack_len > 0 && is_blank(line[stack_len - 1]); stack_len--)
		;
	if (stack_len == 0)
		return wperf_error_set(err, -EINVAL, "line %zu: no stack before the count", lineno);
	problem = stack_problem(line, stack_len);
	if (problem)
		return wperf_error_set(err, -EINVAL, "line %zu: %s", lineno, problem);
	if (add_joined(f, line, stack_len, side == WPERF_FLAME_A ? count : 0,
		       side == WPERF_FLAME_B ? count : 0) < 0)
		return wperf_error_set(err, -ENOMEM, "line %zu: out of memory", lineno);
	return 0;
}

int wperf_flame_parse(struct wperf_flame *f, enum wperf_flame_side side, const char *text,
		      size_t len, struct wperf_error *err)
{
	size_t lineno = 0;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		int ret = parse_line(f, side, p, (size_t)(eol - p), ++lineno, err);

		if (ret < 0)
			return ret;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

void wperf_flame_totals(const struct wperf_flame *f, double *count_a, double *count_b)
{
	*count_a = node_at(f, ROOT)->a;
	*count_b = node_at(f, ROOT)->b;
}

int wperf_flame_counts(const struct wperf_flame *f, const char *stack, double *count_a,
		       double *count_b)
{
	size_t len = strlen(stack), at = 0, n, pos;
	int64_t node = ROOT;
	const char *frame;

	while (len && node >= 0 && (frame = next_frame(stack, len, &at, &n)))
		node = find_kid(f, (uint32_t)node, frame, n, &pos);
	if (node < 0)
		return -ENOENT;
	*count_a = node_at(f, (uint32_t)node)->a;
	*count_b = node_at(f, (uint32_t)node)->b;
	return 0;
}

/* ---- what the writers share ---- */

void flame_view_init(struct flame_view *v, const struct wperf_flame *f,
		     const struct wperf_flame_opts *o)
{
	static const struct wperf_flame_opts defaults = {0};

	o = o ? o : &defaults;
	v->f = f;
	v->scale_a = o->scale_a > 0 ? o->scale_a : 1;
	v->scale_b = o->scale_b > 0 ? o->scale_b : 1;
	v->width = o->width <= WPERF_FLAME_WIDTH_MAX ? o->width : WPERF_FLAME_WIDTH_B;
	/* room for the margins and a frame at least */
	v->image_px = o->image_px ? fmax(o->image_px, 10 * PAD_X) : IMAGE_PX;
	v->min_frame_px = o->min_frame_px > 0 ? o->min_frame_px : MIN_FRAME_PX;
	v->title = o->title ? o->title : "Differential flame graph";
	v->unit = o->unit ? o->unit : "µs";
}

/* A frame's B - A after scaling, its callees' time included. */
double flame_frame_change(const struct flame_view *v, const struct flame_node *n)
{
	return n->b * v->scale_b - n->a * v->scale_a;
}

/* Is the change worth a colour or a line, or only rounding of the scaling? */
int flame_changed(double change, double a, double b)
{
	return fabs(change) > 1e-9 * fmax(a, b);
}

/* A number as people read it: whole above 100, three digits below. */
const char *flame_number(char buf[32], double v)
{
	double m = fabs(v);

	if (m == 0)
		return "0";
	snprintf(buf, 32, m >= 99.95 ? "%.0f" : "%.3g", v);
	return buf;
}

/* Visits every stack (a node with time of its own) in the tree's order, its
 * frames in path. */
struct stack_walk {
	const struct flame_view *v;
	struct wperf_buf path;
	int (*visit)(struct stack_walk *w, const struct flame_node *n);
	struct wperf_buf *out;
	struct wperf_buf found; /* wperf_flame_growing's */
};

static int walk_stacks(struct stack_walk *w, uint32_t id)
{
	const struct flame_node *n = node_at(w->v->f, id);
	size_t keep = w->path.len, count;
	const uint32_t *kids = kids_of(n, &count);
	int ret = id == ROOT ? 0
			     : wperf_folded_frame(&w->path, name_of(w->v->f, n),
						  strlen(name_of(w->v->f, n)));

	if (!ret && id != ROOT && (n->self_a > 0 || n->self_b > 0))
		ret = w->visit(w, n);
	for (size_t i = 0; i < count && !ret; i++)
		ret = walk_stacks(w, kids[i]);
	w->path.len = keep;
	return ret;
}

/* ---- differential folded stacks ---- */

static int visit_folded(struct stack_walk *w, const struct flame_node *n)
{
	if (wperf_buf_append(w->out, w->path.data, w->path.len) < 0)
		return -ENOMEM;
	return wperf_buf_printf(w->out, " %.12g %.12g\n", n->self_a * w->v->scale_a,
				n->self_b * w->v->scale_b);
}

int wperf_flame_folded(const struct wperf_flame *f, const struct wperf_flame_opts *o,
		       struct wperf_buf *out)
{
	struct flame_view v;
	struct stack_walk w = {.v = &v, .visit = visit_folded, .out = out};
	int ret;

	flame_view_init(&v, f, o);
	ret = walk_stacks(&w, ROOT);
	wperf_buf_release(&w.path);
	return ret < 0 ? -ENOMEM : 0;
}

/* ---- the stacks that grew most ---- */

struct grown {
	double change, a, b;
	size_t seq;	       /* in the tree's order, for ties */
	size_t path, path_len; /* in the walk's out */
};

static int visit_growing(struct stack_walk *w, const struct flame_node *n)
{
	double a = n->self_a * w->v->scale_a, b = n->self_b * w->v->scale_b, change = b - a;
	struct grown *g;

	if (change <= 0 || !flame_changed(change, a, b))
		return 0;
	g = wperf_buf_push(&w->found, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*g = (struct grown){change, a, b, w->found.len / sizeof(*g), w->out->len, w->path.len};
	return wperf_buf_append(w->out, w->path.data, w->path.len);
}

static int by_growth(const void *x, const void *y)
{
	const struct grown *a = x, *b = y;

	if (a->change != b->change)
		return a->change > b->change ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

int wperf_flame_growing(const struct wperf_flame *f, const struct wperf_flame_opts *o, size_t n,
			struct wperf_buf *out)
{
	struct flame_view v;
	struct wperf_buf paths = {0};
	struct stack_walk w = {.v = &v, .visit = visit_growing, .out = &paths};
	const struct grown *g;
	size_t count;
	int ret;

	flame_view_init(&v, f, o);
	ret = walk_stacks(&w, ROOT);
	count = w.found.len / sizeof(*g);
	if (!ret && count)
		qsort(w.found.data, count, sizeof(*g), by_growth);
	g = (const struct grown *)w.found.data;
	for (size_t i = 0; i < count && i < n && !ret; i++) {
		char change[32], a[32], b[32];

		ret = wperf_buf_printf(out, "+%s %s (%s -> %s): %.*s\n",
				       flame_number(change, g[i].change), v.unit,
				       flame_number(a, g[i].a), flame_number(b, g[i].b),
				       (int)g[i].path_len, (const char *)paths.data + g[i].path);
	}
	wperf_buf_release(&w.path);
	wperf_buf_release(&w.found);
	wperf_buf_release(&paths);
	return ret < 0 ? -ENOMEM : 0;
}
