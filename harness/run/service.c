/* SPDX-License-Identifier: MIT */
#include "harness/run/service.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/scenario/scenario_regex.h"
#include "core/util/buf.h"
#include "harness/record/proc_stat.h"
#include "harness/base/progress.h"
#include "harness/base/spawn.h"
#include "harness/run/tcp_port.h"

#define POLL_MS		50
#define FILE_POLL_MS	10    /* an access() a tick: a file's wait need not cost 25 ms */
#define LOG_TAIL	400   /* bytes of a log quoted when a service fails */
#define HTTP_ATTEMPT_MS 2000L /* the longest one GET of a readiness check may take */

/* The caller's interrupt flag (service_cancel_on): the harness has one set of
 * signal handlers, so one flag for the process. */
static const volatile sig_atomic_t *cancel_flag;

void service_cancel_on(const volatile sig_atomic_t *flag)
{
	cancel_flag = flag;
}

static bool cancelled(void)
{
	return cancel_flag && *cancel_flag;
}

static void nap(void)
{
	spawn_nap(POLL_MS / 1000.0);
}

int service_start(const struct service_spec *spec, struct service *out, struct wperf_error *err)
{
	struct spawn_opts o = {
	    .argv = spec->argv, .new_group = 1, .cwd = spec->cwd, .env = spec->env, .out_fd = -1};
	int e;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", spec->name);
	snprintf(out->log_path, sizeof(out->log_path), "%s", spec->log_path);
	o.out_fd = open(spec->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (o.out_fd < 0)
		return wperf_error_set(err, -errno, "%s: cannot create its log %s: %s", spec->name,
				       spec->log_path, strerror(errno));
	e = spawn_process(&o, &out->pgid, err);
	close(o.out_fd);
	if (e) {
		char msg[WPERF_ERROR_MSG_LEN];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		return wperf_error_set(err, e, "%s: %s", spec->name, msg);
	}
	return 0;
}

bool service_running(struct service *s)
{
	if (!s->pgid || s->exited)
		return false;
	if (waitpid(s->pgid, &s->status, WNOHANG) == s->pgid)
		s->exited = true;
	return !s->exited;
}

bool service_wait(struct service *s, double timeout)
{
	double end = progress_now_s() + timeout;

	while (service_running(s) && progress_now_s() < end && !cancelled())
		nap();
	return !service_running(s);
}

/* Is any process of the group left? Reaps the leader and any child of ours. */
static bool group_alive(struct service *s)
{
	struct proc_stat st;

	service_running(s);
	while (waitpid(-s->pgid, NULL, WNOHANG) > 0)
		;
	if (proc_group_alive(s->pgid))
		return true;
	/* The leader may have become a zombie since: ours to reap, for its status. */
	if (!s->exited && proc_stat_read(s->pgid, &st) == 0 && st.state == 'Z' &&
	    waitpid(s->pgid, &s->status, 0) == s->pgid)
		s->exited = true;
	return false;
}

bool service_stop(struct service *s, int sig, double timeout)
{
	double end = progress_now_s() + timeout;
	bool killed = false;

	if (!s->pgid)
		return false;
	kill(-s->pgid, sig);
	while (group_alive(s) && progress_now_s() < end)
		nap();
	if (group_alive(s)) {
		killed = sig != SIGKILL;
		kill(-s->pgid, SIGKILL);
		for (end = progress_now_s() + 5; group_alive(s) && progress_now_s() < end;)
			nap();
	}
	s->pgid = 0;
	return killed;
}

void service_log_tail(const struct service *s, char *buf, size_t size)
{
	int fd = open(s->log_path, O_RDONLY | O_CLOEXEC);
	off_t len = fd < 0 ? 0 : lseek(fd, 0, SEEK_END);
	ssize_t n = 0;

	buf[0] = '\0';
	if (fd < 0)
		return;
	if (len > 0) {
		size_t want = len < (off_t)size - 1 ? (size_t)len : size - 1;

		n = pread(fd, buf, want, len - (off_t)want);
	}
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

/* The error for a service that exited, or for a timeout. */
static int not_ready(struct service *s, const char *what, double timeout, struct wperf_error *err)
{
	char tail[LOG_TAIL + 1], status[128];

	if (cancelled())
		return wperf_error_set(err, -EINTR, "interrupted while %s was starting (%s)",
				       s->name, what);
	service_log_tail(s, tail, sizeof(tail));
	if (s->exited)
		return wperf_error_set(
		    err, -ECHILD, "%s %s before it was ready (%s); the end of %s:\n%s", s->name,
		    spawn_describe_status(s->status, status, sizeof(status)), what, s->log_path,
		    tail);
	return wperf_error_set(err, -ETIMEDOUT,
			       "%s was not ready after %g s (%s); the end of %s:\n%s", s->name,
			       timeout, what, s->log_path, tail);
}

int service_ready_tcp(struct service *s, const char *host, int port, double timeout,
		      struct wperf_error *err)
{
	char what[300];
	double end = progress_now_s() + timeout;

	snprintf(what, sizeof(what), "waiting for %s:%d to accept connections", host, port);
	for (;;) {
		if (tcp_port_accepts(host, port))
			return 0;
		if (!service_running(s) || progress_now_s() >= end || cancelled())
			return not_ready(s, what, timeout, err);
		nap();
	}
}

int service_ready_file(struct service *s, const char *path, double timeout, struct wperf_error *err)
{
	char what[4200];
	double end = progress_now_s() + timeout;

	snprintf(what, sizeof(what), "waiting for %s to exist", path);
	for (;;) {
		if (access(path, F_OK) == 0)
			return 0;
		if (!service_running(s) || progress_now_s() >= end || cancelled())
			return not_ready(s, what, timeout, err);
		spawn_nap(FILE_POLL_MS / 1000.0);
	}
}

/* Reads what the log gained since *offset into text (which keeps growing). */
static void read_more(const struct service *s, off_t *offset, struct wperf_buf *text)
{
	int fd = open(s->log_path, O_RDONLY | O_CLOEXEC);
	char chunk[65536];
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = pread(fd, chunk, sizeof(chunk), *offset)) > 0) {
		if (wperf_buf_append(text, chunk, n) < 0)
			break;
		*offset += n;
	}
	close(fd);
}

