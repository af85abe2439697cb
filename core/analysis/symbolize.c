/* SPDX-License-Identifier: MIT */
/*
 * The stack symbolizer (see symbolize.h).
 *
 * Layout: the trace's mappings are sorted by (tgid, start) into one array;
 * each process (tgid) owns a contiguous range of it. An address is looked up
 * in its own mapping (not with dwfl_addrmodule: mappings recorded at different
 * times may overlap, and the last recorded one wins), then in that mapping's
 * file: each file mapped gets an offline libdwfl session the first time one
 * of its frames is formatted (symbolize_file.c), shared by every process that
 * maps it, and the address minus the mapping's load bias (computed from the
 * mapping's start and pgoff and the file's program headers) is looked up in it.
 *
 * libdwfl keeps each file open (and its separate debug file, once it has
 * looked for one), so the least recently used sessions are closed when more
 * than MAX_LIVE_FILES are open; they are reopened if needed again. JIT frames
 * are named from perf maps (symbolize_perfmap.c). Formatted user frames are
 * cached by (tgid, ip) in an open-addressing hash table whose strings live in
 * one buffer.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis/symbolize_internal.h"
#include "core/util/cmp.h"

#define FRAME_MAX 512 /* the longest formatted frame; longer ones are truncated */

/* ---- small helpers ---- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Appends str at *pos of buf (size bytes), truncating; buf stays NUL-terminated. */
static void append(char *buf, size_t size, size_t *pos, const char *str)
{
	size_t n = strlen(str);

	if (*pos + 1 >= size)
		return;
	if (n > size - 1 - *pos)
		n = size - 1 - *pos;
	memcpy(buf + *pos, str, n);
	*pos += n;
	buf[*pos] = '\0';
}

static int cmp_map(const void *a, const void *b)
{
	const struct sym_map *x = a, *y = b;
	const uint64_t kx[] = {x->m->tgid, x->m->start, x->order};
	const uint64_t ky[] = {y->m->tgid, y->m->start, y->order};

	return wperf_cmp_keys(kx, ky, 3);
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct wperf_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* ---- creation ---- */

/* The trace's folder of debug files (NULL: none), then libdwfl's default
 * places, as libdwfl's search path: build ids are looked up in its absolute
 * folders, in order. 0, or -1 on no memory. */
static int set_debug_path(struct wperf_symbolizer *s, const char *dir)
{
	size_t len;

	if (!dir)
		return 0; /* NULL: libdwfl's default, ":.debug:/usr/lib/debug" */
	len = strlen(dir) + sizeof(":.debug::/usr/lib/debug");
	s->debuginfo_path = malloc(len);
	if (!s->debuginfo_path)
		return -1;
	snprintf(s->debuginfo_path, len, ":.debug:%s:/usr/lib/debug", dir);
	return 0;
}

int wperf_symbolizer_new(const struct wperf_trace *t, struct wperf_symbolizer **out,
			 struct wperf_error *err)
{
	const struct wperf_mapping *maps;
	const struct wperf_perfmap *pmaps;
	const struct wperf_ksym *ksyms;
	struct wperf_symbolizer *s;
	size_t nmaps, npmaps, nksyms;

	*out = NULL;
	if (!t)
		return wperf_error_set(err, -EINVAL, "symbolizer: no trace");
	if (elf_version(EV_CURRENT) == EV_NONE) /* libelf wants it before elf_begin */
		return wperf_error_set(err, -ENOTSUP, "symbolizer: libelf is too old");
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->t = t;
	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	s->cb.debuginfo_path = &s->debuginfo_path;
	if (set_debug_path(s, wperf_trace_debug_dir(t)) < 0)
		goto nomem;

	/* Mappings, sorted by (tgid, start), and one process per tgid seen. */
	maps = wperf_trace_mappings(t, &nmaps);
	pmaps = wperf_trace_perfmaps(t, &npmaps);
	if (nmaps) {
		s->maps = calloc(nmaps, sizeof(*s->maps));
		if (!s->maps)
			goto nomem;
	}
	for (size_t i = 0; i < nmaps; i++)
		s->maps[i] = (struct sym_map){.m = &maps[i], .order = i};
	s->nmaps = nmaps;
	if (nmaps) /* maps is NULL when the trace has no mappings */
		qsort(s->maps, nmaps, sizeof(*s->maps), cmp_map);
	if (sym_files_init(s))
		goto nomem;
	/* Every tgid gets an index; procs is sized for the most there can be. */
	if (nmaps + npmaps) {
		s->procs = calloc(nmaps + npmaps, sizeof(*s->procs));
		if (!s->procs)
			goto nomem;
	}
	for (size_t i = 0; i < nmaps + npmaps; i++) {
		uint32_t tgid = i < nmaps ? s->maps[i].m->tgid : pmaps[i - nmaps].tgid;
		int added;
		int64_t idx = wperf_idmap_get(&s->proc_ids, tgid, &added);

		if (idx < 0)
			goto nomem;
		if (added) {
			s->procs[idx].tgid = tgid;
			s->procs[idx].map_first = i < nmaps ? i : 0;
			s->nprocs++;
		}
		if (i < nmaps)
			s->procs[idx].map_count++; /* sorted: a tgid's mappings are contiguous */
	}

	/* Kernel symbols, sorted by address for bsearch. */
	ksyms = wperf_trace_ksyms(t, &nksyms);
	if (nksyms) {
		s->ksyms = malloc(nksyms * sizeof(*s->ksyms));
		if (!s->ksyms)
			goto nomem;
		memcpy(s->ksyms, ksyms, nksyms * sizeof(*s->ksyms));
		qsort(s->ksyms, nksyms, sizeof(*s->ksyms), cmp_ksym);
	}
	s->nksyms = nksyms;
	*out = s;
	return 0;
nomem:
	wperf_symbolizer_free(s);
	return wperf_error_set(err, -ENOMEM, "symbolizer: out of memory");
}

void wperf_symbolizer_free(struct wperf_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nprocs; i++) {
		sym_proc_close(s, &s->procs[i]);
		free(s->procs[i].jit);
	}
	sym_files_release(s);
	free(s->debuginfo_path);
	free(s->procs);
	free(s->maps);
	free(s->ksyms);
	free(s->cache);
	wperf_idmap_release(&s->proc_ids);
	wperf_buf_release(&s->strings);
	free(s);
}

