/* SPDX-License-Identifier: MIT */
/*
 * The differential flame graph (flame_svg.h): a tree of frames with both
 * sides' counts, filled from folded stacks, and its writers: the SVG, the
 * differential folded stacks, and the stacks that grew most.
 *
 * The tree's nodes live in one array, each after its parent (so that a pass
 * from the last node to the first meets callees before their callers); each
 * node keeps its callees' indexes sorted by name, found by binary search as
 * stacks are added. Names are kept NUL-ended in one pool, which UTF-8
 * decoding needs to stop at a name's end.
 */
#include "core/report/flame_svg.h"
#include "core/report/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/utf8.h"

#define ROOT	  0
#define ROOT_NAME "all"

/* The picture's geometry, in px, as flamegraph.pl's defaults. */
#define IMAGE_PX     1200
#define MIN_FRAME_PX 0.1
#define FRAME_PX     16
#define FONT_PX	     12
#define CHAR_PX	     7.08 /* an average Verdana character at FONT_PX: 0.59 of it */
#define PAD_X	     10
#define PAD_TOP	     (FONT_PX * 4)	/* the title, the subtitle and the buttons */
#define PAD_BOTTOM   (FONT_PX * 2 + 10) /* the details line */

#define SEARCH_FILL "rgb(230,0,230)"

#define STR_(x) #x
#define STR(x)	STR_(x)

struct flame_node {
	uint32_t name;	       /* offset of its NUL-ended name in the tree's names */
	uint32_t parent;       /* the root's is itself */
	struct wperf_buf kids; /* uint32_t node indexes, sorted by name */
	double a, b;	       /* the time of the stacks through it, on each side */
	double self_a, self_b; /* the time of the stacks that end at it */
};

struct wperf_flame {
	struct wperf_buf nodes; /* struct flame_node, the root first */
	struct wperf_buf names;
};

static struct flame_node *node_at(const struct wperf_flame *f, uint32_t id)
{
	return (struct flame_node *)f->nodes.data + id;
}

static size_t node_count(const struct wperf_flame *f)
{
	return f->nodes.len / sizeof(struct flame_node);
}

static const char *name_of(const struct wperf_flame *f, const struct flame_node *n)
{
	return (const char *)f->names.data + n->name;
}

static const uint32_t *kids_of(const struct flame_node *n, size_t *count)
{
	*count = n->kids.len / sizeof(uint32_t);
	return (const uint32_t *)n->kids.data;
}

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

/* The options with their defaults filled in. */
struct flame_view {
	const struct wperf_flame *f;
	double scale_a, scale_b;
	enum wperf_flame_width width;
	double image_px, min_frame_px;
	const char *title, *unit;
};

static void view_init(struct flame_view *v, const struct wperf_flame *f,
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
static double frame_change(const struct flame_view *v, const struct flame_node *n)
{
	return n->b * v->scale_b - n->a * v->scale_a;
}

/* Is the change worth a colour or a line, or only rounding of the scaling? */
static int changed(double change, double a, double b)
{
	return fabs(change) > 1e-9 * fmax(a, b);
}

/* A number as people read it: whole above 100, three digits below. */
static const char *number(char buf[32], double v)
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

	view_init(&v, f, o);
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

	if (change <= 0 || !changed(change, a, b))
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

	view_init(&v, f, o);
	ret = walk_stacks(&w, ROOT);
	count = w.found.len / sizeof(*g);
	if (!ret && count)
		qsort(w.found.data, count, sizeof(*g), by_growth);
	g = (const struct grown *)w.found.data;
	for (size_t i = 0; i < count && i < n && !ret; i++) {
		char change[32], a[32], b[32];

		ret =
		    wperf_buf_printf(out, "+%s %s (%s -> %s): %.*s\n", number(change, g[i].change),
				     v.unit, number(a, g[i].a), number(b, g[i].b),
				     (int)g[i].path_len, (const char *)paths.data + g[i].path);
	}
	wperf_buf_release(&w.path);
	wperf_buf_release(&w.found);
	wperf_buf_release(&paths);
	return ret < 0 ? -ENOMEM : 0;
}

