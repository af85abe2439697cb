/* SPDX-License-Identifier: MIT */
/*
 * Writing a result where the user asked, and reading one back.
 *
 * Every file wperf-bench writes goes through struct output_file, which decides
 * by what the path names how it is written:
 *   - NULL or "-": standard output;
 *   - the file our standard output or error already is (/dev/stdout, or
 *     "-o f > f"): that descriptor, in place;
 *   - a character device (/dev/null, a tty), a FIFO or a socket: opened (a
 *     socket: connected) and written in place; the node stays what it was;
 *   - a regular file, or nothing yet: written as a temporary beside it, synced,
 *     then renamed over it, so it is never seen half-written; an existing
 *     file's mode and owner are kept;
 *   - a symbolic link: followed; the file it names is replaced in that file's
 *     own folder and the link stays a link (as sed -i --follow-symlinks);
 *   - a folder, a block device, or anything that cannot be written: refused,
 *     before anything is written, with an error that names the path.
 * A device node is never renamed over: that is how "-o /dev/null" used to turn
 * the machine's /dev/null into a regular file.
 */
#ifndef WPERF_OUTPUT_H
#define WPERF_OUTPUT_H

#include <limits.h>
#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

/* The rule above as the commands' help tells it (harness/cli/pages). */
#define OUTPUT_NOTE                                                                                \
	"An output file is written whole beside its path and renamed over it, so it is\n"          \
	"never seen half-written (a file that was there keeps its mode and owner; a\n"             \
	"symbolic link stays a link and the file it names is replaced). A device\n"                \
	"(/dev/null, /dev/stdout), a FIFO or a socket is written in place and stays what\n"        \
	"it is; - is standard output. A folder or a block device is refused."

/* One output being written. Zero it (or output_open it) before use. */
struct output_file {
	int fd;		       /* where to write, ours to close; -1 when closed */
	int is_stdout;	       /* fd writes where our standard output does */
	char name[PATH_MAX];   /* the path as given, for messages */
	char target[PATH_MAX]; /* the file the commit replaces, links followed; "" in place */
	char tmp[PATH_MAX];    /* the temporary written until then; "" in place */
};

/*
 * Opens path for writing as the header says. tmp_suffix names the temporary
 * (TARGET + tmp_suffix, e.g. ".part"); NULL: TARGET.tmp.PID. Blocks, as a
 * shell does, until a FIFO has a reader. 0, or a negative errno with err naming
 * the path (-EISDIR a folder, -EPERM a block device, ...); nothing is left to
 * release after an error.
 */
int output_open(struct output_file *of, const char *path, const char *tmp_suffix,
		struct wperf_error *err);

/* Writes all of data to of->fd; 0, or a negative errno with err naming it. */
int output_append(struct output_file *of, const void *data, size_t len, struct wperf_error *err);

/*
 * Completes the output: a temporary is synced, closed and renamed over its
 * target; in place, the descriptor is closed. 0, or a negative errno with err
 * naming the file; either way of is released.
 */
int output_commit(struct output_file *of, struct wperf_error *err);

/* Abandons an output not committed: closes it and removes its temporary, so
 * that the target keeps what it had. NULL-safe, and safe after a commit. */
void output_release(struct output_file *of);

/* output_open, output_append and output_commit of data in one call. */
int output_write(const char *path, const void *data, size_t len, struct wperf_error *err);

/* Does path name a regular file (links followed), one that an output would
 * replace and whose content is there to keep? Not "-", a device, a FIFO... */
int output_names_file(const char *path);

/* Appends the whole file at path to out; 0, or a negative errno with err
 * naming the file (-ENOENT when it does not exist). */
int output_read_all(const char *path, struct wperf_buf *out, struct wperf_error *err);

/* Makes the folder dir and its missing parents, like mkdir -p; 0, or a
 * negative errno with err naming the folder (-ENOTDIR: a file is in the way). */
int output_make_dirs(const char *dir, struct wperf_error *err);

/* Removes path and all it holds, like rm -rf, links not followed (with
 * keep_top, only what it holds: an emptied folder stays); 0 (also when there
 * is no path), or a negative errno with err naming it. */
int output_remove_tree(const char *path, int keep_top, struct wperf_error *err);

/* Is path a folder with nothing in it? */
int output_is_empty_dir(const char *path);

#endif /* WPERF_OUTPUT_H */
