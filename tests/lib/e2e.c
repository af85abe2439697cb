/* SPDX-License-Identifier: MIT */
#include "e2e.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <cmocka.h>

#include "core/util/buf.h"
#include "harness/base/output.h"
#include "harness/run/results.h"

void e2e_require_bpf(void)
{
	const char *why = NULL;
	const char *require = getenv("WPERF_REQUIRE_BPF");

	if (geteuid() != 0)
		why = "recording with BPF needs root";
	else if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		why = "the kernel has no BTF (/sys/kernel/btf/vmlinux)";
	if (!why)
		return;
	if (require && !strcmp(require, "1"))
		fail_msg("%s, and WPERF_REQUIRE_BPF=1 requires the BPF tests to run", why);
	print_message("skipped: %s (set WPERF_REQUIRE_BPF=1 to make this a failure)\n", why);
	skip();
}

const char *e2e_path(const char *rel)
{
	static char paths[8][4096];
	static unsigned next;
	const char *build = getenv("WPERF_BUILD");
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", build ? build : "build", rel);
	return p;
}

static char tmpdir[64];

static void remove_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

const char *e2e_tmpdir(void)
{
	if (!tmpdir[0]) {
		/* On the real disk, not tmpfs: fig1 must fsync to a block device. */
		snprintf(tmpdir, sizeof(tmpdir), "/var/tmp/wperf-test-XXXXXX");
		assert_non_null(mkdtemp(tmpdir));
		atexit(remove_tmpdir);
	}
	return tmpdir;
}

const char *e2e_join(const char *dir, const char *name)
{
	static char path[8][PATH_MAX];
	static unsigned next;
	char *p = path[next++ % 8];

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	return p;
}

const char *e2e_tmp_path(const char *name)
{
	return e2e_join(e2e_tmpdir(), name);
}

