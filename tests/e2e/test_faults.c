/* SPDX-License-Identifier: MIT */
/*
 * Faults caused for real in `wperf-bench run`: services that crash, exit at
 * once, ignore SIGTERM or leave children behind; a port already taken; a load
 * that hangs; a disk that fills while the trace is written; SIGINT and SIGTERM
 * at every phase of a run; and SIGKILL at every phase, after which a later run
 * must clean up what the killed one left.
 *
 * Each must give exit status 2 and a message naming the cause, leave the
 * results folder marked incomplete with the reason (its summary.json whole),
 * run the teardown (unless wperf-bench was killed), and leave no process, no
 * recorder program in the kernel, no partial file and no registry entry.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/util/buf.h"
#include "harness/base/output.h"
#include "harness/run/stale.h"
#include "tests/lib/e2e.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* The whole of a small file, NUL-terminated, in a buffer the caller frees
 * (an empty one when the file cannot be read). */
static char *slurp(const char *path)
{
	struct wperf_buf b = {0};
	struct wperf_error err = {0};

	output_read_all(path, &b, &err);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	return (char *)b.data;
}

/* Waits up to seconds for the file at path to contain text. */
static int wait_for_text(const char *path, const char *text, double seconds)
{
	for (double end = now_s() + seconds; now_s() < end; usleep(10 * 1000)) {
		char *s = slurp(path);
		int found = strstr(s, text) != NULL;

		free(s);
		if (found)
			return 1;
	}
	return 0;
}

/* Is the run set into dir in the registry of running run sets? */
static int registered(const char *dir)
{
	DIR *d = opendir(STALE_DIR);
	struct dirent *de;
	char want[700];
	int found = 0;

	snprintf(want, sizeof(want), "\n%s\n", dir);
	while (d && !found && (de = readdir(d))) {
		char path[600], *s;

		snprintf(path, sizeof(path), "%s/%s", STALE_DIR, de->d_name);
		s = slurp(path);
		found = strstr(s, want) != NULL;
		free(s);
	}
	if (d)
		closedir(d);
	return found;
}

static int partial(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *name = path + ftw->base;

	(void)st;
	(void)flag;
	if (strstr(name, ".part") || strstr(name, ".tmp."))
		fail_msg("%s was left behind", path);
	return 0;
}

/* What every failed run must leave: the cause said, the folder marked
 * incomplete with its reason, nothing running, nothing half written. */
static void assert_failed_cleanly(const char *dir, const struct e2e_output *o, const char *why,
				  const char *in_err)
{
	if (o->status != 2 || !strstr(o->err, in_err))
		fail_msg("status %d, expected 2 with \"%s\":\n%s", o->status, in_err, o->err);
	e2e_assert_incomplete(dir, why); /* summary.json read back whole */
	e2e_assert_nothing_left();
	assert_int_equal(nftw(dir, partial, 16, FTW_PHYS), 0);
	assert_false(registered(dir));
}

static struct e2e_output out; /* of the last wperf-bench run */

/* `info` on run 1's trace in dir: it must be whole or, unless whole is
 * required, refused as truncated at an offset. */
static void check_trace(const char *dir, int whole)
{
	char trace[700];

	snprintf(trace, sizeof(trace), "%s/runs/1/wperf.trace", dir);
	e2e_bench(&out, "info", trace, NULL);
	if (out.status && (whole || !strstr(out.err, "truncated") || !strstr(out.err, "offset")))
		fail_msg("info %s: %d\n%s", trace, out.status, out.err);
}

/* Runs the scenario text (see e2e_scenario) as NAME into results-NAME; it
 * must fail cleanly for the reason why, saying in_err, and run its teardown
 * (TORN_DOWN). Returns the results folder. */
static const char *fails(const char *name, const char *text, const char *why, const char *in_err)
{
	char file[128], results[128];
	const char *path, *dir;

	snprintf(file, sizeof(file), "%s.yaml", name);
	snprintf(results, sizeof(results), "results-%s", name);
	path = e2e_scenario(file, text);
	dir = e2e_tmp_path(results);
	e2e_bench(&out, "run", "-q", "--results", dir, path, NULL);
	assert_failed_cleanly(dir, &out, why, in_err);
	assert_true(exists(dir, "torn-down"));
	return dir;
}

#define TORN_DOWN "teardown: ['touch ${RESULTS_DIR}/torn-down']\n"
#define MARKED	  "    env: {WPERF_TEST_MARK: '%1$s'}\n"

/* ---- services ---- */

