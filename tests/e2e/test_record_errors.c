/* SPDX-License-Identifier: MIT */
/*
 * How `wperf-bench record`, `info` and `dump` fail and stop: each error is
 * caused for real and must give exit status 2, a message that says what went
 * wrong, no half-written file and nothing left attached in the kernel. And
 * how an armed recorder (--arm, as `run` starts it) waits, opens and stops.
 *
 * It records, but asserts nothing of what else the machine does meanwhile:
 * make test runs it beside the programs that do not record.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <cmocka.h>

#include "core/trace/meta.h"
#include "tests/lib/e2e.h"

#define NOBODY 65534

static void test_not_root(void **state)
{
	char *argv[] = {
	    (char *)e2e_path("wperf-bench"), "record", "-o", "/tmp/x.trace", "-d", "1", NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));

	(void)state;
	if (geteuid() != 0)
		skip(); /* we need root to become somebody else */
	e2e_run(argv, NOBODY, o);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, "recording needs root, or the capabilities CAP_BPF and "
				       "CAP_PERFMON (running as uid 65534 without them)"));
	free(o);
}

static void test_unwritable_output(void **state)
{
	char *argv[] = {(char *)e2e_path("wperf-bench"),
			"record",
			"-o",
			"/nonexistent/x.trace",
			"-d",
			"1",
			NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));

	(void)state;
	e2e_require_bpf();
	e2e_run(argv, -1, o);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, "cannot write /nonexistent/x.trace: the folder /nonexistent "
				       "does not exist"));
	assert_false(e2e_recorder_programs_linger());
	free(o);
}

static void test_command_not_found(void **state)
{
	char *argv[] = {
	    (char *)e2e_path("wperf-bench"), "record", "-o", (char *)e2e_tmp_path("nf.trace"), "--",
	    "/nonexistent/program",	     NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));

	(void)state;
	e2e_require_bpf();
	e2e_run(argv, -1, o);
	assert_int_equal(o->status, 2);
	assert_non_null(
	    strstr(o->err, "cannot run /nonexistent/program: No such file or directory"));
	assert_int_equal(access(e2e_tmp_path("nf.trace"), F_OK), -1);
	assert_int_equal(access(e2e_tmp_path("nf.trace.part"), F_OK), -1);
	free(o);
}

static void test_bad_options(void **state)
{
	char *stacks[] = {(char *)e2e_path("wperf-bench"), "record", "--stacks", "some", NULL};
	char *duration[] = {(char *)e2e_path("wperf-bench"), "record", "-d", "-3", NULL};
	char *both[] = {(char *)e2e_path("wperf-bench"), "record", "-p", "1", "--", "true", NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));

	(void)state;
	e2e_run(stacks, -1, o);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, "--stacks is none, kernel, user, all or dwarf, not 'some'"));
	e2e_run(duration, -1, o);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, "--duration wants a positive number of seconds, not '-3'"));
	e2e_run(both, -1, o);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, "give either a COMMAND or --pid, not both"));
	free(o);
}

/* A file system that fills up while the trace is written: a 256 KiB tmpfs. */
static void test_disk_full(void **state)
{
	const char *dir = e2e_tmp_path("small");
	char trace[600];
	char *argv[] = {(char *)e2e_path("wperf-bench"),
			"record",
			"--no-compress",
			"-o",
			trace,
			"--",
			(char *)e2e_path("synthetic/pingpong"),
			"--pin",
			"0",
			"-d",
			"3",
			NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	int left;

	(void)state;
	e2e_require_bpf();
	snprintf(trace, sizeof(trace), "%s/full.trace", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mount("tmpfs", dir, "tmpfs", 0, "size=256k"), 0);
	e2e_run(argv, -1, o);
	left = access(trace, F_OK) == 0 || access(e2e_tmp_path("small/full.trace.part"), F_OK) == 0;
	assert_int_equal(umount(dir), 0); /* before any assertion can stop the test */
	print_message("%s", o->err);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, "No space left on device"));
	assert_false(left);
	assert_false(e2e_recorder_programs_linger());
	free(o);
}

/* SIGINT in the middle of a whole-machine recording: a complete trace, exit 0,
 * no part file, nothing left attached. */
