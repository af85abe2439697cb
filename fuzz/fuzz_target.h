/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target is one reader of tests/lib/fuzz_readers.c: fuzz/NAME.c is
 * FUZZ_TARGET("NAME"). A reader that crashes, leaks, or gives an error that
 * does not say where the problem is, is a finding.
 */
#ifndef WPERF_FUZZ_TARGET_H
#define WPERF_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/lib/fuzz_readers.h"

#define FUZZ_TARGET(name)                                                                          \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                              \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                               \
	{                                                                                          \
		static const struct fuzz_reader *r;                                                \
		struct wperf_error err = {0};                                                      \
		int ret;                                                                           \
                                                                                                   \
		if (!r && !(r = fuzz_reader_find(name)))                                           \
			abort();                                                                   \
		ret = r->read(data, size, &err);                                                   \
		if (!fuzz_result_ok(r, ret, &err)) {                                               \
			fprintf(stderr, "%s: a bad error: %d, \"%s\"\n", name, ret, err.msg);      \
			abort();                                                                   \
		}                                                                                  \
		return 0;                                                                          \
	}

#endif /* WPERF_FUZZ_TARGET_H */
