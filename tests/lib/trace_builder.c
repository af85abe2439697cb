/* SPDX-License-Identifier: MIT */
#include "trace_builder.h"

#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/trace/event_codec.h"
#include "core/trace/event_kinds.h"
#include "core/util/radix.h"

void tb_init(struct trace_builder *b, uint64_t start, uint64_t end)
{
	memset(b, 0, sizeof(*b));
	b->start = start;
	b->end = end;
	b->ncpu = 2;
}

/* Removes the file last written, unless KEEPTRACE is set. */
static void remove_file(struct trace_builder *b)
{
	if (b->path[0] && !getenv("KEEPTRACE"))
		unlink(b->path);
	b->path[0] = '\0';
}

void tb_release(struct trace_builder *b)
{
	wperf_buf_release(&b->events);
	wperf_buf_release(&b->threads);
	wperf_buf_release(&b->stacks);
	wperf_buf_release(&b->ksyms);
	wperf_buf_release(&b->perfmaps);
	wperf_buf_release(&b->mappings);
	remove_file(b);
}

void tb_thread(struct trace_builder *b, uint32_t tid, uint32_t tgid, const char *comm)
{
	struct wperf_thread t = {.tid = tid, .tgid = tgid, .ppid = 1};

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	assert_int_equal(wperf_buf_append(&b->threads, &t, sizeof(t)), 0);
}

void tb_tgid(struct trace_builder *b, uint32_t tid, uint32_t tgid)
{
	assert_true(b->nborn < 16);
	b->born[b->nborn].tid = tid;
	b->born[b->nborn++].tgid = tgid;
}

void tb_meta(struct trace_builder *b, const char *key, const char *value)
{
	assert_true(b->nmeta < 16);
	b->meta_keys[b->nmeta] = key;
	b->meta_values[b->nmeta++] = value;
}

void tb_nic(struct trace_builder *b, uint32_t ifindex, const char *name, uint64_t speed_bps)
{
	char(*text)[32];

	assert_true(b->nnics < sizeof(b->nic_meta) / sizeof(b->nic_meta[0]));
	text = b->nic_meta[b->nnics++];
	snprintf(text[0], sizeof(text[0]), WPERF_META_NET_NAME(PRIu32), ifindex);
	tb_meta(b, text[0], name);
	if (!speed_bps)
		return;
	snprintf(text[1], sizeof(text[1]), WPERF_META_NET_SPEED_BPS(PRIu32), ifindex);
	snprintf(text[2], sizeof(text[2]), "%" PRIu64, speed_bps);
	tb_meta(b, text[1], text[2]);
}

void tb_cpus(struct trace_builder *b, uint32_t ncpu, const uint64_t *lost)
{
	assert_true(ncpu <= TB_MAX_CPUS);
	b->ncpu = ncpu;
	memset(b->lost, 0, sizeof(b->lost));
	if (lost)
		memcpy(b->lost, lost, ncpu * sizeof(*lost));
}

void tb_counters(struct trace_builder *b, const struct wperf_counters *start,
		 const struct wperf_counters *end)
{
	b->counters[WPERF_COUNTERS_START] = start;
	b->counters[WPERF_COUNTERS_END] = end;
}

void tb_stack(struct trace_builder *b, int32_t id, int user, uint32_t nr, const uint64_t *ips)
{
	struct wperf_stack s = {.id = id, .user = user ? 1 : 0, .nr = nr, .ips = ips};

	assert_int_equal(wperf_buf_append(&b->stacks, &s, sizeof(s)), 0);
}

void tb_ksym(struct trace_builder *b, uint64_t addr, const char *name)
{
	struct wperf_ksym k = {.addr = addr, .name = name};

	assert_int_equal(wperf_buf_append(&b->ksyms, &k, sizeof(k)), 0);
}

void tb_perfmap(struct trace_builder *b, uint32_t tgid, const char *text)
{
	struct wperf_perfmap p = {.tgid = tgid, .text = text, .len = strlen(text)};

	assert_int_equal(wperf_buf_append(&b->perfmaps, &p, sizeof(p)), 0);
}

void tb_mapping(struct trace_builder *b, uint32_t tgid, uint64_t start, uint64_t end,
		uint64_t pgoff, const char *path)
{
	struct wperf_mapping m = {
	    .tgid = tgid, .start = start, .end = end, .pgoff = pgoff, .path = path};

	assert_int_equal(wperf_buf_append(&b->mappings, &m, sizeof(m)), 0);
}

