/* SPDX-License-Identifier: MIT */
/*
 * Differential flame graphs: two sets of folded stacks ("FRAME;FRAME;...
 * COUNT" lines, as report_folded.c writes them), A the base and B the head,
 * merged into one tree of frames that holds each frame's time on both sides,
 * and drawn as one SVG after the conventions of FlameGraph's difffolded.pl and
 * flamegraph.pl:
 *
 * - the root, "all", at the bottom, each frame's callees (the frames after it
 *   in a folded line) stacked on it, siblings sorted by name in byte order,
 *   so that the same stacks give the same bytes whatever their order;
 * - a frame's width is its time in B (WPERF_FLAME_WIDTH_B, flamegraph.pl's
 *   way). A stack that vanished in B then has no width at all:
 *   WPERF_FLAME_WIDTH_A draws A's widths instead (flamegraph.pl --negate over
 *   difffolded.pl B A), WPERF_FLAME_WIDTH_MAX the larger of each stack's two
 *   times, so that what grew and what vanished both show in one picture;
 * - its colour is its change, B - A, its callees' time included: red where B
 *   waits more, blue where it waits less, white where nothing changed, the
 *   deeper the larger the change against the largest change of a frame drawn.
 *   (flamegraph.pl gives a stack's change to its leaf frame alone; a wait's
 *   leaf here is the waker's outermost frame, so the whole tower is coloured
 *   instead: an edge, or a function, whose waits grew is red whichever callee
 *   the time went to.)
 *
 * Each side's counts are multiplied by a factor of its own before anything is
 * drawn, compared or written (1 / the side's operations; B's scaled to A's
 * total as difffolded.pl -n does; see wperf_flame_totals). Frames narrower than
 * min_frame_px are left out with their callees. The SVG explains itself: hover
 * titles with both times and the change, click to zoom into a frame, and a
 * search (Ctrl-F, or "Search") that highlights the frames whose name matches a
 * regular expression and shows the share of the width they cover.
 *
 * Functions that return int return 0 or a negative errno (-ENOMEM; -EINVAL for
 * a bad stack or count; -ENOENT for a frame that is not there).
 */
#ifndef WPERF_FLAME_H
#define WPERF_FLAME_H

#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

/* The most frames of a stack (report_folded.c's deepest: four stacks of 127
 * frames and two more): a deeper one is -EINVAL. */
#define WPERF_FLAME_MAX_FRAMES 2048

enum wperf_flame_side { WPERF_FLAME_A, WPERF_FLAME_B };

/* What a frame's width is. */
enum wperf_flame_width {
	WPERF_FLAME_WIDTH_B,   /* its time in B (the default) */
	WPERF_FLAME_WIDTH_A,   /* its time in A: what vanished in B shows */
	WPERF_FLAME_WIDTH_MAX, /* the sum over its stacks of the larger of their two times */
};

struct wperf_flame_opts {
	double scale_a, scale_b; /* each side's counts are multiplied by it; 0: 1 */
	enum wperf_flame_width width;
	unsigned image_px;   /* the picture's width, at least 100; 0: 1200 */
	double min_frame_px; /* narrower frames are left out; 0: 0.1 */
	const char *title;   /* NULL: "Differential flame graph" */
	const char *unit;    /* of the scaled counts; NULL: "µs" */
};

/* The tree of frames. Owned by its maker; free with wperf_flame_free. */
struct wperf_flame;

int wperf_flame_new(struct wperf_flame **out);
void wperf_flame_free(struct wperf_flame *f);

/*
 * Adds a stack of n frames, root first, with its count in A and in B: finite
 * and not negative; a stack counted 0 on both sides adds nothing. -EINVAL for
 * no frame, an empty frame, more than WPERF_FLAME_MAX_FRAMES or a bad count
 * (nothing added).
 */
int wperf_flame_add(struct wperf_flame *f, const char *const *frames, size_t n, double count_a,
		    double count_b);

/* The same with the frames joined by ';' ("main;run;wait"). */
int wperf_flame_add_stack(struct wperf_flame *f, const char *stack, double count_a, double count_b);

/*
 * Adds every line of folded text (len bytes; "FRAME;FRAME;... COUNT", the
 * count after the line's last space or tab) to side's counts. Empty lines are
 * skipped, a '\r' before '\n' too. A line without a count, with a count that is
 * not a number >= 0, with an empty frame, too many frames or a NUL byte is
 * -EINVAL, err naming its line number (from 1); the lines before it stay added.
 */
int wperf_flame_parse(struct wperf_flame *f, enum wperf_flame_side side, const char *text,
		      size_t len, struct wperf_error *err);

/* Each side's total count, before scaling: for a factor that makes them equal. */
void wperf_flame_totals(const struct wperf_flame *f, double *count_a, double *count_b);

/*
 * The counts of the frame at stack (';'-joined from the root's first callee;
 * "" the root), its callees' included, before scaling; -ENOENT when no stack
 * passes there.
 */
int wperf_flame_counts(const struct wperf_flame *f, const char *stack, double *count_a,
		       double *count_b);

/* The differential flame graph as an SVG document (o NULL: the defaults). */
int wperf_flame_svg(const struct wperf_flame *f, const struct wperf_flame_opts *o,
		    struct wperf_buf *out);

/*
 * Differential folded stacks, difffolded.pl's output, for FlameGraph's own
 * scripts: "FRAME;FRAME;... COUNT_A COUNT_B" per stack, scaled, in the tree's
 * order. ';', spaces and control characters of a frame become '_'.
 */
int wperf_flame_folded(const struct wperf_flame *f, const struct wperf_flame_opts *o,
		       struct wperf_buf *out);

/*
 * The n stacks that grew most, B - A after scaling, largest first (ties in the
 * tree's order), one line each:
 *   +CHANGE UNIT (A -> B): FRAME;FRAME;...
 * Only stacks that grew; nothing when none did.
 */
int wperf_flame_growing(const struct wperf_flame *f, const struct wperf_flame_opts *o, size_t n,
			struct wperf_buf *out);

#endif /* WPERF_FLAME_H */
