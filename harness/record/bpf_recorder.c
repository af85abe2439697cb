/* SPDX-License-Identifier: MIT */
#include "harness/record/bpf_recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>

#include "bpf/recorder.skel.h"
#include "bpf/wperf_event.h"
#include "core/util/buf.h"
#include "harness/record/proc_info.h"

#define MAX_LINKS      64
#define LOG_TAIL_LINES 12

/* Tracepoints the recording cannot do without; the others are best effort. */
static const char *const essential_tracepoints[] = {"sched_switch", "sched_waking"};

struct bpf_recorder {
	struct recorder_bpf *skel;
	struct bpf_link *links[MAX_LINKS];
	size_t nlinks;
	struct wperf_buf hooks; /* NUL-terminated text */
	uint32_t walked_ids;	/* the stack map's ids; stacks with caller follow */
	int copies;		/* --stacks dwarf: user stacks are copied, not walked */
};

/*
 * libbpf reports through a process-wide callback. Keep the last lines of its
 * output (the verifier's verdict is at the end) to quote them when a load fails.
 */
static char log_tail[LOG_TAIL_LINES][256];
static unsigned log_next;

static int capture_libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[4096];
	char *p, *save = NULL;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	for (p = strtok_r(line, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		snprintf(log_tail[log_next % LOG_TAIL_LINES], sizeof(log_tail[0]), "%s", p);
		log_next++;
	}
	return 0;
}

static void append_log_tail(char *msg, size_t size)
{
	unsigned first = log_next > LOG_TAIL_LINES ? log_next - LOG_TAIL_LINES : 0;
	size_t len = strlen(msg);

	for (unsigned i = first; i < log_next && len < size; i++)
		len += snprintf(msg + len, size - len, "\n    %s", log_tail[i % LOG_TAIL_LINES]);
}

static int have_capability(int cap)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		return 0;
	return (data[cap / 32].effective >> (cap % 32)) & 1;
}

static int check_privileges(struct wperf_error *err)
{
#ifndef CAP_BPF
#define CAP_PERFMON 38
#define CAP_BPF	    39
#endif
	if (geteuid() == 0 || (have_capability(CAP_BPF) && have_capability(CAP_PERFMON)))
		return 0;
	return wperf_error_set(err, -EPERM,
			       "recording needs root, or the capabilities CAP_BPF and CAP_PERFMON "
			       "(running as uid %d without them)",
			       (int)geteuid());
}

/*
 * With --pid, the processes the targets had started before the recording:
 * from now on a fork of a target adds its child (recorder.bpf.c), and every
 * process that exists now and descends from one, found after the fork
 * tracepoint is attached, is added here; a fork in between is caught by one
 * or the other.
 */
static int follow_descendants(struct bpf_recorder *r, const pid_t *pids, size_t npids,
			      struct wperf_error *err)
{
	struct wperf_buf found = {0};
	uint32_t *roots = calloc(npids, sizeof(*roots));
	int e = roots ? 0 : -ENOMEM;
	const uint32_t *tgid;

	for (size_t i = 0; !e && i < npids; i++)
		roots[i] = (uint32_t)pids[i];
	if (!e)
		e = proc_descendants(roots, npids, &found);
	tgid = (const uint32_t *)(void *)found.data;
	for (size_t i = 0; !e && i < found.len / sizeof(*tgid); i++) {
		__u8 one = 1;

		bpf_map__update_elem(r->skel->maps.targets, &tgid[i], sizeof(tgid[i]), &one,
				     sizeof(one), BPF_ANY);
	}
	wperf_buf_release(&found);
	free(roots);
	return e ? wperf_error_set(err, e, "the children of the processes to record: %s",
				   strerror(-e))
		 : 0;
}