static uint32_t tgid_of(const struct trace_builder *b, uint32_t tid)
{
	const struct wperf_thread *t = (const void *)b->threads.data;

	for (size_t i = 0; i < b->threads.len / sizeof(*t); i++)
		if (t[i].tid == tid)
			return t[i].tgid;
	for (size_t i = 0; i < b->nborn; i++)
		if (b->born[i].tid == tid)
			return b->born[i].tgid;
	return tid;
}

struct wperf_event *tb_add(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu,
			   uint32_t tid)
{
	struct wperf_event e = {.hdr = {.kind = kind, .ts = ts, .cpu = cpu, .tid = tid}};

	e.hdr.tgid = tgid_of(b, tid);
	assert_int_equal(wperf_buf_append(&b->events, &e, sizeof(e)), 0);
	return (struct wperf_event *)(b->events.data + b->events.len) - 1;
}

void tb_switch(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t prev, uint32_t next,
	       int preempted, int32_t ks, int32_t us)
{
	struct wperf_event *e = tb_add(b, WPERF_EV_SWITCH, ts, cpu, prev);

	e->hdr.flags = preempted ? WPERF_SWITCH_PREEMPTED : 0;
	e->sw.next_tid = next;
	e->sw.next_tgid = tgid_of(b, next);
	e->sw.prev_state = preempted ? 0 : 1;
	e->sw.kstack = ks;
	e->sw.ustack = us;
}

void tb_fork(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t tid, uint32_t child,
	     uint32_t child_tgid, const char *comm)
{
	struct wperf_event *e = tb_add(b, WPERF_EV_FORK, ts, cpu, tid);

	e->fork.child_tid = child;
	e->fork.child_tgid = child_tgid;
	snprintf(e->fork.comm, sizeof(e->fork.comm), "%s", comm);
	tb_tgid(b, child, child_tgid);
}

void tb_name(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	     const char *comm)
{
	struct wperf_event *e = tb_add(b, kind, ts, cpu, tid);

	snprintf(e->name.comm, sizeof(e->name.comm), "%s", comm);
}

struct wperf_event *tb_wake(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t tid,
			    uint32_t waker, int32_t ks, int32_t us)
{
	struct wperf_event *e = tb_add(b, WPERF_EV_WAKEUP, ts, cpu, tid);

	e->wake.waker_tid = waker;
	e->wake.waker_tgid = tgid_of(b, waker);
	e->wake.kstack = ks;
	e->wake.ustack = us;
	return e;
}

void tb_wake_irq(struct trace_builder *b, uint64_t ts, uint32_t cpu, uint32_t tid, uint8_t ctx,
		 int32_t irq)
{
	struct wperf_event *e = tb_add(b, WPERF_EV_WAKEUP, ts, cpu, tid);

	e->hdr.flags = ctx;
	e->wake.irq = irq;
	e->wake.kstack = e->wake.ustack = WPERF_NO_STACK;
}

struct wperf_event *tb_block(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu,
			     uint32_t tid, uint8_t ctx, int32_t irq, uint32_t dev, uint64_t sector,
			     uint32_t bytes)
{
	struct wperf_event *e = tb_add(b, kind, ts, cpu, tid);

	e->hdr.flags = ctx;
	e->block.dev = dev;
	e->block.sector = sector;
	e->block.bytes = bytes;
	e->block.irq = irq;
	return e;
}

void tb_net(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	    uint8_t ctx, uint32_t ifindex, uint32_t bytes)
{
	struct wperf_event *e = tb_add(b, kind, ts, cpu, tid);

	e->hdr.flags = ctx;
	e->net.ifindex = ifindex;
	e->net.bytes = bytes;
}

void tb_usdt(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	     uint64_t lock)
{
	tb_add(b, kind, ts, cpu, tid)->usdt.lock = lock;
}

void tb_irq(struct trace_builder *b, uint8_t kind, uint64_t ts, uint32_t cpu, uint32_t tid,
	    int32_t irq)
{
	tb_add(b, kind, ts, cpu, tid)->irq.irq = irq;
}

