/* SPDX-License-Identifier: MIT */
/*
 * Unwinding the user stacks that `record --stacks dwarf` copied (see
 * symbolize.h, wperf_unwind_copies), in the symbolizer's libdwfl sessions
 * (symbolize_dwfl.c): each copy's process session gets libdwfl's thread state
 * callbacks, which hand it the copied registers and read memory from the
 * copied bytes, and libdwfl walks the frames with the call frame information
 * of the modules it already has (.eh_frame, or .debug_frame from the debug
 * file), as perf's unwind-libdw.c does.
 *
 * A read outside the copied bytes fails and ends the stack there: the stack
 * is as deep as 8 KiB above the stack pointer reach. A frame with no call
 * frame information ends it too, unless libdwfl's frame-pointer fallback
 * finds the caller.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis/symbolize_internal.h"

#define UNWIND_MAX_FRAMES 127 /* as deep as the kernel's walk goes */

/* The copy being unwound, and the frames found so far. */
struct unwind_job {
	const struct wperf_stack_copy *c;
	uint64_t ips[UNWIND_MAX_FRAMES];
	uint32_t nr;
};

/* libdwfl asks for threads only through get_thread; one thread per call. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	(void)thread_argp;
	return 0; /* no thread to list */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct wperf_symbolizer *s = arg;

	(void)dwfl;
	*thread_argp = s->unwinding;
	return s->unwinding && (pid_t)s->unwinding->c->tid == tid;
}

/* A word of the copied stack; false outside it (libdwfl then stops). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct wperf_symbolizer *s = arg;
	const struct wperf_stack_copy *c = s->unwinding ? s->unwinding->c : NULL;

	(void)dwfl;
	if (!c || addr < c->base || addr - c->base > (uint64_t)c->size - sizeof(*result) ||
	    c->size < sizeof(*result))
		return false;
	memcpy(result, c->bytes + (addr - c->base), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	const struct unwind_job *j = thread_arg;
	Dwarf_Word regs[WPERF_COPY_REGS];

	for (uint32_t i = 0; i < j->c->nregs; i++)
		regs[i] = j->c->regs[i];
	dwfl_thread_state_register_pc(thread, j->c->ip);
	return dwfl_thread_state_registers(thread, 0, j->c->nregs, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

static int take_frame(Dwfl_Frame *state, void *arg)
{
	struct unwind_job *j = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	j->ips[j->nr++] = pc;
	return j->nr < UNWIND_MAX_FRAMES ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Unwinds j->c in its process's session; j->nr is 1 (the copy's ip) at least. */
static void unwind_copy(struct wperf_symbolizer *s, struct unwind_job *j)
{
	int64_t idx = wperf_idmap_find(&s->proc_ids, j->c->tgid);
	struct sym_proc *p = idx < 0 ? NULL : &s->procs[idx];

	j->nr = 0;
	if (p) {
		sym_proc_open(s, p);
		if (p->dwfl && !p->attached)
			p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)j->c->tgid,
							&thread_callbacks, s);
	}
	if (p && p->attached) {
		s->unwinding = j;
		dwfl_getthread_frames(p->dwfl, (pid_t)j->c->tid, take_frame, j);
		s->unwinding = NULL;
	}
	if (!j->nr)
		j->ips[j->nr++] = j->c->ip; /* nothing to unwind with: the innermost frame */
}

int wperf_unwind_copies(struct wperf_trace *t, struct wperf_error *err)
{
	size_t n, frames = 0;
	const struct wperf_stack_copy *c = wperf_trace_stack_copies(t, &n);
	struct wperf_symbolizer *s = NULL;
	struct wperf_stack *stacks = NULL;
	uint64_t *ips = NULL;
	struct unwind_job j;
	int e;

	if (!n)
		return 0;
	e = wperf_symbolizer_new(t, &s, err);
	if (e)
		return e;
	stacks = calloc(n, sizeof(*stacks));
	ips = malloc(n * UNWIND_MAX_FRAMES * sizeof(*ips));
	if (!stacks || !ips) {
		e = wperf_error_set(err, -ENOMEM, "out of memory to unwind %zu stacks", n);
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		j.c = &c[i];
		unwind_copy(s, &j);
		memcpy(ips + frames, j.ips, j.nr * sizeof(*ips));
		stacks[i] =
		    (struct wperf_stack){.id = c[i].id, .user = 1, .nr = j.nr, .ips = ips + frames};
		frames += j.nr;
	}
	wperf_symbolizer_free(s); /* its sessions hold the trace's tables */
	s = NULL;
	e = wperf_trace_add_stacks(t, stacks, n, err);
cleanup:
	wperf_symbolizer_free(s);
	free(stacks);
	free(ips);
	return e;
}