static void test_sigint_stops_cleanly(void **state)
{
	const char *trace = e2e_tmp_path("sigint.trace");
	struct timespec tick = {0, 100 * 1000 * 1000}, wait = {0, 500 * 1000 * 1000};
	struct wperf_trace *t = NULL;
	struct wperf_error err = {0};
	int status, loaded;
	pid_t pid;

	(void)state;
	e2e_require_bpf();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl(e2e_path("wperf-bench"), "wperf-bench", "record", "-q", "-o", trace, NULL);
		_exit(127);
	}
	/* loaded (in up to 30 s: a busy machine verifies slower), then recording */
	for (int i = 0; i < 300 && !(loaded = e2e_recorder_programs_held_by(pid)); i++)
		nanosleep(&tick, NULL);
	nanosleep(&wait, NULL);
	kill(pid, SIGINT); /* before any assertion: a failed one must not leave it running */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(loaded);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(e2e_recorder_programs_linger());
	assert_int_equal(access(e2e_tmp_path("sigint.trace.part"), F_OK), -1);
	if (wperf_trace_open(trace, &t, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(wperf_trace_stats(t)->events[WPERF_EV_SWITCH] > 0);
	assert_true(wperf_trace_stats(t)->end_ts > wperf_trace_stats(t)->start_ts);
	wperf_trace_free(t);
}

/* Starts `record -q --arm ARM -o TRACE -d 1`, stderr to log, and waits until
 * it is armed (in up to 30 s: a busy machine verifies slower); its pid. */
static pid_t start_armed(const char *arm, const char *trace, const char *log)
{
	pid_t pid =
	    e2e_bench_start(log, "record", "-q", "--arm", arm, "-o", trace, "-d", "1", NULL);

	if (!e2e_wait_for_file(arm, 30)) {
		kill(pid, SIGKILL);
		e2e_wait(pid);
		fail_msg("record --arm did not create %s", arm);
	}
	return pid;
}

/* Armed, the recorder has loaded its programs and records nothing until
 * SIGUSR1; then it records the processes its arm file names, for the target
 * and harness it names, and removes the file. */
static void test_armed_recorder_waits_for_its_signal(void **state)
{
	const char *arm = e2e_tmp_path("armed"), *trace = e2e_tmp_path("armed.trace");
	struct timespec wait = {0, 300 * 1000 * 1000}, signalled;
	struct wperf_trace *t = NULL;
	struct wperf_error err = {0};
	char text[256];
	pid_t sleeper, pid;
	int loaded, status;

	(void)state;
	e2e_require_bpf();
	sleeper = fork();
	assert_true(sleeper >= 0);
	if (sleeper == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl("/bin/sleep", "sleep", "30", NULL);
		_exit(127);
	}
	pid = start_armed(arm, trace, NULL);
	nanosleep(&wait, NULL);
	loaded = e2e_recorder_programs_held_by(pid);
	snprintf(text, sizeof(text), "pid=%d\ntarget=sleep\nharness-pids=%d,%d\n", (int)sleeper,
		 (int)getpid(), (int)pid);
	e2e_write_file(arm, text);
	clock_gettime(CLOCK_MONOTONIC, &signalled);
	kill(pid, SIGUSR1);
	status = e2e_wait(pid);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	assert_true(loaded);
	assert_int_equal(status, 0);
	assert_int_equal(access(arm, F_OK), -1);
	if (wperf_trace_open(trace, &t, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(wperf_trace_meta(t, WPERF_META_ANALYSIS_TARGET), "sleep");
	snprintf(text, sizeof(text), "%d,%d", (int)getpid(), (int)pid);
	assert_string_equal(wperf_trace_meta(t, WPERF_META_HARNESS_PIDS), text);
	snprintf(text, sizeof(text), "%d", (int)sleeper);
	assert_string_equal(wperf_trace_meta(t, WPERF_META_TARGETS), text);
	/* the window opens after the signal, not as the programs are loaded */
	assert_true(wperf_trace_stats(t)->start_ts >=
		    (uint64_t)signalled.tv_sec * 1000000000u + (uint64_t)signalled.tv_nsec);
	wperf_trace_free(t);
	assert_false(e2e_recorder_programs_linger());
}

/* A stop signal before SIGUSR1: exit 2, why, no trace, nothing attached. */
static void test_armed_recorder_stopped(void **state)
{
	const char *arm = e2e_tmp_path("stopped"), *trace = e2e_tmp_path("stopped.trace");
	const char *log = e2e_tmp_path("stopped.log");
	struct wperf_buf err = {0};
	pid_t pid;

	(void)state;
	e2e_require_bpf();
	pid = start_armed(arm, trace, log);
	kill(pid, SIGINT);
	assert_int_equal(e2e_wait(pid), 2);
	e2e_read_file(log, &err);
	assert_non_null(strstr((const char *)err.data, "stopped before the window opened"));
	assert_int_equal(access(trace, F_OK), -1);
	assert_int_equal(access(e2e_tmp_path("stopped.trace.part"), F_OK), -1);
	assert_int_equal(access(arm, F_OK), -1);
	assert_false(e2e_recorder_programs_linger());
	wperf_buf_release(&err);
}

/* An arm file with an option it cannot take: exit 2, the file, the line and
 * the option named, no trace. */
static void test_arm_file_bad(void **state)
{
	const char *arm = e2e_tmp_path("bad"), *trace = e2e_tmp_path("bad.trace");
	const char *log = e2e_tmp_path("bad.log");
	struct wperf_buf err = {0};
	char want[600];
	pid_t pid;

	(void)state;
	e2e_require_bpf();
	pid = start_armed(arm, trace, log);
	e2e_write_file(arm, "target=sleep\npid=12x\n");
	kill(pid, SIGUSR1);
	assert_int_equal(e2e_wait(pid), 2);
	e2e_read_file(log, &err);
	snprintf(want, sizeof(want), "%s:2: pid wants PID[,PID...]", arm);
	if (!strstr((const char *)err.data, want))
		fail_msg("'%s' lacks '%s'", (const char *)err.data, want);
	assert_non_null(strstr((const char *)err.data, "not '12x'"));
	assert_int_equal(access(trace, F_OK), -1);
	assert_false(e2e_recorder_programs_linger());
	wperf_buf_release(&err);
}

/* info and dump refuse a truncated trace with the offset, and exit 2. */
static void test_truncated_trace(void **state)
{
	const char *trace = e2e_tmp_path("trunc.trace"), *cut = e2e_tmp_path("cut.trace");
	char *record[] = {(char *)e2e_path("wperf-bench"),
			  "record",
			  "-q",
			  "-o",
			  (char *)trace,
			  "--",
			  "/bin/true",
			  NULL};
	char *info[] = {(char *)e2e_path("wperf-bench"), "info", (char *)cut, NULL};
	char *dump[] = {(char *)e2e_path("wperf-bench"), "dump", (char *)cut, NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	char cmd[1200];
	struct stat st;

	(void)state;
	e2e_require_bpf();
	e2e_run(record, -1, o);
	assert_int_equal(o->status, 0);
	assert_int_equal(stat(trace, &st), 0);
	snprintf(cmd, sizeof(cmd), "head -c %lld '%s' > '%s'", (long long)st.st_size / 2, trace,
		 cut);
	assert_int_equal(system(cmd), 0);
	e2e_run(info, -1, o);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, cut));
	assert_non_null(strstr(o->err, "offset"));
	e2e_run(dump, -1, o);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, "offset"));
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_not_root),
	    cmocka_unit_test(test_unwritable_output),
	    cmocka_unit_test(test_command_not_found),
	    cmocka_unit_test(test_bad_options),
	    cmocka_unit_test(test_disk_full),
	    cmocka_unit_test(test_sigint_stops_cleanly),
	    cmocka_unit_test(test_truncated_trace),
	    cmocka_unit_test(test_armed_recorder_waits_for_its_signal),
	    cmocka_unit_test(test_armed_recorder_stopped),
	    cmocka_unit_test(test_arm_file_bad),
	};

	return cmocka_run_group_tests_name("record errors (end to end)", tests, NULL, NULL);
}
