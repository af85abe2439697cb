/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the cache of decompressed debug files
 * (harness/run/debug_cache.h). The group setup writes a trace whose one
 * mapping is this process's libc, with its build id, under a temporary
 * folder that is also the cache. Then: the first use makes the decompressed
 * copy and gives the trace the cache; the symbolizer reads the copy and names
 * libc's fsync exactly as it does from the compressed file; a second use
 * keeps the copy and marks it used; WPERF_DEBUG_CACHE=off makes nothing; the
 * trim removes the least recently used copies and nothing else. The tests of
 * the copy skip when libc6-dbg is not installed (no compressed debug file).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include "core/analysis/symbolize.h"
#include "core/trace/trace.h"
#include "harness/base/output.h"
#include "harness/run/debug_cache.h"

static struct {
	char dir[64], trace[128], cache[128];
	char libc[PATH_MAX];	  /* the mapped file */
	char system[PATH_MAX];	  /* its debug file under /usr/lib/debug */
	char copy[PATH_MAX];	  /* where the cache keeps its copy */
	struct wperf_mapping map; /* libc's executable mapping, with its build id */
	uint64_t fsync_addr;	  /* libc's own fsync */
	int compressed;		  /* the system's debug file is there, compressed */
} g;

/* Reads the build id of the ELF file at path into m; 0 or -1. */
static int read_build_id(const char *path, struct wperf_mapping *m)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	const void *note;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &note) : -1;

	if (n > 0 && n <= (ssize_t)sizeof(m->build_id)) {
		memcpy(m->build_id, note, n);
		m->build_id_len = (uint8_t)n;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return m->build_id_len ? 0 : -1;
}

/* Counts the compressed sections of the ELF file at path; -1 if unreadable. */
static int compressed_sections(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!elf)
		n = -1;
	while (elf && (scn = elf_nextscn(elf, scn)))
		n += gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return n;
}

/* libc's executable mapping in /proc/self/maps. */
static int find_libc(void)
{
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff,
			   &pos) != 4 ||
		    perms[2] != 'x' || line[pos] != '/' || !strstr(line + pos, "/libc.so"))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(g.libc, sizeof(g.libc), "%s", line + pos);
		g.map = (struct wperf_mapping){
		    .tgid = (uint32_t)getpid(), .start = start, .end = end, .pgoff = pgoff};
		found = 1;
	}
	if (f)
		fclose(f);
	return found && read_build_id(g.libc, &g.map) == 0 ? 0 : -1;
}

/* The path of m's build id under dir, as the cache and /usr/lib/debug lay it out. */
static void id_path(const char *dir, char *out, size_t size)
{
	int n = snprintf(out, size, "%s/.build-id/%02x/", dir, g.map.build_id[0]);

	for (unsigned i = 1; i < g.map.build_id_len; i++)
		n += snprintf(out + n, size - n, "%02x", g.map.build_id[i]);
	snprintf(out + n, size - n, ".debug");
}

static void write_trace(void)
{
	struct wperf_trace_writer *w;
	struct wperf_error err = {0};
	int fd = open(g.trace, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	g.map.path = g.libc;
	assert_int_equal(wperf_trace_writer_new(fd, NULL, &w, &err), 0);
	assert_int_equal(wperf_trace_writer_mappings(w, &g.map, 1, &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, NULL, &err), 0);
	wperf_trace_writer_free(w);
	close(fd);
}

static int setup(void **state)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

	(void)state;
	elf_version(EV_CURRENT);
	snprintf(g.dir, sizeof(g.dir), "/tmp/wperf-test-debug-cache-XXXXXX");
	if (!mkdtemp(g.dir) || !libc || find_libc() < 0)
		return -1;
	g.fsync_addr = (uint64_t)(uintptr_t)dlsym(libc, "fsync");
	dlclose(libc);
	snprintf(g.trace, sizeof(g.trace), "%s/libc.trace", g.dir);
	snprintf(g.cache, sizeof(g.cache), "%s/cache", g.dir);
	id_path("/usr/lib/debug", g.system, sizeof(g.system));
	id_path(g.cache, g.copy, sizeof(g.copy));
	g.compressed = compressed_sections(g.system) > 0;
	write_trace();
	return setenv("WPERF_DEBUG_CACHE", g.cache, 1);
}

