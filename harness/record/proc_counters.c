/* SPDX-License-Identifier: MIT */
/*
 * Reading the kernel's own counters (proc_counters.h). Every file is parsed
 * by its documented layout (Documentation/admin-guide/iostats.rst, proc(5));
 * rows keep every number the kernel wrote, so a later kernel's extra fields are
 * kept too. What vanishes while it is read (a thread that exits, a disk
 * removed) is skipped.
 */
#include "harness/record/proc_counters.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "harness/base/output.h"
#include "harness/record/proc_info.h"

#define MAX_FIELDS 64 /* numbers kept of a disk, NIC or CPU row: more than any kernel writes */

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* The numbers at the start of s, up to max, into v; *rest: what follows them. */
static uint32_t numbers(const char *s, uint64_t *v, uint32_t max, const char **rest)
{
	uint32_t n = 0;

	while (n < max) {
		char *end;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!isdigit((unsigned char)*s))
			break;
		v[n++] = strtoull(s, &end, 10);
		s = end;
	}
	if (rest)
		*rest = s;
	return n;
}

/* The whole file at path, NUL-terminated, into text. */
static int read_text(const char *path, struct wperf_buf *text, struct wperf_error *err)
{
	int e;

	wperf_buf_clear(text);
	e = output_read_all(path, text, err);
	if (!e && wperf_buf_append(text, "", 1))
		e = -ENOMEM;
	return e;
}

/* Where the running kernel counts interrupt time, and its tick, from its
 * configuration: /proc/config.gz, or /boot/config-RELEASE (gzopen reads both). */
static void kernel_facts(struct wperf_counters *c)
{
	struct utsname u;
	char path[400], line[256];
	gzFile f = gzopen("/proc/config.gz", "rb");

	c->hz = 0;
	c->irq_time = WPERF_IRQ_TIME_UNKNOWN;
	if (!f && uname(&u) == 0) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = gzopen(path, "rb");
	}
	if (!f)
		return;
	c->irq_time = WPERF_IRQ_TIME_IN_THREAD; /* "is not set", or absent (older kernels) */
	while (gzgets(f, line, sizeof(line))) {
		if (!strncmp(line, "CONFIG_HZ=", 10))
			c->hz = (uint32_t)strtoul(line + 10, NULL, 10);
		else if (!strncmp(line, "CONFIG_IRQ_TIME_ACCOUNTING=y", 28))
			c->irq_time = WPERF_IRQ_TIME_APART;
	}
	gzclose(f);
}

/* /proc/stat's cpuN lines (not the "cpu" sum). */
static int read_cpus(struct wperf_counters_store *s, struct wperf_buf *text,
		     struct wperf_error *err)
{
	char *save = NULL;

	if (read_text("/proc/stat", text, err))
		return err->code;
	for (char *l = strtok_r((char *)text->data, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		uint64_t v[MAX_FIELDS];
		char *end;
		unsigned long cpu;

		if (strncmp(l, "cpu", 3) || !isdigit((unsigned char)l[3]))
			continue;
		cpu = strtoul(l + 3, &end, 10);
		if (wperf_counters_store_cpu(s, (uint32_t)cpu, v,
					     numbers(end, v, MAX_FIELDS, NULL)))
			return -ENOMEM;
	}
	return 0;
}

/* The name of a row ("24:", "LOC:", "TIMER:") and its counts on ncpu CPUs
 * (fewer for some rows, such as ERR), into v. */
static int irq_row(struct wperf_counters_store *s, int soft, char *line, uint64_t *v, uint32_t ncpu)
{
	char *colon = strchr(line, ':');
	const char *name = line, *desc;
	uint32_t n;

	if (!colon)
		return 0;
	*colon = '\0';
	while (*name == ' ')
		name++;
	n = numbers(colon + 1, v, ncpu, &desc);
	while (*desc == ' ')
		desc++;
	return wperf_counters_store_irq(s, soft, name, desc, v, n) ? -ENOMEM : 0;
}

/* /proc/interrupts or /proc/softirqs: a header of CPUn columns, then rows. */
static int read_irqs(struct wperf_counters_store *s, int soft, struct wperf_buf *text)
{
	struct wperf_error err = {0};
	const char *path = soft ? "/proc/softirqs" : "/proc/interrupts";
	char *save = NULL, *l;
	uint32_t ncpu = 0;
	uint64_t *v;
	int e = 0;

	if (read_text(path, text, &err))
		return 0; /* not every kernel has them: the checks do without */
	l = strtok_r((char *)text->data, "\n", &save);
	for (const char *p = l ? strstr(l, "CPU") : NULL; p; p = strstr(p + 3, "CPU"))
		ncpu++;
	if (!(v = calloc(ncpu + 1, sizeof(*v))))
		return -ENOMEM;
	while (!e && (l = strtok_r(NULL, "\n", &save)))
		e = irq_row(s, soft, l, v, ncpu);
	free(v);
	return e;
}

/* /sys/block/NAME/stat of every whole disk (partitions are not in /sys/block). */
static int read_disks(struct wperf_counters_store *s)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int e = 0;

	while (!e && d && (de = readdir(d))) {
		char path[600], dev[32], stat[1024];
		uint64_t v[MAX_FIELDS];
		unsigned major, minor;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		if (proc_read_small(path, dev, sizeof(dev)) < 0 ||
		    sscanf(dev, "%u:%u", &major, &minor) != 2)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/stat", de->d_name);
		if (proc_read_small(path, stat, sizeof(stat)) < 0)
			continue;
		if (wperf_counters_store_disk(s, major, minor, de->d_name, v,
					      numbers(stat, v, MAX_FIELDS, NULL)))
			e = -ENOMEM;
	}
	if (d)
		closedir(d);
	return e;
}

