/* SPDX-License-Identifier: MIT */
/*
 * The cache of decompressed debug files (see debug_cache.h): the folder, one
 * build id's copy (made with libelf: the system file's bytes written as a
 * temporary, each compressed section decompressed in place, then renamed),
 * the trim, and the trace's build ids walked once each.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/analysis/symbolize.h"
#include "harness/base/output.h"
#include "harness/run/debug_cache.h"

#define SYSTEM_DEBUG_DIR "/usr/lib/debug"

/* ---- the folder ---- */

int debug_cache_dir(char *dir, size_t size)
{
	const char *env = getenv("WPERF_DEBUG_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (env && !strcmp(env, "off"))
		return -1;
	if (env && *env)
		n = snprintf(dir, size, "%s", env);
	else if (xdg && *xdg == '/')
		n = snprintf(dir, size, "%s/wperf-bench/debug", xdg);
	else if (home && *home == '/')
		n = snprintf(dir, size, "%s/.cache/wperf-bench/debug", home);
	else
		return -1;
	/* libdwfl's search path is colon-separated: such a folder cannot be in it. */
	return n > 0 && (size_t)n < size && !strchr(dir, ':') ? 0 : -1;
}

/* ---- one copy ---- */

/* Does the ELF file at path have a compressed section? */
static int has_compressed(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (elf && !found && (scn = elf_nextscn(elf, scn)))
		found = gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/* Decompresses every compressed section of the ELF file at path, in place
 * (libelf lays the file out again). 0, or -1. */
static int decompress(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), e = -1;
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_RDWR, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf) {
		e = 0;
		while (!e && (scn = elf_nextscn(elf, scn)))
			if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED))
				e = elf_compress(scn, 0, 0) < 0 ? -1 : 0;
		if (!e && elf_update(elf, ELF_C_WRITE) < 0)
			e = -1;
		elf_end(elf);
	}
	if (fd >= 0)
		close(fd);
	return e;
}

/* Writes src's decompressed copy at dst, never seen half-written. 0, or a
 * negative errno (nothing is left behind). */
static int write_copy(const char *src, const char *dst)
{
	struct wperf_error err = {0};
	struct output_file of = {.fd = -1};
	struct wperf_buf raw = {0};
	char dir[PATH_MAX];
	int e;

	snprintf(dir, sizeof(dir), "%s", dst);
	*strrchr(dir, '/') = '\0';
	e = output_make_dirs(dir, &err);
	if (!e)
		e = output_read_all(src, &raw, &err);
	if (!e)
		e = output_open(&of, dst, NULL, &err);
	if (!e)
		e = output_append(&of, raw.data, raw.len, &err);
	if (!e && decompress(of.tmp) < 0)
		e = -EIO;
	if (!e)
		e = output_commit(&of, &err);
	output_release(&of);
	wperf_buf_release(&raw);
	return e;
}

enum cached { CACHED_NONE, CACHED_THERE, CACHED_MADE };

/* The cache's copy for m's build id: there already (marked used), made now
 * from a compressed system debug file, or none. */
static enum cached cache_one(const char *dir, const struct wperf_mapping *m)
{
	char src[PATH_MAX], dst[PATH_MAX];

	if (wperf_debug_file_path(SYSTEM_DEBUG_DIR, m, src, sizeof(src)) < 0 ||
	    wperf_debug_file_path(dir, m, dst, sizeof(dst)) < 0)
		return CACHED_NONE;
	if (utimensat(AT_FDCWD, dst, NULL, 0) == 0)
		return CACHED_THERE; /* its time says when it was last used */
	if (!has_compressed(src) || write_copy(src, dst) < 0)
		return CACHED_NONE;
	return CACHED_MADE;
}

/* ---- the trim ---- */

struct cached_file {
	char *path;
	struct timespec used;
	uint64_t bytes;
};

