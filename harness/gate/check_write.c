/* SPDX-License-Identifier: MIT */
#include "harness/gate/check_write.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "harness/git/git_repo.h"
#include "harness/base/output.h"

/* Is path a check's summary.json (not a run's, which has the same name)? */
static int is_check_summary(const char *path)
{
	struct json_object *o = json_object_from_file(path), *format;
	int yes = o && json_object_object_get_ex(o, "format", &format) &&
		  json_object_is_type(format, json_type_string) &&
		  !strcmp(json_object_get_string(format), WPERF_CHECK_FORMAT);

	json_object_put(o);
	return yes;
}

int check_write_prepare(const char *dir, struct wperf_error *err)
{
	char mark[PATH_MAX];
	struct stat st;

	if (stat(dir, &st) < 0 || output_is_empty_dir(dir))
		return output_make_dirs(dir, err);
	snprintf(mark, sizeof(mark), "%s/%s", dir, CHECK_MARK);
	if (!S_ISDIR(st.st_mode) || !is_check_summary(mark))
		return wperf_error_set(err, -ENOTEMPTY,
				       "%s is not empty and holds no earlier check (a %s of "
				       "format " WPERF_CHECK_FORMAT "): name another folder with "
				       "--results",
				       dir, CHECK_MARK);
	return output_remove_tree(dir, 1, err);
}

void check_write_head(struct wperf_check *c)
{
	struct git_info g = {0};

	git_repo_info_of(".", &g);
	snprintf(c->head_commit, sizeof(c->head_commit), "%s", g.commit);
	snprintf(c->head_branch, sizeof(c->head_branch), "%s", g.branch);
	c->head_dirty = g.dirty;
}

static int write_buf(const char *dir, const char *name, const struct wperf_buf *b,
		     struct wperf_error *err)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return output_write(path, b->data, b->len, err);
}

int check_write(const struct wperf_check *c, const char *dir, struct wperf_error *err)
{
	struct wperf_buf md = {0}, junit = {0}, json = {0};
	struct json_object *o = NULL;
	const char *text;
	int e = wperf_check_to_json(c, &o);

	/* No slash escaping: "wperf-check/1" stays readable to grep and jq. */
	text = e ? NULL
		 : json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!e && (!text || wperf_buf_printf(&json, "%s\n", text) < 0))
		e = -ENOMEM;
	if (!e)
		e = wperf_check_markdown(c, NULL, 0, &md);
	if (!e)
		e = wperf_check_junit(c, &junit);
	if (e)
		e = wperf_error_set(err, e, "writing the check's summary: %s",
				    e == -ENOMEM ? "out of memory" : "a number that is not finite");
	/* summary.json last: it marks the folder as a finished check's. */
	if (!e)
		e = write_buf(dir, "summary.md", &md, err);
	if (!e)
		e = write_buf(dir, "junit.xml", &junit, err);
	if (!e)
		e = write_buf(dir, CHECK_MARK, &json, err);
	json_object_put(o);
	wperf_buf_release(&md);
	wperf_buf_release(&junit);
	wperf_buf_release(&json);
	return e;
}
