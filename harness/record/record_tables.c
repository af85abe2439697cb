/* SPDX-License-Identifier: MIT */
/*
 * The tables of a recording's trace: the threads alive as it starts, and at
 * its end the stacks its events reference, the kernel symbols of their frames
 * (named now: kernel addresses mean nothing on another machine), the mappings
 * of the processes, and JIT perf maps.
 */
#include "harness/record/record_tables.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
#include "harness/record/proc_info.h"

/* The THREADS table: every thread alive as the recording starts (later ones
 * come with their fork events). */
int record_write_threads(struct wperf_trace_writer *w, struct wperf_error *err)
{
	struct wperf_buf threads = {0};
	int e = proc_threads_snapshot(&threads);

	if (!e)
		e = wperf_trace_writer_threads(w, (struct wperf_thread *)threads.data,
					       threads.len / sizeof(struct wperf_thread), err);
	else
		wperf_error_set(err, e, "reading the thread table from /proc: %s", strerror(-e));
	wperf_buf_release(&threads);
	return e;
}

/*
 * The STACKS table (every stack an event references) and the KSYMS table (the
 * kernel frames among them, named now: the kernel's addresses mean nothing on
 * another machine).
 */
static int write_stacks(struct wperf_trace_writer *w, const struct bpf_recorder *bpf,
			const struct trace_sink *sink, uint32_t stack_ids, struct wperf_error *err)
{
	struct wperf_buf stacks = {0}, frames = {0}, ksyms = {0}, names = {0};
	struct ksym_table *kallsyms = NULL;
	uint64_t ips[127];
	size_t nstacks, nksyms;
	int e = 0;

	for (int user = 0; user <= 1 && !e; user++) {
		for (uint32_t id = 0; id < stack_ids && !e; id++) {
			struct wperf_stack s = {.id = id, .user = user};
			int n;

			if (!trace_sink_stack_used(sink, id, user))
				continue;
			n = bpf_recorder_stack(bpf, id, ips);
			if (n <= 0)
				continue; /* overwritten or never stored: counted by BPF */
			s.nr = n;
			s.ips = (const uint64_t *)(uintptr_t)(frames.len / sizeof(uint64_t));
			e = wperf_buf_append(&stacks, &s, sizeof(s));
			if (!e)
				e = wperf_buf_append(&frames, ips, n * sizeof(uint64_t));
		}
	}
	nstacks = stacks.len / sizeof(struct wperf_stack);
	/* frames grew while we collected: turn the saved offsets into pointers now. */
	for (size_t i = 0; i < nstacks; i++) {
		struct wperf_stack *s = (struct wperf_stack *)stacks.data + i;

		s->ips = (const uint64_t *)frames.data + (uintptr_t)s->ips;
	}
	if (!e && nstacks)
		e = ksym_table_load(&kallsyms);
	for (size_t i = 0; i < nstacks && !e; i++) {
		const struct wperf_stack *s = (struct wperf_stack *)stacks.data + i;

		for (uint32_t f = 0; f < s->nr && !s->user && !e; f++) {
			struct wperf_ksym k = {.addr = s->ips[f]};
			char name[300];

			ksym_table_resolve(kallsyms, s->ips[f], name, sizeof(name));
			k.name = (const char *)(uintptr_t)names.len;
			e = wperf_buf_append(&ksyms, &k, sizeof(k));
			if (!e)
				e = wperf_buf_append_str(&names, name);
		}
	}
	nksyms = ksyms.len / sizeof(struct wperf_ksym);
	for (size_t i = 0; i < nksyms; i++) {
		struct wperf_ksym *k = (struct wperf_ksym *)ksyms.data + i;

		k->name = (const char *)names.data + (uintptr_t)k->name;
	}
	if (e)
		wperf_error_set(err, e, "collecting stacks: %s", strerror(-e));
	if (!e)
		e = wperf_trace_writer_stacks(w, (struct wperf_stack *)stacks.data, nstacks, err);
	if (!e)
		e = wperf_trace_writer_ksyms(w, (struct wperf_ksym *)ksyms.data, nksyms, err);
	ksym_table_free(kallsyms);
	wperf_buf_release(&stacks);
	wperf_buf_release(&frames);
	wperf_buf_release(&ksyms);
	wperf_buf_release(&names);
	return e;
}

/* Copies per STACK_COPIES section: a section is held in memory as it is written. */
#define COPIES_PER_SECTION 128

/*
 * The STACK_COPIES sections (--stacks dwarf): every copied user stack an event
 * references, for the analysis to unwind.
 */
static int write_stack_copies(struct wperf_trace_writer *w, const struct bpf_recorder *bpf,
			      const struct trace_sink *sink, uint32_t stack_ids,
			      struct wperf_error *err)
{
	struct wperf_stack_copy_raw *raw = malloc(COPIES_PER_SECTION * sizeof(*raw));
	struct wperf_stack_copy rows[COPIES_PER_SECTION];
	size_t n = 0;
	int e = raw ? 0 : wperf_error_set(err, -ENOMEM, "out of memory for the stack copies");

	for (uint32_t id = 0; id < stack_ids && !e; id++) {
		const struct wperf_stack_copy_raw *r = &raw[n];

		if (!trace_sink_stack_used(sink, id, 1) ||
		    bpf_recorder_stack_copy(bpf, (int32_t)id, &raw[n]))
			continue; /* a walked stack, or no copy was stored */
		rows[n] = (struct wperf_stack_copy){.id = (int32_t)id,
						    .tgid = r->tgid,
						    .tid = r->tid,
						    .nregs = r->nregs,
						    .ip = r->ip,
						    .base = r->base,
						    .size = r->size,
						    .bytes = r->bytes};
		memcpy(rows[n].regs, r->regs, sizeof(rows[n].regs));
		if (++n == COPIES_PER_SECTION) {
			e = wperf_trace_writer_stack_copies(w, rows, n, err);
			n = 0;
		}
	}
	if (!e && n)
		e = wperf_trace_writer_stack_copies(w, rows, n, err);
	free(raw);
	return e;
}

struct perfmap_ctx {
	struct wperf_trace_writer *w;
	struct wperf_error *err;
	int e;
};

/* Copies a JIT's perf map, if the process wrote one. */
static void write_perfmap(uint32_t tgid, void *arg)
{
	struct perfmap_ctx *c = arg;
	struct wperf_perfmap p = {.tgid = tgid};
	char *text;

	if (c->e || proc_perfmap_read(tgid, &text, &p.len) < 0)
		return;
	p.text = text;
	c->e = wperf_trace_writer_perfmap(c->w, &p, c->err);
	free(text);
}

int record_write_tables(struct wperf_trace_writer *w, const struct bpf_recorder *bpf,
			struct trace_sink *sink, struct wperf_error *err)
{
	struct proc_mappings *pm = trace_sink_mappings(sink);
	struct perfmap_ctx pc = {w, err, 0};
	int e;

	e = write_stacks(w, bpf, sink, bpf_recorder_stack_ids(bpf), err);
	if (!e)
		e = write_stack_copies(w, bpf, sink, bpf_recorder_stack_ids(bpf), err);
	if (!e)
		e = wperf_trace_writer_mappings(w, (struct wperf_mapping *)pm->mappings.data,
						pm->mappings.len / sizeof(struct wperf_mapping),
						err);
	if (!e) {
		trace_sink_for_each_process(sink, write_perfmap, &pc);
		e = pc.e;
	}
	return e;
}
