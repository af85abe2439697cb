/* SPDX-License-Identifier: MIT */
/*
 * What `wperf-bench run` tells the user while it works: every step as a line
 * in the results folder's log (with the time since the start) and on the
 * terminal, plus a status line (a countdown) that is rewritten in place when
 * standard error is a terminal and left out when it is not, so that CI logs
 * stay plain.
 */
#ifndef WPERF_PROGRESS_H
#define WPERF_PROGRESS_H

#include <stdio.h>

#include "core/util/error.h"

struct progress {
	FILE *log;	  /* NULL until progress_open, or when it failed */
	int tty;	  /* standard error is a terminal */
	int quiet;	  /* nothing on the terminal but warnings and errors */
	int status_shown; /* a status line is on screen and must be cleared first */
	double start;	  /* CLOCK_MONOTONIC seconds at progress_init */
};

/* Starts the clock; lines go to the terminal only until progress_open. */
/* Seconds on the monotonic clock: what every phase and check is timed by. */
double progress_now_s(void);

void progress_init(struct progress *p, int quiet);

/* Appends the log to log_path (created); 0 or a negative errno in err. */
int progress_open(struct progress *p, const char *log_path, struct wperf_error *err);

/* A step: a line in the log and (unless quiet) on standard error. */
void progress_say(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A warning or error: in the log and always on standard error. */
void progress_warn(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An error: the same, "error: " first. */
void progress_error(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A transient status line (on a terminal only, never logged). */
void progress_status(struct progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Closes the log; NULL-safe for a progress never opened. */
void progress_close(struct progress *p);

#endif /* WPERF_PROGRESS_H */
