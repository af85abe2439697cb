/* SPDX-License-Identifier: MIT */
/*
 * floor: runs a command with the empty BPF programs of bench/floor.bpf.c
 * attached to the recorder's hooks: the cost of the hooks alone, the floor
 * that bench/run.sh measures the recorder against.
 *
 *   floor [--no-attach] -- CMD ARGS...
 *
 * Loads and attaches every program (a hook this kernel lacks is skipped, with
 * a note on stderr), runs CMD, waits for it, detaches, and exits with CMD's
 * status (128 + N when CMD is killed by signal N; 2 when floor itself fails).
 * --no-attach runs CMD the same way with nothing attached: a control.
 *
 * On stderr, after CMD ends, one line with CMD's context switches (its own and
 * those of the children it waited for), from which run.sh estimates the hook
 * invocations per unit of work:
 *
 *   floor: rusage: voluntary_switches=N involuntary_switches=M
 *
 * Needs root (or CAP_BPF and CAP_PERFMON) unless --no-attach.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bench/floor.skel.h"

#define EXIT_FLOOR_ERROR 2
#define EXIT_EXEC_FAILED 127
#define PROG_PREFIX	 "floor_"

static volatile sig_atomic_t child_pid;

static void usage(FILE *out)
{
	fprintf(out, "usage: floor [--no-attach] -- CMD ARGS...\n"
		     "\n"
		     "Runs CMD with empty BPF programs attached to the recorder's hooks (the\n"
		     "floor of the recording overhead) and exits with its status.\n"
		     "  --no-attach   attach nothing (a control with the same wrapper)\n");
}

/* libbpf's warnings and errors; its debug chatter is not wanted. */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	fputs("floor: libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/* SIGINT and SIGTERM go to CMD, which decides; floor waits for it either way. */
static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* Does this kernel's BTF describe the tracepoint? tp_btf needs it at load. */
static int tracepoint_in_btf(const struct btf *vmlinux, const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0;
}

/*
 * Opens, loads and attaches the floor; returns the number of hooks attached, or
 * -1 (with a message on stderr) when nothing could be loaded.
 */
static int attach_floor(struct floor_bpf **out, struct bpf_link ***links_out, size_t *nlinks_out)
{
	struct floor_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link **links;
	struct btf *vmlinux;
	size_t nprogs = 0, nlinks = 0;
	int e;

	libbpf_set_print(print_libbpf);
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		fprintf(stderr, "floor: error: cannot read the kernel's BTF: %s\n",
			strerror(errno));
		return -1;
	}
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: error: cannot open the BPF object: %s\n", strerror(errno));
		btf__free(vmlinux);
		return -1;
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		const char *tp = bpf_program__name(prog) + strlen(PROG_PREFIX);

		nprogs++;
		if (!tracepoint_in_btf(vmlinux, tp)) {
			fprintf(stderr, "floor: note: skipping %s: not in this kernel's BTF\n", tp);
			bpf_program__set_autoload(prog, false);
		}
	}
	btf__free(vmlinux);

	e = floor_bpf__load(skel);
	if (e) {
		fprintf(stderr, "floor: error: the kernel refused the floor programs: %s\n",
			strerror(-e));
		floor_bpf__destroy(skel);
		return -1;
	}
	links = calloc(nprogs, sizeof(*links));
	if (!links) {
		fprintf(stderr, "floor: error: out of memory\n");
		floor_bpf__destroy(skel);
		return -1;
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		const char *tp = bpf_program__name(prog) + strlen(PROG_PREFIX);
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			fprintf(stderr, "floor: note: skipping %s: cannot attach: %s\n", tp,
				strerror(errno));
			continue;
		}
		links[nlinks++] = link;
	}
	*out = skel;
	*links_out = links;
	*nlinks_out = nlinks;
	return (int)nlinks;
}

static void detach_floor(struct floor_bpf *skel, struct bpf_link **links, size_t nlinks)
{
	for (size_t i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	free(links);
	floor_bpf__destroy(skel);
}

/* Forks and execs argv; a failed exec is reported through a pipe it would close. */
static pid_t run_command(char **argv, const sigset_t *child_mask)
{
	int fds[2], child_errno = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		fprintf(stderr, "floor: error: pipe: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "floor: error: fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, child_mask, NULL);
		execvp(argv[0], argv);
		child_errno = errno;
		if (write(fds[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(EXIT_EXEC_FAILED);
		_exit(EXIT_EXEC_FAILED);
	}
	close(fds[1]);
	do
		n = read(fds[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == sizeof(child_errno)) {
		waitpid(pid, NULL, 0);
		fprintf(stderr, "floor: error: cannot run %s: %s\n", argv[0],
			strerror(child_errno));
		return -1;
	}
	return pid;
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel = NULL;
	struct bpf_link **links = NULL;
	size_t nlinks = 0;
	struct sigaction sa = {0};
	struct rusage ru = {0};
	sigset_t mask;
	int attach = 1, status = 0, waited = 0, i;
	pid_t pid;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--no-attach")) {
			attach = 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return EXIT_FLOOR_ERROR;
		}
	}
	if (i >= argc - 1) {
		usage(stderr);
		return EXIT_FLOOR_ERROR;
	}
	argv += i + 1;

	if (attach) {
		int n = attach_floor(&skel, &links, &nlinks);

		if (n < 0)
			return EXIT_FLOOR_ERROR;
		if (n == 0) {
			fprintf(stderr, "floor: error: no hook could be attached\n");
			detach_floor(skel, links, nlinks);
			return EXIT_FLOOR_ERROR;
		}
		fprintf(stderr, "floor: %d empty programs attached\n", n);
	}

	sigprocmask(SIG_SETMASK, NULL, &mask);
	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	pid = run_command(argv, &mask);
	if (pid > 0) {
		child_pid = pid;
		while (!waited) {
			if (wait4(pid, &status, 0, &ru) == pid)
				waited = 1;
			else if (errno != EINTR)
				break;
		}
		if (!waited)
			fprintf(stderr, "floor: error: waiting for %s: %s\n", argv[0],
				strerror(errno));
		child_pid = 0;
	}
	if (attach)
		detach_floor(skel, links, nlinks);
	if (pid < 0)
		return EXIT_EXEC_FAILED;
	if (!waited)
		return EXIT_FLOOR_ERROR;
	fprintf(stderr, "floor: rusage: voluntary_switches=%ld involuntary_switches=%ld\n",
		ru.ru_nvcsw, ru.ru_nivcsw);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