static int teardown(void **state)
{
	struct wperf_error err = {0};

	(void)state;
	unsetenv("WPERF_DEBUG_CACHE");
	return output_remove_tree(g.dir, 0, &err);
}

static struct wperf_trace *open_trace(void)
{
	struct wperf_trace *t;
	struct wperf_error err = {0};

	if (wperf_trace_open(g.trace, &t, &err))
		fail_msg("open: %s", err.msg);
	return t;
}

/* fsync as the symbolizer names it over t; also says whether it held the
 * cache's copy open while it did. */
static void name_fsync(struct wperf_trace *t, char *buf, size_t size, int *read_copy)
{
	struct wperf_symbolizer *s;
	struct wperf_error err = {0};
	struct dirent *de;
	char link[PATH_MAX];
	DIR *d;

	assert_int_equal(wperf_symbolizer_new(t, &s, &err), 0);
	wperf_symbolize_user(s, (uint32_t)getpid(), g.fsync_addr, buf, size);
	*read_copy = 0;
	d = opendir("/proc/self/fd");
	assert_non_null(d);
	while ((de = readdir(d))) {
		ssize_t n = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);

		if (n > 0) {
			link[n] = '\0';
			*read_copy |= !strcmp(link, g.copy);
		}
	}
	closedir(d);
	wperf_symbolizer_free(s);
}

static void skip_without_dbg(void)
{
	if (!g.compressed) {
		fprintf(stderr,
			"skipped: no compressed debug file for libc at %s "
			"(libc6-dbg is not installed)\n",
			g.system);
		skip();
	}
}

/* The first use makes the decompressed copy, and the symbolizer reads it to
 * the same answer as the compressed file gives. */
static void test_first_use_makes_the_copy(void **state)
{
	struct wperf_trace *t = open_trace();
	char plain[256], cached[256];
	int read_copy;

	(void)state;
	skip_without_dbg();
	name_fsync(t, plain, sizeof(plain), &read_copy); /* before: /usr/lib/debug */
	assert_false(read_copy);
	assert_null(wperf_trace_debug_dir(t));

	debug_cache_use(t);
	assert_non_null(wperf_trace_debug_dir(t));
	assert_string_equal(wperf_trace_debug_dir(t), g.cache);
	assert_int_equal(compressed_sections(g.copy), 0);
	name_fsync(t, cached, sizeof(cached), &read_copy);
	assert_true(read_copy);
	assert_string_equal(cached, plain);
	assert_non_null(strstr(cached, "fsync ("));
	wperf_trace_free(t);
}

/* A second use reads the copy made before and marks it used. */
static void test_second_use_keeps_it(void **state)
{
	struct wperf_trace *t = open_trace();
	struct stat before, after;
	struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};

	(void)state;
	skip_without_dbg();
	debug_cache_use(t); /* made here if this test runs alone */
	assert_int_equal(stat(g.copy, &before), 0);
	assert_int_equal(utimensat(AT_FDCWD, g.copy, old, 0), 0);
	wperf_trace_free(t);

	t = open_trace();
	debug_cache_use(t);
	assert_int_equal(stat(g.copy, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino); /* not written again */
	assert_true(after.st_mtim.tv_sec > old[1].tv_sec);
	assert_string_equal(wperf_trace_debug_dir(t), g.cache);
	wperf_trace_free(t);
}

