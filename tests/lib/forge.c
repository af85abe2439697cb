/* SPDX-License-Identifier: MIT */
#include "forge.h"

#include <ftw.h>
#include <json-c/json.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define MAX_ARGS  24
#define SERVER_PY "tests/lib/forge_server.py"

char forge_token[64];
char forge_token_env[96];
char forge_bearer[96];
char forge_url[64];

static pid_t server; /* 0: none running */
static char log_path[PATH_MAX], state_path[PATH_MAX];

int forge_setup(void)
{
	uint8_t noise[12];

	/* The CI's own variables must not leak into the tests. */
	for (const char *const *v =
		 (const char *const[]){"GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH",
				       "GITHUB_API_URL", "GITHUB_STEP_SUMMARY", "GITHUB_SERVER_URL",
				       "GITHUB_RUN_ID", "GITLAB_CI", "GITLAB_TOKEN", "CI_JOB_TOKEN",
				       "CI_PROJECT_ID", "CI_MERGE_REQUEST_IID", "CI_API_V4_URL",
				       "CI_JOB_URL", NULL};
	     *v; v++)
		unsetenv(*v);
	setenv("WPERF_POST_RETRY_MS", "10", 1); /* the back-off, fast */
	if (getrandom(noise, sizeof(noise), 0) != sizeof(noise))
		return -1;
	strcpy(forge_token, "ghs_wperfTestToken");
	for (size_t i = 0; i < sizeof(noise); i++)
		sprintf(forge_token + strlen(forge_token), "%02x", noise[i]);
	snprintf(forge_token_env, sizeof(forge_token_env), "GITHUB_TOKEN=%s", forge_token);
	snprintf(forge_bearer, sizeof(forge_bearer), "Bearer %s", forge_token);
	snprintf(log_path, sizeof(log_path), "%s/forge.log", e2e_tmpdir());
	snprintf(state_path, sizeof(state_path), "%s/forge.json", e2e_tmpdir());
	return 0;
}

/* Where the server keeps its issues: beside its comments. */
static const char *issues_state(char *path, size_t size)
{
	snprintf(path, size, "%s.issues", state_path);
	return path;
}

void forge_start(const char *first, ...)
{
	const char *argv[MAX_ARGS] = {"python3", SERVER_PY,  "--log",	log_path,
				      "--state", state_path, "--token", forge_token};
	size_t n = 8;
	int fds[2];
	char line[32] = "", issues[PATH_MAX + 16];
	FILE *f;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a && n < MAX_ARGS - 1; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	unlink(state_path);
	unlink(issues_state(issues, sizeof(issues)));
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	server = fork();
	assert_true(server >= 0);
	if (server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlive the tests */
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f || !fgets(line, sizeof(line), f))
		fail_msg("%s did not start (no port on its first line)", SERVER_PY);
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	snprintf(forge_url, sizeof(forge_url), "http://127.0.0.1:%s", line);
}

int forge_stop(void **state)
{
	(void)state;
	if (server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
	}
	server = 0;
	return 0;
}

static void copy_member(json_object *o, const char *key, char *dst, size_t size)
{
	json_object *v;

	dst[0] = '\0';
	if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
		snprintf(dst, size, "%s", json_object_get_string(v));
}

