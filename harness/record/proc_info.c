/* SPDX-License-Identifier: MIT */
/*
 * Reading /proc for the trace's tables. Every reader here tolerates processes
 * that exit while they are being read: a vanished process is skipped, never an
 * error for the recording.
 */
#include "harness/record/proc_info.h"

#include "core/trace/meta.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

int proc_is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

int proc_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

uint32_t proc_stat_ppid(const char *stat)
{
	/* The name may hold spaces and parentheses: the last ")" ends it. */
	const char *p = strrchr(stat, ')');
	char *end;
	unsigned long ppid;

	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ' || !isdigit((unsigned char)p[4]))
		return 0;
	errno = 0;
	ppid = strtoul(p + 4, &end, 10);
	if (errno || ppid > UINT32_MAX || (*end && *end != ' '))
		return 0;
	return (uint32_t)ppid;
}

/* The parent process of tgid, from /proc/TGID/stat. */
static uint32_t read_ppid(const char *tgid)
{
	char path[300], stat[512];

	snprintf(path, sizeof(path), "/proc/%s/stat", tgid);
	if (proc_read_small(path, stat, sizeof(stat)) < 0)
		return 0;
	return proc_stat_ppid(stat);
}

/* Is tgid among the n of set? */
static int among(const uint32_t *set, size_t n, uint32_t tgid)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == tgid)
			return 1;
	return 0;
}

int proc_descendants(const uint32_t *roots, size_t n, struct wperf_buf *out)
{
	struct wperf_buf all = {0}; /* uint32_t pairs: tgid, ppid */
	DIR *procs = opendir("/proc");
	struct dirent *pe;
	size_t start = out->len, added = 1;
	int err = procs ? 0 : -errno;

	while (!err && (pe = readdir(procs))) {
		uint32_t pair[2];

		if (!proc_is_number(pe->d_name))
			continue;
		pair[0] = (uint32_t)strtoul(pe->d_name, NULL, 10);
		pair[1] = read_ppid(pe->d_name);
		err = wperf_buf_append(&all, pair, sizeof(pair));
	}
	if (procs)
		closedir(procs);
	/* Generation by generation, until none is added. */
	while (!err && added) {
		const uint32_t *p = (const uint32_t *)(void *)all.data;

		added = 0;
		for (size_t i = 0; !err && i < all.len / (2 * sizeof(uint32_t)); i++) {
			const uint32_t *found = (const uint32_t *)(void *)(out->data + start);
			size_t nfound = (out->len - start) / sizeof(uint32_t);

			if (among(roots, n, p[2 * i]) || among(found, nfound, p[2 * i]) ||
			    !(among(roots, n, p[2 * i + 1]) || among(found, nfound, p[2 * i + 1])))
				continue;
			err = wperf_buf_append(out, &p[2 * i], sizeof(uint32_t));
			added++;
		}
	}
	wperf_buf_release(&all);
	return err;
}

/* A process and its control group, for proc_cgroups. */
struct proc_group {
	char path[256];
	uint32_t tgid;
};

