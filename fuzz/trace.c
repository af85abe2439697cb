/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: trace files (core/trace_reader*.c): the header, every section, every table and
 * every event.
 */
#include "fuzz_target.h"

FUZZ_TARGET("trace")
