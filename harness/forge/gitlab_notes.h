/* SPDX-License-Identifier: MIT */
/*
 * GitLab's side of the one comment (forge_comments.h): a merge request's
 * notes,
 *   GET  /projects/:id/merge_requests/:iid/notes?sort=asc&per_page=100 (Link headers)
 *   POST /projects/:id/merge_requests/:iid/notes
 *   PUT  /projects/:id/merge_requests/:iid/notes/:note_id
 * under the API's URL ($CI_API_V4_URL in a job), the project by its id or its
 * path (URL-encoded), the token as "PRIVATE-TOKEN:" (a personal, project or
 * group access token) or "JOB-TOKEN:" ($CI_JOB_TOKEN, which most GitLab
 * versions do not let write notes).
 */
#ifndef WPERF_GITLAB_NOTES_H
#define WPERF_GITLAB_NOTES_H

#include "harness/forge/forge_comments.h"

#define GITLAB_API_URL	     "https://gitlab.com/api/v4"
#define GITLAB_PRIVATE_TOKEN "PRIVATE-TOKEN:"
#define GITLAB_JOB_TOKEN     "JOB-TOKEN:"
#define GITLAB_NOTE_MAX	     1000000 /* characters of a note's body */

/* The request headers, NULL-terminated, for forge_http_open. */
extern const char *const gitlab_headers[];

/* Is project a project's id (digits) or path (group/sub/name of letters,
 * digits, '.', '_', '-', no "..")? */
int gitlab_project_is_valid(const char *project);

/* The notes of t's merge request (t->repo the project), into *out (which
 * refers to t->api). */
void gitlab_thread(const struct forge_target *t, struct forge_thread *out);

/* The issues of project t->repo (t->number unused) labelled label (letters,
 * digits, '-'), into *out: GET /projects/:id/issues?labels=L&per_page=100
 * (all states; Link headers), POST /projects/:id/issues, PUT
 * /projects/:id/issues/:iid; the text is an issue's "description". */
void gitlab_issues(const struct forge_target *t, const char *label, struct forge_thread *out);

#endif /* WPERF_GITLAB_NOTES_H */