/* One that crashes while the load runs fails the run at once, not at the
 * load's end. */
static void service_crashes_mid_run(void **state)
{
	double t0 = now_s();

	(void)state;
	e2e_require_bpf();
	fails("crash",
	      "name: crash\n"
	      "services:\n"
	      "  crashy:\n"
	      "    command: [sh, -c, 'echo serving; sleep 1.5; kill -SEGV $$']\n" MARKED
	      "    ready: {log: serving}\n"
	      "load: {command: 'env %2$s sleep 60', duration: 60}\n" TORN_DOWN,
	      "service crashy stopped during the run: it was killed by signal 11 (Segmentation "
	      "fault)",
	      "serving");
	assert_true(now_s() - t0 < 30); /* not the load's 60 s */
}

/* One that exits at once: its status and the end of its log. */
static void service_exits_at_once(void **state)
{
	(void)state;
	fails("exits-3",
	      "name: exits-3\n"
	      "services:\n"
	      "  quick:\n"
	      "    command: sh -c 'echo cannot bind; exit 3'\n" MARKED "    ready: {delay: 2}\n"
	      "load: {command: 'env %2$s true'}\n" TORN_DOWN,
	      "service quick exited with status 3 before it was ready (during its start-up delay)",
	      "cannot bind");
	/* Status 0, and no ready check: a service must keep running all the same. */
	e2e_require_bpf();
	fails("exits-0",
	      "name: exits-0\n"
	      "services:\n"
	      "  quick:\n"
	      "    command: sh -c 'echo daemonized, bye; exit 0'\n" MARKED
	      "load: {command: 'env %2$s sleep 5'}\n" TORN_DOWN,
	      "service quick stopped during the run: it exited with status 0", "daemonized, bye");
}

/* One that ignores SIGTERM, with a child that does too, is killed after its
 * stop_timeout, with a warning that names it. */
static void service_ignores_sigterm(void **state)
{
	(void)state;
	fails("stubborn",
	      "name: stubborn\n"
	      "services:\n"
	      "  stubborn:\n"
	      "    command: sh -c 'trap \"\" TERM; sleep 300 & echo up; wait'\n" MARKED
	      "    ready: {log: up}\n"
	      "    stop_timeout: 1\n"
	      "  deaf:\n"
	      "    command: sleep 300\n" MARKED
	      "    ready: {file: /nonexistent/ready, timeout: 0.5}\n"
	      "load: {command: 'true'}\n" TORN_DOWN,
	      "service deaf was not ready after 0.5 s",
	      "service stubborn did not stop within 1 s of SIGTERM: killed with SIGKILL");
}

/* One whose leader exits after a double fork: the orphan, still in its
 * process group, is stopped with the group. */
static void service_leaves_children(void **state)
{
	(void)state;
	fails("orphans",
	      "name: orphans\n"
	      "services:\n"
	      "  daemon:\n"
	      "    command: sh -c 'sh -c \"sleep 300 &\"; echo forked; exit 0'\n" MARKED
	      "    ready: {delay: 2}\n"
	      "load: {command: 'true'}\n" TORN_DOWN,
	      "service daemon exited with status 0 before it was ready", "forked");
}

/* A service whose ready check is a port that another process holds already:
 * refused before it starts, naming the other process. */
static void port_already_in_use(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char text[1024], want[200];
	const char *dir;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	snprintf(text, sizeof(text),
		 "name: port\n"
		 "services:\n"
		 "  web:\n"
		 "    command: sh -c 'touch ${RESULTS_DIR}/started; sleep 300'\n"
		 "    env: {WPERF_TEST_MARK: '%%1$s'}\n" /* filled in by e2e_scenario */
		 "    ready: {tcp: '127.0.0.1:%d', timeout: 5}\n"
		 "load: {command: 'true'}\n" TORN_DOWN,
		 ntohs(a.sin_port));
	snprintf(want, sizeof(want),
		 "services.web: 127.0.0.1:%d is already in use by another process (pid %d, "
		 "test_faults)",
		 ntohs(a.sin_port), (int)getpid());
	dir = fails("port", text, want, want);
	close(fd);
	assert_false(exists(dir, "started"));
}

/* ---- the load ---- */

/* A load still running past load.timeout is stopped and fails the run. */
static void load_hangs_past_its_duration(void **state)
{
	double t0 = now_s();

	(void)state;
	e2e_require_bpf();
	fails("hang",
	      "name: hang\n"
	      "load: {command: 'env %2$s sleep 300', duration: 1, timeout: 3}\n" TORN_DOWN,
	      "the load was still running 3 s after it started (load.duration: 1 s, "
	      "load.timeout: 3 s)",
	      "load.timeout");
	assert_null(strstr(out.err, "did not stop")); /* sleep takes SIGTERM */
	assert_true(now_s() - t0 < 20);
}

