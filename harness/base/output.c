/* SPDX-License-Identifier: MIT */
#include "harness/base/output.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

/* Is st the file behind our descriptor fd? */
static int same_file(const struct stat *st, int fd)
{
	struct stat fst;

	return fstat(fd, &fst) == 0 && fst.st_dev == st->st_dev && fst.st_ino == st->st_ino;
}

/* Writes where our descriptor fd does, through a copy of it. */
static int reuse_fd(struct output_file *of, int fd, struct wperf_error *err)
{
	of->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (of->fd < 0)
		return wperf_error_set(err, -errno, "cannot write %s: %s", of->name,
				       strerror(errno));
	of->is_stdout = fd == STDOUT_FILENO;
	return 0;
}

/* A stream socket's path (a listening program, as "nc -lU" makes). */
static int connect_socket(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		fd = -1;
	}
	return fd;
}

/* A node that is not a regular file: written in place, never replaced. */
static int open_in_place(struct output_file *of, const char *path, const struct stat *st,
			 struct wperf_error *err)
{
	if (S_ISDIR(st->st_mode))
		return wperf_error_set(err, -EISDIR,
				       "cannot write %s: it is a folder (name a file)", path);
	if (S_ISBLK(st->st_mode))
		return wperf_error_set(
		    err, -EPERM, "will not write %s: it is a block device, a disk (name a file)",
		    path);
	if (S_ISSOCK(st->st_mode))
		of->fd = connect_socket(path);
	else if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode))
		of->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	else
		return wperf_error_set(err, -EINVAL,
				       "cannot write %s: it is no file, device, "
				       "FIFO or socket",
				       path);
	if (of->fd < 0)
		return wperf_error_set(err, -errno, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

/* The path at the end of path's chain of symbolic links (path itself when it is
 * none), which need not exist yet: a dangling link names the file to create. */
static int resolve_links(const char *path, char *out, size_t size, struct wperf_error *err)
{
	char link[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(out, size, "%s", path) >= size)
		return wperf_error_set(err, -ENAMETOOLONG, "cannot write %s: %s", path,
				       strerror(ENAMETOOLONG));
	for (int hops = 0; hops < 40; hops++) {
		ssize_t n;
		char *slash;

		if (lstat(out, &st) < 0 || !S_ISLNK(st.st_mode))
			return 0; /* the file, or nothing yet: open says which */
		n = readlink(out, link, sizeof(link) - 1);
		if (n < 0)
			return wperf_error_set(err, -errno, "cannot follow %s: %s", out,
					       strerror(errno));
		link[n] = '\0';
		slash = strrchr(out, '/');
		/* a relative link is relative to the folder that holds it */
		if (link[0] == '/' || !slash)
			n = snprintf(out, size, "%s", link);
		else
			n = snprintf(slash + 1, size - (slash + 1 - out), "%s", link) +
			    (slash + 1 - out);
		if ((size_t)n >= size)
			return wperf_error_set(err, -ENAMETOOLONG, "cannot follow %s: %s", path,
					       strerror(ENAMETOOLONG));
	}
	return wperf_error_set(err, -ELOOP, "cannot follow %s: %s", path, strerror(ELOOP));
}

/* A replaced file keeps its mode, and its owner where we may set it: best
 * effort, as sed -i does; a failure leaves the new file ours and 0644. */
static void keep_mode_and_owner(int fd, const struct stat *old)
{
	int ignored = fchmod(fd, old->st_mode & 07777);

	if (geteuid() == 0)
		ignored |= fchown(fd, old->st_uid, old->st_gid);
	(void)ignored;
}

/* The temporary that replaces of->target at the commit; it takes an existing
 * file's mode and owner (old: NULL for a new file). */
static int open_replacement(struct output_file *of, const char *tmp_suffix, const struct stat *old,
			    struct wperf_error *err)
{
	char pid[32];
	int n;

	snprintf(pid, sizeof(pid), ".tmp.%d", (int)getpid());
	n = snprintf(of->tmp, sizeof(of->tmp), "%s%s", of->target, tmp_suffix ? tmp_suffix : pid);
	if ((size_t)n >= sizeof(of->tmp))
		return wperf_error_set(err, -ENAMETOOLONG, "cannot write %s: %s", of->name,
				       strerror(ENAMETOOLONG));
	/* O_NOFOLLOW: a link planted at the temporary's name is not followed */
	of->fd = open(of->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (of->fd < 0) {
		int e = errno;
		char *slash = strrchr(of->tmp, '/');

		if (slash)
			*slash = '\0';
		if (e == ENOENT && slash > of->tmp && access(of->tmp, F_OK) < 0) {
			wperf_error_set(err, -e, "cannot write %s: the folder %s does not exist",
					of->name, of->tmp);
		} else {
			if (slash)
				*slash = '/';
			wperf_error_set(err, -e, "cannot create %s: %s", of->tmp, strerror(e));
		}
		of->tmp[0] = '\0';
		return -e;
	}
	if (old)
		keep_mode_and_owner(of->fd, old);
	return 0;
}

int output_open(struct output_file *of, const char *path, const char *tmp_suffix,
		struct wperf_error *err)
{
	struct stat st;
	int exists, e;

	*of = (struct output_file){.fd = -1};
	if (!path || !strcmp(path, "-")) {
		snprintf(of->name, sizeof(of->name), "standard output");
		return reuse_fd(of, STDOUT_FILENO, err);
	}
	if (!*path)
		return wperf_error_set(err, -ENOENT, "cannot write '': an empty path");
	snprintf(of->name, sizeof(of->name), "%s", path);
	exists = stat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return wperf_error_set(err, -errno, "cannot write %s: %s", path, strerror(errno));
	if (exists && same_file(&st, STDOUT_FILENO))
		return reuse_fd(of, STDOUT_FILENO, err);
	if (exists && same_file(&st, STDERR_FILENO))
		return reuse_fd(of, STDERR_FILENO, err);
	if (exists && !S_ISREG(st.st_mode))
		e = open_in_place(of, path, &st, err);
	else if (!(e = resolve_links(path, of->target, sizeof(of->target), err)))
		e = open_replacement(of, tmp_suffix, exists ? &st : NULL, err);
	if (e)
		of->target[0] = '\0';
	return e;
}

int output_append(struct output_file *of, const void *data, size_t len, struct wperf_error *err)
{
	int e = write_all(of->fd, data, len);

	return e ? wperf_error_set(err, e, "writing %s: %s", of->name, strerror(-e)) : 0;
}

int output_commit(struct output_file *of, struct wperf_error *err)
{
	int e = 0;

	if (of->tmp[0] && fsync(of->fd) < 0)
		e = -errno;
	if (close(of->fd) < 0 && !e)
		e = -errno;
	of->fd = -1;
	if (!e && of->tmp[0] && rename(of->tmp, of->target) < 0)
		e = -errno;
	if (e) {
		output_release(of);
		return wperf_error_set(err, e, "writing %s: %s", of->name, strerror(-e));
	}
	of->tmp[0] = '\0';
	return 0;
}

void output_release(struct output_file *of)
{
	if (!of)
		return;
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	if (of->tmp[0])
		unlink(of->tmp);
	of->tmp[0] = '\0';
}

int output_write(const char *path, const void *data, size_t len, struct wperf_error *err)
{
	struct output_file of;
	int e = output_open(&of, path, NULL, err);

	if (!e && (e = output_append(&of, data, len, err)))
		output_release(&of);
	return e ? e : output_commit(&of, err);
}

int output_names_file(const char *path)
{
	struct stat st;

	return path && strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode);
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

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int remove_inside(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag;
	return ftw->level ? remove(path) : 0; /* the folder itself stays */
}

int output_remove_tree(const char *path, int keep_top, struct wperf_error *err)
{
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return 0;
	if (nftw(path, keep_top ? remove_inside : remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return wperf_error_set(err, -errno, "%s %s: %s", keep_top ? "emptying" : "removing",
				       path, strerror(errno));
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
