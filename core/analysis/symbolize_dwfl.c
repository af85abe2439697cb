/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer's libdwfl sessions (see symbolize.c): a process's mappings
 * reported to an offline session at their load bias, computed from the
 * mapping (start, pgoff) and the ELF program headers, with the separate debug
 * file under /usr/lib/debug when there is one; the least recently used
 * sessions closed when too many modules are open.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis/symbolize_internal.h"

#define DEBUG_DIR "/usr/lib/debug/.build-id/"

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

/*
 * The load bias of elf as mapped by m: what to add to the file's virtual
 * addresses to get the process's. An executable (ET_EXEC) is not relocated. For
 * a PIE or a shared object, m is one executable segment mapped from file offset
 * pgoff: find the PT_LOAD whose file bytes it maps (the executable one first),
 * and the bias is start - pgoff - (p_vaddr - p_offset). A separate debug file
 * keeps p_vaddr but not p_offset: there the mapping is taken to start at the
 * first executable segment's page. Returns 0, or -1 when no segment fits.
 */
static int elf_bias(Elf *elf, const struct wperf_mapping *m, int debug, uint64_t *bias)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t phnum;

	if (!gelf_getehdr(elf, &eh))
		return -1;
	if (eh.e_type == ET_EXEC) {
		*bias = 0;
		return 0;
	}
	if (eh.e_type != ET_DYN || elf_getphdrnum(elf, &phnum) < 0)
		return -1;
	for (int any = 0; any <= 1; any++) {
		for (size_t i = 0; i < phnum; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (!any && !(ph.p_flags & PF_X))
				continue;
			if (debug) {
				*bias = m->start - (ph.p_vaddr & ~(uint64_t)0xfff);
				return 0;
			}
			if (ph.p_offset < m->pgoff + (m->end - m->start) &&
			    m->pgoff < ph.p_offset + ph.p_filesz) {
				*bias = m->start - m->pgoff - (ph.p_vaddr - ph.p_offset);
				return 0;
			}
		}
		if (debug)
			break; /* without offsets, only the executable segment can be matched */
	}
	return -1;
}

/* Opens path for m, checking its build id (when m has one); elf set on success. */
static int open_elf(const char *path, const struct wperf_mapping *m, Elf **elf)
{
	const void *id;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	*elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (*elf && m->build_id_len) {
		n = dwelf_elf_gnu_build_id(*elf, &id);
		if (n != m->build_id_len || memcmp(id, m->build_id, n)) {
			elf_end(*elf);
			*elf = NULL; /* another build of the file: its addresses would lie */
		}
	}
	if (!*elf) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reports mapping j of p to the session d; sets its mod, or leaves it NULL. */
static void report_mapping(struct wperf_symbolizer *s, struct sym_proc *p, Dwfl *d, size_t j)
{
	struct sym_map *sm = &s->maps[j];
	const struct wperf_mapping *m = sm->m;
	char dbg[sizeof(DEBUG_DIR) + 2 * 20 + 8];
	Elf *elf = NULL;
	uint64_t bias;
	int fd, ok, debug = 0;

	fd = open_elf(m->path, m, &elf);
	if (fd < 0 && m->build_id_len) {
		/* Gone, or another build: try the debug file of the recorded build. */
		size_t n = snprintf(dbg, sizeof(dbg), DEBUG_DIR "%02x/", m->build_id[0]);

		for (unsigned i = 1; i < m->build_id_len; i++)
			n += snprintf(dbg + n, sizeof(dbg) - n, "%02x", m->build_id[i]);
		snprintf(dbg + n, sizeof(dbg) - n, ".debug");
		fd = open_elf(dbg, m, &elf);
		debug = 1;
	}
	if (fd < 0)
		return;
	ok = elf_bias(elf, m, debug, &bias) == 0;
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
