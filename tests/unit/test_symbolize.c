/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the stack symbolizer. The process symbolizes itself: the group
 * setup reads the executable mappings of /proc/self/maps (with their build ids)
 * and writes a trace whose MAPPINGS are those of getpid(), plus made-up processes
 * (a wrong build id, a vanished file, a vanished libc with a debug file, many
 * copies at other addresses that must share the files' sessions, the
 * executable under many names to make the symbolizer close sessions), KSYMS,
 * a PERFMAP and STACKS.
 * Then addresses of this very binary (a PIE), of libc and of libcmocka (shared
 * objects) must come back as the right names, files and lines. Two more layouts
 * are checked on a tiny program the test compiles and runs (skipped when the
 * compiler is missing): a non-PIE executable (cc -no-pie), and a PIE linked by
 * lld, whose executable segment has p_vaddr != p_offset and no .debug_aranges.
 *
 * The trace goes to a temporary directory under /tmp, removed at the end.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include "core/analysis/symbolize.h"
#include "core/trace/meta.h"
#include "core/trace/trace.h"

#define BAD_BUILD_TGID 4000001u /* the test binary, with a wrong build id */
#define GONE_TGID      4000002u /* a file that does not exist, no build id */
#define DEBUG_TGID     4000003u /* libc under a vanished path, with its real build id */
#define UNKNOWN_TGID   4000004u /* in no table at all */
#define MANY_TGID      5000000u /* MANY_PROCS copies of this process's mappings */
#define MANY_PROCS     80
#define COPY_SHIFT     0x100000000ull /* copy p's mappings are p * COPY_SHIFT higher */
#define NAMES_TGID     6000000u	      /* NAMES processes, each mapping the executable */
#define NAMES	       70	      /* under a name of its own: more than 64 files */
#define JIT_BASE       0x10000u	      /* below every file mapping (vm.mmap_min_addr) */
#define STACK_ID       7
#define GARBAGE_ID     (STACK_ID + 1)

/* ---- functions to find ---- */

/* Returns its return address: an address inside its caller, at a known call. */
__attribute__((noinline, noclone)) uint64_t tsym_callee(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

static int known_line; /* the line of the call in tsym_known */

__attribute__((noinline, noclone)) uint64_t tsym_known(void)
{
	uint64_t ret;

	known_line = __LINE__ + 1;
	ret = tsym_callee();
	__asm__ volatile("" ::: "memory"); /* no tail call: the call stays a call */
	return ret;
}

/* The frame tsym_known's call must come back as. */
static const char *known_frame(void)
{
	static char want[64];

	snprintf(want, sizeof(want), "tsym_known (test_symbolize.c:%d)", known_line);
	return want;
}

/* ---- the process's own mappings ---- */

struct self_map {
	uint64_t start, end, pgoff;
	uint8_t id_len, id[20];
	char path[512];
};

static struct {
	char dir[64], trace[128];
	char names[NAMES][96]; /* symbolic links to the executable */
	struct self_map maps[128];
	size_t nmaps;
	uint64_t ret_addr;		  /* a return address in tsym_known */
	uint64_t fsync_addr, cmocka_addr; /* libc's fsync, libcmocka's runner */
	const struct self_map *exe, *libc, *cmocka;
} g;

static uint8_t build_id_of(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const void *note;
	ssize_t n = 0;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		n = dwelf_elf_gnu_build_id(elf, &note);
		if (n > 0 && n <= 20)
			memcpy(id, note, n);
		else
			n = 0;
		elf_end(elf);
	}
	close(fd);
	return (uint8_t)n;
}

/* The executable file mappings of /proc/PID/maps, as the recorder reads them. */
static size_t read_maps(const char *maps_path, struct self_map *out, size_t max)
{
	char line[1024];
	FILE *f = fopen(maps_path, "re");
	size_t n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && n < max) {
		unsigned long long start, end, pgoff;
		char perms[8];
		int pos = 0;
		struct self_map *m = &out[n];

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff,
			   &pos) != 4 ||
		    perms[2] != 'x' || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(m->path, sizeof(m->path), "%s", line + pos);
		m->start = start;
		m->end = end;
		m->pgoff = pgoff;
		m->id_len = build_id_of(m->path, m->id);
		n++;
	}
	fclose(f);
	return n;
}

