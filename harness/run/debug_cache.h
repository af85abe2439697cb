/* SPDX-License-Identifier: MIT */
/*
 * A cache of separate debug files with their DWARF decompressed, by build id,
 * for the symbolizer (core/analysis/symbolize.h) to find before
 * /usr/lib/debug.
 *
 * Debian's -dbg and -dbgsym packages ship their debug sections compressed
 * (SHF_COMPRESSED), and libdw inflates every one of them whenever it opens
 * the file: libc6-dbg's 4 MB become 10 MB, about 0.05 s, a third of a
 * memcached run's analysis, paid again by every report. The first analysis
 * that needs such a file writes its decompressed copy here, once; the later
 * ones read it as it is.
 *
 * The folder: $WPERF_DEBUG_CACHE, else $XDG_CACHE_HOME/wperf-bench/debug,
 * else $HOME/.cache/wperf-bench/debug; WPERF_DEBUG_CACHE=off turns it off.
 * Laid out as /usr/lib/debug is: DIR/.build-id/xx/rest.debug. A copy is
 * written beside its name and renamed, so a concurrent analysis never reads
 * half of one. Each copy used is touched, and the least recently used are
 * removed while the folder holds more than DEBUG_CACHE_MAX_BYTES (with any
 * temporary an hour old: its writer was killed).
 */
#ifndef WPERF_DEBUG_CACHE_H
#define WPERF_DEBUG_CACHE_H

#include <stdint.h>

#include "core/trace/trace.h"

#define DEBUG_CACHE_MAX_BYTES (512ull << 20)

/*
 * Makes the decompressed copy of the compressed debug file of every build id
 * of t's mappings that has one under /usr/lib/debug/.build-id, and gives t
 * the cache's folder (wperf_trace_set_debug_dir) when it holds any of them.
 * Best effort: a cache that cannot be written leaves t as it was, and the
 * symbolizer reads /usr/lib/debug; the answers are the same either way.
 */
void debug_cache_use(struct wperf_trace *t);

/* The cache's folder into dir (size bytes); 0, or -1 when it is off or there
 * is no home to put it in. */
int debug_cache_dir(char *dir, size_t size);

/* Removes the least recently used copies of the cache at dir until it holds
 * at most max_bytes, and the temporaries an hour old. Returns how many bytes
 * of copies it holds then. */
uint64_t debug_cache_trim(const char *dir, uint64_t max_bytes);

#endif /* WPERF_DEBUG_CACHE_H */
