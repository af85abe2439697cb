/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: runs and environments as JSON (core/gate/run_json.c), as summary.json keeps
 * them.
 */
#include "fuzz_target.h"

FUZZ_TARGET("run_json")
