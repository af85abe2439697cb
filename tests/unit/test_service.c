/* SPDX-License-Identifier: MIT */
/*
 * Services (harness/run/service.h) with real processes: a whole process group is
 * stopped, children included, also when it ignores SIGTERM; readiness by TCP
 * port, file, log line and HTTP status; clear errors when a service dies or never gets ready.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/run/service.h"

static char logpath[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(logpath, sizeof(logpath), "/tmp/wperf-test-service-XXXXXX");
	fd = mkstemp(logpath);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(logpath);
	return 0;
}

/* How many processes are in process group pgid, from /proc; zombies that
 * nobody reaps (a container's init may not) are dead. */
static int group_size(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d))) {
		char path[300], stat[512], *p, state = 0;
		int pg = 0;
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(stat, sizeof(stat), f) && (p = strrchr(stat, ')')) &&
		    sscanf(p + 1, " %c %*d %d", &state, &pg) == 2 && pg == pgid && state != 'Z')
			n++;
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

static void start(char *const argv[], struct service *s)
{
	struct service_spec spec = {.name = "svc", .argv = argv, .log_path = logpath};
	struct wperf_error err = {0};

	if (service_start(&spec, s, &err) < 0)
		fail_msg("%s", err.msg);
}

/* A service that forked children: stopping it leaves none of them. */
static void test_stop_whole_group(void **state)
{
	char *argv[] = {"/bin/sh", "-c", "sleep 100 & sleep 100 & wait", NULL};
	struct service s;
	pid_t pgid;

	(void)state;
	start(argv, &s);
	pgid = s.pgid;
	for (int i = 0; i < 100 && group_size(pgid) < 3; i++)
		usleep(20000);
	assert_int_equal(group_size(pgid), 3);
	service_stop(&s, SIGTERM, 5);
	assert_int_equal(group_size(pgid), 0);
	assert_true(s.exited);
	assert_true(WIFSIGNALED(s.status));
	assert_int_equal(WTERMSIG(s.status), SIGTERM);
}

/* One that ignores SIGTERM is killed once the stop timeout passes. */
static void test_stop_ignoring_sigterm(void **state)
{
	char *argv[] = {"/bin/sh", "-c", "trap '' TERM; echo up; while :; do sleep 0.05; done",
			NULL};
	struct wperf_error err = {0};
	struct service s;
	pid_t pgid;

	(void)state;
	start(argv, &s);
	pgid = s.pgid;
	assert_int_equal(service_ready_log(&s, "^up$", 10, &err), 0); /* the trap is set */
	service_stop(&s, SIGTERM, 0.3);
	assert_int_equal(group_size(pgid), 0);
	assert_true(WIFSIGNALED(s.status));
	assert_int_equal(WTERMSIG(s.status), SIGKILL);
}

static void test_ready_tcp(void **state)
{
	char *argv[] = {"/bin/sleep", "100", NULL};
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	struct wperf_error err = {0};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct service s;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	start(argv, &s);
	assert_int_equal(service_ready_tcp(&s, "127.0.0.1", ntohs(addr.sin_port), 10, &err), 0);
	close(fd);
	/* Nobody listens there now: not ready within the timeout. */
	assert_int_equal(service_ready_tcp(&s, "127.0.0.1", ntohs(addr.sin_port), 0.2, &err),
			 -ETIMEDOUT);
	assert_non_null(strstr(err.msg, "svc was not ready after 0.2 s (waiting for 127.0.0.1:"));
	service_stop(&s, SIGTERM, 5);
}

/* A service that dies during start-up: the error quotes the end of its log. */
static void test_dies_before_ready(void **state)
{
	char *argv[] = {"/bin/sh", "-c", "echo 'cannot bind: address in use' >&2; exit 3", NULL};
	struct wperf_error err = {0};
	struct service s;

	(void)state;
	start(argv, &s);
	assert_int_equal(service_ready_tcp(&s, "127.0.0.1", 1, 10, &err), -ECHILD);
	assert_non_null(strstr(err.msg, "svc exited with status 3 before it was ready"));
	assert_non_null(strstr(err.msg, "cannot bind: address in use"));
	service_stop(&s, SIGTERM, 1);
}

