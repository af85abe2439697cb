/* SPDX-License-Identifier: MIT */
#include "harness/run/stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util/buf.h"
#include "harness/base/output.h"
#include "harness/record/proc_stat.h"
#include "harness/run/results.h"

#define MAX_GROUPS   256 /* groups of one run set that a sweep looks after */
#define SWEEP_WAIT_S 5.0 /* for the killed processes to be gone */

/* The registry, made when missing; an error when it is not a folder of ours
 * that only we can write: its entries say which process groups to kill. */
static int registry(int make, struct wperf_error *err)
{
	struct stat st;

	if (make && mkdir(STALE_DIR, 0700) < 0 && errno != EEXIST)
		return wperf_error_set(err, -errno, "cannot make %s: %s", STALE_DIR,
				       strerror(errno));
	if (lstat(STALE_DIR, &st) < 0)
		return wperf_error_set(err, -errno, "%s: %s", STALE_DIR, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return wperf_error_set(err, -EPERM,
				       "%s is not a folder of this user's with mode 0700: not used",
				       STALE_DIR);
	return 0;
}

int stale_register(const char *results_dir, struct stale_entry *out, struct wperf_error *err)
{
	static unsigned seq; /* `ab` registers two run sets */
	struct wperf_buf text = {0};
	struct proc_stat me;
	int e = registry(1, err);

	out->path[0] = '\0';
	if (e)
		return e;
	if (proc_stat_read(getpid(), &me) < 0)
		return wperf_error_set(err, -ESRCH, "cannot read /proc/self/stat");
	if (wperf_buf_printf(&text, "%llu\n%s\n", me.start, results_dir) < 0)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	snprintf(out->path, sizeof(out->path), "%s/%d.%u", STALE_DIR, (int)getpid(), seq++);
	e = output_write(out->path, text.data, text.len, err);
	if (e)
		out->path[0] = '\0';
	wperf_buf_release(&text);
	return e;
}

void stale_unregister(struct stale_entry *e)
{
	if (e && e->path[0])
		unlink(e->path);
	if (e)
		e->path[0] = '\0';
}

void stale_mark(const char *results_dir)
{
	setenv(STALE_MARKER, results_dir, 1);
}

void stale_note_group(const char *ledger, pid_t pgid, const char *name, char *const *argv)
{
	struct wperf_buf line = {0};
	struct proc_stat st;
	int fd, e;

	if (!ledger || proc_stat_read(pgid, &st) < 0)
		return;
	e = wperf_buf_printf(&line, "%d %llu %s:", (int)pgid, st.start, name);
	for (char *const *a = argv; !e && *a && line.len < 400; a++)
		e = wperf_buf_printf(&line, " %s", *a);
	for (size_t i = 0; !e && i < line.len; i++) /* one line per group */
		if (((char *)line.data)[i] == '\n')
			((char *)line.data)[i] = ' ';
	if (!e)
		e = wperf_buf_printf(&line, "\n");
	fd = open(ledger, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	/* One write with O_APPEND: the lines of two writers never mix. */
	if (fd >= 0 && !e && write(fd, line.data, line.len) < 0)
		e = -errno;
	if (fd >= 0)
		close(fd);
	wperf_buf_release(&line);
}

/* ---- the sweep ---- */

struct group {
	pid_t pgid;
	int leader; /* its leader is still the process started */
};

/* What a dead run set left. */
struct leftovers {
	char marker[PATH_MAX + 32]; /* "STALE_MARKER=RESULTS" */
	struct group groups[MAX_GROUPS];
	size_t ngroups;
	size_t found; /* processes found (and killed) by the last pass */
};

/* Reads the ledger of dir; one that is not ours (a file anybody could have
 * written) is ignored, and the marker alone decides. */
static void read_ledger(const char *dir, struct leftovers *l)
{
	char path[PATH_MAX + 16], *line = NULL;
	size_t cap = 0;
	struct stat st;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, STALE_LEDGER);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || !S_ISREG(st.st_mode) ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	while (l->ngroups < MAX_GROUPS && getline(&line, &cap, f) > 0) {
		unsigned long long start;
		struct proc_stat now;
		int pgid;

		if (sscanf(line, "%d %llu", &pgid, &start) != 2 || pgid <= 1 || pgid == getpgrp())
			continue;
		l->groups[l->ngroups].pgid = pgid;
		l->groups[l->ngroups++].leader =
		    proc_stat_read(pgid, &now) == 0 && now.start == start && now.state != 'Z';
	}
	free(line);
	fclose(f);
}

/* Does process pid carry the marker in its environment? */
static int marked(pid_t pid, const char *marker)
{
	char path[64];
	struct wperf_buf env = {0};
	struct wperf_error ignored = {0};
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if (output_read_all(path, &env, &ignored) == 0 && wperf_buf_append(&env, "", 1) == 0)
		for (const char *s = (const char *)env.data; !found && *s; s += strlen(s) + 1)
			found = !strcmp(s, marker);
	wperf_buf_release(&env);
	return found;
}

static const struct group *ledger_group(const struct leftovers *l, pid_t pgid)
{
	for (size_t i = 0; i < l->ngroups; i++)
		if (l->groups[i].pgid == pgid)
			return &l->groups[i];
	return NULL;
}

/* Kills process pid if it is a leftover: its whole group when the group is in
 * the ledger and still ours, or the process alone. */
static int kill_leftover(pid_t pid, const struct proc_stat *st, void *ctx)
{
	struct leftovers *l = ctx;
	const struct group *g = ledger_group(l, st->pgrp);
	int mark;

	if (pid == getpid() || st->state == 'Z')
		return 0;
	mark = marked(pid, l->marker);
	if (g && (g->leader || mark))
		kill(-g->pgid, SIGKILL);
	else if (mark)
		kill(pid, SIGKILL);
	else
		return 0;
	l->found++;
	return 0;
}

/* Kills what the run set into dir left, until nothing of it is left (or a
 * few seconds pass: a zombie nobody reaps is no leftover). */
static size_t kill_leftovers(const char *dir)
{
	struct leftovers *l = calloc(1, sizeof(*l));
	struct timespec tick = {0, 50 * 1000 * 1000};
	size_t killed = 0;

	if (!l)
		return 0;
	snprintf(l->marker, sizeof(l->marker), "%s=%s", STALE_MARKER, dir);
	read_ledger(dir, l);
	for (int i = 0; i < SWEEP_WAIT_S * 20; i++) {
		l->found = 0;
		proc_for_each(kill_leftover, l);
		if (!l->found)
			break;
		if (!i)
			killed = l->found;
		nanosleep(&tick, NULL);
	}
	free(l);
	return killed;
}

/* Removes what the killed processes were writing in folder: a trace the
 * recorder had not finished (FILE.part) and the files wperf-bench (pid) was
 * replacing (FILE.tmp.PID, output.h): half a file is no file. */
static void remove_partial_files(const char *folder, pid_t pid)
{
	char tmp[32];
	struct dirent *de;
	DIR *d = opendir(folder);
	size_t len;

	snprintf(tmp, sizeof(tmp), ".tmp.%d", (int)pid);
	while (d && (de = readdir(d))) {
		char path[PATH_MAX + 256];

		len = strlen(de->d_name);
		snprintf(path, sizeof(path), "%s/%s", folder, de->d_name);
		if ((len > 5 && !strcmp(de->d_name + len - 5, ".part")) ||
		    (len > strlen(tmp) && !strcmp(de->d_name + len - strlen(tmp), tmp)))
			unlink(path);
	}
	if (d)
		closedir(d);
}

/* The same in the results folder dir and in each of its runs. */
static void remove_partial_results(const char *dir, pid_t pid)
{
	char runs[PATH_MAX + 16];
	struct dirent *de;
	DIR *d;

	remove_partial_files(dir, pid);
	snprintf(runs, sizeof(runs), "%s/runs", dir);
	d = opendir(runs);
	while (d && (de = readdir(d))) {
		char run[PATH_MAX + 300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(run, sizeof(run), "%s/%s", runs, de->d_name);
		remove_partial_files(run, pid);
	}
	if (d)
		closedir(d);
}

/* Marks dir incomplete, unless its run set had completed before it was killed. */
static void mark_incomplete(struct progress *p, const char *dir, const char *why)
{
	struct results r;
	struct wperf_error err = {0};
	char path[PATH_MAX + 16];

	if (access(dir, F_OK) < 0) /* removed since */
		return;
	if (results_read(dir, &r, &err) < 0) { /* no summary to update: INCOMPLETE alone */
		struct wperf_buf text = {0};

		snprintf(path, sizeof(path), "%s/INCOMPLETE", dir);
		if (wperf_buf_printf(&text, "%s\n", why) == 0 &&
		    output_write(path, text.data, text.len, &err) < 0)
			progress_warn(p, "%s", err.msg);
		wperf_buf_release(&text);
		return;
	}
	if (!r.complete) {
		snprintf(r.reason, sizeof(r.reason), "%s", why);
		if (results_write(&r, NULL, &err) < 0)
			progress_warn(p, "%s", err.msg);
	}
	results_release(&r);
}

/* The entry's wperf-bench and results folder; 0 when the entry is one. */
static int read_entry(const char *path, unsigned long long *start, char *dir, size_t size)
{
	struct wperf_buf text = {0};
	struct wperf_error ignored = {0};
	int n = 0, len = 0;

	if (output_read_all(path, &text, &ignored) == 0 && wperf_buf_append(&text, "", 1) == 0)
		n = sscanf((const char *)text.data, "%llu\n%n", start, &len);
	if (n == 1 && len > 0)
		snprintf(dir, size, "%.*s", (int)strcspn((const char *)text.data + len, "\n"),
			 (const char *)text.data + len);
	wperf_buf_release(&text);
	return n == 1 && len > 0 && dir[0] == '/' ? 0 : -EINVAL;
}

static void sweep_entry(struct progress *p, const char *name, pid_t pid)
{
	char path[PATH_MAX], dir[PATH_MAX], why[512], when[32];
	unsigned long long start;
	struct proc_stat st;
	time_t now = time(NULL);
	size_t killed;

	snprintf(path, sizeof(path), "%s/%s", STALE_DIR, name);
	if (read_entry(path, &start, dir, sizeof(dir)) < 0) {
		unlink(path); /* says nothing to clean up */
		return;
	}
	if (proc_stat_read(pid, &st) == 0 && st.start == start)
		return; /* it still runs */
	killed = kill_leftovers(dir);
	remove_partial_results(dir, pid);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
	snprintf(why, sizeof(why),
		 "wperf-bench (pid %d) was killed (SIGKILL?) during the run; cleaned up by a "
		 "later run at %s: %zu leftover process%s killed; the teardown may not have run",
		 (int)pid, when, killed, killed == 1 ? "" : "es");
	mark_incomplete(p, dir, why);
	progress_warn(p, "cleaned up after a killed run into %s: %s", dir, why);
	unlink(path);
}

void stale_sweep(struct progress *p)
{
	struct wperf_error err = {0};
	struct dirent *de;
	DIR *d;

	if (access(STALE_DIR, F_OK) < 0)
		return;
	if (registry(0, &err) < 0) {
		progress_warn(p, "%s", err.msg);
		return;
	}
	d = opendir(STALE_DIR);
	while (d && (de = readdir(d))) {
		unsigned seq;
		int pid, len = 0;

		/* "PID.N" exactly: not output_write's PID.N.tmp.PID being written */
		if (sscanf(de->d_name, "%d.%u%n", &pid, &seq, &len) == 2 && !de->d_name[len] &&
		    pid > 0)
			sweep_entry(p, de->d_name, pid);
	}
	if (d)
		closedir(d);
}
