/* SPDX-License-Identifier: MIT */
/*
 * End-to-end tests of where wperf-bench writes (harness/base/output.h): for
 * report, diff, baseline update and record, every kind of path a user names
 * with -o (-b) gets the result and stays what it was. A device node stays a
 * device (the writers once renamed a regular file over /dev/null), a symbolic
 * link stays a link, a FIFO and a socket are written in place, /dev/stdout and
 * - reach a pipe, a folder and a block device are refused.
 *
 * The results of report, diff and baseline update are compared byte for byte
 * with the same command's output to a regular file; a trace must read back.
 *
 * It records, but asserts nothing of what else the machine does meanwhile:
 * make test runs it beside the programs that do not record.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/lib/e2e.h"

#define TRACE	"tests/data/fig1.trace"
#define RESULTS "tests/data/results/fig1-worse"

#define WATCHDOG_S 60 /* a writer or reader still running then is stuck */

/* A command that writes one result to a path it is given. */
struct writer {
	const char *name;
	int records;		   /* needs BPF; its output is a trace, checked by reading it */
	struct wperf_buf expected; /* the output to a regular file, once made */
};

static struct writer report = {"report", 0, {0}};
static struct writer diff = {"diff", 0, {0}};
static struct writer baseline = {"baseline", 0, {0}};
static struct writer record = {"record", 1, {0}};

/* The command's arguments with its output at path, into argv (NULL-ended). */
static void writer_argv(const struct writer *w, const char *path, char **argv)
{
	char *bench = (char *)e2e_path("wperf-bench"), *p = (char *)path;

	if (!strcmp(w->name, "report")) {
		char *a[] = {bench, "report", "-f", "json", "-o", p, TRACE, NULL};

		memcpy(argv, a, sizeof(a));
	} else if (!strcmp(w->name, "diff")) {
		char *a[] = {bench, "diff", "-o", p, TRACE, TRACE, NULL};

		memcpy(argv, a, sizeof(a));
	} else if (!strcmp(w->name, "baseline")) {
		char *a[] = {bench, "baseline", "update", "-b", p, RESULTS, NULL};

		memcpy(argv, a, sizeof(a));
	} else {
		/* the command writes to its standard output, which must not reach the trace */
		char *a[] = {bench,	"record", "-q",
			     "-o",	p,	  "--",
			     "/bin/sh", "-c",	  "echo noise from the command; sleep 0.3",
			     NULL};

		memcpy(argv, a, sizeof(a));
	}
}

/* Runs the writer with its output at path, standard output into a pipe read
 * into out (when not NULL); its exit status. */
