/* SPDX-License-Identifier: MIT */
/*
 * The processes of the machine as /proc/PID/stat describes them: their state,
 * process group and start time, for the runner (which processes a target or a
 * process group is), for stopping a group, and for cleaning up after a killed
 * run (harness/run/stale.h), where the start time tells a process from a later one
 * that got its pid.
 */
#ifndef WPERF_PROC_STAT_H
#define WPERF_PROC_STAT_H

#include <sys/types.h>

struct proc_stat {
	char comm[64];		  /* as in /proc/PID/comm: cut to 15 bytes */
	char state;		  /* 'R', 'S', ..., 'Z' for a zombie */
	pid_t ppid;		  /* the parent */
	pid_t pgrp;		  /* the process group */
	unsigned long long start; /* field 22: clock ticks from boot to its start */
};

/* Reads /proc/PID/stat; 0, or -ESRCH when the process is gone (-EINVAL: unreadable text). */
int proc_stat_read(pid_t pid, struct proc_stat *out);

/*
 * Calls fn for every process of the machine, with its stat, until fn returns
 * non-zero; returns that value, 0 when every process was seen, or a negative
 * errno when /proc cannot be listed.
 */
int proc_for_each(int (*fn)(pid_t pid, const struct proc_stat *st, void *ctx), void *ctx);

/* Has process group pgid a process that is not a zombie? (A zombie whose
 * parent never reaps it, as under a container's init that does not, is dead.) */
int proc_group_alive(pid_t pgid);

#endif /* WPERF_PROC_STAT_H */