/* One that hangs with no output and ignores SIGTERM: SIGKILL after
 * load.stop_timeout, said. */
static void load_hangs_and_ignores_sigterm(void **state)
{
	(void)state;
	e2e_require_bpf();
	fails("deaf-load",
	      "name: deaf-load\n"
	      "load:\n"
	      "  command: env %2$s sh -c 'trap \"\" TERM; sleep 300'\n"
	      "  duration: 1\n"
	      "  timeout: 2\n"
	      "  stop_timeout: 1\n" TORN_DOWN,
	      "the load was still running 2 s after it started",
	      "the load did not stop within 1 s of SIGTERM: killed with SIGKILL");
}

/* ---- a disk that fills up while the trace is written ---- */

/* The results folder of the test below, results-full, is a tmpfs of 256 KiB. */
static int mount_small(void **state)
{
	const char *dir = e2e_tmp_path("results-full");

	(void)state;
	if (geteuid() != 0)
		return 0; /* the test skips */
	mkdir(dir, 0755);
	return mount("tmpfs", dir, "tmpfs", 0, "size=256k");
}

static int unmount_small(void **state)
{
	(void)state;
	return geteuid() == 0 ? umount2(e2e_tmp_path("results-full"), MNT_DETACH) : 0;
}

static void disk_fills_up(void **state)
{
	char trace[700];
	const char *dir;

	(void)state;
	e2e_require_bpf();
	dir = fails("full",
		    "name: full\n"
		    "load:\n"
		    "  command: env %2$s %3$s/synthetic/pingpong --pin 0 -d 3\n"
		    "  duration: 3\n" TORN_DOWN,
		    "No space left on device", "No space left on device");
	snprintf(trace, sizeof(trace), "%s/runs/1/wperf.trace", dir);
	if (!strstr(out.err, trace))
		fail_msg("the message does not name %s:\n%s", trace, out.err);
	if (access(trace, F_OK) == 0)
		check_trace(dir, 0);
}

/* ---- signals at every phase ---- */

enum phase { PREPARE, STARTING, RECORDING, ANALYSIS, TEARDOWN };

static const char *const phase_names[] = {"prepare", "starting", "recording", "analysis",
					  "teardown"};

/*
 * The scenario NAME.yaml, which blocks in phase p: each step leaves a file
 * behind as it starts (in-prepare, in-service, in-teardown), the prepare and the
 * teardown leave a child of their own behind, and the service ignores SIGTERM,
 * as do its children. Two runs: an interrupt after the first run's analysis
 * still cuts the set short. (%%N$s: e2e_scenario's, filled in after.)
 */
static const char *phase_scenario(enum phase p, const char *name)
{
	char text[2048], file[128];

	snprintf(text, sizeof(text),
		 "name: %s\n"
		 "prepare:\n"
		 "  - \"env %%2$s sh -c 'touch ${RESULTS_DIR}/in-prepare; %s'\"\n"
		 "services:\n"
		 "  svc:\n"
		 "    command: sh -c 'trap \"\" TERM; sleep 300 & sleep 301 & touch "
		 "${RESULTS_DIR}/in-service; wait'\n"
		 "    env: {WPERF_TEST_MARK: '%%1$s'}\n"
		 "    ready: {file: '${RESULTS_DIR}/%s', timeout: 60}\n"
		 "    stop_timeout: 1\n"
		 "load: %s\n"
		 "runs: 2\n"
		 "teardown:\n"
		 "  - \"env %%2$s sh -c 'touch ${RESULTS_DIR}/in-teardown; %s; touch "
		 "${RESULTS_DIR}/torn-down'\"\n",
		 name, p == PREPARE ? "sleep 300 & exec sleep 301" : "true",
		 p == STARTING ? "never" : "in-service",
		 p == RECORDING ? "{command: 'env %2$s sleep 60', duration: 60}"
		 : p == ANALYSIS
		     ? "{command: 'env %2$s %3$s/synthetic/pingpong --pin 0 -d 1', duration: 1}"
		     : "{command: 'env %2$s sleep 1', duration: 1}",
		 p == TEARDOWN ? "sleep 300 & sleep 2" : "true");
	snprintf(file, sizeof(file), "%s.yaml", name);
	return e2e_scenario(file, text);
}

