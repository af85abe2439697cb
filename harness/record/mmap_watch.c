/* SPDX-License-Identifier: MIT */
#include "harness/record/mmap_watch.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES 64 /* data pages per CPU: mmaps are rare, 256 KiB is plenty */

struct cpu_ring {
	int fd;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t size;
};

struct mmap_watch {
	struct cpu_ring *rings;
	int nrings;
	uint8_t scratch[8192]; /* a record that wraps around the ring, made whole */
};

/* The MMAP2 record, with the union of inode data and build id (see perf_event.h). */
struct mmap2_record {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t reserved_1;
			uint16_t reserved_2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	char filename[];
};

static int open_cpu(int cpu, int with_build_id)
{
	struct perf_event_attr attr = {0};

	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.size = sizeof(attr);
	attr.mmap = 1; /* executable mappings only: no mmap_data */
	attr.mmap2 = 1;
	attr.build_id = with_build_id;
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int mmap_watch_open(struct mmap_watch **out, struct wperf_error *err)
{
	struct mmap_watch *w = calloc(1, sizeof(*w));
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), page = sysconf(_SC_PAGESIZE);
	int e = 0;

	if (!w || !(w->rings = calloc(ncpu, sizeof(*w->rings)))) {
		free(w);
		return wperf_error_set(err, -ENOMEM, "out of memory");
	}
	for (int cpu = 0; cpu < ncpu && !e; cpu++) {
		struct cpu_ring *r = &w->rings[w->nrings];
		void *m;

		r->fd = open_cpu(cpu, 1);
		if (r->fd < 0 && errno == EINVAL)
			r->fd = open_cpu(cpu, 0); /* kernels before 5.12: no build ids */
		if (r->fd < 0) {
			if (errno == ENODEV)
				continue; /* an offline CPU */
			e = wperf_error_set(err, -errno, "perf_event_open for mmap events: %s",
					    strerror(errno));
			break;
		}
		r->size = RING_PAGES * page;
		m = mmap(NULL, page + r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (m == MAP_FAILED) {
			e = wperf_error_set(err, -errno, "mapping the mmap-event ring: %s",
					    strerror(errno));
			close(r->fd);
			break;
		}
		r->meta = m;
		r->data = (uint8_t *)m + page;
		w->nrings++;
	}
	if (e) {
		mmap_watch_free(w);
		return e;
	}
	*out = w;
	return 0;
}

static int take_mmap2(struct proc_mappings *pm, const struct mmap2_record *rec)
{
	struct wperf_mapping m = {0};
	size_t max = rec->header.size - sizeof(*rec);

	if (rec->header.size < sizeof(*rec) || rec->filename[0] != '/' ||
	    !memchr(rec->filename, '\0', max))
		return 0; /* anonymous or special: [vdso], //anon, JIT code */
	m.tgid = rec->pid;
	m.start = rec->addr;
	m.end = rec->addr + rec->len;
	m.pgoff = rec->pgoff;
	m.path = rec->filename;
	if ((rec->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && rec->build_id_size <= 20) {
		m.build_id_len = rec->build_id_size;
		memcpy(m.build_id, rec->build_id, rec->build_id_size);
	}
	return proc_mappings_append(pm, &m, NULL);
}

static int drain_ring(struct mmap_watch *w, struct cpu_ring *r, struct proc_mappings *pm)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	int e = 0;

	while (tail < head && !e) {
		const struct perf_event_header *h = (void *)(r->data + tail % r->size);
		size_t off = tail % r->size, size = h->size;

		if (size < sizeof(*h))
			break;		    /* cannot happen: the kernel writes whole records */
		if (off + size > r->size) { /* the record wraps around the ring's end */
			size_t first = r->size - off;

			if (size > sizeof(w->scratch))
				goto next;
			memcpy(w->scratch, r->data + off, first);
			memcpy(w->scratch + first, r->data, size - first);
			h = (void *)w->scratch;
		}
		if (h->type == PERF_RECORD_MMAP2)
			e = take_mmap2(pm, (const struct mmap2_record *)h);
		else if (h->type == PERF_RECORD_LOST)
			pm->missed++;
	next:
		tail += size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return e;
}

int mmap_watch_drain(struct mmap_watch *w, struct proc_mappings *pm)
{
	int e = 0;

	for (int i = 0; i < w->nrings && !e; i++)
		e = drain_ring(w, &w->rings[i], pm);
	return e;
}

void mmap_watch_free(struct mmap_watch *w)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!w)
		return;
	for (int i = 0; i < w->nrings; i++) {
		munmap(w->rings[i].meta, page + w->rings[i].size);
		close(w->rings[i].fd);
	}
	free(w->rings);
	free(w);
}