/* ---- the SVG ---- */

/*
 * The picture's script: hover details, click to zoom, search. It reads the
 * frames back from the document: each is a <g> of a <title> ("NAME (...)"),
 * a <rect> and a <text>, written in the tree's order (a frame, then its
 * callees), so that a frame's callees are the frames after it that sit higher
 * (a smaller y), and its caller the nearest one before it that sits lower.
 */
/* The script fits names to frames as put_frame does. */
#define SCRIPT_GEOMETRY "var PAD = " STR(PAD_X) ", CW = " STR(CHAR_PX) ";\n"

static const char script[] = SCRIPT_GEOMETRY
    "var W, frames = [], details, matched, unzoomButton, searchButton, query = null;\n"
    "function init(evt) {\n"
    "  var gs = document.getElementById('frames').children, open = [];\n"
    "  W = +document.documentElement.getAttribute('width');\n"
    "  details = document.getElementById('details').firstChild;\n"
    "  matched = document.getElementById('matched').firstChild;\n"
    "  unzoomButton = document.getElementById('unzoom');\n"
    "  searchButton = document.getElementById('search');\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var g = gs[i], r = g.children[1], title = g.children[0].textContent;\n"
    "    var f = {g: g, r: r, t: g.children[2], i: i, title: title,\n"
    "      name: title.slice(0, title.lastIndexOf(' (')), fill: r.getAttribute('fill'),\n"
    "      x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
    "      y: +r.getAttribute('y')};\n"
    "    while (open.length && open[open.length - 1].y <= f.y) open.pop();\n"
    "    f.parent = open.length ? open[open.length - 1] : null;\n"
    "    open.push(f);\n"
    "    frames.push(f);\n"
    "    g.onmouseover = hover(f);\n"
    "    g.onmouseout = function () { details.nodeValue = ' '; };\n"
    "    g.onclick = zoomer(f);\n"
    "  }\n"
    "  unzoomButton.onclick = unzoom;\n"
    "  searchButton.onclick = function () { if (query === null) ask(); else reset(); };\n"
    "  document.addEventListener('keydown', function (e) {\n"
    "    if ((e.ctrlKey || e.metaKey) && (e.key === 'f' || e.key === 'F')) {\n"
    "      e.preventDefault();\n"
    "      ask();\n"
    "    } else if (e.key === 'Escape') {\n"
    "      reset();\n"
    "    }\n"
    "  });\n"
    "}\n"
    "function hover(f) { return function () { details.nodeValue = f.title; }; }\n"
    "function zoomer(f) { return function () { zoom(f); }; }\n"
    "function fit(f, x, w) {\n"
    "  var n = Math.floor((w - 3) / CW), s = f.name;\n"
    "  f.r.setAttribute('x', x.toFixed(2));\n"
    "  f.r.setAttribute('width', w.toFixed(2));\n"
    "  f.t.setAttribute('x', (x + 3).toFixed(2));\n"
    "  f.t.textContent = n < 3 ? '' : s.length <= n ? s : s.slice(0, n - 2) + '..';\n"
    "}\n"
    "function zoom(z) {\n"
    "  var end = z.i + 1, k = (W - 2 * PAD) / z.w, p, i;\n"
    "  while (end < frames.length && frames[end].y < z.y) end++;\n"
    "  frames.forEach(function (f) { f.g.style.display = 'none'; f.g.style.opacity = ''; "
    "});\n"
    "  for (p = z.parent; p; p = p.parent) {\n"
    "    p.g.style.display = '';\n"
    "    p.g.style.opacity = '0.5';\n"
    "    fit(p, PAD, W - 2 * PAD);\n"
    "  }\n"
    "  for (i = z.i; i < end; i++) {\n"
    "    frames[i].g.style.display = '';\n"
    "    fit(frames[i], PAD + (frames[i].x - z.x) * k, frames[i].w * k);\n"
    "  }\n"
    "  unzoomButton.style.display = 'inline';\n"
    "}\n"
    "function unzoom() {\n"
    "  frames.forEach(function (f) {\n"
    "    f.g.style.display = '';\n"
    "    f.g.style.opacity = '';\n"
    "    fit(f, f.x, f.w);\n"
    "  });\n"
    "  unzoomButton.style.display = 'none';\n"
    "}\n"
    "function ask() {\n"
    "  var term = prompt('Search frames (a regular expression)', query === null ? '' : "
    "query);\n"
    "  if (term) search(term);\n"
    "}\n"
    "function search(term) {\n"
    "  var re, spans = [], covered = 0, end = -Infinity;\n"
    "  try { re = new RegExp(term); } catch (e) { alert(e.message); return; }\n"
    "  reset();\n"
    "  frames.forEach(function (f) {\n"
    "    if (!re.test(f.name)) return;\n"
    "    f.r.setAttribute('fill', '" SEARCH_FILL "');\n"
    "    spans.push([f.x, f.x + f.w]);\n"
    "  });\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  spans.forEach(function (s) {\n"
    "    if (s[1] > end) { covered += s[1] - Math.max(s[0], end); end = s[1]; }\n"
    "  });\n"
    "  query = term;\n"
    "  matched.nodeValue = 'Matched: ' + (100 * covered / (W - 2 * PAD)).toFixed(1) + "
    "'%';\n"
    "  searchButton.firstChild.nodeValue = 'Reset search';\n"
    "}\n"
    "function reset() {\n"
    "  frames.forEach(function (f) { f.r.setAttribute('fill', f.fill); });\n"
    "  query = null;\n"
    "  matched.nodeValue = ' ';\n"
    "  searchButton.firstChild.nodeValue = 'Search';\n"
    "}\n";

