/* SPDX-License-Identifier: MIT */
/*
 * Writing a result where the user asked: standard output, or a file that is
 * replaced atomically (never seen half-written).
 */
#ifndef WPERF_OUTPUT_H
#define WPERF_OUTPUT_H

#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

/*
 * Writes data to path (NULL or "-": standard output). A file is written as
 * PATH.tmp.PID, synced, then renamed over PATH. 0, or a negative errno with err
 * naming the file.
 */
int output_write(const char *path, const void *data, size_t len, struct wperf_error *err);

/* Appends the whole file at path to out; 0, or a negative errno with err
 * naming the file (-ENOENT when it does not exist). */
int output_read_all(const char *path, struct wperf_buf *out, struct wperf_error *err);

/* Makes the folder dir and its missing parents, like mkdir -p; 0, or a
 * negative errno with err naming the folder (-ENOTDIR: a file is in the way). */
int output_make_dirs(const char *dir, struct wperf_error *err);

/* Is path a folder with nothing in it? */
int output_is_empty_dir(const char *path);

#endif /* WPERF_OUTPUT_H */
