/* SPDX-License-Identifier: MIT */
#include "harness/record/proc_stat.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The 16 fields between the process group (5) and the start time (22). */
#define SKIP16 " %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s"

int proc_stat_read(pid_t pid, struct proc_stat *out)
{
	char path[64], text[1024], *lp, *rp;
	int fd, ppid, pgrp;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	text[n] = '\0';
	/* "PID (COMM) STATE PPID PGRP ...": the comm may hold spaces and
	 * parentheses, hence the last ')'. */
	lp = strchr(text, '(');
	rp = strrchr(text, ')');
	if (!lp || !rp || rp < lp ||
	    sscanf(rp + 1, " %c %d %d" SKIP16 " %llu", &out->state, &ppid, &pgrp, &out->start) != 4)
		return -EINVAL;
	out->ppid = ppid;
	out->pgrp = pgrp;
	snprintf(out->comm, sizeof(out->comm), "%.*s", (int)(rp - lp - 1), lp + 1);
	return 0;
}

int proc_for_each(int (*fn)(pid_t pid, const struct proc_stat *st, void *ctx), void *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int r = 0;

	if (!d)
		return -errno;
	while (!r && (de = readdir(d))) {
		struct proc_stat st;
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)strtol(de->d_name, NULL, 10);
		if (proc_stat_read(pid, &st) == 0)
			r = fn(pid, &st, ctx);
	}
	closedir(d);
	return r;
}

static int live_member(pid_t pid, const struct proc_stat *st, void *ctx)
{
	(void)pid;
	return st->pgrp == *(const pid_t *)ctx && st->state != 'Z';
}

int proc_group_alive(pid_t pgid)
{
	if (kill(-pgid, 0) < 0 && errno == ESRCH)
		return 0;
	return proc_for_each(live_member, &pgid) == 1;
}
