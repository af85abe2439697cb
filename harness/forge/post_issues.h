/* SPDX-License-Identifier: MIT */
/*
 * What `wperf-bench post --changes` says: one issue per change point of a
 * scenario's history, read from the changes.json that `history --changes`
 * writes (wperf-changes/1, docs/report-schema.md). Each issue is found again
 * by a hidden marker at the start of its body,
 *   <!-- wperf-bench change: SCENARIO METRIC COMMIT -->
 * (METRIC "throughput", "edge FROM TO" or "knot VERTEX", each name with '%',
 * '<', '>', '!' and white space percent-encoded, so that nothing in it ends
 * the HTML comment), among the repository's issues labelled
 * POST_ISSUE_LABEL; its title and body say what moved, from what to what,
 * the change and p, the commit, and how to reproduce it.
 *
 * Ownership: a struct post_changes owns its JSON document (its strings point
 * into it) and its array; post_changes_release frees them. A struct
 * post_issue owns its texts; post_issue_release frees them.
 */
#ifndef WPERF_POST_ISSUES_H
#define WPERF_POST_ISSUES_H

#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

#define WPERF_CHANGES_FORMAT "wperf-changes/1"
#define POST_ISSUE_LABEL     "wperf-bench"

enum post_change_metric { POST_CHANGE_THROUGHPUT, POST_CHANGE_EDGE, POST_CHANGE_KNOT };

/* A change point, as changes.json says it. */
struct post_change {
	enum post_change_metric metric;
	const char *from, *to; /* an edge's; NULL otherwise */
	const char *vertex;    /* a knot's member; NULL otherwise */
	const char *commit;    /* 40 hex: the first commit of the new level */
	const char *subject, *date;
	const char *previous; /* 40 hex: the commit of the point before; NULL: none */
	double before, after; /* the levels (NaN: null) */
	double change;	      /* after / before - 1; NaN: null */
	double p;
};

struct post_changes {
	struct json_object *doc;
	const char *scenario, *unit;
	double max_p;
	struct post_change *v;
	size_t n;
};

/*
 * Reads changes.json at path into *out: every key required, no other, of
 * its type. 0, or a negative errno with err naming the file, and the byte
 * (not JSON) or the key path (changes[2].p: expected ...).
 */
int post_changes_read(const char *path, struct post_changes *out, struct wperf_error *err);

void post_changes_release(struct post_changes *c);

/* One issue: its marker (the first line of body), title and body. */
struct post_issue {
	struct wperf_buf marker, title, body; /* C strings */
};

/* The issue of change i of c. 0 or -ENOMEM. */
int post_issue_compose(const struct post_changes *c, size_t i, struct post_issue *out);

void post_issue_release(struct post_issue *i);

#endif /* WPERF_POST_ISSUES_H */
