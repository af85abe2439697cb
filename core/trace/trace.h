/* SPDX-License-Identifier: MIT */
/*
 * The wperf trace file: writer and reader. The format is documented for people in
 * docs/trace-format.md; this header is its definition for the code.
 *
 * File     := FileHeader Section* EndSection
 * FileHeader (16 bytes): "WPERFTRC", u16 major, u16 minor, u32 header size (16).
 * Section  := SectionHeader payload
 * SectionHeader (32 bytes): u32 kind, u32 flags, u64 stored size, u64 raw size,
 *             u32 crc32 (zlib) of the stored payload, u32 reserved (0).
 * All integers are little-endian. A payload with WPERF_SECTION_ZSTD is one zstd
 * frame that decompresses to raw size bytes; otherwise stored size == raw size.
 *
 * A reader rejects a file that has no END section (the recording did not finish),
 * a bad CRC, a section running past the end of the file, or a record running past
 * its section, each with the byte offset where it found the problem.
 */
#ifndef WPERF_TRACE_H
#define WPERF_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/wperf_event.h"
#include "core/util/error.h"

#define WPERF_TRACE_MAGIC	  "WPERFTRC"
#define WPERF_TRACE_MAJOR	  1 /* a reader refuses other majors */
#define WPERF_TRACE_MINOR	  3 /* readers accept any minor: additions only */
#define WPERF_TRACE_HEADER_SIZE	  16
#define WPERF_SECTION_HEADER_SIZE 32

/* Section kinds: never renumber. Readers skip kinds they do not know. */
enum wperf_section_kind {
	WPERF_SECTION_META = 1,	    /* key\0value\0 pairs: kernel, ncpu, clock, command, ... */
	WPERF_SECTION_EVENTS = 2,   /* a batch of event records, see below */
	WPERF_SECTION_THREADS = 3,  /* thread table */
	WPERF_SECTION_STACKS = 4,   /* stack table */
	WPERF_SECTION_MAPPINGS = 5, /* executable mappings of the processes seen */
	WPERF_SECTION_KSYMS = 6,    /* kernel symbols of the kernel frames in stacks */
	WPERF_SECTION_PERFMAP = 7,  /* a JIT's /tmp/perf-PID.map, verbatim */
	WPERF_SECTION_STATS = 8,    /* window, drops, counts */
	WPERF_SECTION_END = 9,	    /* last section: the file is complete */
	WPERF_SECTION_COUNTERS =
	    10, /* the kernel's own counters, read at the window's start or end */
	WPERF_SECTION_STACK_COPIES = 11, /* user stacks copied for offline unwinding (1.3) */
};

#define WPERF_SECTION_ZSTD 0x1 /* flags: the payload is zstd-compressed */

/*
 * EVENTS payload: uvarint record count, u64 base timestamp, then the records.
 * Record := u8 kind, u8 body length, body. Body := svarint ts delta (from the
 * previous record of the section, the first from the base), uvarint cpu, u8 flags,
 * uvarint tid, uvarint tgid, then the fields of its kind, as the table of event
 * kinds lists them (core/trace/event_kinds.h, and docs/trace-format.md's table).
 * A reader skips the body of a kind it does not know, and ignores bytes left at
 * the end of a body it does know (later minors may append fields). 1.2 added
 * the kinds BLOCK_START and BLOCK_DONE, and rq and jiffies to BLOCK_* bodies.
 */

/* One thread of the THREADS table: as first seen (snapshot or fork). */
struct wperf_thread {
	uint32_t tid;
	uint32_t tgid;
	uint32_t ppid;		   /* the parent process's tgid, 0 if unknown */
	char comm[WPERF_COMM_LEN]; /* the thread's name, NUL-terminated */
	/* Not in the file: the name its process had when it started its program
	 * (an EXEC in the trace; its parent's at a FORK), its executable's; ""
	 * when the trace did not see it start (wperf_thread_table). */
	char exe[WPERF_COMM_LEN];
};

/* One stack of the STACKS table, referenced by events through id. */
struct wperf_stack {
	int32_t id;
	uint8_t user; /* 1: user stack (symbolize with the process's mappings) */
	uint32_t nr;  /* frames, innermost first */
	const uint64_t *ips;
};

/* An executable file mapping of a process, snapshotted while the process lived. */
struct wperf_mapping {
	uint32_t tgid;
	uint64_t start, end, pgoff;
	uint8_t build_id_len; /* 0: none found */
	uint8_t build_id[20];
	const char *path;
};

