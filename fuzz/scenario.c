/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: scenario files (core/scenario/scenario*.c): YAML, as `wperf-bench run` and `check`
 * load them.
 */
#include "fuzz_target.h"

FUZZ_TARGET("scenario")
