/* SPDX-License-Identifier: MIT */
/*
 * The stand-in for GitHub's and GitLab's REST APIs (tests/lib/forge_server.py) on loopback,
 * for the tests of `wperf-bench post`: started and stopped, its requests and
 * comments read back, and the token the tests give post, to be found nowhere
 * but in the requests' Authorization header.
 */
#ifndef WPERF_TESTS_FORGE_H
#define WPERF_TESTS_FORGE_H

#include <stddef.h>

#include "core/util/buf.h"
#include "tests/lib/e2e.h"

#define FORGE_MARKER "<!-- wperf-bench -->"

extern char forge_token[64];	 /* distinctive: found anywhere, it leaked */
extern char forge_token_env[96]; /* GITHUB_TOKEN=forge_token */
extern char forge_bearer[96];	 /* the Authorization header's value */
extern char forge_url[64];	 /* http://127.0.0.1:PORT of the running server */

/* Clears the CI's own variables (GITHUB_*, GitLab's CI_*) from the environment, makes the
 * back-off of post fast and draws a new token; from main, before the tests.
 * 0, or -1 when no random bytes could be had. */
int forge_setup(void);

/* Starts the server with extra options (NULL-terminated), a fresh log and no
 * comments; forge_url says where. */
void forge_start(const char *first, ...);

/* Stops it, if running: a cmocka teardown. */
int forge_stop(void **state);

struct forge_request {
	char method[8];
	char path[256];
	char auth[128];		 /* the Authorization header */
	char private_token[128]; /* GitLab's PRIVATE-TOKEN header */
	char job_token[128];	 /* GitLab's JOB-TOKEN header */
	long status;
	double time;
};

/* The requests the server answered, in order, into r; how many. */
size_t forge_requests(struct forge_request *r, size_t max);

/* The server's answers so far, as "GET 200, POST 201". */
const char *forge_answers(void);

/* How many comments on the server start with marker; the last one's body
 * into body (when not NULL), and its id into id (when not NULL). */
int forge_marked(const char *marker, struct wperf_buf *body, long *id);

/* The server's issues, as it holds them (GitHub's or GitLab's objects), a
 * JSON array to put; NULL when none was ever made. */
struct json_object *forge_issues(void);

/* How many comments the server holds, whoever wrote them. */
size_t forge_comments(void);

/* A NULL-terminated list of "NAME=VALUE" for forge_post. */
#define FORGE_ENV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Runs the build's wperf-bench post with the arguments args (NULL-terminated)
 * in folder dir (NULL: here), into o, with the variables env ("NAME=VALUE",
 * NULL-terminated, may be NULL) set for this run only: in the environment,
 * never on a command line, as CI passes the token. */
void forge_post(struct e2e_output *o, const char *dir, const char *const *env,
		const char *const *args);

/* Fails unless post's run o exited with status and its output where ("out"
 * or "err") holds text (NULL: anything), showing both outputs. */
void forge_expect(const struct e2e_output *o, int status, const char *where, const char *text);

/* Neither the standard output nor the standard error of o hold the token. */
void forge_assert_token_unsaid(const struct e2e_output *o);

/* No file under path (a file or a folder) holds the token. */
void forge_assert_token_not_in(const char *path);

#endif /* WPERF_TESTS_FORGE_H */