static int run_writer(const struct writer *w, const char *path, struct wperf_buf *out, char *err,
		      size_t err_size)
{
	char *argv[16], chunk[65536];
	int fds[2], errfd, status;
	char err_path[] = "/tmp/wperf-outputs-err-XXXXXX";
	ssize_t n;
	pid_t pid;

	writer_argv(w, path, argv);
	errfd = mkstemp(err_path);
	assert_true(errfd >= 0);
	unlink(err_path);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(errfd, STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		alarm(WATCHDOG_S); /* kept across exec: a writer stuck on a FIFO dies */
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], chunk, sizeof(chunk))) > 0)
		if (out)
			assert_int_equal(wperf_buf_append(out, chunk, n), 0);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	n = pread(errfd, err, err_size - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(errfd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Runs the writer, which must succeed; its standard output into out. */
static void run_ok(const struct writer *w, const char *path, struct wperf_buf *out)
{
	char err[4096];
	int status = run_writer(w, path, out, err, sizeof(err));

	if (status != 0)
		fail_msg("%s -o %s: exit %d: %s", w->name, path, status, err);
}

/* What the writer writes to a regular file (not for record), made once. */
static const struct wperf_buf *expected_of(struct writer *w)
{
	if (!w->expected.len) {
		char name[64];
		const char *ref;

		snprintf(name, sizeof(name), "reference-%s", w->name);
		ref = e2e_tmp_path(name);
		unlink(ref);
		run_ok(w, ref, NULL);
		e2e_read_file(ref, &w->expected);
		w->expected.len--; /* e2e_read_file adds a '\0' */
		assert_true(w->expected.len > 0);
	}
	return &w->expected;
}

/* Is data what the writer writes? A trace must read back; the rest must be
 * byte for byte what the same command wrote to a regular file. */
static void assert_result(struct writer *w, const void *data, size_t len)
{
	const char *file = e2e_tmp_path("result-to-check");
	const struct wperf_buf *expected;
	struct e2e_output *o;

	if (w->records) {
		char *argv[] = {(char *)e2e_path("wperf-bench"), "info", (char *)file, NULL};
		FILE *f = fopen(file, "w");

		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
		o = calloc(1, sizeof(*o));
		e2e_run(argv, (uid_t)-1, o);
		if (o->status != 0 || !strstr(o->out, "format: wperf trace"))
			fail_msg("the %zu bytes written do not read as a trace: %s", len, o->err);
		free(o);
		return;
	}
	expected = expected_of(w);
	if (len != expected->len || memcmp(data, expected->data, len))
		fail_msg("%s wrote %zu bytes, not the %zu it writes to a file", w->name, len,
			 expected->len);
}

/* What a file holds before the writer replaces it. baseline update reads the
 * baseline it replaces (to keep its accepted: entries): an older baseline
 * whose first line, a comment, differs. */
static void write_old_content(struct writer *w, const char *path)
{
	const struct wperf_buf *expected;
	const char *rest;
	char *text;

	if (strcmp(w->name, "baseline")) {
		e2e_write_file(path, "old content\n");
		return;
	}
	expected = expected_of(w);
	rest = memchr(expected->data, '\n', expected->len);
	assert_non_null(rest);
	assert_int_not_equal(
	    asprintf(&text, "# an older baseline\n%.*s",
		     (int)(expected->len - (rest + 1 - (const char *)expected->data)), rest + 1),
	    -1);
	e2e_write_file(path, text);
	free(text);
}

static void assert_file_holds_result(struct writer *w, const char *path)
{
	struct wperf_buf b = {0};

	e2e_read_file(path, &b);
	assert_result(w, b.data, b.len - 1);
	wperf_buf_release(&b);
}

/* Each test starts as the writer's own: record's skip (or fail, under
 * WPERF_REQUIRE_BPF) without BPF. */
static struct writer *writer_of(void **state)
{
	struct writer *w = *state;

	if (w->records)
		e2e_require_bpf();
	return w;
}

static void assert_null_device(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
		fail_msg("%s is no longer the character device 1,3 (mode %o)", path,
			 (unsigned)st.st_mode);
}

/* A null device of our own: written in place, it stays a device. */
static void test_device_node(void **state)
{
	struct writer *w = writer_of(state);
	const char *node = e2e_tmp_path("null");

	unlink(node);
	assert_int_equal(mknod(node, S_IFCHR | 0666, makedev(1, 3)), 0);
	run_ok(w, node, NULL);
	assert_null_device(node);
	assert_int_equal(access(e2e_tmp_path("null.part"), F_OK), -1);
}

/* The machine's /dev/null itself; put back if a writer broke it, so that one
 * failure does not take the machine with it. */
static void test_dev_null(void **state)
{
	struct writer *w = writer_of(state);
	struct stat st;

	run_ok(w, "/dev/null", NULL);
	if (lstat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
		return;
	unlink("/dev/null");
	if (mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)) == 0)
		chmod("/dev/null", 0666);
	fail_msg("%s -o /dev/null replaced the device (made again with mknod)", w->name);
}

static void assert_stdout_result(void **state, const char *path)
{
	struct writer *w = writer_of(state);
	struct wperf_buf out = {0};

	run_ok(w, path, &out);
	assert_result(w, out.data, out.len);
	wperf_buf_release(&out);
}

/* /dev/stdout, a link to /proc/self/fd/1, into a pipe; put back if a writer
 * renamed a file over it, as for /dev/null. */
static void test_dev_stdout(void **state)
{
	char target[64];
	ssize_t n;

	assert_stdout_result(state, "/dev/stdout");
	n = readlink("/dev/stdout", target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	if (!strcmp(target, "/proc/self/fd/1"))
		return;
	unlink("/dev/stdout");
	if (symlink("/proc/self/fd/1", "/dev/stdout") < 0)
		fail_msg("/dev/stdout is gone and could not be made again: %s", strerror(errno));
	fail_msg("%s -o /dev/stdout replaced the link (made again)",
		 (*(struct writer **)state)->name);
}

static void test_dash(void **state)
{
	assert_stdout_result(state, "-");
}

/* A reader process of a FIFO or a socket: copies what arrives into a file. */
static pid_t start_reader(int fd_or_fifo, const char *fifo, const char *into)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(WATCHDOG_S); /* a reader whose FIFO was renamed over waits no longer */
		int in = fifo ? open(fifo, O_RDONLY) : accept(fd_or_fifo, NULL, NULL);
		int out = open(into, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char chunk[65536];
		ssize_t n;

		if (in < 0 || out < 0)
			_exit(1);
		while ((n = read(in, chunk, sizeof(chunk))) > 0)
			if (write(out, chunk, n) != n)
				_exit(1);
		_exit(n < 0 ? 1 : 0);
	}
	return pid;
}

static void test_fifo(void **state)
{
	struct writer *w = writer_of(state);
	const char *fifo = e2e_tmp_path("fifo"), *got = e2e_tmp_path("from-fifo");
	struct stat st;
	pid_t reader;

	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	reader = start_reader(-1, fifo, got);
	run_ok(w, fifo, NULL);
	assert_int_equal(e2e_wait(reader), 0);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_file_holds_result(w, got);
}

/* A listening stream socket's path: connected to, written in place. */
static void test_socket(void **state)
{
	struct writer *w = writer_of(state);
	const char *path = e2e_tmp_path("sock"), *got = e2e_tmp_path("from-socket");
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int listener = socket(AF_UNIX, SOCK_STREAM, 0);
	struct stat st;
	pid_t reader;

	unlink(path);
	assert_true(strlen(path) < sizeof(addr.sun_path));
	strcpy(addr.sun_path, path);
	assert_true(listener >= 0);
	assert_int_equal(bind(listener, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(listener, 1), 0);
	reader = start_reader(listener, NULL, got);
	close(listener);
	run_ok(w, path, NULL);
	assert_int_equal(e2e_wait(reader), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_file_holds_result(w, got);
}

static void assert_link_to(const char *link, const char *target)
{
	char got[4096];
	ssize_t n = readlink(link, got, sizeof(got) - 1);

	if (n < 0)
		fail_msg("%s is no longer a symbolic link: %s", link, strerror(errno));
	got[n] = '\0';
	assert_string_equal(got, target);
}

/* A link to a file, through a link in another folder: both links stay, the
 * file gets the result and keeps its mode. */
static void test_symlink(void **state)
{
	struct writer *w = writer_of(state);
	const char *dir = e2e_tmp_path("linked"), *file = e2e_join(dir, "real");
	const char *link = e2e_tmp_path("link"), *hop = e2e_join(dir, "hop");
	struct stat st;

	e2e_shell("rm -rf '%s' && mkdir '%s'", dir, dir);
	write_old_content(w, file);
	assert_int_equal(chmod(file, 0600), 0);
	assert_int_equal(symlink("real", hop), 0); /* relative to its own folder */
	unlink(link);
	assert_int_equal(symlink(hop, link), 0);
	run_ok(w, link, NULL);
	assert_link_to(link, hop);
	assert_link_to(hop, "real");
	assert_int_equal(lstat(file, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_file_holds_result(w, file);
}

/* A link to no file yet: the file it names is made, the link stays. */
static void test_dangling_symlink(void **state)
{
	struct writer *w = writer_of(state);
	const char *link = e2e_tmp_path("dangling"), *file = e2e_tmp_path("made-through-link");

	unlink(link);
	unlink(file);
	assert_int_equal(symlink("made-through-link", link), 0);
	run_ok(w, link, NULL);
	assert_link_to(link, "made-through-link");
	assert_file_holds_result(w, file);
}

/* Refused before anything is written: exit 2, the path and why. */
static void assert_refused(struct writer *w, const char *path, const char *why)
{
	char err[4096];
	int status = run_writer(w, path, NULL, err, sizeof(err));

	if (status != 2 || !strstr(err, path) || !strstr(err, why))
		fail_msg("%s -o %s: exit %d, \"%s\"; expected exit 2 and \"%s\"", w->name, path,
			 status, err, why);
}

static void test_folder_refused(void **state)
{
	struct writer *w = writer_of(state);
	const char *dir = e2e_tmp_path("a-folder");
	static struct e2e_output o;

	e2e_shell("mkdir -p '%s'", dir);
	assert_refused(w, dir, "it is a folder");
	e2e_run_in(&o, dir, "ls", "-A", NULL);
	assert_int_equal(o.status, 0);
	assert_string_equal(o.out, ""); /* no temporary left in it */
}

/* A block device node with no driver behind it (major 240, local use): were
 * it opened, nothing would be written anywhere. */
static void test_block_device_refused(void **state)
{
	struct writer *w = writer_of(state);
	const char *node = e2e_tmp_path("disk");
	struct stat st;

	unlink(node);
	assert_int_equal(mknod(node, S_IFBLK | 0600, makedev(240, 0)), 0);
	assert_refused(w, node, "it is a block device");
	assert_int_equal(lstat(node, &st), 0);
	assert_true(S_ISBLK(st.st_mode));
}

/* One test for each writer, named test/writer. */
#define ONE(test, w)                                                                               \
	{                                                                                          \
#test "/" #w, test, NULL, NULL, &w                                                 \
	}
#define EACH_WRITER(test) ONE(test, report), ONE(test, diff), ONE(test, baseline), ONE(test, record)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    EACH_WRITER(test_device_node),    EACH_WRITER(test_dev_null),
	    EACH_WRITER(test_dev_stdout),     EACH_WRITER(test_dash),
	    EACH_WRITER(test_fifo),	      EACH_WRITER(test_socket),
	    EACH_WRITER(test_symlink),	      EACH_WRITER(test_dangling_symlink),
	    EACH_WRITER(test_folder_refused), EACH_WRITER(test_block_device_refused),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	wperf_buf_release(&report.expected);
	wperf_buf_release(&diff.expected);
	wperf_buf_release(&baseline.expected);
	return failed;
}
