/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a results folder's summary.json (harness/run/results_json.c: results_read). */
#include "fuzz_target.h"

FUZZ_TARGET("results")
