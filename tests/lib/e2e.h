/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the end-to-end tests: run wperf-bench and the synthetic programs
 * for real, and read back what they recorded.
 */
#ifndef WPERF_TESTS_E2E_H
#define WPERF_TESTS_E2E_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/util/buf.h"
#include "core/gate/check.h"
#include "core/trace/trace.h"

/*
 * Recording needs root and BTF. Without them: skip with the reason, unless
 * WPERF_REQUIRE_BPF=1, in which case the test fails. Call first in a test.
 */
void e2e_require_bpf(void);

/* The build directory ($WPERF_BUILD, default "build") joined with rel. */
const char *e2e_path(const char *rel);

/* A fresh temporary directory for this test program (removed at exit). */
const char *e2e_tmpdir(void);

/* dir/name, in one of 8 buffers used in turn. */
const char *e2e_join(const char *dir, const char *name);

/* e2e_join(e2e_tmpdir(), name). */
const char *e2e_tmp_path(const char *name);

/* Writes text to the file path (replacing it whole), which must succeed. */
void e2e_write_file(const char *path, const char *text);

/*
 * Every process a test's scenario starts carries the marker in its
 * environment: e2e_marker() is "WPERF_TEST_MARK=VALUE", VALUE (e2e_marker_value)
 * unique to this test program, so that leftovers can be counted.
 */
const char *e2e_marker(void);
const char *e2e_marker_value(void);

/* How many processes (zombies aside) carry the marker. */
int e2e_marked_processes(void);

/*
 * Writes the scenario file e2e_tmp_path(name) from the printf format text:
 * %1$s the marker's value, %2$s the marker, %3$s the build folder (a format
 * that uses one must use those before it: printf cannot skip an argument).
 */
const char *e2e_scenario(const char *name, const char *text);

struct e2e_output {
	int status;	 /* exit status, or 128 + signal */
	char out[65536]; /* standard output */
	char err[65536]; /* standard error */
};

/* Runs argv (argv[0] a path) as uid (or -1 for ours) and waits for it. */
void e2e_run(char *const argv[], uid_t uid, struct e2e_output *o);

/* Runs cmd (a path, or a program on $PATH) with the arguments up to NULL in
 * folder dir, into o. */
void e2e_run_in(struct e2e_output *o, const char *dir, const char *cmd, ...)
    __attribute__((sentinel));

/* Makes the folder dir a git repository on branch main whose first commit,
 * with message, holds every file in it (none: an empty commit). */
void e2e_git_init(const char *dir, const char *message);

/* git with the arguments in folder dir, into *o (a struct e2e_output *),
 * which must succeed: else the test fails with git's words. */
#define E2E_GIT(o, dir, ...)                                                                       \
	do {                                                                                       \
		e2e_run_in(o, dir, "git", __VA_ARGS__, NULL);                                      \
		if ((o)->status)                                                                   \
			fail_msg("git %s: %d\n%s", #__VA_ARGS__, (o)->status, (o)->err);           \
	} while (0)

/* The commit that rev names in repo (git rev-parse), into oid. */
void e2e_git_rev(const char *repo, const char *rev, char oid[41]);

/* Whether path exists. */
int e2e_exists(const char *path);

/* Runs the shell command made from the printf format fmt, which must succeed. */
void e2e_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs the wperf-bench of the build with the arguments up to NULL. */
void e2e_bench(struct e2e_output *o, ...) __attribute__((sentinel));

/* Starts it in the background instead, its standard output and error appended
 * to the file log (NULL: none); the caller waits for it with e2e_wait. */
pid_t e2e_bench_start(const char *log, ...) __attribute__((sentinel));

/* Waits for child pid: its exit status, or 128 + the signal that killed it. */
int e2e_wait(pid_t pid);

/* Waits up to seconds for path to exist; 1 when it does. */
int e2e_wait_for_file(const char *path, double seconds);

/* Asserts that the results folder dir is marked incomplete (summary.json and
 * INCOMPLETE) for a reason that contains why. */
void e2e_assert_incomplete(const char *dir, const char *why);

/* The whole file at path into b (released first), with a '\0' after it. */
void e2e_read_file(const char *path, struct wperf_buf *b);

/* The tid printed as "thread NAME tid TID" by a synthetic program; 0 if absent. */
uint32_t e2e_thread_tid(const char *out, const char *name);

/* Every event of a trace, in file order, in an array the caller frees. */
struct wperf_event *e2e_events(const struct wperf_trace *t, size_t *n);

/* Does a kernel stack of the trace contain a frame whose name contains needle? */
int e2e_kstack_has(const struct wperf_trace *t, int32_t id, const char *needle);

/* How many of the recorder's BPF programs process pid holds (by a
 * descriptor of the program or of a link to it). */
int e2e_recorder_programs_held_by(pid_t pid);

/* Are recorder programs left in the kernel that no process holds, after
 * giving it a few seconds to free those just released (an RCU grace period)?
 * 1 when they are still there. Another test's recorder, running, holds its
 * own: only what a recorder leaked counts. */
int e2e_recorder_programs_linger(void);

/* A failing test's evidence: a copy of dir into $WPERF_KEEP_CHECK, when a
 * developer set it. */
void e2e_keep_evidence(const char *dir);

struct results;
/* Run i (from 0) of the results r in dir met its expected answer; else a
 * failure that leaves the evidence: the run's report on stderr, and the
 * results folder, trace included, kept (e2e_keep_evidence). */
void e2e_expect_met(const char *dir, const struct results *r, size_t i);

/*
 * Asserts that the check-perf verdict of s is kind; else prints the verdict's
 * findings as the pull request would read them, keeps the check's folder
 * check_dir (e2e_keep_evidence) and fails saying why.
 */
void e2e_verdict_is(const struct wperf_check_scenario *s, enum wperf_verdict_kind kind,
		    const char *check_dir);

/* Asserts that what a test started is gone: no process carries the marker and
 * no recorder program lingers. */
void e2e_assert_nothing_left(void);

#endif /* WPERF_TESTS_E2E_H */
