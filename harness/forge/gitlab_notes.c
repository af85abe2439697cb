/* SPDX-License-Identifier: MIT */
#include "harness/forge/gitlab_notes.h"

#include <stdio.h>
#include <string.h>

#include "harness/base/version.h"

const char *const gitlab_headers[] = {
    "Accept: application/json",
    "User-Agent: wperf-bench/" WPERF_VERSION,
    "Content-Type: application/json",
    NULL,
};

int gitlab_project_is_valid(const char *project)
{
	static const char path[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/";
	size_t len = strlen(project);

	return len && len < 200 && strspn(project, path) == len && project[0] != '/' &&
	       project[len - 1] != '/' && !strstr(project, "//") && !strstr(project, "..");
}

/* The project as one segment of a URL: a path's '/' is %2F. */
static void project_segment(const char *project, char *id, size_t size)
{
	size_t n = 0;

	for (const char *p = project; *p && n + 4 < size; p++)
		n += (size_t)snprintf(id + n, size - n, *p == '/' ? "%%2F" : "%c", *p);
	id[n] = '\0';
}

void gitlab_thread(const struct forge_target *t, struct forge_thread *out)
{
	char id[600], base[FORGE_HTTP_URL_MAX - 32];

	project_segment(t->repo, id, sizeof(id));
	*out = (struct forge_thread){.forge = "GitLab",
				     .api = t->api,
				     .update_method = "PUT",
				     .forbidden_hint = "; $CI_JOB_TOKEN may not write notes: put a "
						       "project access token with the api scope "
						       "in $GITLAB_TOKEN (docs/ci.md)"};
	snprintf(out->name, sizeof(out->name), "merge request !%lu of project %s", t->number,
		 t->repo);
	snprintf(out->missing, sizeof(out->missing), "project %s or merge request !%lu", t->repo,
		 t->number);
	snprintf(base, sizeof(base), "%s/projects/%s/merge_requests/%lu/notes", t->api, id,
		 t->number);
	snprintf(out->list_url, sizeof(out->list_url), "%s?sort=asc&per_page=100", base);
	snprintf(out->create_url, sizeof(out->create_url), "%s", base);
	snprintf(out->item_url, sizeof(out->item_url), "%s", base);
}

void gitlab_issues(const struct forge_target *t, const char *label, struct forge_thread *out)
{
	char id[600], base[FORGE_HTTP_URL_MAX - 64];

	project_segment(t->repo, id, sizeof(id));
	*out =
	    (struct forge_thread){.forge = "GitLab",
				  .api = t->api,
				  .update_method = "PUT",
				  .forbidden_hint = "; $CI_JOB_TOKEN may not write issues: put a "
						    "project access token with the api scope "
						    "in $GITLAB_TOKEN (docs/ci.md)",
				  .item = "issue",
				  .id_key = "iid",
				  .body_key = "description",
				  .url_key = "web_url",
				  .label = label,
				  .label_as_text = 1};
	snprintf(out->name, sizeof(out->name), "project %s", t->repo);
	snprintf(out->missing, sizeof(out->missing), "project %s", t->repo);
	snprintf(base, sizeof(base), "%s/projects/%s/issues", t->api, id);
	snprintf(out->list_url, sizeof(out->list_url), "%s?labels=%s&per_page=100", base, label);
	snprintf(out->create_url, sizeof(out->create_url), "%s", base);
	snprintf(out->item_url, sizeof(out->item_url), "%s", base);
}