/* ---- user frames ---- */

/* The mapping of p holding ip (the latest recorded one if several do), or NULL. */
static struct sym_map *find_map(struct wperf_symbolizer *s, struct sym_proc *p, uint64_t ip)
{
	struct sym_map *m = s->maps + p->map_first;
	size_t lo = 0, hi = p->map_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m[mid].m->start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Walk back over every mapping that starts at or below ip: few per process. */
	struct sym_map *best = NULL;

	for (size_t i = lo; i-- > 0;)
		if (ip < m[i].m->end && (!best || m[i].order > best->order))
			best = &m[i];
	return best;
}

/*
 * The source file and line of addr when libdwfl found none: it looks the compile
 * unit up in .debug_aranges, which clang does not emit (and libdw 0.188 does not
 * make up for), so walk the units and ask each whether it holds the address.
 * Linear in the number of units, and only on a cache miss.
 */
static const char *src_by_units(Dwfl_Module *mod, uint64_t addr, int *lineno)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Line *line;
	uint8_t type;

	if (!dw)
		return NULL;
	while (dwarf_get_units(dw, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		if ((type != DW_UT_compile && type != DW_UT_partial) ||
		    dwarf_haspc(&cudie, addr - bias) <= 0)
			continue;
		line = dwarf_getsrc_die(&cudie, addr - bias);
		if (line && dwarf_lineno(line, lineno) == 0)
			return dwarf_linesrc(line, NULL, NULL);
		return NULL;
	}
	return NULL;
}

/* Formats addr of module mod (file basename file); 0 if it has no symbol there. */
static int format_module(Dwfl_Module *mod, uint64_t addr, const char *file, char *out, size_t size)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name, *src = NULL;
	Dwfl_Line *line;
	int lineno = 0;
	char plain[FRAME_MAX];

	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name)
		return 0;
	if (wperf_demangle(name, plain, sizeof(plain)))
		name = plain;
	line = dwfl_module_getsrc(mod, addr);
	if (line)
		src = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	else
		src = src_by_units(mod, addr, &lineno);
	/* A frame longer than out is truncated (a demangled template can be). */
	if (src && lineno > 0)
		return snprintf(out, size, "%s (%s:%d)", name, base_name(src), lineno) > 0;
	return snprintf(out, size, "%s (%s)", name, file) > 0;
}

/* Formats one user frame, looked up at ip - ret, into out (FRAME_MAX bytes). */
static void format_user(struct wperf_symbolizer *s, uint32_t tgid, uint64_t ip, int ret, char *out)
{
	uint64_t addr = ret && ip ? ip - 1 : ip;
	int64_t idx = wperf_idmap_find(&s->proc_ids, tgid);
	struct sym_proc *p;
	struct sym_map *sm;
	const struct wperf_jit_sym *j;
	uint64_t bias;

	if (idx < 0)
		goto unknown;
	p = &s->procs[idx];
	sm = find_map(s, p, addr);
	if (sm) {
		const char *file = base_name(sm->m->path);
		Dwfl_Module *mod = sym_file_module(s, sm, &bias);

		if (mod && format_module(mod, addr - bias, file, out, FRAME_MAX))
			return;
		/* The offset in the file, as addr2line wants it when p_vaddr == p_offset. */
		snprintf(out, FRAME_MAX, "[%s+0x%" PRIx64 "]", file,
			 ip - sm->m->start + sm->m->pgoff);
		return;
	}
	j = sym_find_jit(s, p, addr);
	if (j) {
		snprintf(out, FRAME_MAX, "%.*s [jit]", (int)j->name_len, j->name);
		return;
	}
unknown:
	snprintf(out, FRAME_MAX, "[unknown 0x%" PRIx64 "]", ip);
}

