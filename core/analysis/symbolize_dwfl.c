/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer's process sessions (see symbolize.c), in which the unwinder
 * walks copied stacks: a process's mappings reported to an offline libdwfl
 * session at their load bias, computed from the mapping (start, pgoff) and
 * the ELF program headers, with the separate debug file under /usr/lib/debug
 * when the mapped file is gone (symbolize_file.c opens both); the least
 * recently used sessions closed when too many modules are open.
 */
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis/symbolize_internal.h"

void sym_proc_close(struct wperf_symbolizer *s, struct sym_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl); /* closes the modules' files */
	p->dwfl = NULL;
	p->dwfl_done = 0;
	p->attached = 0;
	for (size_t i = 0; i < p->map_count; i++)
		s->maps[p->map_first + i].mod = NULL;
	s->live_modules -= p->nmods;
	p->nmods = 0;
}

/* Reports mapping j of p to the session d; sets its mod, or leaves it NULL. */
static void report_mapping(struct wperf_symbolizer *s, struct sym_proc *p, Dwfl *d, size_t j)
{
	struct sym_map *sm = &s->maps[j];
	const struct wperf_mapping *m = sm->m;
	char dbg[SYM_DEBUG_PATH_MAX];
	Elf *elf = NULL;
	uint64_t bias;
	int fd, ok, debug;

	fd = sym_open_mapping(m, dbg, &elf, &debug);
	if (fd < 0)
		return;
	ok = sym_elf_bias(elf, m, debug, &bias) == 0;
	elf_end(elf);
	if (!ok) {
		close(fd);
		return;
	}
	/* The same file at the same place (a split or re-recorded mapping): one module. */
	for (size_t k = p->map_first; k < j; k++) {
		const struct sym_map *o = &s->maps[k];

		if (o->mod && o->bias == bias && o->debug == debug &&
		    !strcmp(o->m->path, m->path)) {
			close(fd);
			sm->mod = o->mod;
			sm->bias = bias;
			sm->debug = debug;
			return;
		}
	}
	/* add_p_vaddr: bias is added to the file's p_vaddr (ignored for ET_EXEC). */
	sm->mod = dwfl_report_elf(d, m->path, debug ? dbg : m->path, fd, bias, true);
	if (!sm->mod) {
		close(fd); /* libdwfl consumes fd only on success */
		return;
	}
	sm->bias = bias;
	sm->debug = debug;
	p->nmods++;
	s->live_modules++;
}

/* Opens p's libdwfl session if it is not open, closing old ones to stay in bounds. */
void sym_proc_open(struct wperf_symbolizer *s, struct sym_proc *p)
{
	Dwfl *d;

	p->last_use = ++s->clock;
	if (p->dwfl_done)
		return;
	while (s->live_modules && s->live_modules + p->map_count > MAX_LIVE_MODULES) {
		struct sym_proc *lru = NULL;

		for (size_t i = 0; i < s->nprocs; i++)
			if (s->procs[i].dwfl && (!lru || s->procs[i].last_use < lru->last_use))
				lru = &s->procs[i];
		if (!lru)
			break;
		sym_proc_close(s, lru);
	}
	p->dwfl_done = 1;
	d = dwfl_begin(&s->cb);
	if (!d)
		return; /* every mapping of p stays unresolved */
	dwfl_report_begin(d);
	for (size_t i = 0; i < p->map_count; i++)
		report_mapping(s, p, d, p->map_first + i);
	dwfl_report_end(d, NULL, NULL);
	p->dwfl = d;
}