/* Picks tp_btf where the kernel's BTF describes the tracepoint, raw_tp elsewhere. */
static void choose_program_types(struct bpf_object *obj, const struct btf *vmlinux)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj)
	{
		const char *name = bpf_program__name(prog);
		char typedef_name[128];
		int btf_ok;

		if (!strncmp(name, "tp_btf_", 7)) {
			snprintf(typedef_name, sizeof(typedef_name), "btf_trace_%s", name + 7);
			btf_ok =
			    btf__find_by_name_kind(vmlinux, typedef_name, BTF_KIND_TYPEDEF) > 0;
			bpf_program__set_autoload(prog, btf_ok);
		} else if (!strncmp(name, "raw_tp_", 7)) {
			snprintf(typedef_name, sizeof(typedef_name), "btf_trace_%s", name + 7);
			btf_ok =
			    btf__find_by_name_kind(vmlinux, typedef_name, BTF_KIND_TYPEDEF) > 0;
			bpf_program__set_autoload(prog, !btf_ok);
		} else {
			/* USDT: attached on demand; flush_stage: run, never attached */
			bpf_program__set_autoload(prog, true);
		}
	}
}

static int is_essential(const char *tracepoint)
{
	for (size_t i = 0; i < sizeof(essential_tracepoints) / sizeof(*essential_tracepoints); i++)
		if (!strcmp(tracepoint, essential_tracepoints[i]))
			return 1;
	return 0;
}

static int add_hook_text(struct bpf_recorder *r, const char *fmt, const char *a, const char *b)
{
	char text[160];

	snprintf(text, sizeof(text), fmt, a, b);
	if (r->hooks.len)
		r->hooks.len--; /* drop the NUL, append, terminate again */
	return wperf_buf_append_str(&r->hooks, text);
}

static int attach_tracepoints(struct bpf_recorder *r, struct wperf_error *err)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, r->skel->obj)
	{
		const char *name = bpf_program__name(prog);
		const char *type = !strncmp(name, "tp_btf_", 7) ? "tp_btf" : "raw_tp";
		struct bpf_link *link;

		if (!bpf_program__autoload(prog) ||
		    (strncmp(name, "tp_btf_", 7) && strncmp(name, "raw_tp_", 7)))
			continue;
		if (r->nlinks == MAX_LINKS)
			return wperf_error_set(err, -E2BIG, "too many BPF links");
		link = bpf_program__attach(prog);
		if (!link) {
			int e = -errno;

			if (is_essential(name + 7))
				return wperf_error_set(err, e, "cannot attach to tracepoint %s: %s",
						       name + 7, strerror(-e));
			add_hook_text(r, "%s(missing:%s) ", name + 7, strerror(-e));
			continue;
		}
		r->links[r->nlinks++] = link;
		add_hook_text(r, "%s(%s) ", name + 7, type);
	}
	return 0;
}

/* The read-only configuration and the maps' sizes, between open and load. */
static void configure(struct bpf_recorder *r, const struct bpf_recorder_opts *opts)
{
	r->skel->rodata->self_tgid = getpid();
	r->skel->rodata->stack_mode = opts->stack_mode;
	r->skel->rodata->wakeup_bytes = opts->ringbuf_bytes / 8;
	bpf_map__set_max_entries(r->skel->maps.events, opts->ringbuf_bytes);
	bpf_map__set_max_entries(r->skel->maps.stacks, opts->stack_entries);
	/* The kernel rounds a stack map up to a power of two: its ids, then
	 * as many recovered stacks (bpf/stack_caller.bpf.h). */
	for (r->walked_ids = 1; r->walked_ids < opts->stack_entries; r->walked_ids <<= 1)
		;
	r->skel->rodata->recovered_base = (int32_t)r->walked_ids;
	r->skel->rodata->recovered_room = opts->stack_entries;
	bpf_map__set_max_entries(r->skel->maps.recovered_ids, opts->stack_entries);
	bpf_map__set_max_entries(r->skel->maps.recovered_stacks, opts->stack_entries);
	/* --stacks dwarf: copies take the recovered stacks' ids (bpf/stack_copy.bpf.h). */
	r->copies = (opts->stack_mode & RECORD_STACKS_DWARF) != 0;
	r->skel->rodata->copy_user_stacks = r->copies;
	if (r->copies) {
		bpf_map__set_max_entries(r->skel->maps.stack_copies, opts->stack_entries);
		bpf_map__set_max_entries(r->skel->maps.copy_places, 4 * opts->stack_entries);
	}
}

int bpf_recorder_open(const struct bpf_recorder_opts *opts, struct bpf_recorder **out,
		      struct wperf_error *err)
{
	struct bpf_recorder *r = NULL;
	struct btf *vmlinux = NULL;
	int e;