void e2e_write_file(const char *path, const char *text)
{
	struct wperf_error err = {0};

	if (output_write(path, text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg);
}

static char marker[64];

const char *e2e_marker(void)
{
	if (!marker[0])
		snprintf(marker, sizeof(marker), "WPERF_TEST_MARK=%d-%ld", (int)getpid(),
			 (long)time(NULL));
	return marker;
}

const char *e2e_marker_value(void)
{
	return strchr(e2e_marker(), '=') + 1;
}

int e2e_marked_processes(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d))) {
		char path[300], env[65536];
		ssize_t len;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/environ", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, env, sizeof(env) - 1); /* nothing for a zombie */
		close(fd);
		for (ssize_t i = 0; len > 0 && i < len; i += strlen(env + i) + 1) {
			env[len] = '\0';
			if (!strcmp(env + i, e2e_marker()))
				n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

const char *e2e_scenario(const char *name, const char *text)
{
	const char *path = e2e_tmp_path(name);
	char build[512];
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	snprintf(build, sizeof(build), "%s", e2e_path(""));
	fprintf(f, text, e2e_marker_value(), e2e_marker(), build);
	fclose(f);
	return path;
}

static void slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
}

/* Starts argv with its standard output and error on out and err, as uid (or
 * -1 for ours). */
static pid_t start_child(char *const argv[], uid_t uid, int out, int err)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlive a test that died */
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		if (uid != (uid_t)-1 && (setgid(uid) < 0 || setuid(uid) < 0))
			_exit(126);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int e2e_wait(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void e2e_run(char *const argv[], uid_t uid, struct e2e_output *o)
{
	char out_path[] = "/tmp/wperf-e2e-out-XXXXXX", err_path[] = "/tmp/wperf-e2e-err-XXXXXX";
	int out = mkstemp(out_path), err = mkstemp(err_path);

	assert_true(out >= 0 && err >= 0);
	unlink(out_path);
	unlink(err_path);
	o->status = e2e_wait(start_child(argv, uid, out, err));
	slurp(out, o->out, sizeof(o->out));
	slurp(err, o->err, sizeof(o->err));
}

void e2e_run_in(struct e2e_output *o, const char *dir, const char *cmd, ...)
{
	/* env -C: the folder is the child's only, and cmd is looked up on $PATH */
	char *argv[32] = {"/usr/bin/env", "-C", (char *)dir, (char *)cmd};
	size_t n = 4;
	va_list ap;

	va_start(ap, cmd);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	e2e_run(argv, (uid_t)-1, o);
}

int e2e_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

void e2e_shell(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

void e2e_git_init(const char *dir, const char *message)
{
	static struct e2e_output o;

	e2e_shell("cd '%s' && git init -q -b main && git config user.email test@example.com && "
		  "git config user.name 'wperf-bench tests' && git add -A",
		  dir);
	e2e_run_in(&o, dir, "git", "commit", "-q", "--allow-empty", "-m", message, NULL);
	if (o.status)
		fail_msg("%s: git commit: %d\n%s", dir, o.status, o.err);
}

void e2e_git_rev(const char *repo, const char *rev, char oid[41])
{
	static struct e2e_output o;

	E2E_GIT(&o, repo, "rev-parse", rev);
	snprintf(oid, 41, "%.40s", o.out);
}

/* argv: the build's wperf-bench and the arguments up to NULL. */
static void bench_argv(char *argv[32], va_list ap)
{
	size_t n = 1;

	argv[0] = (char *)e2e_path("wperf-bench");
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
}

void e2e_bench(struct e2e_output *o, ...)
{
	char *argv[32];
	va_list ap;

	va_start(ap, o);
	bench_argv(argv, ap);
	va_end(ap);
	e2e_run(argv, (uid_t)-1, o);
}

pid_t e2e_bench_start(const char *log, ...)
{
	char *argv[32];
	va_list ap;
	int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	pid_t pid;

	assert_true(fd >= 0);
	va_start(ap, log);
	bench_argv(argv, ap);
	va_end(ap);
	pid = start_child(argv, (uid_t)-1, fd, fd);
	close(fd);
	return pid;
}

int e2e_wait_for_file(const char *path, double seconds)
{
	struct timespec tick = {0, 20 * 1000 * 1000};

	for (double waited = 0; access(path, F_OK) != 0; waited += 0.02) {
		if (waited >= seconds)
			return 0;
		nanosleep(&tick, NULL);
	}
	return 1;
}

void e2e_assert_incomplete(const char *dir, const char *why)
{
	struct results r;
	struct wperf_error err = {0};
	char path[600];

	if (results_read(dir, &r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_false(r.complete);
	if (!strstr(r.reason, why))
		fail_msg("reason \"%s\" lacks \"%s\"", r.reason, why);
	snprintf(path, sizeof(path), "%s/INCOMPLETE", dir);
	assert_int_equal(access(path, F_OK), 0);
	results_release(&r);
}

void e2e_read_file(const char *path, struct wperf_buf *b)
{
	struct wperf_error err = {0};

	wperf_buf_release(b);
	if (output_read_all(path, b, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(wperf_buf_append(b, "", 1), 0); /* a C string */
}

uint32_t e2e_thread_tid(const char *out, const char *name)
{
	char pattern[64];
	const char *p;

	snprintf(pattern, sizeof(pattern), "thread %s tid ", name);
	p = strstr(out, pattern);
	return p ? strtoul(p + strlen(pattern), NULL, 10) : 0;
}

struct wperf_event *e2e_events(const struct wperf_trace *t, size_t *n)
{
	struct wperf_buf b = {0};
	struct wperf_event_iter *it = NULL;
	struct wperf_error err = {0};
	struct wperf_event ev;
	int r;

	assert_int_equal(wperf_event_iter_new(t, &it, &err), 0);
	while ((r = wperf_event_iter_next(it, &ev, &err)) == 1)
		assert_int_equal(wperf_buf_append(&b, &ev, sizeof(ev)), 0);
	if (r < 0)
		fail_msg("reading events: %s", err.msg);
	wperf_event_iter_free(it);
	*n = b.len / sizeof(ev);
	return (struct wperf_event *)b.data;
}

int e2e_kstack_has(const struct wperf_trace *t, int32_t id, const char *needle)
{
	const struct wperf_stack *s = wperf_trace_stack(t, id, 0);
	const struct wperf_ksym *k;
	size_t nk;

	if (!s)
		return 0;
	k = wperf_trace_ksyms(t, &nk);
	for (uint32_t f = 0; f < s->nr; f++)
		for (size_t i = 0; i < nk; i++)
			if (k[i].addr == s->ips[f] && strstr(k[i].name, needle))
				return 1;
	return 0;
}

/* Is the program a recorder's? They are named after their hooks:
 * tp_btf_sched_switch, cut by the kernel to 15 characters. */
static int recorder_program(const struct bpf_prog_info *info)
{
	return !strncmp(info->name, "tp_btf_sched_", 13) ||
	       !strncmp(info->name, "raw_tp_sched_", 13);
}

/* Adds to held the ids of the BPF programs process pid (a /proc entry's name)
 * holds: its descriptors of programs and of links to them name the program
 * in /proc/PID/fdinfo ("prog_id:"). */
static void programs_held_by(const char *pid, struct wperf_buf *held)
{
	char path[300], text[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo", pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		const char *p;
		__u32 id;
		int fd;
		ssize_t n;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
		text[n > 0 ? n : 0] = '\0';
		p = strstr(text, "\nprog_id:");
		if (p && sscanf(p, "\nprog_id: %u", &id) == 1)
			assert_int_equal(wperf_buf_append(held, &id, sizeof(id)), 0);
	}
	if (d)
		closedir(d);
}

/* The recorder programs loaded in the kernel that no process holds when
 * pid is 0, or that process pid holds. */
static int recorder_programs(pid_t pid)
{
	struct wperf_buf held = {0};
	struct dirent *de;
	__u32 id = 0;
	int n = 0;
	char one[16];
	DIR *d = pid ? NULL : opendir("/proc");

	snprintf(one, sizeof(one), "%d", (int)pid);
	if (pid)
		programs_held_by(one, &held);
	while (d && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			programs_held_by(de->d_name, &held);
	if (d)
		closedir(d);
	while (bpf_prog_get_next_id(id, &id) == 0) {
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info), *h = (__u32 *)held.data;
		int fd = bpf_prog_get_fd_by_id(id), is_held = 0;

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && recorder_program(&info)) {
			for (size_t i = 0; i < held.len / sizeof(*h); i++)
				is_held |= h[i] == id;
			n += pid ? is_held : !is_held;
		}
		close(fd);
	}
	wperf_buf_release(&held);
	return n;
}

int e2e_recorder_programs_held_by(pid_t pid)
{
	return recorder_programs(pid);
}

/* The kernel frees programs after an RCU grace period: give it a few seconds. */
int e2e_recorder_programs_linger(void)
{
	struct timespec tick = {0, 50 * 1000 * 1000};

	for (int i = 0; i < 100; i++) {
		if (!recorder_programs(0))
			return 0;
		nanosleep(&tick, NULL);
	}
	return 1;
}

void e2e_assert_nothing_left(void)
{
	assert_int_equal(e2e_marked_processes(), 0);
	assert_false(e2e_recorder_programs_linger());
}

void e2e_keep_evidence(const char *dir)
{
	if (getenv("WPERF_KEEP_CHECK"))
		e2e_shell("cp -r '%s' '%s'", dir, getenv("WPERF_KEEP_CHECK"));
}

void e2e_expect_met(const char *dir, const struct results *r, size_t i)
{
	char trace[600];
	struct e2e_output *o;

	if (r->expect[i].checked && r->expect[i].met)
		return;
	snprintf(trace, sizeof(trace), "%s/runs/%zu/wperf.trace", dir, i + 1);
	o = malloc(sizeof(*o));
	assert_non_null(o);
	e2e_bench(o, "report", trace, NULL);
	fprintf(stderr, "run %zu's report:\n%s%s\n", i + 1, o->out, o->err);
	free(o);
	e2e_keep_evidence(dir);
	fail_msg("run %zu: %s", i + 1,
		 r->expect[i].checked ? r->expect[i].why : "no expected answer checked");
}

void e2e_verdict_is(const struct wperf_check_scenario *s, enum wperf_verdict_kind kind,
		    const char *check_dir)
{
	struct wperf_buf md = {0};

	if (s->verdict.kind == kind)
		return;
	if (wperf_verdict_markdown(&s->verdict, 0, &md) == 0 && md.len)
		fprintf(stderr, "%.*s\n", (int)md.len, (const char *)md.data);
	wperf_buf_release(&md);
	e2e_keep_evidence(check_dir);
	fail_msg("%s: %s, not %s (%s)", s->name, wperf_verdict_name(s->verdict.kind),
		 wperf_verdict_name(kind), s->reason ? s->reason : "no reason given");
}