static const struct self_map *map_of(uint64_t addr)
{
	for (size_t i = 0; i < g.nmaps; i++)
		if (addr >= g.maps[i].start && addr < g.maps[i].end)
			return &g.maps[i];
	return NULL;
}

static struct wperf_mapping to_mapping(const struct self_map *s, uint32_t tgid)
{
	struct wperf_mapping m = {.tgid = tgid,
				  .start = s->start,
				  .end = s->end,
				  .pgoff = s->pgoff,
				  .build_id_len = s->id_len,
				  .path = s->path};

	memcpy(m.build_id, s->id, s->id_len);
	return m;
}

/* copy p of this process's mapping s, COPY_SHIFT * p higher */
static struct wperf_mapping to_copy(const struct self_map *s, uint32_t p)
{
	struct wperf_mapping m = to_mapping(s, MANY_TGID + p);

	m.start += p * COPY_SHIFT;
	m.end += p * COPY_SHIFT;
	return m;
}

/* The separate debug file of a build id, as the symbolizer looks for it. */
static int debug_file_exists(const struct self_map *m)
{
	char p[128];
	int n = snprintf(p, sizeof(p), "/usr/lib/debug/.build-id/%02x/", m->id[0]);

	if (!m->id_len)
		return 0;
	for (unsigned i = 1; i < m->id_len; i++)
		n += snprintf(p + n, sizeof(p) - n, "%02x", m->id[i]);
	snprintf(p + n, sizeof(p) - n, ".debug");
	return access(p, R_OK) == 0;
}

/* ---- the trace ---- */

static const char perfmap_text[] = "10000 100 java.io.FileChannel.force\n"
				   "0x10100 0x80 Interpreter\n"
				   "not a line\n"
				   "10200 40 old code\r\n"
				   "10200 40 new code\n"
				   "10300 0 empty\n";

static const struct wperf_ksym ksyms[] = {
    {0xffffffff81234560ull, "vfs_fsync_range+0x10"},
    {0xffffffff81234500ull, "do_fsync+0x2a"},
};