/*
 * The top of a user stack copied with the user registers (record --stacks
 * dwarf, trace format 1.3; struct wperf_stack_copy_raw says what each field
 * holds). The analysis unwinds it into the user stack of the same id
 * (wperf_unwind_copies, core/analysis/symbolize.h); the STACKS table has no
 * stack under that id.
 */
struct wperf_stack_copy {
	int32_t id;
	uint32_t tgid, tid;
	uint32_t nregs; /* WPERF_COPY_REGS at most */
	uint64_t ip, base;
	uint64_t regs[WPERF_COPY_REGS];
	uint32_t size;
	const uint8_t *bytes;
};

/* A kernel address seen in a stack, resolved at recording time. */
struct wperf_ksym {
	uint64_t addr;
	const char *name; /* "function+0xoffset" */
};

/* A JIT's perf map of one process, copied verbatim. */
struct wperf_perfmap {
	uint32_t tgid;
	const char *text;
	size_t len;
};

/*
 * The kernel's own counters, read by the recorder as the window starts and as
 * it ends (trace format 1.1): what the model of the trace is checked against
 * (core/analysis/checks.h). Fields are the kernel's, in its order and units; arrays
 * hold what was read, which a later kernel may make longer.
 */
enum wperf_counters_when {
	WPERF_COUNTERS_START = 0, /* read as the window starts */
	WPERF_COUNTERS_END = 1,	  /* read as it ends */
};

/* flags of struct wperf_counters */
#define WPERF_COUNTERS_WHOLE_MACHINE 0x1 /* recorded without -p: every switch of every CPU */

/* Where the kernel counts interrupt time (CONFIG_IRQ_TIME_ACCOUNTING). */
enum wperf_irq_time {
	WPERF_IRQ_TIME_IN_THREAD = 0, /* off: in the running time of the thread interrupted */
	WPERF_IRQ_TIME_APART = 1,     /* on: apart, as irq and softirq time */
	WPERF_IRQ_TIME_UNKNOWN = 2,   /* the kernel's configuration was not found */
};

/* /sys/block/NAME/stat of a whole disk (Documentation/admin-guide/iostats.rst). */
enum {
	WPERF_DISK_READS = 0,
	WPERF_DISK_READ_SECTORS = 2,
	WPERF_DISK_WRITES = 4,
	WPERF_DISK_WRITE_SECTORS = 6,
	WPERF_DISK_IN_FLIGHT = 8,	 /* requests in flight as it was read */
	WPERF_DISK_IO_TICKS = 9,	 /* ms with a request in flight: iostat's %util */
	WPERF_DISK_DISCARD_SECTORS = 13, /* kernels from 4.18 on */
	WPERF_DISK_FLUSHES = 15,	 /* kernels from 5.5 on */
};

struct wperf_disk_counters {
	uint32_t major, minor; /* dev_t: the trace's disk:MAJOR:MINOR */
	const char *name;      /* "vda" */
	uint32_t nfields;      /* 11, 15 or 17, as the kernel wrote them */
	const uint64_t *fields;
};

/* The disk's device as the trace's BLOCK events name it (disk:MAJOR:MINOR):
 * the kernel's dev_t, major << 20 | minor. */
static inline uint32_t wperf_disk_counters_dev(const struct wperf_disk_counters *d)
{
	return d->major << 20 | (d->minor & 0xfffff);
}

/* /proc/net/dev of an interface: receive bytes, packets, errs, drop, fifo, frame,
 * compressed, multicast, then transmit bytes, packets, errs, drop, fifo, colls,
 * carrier, compressed. */
enum {
	WPERF_NIC_RX_BYTES = 0,
	WPERF_NIC_RX_PACKETS = 1,
	WPERF_NIC_TX_BYTES = 8,
	WPERF_NIC_TX_PACKETS = 9,
};

struct wperf_nic_counters {
	uint32_t ifindex; /* the trace's NET events and META net.IFINDEX.name */
	uint32_t type;	  /* ARPHRD_*: 1 Ethernet, 772 loopback (/sys/class/net/NAME/type) */
	const char *name;
	uint32_t nfields;
	const uint64_t *fields;
};

/* A cpuN line of /proc/stat, in USER_HZ ticks: user, nice, system, idle, iowait,
 * irq, softirq, steal, guest, guest_nice. */
enum {
	WPERF_CPU_USER = 0,
	WPERF_CPU_SYSTEM = 2,
	WPERF_CPU_IDLE = 3,
	WPERF_CPU_IOWAIT = 4,
	WPERF_CPU_IRQ = 5,
	WPERF_CPU_SOFTIRQ = 6,
	WPERF_CPU_STEAL = 7,
};