static int by_group(const void *a, const void *b)
{
	const struct proc_group *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

/* The groups of process tgid, one per distinct path over its hierarchies
 * (cgroup v2's "0::PATH", and v1's "ID:CONTROLLERS:PATH"), appended to all;
 * nothing when it is gone. 0 or -ENOMEM. */
static int read_groups(const char *tgid, struct wperf_buf *all)
{
	char file[300], text[4096];
	size_t first = all->len;
	int err = 0;

	snprintf(file, sizeof(file), "/proc/%s/cgroup", tgid);
	if (proc_read_small(file, text, sizeof(text)) < 0)
		return 0;
	for (char *line = text, *next; line && *line && !err; line = next) {
		char *path = strchr(line, ':');
		const struct proc_group *had =
		    (const struct proc_group *)(void *)(all->data + first);
		struct proc_group pg = {.tgid = (uint32_t)strtoul(tgid, NULL, 10)};
		size_t n = (all->len - first) / sizeof(pg), k = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		path = path ? strchr(path + 1, ':') : NULL;
		if (!path)
			continue;
		snprintf(pg.path, sizeof(pg.path), "%s", path + 1);
		while (k < n && strcmp(had[k].path, pg.path))
			k++;
		if (k == n)
			err = wperf_buf_append(all, &pg, sizeof(pg));
	}
	return err;
}

int proc_cgroups(struct wperf_buf *out)
{
	struct wperf_buf all = {0}; /* struct proc_group */
	DIR *procs = opendir("/proc");
	struct dirent *pe;
	const struct proc_group *g;
	size_t n;
	int err = procs ? 0 : -errno;

	while (!err && (pe = readdir(procs))) {
		if (proc_is_number(pe->d_name))
			err = read_groups(pe->d_name, &all);
	}
	if (procs)
		closedir(procs);
	g = (const struct proc_group *)(void *)all.data;
	n = all.len / sizeof(*g);
	if (n)
		qsort(all.data, n, sizeof(*g), by_group);
	for (size_t i = 0; !err && i < n; i++) {
		int first = !i || strcmp(g[i].path, g[i - 1].path);

		err = wperf_buf_printf(out, "%s%s%s%u", first && i ? "\n" : "",
				       first ? g[i].path : "", first ? "\t" : ",", g[i].tgid);
	}
	if (!err)
		err = wperf_buf_append(out, "", 1);
	wperf_buf_release(&all);
	return err;
}

int proc_threads_snapshot(struct wperf_buf *out)
{
	DIR *procs = opendir("/proc");
	struct dirent *pe, *te;
	char path[600];
	int err = 0;

	if (!procs)
		return -errno;
	while (!err && (pe = readdir(procs))) {
		DIR *tasks;
		uint32_t ppid;

		if (!proc_is_number(pe->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", pe->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue; /* exited meanwhile */
		ppid = read_ppid(pe->d_name);
		while (!err && (te = readdir(tasks))) {
			struct wperf_thread t = {0};

			if (!proc_is_number(te->d_name))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", pe->d_name,
				 te->d_name);
			if (proc_read_small(path, t.comm, sizeof(t.comm)) < 0)
				continue;
			t.tid = strtoul(te->d_name, NULL, 10);
			t.tgid = strtoul(pe->d_name, NULL, 10);
			t.ppid = ppid;
			err = wperf_buf_append(out, &t, sizeof(t));
		}
		closedir(tasks);
	}
	closedir(procs);
	return err;
}

/* ---- mappings and build ids ---- */

struct build_id_entry {
	char *path;
	uint8_t len;
	uint8_t id[20];
};

void proc_mappings_init(struct proc_mappings *pm)
{
	memset(pm, 0, sizeof(*pm));
	elf_version(EV_CURRENT); /* libelf wants it once before any elf_begin */
}

/* The GNU build id of an ELF file; 0 bytes when it has none or is not ELF. */
static uint8_t read_build_id(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const void *note;
	ssize_t n = 0;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		n = dwelf_elf_gnu_build_id(elf, &note);
		if (n > 20 || n < 0)
			n = 0;
		if (n > 0)
			memcpy(id, note, n);
		elf_end(elf);
	}
	close(fd);
	return (uint8_t)n;
}

/* The cached build id of path (as seen from the process's root, in file). */
static const struct build_id_entry *build_id_of(struct proc_mappings *pm, const char *path,
						const char *file)
{
	struct build_id_entry *c = (struct build_id_entry *)pm->build_ids.data;
	size_t n = pm->build_ids.len / sizeof(*c);
	struct build_id_entry e = {0};

	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].path, path))
			return &c[i];
	e.path = strdup(path);
	if (!e.path)
		return NULL;
	e.len = read_build_id(file, e.id);
	if (wperf_buf_append(&pm->build_ids, &e, sizeof(e)) < 0) {
		free(e.path);
		return NULL;
	}
	return (struct build_id_entry *)(pm->build_ids.data + pm->build_ids.len) - 1;
}

