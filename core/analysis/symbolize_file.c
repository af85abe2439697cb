/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer's files (see symbolize.c): every file the trace's mappings
 * map, told apart by path and build id, and for each one a libdwfl session of
 * its own in which names and source lines are looked up. The session is
 * shared by every process that maps the file, so that its DWARF is read once
 * per symbolizer rather than once per process: libc6-dbg's debug sections are
 * compressed, and libdw inflates them whole when it opens them (a third of a
 * real recording's analysis when each process did it).
 *
 * The file is reported at its own addresses (base 0): an address of a
 * process, minus its mapping's load bias, is the file's. The least recently
 * used sessions are closed when more than MAX_LIVE_FILES are open. The
 * process sessions (symbolize_dwfl.c), which place each mapping where the
 * process had it, serve the unwinder; both open files with sym_open_mapping.
 */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis/symbolize_internal.h"

#define DEBUG_DIR "/usr/lib/debug"

/* ---- opening a mapping's file ---- */

/*
 * The load bias of elf as mapped by m: what to add to the file's virtual
 * addresses to get the process's. An executable (ET_EXEC) is not relocated. For
 * a PIE or a shared object, m is one executable segment mapped from file offset
 * pgoff: find the PT_LOAD whose file bytes it maps (the executable one first),
 * and the bias is start - pgoff - (p_vaddr - p_offset). A separate debug file
 * keeps p_vaddr but not p_offset: there the mapping is taken to start at the
 * first executable segment's page. Returns 0, or -1 when no segment fits.
 */
int sym_elf_bias(Elf *elf, const struct wperf_mapping *m, int debug, uint64_t *bias)
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

int wperf_debug_file_path(const char *dir, const struct wperf_mapping *m, char *out, size_t size)
{
	int n;

	if (!m->build_id_len)
		return -1;
	n = snprintf(out, size, "%s/.build-id/%02x/", dir, m->build_id[0]);
	for (unsigned i = 1; i < m->build_id_len && n > 0 && (size_t)n < size; i++)
		n += snprintf(out + n, size - n, "%02x", m->build_id[i]);
	if (n > 0 && (size_t)n < size)
		n += snprintf(out + n, size - n, ".debug");
	return n > 0 && (size_t)n < size ? 0 : -1;
}

int sym_open_mapping(const struct wperf_mapping *m, char *debug_path, Elf **elf, int *debug)
{
	int fd = open_elf(m->path, m, elf);

	*debug = 0;
	/* Gone, or another build: try the debug file of the recorded build. */
	if (fd < 0 && wperf_debug_file_path(DEBUG_DIR, m, debug_path, SYM_DEBUG_PATH_MAX) == 0) {
		fd = open_elf(debug_path, m, elf);
		*debug = 1;
	}
	return fd;
}

/* ---- the files, told apart ---- */

/* Orders mappings (pointers into s->maps) by path, then build id. */
static int cmp_file(const void *a, const void *b)
{
	const struct wperf_mapping *x = (*(const struct sym_map *const *)a)->m;
	const struct wperf_mapping *y = (*(const struct sym_map *const *)b)->m;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->build_id_len != y->build_id_len)
		return x->build_id_len < y->build_id_len ? -1 : 1;
	return memcmp(x->build_id, y->build_id, x->build_id_len);
}

int sym_files_init(struct wperf_symbolizer *s)
{
	struct sym_map **by_file;

	if (!s->nmaps)
		return 0;
	by_file = malloc(s->nmaps * sizeof(*by_file));
	s->files = calloc(s->nmaps, sizeof(*s->files)); /* at most one per mapping */
	if (!by_file || !s->files) {
		free(by_file);
		return -1;
	}
	for (size_t i = 0; i < s->nmaps; i++)
		by_file[i] = &s->maps[i];
	qsort(by_file, s->nmaps, sizeof(*by_file), cmp_file);
	for (size_t i = 0; i < s->nmaps; i++) {
		if (i == 0 || cmp_file(&by_file[i - 1], &by_file[i]))
			s->files[s->nfiles++].first = by_file[i];
		by_file[i]->file = s->nfiles - 1;
	}
	free(by_file);
	return 0;
}

static void file_close(struct wperf_symbolizer *s, struct sym_file *f)
{
	if (!f->dwfl)
		return;
	dwfl_end(f->dwfl); /* closes the file (and its debug file) */
	f->dwfl = NULL;
	f->mod = NULL;
	f->done = 0;
	s->live_files--;
}

void sym_files_release(struct wperf_symbolizer *s)
{
	for (size_t i = 0; i < s->nfiles; i++)
		file_close(s, &s->files[i]);
	free(s->files);
	s->files = NULL;
	s->nfiles = 0;
}

/* ---- each file's session ---- */

/* Builds f's session once: its file (or debug file) as the one module, at base 0. */
static void file_open(struct wperf_symbolizer *s, struct sym_file *f)
{
	const struct wperf_mapping *m = f->first->m;
	char debug_path[SYM_DEBUG_PATH_MAX];
	Elf *elf = NULL;
	int fd;

	while (s->live_files >= MAX_LIVE_FILES) {
		struct sym_file *lru = NULL;

		for (size_t i = 0; i < s->nfiles; i++)
			if (s->files[i].dwfl && (!lru || s->files[i].last_use < lru->last_use))
				lru = &s->files[i];
		if (!lru)
			break;
		file_close(s, lru);
	}
	f->done = 1;
	fd = sym_open_mapping(m, debug_path, &elf, &f->debug);
	if (fd < 0)
		return;
	elf_end(elf); /* libdwfl opens its own from fd */
	f->dwfl = dwfl_begin(&s->cb);
	if (!f->dwfl) {
		close(fd);
		return;
	}
	s->live_files++;
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_elf(f->dwfl, m->path, f->debug ? debug_path : m->path, fd, 0, true);
	if (!f->mod)
		close(fd); /* libdwfl consumes fd only on success */
	dwfl_report_end(f->dwfl, NULL, NULL);
}

Dwfl_Module *sym_file_module(struct wperf_symbolizer *s, struct sym_map *sm, uint64_t *bias)
{
	struct sym_file *f = &s->files[sm->file];
	Dwarf_Addr base;
	Elf *elf;

	f->last_use = ++s->clock;
	if (!f->done)
		file_open(s, f);
	if (!f->mod)
		return NULL;
	if (!sm->file_bias_done) {
		/* The mapping's place in its process, from the file's program headers. */
		elf = dwfl_module_getelf(f->mod, &base);
		sm->file_bias_done = 1;
		sm->file_bias_ok = elf && sym_elf_bias(elf, sm->m, f->debug, &sm->file_bias) == 0;
	}
	if (!sm->file_bias_ok)
		return NULL;
	*bias = sm->file_bias;
	return f->mod;
}