struct wperf_cpu_counters {
	uint32_t cpu;
	uint32_t nfields;
	const uint64_t *fields;
};

/* A row of /proc/interrupts or /proc/softirqs: its counts on each CPU. */
struct wperf_irq_counters {
	const char *name; /* "24", "LOC", "TIMER", ... */
	const char *desc; /* the rest of the row ("IO-APIC 5-edge ACPI:Ged"), may be "" */
	uint32_t ncpu;
	const uint64_t *counts;
};

/* /proc/PID/task/TID/schedstat of a thread, and when it was read. */
struct wperf_thread_counters {
	uint32_t tid, tgid;
	uint64_t ts;	  /* CLOCK_MONOTONIC ns, just before the read */
	uint64_t run_ns;  /* on a CPU (se.sum_exec_runtime; as of its last tick or switch) */
	uint64_t wait_ns; /* runnable on a run queue, counted when the wait ends */
	uint64_t slices;  /* times it got a CPU */
};

struct wperf_counters {
	uint32_t when;	   /* enum wperf_counters_when */
	uint32_t flags;	   /* WPERF_COUNTERS_* */
	uint32_t hz;	   /* the kernel's tick (CONFIG_HZ), 0 if unknown */
	uint32_t user_hz;  /* the unit of /proc/stat */
	uint32_t irq_time; /* enum wperf_irq_time */
	uint64_t ts;	   /* CLOCK_MONOTONIC ns, as the reading began */
	const struct wperf_disk_counters *disks;
	size_t ndisks;
	const struct wperf_nic_counters *nics;
	size_t nnics;
	const struct wperf_cpu_counters *cpus;
	size_t ncpus;
	const struct wperf_irq_counters *irqs; /* /proc/interrupts */
	size_t nirqs;
	const struct wperf_irq_counters *softirqs; /* /proc/softirqs */
	size_t nsoftirqs;
	const struct wperf_thread_counters *threads; /* the recorded processes' threads */
	size_t nthreads;
};

struct wperf_trace_stats {
	uint64_t start_ts, end_ts; /* the recording window, CLOCK_MONOTONIC ns */
	uint32_t ncpu;
	uint64_t *lost;			    /* ncpu entries: records lost on each CPU */
	uint64_t stack_lost;		    /* stacks not stored (stack map full or collided) */
	uint64_t stack_fault;		    /* stacks the kernel could not walk */
	uint64_t late_events;		    /* records written out of time order */
	uint64_t events[WPERF_EV_KIND_MAX]; /* records written, by kind */
};

/* ---- writing ---- */

struct wperf_trace_writer;

struct wperf_writer_opts {
	int compress;		     /* 1: zstd-compress sections (default), 0: store */
	int zstd_level;		     /* 0: the library's default (1) */
	uint32_t events_per_section; /* 0: the default (65536) */
};

/*
 * Starts a trace on fd (open for writing, positioned at 0) and writes the file
 * header. The writer does not own fd. opts may be NULL for the defaults.
 */
int wperf_trace_writer_new(int fd, const struct wperf_writer_opts *opts,
			   struct wperf_trace_writer **out, struct wperf_error *err);

/* Writes a META section of n key/value pairs; call it first, once. */
int wperf_trace_writer_meta(struct wperf_trace_writer *w, const char *const *keys,
			    const char *const *values, size_t n, struct wperf_error *err);

/* Buffers one event; writes an EVENTS section when the batch is full. */
int wperf_trace_writer_event(struct wperf_trace_writer *w, const struct wperf_event *ev,
			     struct wperf_error *err);

/* Writes the buffered events as a section now. */
int wperf_trace_writer_flush(struct wperf_trace_writer *w, struct wperf_error *err);

int wperf_trace_writer_threads(struct wperf_trace_writer *w, const struct wperf_thread *t, size_t n,
			       struct wperf_error *err);
int wperf_trace_writer_stacks(struct wperf_trace_writer *w, const struct wperf_stack *s, size_t n,
			      struct wperf_error *err);
int wperf_trace_writer_mappings(struct wperf_trace_writer *w, const struct wperf_mapping *m,
				size_t n, struct wperf_error *err);
int wperf_trace_writer_ksyms(struct wperf_trace_writer *w, const struct wperf_ksym *k, size_t n,
			     struct wperf_error *err);
int wperf_trace_writer_perfmap(struct wperf_trace_writer *w, const struct wperf_perfmap *p,
			       struct wperf_error *err);
