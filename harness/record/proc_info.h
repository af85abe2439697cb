/* SPDX-License-Identifier: MIT */
/*
 * What a trace needs from /proc, read while the processes still live: the
 * thread table, the executable mappings of a process with the build ids of
 * their files, a JIT's perf map, and the kernel's symbols.
 */
#ifndef WPERF_PROC_INFO_H
#define WPERF_PROC_INFO_H

#include <stddef.h>
#include <sys/types.h>

#include "core/util/buf.h"
#include "core/trace/trace.h"

/* Is s a non-empty string of digits (a pid, in a /proc listing)? */
int proc_is_number(const char *s);

/* Reads a small /proc or /sys file into buf (NUL-terminated, trailing newline
 * cut); 0 or a negative errno. */
int proc_read_small(const char *path, char *buf, size_t size);

/* Appends a struct wperf_thread for every thread of the machine to out. */
int proc_threads_snapshot(struct wperf_buf *out);

/*
 * Appends to out (uint32_t tgids) every live process that descends from one
 * of the n roots (not the roots themselves): children, theirs, and so on, by
 * their parents now (a daemon whose parent exited is init's, not a root's).
 * 0 or a negative errno.
 */
int proc_descendants(const uint32_t *roots, size_t n, struct wperf_buf *out);

/*
 * The control groups of every process (/proc/PID/cgroup: cgroup v2's path,
 * and each v1 hierarchy's), appended to out as text: a line
 * "PATH<TAB>PID[,PID...]" per path, by path, NUL-terminated; a process is
 * under each distinct path it has. 0 or a negative errno.
 */
int proc_cgroups(struct wperf_buf *out);

/*
 * The parent process in the text of /proc/TGID/stat ("PID (NAME) STATE PPID
 * ..."), or 0 when the text is not that.
 */
uint32_t proc_stat_ppid(const char *stat);

/*
 * The mappings of processes, each with its file's build id. Owns the paths of
 * the struct wperf_mapping entries in mappings and a cache of build ids by path.
 */
struct proc_mappings {
	struct wperf_buf mappings;  /* struct wperf_mapping[] */
	struct wperf_buf build_ids; /* struct build_id_entry[], the cache */
	size_t missed;		    /* processes gone before their mappings were read */
};

void proc_mappings_init(struct proc_mappings *pm);
/*
 * Appends a copy of m (its path copied). Without a build id in m, the build id
 * is read from file (or m->path when file is NULL), once per path. 0 or -ENOMEM.
 */
int proc_mappings_append(struct proc_mappings *pm, const struct wperf_mapping *m, const char *file);
/*
 * Parses one NUL-terminated line of /proc/PID/maps, cutting the newline at its
 * end: 1 with m's start, end, pgoff and path (pointing into line) for an
 * executable mapping of a file, 0 for any other line.
 */
int proc_maps_line(char *line, struct wperf_mapping *m);
/* Appends the executable file mappings of tgid; returns 0, or -ESRCH if it is gone. */
int proc_mappings_add(struct proc_mappings *pm, pid_t tgid);
void proc_mappings_release(struct proc_mappings *pm);

/* A META entry read off the machine (device_irqs.h, proc_net_meta): key =
 * value, collected in a struct wperf_buf of them, as many as there are. The
 * buffer owns each value: meta_entries_release frees them with it. */
struct meta_entry {
	char key[48];
	char *value;
};

/* Appends key (cut to its field's size) = a copy of value to entries; 0 or
 * -ENOMEM. */
int meta_entry_add(struct wperf_buf *entries, const char *key, const char *value);

void meta_entries_release(struct wperf_buf *entries);

/*
 * META entries naming the network interfaces, so the analysis can model their
 * capacity: net.IFINDEX.name and, where the link reports a speed (physical
 * NICs do, virtual ones often not), net.IFINDEX.speed_bps, appended to entries
 * (struct meta_entry); 0 or -ENOMEM.
 */
int proc_net_meta(struct wperf_buf *entries);

/* Reads /tmp/perf-TGID.map (as the process sees /tmp) into a malloc'd buffer. */
int proc_perfmap_read(pid_t tgid, char **text, size_t *len);

/* The kernel's text symbols from /proc/kallsyms, sorted by address. */
struct ksym_table;

int ksym_table_load(struct ksym_table **out);
/* Formats addr as "function+0xoffset" (or "0xaddr" when unknown) into buf. */
void ksym_table_resolve(const struct ksym_table *t, unsigned long long addr, char *buf,
			size_t size);
void ksym_table_free(struct ksym_table *t);

#endif /* WPERF_PROC_INFO_H */