/* Starts a run of the phase's scenario into results-NAME in the background,
 * its output into NAME.log, and waits until it is in the phase. */
static pid_t start_in_phase(enum phase p, const char *name, const char **dir, const char **log)
{
	const char *path = phase_scenario(p, name);
	char file[700];
	pid_t pid;
	int in = 0;

	snprintf(file, sizeof(file), "results-%s", name);
	*dir = e2e_tmp_path(file);
	snprintf(file, sizeof(file), "%s.log", name);
	*log = e2e_tmp_path(file);
	pid = e2e_bench_start(*log, "run", "-q", "--results", *dir, path, NULL);

	switch (p) {
	case PREPARE:
	case STARTING:
	case TEARDOWN:
		snprintf(file, sizeof(file), "%s/%s", *dir,
			 p == PREPARE	 ? "in-prepare"
			 : p == STARTING ? "in-service"
					 : "in-teardown");
		in = e2e_wait_for_file(file, 60);
		break;
	case RECORDING:
		snprintf(file, sizeof(file), "%s/runs/1/recording", *dir);
		in = e2e_wait_for_file(file, 60);
		break;
	case ANALYSIS:
		snprintf(file, sizeof(file), "%s/log", *dir);
		in = wait_for_text(file, "analyzing", 60);
		break;
	}
	if (!in) {
		kill(pid, SIGKILL);
		fail_msg("%s never reached its %s", name, phase_names[p]);
	}
	return pid;
}

/* A phase, and the signal sent to wperf-bench in it. */
struct phase_case {
	enum phase p;
	int sig;
	int recorder_too; /* SIGKILL the recorder too, which cannot finish its trace */
};

/* Past the prepare commands and the start of the services, runs record. */
static void require_bpf_from(enum phase p)
{
	if (p >= RECORDING)
		e2e_require_bpf();
}

/* SIGINT or SIGTERM: everything stopped, the teardown run, the folder
 * incomplete with the signal as the reason. */
static void interrupted(void **state)
{
	const struct phase_case *c = *state;
	enum phase p = c->p;
	int sig = c->sig;
	char name[64], *err;
	const char *dir, *log,
	    *why = sig == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM";
	pid_t pid;

	require_bpf_from(p);
	snprintf(name, sizeof(name), "%s-%s", phase_names[p], sigabbrev_np(sig));
	pid = start_in_phase(p, name, &dir, &log);
	kill(pid, sig);
	out.status = e2e_wait(pid);
	err = slurp(log);
	snprintf(out.err, sizeof(out.err), "%s", err);
	free(err);
	assert_failed_cleanly(dir, &out, why, why);
	assert_true(exists(dir, "torn-down"));
	if (p == RECORDING) /* the recording was stopped, its trace finished */
		check_trace(dir, 1);
	if (p == TEARDOWN) /* no analysis after an interrupted teardown */
		assert_false(exists(dir, "runs/1/report.json"));
}

/* ---- SIGKILL at every phase, and the run after it that cleans up ---- */

/*
 * SIGKILL: nothing can clean up, so what ignores SIGTERM (the service) and
 * what wperf-bench did not start itself (the children of the prepare commands, the
 * service and the teardown) survives it. The recorder does not: its parent's
 * death stops it, and its programs go with it. The next run set (of another
 * scenario) kills the leftovers, marks the folder incomplete, and says so.
 * After a kill while recording, that is a whole run of another scenario; after
 * the others, one that fails in its setup.
 */