/* The value of the i-th field of an event of kind, of type type, in variant. */
static uint64_t variant_value(uint8_t type, unsigned variant, unsigned kind, size_t i)
{
	static const uint64_t largest[] = {
	    [WPERF_FIELD_U8] = UINT8_MAX,
	    [WPERF_FIELD_U32] = UINT32_MAX,
	    [WPERF_FIELD_S32] = (uint64_t)INT32_MAX,
	    [WPERF_FIELD_U64] = UINT64_MAX,
	};

	if (variant == 1)
		return largest[type];
	if (variant == 2)
		return type == WPERF_FIELD_S32 ? (uint64_t)(int64_t)INT32_MIN : 0;
	if (type == WPERF_FIELD_S32)
		return (uint64_t) - (int64_t)(i + 1);
	if (type == WPERF_FIELD_U64)
		return 0x7fff12345678ull + i;
	return 1000 + kind * 10 + i;
}

static void fill_fields(struct wperf_event *ev, const struct wperf_event_kind_info *k,
			const struct wperf_field *f, size_t n, unsigned variant)
{
	static const char *const comms[] = {"worker/3", "fifteen-chars-x", ""};

	for (size_t i = 0; i < n; i++) {
		if (!wperf_event_has_field(k, &f[i], ev))
			continue;
		if (f[i].type == WPERF_FIELD_COMM)
			strcpy((char *)ev + f[i].offset, comms[variant]);
		else if (f[i].type != WPERF_FIELD_U8) /* the flags are set first */
			wperf_field_set(ev, &f[i],
					variant_value(f[i].type, variant, ev->hdr.kind, i));
	}
}

void tb_fill_event(struct wperf_event *ev, unsigned kind, unsigned variant, uint64_t ts)
{
	const struct wperf_event_kind_info *k = wperf_event_kind_info(kind);
	size_t ncommon;
	const struct wperf_field *common = wperf_event_common_fields(&ncommon);

	assert_non_null(k);
	assert_true(variant < 3);
	memset(ev, 0, sizeof(*ev));
	ev->hdr.size = k->size;
	ev->hdr.kind = (uint8_t)kind;
	ev->hdr.ts = ts;
	ev->hdr.flags = variant == 1   ? 0xff
			: variant == 2 ? 0
				       : (uint8_t)((kind & 3) | k->data_flag);
	fill_fields(ev, k, common, ncommon, variant);
	fill_fields(ev, k, k->fields, k->nfields, variant);
}

size_t tb_all_kinds(struct wperf_event *evs, size_t max)
{
	uint64_t ts = 1000000000ull;
	size_t n = 0;

	for (unsigned v = 0; v < 3; v++)
		for (unsigned k = 1; k < WPERF_EV_KIND_MAX && n < max; k++) {
			ts += (k % 5 == 0) ? -(uint64_t)777 : 1500 + k * 100;
			tb_fill_event(&evs[n++], k, v, ts);
		}
	if (n + 2 <= max) {
		tb_fill_event(&evs[n++], WPERF_EV_EXIT, 0, UINT64_MAX);
		tb_fill_event(&evs[n++], WPERF_EV_EXIT, 0, 0);
	}
	return n;
}

static void assert_fields_equal(const struct wperf_event *want, const struct wperf_event *got,
				const struct wperf_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t w = wperf_field_get(want, &f[i]), g = wperf_field_get(got, &f[i]);

		if (f[i].type == WPERF_FIELD_COMM)
			assert_string_equal((const char *)got + f[i].offset,
					    (const char *)want + f[i].offset);
		else if (w != g && f[i].type == WPERF_FIELD_S32)
			fail_msg("%s %s: %" PRId64 ", not %" PRId64,
				 wperf_event_kind_name(want->hdr.kind), f[i].name, (int64_t)g,
				 (int64_t)w);
		else if (w != g)
			fail_msg("%s %s: %" PRIu64 ", not %" PRIu64,
				 wperf_event_kind_name(want->hdr.kind), f[i].name, g, w);
	}
}

void tb_assert_event_equal(const struct wperf_event *want, const struct wperf_event *got)
{
	const struct wperf_event_kind_info *k = wperf_event_kind_info(want->hdr.kind);
	size_t ncommon;
	const struct wperf_field *common = wperf_event_common_fields(&ncommon);

	assert_int_equal(got->hdr.kind, want->hdr.kind);
	assert_int_equal(got->hdr.size, want->hdr.size);
	assert_true(got->hdr.ts == want->hdr.ts);
	assert_fields_equal(want, got, common, ncommon);
	if (k)
		assert_fields_equal(want, got, k->fields, k->nfields);
	assert_memory_equal(got, want, sizeof(*got));
}

