/* SPDX-License-Identifier: MIT */
#include "harness/base/progress.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double progress_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p, int quiet)
{
	memset(p, 0, sizeof(*p));
	p->tty = isatty(STDERR_FILENO);
	p->quiet = quiet;
	p->start = progress_now_s();
}

int progress_open(struct progress *p, const char *log_path, struct wperf_error *err)
{
	p->log = fopen(log_path, "ae");
	if (!p->log)
		return wperf_error_set(err, -errno, "cannot create the log %s: %s", log_path,
				       strerror(errno));
	setvbuf(p->log, NULL, _IOLBF, 0); /* a crash must not lose the last steps */
	return 0;
}

static void clear_status(struct progress *p)
{
	if (p->status_shown) {
		fputs("\r\033[K", stderr);
		p->status_shown = 0;
	}
}

/* One line to the log, with the time since the start, and to the terminal. */
static void emit(struct progress *p, int terminal, const char *prefix, const char *fmt, va_list ap)
{
	char line[4096];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (p->log)
		fprintf(p->log, "[%8.1f s] %s%s\n", progress_now_s() - p->start, prefix, line);
	if (terminal) {
		clear_status(p);
		fprintf(stderr, "wperf-bench run: %s%s\n", prefix, line);
	}
}

void progress_say(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(p, !p->quiet, "", fmt, ap);
	va_end(ap);
}

void progress_warn(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(p, 1, "warning: ", fmt, ap);
	va_end(ap);
}

void progress_error(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(p, 1, "error: ", fmt, ap);
	va_end(ap);
}

void progress_status(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->tty || p->quiet)
		return;
	clear_status(p);
	fputs("  ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	p->status_shown = 1;
}

void progress_close(struct progress *p)
{
	clear_status(p);
	if (p->log)
		fclose(p->log);
	p->log = NULL;
}
