/* SPDX-License-Identifier: MIT */
/*
 * Real software, launched as its users launch it (issue 27): a shell script
 * starts Debian's memcached as a daemon through a double fork (a shell in the
 * background that starts it and exits, so memcached's parent is gone before
 * the load begins), runs the load generator against it as a second process,
 * and stops the server. `wperf-bench record -- ./bench.sh`, with no --target,
 * then finds the knot across the two processes: the workers of the server
 * and the threads of the client, each waiting for the other (the knot of
 * scenarios/memcached.yaml). The report says how many processes its target,
 * the script's process tree, held.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/lib/e2e.h"

#define PORT 11327 /* none of the scenarios' */

static struct e2e_output out;

/* The script: memcached double-forked, 4 s of load, then memcached stopped. */
static const char script_text[] =
    "#!/bin/sh\n"
    "set -e\n"
    "pidfile=%1$s\n"
    "setsid sh -c '/usr/bin/memcached -u root -l 127.0.0.1 -p %2$d -U 0 -m 64 -t 4 "
    "-P %1$s & exit 0'\n"
    "for i in $(seq 100); do [ -s \"$pidfile\" ] && break; sleep 0.05; done\n"
    "sleep 0.3\n"
    "%3$s --server 127.0.0.1:%2$d --threads 2 --connections 4 --pipeline 16 "
    "--get-fraction 0.9 --keys 10000 --value-bytes 1024 --warmup 0 --duration 4\n"
    "kill \"$(cat \"$pidfile\")\"\n";

/* memcached, if the script left it running. */
static void stop_server(void)
{
	FILE *f = fopen(e2e_tmp_path("memcached.pid"), "r");
	long pid = 0;

	if (f && fscanf(f, "%ld", &pid) == 1 && pid > 1)
		kill((pid_t)pid, SIGKILL);
	if (f)
		fclose(f);
}

static void a_script_that_starts_a_server_and_its_load(void **state)
{
	char script[512], trace[512], text[2048];

	(void)state;
	e2e_require_bpf();
	if (access("/usr/bin/memcached", X_OK))
		fail_msg("/usr/bin/memcached is missing: make deps installs it");
	snprintf(script, sizeof(script), "%s", e2e_tmp_path("bench.sh"));
	snprintf(trace, sizeof(trace), "%s", e2e_tmp_path("bench.trace"));
	snprintf(text, sizeof(text), script_text, e2e_tmp_path("memcached.pid"), PORT,
		 e2e_path("loads/memcached/mcload"));
	e2e_write_file(script, text);
	assert_int_equal(chmod(script, 0755), 0);
	e2e_bench(&out, "record", "-q", "-o", trace, "--", script, NULL);
	stop_server();
	if (out.status != 0)
		fail_msg("wperf-bench record exited %d: %s", out.status, out.err);
	e2e_bench(&out, "report", trace, NULL);
	if (out.status != 0)
		fail_msg("wperf-bench report exited %d: %s", out.status, out.err);
	/* the script, the shell that forked memcached, memcached, mcload at least */
	if (!strstr(out.out, " processes, "))
		fail_msg("the report does not say what its target holds:\n%s", out.out);
	if (!strstr(out.out, "memcached/mc-worker") || !strstr(out.out, "mcload/mcload-#"))
		fail_msg("no knot of the server's workers and the client's threads:\n%s", out.out);
	{
		const char *knot = strstr(out.out, "knot 1: ");
		const char *end = knot ? strchr(knot, '\n') : NULL;
		char line[1024];

		if (!knot || !end)
			fail_msg("no knot:\n%s", out.out);
		snprintf(line, sizeof(line), "%.*s", (int)(end - knot), knot);
		if (!strstr(line, "memcached/mc-worker") || !strstr(line, "mcload/mcload-#"))
			fail_msg("the knot is not across the two processes: %s\n%s", line, out.out);
	}
}

/* Last: nothing the script started is left. */
static void nothing_is_left(void **state)
{
	(void)state;
	e2e_require_bpf();
	e2e_assert_nothing_left();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_script_that_starts_a_server_and_its_load),
	    cmocka_unit_test(nothing_is_left),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
