/* SPDX-License-Identifier: MIT */
/*
 * The store of a reading of the kernel's counters (counters.h). Rows go into
 * arrays that grow, and move, as rows are added; their pointer fields hold
 * offsets into values and strings until wperf_counters_store_finish.
 */
#include "core/trace/counters.h"

#include <errno.h>
#include <string.h>

#define AS_PTR(off) ((const void *)(uintptr_t)(off))
#define AS_OFF(ptr) ((size_t)(uintptr_t)(ptr))

/* Copies n values; *at gets their offset. */
static int add_values(struct wperf_counters_store *s, const uint64_t *v, uint32_t n,
		      const uint64_t **at)
{
	*at = AS_PTR(s->values.len / sizeof(uint64_t));
	return n ? wperf_buf_append(&s->values, v, n * sizeof(uint64_t)) : 0;
}

/* Copies a string (NULL as ""); *at gets its offset. */
static int add_string(struct wperf_counters_store *s, const char *str, const char **at)
{
	*at = AS_PTR(s->strings.len);
	return wperf_buf_append_str(&s->strings, str ? str : "");
}

/* Appends row (size bytes) to rows. */
static int add_row(struct wperf_buf *rows, const void *row, size_t size)
{
	return wperf_buf_append(rows, row, size) < 0 ? -ENOMEM : 0;
}

int wperf_counters_store_disk(struct wperf_counters_store *s, uint32_t major, uint32_t minor,
			      const char *name, const uint64_t *fields, uint32_t n)
{
	struct wperf_disk_counters d = {.major = major, .minor = minor, .nfields = n};

	if (add_string(s, name, &d.name) || add_values(s, fields, n, &d.fields))
		return -ENOMEM;
	return add_row(&s->disks, &d, sizeof(d));
}

int wperf_counters_store_nic(struct wperf_counters_store *s, uint32_t ifindex, uint32_t type,
			     const char *name, const uint64_t *fields, uint32_t n)
{
	struct wperf_nic_counters d = {.ifindex = ifindex, .type = type, .nfields = n};

	if (add_string(s, name, &d.name) || add_values(s, fields, n, &d.fields))
		return -ENOMEM;
	return add_row(&s->nics, &d, sizeof(d));
}

int wperf_counters_store_cpu(struct wperf_counters_store *s, uint32_t cpu, const uint64_t *fields,
			     uint32_t n)
{
	struct wperf_cpu_counters d = {.cpu = cpu, .nfields = n};

	if (add_values(s, fields, n, &d.fields))
		return -ENOMEM;
	return add_row(&s->cpus, &d, sizeof(d));
}

int wperf_counters_store_irq(struct wperf_counters_store *s, int soft, const char *name,
			     const char *desc, const uint64_t *counts, uint32_t ncpu)
{
	struct wperf_irq_counters d = {.ncpu = ncpu};

	if (add_string(s, name, &d.name) || add_string(s, desc, &d.desc) ||
	    add_values(s, counts, ncpu, &d.counts))
		return -ENOMEM;
	return add_row(soft ? &s->softirqs : &s->irqs, &d, sizeof(d));
}

int wperf_counters_store_thread(struct wperf_counters_store *s,
				const struct wperf_thread_counters *th)
{
	return add_row(&s->threads, th, sizeof(*th));
}

#define ROWS(buf, type)	 ((type *)(void *)(buf).data)
#define NROWS(buf, type) ((buf).len / sizeof(type))

/* The values and strings at offset off of their arenas. An arena that holds
 * nothing (rows of no values) has no pointer to add an offset to: NULL. */
static const uint64_t *value_at(const uint64_t *v, const void *off)
{
	return v ? v + AS_OFF(off) : NULL;
}

static const char *string_at(const char *str, const void *off)
{
	return str ? str + AS_OFF(off) : NULL;
}

static void finish_irqs(struct wperf_counters_store *s, struct wperf_buf *rows,
			const struct wperf_irq_counters **out, size_t *n)
{
	struct wperf_irq_counters *r = ROWS(*rows, struct wperf_irq_counters);
	const uint64_t *v = (const uint64_t *)(const void *)s->values.data;
	const char *str = (const char *)s->strings.data;

	*n = NROWS(*rows, struct wperf_irq_counters);
	for (size_t i = 0; i < *n; i++) {
		r[i].name = string_at(str, r[i].name);
		r[i].desc = string_at(str, r[i].desc);
		r[i].counts = value_at(v, r[i].counts);
	}
	*out = r;
}

void wperf_counters_store_finish(struct wperf_counters_store *s)
{
	const uint64_t *v = (const uint64_t *)(const void *)s->values.data;
	const char *str = (const char *)s->strings.data;
	struct wperf_disk_counters *d = ROWS(s->disks, struct wperf_disk_counters);
	struct wperf_nic_counters *nic = ROWS(s->nics, struct wperf_nic_counters);
	struct wperf_cpu_counters *cpu = ROWS(s->cpus, struct wperf_cpu_counters);

	s->c.ndisks = NROWS(s->disks, struct wperf_disk_counters);
	for (size_t i = 0; i < s->c.ndisks; i++) {
		d[i].name = string_at(str, d[i].name);
		d[i].fields = value_at(v, d[i].fields);
	}
	s->c.nnics = NROWS(s->nics, struct wperf_nic_counters);
	for (size_t i = 0; i < s->c.nnics; i++) {
		nic[i].name = string_at(str, nic[i].name);
		nic[i].fields = value_at(v, nic[i].fields);
	}
	s->c.ncpus = NROWS(s->cpus, struct wperf_cpu_counters);
	for (size_t i = 0; i < s->c.ncpus; i++)
		cpu[i].fields = value_at(v, cpu[i].fields);
	finish_irqs(s, &s->irqs, &s->c.irqs, &s->c.nirqs);
	finish_irqs(s, &s->softirqs, &s->c.softirqs, &s->c.nsoftirqs);
	s->c.disks = d;
	s->c.nics = nic;
	s->c.cpus = cpu;
	s->c.threads = ROWS(s->threads, struct wperf_thread_counters);
	s->c.nthreads = NROWS(s->threads, struct wperf_thread_counters);
}

void wperf_counters_store_release(struct wperf_counters_store *s)
{
	wperf_buf_release(&s->disks);
	wperf_buf_release(&s->nics);
	wperf_buf_release(&s->cpus);
	wperf_buf_release(&s->irqs);
	wperf_buf_release(&s->softirqs);
	wperf_buf_release(&s->threads);
	wperf_buf_release(&s->values);
	wperf_buf_release(&s->strings);
	memset(s, 0, sizeof(*s));
}
