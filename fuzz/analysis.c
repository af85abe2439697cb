/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a trace that opens, analyzed as `wperf-bench report` does
 * (core/analysis/analysis.c and what it calls), since a trace is untrusted input.
 */
#include "fuzz_target.h"

FUZZ_TARGET("analysis")
