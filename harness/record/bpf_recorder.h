/* SPDX-License-Identifier: MIT */
/*
 * The BPF recorder's lifecycle: open the skeleton, set its read-only
 * configuration, load, attach every hook; read its counters and stacks; detach.
 * The events themselves are drained from the ring buffer by trace_sink.
 */
#ifndef WPERF_BPF_RECORDER_H
#define WPERF_BPF_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/wperf_event.h"
#include "core/util/buf.h"
#include "core/util/error.h"

#define RECORD_STACKS_KERNEL 0x1
#define RECORD_STACKS_USER   0x2
#define RECORD_STACKS_DWARF  0x4 /* user stacks copied for offline unwinding, not walked */

struct bpf_recorder_opts {
	unsigned stack_mode;	/* RECORD_STACKS_* */
	size_t ringbuf_bytes;	/* a power of two, at least a page */
	uint32_t stack_entries; /* stack map size */
};

struct bpf_recorder;

/*
 * Checks privileges and BTF, then loads the recorder: the programs verified,
 * nothing attached. On failure err says exactly what is missing, with the
 * verifier's last lines for a program the kernel refused.
 */
int bpf_recorder_open(const struct bpf_recorder_opts *opts, struct bpf_recorder **out,
		      struct wperf_error *err);

/*
 * Attaches every hook, recording only pids and their descendants (those they
 * have started and those they start), or the whole machine when npids is 0.
 * Loading is the slow part (the verifier): a harness opens the recorder
 * before its workload starts and attaches once it knows the processes.
 */
int bpf_recorder_attach(struct bpf_recorder *r, const pid_t *pids, size_t npids,
			struct wperf_error *err);

/*
 * Attaches the wperf USDT probes of binary (for pid, or -1 for every process
 * running it). Returns the number of probes attached (0 when the binary has
 * none), or a negative errno with err set (-ENOEXEC: binary is no ELF file,
 * a script).
 */
int bpf_recorder_attach_usdt(struct bpf_recorder *r, const char *binary, pid_t pid,
			     struct wperf_error *err);

/* The ring buffer's map fd, for ring_buffer__new. */
int bpf_recorder_ringbuf_fd(const struct bpf_recorder *r);

/* The hooks attached, as "sched_switch(tp_btf) sched_waking(tp_btf) ...". */
const char *bpf_recorder_hooks(const struct bpf_recorder *r);

/*
 * Hands every CPU's staged records to the ring buffer (the programs batch them
 * per CPU; an idle CPU would keep its last ones). Call it every few tens of
 * milliseconds while recording and once after bpf_recorder_detach. Returns 0,
 * -EBUSY if a CPU stayed busy writing a record, or a negative errno.
 */
int bpf_recorder_flush(struct bpf_recorder *r);

/* Destroys every link: no event is produced after it returns. Idempotent, NULL-safe. */
void bpf_recorder_detach(struct bpf_recorder *r);

/* Sums of the per-CPU counters; lost has ncpu entries (possible CPUs). */
int bpf_recorder_counters(const struct bpf_recorder *r, uint64_t *lost, size_t ncpu,
			  uint64_t *stack_lost, uint64_t *stack_fault);

/* Appends to tgids (uint32_t) the processes recorded with --pid: those given
 * and the ones they forked since. 0 or -ENOMEM. */
int bpf_recorder_targets(const struct bpf_recorder *r, struct wperf_buf *tgids);

/*
 * The stack ids events may carry are below this: the stack map's, then the
 * user stacks recovered past a library without frame pointers
 * (bpf/stack_caller.bpf.h).
 */
uint32_t bpf_recorder_stack_ids(const struct bpf_recorder *r);

/* The frames of stack id (innermost first) into ips[127]; returns the count or -errno. */
int bpf_recorder_stack(const struct bpf_recorder *r, int32_t id, uint64_t ips[127]);

/*
 * The copy of a user stack with id (--stacks dwarf) into out; 0, -ENOENT when
 * id is no copy (a walked stack), or -errno.
 */
int bpf_recorder_stack_copy(const struct bpf_recorder *r, int32_t id,
			    struct wperf_stack_copy_raw *out);

/* Detaches and frees (NULL-safe). */
void bpf_recorder_free(struct bpf_recorder *r);

#endif /* WPERF_BPF_RECORDER_H */