int wperf_trace_writer_stack_copies(struct wperf_trace_writer *w, const struct wperf_stack_copy *c,
				    size_t n, struct wperf_error *err);

/* Writes a COUNTERS section: one reading of the kernel's counters (c->when). */
int wperf_trace_writer_counters(struct wperf_trace_writer *w, const struct wperf_counters *c,
				struct wperf_error *err);

/*
 * Flushes, writes STATS (the per-kind counts and late_events are the writer's own,
 * the rest comes from stats) and END. After it the file is complete.
 */
int wperf_trace_writer_finish(struct wperf_trace_writer *w, const struct wperf_trace_stats *stats,
			      struct wperf_error *err);

/* Bytes written so far. */
uint64_t wperf_trace_writer_offset(const struct wperf_trace_writer *w);

/* Frees the writer (NULL-safe); does not close fd. */
void wperf_trace_writer_free(struct wperf_trace_writer *w);

/* ---- reading ---- */

struct wperf_trace;

/*
 * Opens and validates a trace: every section header, CRC and table, and the END
 * section. Event sections are decoded later, by the iterator. Errors name the path
 * and the byte offset.
 */
int wperf_trace_open(const char *path, struct wperf_trace **out, struct wperf_error *err);

/* Frees the trace and everything its accessors returned (NULL-safe). */
void wperf_trace_free(struct wperf_trace *t);

uint16_t wperf_trace_version_minor(const struct wperf_trace *t);

/* The META value of key, or NULL. */
const char *wperf_trace_meta(const struct wperf_trace *t, const char *key);
size_t wperf_trace_meta_count(const struct wperf_trace *t);
void wperf_trace_meta_at(const struct wperf_trace *t, size_t i, const char **key,
			 const char **value);

const struct wperf_trace_stats *wperf_trace_stats(const struct wperf_trace *t);

const struct wperf_thread *wperf_trace_threads(const struct wperf_trace *t, size_t *n);
const struct wperf_stack *wperf_trace_stacks(const struct wperf_trace *t, size_t *n);
/* The stack with id (and user flag), or NULL. */
const struct wperf_stack *wperf_trace_stack(const struct wperf_trace *t, int32_t id, int user);
const struct wperf_mapping *wperf_trace_mappings(const struct wperf_trace *t, size_t *n);
const struct wperf_ksym *wperf_trace_ksyms(const struct wperf_trace *t, size_t *n);
const struct wperf_perfmap *wperf_trace_perfmaps(const struct wperf_trace *t, size_t *n);
const struct wperf_stack_copy *wperf_trace_stack_copies(const struct wperf_trace *t, size_t *n);

/*
 * Adds stacks made from the trace's own data (the user stacks the analysis
 * unwinds from stack copies) to its STACKS table, copying their frames. Stacks
 * and tables the accessors returned before are invalid after it: call it
 * before anything reads them. 0, or -ENOMEM with err set.
 */
int wperf_trace_add_stacks(struct wperf_trace *t, const struct wperf_stack *s, size_t n,
			   struct wperf_error *err);

/*
 * Where the separate debug files of the trace's binaries are looked for
 * first, by build id (DIR/.build-id/xx/rest.debug), before /usr/lib/debug:
 * a cache of the machine that analyzes it (harness/run/debug_cache.h). Not
 * part of the file; dir is copied, NULL or "" for none. 0, -EINVAL when dir
 * has a ':' (libdwfl's separator), or -ENOMEM.
 */
int wperf_trace_set_debug_dir(struct wperf_trace *t, const char *dir);
/* That directory, or NULL. */
const char *wperf_trace_debug_dir(const struct wperf_trace *t);

/*
 * The counters read at when (enum wperf_counters_when), or NULL when the trace
 * has none (recorded before format 1.1). Owned by the trace, like every
 * accessor's answer.
 */
const struct wperf_counters *wperf_trace_counters(const struct wperf_trace *t, unsigned when);

/* Iterates the events in file order. */
struct wperf_event_iter;

int wperf_event_iter_new(const struct wperf_trace *t, struct wperf_event_iter **out,
			 struct wperf_error *err);
/* Returns 1 and fills ev, 0 at the end, or a negative errno with err set. */
int wperf_event_iter_next(struct wperf_event_iter *it, struct wperf_event *ev,
			  struct wperf_error *err);
void wperf_event_iter_free(struct wperf_event_iter *it);

/* The name of an event kind ("switch", "wakeup", ...), or "unknown". */
const char *wperf_event_kind_name(unsigned kind);

#endif /* WPERF_TRACE_H */