static void killed(void **state)
{
	const struct phase_case *c = *state;
	enum phase p = c->p;
	int success = p == RECORDING;
	const char *after_run =
	    success
		? e2e_scenario("other.yaml", "name: other\n"
					     "load: {command: 'env %2$s sleep 1', duration: 1}\n")
		: e2e_scenario("next.yaml", "name: next\n"
					    "setup: ['false']\n"
					    "load: {command: 'true'}\n");
	char name[64], results[128], file[700], want[700];
	const char *dir, *log, *next;
	pid_t pid;
	char *ledger;

	require_bpf_from(p);
	snprintf(name, sizeof(name), "%s-KILL%s", phase_names[p], c->recorder_too ? "-all" : "");
	pid = start_in_phase(p, name, &dir, &log);
	assert_true(registered(dir));
	kill(pid, SIGKILL);
	assert_int_equal(e2e_wait(pid), 128 + SIGKILL);
	if (p != ANALYSIS) /* by then the services are stopped already */
		assert_true(e2e_marked_processes() > 0);
	snprintf(file, sizeof(file), "%s/%s", dir, STALE_LEDGER);
	ledger = slurp(file);
	assert_non_null(strstr(ledger, p == PREPARE ? "prepare[0]:" : "service svc:"));
	if (c->recorder_too) { /* its line: "PGID START the recorder: ..." */
		char *line = strstr(ledger, " the recorder:");

		assert_non_null(line);
		while (line > ledger && line[-1] != '\n')
			line--;
		assert_int_equal(kill(-atoi(line), SIGKILL), 0);
		assert_false(e2e_recorder_programs_linger());
		assert_true(exists(dir, "runs/1/wperf.trace.part"));
	}
	free(ledger);
	if (p == RECORDING && !c->recorder_too) {
		/* the recorder finishes its trace and goes, programs and all (its
		 * ready file goes first, as the window closes) */
		for (int i = 0; i < 600 && (exists(dir, "runs/1/recording") ||
					    exists(dir, "runs/1/wperf.trace.part"));
		     i++)
			usleep(100 * 1000);
		assert_false(exists(dir, "runs/1/recording"));
		assert_false(e2e_recorder_programs_linger());
		assert_false(exists(dir, "runs/1/wperf.trace.part"));
		check_trace(dir, 1);
	}

	snprintf(results, sizeof(results), "results-after-%s", name);
	next = e2e_tmp_path(results);
	e2e_bench(&out, "run", "-q", "--results", next, after_run, NULL);
	if ((out.status == 0) != success)
		fail_msg("the next run: %d\n%s", out.status, out.err);
	snprintf(want, sizeof(want), "cleaned up after a killed run into %s: wperf-bench (pid %d)",
		 dir, (int)pid);
	if (!strstr(out.err, want))
		fail_msg("the next run does not say \"%s\":\n%s", want, out.err);
	e2e_assert_incomplete(dir, "was killed (SIGKILL?) during the run; cleaned up by a later "
				   "run at ");
	e2e_assert_nothing_left();
	assert_false(registered(dir));
	assert_false(registered(next));
	if (c->recorder_too) /* half a trace is no trace */
		assert_false(exists(dir, "runs/1/wperf.trace.part") ||
			     exists(dir, "runs/1/wperf.trace"));
}

/* A test of fn in a phase with a signal, named after them ("killed in
 * RECORDING with SIGKILL"). */
/* clang-format off */
#define PHASE_CASE(fn, phase, signal)                                                              \
	{#fn " in " #phase " with " #signal, fn, NULL, NULL,                                     \
	 &(struct phase_case){.p = phase, .sig = signal}}
/* clang-format on */

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(service_exits_at_once),
	    cmocka_unit_test(service_ignores_sigterm),
	    cmocka_unit_test(service_leaves_children),
	    cmocka_unit_test(port_already_in_use),
	    cmocka_unit_test(service_crashes_mid_run),
	    cmocka_unit_test(load_hangs_past_its_duration),
	    cmocka_unit_test(load_hangs_and_ignores_sigterm),
	    cmocka_unit_test_setup_teardown(disk_fills_up, mount_small, unmount_small),
	    PHASE_CASE(interrupted, PREPARE, SIGINT),
	    PHASE_CASE(interrupted, PREPARE, SIGTERM),
	    PHASE_CASE(interrupted, STARTING, SIGINT),
	    PHASE_CASE(interrupted, STARTING, SIGTERM),
	    PHASE_CASE(interrupted, RECORDING, SIGINT),
	    PHASE_CASE(interrupted, RECORDING, SIGTERM),
	    PHASE_CASE(interrupted, ANALYSIS, SIGINT),
	    PHASE_CASE(interrupted, ANALYSIS, SIGTERM),
	    PHASE_CASE(interrupted, TEARDOWN, SIGINT),
	    PHASE_CASE(interrupted, TEARDOWN, SIGTERM),
	    PHASE_CASE(killed, PREPARE, SIGKILL),
	    PHASE_CASE(killed, STARTING, SIGKILL),
	    PHASE_CASE(killed, RECORDING, SIGKILL),
	    {"killed with its recorder in RECORDING", killed, NULL, NULL,
	     &(struct phase_case){.p = RECORDING, .sig = SIGKILL, .recorder_too = 1}},
	    PHASE_CASE(killed, ANALYSIS, SIGKILL),
	    PHASE_CASE(killed, TEARDOWN, SIGKILL),
	};

	return cmocka_run_group_tests_name("faults (end to end)", tests, NULL, NULL);
}
