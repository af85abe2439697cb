/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a check's summary.json (core/gate/check_read.c), as `post` reads it
 * back from a check-perf folder, maybe one a fork's pull request uploaded.
 */
#include "fuzz_target.h"

FUZZ_TARGET("check")
