/* SPDX-License-Identifier: MIT */
/*
 * What the writer (check.c) and the reader (check_read.c) of a check's
 * summary.json share: the names of the enums they spell. Not a public API.
 */
#ifndef WPERF_CHECK_INTERNAL_H
#define WPERF_CHECK_INTERNAL_H

#include "core/gate/check.h"

#define ERROR_NAME "error" /* the verdict of a scenario, or a check, in error */
#define NAMES(a)   (sizeof(a) / sizeof(*(a)))

/* enum wperf_finding_kind and enum wperf_level, by value. */
#define CHECK_FINDING_KINDS 7
#define CHECK_LEVELS	    3
extern const char *const check_finding_kinds[CHECK_FINDING_KINDS];
extern const char *const check_levels[CHECK_LEVELS];

#endif /* WPERF_CHECK_INTERNAL_H */