static int cmp_used(const void *a, const void *b)
{
	const struct timespec *x = &((const struct cached_file *)a)->used;
	const struct timespec *y = &((const struct cached_file *)b)->used;

	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? -1 : 1;
	return (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

/* Appends the copies of folder sub (DIR/.build-id/xx) to files; -1 on no memory. */
static int list_copies(const char *sub, struct wperf_buf *files)
{
	DIR *d = opendir(sub);
	struct dirent *de;
	int e = 0;

	while (d && !e && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct cached_file f = {0};
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&f.path, "%s/%s", sub, de->d_name) < 0) {
			e = -1;
			break;
		}
		if (lstat(f.path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(f.path);
			continue;
		}
		/* Copies end in .debug; temporaries being written do not, and one
		 * an hour old was left by a writer that was killed. */
		if (len < 7 || strcmp(de->d_name + len - 6, ".debug")) {
			if (strstr(de->d_name, ".debug.tmp.") && st.st_mtime < time(NULL) - 3600)
				unlink(f.path);
			free(f.path);
			continue;
		}
		f.used = st.st_mtim;
		f.bytes = (uint64_t)st.st_size;
		if (wperf_buf_append(files, &f, sizeof(f)) < 0) {
			free(f.path);
			e = -1;
		}
	}
	if (d)
		closedir(d);
	return e;
}

uint64_t debug_cache_trim(const char *dir, uint64_t max_bytes)
{
	struct wperf_buf files = {0};
	struct cached_file *f;
	char top[PATH_MAX], sub[PATH_MAX];
	uint64_t total = 0;
	size_t n;
	struct dirent *de;
	DIR *d;

	snprintf(top, sizeof(top), "%s/.build-id", dir);
	d = opendir(top);
	while (d && (de = readdir(d))) {
		if (strlen(de->d_name) != 2)
			continue; /* the first byte of a build id, as two hex digits */
		if (snprintf(sub, sizeof(sub), "%s/%.2s", top, de->d_name) >= (int)sizeof(sub))
			continue;
		if (list_copies(sub, &files) < 0)
			break;
	}
	if (d)
		closedir(d);
	f = (struct cached_file *)files.data;
	n = files.len / sizeof(*f);
	for (size_t i = 0; i < n; i++)
		total += f[i].bytes;
	if (n)
		qsort(f, n, sizeof(*f), cmp_used);
	for (size_t i = 0; i < n && total > max_bytes; i++)
		if (unlink(f[i].path) == 0)
			total -= f[i].bytes;
	for (size_t i = 0; i < n; i++)
		free(f[i].path);
	wperf_buf_release(&files);
	return total;
}

/* ---- a trace's build ids ---- */

static int cmp_build_id(const void *a, const void *b)
{
	const struct wperf_mapping *x = *(const struct wperf_mapping *const *)a;
	const struct wperf_mapping *y = *(const struct wperf_mapping *const *)b;

	if (x->build_id_len != y->build_id_len)
		return x->build_id_len < y->build_id_len ? -1 : 1;
	return memcmp(x->build_id, y->build_id, x->build_id_len);
}

void debug_cache_use(struct wperf_trace *t)
{
	size_t n, k = 0, used = 0, made = 0;
	const struct wperf_mapping *m = wperf_trace_mappings(t, &n);
	const struct wperf_mapping **by_id;
	char dir[PATH_MAX];

	if (!n || debug_cache_dir(dir, sizeof(dir)) < 0 || elf_version(EV_CURRENT) == EV_NONE)
		return;
	by_id = malloc(n * sizeof(*by_id));
	if (!by_id)
		return;
	for (size_t i = 0; i < n; i++)
		if (m[i].build_id_len)
			by_id[k++] = &m[i];
	if (k)
		qsort(by_id, k, sizeof(*by_id), cmp_build_id);
	for (size_t i = 0; i < k; i++) {
		enum cached c;

		if (i && !cmp_build_id(&by_id[i - 1], &by_id[i]))
			continue; /* each build id once */
		c = cache_one(dir, by_id[i]);
		used += c != CACHED_NONE;
		made += c == CACHED_MADE;
	}
	free(by_id);
	if (made)
		debug_cache_trim(dir, DEBUG_CACHE_MAX_BYTES);
	if (used)
		wperf_trace_set_debug_dir(t, dir);
}