static const char style[] =
    "text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
    "#title { font-size: 17px; }\n"
    "#frames rect { stroke: #aaa; stroke-width: 0.5; }\n"
    "#frames g:hover rect { stroke: #000; stroke-width: 1; }\n"
    "#frames g, .button { cursor: pointer; }\n"
    "#unzoom { display: none; }\n";

struct svg {
	struct flame_view v;
	double *width;	   /* each node's, in scaled counts */
	double px;	   /* per scaled count */
	double max_change; /* the largest |B - A| of a frame drawn, the root's aside */
	unsigned depth;	   /* of the deepest frame drawn */
	size_t narrow;	   /* frames left out, with their callees, for their width */
	unsigned height;
	struct wperf_buf *out;
	int err;
};

static void put(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct svg *s, const char *fmt, ...)
{
	va_list ap;

	if (s->err)
		return;
	va_start(ap, fmt);
	s->err = wperf_buf_vprintf(s->out, fmt, ap);
	va_end(ap);
}

/* The characters of s (each byte that is not UTF-8 one too). */
static size_t char_count(const char *s)
{
	size_t n = 0;

	for (size_t len; *s; s += len ? len : 1, n++)
		len = wperf_utf8_seq(s);
	return n;
}

/*
 * Appends the first max characters of s as XML text, ".." for the last two when
 * s is longer: markup characters escaped, and each byte that is not UTF-8, each
 * control character, U+FFFE and U+FFFF (which XML rejects) as '?'.
 */
static void put_text(struct svg *s, const char *text, size_t max)
{
	static const char *const entities[] = {
	    ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&apos;",
	};
	size_t keep;

	if (max < 3)
		return; /* no room for a character and ".." */
	keep = char_count(text) <= max ? SIZE_MAX : max - 2;

	for (size_t i = 0, len; *text && i < keep && !s->err; text += len, i++) {
		unsigned char c = (unsigned char)*text;

		len = wperf_utf8_seq(text);
		if (len == 3 && !memcmp(text, "\xef\xbf", 2) &&
		    ((unsigned char)text[2] & 0xfe) == 0xbe)
			len = 0;
		if (len == 0 || (len == 1 && (c < 0x20 || c == 0x7f))) {
			put(s, "?");
			len = 1;
		} else if (len == 1 && c < sizeof(entities) / sizeof(*entities) && entities[c]) {
			put(s, "%s", entities[c]);
		} else {
			put(s, "%.*s", (int)len, text);
		}
	}
	if (keep != SIZE_MAX)
		put(s, "..");
}

