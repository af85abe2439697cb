/* SPDX-License-Identifier: MIT */
/*
 * Lists of pids as the trace's META entries and the analysis target write
 * them: "PID[,PID...]", a PID+ (a process and its descendants) counting as
 * its PID.
 */
#ifndef WPERF_PIDLIST_H
#define WPERF_PIDLIST_H

#include <stdint.h>

/*
 * Reads the next pid of the list at *p into *pid and moves *p past it: 1, or
 * 0 at the end of the list (*p NULL or at the NUL). What is not a pid in
 * [1, UINT32_MAX] is skipped: a damaged entry costs its pid, never the rest.
 */
int wperf_pid_list_next(const char **p, uint32_t *pid);

#endif /* WPERF_PIDLIST_H */
