/* SPDX-License-Identifier: MIT */
/*
 * Every reader of untrusted input, driven over a buffer of bytes: what the fuzz
 * targets (fuzz/NAME.c, built by `make fuzz`) run on each input, and what
 * tests/unit/test_fuzz_inputs.c replays the inputs the fuzzers found
 * (tests/data/fuzz/NAME/) through, so that both see the same reader the same way.
 *
 * A driver hands the bytes to its reader (through a file in a temporary folder
 * for the readers that take a path), then uses everything the reader returned,
 * so that lazily decoded parts are decoded too, and checks what must hold of a
 * success (what a reader accepts, its writer writes and it reads back). Such a
 * check that fails aborts: for the fuzzer it is a crash like any other.
 */
#ifndef WPERF_TESTS_FUZZ_READERS_H
#define WPERF_TESTS_FUZZ_READERS_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/error.h"

struct fuzz_reader {
	const char *name; /* the fuzz target: fuzz/NAME.c, tests/data/fuzz/NAME/ */
	/* 0, or the reader's negative errno with err set. Frees all it made. */
	int (*read)(const uint8_t *data, size_t size, struct wperf_error *err);
	/*
	 * What an error message of the reader starts with, followed by ':': the
	 * file the driver wrote the input to, or the name it gave the reader.
	 * NULL for the readers that skip what they cannot parse and never fail.
	 */
	const char *(*where)(void);
};

/*
 * Whether ret and err are what r's reader may give: 0, or a negative errno
 * with err set to a message that starts with where the problem is.
 */
int fuzz_result_ok(const struct fuzz_reader *r, int ret, const struct wperf_error *err);

/* The reader called name, or NULL. */
const struct fuzz_reader *fuzz_reader_find(const char *name);

#endif /* WPERF_TESTS_FUZZ_READERS_H */