size_t forge_requests(struct forge_request *r, size_t max)
{
	FILE *f = fopen(log_path, "r");
	char *line = NULL;
	size_t size = 0, n = 0;

	assert_non_null(f);
	while (getline(&line, &size, f) > 0 && n < max) {
		json_object *o = json_tokener_parse(line), *v, *headers;

		assert_non_null(o);
		copy_member(o, "method", r[n].method, sizeof(r[n].method));
		copy_member(o, "path", r[n].path, sizeof(r[n].path));
		r[n].auth[0] = '\0';
		r[n].private_token[0] = r[n].job_token[0] = '\0';
		if (json_object_object_get_ex(o, "headers", &headers)) {
			copy_member(headers, "authorization", r[n].auth, sizeof(r[n].auth));
			copy_member(headers, "private-token", r[n].private_token,
				    sizeof(r[n].private_token));
			copy_member(headers, "job-token", r[n].job_token, sizeof(r[n].job_token));
		}
		r[n].status =
		    json_object_object_get_ex(o, "status", &v) ? json_object_get_int(v) : 0;
		r[n].time =
		    json_object_object_get_ex(o, "time", &v) ? json_object_get_double(v) : 0;
		json_object_put(o);
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

const char *forge_answers(void)
{
	static char text[1024];
	struct forge_request r[32];
	size_t n = forge_requests(r, 32), len = 0;

	text[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(text); i++)
		len += snprintf(text + len, sizeof(text) - len, "%s%s %ld", i ? ", " : "",
				r[i].method, r[i].status);
	return text;
}

/* A state file of the server, a JSON array (NULL when it was never written). */
static json_object *read_state(const char *path)
{
	struct wperf_buf state = {0};
	json_object *all;

	if (access(path, F_OK) != 0)
		return NULL;
	e2e_read_file(path, &state);
	all = json_tokener_parse((const char *)state.data);
	assert_non_null(all);
	wperf_buf_release(&state);
	return all;
}

/* The server's comments. */
static json_object *comments(void)
{
	return read_state(state_path);
}

json_object *forge_issues(void)
{
	char path[PATH_MAX + 16];

	return read_state(issues_state(path, sizeof(path)));
}

int forge_marked(const char *marker, struct wperf_buf *body, long *id)
{
	json_object *all = comments();
	int n = 0;

	for (size_t i = 0; all && i < json_object_array_length(all); i++) {
		json_object *c = json_object_array_get_idx(all, i), *b, *v;
		const char *text;

		json_object_object_get_ex(c, "body", &b);
		text = json_object_get_string(b);
		if (!text || strncmp(text, marker, strlen(marker)))
			continue;
		n++;
		if (body) {
			wperf_buf_clear(body);
			wperf_buf_append(body, text, strlen(text) + 1);
		}
		if (id)
			*id = json_object_object_get_ex(c, "id", &v) ? json_object_get_int64(v) : 0;
	}
	json_object_put(all);
	return n;
}

size_t forge_comments(void)
{
	json_object *all = comments();
	size_t n = all ? json_object_array_length(all) : 0;

	json_object_put(all);
	return n;
}

void forge_post(struct e2e_output *o, const char *dir, const char *const *env,
		const char *const *args)
{
	char bench[PATH_MAX];
	char *argv[MAX_ARGS] = {"/usr/bin/env", "-C", (char *)(dir ? dir : "."), bench, "post"};
	size_t n = 5;

	/* absolute: the build's path is relative to here, not to dir */
	if (!realpath(e2e_path("wperf-bench"), bench))
		fail_msg("%s: %m", e2e_path("wperf-bench"));
	for (size_t i = 0; args[i] && n < MAX_ARGS - 1; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	for (size_t i = 0; env && env[i]; i++)
		assert_int_equal(putenv((char *)env[i]), 0);
	e2e_run(argv, (uid_t)-1, o);
	for (size_t i = 0; env && env[i]; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(env[i], "="), env[i]);
		unsetenv(name);
	}
}

void forge_expect(const struct e2e_output *o, int status, const char *where, const char *text)
{
	const char *in = !strcmp(where, "out") ? o->out : o->err;

	if (o->status != status || (text && !strstr(in, text)))
		fail_msg("post: exit %d (want %d), std%s lacks \"%s\"\n--- stdout:\n%s\n--- "
			 "stderr:\n%s",
			 o->status, status, where, text ? text : "", o->out, o->err);
}

void forge_assert_token_unsaid(const struct e2e_output *o)
{
	assert_null(strstr(o->out, forge_token));
	assert_null(strstr(o->err, forge_token));
}

static int file_lacks_token(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct wperf_buf b = {0};

	(void)st, (void)ftw;
	if (type == FTW_F) {
		e2e_read_file(path, &b);
		if (memmem(b.data, b.len, forge_token, strlen(forge_token)))
			fail_msg("the token is in %s", path);
		wperf_buf_release(&b);
	}
	return 0;
}

void forge_assert_token_not_in(const char *path)
{
	assert_int_equal(nftw(path, file_lacks_token, 8, FTW_PHYS), 0);
}
