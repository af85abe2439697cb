/* SPDX-License-Identifier: MIT */
/*
 * What the files of the symbolizer share (symbolize.c: creation, the frame
 * cache and formatting; symbolize_file.c: the files mapped, each with a
 * libdwfl session for names and lines; symbolize_dwfl.c: each process's
 * libdwfl session; symbolize_perfmap.c: JIT names from perf maps;
 * symbolize_unwind.c: copied stacks unwound in the process sessions). Not a
 * public API.
 */
#ifndef WPERF_SYMBOLIZE_INTERNAL_H
#define WPERF_SYMBOLIZE_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/idmap.h"
#include "core/analysis/symbolize.h"

/* Modules open over all process sessions, up to 2 descriptors each. */
#define MAX_LIVE_MODULES   256
#define MAX_LIVE_FILES	   64 /* file sessions open: up to 2 descriptors each */
#define SYM_DEBUG_PATH_MAX 96 /* "/usr/lib/debug/.build-id/xx/<38 hex>.debug" and more */

/* One mapping of the trace, with what the sessions made of it. */
struct sym_map {
	const struct wperf_mapping *m;
	size_t order;	    /* index in the trace's table: among equal starts, later wins */
	Dwfl_Module *mod;   /* NULL: unresolved, or the session is not open */
	uint64_t bias;	    /* valid when mod is set */
	int debug;	    /* mod reads the /usr/lib/debug file instead of m->path */
	size_t file;	    /* its file: index in s->files */
	uint64_t file_bias; /* what to subtract from an address to get the file's */
	int file_bias_done; /* file_bias was computed (once the file was opened) */
	int file_bias_ok;   /* and found: the mapping fits one of the file's segments */
};

/* A file the trace's mappings map (a path, and a build id when recorded). */
struct sym_file {
	const struct sym_map *first; /* one of its mappings: the path and build id */
	Dwfl *dwfl;		     /* its session; NULL: not open (yet, or any more) */
	Dwfl_Module *mod;	     /* the file as the session's one module, at base 0 */
	int done;		     /* the session was built (mod may be NULL if that failed) */
	int debug;		     /* mod reads the /usr/lib/debug file, the path being gone */
	uint64_t last_use;
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
	char *debuginfo_path; /* NULL: libdwfl's default search path; owned */
	struct sym_map *maps;
	size_t nmaps;
	struct sym_file *files; /* the files mapped, in the order of their paths */
	size_t nfiles, live_files;
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

/* ---- symbolize_file.c ---- */
/* Tells the files of s->maps apart (sets each mapping's file). 0, or -1 on no memory. */
int sym_files_init(struct wperf_symbolizer *s);
/* Closes every file session and frees the files. */
void sym_files_release(struct wperf_symbolizer *s);
/* The module of sm's file, its session opened if need be (the least recently
 * used closed first), and in *bias what to subtract from a process address to
 * get the module's; NULL when the file cannot be read or sm fits none of its
 * segments. Marks the file used. */
Dwfl_Module *sym_file_module(struct wperf_symbolizer *s, struct sym_map *sm, uint64_t *bias);
/* Opens m's file, checking the recorded build id, else the debug file of that
 * build (its path into debug_path, SYM_DEBUG_PATH_MAX bytes, and *debug set):
 * the descriptor, with the file as *elf, or -1. */
int sym_open_mapping(const struct wperf_mapping *m, char *debug_path, Elf **elf, int *debug);
/* The load bias of elf as mapped by m (debug: elf is a separate debug file,
 * without file offsets). 0, or -1 when no segment fits. */
int sym_elf_bias(Elf *elf, const struct wperf_mapping *m, int debug, uint64_t *bias);

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