/* Each node's width in scaled counts, into s->width (NULL when out of memory). */
static void measure_widths(struct svg *s)
{
	const struct flame_view *v = &s->v;
	size_t n = node_count(v->f);

	s->width = calloc(n, sizeof(double));
	if (!s->width)
		return;
	/* callees come after their callers: from the last node back, each one's
	 * width is whole when its turn comes, and added to its caller's */
	for (size_t i = n; i-- > 0;) {
		const struct flame_node *node = node_at(v->f, (uint32_t)i);
		double a = node->self_a * v->scale_a, b = node->self_b * v->scale_b;

		if (v->width == WPERF_FLAME_WIDTH_A)
			s->width[i] = node->a * v->scale_a;
		else if (v->width == WPERF_FLAME_WIDTH_B)
			s->width[i] = node->b * v->scale_b;
		else
			s->width[i] += fmax(a, b);
		if (v->width == WPERF_FLAME_WIDTH_MAX && i != ROOT)
			s->width[node->parent] += s->width[i];
	}
}

/* The depth of the deepest frame drawn, the frames too narrow to draw, and the
 * largest change of a frame drawn. */
static void measure_frames(struct svg *s, uint32_t id, unsigned depth)
{
	const struct flame_node *n = node_at(s->v.f, id);
	size_t count;
	const uint32_t *kids = kids_of(n, &count);

	if (s->width[id] * s->px < s->v.min_frame_px) {
		s->narrow++;
		return;
	}
	if (depth > s->depth)
		s->depth = depth;
	if (id != ROOT)
		s->max_change = fmax(s->max_change, fabs(frame_change(&s->v, n)));
	for (size_t i = 0; i < count; i++)
		measure_frames(s, kids[i], depth + 1);
}

/* An amount in the unit: "12.3 µs". */
static void put_amount(struct svg *s, const char *sign, double v)
{
	char buf[32];

	put(s, "%s%s ", sign, number(buf, v));
	put_text(s, s->v.unit, SIZE_MAX);
}

/* "NAME (B 12 µs, A 10 µs: +20.0%, +2 µs)" */
static void put_title(struct svg *s, const struct flame_node *n)
{
	double a = n->a * s->v.scale_a, b = n->b * s->v.scale_b, change = b - a;

	put_text(s, name_of(s->v.f, n), SIZE_MAX);
	put_amount(s, " (B ", b);
	put_amount(s, ", A ", a);
	if (!changed(change, a, b)) {
		put(s, ": no change)");
		return;
	}
	if (a > 0)
		put(s, ": %+.1f%%", 100 * change / a);
	else
		put(s, ": new");
	put_amount(s, change > 0 ? ", +" : ", ", change);
	put(s, ")");
}

/* White for no change, red for more time in B, blue for less, the deeper the
 * nearer the change is to the largest. */
static void put_fill(struct svg *s, const struct flame_node *n)
{
	double a = n->a * s->v.scale_a, b = n->b * s->v.scale_b, change = b - a;
	int fade;

	if (!changed(change, a, b)) {
		put(s, "rgb(255,255,255)");
		return;
	}
	fade = (int)lround(210 * (1 - fmin(1, fabs(change) / s->max_change)));
	if (change > 0)
		put(s, "rgb(255,%d,%d)", fade, fade);
	else
		put(s, "rgb(%d,%d,255)", fade, fade);
}