static void write_trace(void)
{
	static const char *const keys[] = {WPERF_META_KERNEL};
	static const char *const values[] = {"6.1.0-test"};
	struct wperf_mapping *maps = calloc(128 * (MANY_PROCS + 1) + NAMES + 8, sizeof(*maps));
	uint64_t uips[3], kips[3], garbage[4];
	struct wperf_stack stacks[3];
	struct wperf_perfmap pm = {getpid(), perfmap_text, sizeof(perfmap_text) - 1};
	struct wperf_trace_writer *w;
	struct wperf_error err = {0};
	size_t n = 0;
	int fd;

	assert_non_null(maps);
	/* This process, then copies of it under other tgids and addresses. */
	for (size_t i = 0; i < g.nmaps; i++)
		maps[n++] = to_mapping(&g.maps[i], getpid());
	for (uint32_t p = 0; p < MANY_PROCS; p++)
		for (size_t i = 0; i < g.nmaps; i++)
			maps[n++] = to_copy(&g.maps[i], p);
	for (uint32_t p = 0; p < NAMES; p++) {
		snprintf(g.names[p], sizeof(g.names[p]), "%s/exe-%u", g.dir, p);
		assert_int_equal(symlink(g.exe->path, g.names[p]), 0);
		maps[n] = to_mapping(g.exe, NAMES_TGID + p);
		maps[n++].path = g.names[p];
	}
	maps[n] = to_mapping(g.exe, BAD_BUILD_TGID);
	maps[n++].build_id[0] ^= 0xff;
	maps[n++] = (struct wperf_mapping){.tgid = GONE_TGID,
					   .start = 0x400000,
					   .end = 0x401000,
					   .pgoff = 0x1000,
					   .path = "/nonexistent/dir/fig1"};
	maps[n] = to_mapping(g.libc, DEBUG_TGID);
	maps[n++].path = "/nonexistent/dir/libc.so.6";

	uips[0] = g.fsync_addr;
	uips[1] = g.ret_addr;
	uips[2] = JIT_BASE + 0x10;
	kips[0] = ksyms[1].addr;
	kips[1] = ksyms[0].addr;
	kips[2] = 0xffffffff81000000ull;
	stacks[0] = (struct wperf_stack){.id = STACK_ID, .user = 1, .nr = 3, .ips = uips};
	stacks[1] = (struct wperf_stack){.id = STACK_ID, .user = 0, .nr = 3, .ips = kips};
	/* a frame-pointer walk of a program without frame pointers: data ("rever721"
	 * in ASCII) read as a return address, then whatever it pointed to */
	garbage[0] = g.fsync_addr;
	garbage[1] = g.ret_addr;
	garbage[2] = 0x3732312072657672ull;
	garbage[3] = g.ret_addr;
	stacks[2] = (struct wperf_stack){.id = GARBAGE_ID, .user = 1, .nr = 4, .ips = garbage};

	fd = open(g.trace, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(wperf_trace_writer_new(fd, NULL, &w, &err), 0);
	assert_int_equal(wperf_trace_writer_meta(w, keys, values, 1, &err), 0);
	assert_int_equal(wperf_trace_writer_mappings(w, maps, n, &err), 0);
	assert_int_equal(wperf_trace_writer_ksyms(w, ksyms, 2, &err), 0);
	assert_int_equal(wperf_trace_writer_perfmap(w, &pm, &err), 0);
	assert_int_equal(wperf_trace_writer_stacks(w, stacks, 3, &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, NULL, &err), 0);
	wperf_trace_writer_free(w);
	close(fd);
	free(maps);
}

static int setup(void **state)
{
	void *libc;

	(void)state;
	elf_version(EV_CURRENT);
	snprintf(g.dir, sizeof(g.dir), "/tmp/wperf-test-symbolize-XXXXXX");
	if (!mkdtemp(g.dir))
		return -1;
	snprintf(g.trace, sizeof(g.trace), "%s/self.trace", g.dir);

	g.ret_addr = tsym_known();
	/* libc's own fsync, not a sanitizer's interceptor of it. */
	libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!libc)
		return -1;
	g.fsync_addr = (uint64_t)(uintptr_t)dlsym(libc, "fsync");
	dlclose(libc);
	g.cmocka_addr = (uint64_t)(uintptr_t)&_cmocka_run_group_tests;

	g.nmaps = read_maps("/proc/self/maps", g.maps, 128);
	g.exe = map_of((uint64_t)(uintptr_t)&tsym_known);
	g.libc = map_of(g.fsync_addr);
	g.cmocka = map_of(g.cmocka_addr);
	if (!g.exe || !g.libc || !g.cmocka || !g.exe->id_len || !g.libc->id_len ||
	    !strstr(g.libc->path, "libc") || !strstr(g.cmocka->path, "libcmocka"))
		return -1;
	write_trace();
	return 0;
}

static int teardown(void **state)
{
	DIR *d = opendir(g.dir);
	struct dirent *de;
	char p[512];

	(void)state;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", g.dir, de->d_name);
		unlink(p);
	}
	closedir(d);
	return rmdir(g.dir);
}

/* A symbolizer over the trace; the test frees both with done(). */
static struct wperf_symbolizer *open_symbolizer(struct wperf_trace **t)
{
	struct wperf_symbolizer *s;
	struct wperf_error err = {0};

	if (wperf_trace_open(g.trace, t, &err))
		fail_msg("open: %s", err.msg);
	assert_int_equal(wperf_symbolizer_new(*t, &s, &err), 0);
	return s;
}

