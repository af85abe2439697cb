/* SPDX-License-Identifier: MIT */
#include "harness/run/graphviz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The DOT goes through a temporary file: feeding dot's input while reading its
 * output through two pipes would need a poll loop to avoid a deadlock. */
int graphviz_render(const char *dot, size_t len, const char *format, struct wperf_buf *out,
		    struct wperf_error *err)
{
	char path[] = "/tmp/wperf-graph-XXXXXX", cmd[128], chunk[65536];
	int fd = mkstemp(path), status, e = 0;
	size_t n;
	FILE *p;

	if (fd < 0)
		return wperf_error_set(err, -errno, "cannot create a temporary file: %s",
				       strerror(errno));
	if (write(fd, dot, len) != (ssize_t)len)
		e = wperf_error_set(err, -EIO, "writing %s: %s", path, strerror(errno));
	close(fd);
	snprintf(cmd, sizeof(cmd), "dot -T%s '%s' 2>&1", format, path);
	p = e ? NULL : popen(cmd, "r");
	if (!e && !p)
		e = wperf_error_set(err, -errno, "cannot run dot: %s", strerror(errno));
	while (p && (n = fread(chunk, 1, sizeof(chunk), p)) > 0 && !e)
		e = wperf_buf_append(out, chunk, n);
	if (p) {
		status = pclose(p);
		if (!e && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
			e = wperf_error_set(
			    err, -EIO, "dot failed (exit status %d): is Graphviz installed? %.*s",
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			    (int)(out->len < 200 ? out->len : 200),
			    out->len ? (const char *)out->data : "");
	}
	unlink(path);
	return e;
}
