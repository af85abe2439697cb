/* SPDX-License-Identifier: MIT */
#include "harness/base/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int spawn_resolve(const char *file, char *path, size_t size)
{
	const char *env = getenv("PATH");
	char dirs[PATH_MAX * 4];
	char *dir, *save = NULL;

	if (strchr(file, '/')) {
		snprintf(path, size, "%s", file);
		return access(path, X_OK) == 0 ? 0 : -errno;
	}
	snprintf(dirs, sizeof(dirs), "%s", env ? env : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		struct stat st;

		snprintf(path, size, "%s/%s", *dir ? dir : ".", file);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* In the child, before exec: a failure is reported through fd as an errno. */
static void child_setup(const struct spawn_opts *o, int report_fd)
{
	sigset_t none;
	int e = 0, fd;

	/* The command does not outlive wperf-bench, even one that was killed. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (o->new_group)
		setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, o->sigmask ? o->sigmask : &none, NULL);
	if (o->out_fd >= 0) {
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0 || dup2(fd, STDIN_FILENO) < 0 || dup2(o->out_fd, STDOUT_FILENO) < 0 ||
		    dup2(o->out_fd, STDERR_FILENO) < 0)
			e = errno;
	} else if (o->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		e = errno;
	}
	/* Nothing of wperf-bench's (BPF maps, ring buffers, sockets) reaches the
	 * program: every descriptor past stderr closes at exec. */
	if (!e && close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) < 0)
		e = errno;
	if (!e && o->cwd && chdir(o->cwd) < 0)
		e = errno;
	for (char *const *kv = o->env; !e && kv && *kv; kv++)
		if (putenv(*kv) < 0)
			e = errno;
	if (!e) {
		execvp(o->argv[0], o->argv);
		e = errno;
	}
	if (write(report_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int spawn_process(const struct spawn_opts *o, pid_t *pid, struct wperf_error *err)
{
	int fds[2], child_errno = 0;
	ssize_t n;
	pid_t p;

	/* The child reports a failed exec through a pipe that a successful exec closes. */
	if (pipe2(fds, O_CLOEXEC) < 0)
		return wperf_error_set(err, -errno, "pipe: %s", strerror(errno));
	p = fork();
	if (p < 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		return wperf_error_set(err, -e, "cannot fork to run %s: %s", o->argv[0],
				       strerror(e));
	}
	if (p == 0)
		child_setup(o, fds[1]);
	if (o->new_group)
		setpgid(p, p); /* also here: no race with a signal sent to the group */
	close(fds[1]);
	do
		n = read(fds[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == sizeof(child_errno)) {
		waitpid(p, NULL, 0);
		if (o->cwd && child_errno == ENOENT && access(o->cwd, X_OK) != 0)
			return wperf_error_set(err, -child_errno, "cannot run %s in %s: %s",
					       o->argv[0], o->cwd, strerror(child_errno));
		return wperf_error_set(err, -child_errno, "cannot run %s: %s", o->argv[0],
				       strerror(child_errno));
	}
	*pid = p;
	return 0;
}

int spawn_command(char *const argv[], const sigset_t *sigmask_to_restore, int stdout_to_stderr,
		  pid_t *pid, struct wperf_error *err)
{
	struct spawn_opts o = {.argv = argv,
			       .sigmask = sigmask_to_restore,
			       .out_fd = -1,
			       .stdout_to_stderr = stdout_to_stderr};

	return spawn_process(&o, pid, err);
}

int spawn_terminate(pid_t pid, int grace_ms)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	int status;

	if (waitpid(pid, &status, WNOHANG) == pid)
		return status;
	kill(pid, SIGTERM);
	for (int waited = 0; waited < grace_ms; waited += 10) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0)
			return -1;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	return waitpid(pid, &status, 0) == pid ? status : -1;
}

/* SIGCHLD is blocked only while waiting for it: its default action discards
 * it otherwise, and the children started meanwhile inherit no blocked signal
 * (spawn_process sets their mask). One that comes just before the block is
 * missed, and the nap is then a whole one, as with nanosleep. A caller that
 * blocks SIGCHLD itself waits for it its own way: it gets a plain sleep,
 * never a SIGCHLD taken from it. */
void spawn_nap(double seconds)
{
	struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
	sigset_t chld, old;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);
	if (sigismember(&old, SIGCHLD))
		nanosleep(&t, NULL);
	else
		sigtimedwait(&chld, NULL, &t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

const char *spawn_describe_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "ended with wait status 0x%x", status);
	return buf;
}