static void done(struct wperf_symbolizer *s, struct wperf_trace *t)
{
	wperf_symbolizer_free(s);
	wperf_trace_free(t);
}

#define assert_prefix(str, pre)                                                                    \
	do {                                                                                       \
		if (strncmp((str), (pre), strlen(pre)))                                            \
			fail_msg("\"%s\" does not start with \"%s\"", (str), (pre));               \
	} while (0)

/* ---- tests ---- */

/* The PIE test binary: symbol, source file and the line of the call. */
static void test_own_function(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	char buf[256];
	const char *want = known_frame();

	(void)state;
	wperf_symbolize_user(s, getpid(), g.ret_addr - 1, buf, sizeof(buf));
	assert_string_equal(buf, want);
	wperf_symbolize_user(s, getpid(), (uint64_t)(uintptr_t)&tsym_known, buf, sizeof(buf));
	assert_prefix(buf, "tsym_known (test_symbolize.c:");
	wperf_symbolize_user(s, getpid(), (uint64_t)(uintptr_t)&tsym_callee, buf, sizeof(buf));
	assert_prefix(buf, "tsym_callee (test_symbolize.c:");
	/* Asked again: the cached string. */
	wperf_symbolize_user(s, getpid(), g.ret_addr - 1, buf, sizeof(buf));
	assert_string_equal(buf, want);
	done(s, t);
}

/* libc, a shared object: fsync, with libc's line info when libc6-dbg is installed. */
static void test_libc(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	char buf[256];

	(void)state;
	wperf_symbolize_user(s, getpid(), g.fsync_addr, buf, sizeof(buf));
	assert_prefix(buf, "fsync (");
	if (debug_file_exists(g.libc))
		assert_non_null(strstr(buf, "fsync.c:"));
	else
		assert_string_equal(buf, "fsync (libc.so.6)");
	done(s, t);
}

/* A shared object with a symbol table but no debug info: "name (file)". */
static void test_no_line_info(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	char buf[256], want[256];

	(void)state;
	if (debug_file_exists(g.cmocka)) {
		done(s, t);
		skip();
	}
	snprintf(want, sizeof(want), "_cmocka_run_group_tests (%s)",
		 strrchr(g.cmocka->path, '/') + 1);
	wperf_symbolize_user(s, getpid(), g.cmocka_addr, buf, sizeof(buf));
	assert_string_equal(buf, want);
	done(s, t);
}

/* The file is there but another build: unresolved, with the file offset. */
static void test_wrong_build_id(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	uint64_t ip = (uint64_t)(uintptr_t)&tsym_known;
	char buf[256], want[256];

	(void)state;
	snprintf(want, sizeof(want), "[%s+0x%" PRIx64 "]", strrchr(g.exe->path, '/') + 1,
		 ip - g.exe->start + g.exe->pgoff);
	wperf_symbolize_user(s, BAD_BUILD_TGID, ip, buf, sizeof(buf));
	assert_string_equal(buf, want);
	/* Gone, with no build id to look for a debug file by. */
	wperf_symbolize_user(s, GONE_TGID, 0x400234, buf, sizeof(buf));
	assert_string_equal(buf, "[fig1+0x1234]");
	done(s, t);
}

/* libc's path is gone, but /usr/lib/debug has the file of its build id. */
static void test_debug_file(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	char buf[256], own[256];

	(void)state;
	wperf_symbolize_user(s, DEBUG_TGID, g.fsync_addr, buf, sizeof(buf));
	if (!debug_file_exists(g.libc)) {
		assert_prefix(buf, "[libc.so.6+0x");
		done(s, t);
		skip();
	}
	wperf_symbolize_user(s, getpid(), g.fsync_addr, own, sizeof(own));
	assert_string_equal(buf, own);
	assert_prefix(buf, "fsync (");
	done(s, t);
}

