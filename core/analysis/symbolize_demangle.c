/* SPDX-License-Identifier: MIT */
/*
 * C++ and Rust symbol names as people write them, with libiberty's demangler
 * (the one binutils and gdb use): DMGL_AUTO tries Rust first (legacy Rust
 * names are valid Itanium names too, and would keep their hash) then the
 * Itanium C++ ABI; DMGL_PARAMS and DMGL_ANSI keep the parameter types and
 * their qualifiers, which tell overloads apart. The symbolizer calls it once
 * per formatted frame, and caches the frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "core/analysis/symbolize.h"

int wperf_demangle(const char *name, char *buf, size_t size)
{
	/* A symbol version ("@@GLIBCXX_3.4") is no part of the mangled name: it is
	 * demangled without, and kept after. */
	const char *version = strchr(name, '@');
	char *bare = NULL, *plain;

	/* Itanium names (and Rust's legacy ones) begin with _Z, Rust v0 ones with _R:
	 * anything else is a C name, and asking would only cost. */
	if (!size || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return 0;
	if (version && !(bare = strndup(name, (size_t)(version - name))))
		return 0; /* no memory: shown as it is */
	plain = cplus_demangle(bare ? bare : name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	free(bare);
	if (!plain)
		return 0; /* not a valid mangled name (or no memory): shown as it is */
	snprintf(buf, size, "%s%s", plain, version ? version : "");
	free(plain);
	return 1;
}