static void put_frame(struct svg *s, uint32_t id, unsigned depth, double x)
{
	const struct flame_node *n = node_at(s->v.f, id);
	double w = s->width[id] * s->px, fit = floor((w - 3) / CHAR_PX);
	unsigned y = s->height - PAD_BOTTOM - (depth + 1) * FRAME_PX;

	put(s, "<g><title>");
	put_title(s, n);
	put(s, "</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" rx=\"2\" fill=\"", x,
	    y, w, FRAME_PX - 1);
	put_fill(s, n);
	put(s, "\"/><text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 10.5);
	put_text(s, name_of(s->v.f, n), fit > 0 ? (size_t)fit : 0);
	put(s, "</text></g>\n");
}

/* A frame and its callees, from x on, in the tree's order. */
static void put_tree(struct svg *s, uint32_t id, unsigned depth, double x)
{
	size_t count;
	const uint32_t *kids = kids_of(node_at(s->v.f, id), &count);

	if (s->width[id] * s->px < s->v.min_frame_px)
		return;
	put_frame(s, id, depth, x);
	for (size_t i = 0; i < count; i++) {
		put_tree(s, kids[i], depth + 1, x);
		x += s->width[kids[i]] * s->px;
	}
}

/* What the widths and colours mean, and what was left out. */
static void put_subtitle(struct svg *s)
{
	static const char *const widths[] = {
	    [WPERF_FLAME_WIDTH_B] = "B's time",
	    [WPERF_FLAME_WIDTH_A] = "A's time",
	    [WPERF_FLAME_WIDTH_MAX] = "the larger of A's and B's time",
	};

	if (s->px == 0) {
		put(s, "no stack has time to draw (width: %s)", widths[s->v.width]);
		return;
	}
	put(s, "width: %s; colour: B - A, red more, blue less, ", widths[s->v.width]);
	if (s->max_change > 0)
		put_amount(s, "the deepest at ", s->max_change);
	else
		put(s, "nothing changed");
	if (s->narrow)
		put(s, "; %zu frame%s under %g px left out", s->narrow, s->narrow > 1 ? "s" : "",
		    s->v.min_frame_px);
}

static void put_head(struct svg *s)
{
	double w = s->v.image_px;

	put(s,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	    "<svg version=\"1.1\" width=\"%.0f\" height=\"%u\" viewBox=\"0 0 %.0f %u\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n",
	    w, s->height, w, s->height);
	put(s, "<style>\n%s</style>\n<script><![CDATA[\n%s]]></script>\n", style, script);
	put(s, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n");
	put(s, "<text id=\"title\" x=\"%.0f\" y=\"24\" text-anchor=\"middle\">", w / 2);
	put_text(s, s->v.title, SIZE_MAX);
	put(s, "</text>\n<text id=\"subtitle\" x=\"%.0f\" y=\"42\" text-anchor=\"middle\">", w / 2);
	put_subtitle(s);
	put(s,
	    "</text>\n<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"24\">Reset zoom</text>\n",
	    PAD_X);
	put(s,
	    "<text id=\"search\" class=\"button\" x=\"%.0f\" y=\"24\" "
	    "text-anchor=\"end\">Search</text>\n",
	    w - PAD_X);
	put(s, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", PAD_X, s->height - 17);
	put(s, "<text id=\"matched\" x=\"%.0f\" y=\"%u\" text-anchor=\"end\"> </text>\n", w - PAD_X,
	    s->height - 17);
}

int wperf_flame_svg(const struct wperf_flame *f, const struct wperf_flame_opts *o,
		    struct wperf_buf *out)
{
	struct svg s = {.out = out};

	view_init(&s.v, f, o);
	measure_widths(&s);
	if (!s.width)
		return -ENOMEM;
	s.px = s.width[ROOT] > 0 ? (s.v.image_px - 2 * PAD_X) / s.width[ROOT] : 0;
	measure_frames(&s, ROOT, 0);
	s.height = PAD_TOP + (s.depth + 1) * FRAME_PX + PAD_BOTTOM;
	put_head(&s);
	put(&s, "<g id=\"frames\">\n");
	put_tree(&s, ROOT, 0, PAD_X);
	put(&s, "</g>\n</svg>\n");
	free(s.width);
	return s.err ? -ENOMEM : 0;
}