static void test_kernel(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	char buf[256];

	(void)state;
	wperf_symbolize_kernel(s, 0xffffffff81234500ull, buf, sizeof(buf));
	assert_string_equal(buf, "do_fsync+0x2a");
	wperf_symbolize_kernel(s, 0xffffffff81234560ull, buf, sizeof(buf));
	assert_string_equal(buf, "vfs_fsync_range+0x10");
	wperf_symbolize_kernel(s, 0xffffffff81234501ull, buf, sizeof(buf)); /* exact only */
	assert_string_equal(buf, "[kernel 0xffffffff81234501]");
	done(s, t);
}

static void test_jit(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	char buf[256];

	(void)state;
	wperf_symbolize_user(s, getpid(), JIT_BASE, buf, sizeof(buf));
	assert_string_equal(buf, "java.io.FileChannel.force [jit]");
	wperf_symbolize_user(s, getpid(), JIT_BASE + 0xff, buf, sizeof(buf));
	assert_string_equal(buf, "java.io.FileChannel.force [jit]");
	wperf_symbolize_user(s, getpid(), JIT_BASE + 0x17f, buf, sizeof(buf));
	assert_string_equal(buf, "Interpreter [jit]");
	wperf_symbolize_user(s, getpid(), JIT_BASE + 0x210, buf, sizeof(buf));
	assert_string_equal(buf, "new code [jit]"); /* the later line wins */
	wperf_symbolize_user(s, getpid(), JIT_BASE + 0x180, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown 0x10180]"); /* a gap */
	wperf_symbolize_user(s, getpid(), JIT_BASE + 0x300, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown 0x10300]"); /* size 0 */
	done(s, t);
}

static void test_unknown(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	char buf[256];

	(void)state;
	wperf_symbolize_user(s, getpid(), 0x20, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown 0x20]");
	wperf_symbolize_user(s, UNKNOWN_TGID, g.ret_addr, buf, sizeof(buf));
	snprintf(buf + 128, 128, "[unknown 0x%" PRIx64 "]", g.ret_addr);
	assert_string_equal(buf, buf + 128);
	done(s, t);
}

static void test_stacks(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	char buf[1024], fs[256], want[1024];

	(void)state;
	wperf_symbolize_user(s, getpid(), g.fsync_addr, fs, sizeof(fs));
	/* Frames past the first are return addresses: the line is the call's. */
	snprintf(want, sizeof(want),
		 "%s <- tsym_known (test_symbolize.c:%d) <- java.io.FileChannel.force [jit]", fs,
		 known_line);
	wperf_symbolize_stack(s, STACK_ID, 1, getpid(), " <- ", 0, buf, sizeof(buf));
	assert_string_equal(buf, want);
	*strstr(want, " <- java") = '\0';
	wperf_symbolize_stack(s, STACK_ID, 1, getpid(), " <- ", 2, buf, sizeof(buf));
	assert_string_equal(buf, want);

	wperf_symbolize_stack(s, STACK_ID, 0, 0, ";", 0, buf, sizeof(buf));
	assert_string_equal(buf, "do_fsync+0x2a;vfs_fsync_range+0x10;[kernel 0xffffffff81000000]");
	wperf_symbolize_stack(s, STACK_ID, 0, 0, ";", 1, buf, sizeof(buf));
	assert_string_equal(buf, "do_fsync+0x2a");
	wperf_symbolize_stack(s, STACK_ID, 0, 0, ";", 0, buf, 12); /* truncated */
	assert_string_equal(buf, "do_fsync+0x");

	/* the walk ends at the first return address in no mapping: want is the
	 * stack's first two frames still */
	wperf_symbolize_stack(s, GARBAGE_ID, 1, getpid(), " <- ", 0, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(
	    wperf_symbolize_user_depth(s, getpid(), wperf_trace_stack(t, GARBAGE_ID, 1)), 2);
	assert_int_equal(wperf_symbolize_user_depth(s, getpid(), wperf_trace_stack(t, STACK_ID, 1)),
			 3);

	wperf_symbolize_stack(s, 99, 1, getpid(), ";", 0, buf, sizeof(buf));
	assert_string_equal(buf, "[no stack]");
	wperf_symbolize_stack(s, -1, 0, 0, ";", 0, buf, sizeof(buf));
	assert_string_equal(buf, "[no stack]");
	done(s, t);
}

/* Thousands of distinct frames grow the cache; each comes back the same. */
static void test_cache(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s = open_symbolizer(&t);
	uint64_t base = g.exe->start;
	size_t n = g.exe->end - g.exe->start < 5000 ? g.exe->end - g.exe->start : 5000;
	char a[256], b[256];

	(void)state;
	for (size_t i = 0; i < n; i++) {
		wperf_symbolize_user(s, getpid(), base + i, a, sizeof(a));
		assert_true(a[0] != '\0');
	}
	for (size_t i = 0; i < n; i += 7) {
		wperf_symbolize_user(s, getpid(), base + i, a, sizeof(a));
		wperf_symbolize_user(s, getpid(), base + i, b, sizeof(b));
		assert_string_equal(a, b);
	}
	wperf_symbolize_user(s, getpid(), g.ret_addr - 1, a, 6); /* truncated */
	assert_string_equal(a, "tsym_");
	done(s, t);
}

static size_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* The descriptors open on files (not sockets nor pipes: libdwfl's debuginfod
 * client may hold a pair of sockets for each session). */
static size_t open_files(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char target[PATH_MAX];
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		ssize_t len = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);

		n += len > 0 && target[0] == '/';
	}
	closedir(d);
	return n;
}

