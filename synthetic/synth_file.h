/* SPDX-License-Identifier: MIT */
/*
 * The data file that fig1 and background write synchronously, one request at
 * a time: the disk their thread B waits for. B writes it in each program's own
 * log_request, the function recorded stacks must name: synth_file_write is
 * static inline and called there only, so that it is inlined into it and the
 * stacks go from write or fsync straight to log_request.
 */
#ifndef SYNTH_FILE_H
#define SYNTH_FILE_H

#include <fcntl.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "synth.h"

/* fsync on a memory file system returns at once: the disk would not show up. */
static inline void synth_warn_if_not_disk(const char *path)
{
	struct statfs sfs;

	if (statfs(path, &sfs) == 0 && (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC))
		fprintf(stderr,
			"%s: warning: %s is on a memory file system: fsync does not reach a disk\n",
			program_invocation_short_name, path);
}

/* Create (or empty) the file at path to write to, with O_DIRECT if direct. */
static inline int synth_file_open(const char *path, bool direct)
{
	int fd =
	    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (direct ? O_DIRECT : 0), 0644);

	if (fd < 0)
		synth_die(1, "%s: %s", path, strerror(errno));
	synth_warn_if_not_disk(path);
	return fd;
}

/*
 * The len bytes written for every request, aligned as O_DIRECT wants (which
 * also wants len in whole blocks: the caller rounds it up).
 */
static inline char *synth_file_buffer(size_t len)
{
	char *buf;

	if (posix_memalign((void **)&buf, 4096, len))
		synth_die(1, "out of memory");
	memset(buf, 'w', len);
	return buf;
}

/*
 * Write all of buf: at the start of the file with rewrite (so that the file
 * does not grow), else at the file offset. Then fsync it if sync.
 */
static inline void synth_file_write(int fd, const char *buf, size_t len, bool rewrite, bool sync)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = rewrite ? pwrite(fd, buf + off, len - off, off)
				    : write(fd, buf + off, len - off);

		if (n < 0 && errno != EINTR)
			synth_die(1, "write: %s", strerror(errno));
		if (n > 0)
			off += n;
	}
	if (sync && fsync(fd) < 0)
		synth_die(1, "fsync: %s", strerror(errno));
}

/* Close the file, and remove it unless keep. */
static inline void synth_file_close(int fd, const char *path, bool keep)
{
	close(fd);
	if (!keep && unlink(path) < 0)
		fprintf(stderr, "%s: removing %s: %s\n", program_invocation_short_name, path,
			strerror(errno));
}

#endif /* SYNTH_FILE_H */
