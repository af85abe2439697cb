/* SPDX-License-Identifier: MIT */
#include "harness/base/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

int output_write(const char *path, const void *data, size_t len, struct wperf_error *err)
{
	char tmp[PATH_MAX];
	int fd, e;

	if (!path || !strcmp(path, "-")) {
		e = write_all(STDOUT_FILENO, data, len);
		return e ? wperf_error_set(err, e, "writing to standard output: %s", strerror(-e))
			 : 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return wperf_error_set(err, -errno, "cannot create %s: %s", tmp, strerror(errno));
	e = write_all(fd, data, len);
	if (!e && fsync(fd) < 0)
		e = -errno;
	if (close(fd) < 0 && !e)
		e = -errno;
	if (!e && rename(tmp, path) < 0)
		e = -errno;
	if (e) {
		unlink(tmp);
		return wperf_error_set(err, e, "writing %s: %s", path, strerror(-e));
	}
	return 0;
}

int output_read_all(const char *path, struct wperf_buf *out, struct wperf_error *err)
{
	FILE *f = fopen(path, "re");
	char chunk[65536];
	size_t n;
	int e = 0;

	if (!f)
		return wperf_error_set(err, -errno, "%s: %s", path, strerror(errno));
	while (!e && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		e = wperf_buf_append(out, chunk, n);
	if (!e && ferror(f))
		e = wperf_error_set(err, -EIO, "%s: read error", path);
	else if (e)
		e = wperf_error_set(err, e, "%s: out of memory", path);
	fclose(f);
	return e;
}

int output_make_dirs(const char *dir, struct wperf_error *err)
{
	char part[PATH_MAX];
	size_t len = strlen(dir);
	struct stat st;

	if (!len || len >= sizeof(part))
		return wperf_error_set(err, -EINVAL, "cannot make the folder '%s': bad name", dir);
	memcpy(part, dir, len + 1);
	/* Each prefix that ends before a '/', then the whole name. */
	for (char *p = part + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(part, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			int whole = !strcmp(part, dir);

			return wperf_error_set(err, -e, "cannot make the folder %s: %s%s%s", dir,
					       whole ? "" : part, whole ? "" : ": ", strerror(e));
		}
		*p = c;
		if (!c)
			break;
	}
	/* EEXIST also comes for a file of that name. */
	if (stat(dir, &st) < 0)
		return wperf_error_set(err, -errno, "cannot make the folder %s: %s", dir,
				       strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return wperf_error_set(err, -ENOTDIR, "cannot make the folder %s: %s", dir,
				       "a file of that name is in the way");
	return 0;
}

int output_is_empty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return 0;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}