static void test_ready_log_and_file(void **state)
{
	char *argv[] = {"/bin/sh", "-c",
			"sleep 0.1; echo 'server started on 8080'; touch /tmp/wperf-test-ready.$$; "
			"echo /tmp/wperf-test-ready.$$; sleep 100",
			NULL};
	struct wperf_error err = {0};
	struct service s;
	char path[64];

	(void)state;
	start(argv, &s);
	assert_int_equal(service_ready_log(&s, "server (started|up) on [0-9]+", 10, &err), 0);
	assert_int_equal(service_ready_log(&s, "^/tmp/wperf-test-ready\\.[0-9]+$", 10, &err), 0);
	snprintf(path, sizeof(path), "/tmp/wperf-test-ready.%d", (int)s.pgid);
	assert_int_equal(service_ready_file(&s, path, 10, &err), 0);
	unlink(path);
	assert_int_equal(service_ready_file(&s, "/nonexistent/ready", 0.2, &err), -ETIMEDOUT);
	assert_non_null(strstr(err.msg, "waiting for /nonexistent/ready to exist"));
	assert_int_equal(service_ready_log(&s, "([", 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "svc: bad readiness regex '(['"));
	assert_int_equal(service_ready_delay(&s, 0.1, &err), 0);
	service_stop(&s, SIGTERM, 5);
}

/* A free TCP port on loopback (free when asked: the kernel's next pick). */
static int free_port(void)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	close(fd);
	return ntohs(addr.sin_port);
}

/* An HTTP server on loopback (Python's): ready once GET answers the status
 * wanted, polled while it starts; another status, or no server, times out
 * and says what was answered. */
static void test_ready_http(void **state)
{
	char port[16], url[64],
	    *argv[] = {"python3",   "-m",	   "http.server", port, "--bind",
		       "127.0.0.1", "--directory", "/",		  NULL};
	struct wperf_error err = {0};
	struct service s;

	(void)state;
	snprintf(port, sizeof(port), "%d", free_port());
	start(argv, &s);
	snprintf(url, sizeof(url), "http://127.0.0.1:%s/", port);
	assert_int_equal(service_ready_http(&s, url, 200, 20, &err), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%s/nonexistent-file", port);
	assert_int_equal(service_ready_http(&s, url, 404, 5, &err), 0);
	assert_int_equal(service_ready_http(&s, url, 200, 0.3, &err), -ETIMEDOUT);
	assert_non_null(strstr(err.msg, "svc was not ready after 0.3 s (waiting for GET "));
	if (!strstr(err.msg, "nonexistent-file to answer 200, the last answer 404)"))
		fail_msg("%s", err.msg);
	service_stop(&s, SIGTERM, 5);

	/* Nobody there: the error says why there was no answer. */
	argv[0] = "/bin/sleep", argv[1] = "100", argv[2] = NULL;
	start(argv, &s);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", free_port());
	assert_int_equal(service_ready_http(&s, url, 200, 0.3, &err), -ETIMEDOUT);
	assert_non_null(strstr(err.msg, "/ to answer 200: "));
	assert_non_null(strstr(err.msg, "onnect")); /* libcurl's "Couldn't connect to server" */
	service_stop(&s, SIGTERM, 5);
}

static void test_start_errors(void **state)
{
	char *missing[] = {"/nonexistent/program", NULL};
	char *sleeper[] = {"/bin/sleep", "1", NULL};
	struct service_spec spec = {.name = "svc", .argv = missing, .log_path = logpath};
	struct wperf_error err = {0};
	struct service s;

	(void)state;
	assert_int_equal(service_start(&spec, &s, &err), -ENOENT);
	assert_string_equal(err.msg,
			    "svc: cannot run /nonexistent/program: No such file or directory");
	spec.argv = sleeper;
	spec.cwd = "/nonexistent-dir";
	assert_int_equal(service_start(&spec, &s, &err), -ENOENT);
	assert_string_equal(
	    err.msg, "svc: cannot run /bin/sleep in /nonexistent-dir: No such file or directory");
	spec.cwd = NULL;
	spec.log_path = "/nonexistent/log";
	assert_int_equal(service_start(&spec, &s, &err), -ENOENT);
	assert_string_equal(err.msg, "svc: cannot create its log /nonexistent/log: No such file "
				     "or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stop_whole_group),   cmocka_unit_test(test_stop_ignoring_sigterm),
	    cmocka_unit_test(test_ready_tcp),	       cmocka_unit_test(test_dies_before_ready),
	    cmocka_unit_test(test_ready_log_and_file), cmocka_unit_test(test_start_errors),
	    cmocka_unit_test(test_ready_http),
	};

	return cmocka_run_group_tests_name("services", tests, setup, teardown);
}
