/* SPDX-License-Identifier: MIT */
/*
 * Shared by knots.c and knots_refine.c only; not part of libwperf's API.
 */
#ifndef WPERF_KNOTS_INTERNAL_H
#define WPERF_KNOTS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/analysis/graph.h"

/*
 * One refinement step. The knot has n > 1 vertices, loc maps each of them (a
 * global id) to 0 .. n - 1, and its m inner edges come sorted by (weight, from,
 * to). Trims the lightest weight levels until the knot is no longer strongly
 * connected, or what is left is a simple cycle or has no edge lighter than
 * threshold: *cut gets how many edges went, comp[0 .. n) the components of
 * what is left, *ncomp their number (1: the knot stays whole, to be reported
 * with its remaining edges). Returns 0 or -ENOMEM.
 */
int wperf_knot_split(uint32_t n, const uint32_t *loc, const struct wperf_edge *edges, size_t m,
		     uint64_t threshold, uint32_t *comp, uint32_t *ncomp, size_t *cut);

#endif /* WPERF_KNOTS_INTERNAL_H */