	e = check_privileges(err);
	if (e)
		return e;
#if !defined(__x86_64__) && !defined(__aarch64__)
	if (opts->stack_mode & RECORD_STACKS_DWARF)
		return wperf_error_set(
		    err, -ENOTSUP,
		    "--stacks dwarf copies the user registers of x86-64 and arm64 "
		    "only: use --stacks all here");
#endif
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return wperf_error_set(
		    err, -ENOENT,
		    "this kernel has no BTF (/sys/kernel/btf/vmlinux is missing): "
		    "wperf-bench needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
	libbpf_set_print(capture_libbpf_log);
	r = calloc(1, sizeof(*r));
	vmlinux = btf__load_vmlinux_btf();
	if (!r || !vmlinux) {
		e = wperf_error_set(err, -ENOMEM, "cannot read the kernel's BTF: %s",
				    strerror(errno));
		goto cleanup;
	}

	r->skel = recorder_bpf__open();
	if (!r->skel) {
		e = wperf_error_set(err, -errno, "cannot open the BPF recorder: %s",
				    strerror(errno));
		goto cleanup;
	}
	configure(r, opts);
	choose_program_types(r->skel->obj, vmlinux);

	e = recorder_bpf__load(r->skel);
	if (e) {
		wperf_error_set(
		    err, e, "the kernel refused the BPF recorder (%s); libbpf said:", strerror(-e));
		append_log_tail(err->msg, sizeof(err->msg));
		goto cleanup;
	}
	*out = r;
	r = NULL;
cleanup:
	btf__free(vmlinux);
	bpf_recorder_free(r);
	return e;
}

int bpf_recorder_attach(struct bpf_recorder *r, const pid_t *pids, size_t npids,
			struct wperf_error *err)
{
	int e;

	for (size_t i = 0; i < npids; i++) {
		__u32 tgid = pids[i];
		__u8 one = 1;

		bpf_map__update_elem(r->skel->maps.targets, &tgid, sizeof(tgid), &one, sizeof(one),
				     BPF_ANY);
	}
	r->skel->bss->filter_targets = npids > 0;
	e = attach_tracepoints(r, err);
	if (!e && npids)
		e = follow_descendants(r, pids, npids, err);
	return e;
}

/* Does path start as an ELF file does? */
static int is_elf(const char *path)
{
	static const char magic[4] = {0x7f, 'E', 'L', 'F'};
	char head[4] = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n = fd >= 0 ? read(fd, head, sizeof(head)) : -1;

	if (fd >= 0)
		close(fd);
	return n == 4 && !memcmp(head, magic, 4);
}

int bpf_recorder_attach_usdt(struct bpf_recorder *r, const char *binary, pid_t pid,
			     struct wperf_error *err)
{
	static const char *const probes[] = {"before_spin", "after_spin", "spin_release",
					     "false_wakeup"};
	struct bpf_program *progs[] = {
	    r->skel->progs.usdt_before_spin, r->skel->progs.usdt_after_spin,
	    r->skel->progs.usdt_spin_release, r->skel->progs.usdt_false_wakeup};
	int attached = 0;

	if (!is_elf(binary))
		return wperf_error_set(
		    err, -ENOEXEC,
		    "%s is no ELF binary (a script?): it has no wperf USDT probes; "
		    "those of the programs it starts are recorded with --usdt "
		    "PROGRAM",
		    binary);
	for (size_t i = 0; i < sizeof(probes) / sizeof(*probes); i++) {
		struct bpf_link *link;

		if (r->nlinks == MAX_LINKS)
			return wperf_error_set(err, -E2BIG, "too many BPF links");
		link = bpf_program__attach_usdt(progs[i], pid, binary, "wperf", probes[i], NULL);
		if (!link) {
			if (errno == ENOENT)
				continue; /* the binary does not use this annotation */
			return wperf_error_set(err, -errno,
					       "cannot attach USDT probe wperf:%s of %s: %s",
					       probes[i], binary, strerror(errno));
		}
		r->links[r->nlinks++] = link;
		add_hook_text(r, "usdt:%s:%s ", binary, probes[i]);
		attached++;
	}
	return attached;
}

int bpf_recorder_ringbuf_fd(const struct bpf_recorder *r)
{
	return bpf_map__fd(r->skel->maps.events);
}

const char *bpf_recorder_hooks(const struct bpf_recorder *r)
{
	return r->hooks.len ? (const char *)r->hooks.data : "";
}

void bpf_recorder_detach(struct bpf_recorder *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nlinks; i++)
		bpf_link__destroy(r->links[i]);
	r->nlinks = 0;
}

