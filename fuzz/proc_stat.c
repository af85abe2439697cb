/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: /proc/PID/stat, for the parent process (harness/record/proc_info.c:
 * proc_stat_ppid).
 */
#include "fuzz_target.h"

FUZZ_TARGET("proc_stat")