int service_ready_log(struct service *s, const char *regex, double timeout, struct wperf_error *err)
{
	struct wperf_buf text = {0};
	struct scenario_regex *re;
	char what[600], why[256];
	double end = progress_now_s() + timeout;
	off_t offset = 0;
	const char *at;
	size_t n;
	int e = scenario_regex_compile(regex, &re, why, sizeof(why));

	if (e)
		return wperf_error_set(err, e, "%s: bad readiness regex '%s': %s", s->name, regex,
				       e == -ENOMEM ? "out of memory" : why);
	snprintf(what, sizeof(what), "waiting for /%s/ in its output", regex);
	for (;;) {
		bool running = service_running(s); /* before reading: a last line is not missed */

		read_more(s, &offset, &text);
		e = scenario_regex_last_line(re, (const char *)text.data, text.len, &at, &n);
		if (e < 0) {
			e = wperf_error_set(err, e, "%s: readiness regex '%s': %s", s->name, regex,
					    e == -E2BIG ? "too costly to match (backtracking)"
							: strerror(-e));
			break;
		}
		if (e > 0) {
			e = 0;
			break;
		}
		if (!running || progress_now_s() >= end || cancelled()) {
			e = not_ready(s, what, timeout, err);
			break;
		}
		nap();
	}
	scenario_regex_free(re);
	wperf_buf_release(&text);
	return e;
}

static size_t discard_body(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

/* The status a GET of url answers within ms milliseconds; 0: no answer
 * (refused, a timeout), with why. Redirects are answers, not followed. */
static long http_status(CURL *c, const char *url, long ms, char why[CURL_ERROR_SIZE])
{
	long status = 0;

	why[0] = '\0';
	curl_easy_reset(c); /* keeps the connection, if the server keeps it open */
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms > 0 ? ms : 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, why);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_body);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	return status;
}

int service_ready_http(struct service *s, const char *url, int status, double timeout,
		       struct wperf_error *err)
{
	char what[2400], why[CURL_ERROR_SIZE];
	double end = progress_now_s() + timeout;
	CURL *c = curl_easy_init();
	long got, last = 0; /* the last answer, whatever came after it */
	int e;

	if (!c)
		return wperf_error_set(err, -ENOMEM, "%s: cannot start libcurl", s->name);
	for (;;) {
		long left = (long)((end - progress_now_s()) * 1000);

		got = http_status(c, url, left < HTTP_ATTEMPT_MS ? left : HTTP_ATTEMPT_MS, why);
		last = got ? got : last;
		if (got == status) {
			e = 0;
			break;
		}
		if (!service_running(s) || progress_now_s() >= end || cancelled()) {
			if (last)
				snprintf(
				    what, sizeof(what),
				    "waiting for GET %.2000s to answer %d, the last answer %ld",
				    url, status, last);
			else
				snprintf(what, sizeof(what),
					 "waiting for GET %.2000s to answer %d: %.200s", url,
					 status, why[0] ? why : "no answer");
			e = not_ready(s, what, timeout, err);
			break;
		}
		nap();
	}
	curl_easy_cleanup(c);
	return e;
}

int service_ready_delay(struct service *s, double seconds, struct wperf_error *err)
{
	double end = progress_now_s() + seconds;

	while (progress_now_s() < end) {
		if (!service_running(s) || cancelled())
			return not_ready(s, "during its start-up delay", seconds, err);
		nap();
	}
	return 0;
}
