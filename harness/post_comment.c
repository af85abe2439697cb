/* SPDX-License-Identifier: MIT */
#include "post_comment.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/verdict.h"
#include "harness/github_comments.h"
#include "harness/output.h"
#include "harness/results.h"

#define SHORT_COMMIT 7
#define CUT_NOTE     "\n_(cut here: the whole verdict is verdict.md in the artifacts)_\n"

/* The exit status of the verdict called name; -1 when it is none. */
static int verdict_status(const char *name)
{
	for (int k = WPERF_VERDICT_PASS; k <= WPERF_VERDICT_INCONCLUSIVE; k++)
		if (!strcmp(name, wperf_verdict_name(k)))
			return wperf_verdict_exit_code(k);
	return -1;
}

/* The comment's end: the commit, the baseline, the artifacts. */
static int footer(const struct results *r, const char *artifacts, struct wperf_buf *out)
{
	const struct git_info *g = &r->git;
	int e;

	if (g->commit[0])
		e = wperf_buf_printf(out, "\n---\nCommit `%.*s`%s%s%s%s", SHORT_COMMIT, g->commit,
				     g->branch[0] ? " on `" : "", g->branch,
				     g->branch[0] ? "`" : "",
				     g->dirty ? " (with uncommitted changes)" : "");
	else
		e = wperf_buf_printf(out, "\n---\nNot made in a git repository");
	if (!e)
		e = wperf_buf_printf(out, ", judged against %s.", r->baseline_from);
	if (!e && artifacts)
		e = wperf_buf_printf(out, " [Artifacts](%s).", artifacts);
	return e ? e : wperf_buf_append_str(out, "\n");
}

/* The marker, a heading, verdict.md (cut when the whole would not fit in a
 * comment), then the footer. */
static int compose(const struct results *r, const struct wperf_buf *md, const char *artifacts,
		   struct post_comment *c)
{
	struct wperf_buf end = {0};
	size_t keep = md->len, room;
	int e = footer(r, artifacts, &end);

	if (!e)
		e = wperf_buf_printf(&c->text, "%s\n## Performance gate: `%s`\n\n", c->marker,
				     c->key);
	room = GITHUB_COMMENT_MAX - c->text.len - end.len - strlen(CUT_NOTE);
	if (!e && keep > room) {
		const char *nl = memrchr(md->data, '\n', room);

		keep = nl ? (size_t)(nl - (const char *)md->data) + 1 : 0;
	}
	if (!e)
		e = wperf_buf_append(&c->text, md->data, keep);
	if (!e && keep < md->len)
		e = wperf_buf_printf(&c->text, "%s", CUT_NOTE);
	else if (!e && keep && md->data[keep - 1] != '\n')
		e = wperf_buf_append(&c->text, "\n", 1);
	if (!e)
		e = wperf_buf_append(&c->text, end.data, end.len); /* with its NUL */
	wperf_buf_release(&end);
	return e;
}

/* A key must not end the HTML comment it sits in, nor a code span. */
static int key_is_safe(const char *key)
{
	for (const char *p = key; *p; p++)
		if ((unsigned char)*p < ' ' || *p == '<' || *p == '>' || *p == '`' ||
		    (*p == '-' && p[1] == '-'))
			return 0;
	return key[0] != '\0';
}

int post_comment_make(const char *dir, const char *key_suffix, const char *artifacts,
		      struct post_comment *c, struct wperf_error *err)
{
	struct results r = {0};
	struct wperf_buf md = {0};
	char path[PATH_MAX];
	int e = results_read(dir, &r, err);

	*c = (struct post_comment){.dir = dir};
	if (!e && !r.complete)
		e = wperf_error_set(err, -EINVAL, "%s is incomplete (%s): no verdict to post", dir,
				    r.reason);
	else if (!e && !r.verdict[0])
		e = wperf_error_set(err, -EINVAL,
				    "%s was never judged: run 'wperf-bench compare %s' (or 'run "
				    "--gate') first",
				    dir, dir);
	else if (!e && (c->status = verdict_status(r.verdict)) < 0)
		e = wperf_error_set(err, -EINVAL, "%s/summary.json: '%s' is not a verdict", dir,
				    r.verdict);
	if (!key_suffix)
		key_suffix = "";
	if (!e && strlen(r.scenario) + strlen(key_suffix) >= sizeof(c->key))
		e = wperf_error_set(err, -EINVAL, "the key of %s, %s%s, is longer than %zu bytes",
				    dir, r.scenario, key_suffix, sizeof(c->key) - 1);
	snprintf(c->key, sizeof(c->key), "%s%s", r.scenario, key_suffix);
	if (!e && !key_is_safe(c->key))
		e = wperf_error_set(err, -EINVAL,
				    "the key '%s' (of %s) may not hold '--', '<', '>', '`' or "
				    "control characters",
				    c->key, dir);
	snprintf(c->marker, sizeof(c->marker), "<!-- wperf-bench: %s -->", c->key);
	snprintf(path, sizeof(path), "%s/verdict.md", dir);
	if (!e)
		e = output_read_all(path, &md, err);
	if (!e && compose(&r, &md, artifacts, c) < 0)
		e = wperf_error_set(err, -ENOMEM, "%s: out of memory", dir);
	wperf_buf_release(&md);
	results_release(&r);
	if (e)
		post_comment_release(c);
	return e;
}

void post_comment_release(struct post_comment *c)
{
	wperf_buf_release(&c->text);
}

const char *post_comment_markdown(const struct post_comment *c)
{
	return (const char *)c->text.data + strlen(c->marker) + 1;
}
