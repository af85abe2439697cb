/* SPDX-License-Identifier: MIT */
/*
 * What the runner reads from the machine: which processes a target is (from
 * /proc and pid files) and the throughput a load printed.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "harness/run/runner.h"

#include "core/scenario/scenario_regex.h"
#include "harness/record/proc_stat.h"

static int append_pid(struct wperf_buf *out, long pid)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%s%ld", out->len ? "," : "", pid);

	return wperf_buf_append(out, num, n);
}

/* Which processes scan_processes wants: a process group, or a name (comm). */
struct wanted {
	pid_t pgid;
	const char *name;
	struct wperf_buf *out;
};

static int append_wanted(pid_t pid, const struct proc_stat *st, void *ctx)
{
	const struct wanted *w = ctx;

	/* A zombie is no process to record: `record -p` would refuse its pid. */
	if (st->state == 'Z' || (w->name ? strcmp(st->comm, w->name) != 0 : st->pgrp != w->pgid))
		return 0;
	return append_pid(w->out, pid) < 0 ? -ENOMEM : 0;
}

/* Appends every process of group pgid, or named name (comm), to out. */
static int scan_processes(pid_t pgid, const char *name, struct wperf_buf *out)
{
	struct wanted w = {.pgid = pgid, .name = name, .out = out};

	return proc_for_each(append_wanted, &w);
}

static int read_pidfile(const char *path, struct wperf_buf *out, struct wperf_error *err)
{
	char text[32], *end;
	FILE *f = fopen(path, "re");
	size_t n;
	long pid;

	if (!f)
		return wperf_error_set(err, -errno, "pid file %s: %s", path, strerror(errno));
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	pid = strtol(text, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (end == text || *end || pid <= 0)
		return wperf_error_set(err, -EINVAL, "pid file %s: expected a pid, got \"%.20s\"",
				       path, text);
	return append_pid(out, pid);
}

int runner_target_pids(const struct scenario_target *t, pid_t pgid, struct wperf_buf *out,
		       struct wperf_error *err)
{
	size_t before = out->len;
	int e;

	switch (t->kind) {
	case SCENARIO_TARGET_PIDFILE:
		return read_pidfile(t->name, out, err);
	case SCENARIO_TARGET_PROCESS:
		e = scan_processes(0, t->name, out);
		break;
	case SCENARIO_TARGET_LOAD:
	case SCENARIO_TARGET_SERVICE:
		e = pgid > 0 ? scan_processes(pgid, NULL, out) : 0;
		break;
	default:
		return 0;
	}
	if (e)
		return wperf_error_set(err, e, "listing the processes of %s: %s", t->name,
				       strerror(-e));
	if (out->len == before)
		return wperf_error_set(err, -ESRCH, "%s %s has no process running",
				       t->kind == SCENARIO_TARGET_PROCESS ? "process" : "target",
				       t->name);
	return 0;
}

/* Counts the live processes of group pgid other than its leader, and its
 * leader's children: a command that left the group (setsid, as a daemon
 * does) is still the shell's child. */
struct group_others {
	pid_t pgid;
	size_t n;
};

static int count_others(pid_t pid, const struct proc_stat *st, void *ctx)
{
	struct group_others *g = ctx;

	if ((st->pgrp == g->pgid || st->ppid == g->pgid) && pid != g->pgid && st->state != 'Z')
		g->n++;
	return 0;
}

bool runner_shell_waits(pid_t leader, const char *shell, double timeout)
{
	const struct timespec tick = {0, 10 * 1000 * 1000};
	struct stat sh, exe;
	char path[64];

	if (stat(shell, &sh) < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)leader);
	/* The shell forks its command a moment after it starts: wait for it. */
	for (double waited = 0;; waited += 0.01) {
		struct group_others g = {.pgid = leader};

		if (stat(path, &exe) < 0 || exe.st_dev != sh.st_dev || exe.st_ino != sh.st_ino)
			return false;
		if (proc_for_each(count_others, &g) == 0 && g.n > 0)
			return true;
		if (waited >= timeout)
			return false;
		nanosleep(&tick, NULL);
	}
}

int runner_parse_throughput(const char *regex, const char *text, size_t len, const char *source,
			    double *value, struct wperf_error *err)
{
	return runner_parse_number(regex, "throughput", text, len, source, value, err);
}

int runner_parse_number(const char *regex, const char *what, const char *text, size_t len,
			const char *source, double *value, struct wperf_error *err)
{
	struct scenario_regex *re;
	char why[256], number[64], *end;
	const char *at;
	size_t n;
	int e = scenario_regex_compile(regex, &re, why, sizeof(why));

	if (e)
		return wperf_error_set(err, e, "bad %s regex /%s/: %s", what, regex,
				       e == -ENOMEM ? "out of memory" : why);
	/* The last match is the figure for the whole load. */
	e = scenario_regex_last_line(re, text, len, &at, &n);
	scenario_regex_free(re);
	if (e == 0)
		return wperf_error_set(err, -ENOENT, "no line of %s matches the %s regex /%s/",
				       source, what, regex);
	if (e < 0)
		return wperf_error_set(err, e, "%s: the %s regex /%s/: %s", source, what, regex,
				       e == -E2BIG ? "too costly to match (backtracking)"
						   : strerror(-e));
	snprintf(number, sizeof(number), "%.*s", (int)(n < sizeof(number) ? n : sizeof(number) - 1),
		 at);
	*value = strtod(number, &end);
	if (n >= sizeof(number) || end == number || *end || !isfinite(*value))
		return wperf_error_set(err, -EINVAL,
				       "%s: the %s regex /%s/ caught \"%.40s\", which is "
				       "not a number",
				       source, what, regex, number);
	return 0;
}
