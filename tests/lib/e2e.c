/* SPDX-License-Identifier: MIT */
#include "e2e.h"

#include <errno.h>
#include <fcntl.h>
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

#include "core/buf.h"

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

void e2e_run(char *const argv[], uid_t uid, struct e2e_output *o)
{
	char out_path[] = "/tmp/wperf-e2e-out-XXXXXX", err_path[] = "/tmp/wperf-e2e-err-XXXXXX";
	int out = mkstemp(out_path), err = mkstemp(err_path), status;
	pid_t pid;

	assert_true(out >= 0 && err >= 0);
	unlink(out_path);
	unlink(err_path);
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
	assert_int_equal(waitpid(pid, &status, 0), pid);
	o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	slurp(out, o->out, sizeof(o->out));
	slurp(err, o->err, sizeof(o->err));
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

/* Are any of the recorder's programs still loaded in the kernel? They are named
 * after their hooks: tp_btf_sched_switch, cut by the kernel to 15 characters. */
int e2e_recorder_programs_loaded(void)
{
	__u32 id = 0;
	int found = 0;

	while (!found && bpf_prog_get_next_id(id, &id) == 0) {
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			found = !strncmp(info.name, "tp_btf_sched_", 13) ||
				!strncmp(info.name, "raw_tp_sched_", 13);
		close(fd);
	}
	return found;
}

/* The kernel frees programs after an RCU grace period: give it a few seconds. */
int e2e_recorder_programs_linger(void)
{
	struct timespec tick = {0, 50 * 1000 * 1000};

	for (int i = 0; i < 100; i++) {
		if (!e2e_recorder_programs_loaded())
			return 0;
		nanosleep(&tick, NULL);
	}
	return 1;
}
