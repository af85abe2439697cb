/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a JIT's perf map, /tmp/perf-PID.map (core/analysis/symbolize_perfmap.c:
 * wperf_perfmap_parse).
 */
#include "fuzz_target.h"

FUZZ_TARGET("perfmap")