/* Many processes mapping the same files at other addresses: each file is
 * opened once, whatever the number of processes, and each address is found
 * in it by its own mapping's place. */
static void test_many_processes(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s;
	size_t fds = open_fds(), files = open_files();
	const char *want = known_frame();
	char buf[256];

	(void)state;
	s = open_symbolizer(&t);
	for (uint32_t p = 0; p < MANY_PROCS; p++) {
		uint64_t shift = p * COPY_SHIFT;

		/* One frame in every mapping: each process uses all its files. */
		for (size_t i = 0; i < g.nmaps; i++)
			wperf_symbolize_user(s, MANY_TGID + p, g.maps[i].start + shift, buf,
					     sizeof(buf));
		wperf_symbolize_user(s, MANY_TGID + p, g.ret_addr - 1 + shift, buf, sizeof(buf));
		assert_string_equal(buf, want);
		wperf_symbolize_user(s, MANY_TGID + p, g.fsync_addr + shift, buf, sizeof(buf));
		assert_prefix(buf, "fsync (");
		/* Each file and maybe its debug file, once. */
		assert_true(open_files() <= files + 1 + 2 * g.nmaps);
	}
	done(s, t);
	assert_int_equal(open_fds(), fds); /* every file closed */
}

/* More files than stay open: the least recently used are closed, and
 * reopened when one of their frames is asked for again. */
static void test_many_files(void **state)
{
	struct wperf_trace *t;
	struct wperf_symbolizer *s;
	size_t fds = open_fds(), files = open_files();
	const char *want = known_frame();
	char buf[256];

	(void)state;
	s = open_symbolizer(&t);
	for (int round = 0; round < 2; round++) {
		for (uint32_t p = 0; p < NAMES; p++) {
			wperf_symbolize_user(s, NAMES_TGID + p, g.ret_addr - 1 - round, buf,
					     sizeof(buf));
			assert_prefix(buf, "tsym_known (test_symbolize.c:");
			if (!round)
				assert_string_equal(buf, want);
			/* Each file and maybe its debug file: 64 at most. */
			assert_true(open_files() <= files + 1 + 2 * 64);
		}
	}
	done(s, t);
	assert_int_equal(open_fds(), fds);
}

/* ---- other layouts: a program built by the test, run, and read from outside ---- */

#define FIXTURE_WORK_LINE 3
static const char fixture_src[] =
    "#include <stdio.h>\n"
    "#include <unistd.h>\n"
    "__attribute__((noinline)) int work(int x) { return printf(\"%p\\n\", (void *)&work) + x; }\n"
    "int main(void) { char c; work(0); fflush(stdout); return (int)read(0, &c, 1); }\n";

