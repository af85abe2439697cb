/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: baselines (core/gate/baseline_read.c, baseline_write.c): YAML, and what reads
 * must write and read back the same.
 */
#include "fuzz_target.h"

FUZZ_TARGET("baseline")
