/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a repository's .wperf-bench.yaml (harness/gate/repo_config.c:
 * repo_config_parse). */
#include "fuzz_target.h"

FUZZ_TARGET("repo_config")
