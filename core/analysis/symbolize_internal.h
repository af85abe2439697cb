/* SPDX-License-Identifier: MIT */
/*
 * What the files of the symbolizer share (symbolize.c: creation, the frame
 * cache and formatting; symbolize_dwfl.c: each process's libdwfl session;
 * symbolize_perfmap.c: JIT names from perf maps; symbolize_unwind.c: copied
 * stacks unwound in those sessions). Not a public API.
 */
#ifndef WPERF_SYMBOLIZE_INTERNAL_H
#define WPERF_SYMBOLIZE_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/idmap.h"
#include "core/analysis/symbolize.h"

#define MAX_LIVE_MODULES 256 /* modules open over all sessions: up to 2 descriptors each */

/* One mapping of the trace, with what its process's session made of it. */
struct sym_map {
	const struct wperf_mapping *m;
	size_t order;	  /* index in the trace's table: among equal starts, later wins */
	Dwfl_Module *mod; /* NULL: unresolved, or the session is not open */
	uint64_t bias;	  /* valid when mod is set */
	int debug;	  /* mod reads the /usr/lib/debug file instead of m->path */
};

struct sym_proc {
	uint32_t tgid;
	size_t map_first, map_count; /* its range of s->maps */
	Dwfl *dwfl;		     /* NULL: not open (yet, or any more) */
	int dwfl_done;		     /* the session was built (dwfl may be NULL if that failed) */
	int attached;		     /* dwfl has the unwinder's thread callbacks */
	size_t nmods;		     /* modules the session opened */
	uint64_t last_use;
	int jit_done; /* jit[] parsed */
	struct wperf_jit_sym *jit;
	size_t njit;
};

struct cache_slot {
	uint64_t ip;
	uint32_t tgid;
	uint32_t used; /* 0: empty; else 1 + ret (ret: looked up at ip - 1) */
	size_t str;    /* offset of the string in s->strings */
};

struct wperf_symbolizer {
	const struct wperf_trace *t;
	Dwfl_Callbacks cb;
	char *debuginfo_path; /* NULL: libdwfl's default search path */
	struct sym_map *maps;
	size_t nmaps;
	struct sym_proc *procs; /* indexed by proc_ids' dense indexes */
	size_t nprocs;
	struct wperf_idmap proc_ids; /* tgid -> index in procs */
	struct wperf_ksym *ksyms;    /* sorted by address */
	size_t nksyms;
	struct cache_slot *cache;
	size_t cache_cap, cache_count; /* cap: a power of two, or 0 */
	struct wperf_buf strings;
	uint64_t clock; /* use counter for the LRU */
	size_t live_modules;
	struct unwind_job *unwinding; /* the copy symbolize_unwind.c is unwinding, or NULL */
};

/* ---- symbolize_dwfl.c ---- */
/* Builds p's session, once (every mapping reported at its load bias), closing
 * the least recently used sessions first when too many modules are open;
 * marks p used. */
void sym_proc_open(struct wperf_symbolizer *s, struct sym_proc *p);
/* Ends p's session (it may be reopened); its mappings lose their modules. */
void sym_proc_close(struct wperf_symbolizer *s, struct sym_proc *p);

/* ---- symbolize_perfmap.c ---- */
/* The perf map entry of p holding ip, or NULL (p's perf maps parsed once). */
const struct wperf_jit_sym *sym_find_jit(struct wperf_symbolizer *s, struct sym_proc *p,
					 uint64_t ip);

#endif /* WPERF_SYMBOLIZE_INTERNAL_H */
