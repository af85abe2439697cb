/* SPDX-License-Identifier: MIT */
/*
 * The data files that programs write synchronously: the disk their threads
 * wait for. fig1 and background rewrite one file, one request at a time; the
 * sync programs (syncthreads, syncprocs, groupcommit) append to theirs. Each
 * program writes in a function of its own (log_request, append_item, ...), the
 * function recorded stacks must name: synth_file_write and synth_file_sync are
 * static inline and called there only, so that they are inlined into it and
 * the stacks go from write or fsync straight to it.
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

/* Create (or empty) the file at path to write to, opened with O_WRONLY and flags. */
static inline int synth_file_create(const char *path, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0644);

	if (fd < 0)
		synth_die(1, "%s: %s", path, strerror(errno));
	synth_warn_if_not_disk(path);
	return fd;
}

/* Create (or empty) the file at path to write to, with O_DIRECT if direct. */
static inline int synth_file_open(const char *path, bool direct)
{
	return synth_file_create(path, direct ? O_DIRECT : 0);
}

/*
 * The path of a program's data file number i in dir: DIR/NAME-PID-I.data, the
 * pid keeping runs that share a folder apart.
 */
static inline void synth_file_path(char *path, size_t size, const char *dir, const char *name,
				   int i)
{
	if (snprintf(path, size, "%s/%s-%d-%d.data", dir, name, (int)getpid(), i) >= (int)size)
		synth_die(2, "the folder %s is too long a path", dir);
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

/*
 * Make what was written to fd durable: fdatasync (the data, and the metadata
 * needed to read it back: a grown size), or fsync (every metadata) if full;
 * either ends with a flush of the disk's write cache.
 */
static inline void synth_file_sync(int fd, bool full)
{
	if ((full ? fsync(fd) : fdatasync(fd)) < 0)
		synth_die(1, "%s: %s", full ? "fsync" : "fdatasync", strerror(errno));
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