char *tb_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data;
	long size;

	if (!f)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	assert_true(size >= 0);
	rewind(f);
	data = malloc((size_t)size + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
	data[size] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)size;
	return data;
}

void tb_sort(struct trace_builder *b)
{
	size_t n = b->events.len / sizeof(struct wperf_event);
	struct wperf_event *tmp = calloc(n ? n : 1, sizeof(*tmp));

	assert_non_null(tmp);
	assert_int_equal(wperf_radix_sort(b->events.data, n, sizeof(*tmp),
					  offsetof(struct wperf_event, hdr.ts), tmp),
			 0);
	free(tmp);
}

struct wperf_trace *tb_open(struct trace_builder *b)
{
	struct wperf_trace_stats st = {
	    .start_ts = b->start, .end_ts = b->end, .ncpu = b->ncpu, .lost = b->lost};
	const struct wperf_event *ev = (const void *)b->events.data;
	const struct wperf_perfmap *pm = (const void *)b->perfmaps.data;
	size_t nstacks = b->stacks.len / sizeof(struct wperf_stack);
	size_t nksyms = b->ksyms.len / sizeof(struct wperf_ksym);
	size_t nmappings = b->mappings.len / sizeof(struct wperf_mapping);
	struct wperf_trace_writer *w = NULL;
	struct wperf_trace *t = NULL;
	struct wperf_error err = {0};
	int fd;

	remove_file(b);
	snprintf(b->path, sizeof(b->path), "/tmp/wperf-test-trace-XXXXXX");
	fd = mkstemp(b->path);
	assert_true(fd >= 0);
	if (wperf_trace_writer_new(fd, NULL, &w, &err) < 0 ||
	    (b->nmeta &&
	     wperf_trace_writer_meta(w, b->meta_keys, b->meta_values, b->nmeta, &err) < 0) ||
	    wperf_trace_writer_threads(w, (const void *)b->threads.data,
				       b->threads.len / sizeof(struct wperf_thread), &err) < 0)
		fail_msg("%s", err.msg);
	for (int i = 0; i < 2; i++)
		if (b->counters[i] && wperf_trace_writer_counters(w, b->counters[i], &err) < 0)
			fail_msg("%s", err.msg);
	for (size_t i = 0; i < b->events.len / sizeof(*ev); i++)
		if (wperf_trace_writer_event(w, &ev[i], &err) < 0)
			fail_msg("%s", err.msg);
	if ((nstacks &&
	     wperf_trace_writer_stacks(w, (const void *)b->stacks.data, nstacks, &err) < 0) ||
	    (nksyms &&
	     wperf_trace_writer_ksyms(w, (const void *)b->ksyms.data, nksyms, &err) < 0) ||
	    (nmappings &&
	     wperf_trace_writer_mappings(w, (const void *)b->mappings.data, nmappings, &err) < 0))
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < b->perfmaps.len / sizeof(*pm); i++)
		if (wperf_trace_writer_perfmap(w, &pm[i], &err) < 0)
			fail_msg("%s", err.msg);
	if (wperf_trace_writer_finish(w, &st, &err) < 0)
		fail_msg("%s", err.msg);
	wperf_trace_writer_free(w);
	close(fd);
	if (wperf_trace_open(b->path, &t, &err) < 0)
		fail_msg("%s", err.msg);
	return t;
}

int tb_analyze(struct trace_builder *b, struct wperf_trace **t, struct wperf_analysis **a,
	       struct wperf_symbolizer **sym)
{
	struct wperf_error err = {0};

	*t = tb_open(b);
	if (wperf_analyze(*t, NULL, a, &err) < 0 || wperf_symbolizer_new(*t, sym, &err) < 0) {
		fprintf(stderr, "analyzing the trace: %s\n", err.msg);
		return -1;
	}
	return 0;
}

void tb_analysis_free(struct wperf_trace *t, struct wperf_analysis *a, struct wperf_symbolizer *sym)
{
	wperf_symbolizer_free(sym);
	wperf_analysis_free(a);
	wperf_trace_free(t);
}
