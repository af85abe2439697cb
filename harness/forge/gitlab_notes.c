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

void gitlab_thread(const struct forge_target *t, struct forge_thread *out)
{
	char id[600], base[FORGE_HTTP_URL_MAX - 32];
	size_t n = 0;

	/* A path's '/' is %2F: the project is one segment of the URL. */
	for (const char *p = t->repo; *p && n + 4 < sizeof(id); p++)
		n += (size_t)snprintf(id + n, sizeof(id) - n, *p == '/' ? "%%2F" : "%c", *p);
	id[n] = '\0';
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