/* The number in /sys/class/net/NAME/FILE, or 0. */
static uint32_t net_attr(const char *name, const char *file)
{
	char path[600], text[32];

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", name, file);
	return proc_read_small(path, text, sizeof(text)) < 0 ? 0
							     : (uint32_t)strtoul(text, NULL, 10);
}

/*
 * /proc/net/dev's text, read with nothing between the clock and the read: the
 * checks set the interfaces' bytes against the window's packets with 1% of
 * slack, and a reader preempted between its clock and its read (on a loaded
 * machine, for a slice of tens of milliseconds) would move that many packets
 * across the edge. A read that took longer than EDGE_READ_NS is made again,
 * at most EDGE_TRIES times. *before and *after: the clock around the read kept.
 */
#define EDGE_READ_NS (200 * 1000)
#define EDGE_TRIES   20

static int read_nics_text(struct wperf_buf *text, uint64_t *before, uint64_t *after,
			  struct wperf_error *err)
{
	for (unsigned i = 0;; i++) {
		*before = monotonic_ns();
		if (read_text("/proc/net/dev", text, err))
			return err->code;
		*after = monotonic_ns();
		if (*after - *before <= EDGE_READ_NS || i + 1 == EDGE_TRIES)
			return 0;
	}
}

/* /proc/net/dev's text: two header lines, then "NAME: 16 numbers". */
static int parse_nics(struct wperf_counters_store *s, struct wperf_buf *text)
{
	char *save = NULL;

	for (char *l = strtok_r((char *)text->data, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		uint64_t v[MAX_FIELDS];
		char *colon = strchr(l, ':'), *name = l;
		uint32_t n, ifindex;

		if (!colon)
			continue; /* a header */
		*colon = '\0';
		while (*name == ' ')
			name++;
		n = numbers(colon + 1, v, MAX_FIELDS, NULL);
		ifindex = net_attr(name, "ifindex");
		if (ifindex &&
		    wperf_counters_store_nic(s, ifindex, net_attr(name, "type"), name, v, n))
			return -ENOMEM;
	}
	return 0;
}

/* The schedstat of every thread of process tgid (a /proc name). */
static int read_process(struct wperf_counters_store *s, const char *tgid)
{
	char path[600];
	DIR *d;
	struct dirent *de;
	int e = 0;

	snprintf(path, sizeof(path), "/proc/%s/task", tgid);
	if (!(d = opendir(path)))
		return 0; /* exited meanwhile */
	while (!e && (de = readdir(d))) {
		struct wperf_thread_counters th = {0};
		char text[128];
		unsigned long long run, wait, slices;

		if (!proc_is_number(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/schedstat", tgid, de->d_name);
		th.ts = monotonic_ns();
		if (proc_read_small(path, text, sizeof(text)) < 0 ||
		    sscanf(text, "%llu %llu %llu", &run, &wait, &slices) != 3)
			continue;
		th.tid = (uint32_t)strtoul(de->d_name, NULL, 10);
		th.tgid = (uint32_t)strtoul(tgid, NULL, 10);
		th.run_ns = run;
		th.wait_ns = wait;
		th.slices = slices;
		e = wperf_counters_store_thread(s, &th);
	}
	closedir(d);
	return e;
}

/* The threads: of every process, or of o's. */
static int read_threads(const struct proc_counters_opts *o, struct wperf_counters_store *s)
{
	DIR *d;
	struct dirent *de;
	int e = 0;

	if (!(o->flags & WPERF_COUNTERS_WHOLE_MACHINE)) {
		for (size_t i = 0; i < o->ntgids && !e; i++) {
			char tgid[16];

			snprintf(tgid, sizeof(tgid), "%" PRIu32, o->tgids[i]);
			e = read_process(s, tgid);
		}
		return e;
	}
	if (!(d = opendir("/proc")))
		return 0;
	while (!e && (de = readdir(d)))
		if (proc_is_number(de->d_name))
			e = read_process(s, de->d_name);
	closedir(d);
	return e;
}

int proc_counters_read(const struct proc_counters_opts *o, struct wperf_counters_store *out,
		       uint64_t *edge, struct wperf_error *err)
{
	struct wperf_buf text = {0}, nics = {0};
	int start = o->when == WPERF_COUNTERS_START, e = 0;
	uint64_t before, after;

	out->c.when = o->when;
	out->c.flags = o->flags;
	out->c.user_hz = (uint32_t)sysconf(_SC_CLK_TCK);
	kernel_facts(&out->c);
	/* The interfaces' bytes and the CPUs' times are read nearest the window's
	 * edges, which the interfaces' read makes (read_nics_text): at the start
	 * the clock before it, at the end the clock after it, the last reading.
	 * The checks set them against the whole window's packets and idle time;
	 * the CPUs' check allows 1% of the window. */
	if (start && !(e = read_nics_text(&nics, &before, &after, err)))
		*edge = out->c.ts = before;
	if (!e && start)
		e = read_cpus(out, &text, err);
	if (!start)
		out->c.ts = monotonic_ns();
	if (!e)
		e = read_disks(out);
	if (!e)
		e = read_irqs(out, 0, &text);
	if (!e)
		e = read_irqs(out, 1, &text);
	if (!e)
		e = read_threads(o, out);
	if (!e && !start)
		e = read_cpus(out, &text, err);
	if (!e && !start && !(e = read_nics_text(&nics, &before, &after, err)))
		*edge = after;
	if (!e)
		e = parse_nics(out, &nics);
	if (e == -ENOMEM)
		wperf_error_set(err, e, "out of memory reading the kernel's counters");
	wperf_buf_release(&text);
	wperf_buf_release(&nics);
	wperf_counters_store_finish(out);
	return e;
}