static uint64_t cache_hash(uint32_t tgid, uint64_t ip, uint32_t used)
{
	uint64_t h = ip ^ ((uint64_t)tgid << 32 | used);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* The slot of (tgid, ip, used), or the empty slot where it belongs. */
static struct cache_slot *cache_slot(struct cache_slot *c, size_t cap, uint32_t tgid, uint64_t ip,
				     uint32_t used)
{
	size_t i = cache_hash(tgid, ip, used) & (cap - 1);

	while (c[i].used && (c[i].ip != ip || c[i].tgid != tgid || c[i].used != used))
		i = (i + 1) & (cap - 1);
	return &c[i];
}

/* Adds a formatted frame to the cache; on no memory it is just not cached. */
static void cache_put(struct wperf_symbolizer *s, uint32_t tgid, uint64_t ip, uint32_t used,
		      const char *str)
{
	size_t off = s->strings.len;
	struct cache_slot *slot;

	if (s->cache_count + 1 > s->cache_cap / 2) {
		size_t cap = s->cache_cap ? s->cache_cap * 2 : 1024;
		struct cache_slot *c = calloc(cap, sizeof(*c));

		if (!c)
			return;
		for (size_t i = 0; i < s->cache_cap; i++)
			if (s->cache[i].used)
				*cache_slot(c, cap, s->cache[i].tgid, s->cache[i].ip,
					    s->cache[i].used) = s->cache[i];
		free(s->cache);
		s->cache = c;
		s->cache_cap = cap;
	}
	if (wperf_buf_append_str(&s->strings, str) < 0)
		return;
	slot = cache_slot(s->cache, s->cache_cap, tgid, ip, used);
	*slot = (struct cache_slot){.ip = ip, .tgid = tgid, .used = used, .str = off};
	s->cache_count++;
}

/* A user frame through the cache; the string is valid until the next call. */
static const char *user_frame(struct wperf_symbolizer *s, uint32_t tgid, uint64_t ip, int ret,
			      char *tmp)
{
	uint32_t used = 1 + !!ret;

	if (s->cache_cap) {
		struct cache_slot *c = cache_slot(s->cache, s->cache_cap, tgid, ip, used);

		if (c->used)
			return (const char *)s->strings.data + c->str;
	}
	format_user(s, tgid, ip, ret, tmp);
	cache_put(s, tgid, ip, used, tmp);
	return tmp;
}

void wperf_symbolize_user(struct wperf_symbolizer *s, uint32_t tgid, uint64_t ip, char *buf,
			  size_t size)
{
	char tmp[FRAME_MAX];

	if (size)
		snprintf(buf, size, "%s", user_frame(s, tgid, ip, 0, tmp));
}

/* ---- kernel frames ---- */

static const char *kernel_frame(struct wperf_symbolizer *s, uint64_t ip, char *tmp)
{
	struct wperf_ksym key = {.addr = ip};
	const struct wperf_ksym *k =
	    s->nksyms ? bsearch(&key, s->ksyms, s->nksyms, sizeof(key), cmp_ksym) : NULL;

	if (k)
		return k->name;
	snprintf(tmp, FRAME_MAX, "[kernel 0x%" PRIx64 "]", ip);
	return tmp;
}

void wperf_symbolize_kernel(struct wperf_symbolizer *s, uint64_t ip, char *buf, size_t size)
{
	char tmp[FRAME_MAX];

	if (size)
		snprintf(buf, size, "%s", kernel_frame(s, ip, tmp));
}

/* ---- stacks ---- */

/* Does return address ip of process tgid lie in code the trace knows of: a
 * mapping of the process, or a JIT's symbol? */
static int return_address_known(struct wperf_symbolizer *s, uint32_t tgid, uint64_t ip)
{
	int64_t idx = wperf_idmap_find(&s->proc_ids, tgid);
	struct sym_proc *p = idx < 0 ? NULL : &s->procs[idx];

	return p && ip && (find_map(s, p, ip - 1) || sym_find_jit(s, p, ip - 1));
}

uint32_t wperf_symbolize_user_depth(struct wperf_symbolizer *s, uint32_t tgid,
				    const struct wperf_stack *st)
{
	uint32_t n = st->nr ? 1 : 0;

	while (n < st->nr && return_address_known(s, tgid, st->ips[n]))
		n++;
	return n;
}

void wperf_symbolize_stack(struct wperf_symbolizer *s, int32_t id, int user, uint32_t tgid,
			   const char *sep, unsigned max_frames, char *buf, size_t size)
{
	const struct wperf_stack *st = wperf_trace_stack(s->t, id, user);
	char tmp[FRAME_MAX];
	size_t pos = 0;
	uint32_t depth;

	if (!size)
		return;
	buf[0] = '\0';
	if (!st) {
		append(buf, size, &pos, "[no stack]");
		return;
	}
	depth = user ? wperf_symbolize_user_depth(s, tgid, st) : st->nr;
	for (uint32_t i = 0; i < depth && (!max_frames || i < max_frames); i++) {
		if (i)
			append(buf, size, &pos, sep ? sep : "");
		/* Frames past the innermost are return addresses: look up the call. */
		append(buf, size, &pos,
		       user ? user_frame(s, tgid, st->ips[i], i > 0, tmp)
			    : kernel_frame(s, st->ips[i], tmp));
	}
}
