/* SPDX-License-Identifier: MIT */
/*
 * Turns the addresses of a trace's stacks into names, offline, from the trace's
 * own tables:
 *
 *   user frames    MAPPINGS (the executable file mappings of each process), read
 *                  with elfutils' libdwfl: symbol from the ELF symbol table, file
 *                  and line from DWARF when the binary (or its separate debug file)
 *                  has it; then PERFMAP (a JIT's /tmp/perf-PID.map) for addresses
 *                  outside every mapping.
 *   kernel frames  KSYMS, resolved at recording time: an exact address lookup.
 *
 * A mapping whose file is gone, or whose build id differs from the recorded one,
 * is read from /usr/lib/debug/.build-id/xx/yyyy.debug instead when that exists;
 * otherwise its frames stay unresolved ("[fig1+0x1234]", 0x1234 being the offset
 * in the file: address - mapping start + pgoff).
 *
 * Formats of one frame:
 *   "funB (fig1.c:57)"                   symbol, and source basename:line
 *   "ns::Queue::push(int) (q.cc:12)"     C++ and Rust symbols demangled
 *   "fsync (libc.so.6)"                  symbol, no line info: the file's basename
 *   "java.io.FileChannel.force [jit]"    from the process's perf map
 *   "[fig1+0x1234]"                      in a mapping, but no symbol for it
 *   "[unknown 0x7f0012345678]"           in no mapping and no perf map entry
 *   "do_fsync+0x2a"                      kernel, from KSYMS
 *   "[kernel 0xffffffff81234567]"        kernel, not in KSYMS
 *
 * The symbolizer reads each ELF file once, lazily, on the first frame in it,
 * whichever processes map it, and caches every user frame it formats, so
 * formatting the same frames many times is cheap. It keeps at most 64 ELF files
 * open for names (each with maybe its debug file), and 256 for unwinding,
 * closing the least recently used beyond that.
 * Separate debug info is found as libdwfl does (build id, .gnu_debuglink, and
 * debuginfod when DEBUGINFOD_URLS is set), by build id in the trace's debug
 * directory first when it has one (wperf_trace_set_debug_dir). Not
 * thread-safe: one per thread.
 */
#ifndef WPERF_SYMBOLIZE_H
#define WPERF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "core/trace/trace.h"

struct wperf_symbolizer;

/*
 * The path of the separate debug file of m's build id under dir, as
 * /usr/lib/debug lays them out: DIR/.build-id/xx/rest.debug (xx the first
 * byte in hex, rest the others). 0, or -1 when m has no build id or the path
 * does not fit in size bytes.
 */
int wperf_debug_file_path(const char *dir, const struct wperf_mapping *m, char *out, size_t size);

/*
 * Creates a symbolizer over t's tables; t must outlive it. Returns 0, or a
 * negative errno (-ENOMEM) with err set. Opens no file yet.
 */
int wperf_symbolizer_new(const struct wperf_trace *t, struct wperf_symbolizer **out,
			 struct wperf_error *err);

/*
 * Formats one user frame of process tgid into buf (always NUL-terminated when
 * size > 0, truncated to fit). ip is looked up as is: pass a return address
 * minus 1 to get the line of the call (wperf_symbolize_stack does that itself).
 */
void wperf_symbolize_user(struct wperf_symbolizer *s, uint32_t tgid, uint64_t ip, char *buf,
			  size_t size);

/* Formats one kernel frame, from KSYMS by exact address. */
void wperf_symbolize_kernel(struct wperf_symbolizer *s, uint64_t ip, char *buf, size_t size);

/*
 * How many frames of user stack st of process tgid are real: the innermost,
 * then every return address up to the first that lies in no mapping of the
 * process and no JIT symbol. A program built without frame pointers gives
 * the kernel's frame-pointer walk data to read as return addresses
 * ("[unknown 0x3732312072657672]", ASCII): what follows is not its stack.
 */
uint32_t wperf_symbolize_user_depth(struct wperf_symbolizer *s, uint32_t tgid,
				    const struct wperf_stack *st);

/*
 * Formats the stack with this id (a kernel stack if !user; tgid names the process
 * of a user stack), innermost frame first, the frames joined by sep. At most
 * max_frames frames (0: all); a user stack up to its depth
 * (wperf_symbolize_user_depth). Every user frame but the innermost is a return
 * address and is looked up at ip - 1, so that its line is the call's. An id that
 * is not in the trace gives "[no stack]".
 */
void wperf_symbolize_stack(struct wperf_symbolizer *s, int32_t id, int user, uint32_t tgid,
			   const char *sep, unsigned max_frames, char *buf, size_t size);

/*
 * Writes the demangled form of a C++ (Itanium ABI) or Rust (legacy or v0)
 * symbol name into buf (NUL-terminated, truncated to fit) and returns 1; 0,
 * buf untouched, when name is no such name. "_ZN2ns5Queue4pushEi" gives
 * "ns::Queue::push(int)"; a symbol version stays after the name
 * ("...~_State()@@GLIBCXX_3.4.22").
 */
int wperf_demangle(const char *name, char *buf, size_t size);

/*
 * Unwinds the user stacks that `record --stacks dwarf` copied (t's
 * STACK_COPIES) with the call frame information of the process's binaries,
 * and adds them to t's STACKS table under the copies' ids
 * (wperf_trace_add_stacks): call it after wperf_trace_open, before anything
 * reads t's stacks. A copy that cannot be unwound (its binary gone, no call
 * frame information) keeps its innermost frame. 0 (also when t has no
 * copies), or a negative errno with err set.
 */
int wperf_unwind_copies(struct wperf_trace *t, struct wperf_error *err);

/* Frees the symbolizer and closes its files (NULL-safe). */
void wperf_symbolizer_free(struct wperf_symbolizer *s);

/* One entry of a JIT's perf map: a "START SIZE name" line (hexadecimal, 0x optional). */
struct wperf_jit_sym {
	uint64_t start, size; /* size > 0 */
	const char *name;     /* in the perf map's text: not NUL-terminated, never empty */
	size_t name_len;
	size_t order; /* its index in the buffer: among equal starts, the later line wins */
};

/*
 * Appends the entries of the perf map text (len bytes, untrusted: a process wrote
 * it) to out as struct wperf_jit_sym; lines that are not entries are skipped.
 * 0 or -ENOMEM.
 */
int wperf_perfmap_parse(const char *text, size_t len, struct wperf_buf *out);

#endif /* WPERF_SYMBOLIZE_H */