int proc_mappings_append(struct proc_mappings *pm, const struct wperf_mapping *m, const char *file)
{
	struct wperf_mapping copy = *m;

	if (!copy.build_id_len) {
		const struct build_id_entry *b = build_id_of(pm, m->path, file ? file : m->path);

		if (b) {
			copy.build_id_len = b->len;
			memcpy(copy.build_id, b->id, b->len);
		}
	}
	copy.path = strdup(m->path);
	if (!copy.path || wperf_buf_append(&pm->mappings, &copy, sizeof(copy)) < 0) {
		free((char *)copy.path);
		return -ENOMEM;
	}
	return 0;
}

int proc_maps_line(char *line, struct wperf_mapping *m)
{
	unsigned long long start, end, pgoff;
	char perms[8];
	int pos = 0;
	char *name;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &pos) != 4 ||
	    strlen(perms) != 4 || perms[2] != 'x')
		return 0;
	name = line + pos;
	name[strcspn(name, "\n")] = '\0';
	if (name[0] != '/')
		return 0; /* anonymous, [vdso], JIT code: the perf map covers JITs */
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->path = name;
	return 1;
}

int proc_mappings_add(struct proc_mappings *pm, pid_t tgid)
{
	char path[64], line[4096 + 128], file[4096 + 64];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tgid);
	f = fopen(path, "re");
	if (!f) {
		pm->missed++;
		return -ESRCH;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		struct wperf_mapping m = {.tgid = tgid};

		if (!proc_maps_line(line, &m))
			continue;
		/* The process may live in another mount namespace: read through its root. */
		snprintf(file, sizeof(file), "/proc/%d/root%s", (int)tgid, m.path);
		err = proc_mappings_append(pm, &m, file);
	}
	fclose(f);
	return err;
}

void proc_mappings_release(struct proc_mappings *pm)
{
	struct wperf_mapping *m = (struct wperf_mapping *)pm->mappings.data;
	struct build_id_entry *c = (struct build_id_entry *)pm->build_ids.data;

	for (size_t i = 0; i < pm->mappings.len / sizeof(*m); i++)
		free((char *)m[i].path);
	for (size_t i = 0; i < pm->build_ids.len / sizeof(*c); i++)
		free(c[i].path);
	wperf_buf_release(&pm->mappings);
	wperf_buf_release(&pm->build_ids);
}

int meta_entry_add(struct wperf_buf *entries, const char *key, const char *value)
{
	struct meta_entry e = {.value = strdup(value)};

	snprintf(e.key, sizeof(e.key), "%s", key);
	if (!e.value || wperf_buf_append(entries, &e, sizeof(e))) {
		free(e.value);
		return -ENOMEM;
	}
	return 0;
}

void meta_entries_release(struct wperf_buf *entries)
{
	struct meta_entry *e = (struct meta_entry *)entries->data;

	for (size_t i = 0; i < entries->len / sizeof(*e); i++)
		free(e[i].value);
	wperf_buf_release(entries);
}

int proc_net_meta(struct wperf_buf *entries)
{
	DIR *d = opendir("/sys/class/net");
	struct dirent *de;
	int ret = 0;

	while (d && !ret && (de = readdir(d))) {
		char path[300], ifindex[32], speed[32], key[48], bps[32];
		long mbps;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", de->d_name);
		if (proc_read_small(path, ifindex, sizeof(ifindex)) < 0)
			continue;
		snprintf(key, sizeof(key), WPERF_META_NET_NAME(".30s"), ifindex);
		ret = meta_entry_add(entries, key, de->d_name);
		/* Mbit/s; -1 or an error for links that do not know their speed. */
		snprintf(path, sizeof(path), "/sys/class/net/%s/speed", de->d_name);
		if (ret || proc_read_small(path, speed, sizeof(speed)) < 0 ||
		    (mbps = strtol(speed, NULL, 10)) <= 0)
			continue;
		snprintf(key, sizeof(key), WPERF_META_NET_SPEED_BPS(".30s"), ifindex);
		snprintf(bps, sizeof(bps), "%lld", (long long)mbps * 1000000);
		ret = meta_entry_add(entries, key, bps);
	}
	if (d)
		closedir(d);
	return ret;
}

