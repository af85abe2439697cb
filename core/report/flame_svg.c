/* SPDX-License-Identifier: MIT */
/*
 * The differential flame graph as an SVG document (flame.h), drawn from the
 * tree of flame.c after flamegraph.pl's conventions, with its script.
 */
#include "core/report/flame_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/utf8.h"

/* The picture's geometry, in px, as flamegraph.pl's defaults. */
#define FRAME_PX   16
#define FONT_PX	   12
#define CHAR_PX	   7.08		      /* an average Verdana character at FONT_PX: 0.59 of it */
#define PAD_TOP	   (FONT_PX * 4)      /* the title, the subtitle and the buttons */
#define PAD_BOTTOM (FONT_PX * 2 + 10) /* the details line */

#define SEARCH_FILL "rgb(230,0,230)"

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
		s->max_change = fmax(s->max_change, fabs(flame_frame_change(&s->v, n)));
	for (size_t i = 0; i < count; i++)
		measure_frames(s, kids[i], depth + 1);
}

/* An amount in the unit: "12.3 µs". */
static void put_amount(struct svg *s, const char *sign, double v)
{
	char buf[32];

	put(s, "%s%s ", sign, flame_number(buf, v));
	put_text(s, s->v.unit, SIZE_MAX);
}

/* "NAME (B 12 µs, A 10 µs: +20.0%, +2 µs)" */
static void put_title(struct svg *s, const struct flame_node *n)
{
	double a = n->a * s->v.scale_a, b = n->b * s->v.scale_b, change = b - a;

	put_text(s, name_of(s->v.f, n), SIZE_MAX);
	put_amount(s, " (B ", b);
	put_amount(s, ", A ", a);
	if (!flame_changed(change, a, b)) {
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

	if (!flame_changed(change, a, b)) {
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

	flame_view_init(&s.v, f, o);
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