/*
 * Builds the fixture with the compiler command cc, runs it, reads its mappings
 * from /proc/PID/maps as the recorder does, and symbolizes the address of its
 * work() that it prints. Skips when the compiler (or linker) is not installed.
 */
static void check_fixture(const char *name, const char *cc)
{
	char src[128], bin[128], trace[160], cmd[512], line[64], path[64], buf[256];
	struct self_map *maps = calloc(64, sizeof(*maps));
	struct wperf_mapping wm[64];
	struct wperf_trace_writer *w;
	struct wperf_symbolizer *s;
	struct wperf_trace *t;
	struct wperf_error err = {0};
	int in[2], out[2], fd;
	uint64_t work;
	size_t n;
	pid_t pid;
	FILE *f;

	assert_non_null(maps);
	snprintf(src, sizeof(src), "%s/fixture.c", g.dir);
	snprintf(bin, sizeof(bin), "%s/%s", g.dir, name);
	snprintf(trace, sizeof(trace), "%s/%s.trace", g.dir, name);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs(fixture_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -O1 -g -o %s %s >/dev/null 2>&1", cc, bin, src);
	if (system(cmd) != 0) {
		free(maps);
		skip(); /* no such compiler here */
	}

	/* Run it: it prints &work, then waits for its stdin to close. */
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execl(bin, bin, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	work = strtoull(line, NULL, 16);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	n = read_maps(path, maps, 64);
	close(in[1]);
	fclose(f);
	waitpid(pid, NULL, 0);

	for (size_t i = 0; i < n; i++)
		wm[i] = to_mapping(&maps[i], (uint32_t)pid);
	fd = open(trace, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(wperf_trace_writer_new(fd, NULL, &w, &err), 0);
	assert_int_equal(wperf_trace_writer_mappings(w, wm, n, &err), 0);
	assert_int_equal(wperf_trace_writer_finish(w, NULL, &err), 0);
	wperf_trace_writer_free(w);
	close(fd);

	if (wperf_trace_open(trace, &t, &err))
		fail_msg("open: %s", err.msg);
	assert_int_equal(wperf_symbolizer_new(t, &s, &err), 0);
	wperf_symbolize_user(s, (uint32_t)pid, work, buf, sizeof(buf));
	snprintf(line, sizeof(line), "work (fixture.c:%d)", FIXTURE_WORK_LINE);
	assert_string_equal(buf, line);
	wperf_symbolize_user(s, (uint32_t)pid, work + 4, buf, sizeof(buf));
	assert_string_equal(buf, line);
	done(s, t);
	free(maps);
	unlink(trace);
	unlink(bin);
	unlink(src);
}

/* A non-PIE executable (ET_EXEC): not relocated. */
static void test_fixture_no_pie(void **state)
{
	(void)state;
	check_fixture("nopie", "cc -no-pie");
}

/*
 * lld puts the executable segment at p_vaddr = p_offset + 0x1000 (pgoff 0), and
 * clang emits no .debug_aranges: the bias must come from the program headers, and
 * the line from walking the compile units.
 */
static void test_fixture_lld(void **state)
{
	(void)state;
	check_fixture("lld", "clang -fPIE -pie -fuse-ld=lld");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_own_function),
	    cmocka_unit_test(test_libc),
	    cmocka_unit_test(test_no_line_info),
	    cmocka_unit_test(test_wrong_build_id),
	    cmocka_unit_test(test_debug_file),
	    cmocka_unit_test(test_kernel),
	    cmocka_unit_test(test_jit),
	    cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_stacks),
	    cmocka_unit_test(test_cache),
	    cmocka_unit_test(test_many_processes),
	    cmocka_unit_test(test_many_files),
	    cmocka_unit_test(test_fixture_no_pie),
	    cmocka_unit_test(test_fixture_lld),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
