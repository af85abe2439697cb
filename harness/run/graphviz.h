/* SPDX-License-Identifier: MIT */
/*
 * Rendering DOT with Graphviz's dot program.
 */
#ifndef WPERF_GRAPHVIZ_H
#define WPERF_GRAPHVIZ_H

#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"

/* Runs `dot -TFORMAT` (svg, png) on the DOT text; appends its output to out. */
int graphviz_render(const char *dot, size_t len, const char *format, struct wperf_buf *out,
		    struct wperf_error *err);

#endif /* WPERF_GRAPHVIZ_H */