/* Turned off, or with no copy to make: the trace is left as it was. */
static void test_off_and_nothing_to_copy(void **state)
{
	struct wperf_trace *t = open_trace();
	char dir[PATH_MAX];

	(void)state;
	setenv("WPERF_DEBUG_CACHE", "off", 1);
	assert_int_equal(debug_cache_dir(dir, sizeof(dir)), -1);
	debug_cache_use(t);
	assert_null(wperf_trace_debug_dir(t));
	setenv("WPERF_DEBUG_CACHE", "/a:b", 1); /* not a folder libdwfl can search */
	assert_int_equal(debug_cache_dir(dir, sizeof(dir)), -1);
	setenv("WPERF_DEBUG_CACHE", g.cache, 1);
	wperf_trace_free(t);
}

/* Without WPERF_DEBUG_CACHE: XDG_CACHE_HOME's folder, else HOME's. */
static void test_default_folder(void **state)
{
	char dir[PATH_MAX];
	const char *home = getenv("HOME");
	char *saved_home = home ? strdup(home) : NULL;

	(void)state;
	unsetenv("WPERF_DEBUG_CACHE");
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	assert_int_equal(debug_cache_dir(dir, sizeof(dir)), 0);
	assert_string_equal(dir, "/x/cache/wperf-bench/debug");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/u", 1);
	assert_int_equal(debug_cache_dir(dir, sizeof(dir)), 0);
	assert_string_equal(dir, "/home/u/.cache/wperf-bench/debug");
	unsetenv("HOME");
	assert_int_equal(debug_cache_dir(dir, sizeof(dir)), -1);
	if (saved_home)
		setenv("HOME", saved_home, 1);
	free(saved_home);
	setenv("WPERF_DEBUG_CACHE", g.cache, 1);
}

/* Writes a file of bytes bytes at dir/name, last used at when. */
static void fake_copy(const char *dir, const char *name, size_t bytes, time_t when)
{
	char path[PATH_MAX];
	struct timespec ts[2] = {{.tv_sec = when}, {.tv_sec = when}};
	struct wperf_error err = {0};
	char *data = calloc(1, bytes);

	assert_non_null(data);
	assert_int_equal(output_make_dirs(dir, &err), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(output_write(path, data, bytes, &err), 0);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	free(data);
}

static int exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* The least recently used copies go first, until the folder fits; a
 * temporary being written is neither counted nor removed, one an hour old
 * (its writer killed) is removed. */
static void test_trim(void **state)
{
	char top[128], aa[160], bb[160];

	(void)state;
	snprintf(top, sizeof(top), "%s/trim", g.dir);
	snprintf(aa, sizeof(aa), "%s/.build-id/aa", top);
	snprintf(bb, sizeof(bb), "%s/.build-id/bb", top);
	fake_copy(aa, "01.debug", 1000, 1000000100); /* the oldest */
	fake_copy(bb, "02.debug", 2000, 1000000300);
	fake_copy(aa, "03.debug", 3000, 1000000200);
	fake_copy(bb, "04.debug.tmp.99", 5000, time(NULL));
	fake_copy(bb, "05.debug.tmp.98", 5000, time(NULL) - 7200);

	assert_int_equal(debug_cache_trim(top, 100000), 6000); /* fits: nothing goes */
	assert_int_equal(debug_cache_trim(top, 5000), 5000);
	assert_false(exists(aa, "01.debug"));
	assert_true(exists(aa, "03.debug") && exists(bb, "02.debug"));
	assert_int_equal(debug_cache_trim(top, 2500), 2000);
	assert_false(exists(aa, "03.debug"));
	assert_true(exists(bb, "02.debug") && exists(bb, "04.debug.tmp.99"));
	assert_false(exists(bb, "05.debug.tmp.98"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_use_makes_the_copy),
	    cmocka_unit_test(test_second_use_keeps_it),
	    cmocka_unit_test(test_off_and_nothing_to_copy),
	    cmocka_unit_test(test_default_folder),
	    cmocka_unit_test(test_trim),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
