/* SPDX-License-Identifier: MIT */
/*
 * The tables a recording writes around its events.
 */
#ifndef WPERF_RECORD_TABLES_H
#define WPERF_RECORD_TABLES_H

#include <stdint.h>

#include "core/util/error.h"
#include "core/trace/trace.h"
#include "harness/record/bpf_recorder.h"
#include "harness/record/trace_sink.h"

/* THREADS: every thread alive now (later ones come with their fork events). */
int record_write_threads(struct wperf_trace_writer *w, struct wperf_error *err);

/*
 * STACKS, STACK_COPIES, KSYMS, MAPPINGS and PERFMAP, once the sink has stopped:
 * every stack an event references, read from the BPF maps, and what
 * symbolizes it.
 */
int record_write_tables(struct wperf_trace_writer *w, const struct bpf_recorder *bpf,
			struct trace_sink *sink, struct wperf_error *err);

#endif /* WPERF_RECORD_TABLES_H */