/* A program writing a record when the flush comes is done within microseconds. */
#define FLUSH_TRIES 100

int bpf_recorder_flush(struct bpf_recorder *r)
{
	int fd = bpf_program__fd(r->skel->progs.flush_stage), ncpu = libbpf_num_possible_cpus();

	if (ncpu < 0)
		return ncpu;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, run, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);
		int e;

		for (int tries = 1;; tries++) {
			e = bpf_prog_test_run_opts(fd, &run);
			if (e || run.retval != 1 || tries == FLUSH_TRIES)
				break;
			usleep(10);
		}
		if (e && errno != ENXIO) /* ENXIO: the CPU is offline, nothing staged */
			return -errno;
		if (!e && run.retval == 1)
			return -EBUSY;
	}
	return 0;
}

int bpf_recorder_counters(const struct bpf_recorder *r, uint64_t *lost, size_t ncpu,
			  uint64_t *stack_lost, uint64_t *stack_fault)
{
	uint64_t *values = calloc(ncpu, sizeof(*values));
	uint64_t *sums[WPERF_CNT_MAX] = {NULL, stack_lost, stack_fault};

	if (!values)
		return -ENOMEM;
	*stack_lost = *stack_fault = 0;
	for (__u32 key = 0; key < WPERF_CNT_MAX; key++) {
		if (bpf_map__lookup_elem(r->skel->maps.counters, &key, sizeof(key), values,
					 ncpu * sizeof(*values), 0)) {
			int e = -errno;

			free(values);
			return e;
		}
		for (size_t cpu = 0; cpu < ncpu; cpu++) {
			if (key == WPERF_CNT_LOST)
				lost[cpu] = values[cpu];
			else
				*sums[key] += values[cpu];
		}
	}
	free(values);
	return 0;
}

int bpf_recorder_targets(const struct bpf_recorder *r, struct wperf_buf *tgids)
{
	__u32 key, next;
	int more = bpf_map__get_next_key(r->skel->maps.targets, NULL, &next, sizeof(next)) == 0;

	while (more) {
		key = next;
		if (wperf_buf_append(tgids, &key, sizeof(key)))
			return -ENOMEM;
		more = bpf_map__get_next_key(r->skel->maps.targets, &key, &next, sizeof(next)) == 0;
	}
	return 0;
}

uint32_t bpf_recorder_stack_ids(const struct bpf_recorder *r)
{
	return 2 * r->walked_ids;
}

int bpf_recorder_stack(const struct bpf_recorder *r, int32_t id, uint64_t ips[127])
{
	struct wperf_recovered_stack st;
	uint32_t key = (uint32_t)id;
	int n = 0;

	if (key >= r->walked_ids) {
		if (bpf_map__lookup_elem(r->skel->maps.recovered_stacks, &key, sizeof(key), &st,
					 sizeof(st), 0))
			return -errno;
		memcpy(ips, st.ips, st.nr * sizeof(*ips));
		return (int)st.nr;
	}
	if (bpf_map__lookup_elem(r->skel->maps.stacks, &key, sizeof(key), ips, 127 * sizeof(*ips),
				 0))
		return -errno;
	while (n < 127 && ips[n])
		n++;
	return n;
}

int bpf_recorder_stack_copy(const struct bpf_recorder *r, int32_t id,
			    struct wperf_stack_copy_raw *out)
{
	if (!r->copies || id < (int32_t)r->walked_ids)
		return -ENOENT;
	if (bpf_map__lookup_elem(r->skel->maps.stack_copies, &id, sizeof(id), out, sizeof(*out), 0))
		return -errno;
	return 0;
}

void bpf_recorder_free(struct bpf_recorder *r)
{
	if (!r)
		return;
	bpf_recorder_detach(r);
	recorder_bpf__destroy(r->skel);
	wperf_buf_release(&r->hooks);
	free(r);
}