int proc_perfmap_read(pid_t tgid, char **text, size_t *len)
{
	struct wperf_buf b = {0};
	char path[96], chunk[65536];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", (int)tgid, (int)tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && !err)
		err = wperf_buf_append(&b, chunk, n);
	if (n < 0)
		err = -errno;
	close(fd);
	if (!err)
		err = wperf_buf_append(&b, "", 1); /* NUL for the reader's convenience */
	if (err) {
		wperf_buf_release(&b);
		return err;
	}
	*text = (char *)b.data;
	*len = b.len - 1;
	return 0;
}

/* ---- kernel symbols ---- */

struct ksym {
	unsigned long long addr;
	char *name;
};

struct ksym_table {
	struct ksym *syms;
	size_t n;
	struct wperf_buf names; /* the names, NUL-separated */
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * A line of /proc/kallsyms, "ADDR TYPE NAME [MODULE]": the address and the
 * name (ended in place) of a text symbol; 0 for any other line. By hand, not
 * sscanf: a kernel has a hundred thousand lines or more, and every recording
 * reads them all.
 */
static int ksym_parse(char *line, unsigned long long *addr, const char **name)
{
	char *p, *end;

	*addr = strtoull(line, &p, 16);
	if (p == line || *addr == 0 || p[0] != ' ' || !p[1] || p[2] != ' ')
		return 0;
	if (p[1] != 't' && p[1] != 'T' && p[1] != 'w' && p[1] != 'W')
		return 0;
	*name = p + 3;
	end = p + 3 + strcspn(p + 3, " \t\n");
	*end = '\0';
	return end > p + 3;
}

int ksym_table_load(struct ksym_table **out)
{
	struct ksym_table *t = calloc(1, sizeof(*t));
	struct wperf_buf offsets = {0}; /* struct ksym with name as an offset */
	char line[512];
	FILE *f;
	int err = 0;

	if (!t)
		return -ENOMEM;
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		err = -errno;
		free(t);
		return err;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		const char *name;
		struct ksym k;

		if (!ksym_parse(line, &addr, &name))
			continue;
		k.addr = addr;
		k.name = (char *)(uintptr_t)t->names.len;
		err = wperf_buf_append(&offsets, &k, sizeof(k));
		if (!err)
			err = wperf_buf_append_str(&t->names, name);
	}
	fclose(f);
	if (err) {
		wperf_buf_release(&offsets);
		ksym_table_free(t);
		return err;
	}
	/* Names are appended to one buffer that moves as it grows: fix them up last. */
	t->syms = (struct ksym *)offsets.data;
	t->n = offsets.len / sizeof(struct ksym);
	for (size_t i = 0; i < t->n; i++)
		t->syms[i].name = (char *)t->names.data + (uintptr_t)t->syms[i].name;
	qsort(t->syms, t->n, sizeof(*t->syms), ksym_cmp);
	*out = t;
	return 0;
}

void ksym_table_resolve(const struct ksym_table *t, unsigned long long addr, char *buf, size_t size)
{
	size_t lo = 0, hi = t ? t->n : 0;

	/* The last symbol at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0) {
		snprintf(buf, size, "0x%llx", addr);
		return;
	}
	snprintf(buf, size, "%s+0x%llx", t->syms[lo - 1].name, addr - t->syms[lo - 1].addr);
}

void ksym_table_free(struct ksym_table *t)
{
	if (!t)
		return;
	free(t->syms);
	wperf_buf_release(&t->names);
	free(t);
}
