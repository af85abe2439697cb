/* SPDX-License-Identifier: MIT */
/* libFuzzer target: lines of /proc/PID/maps (harness/record/proc_info.c: proc_maps_line). */
#include "fuzz_target.h"

FUZZ_TARGET("proc_maps")
