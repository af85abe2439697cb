/* SPDX-License-Identifier: MIT */
/*
 * What check-perf leaves in its folder besides the scenarios' results:
 * summary.json (core/gate/check.h), summary.md (the pull-request comment) and
 * junit.xml; and the folder itself, emptied for a new check.
 */
#ifndef WPERF_CHECK_WRITE_H
#define WPERF_CHECK_WRITE_H

#include "core/gate/check.h"
#include "core/util/error.h"

/* The name of the file that marks a folder as a check's, so that only such a
 * folder is ever emptied. */
#define CHECK_MARK "summary.json"

/*
 * Makes dir ready for a check: made when missing, kept when empty, emptied
 * when it is a check's folder from before (its CHECK_MARK is of format
 * WPERF_CHECK_FORMAT, not a run's summary.json); -ENOTEMPTY with advice when
 * it holds anything else, so that a mistyped --results never costs a file.
 */
int check_write_prepare(const char *dir, struct wperf_error *err);

/* The work tree's commit, branch and dirty flag into c. */
void check_write_head(struct wperf_check *c);

/* Writes dir/summary.json, summary.md and junit.xml of c, each atomically. */
int check_write(const struct wperf_check *c, const char *dir, struct wperf_error *err);

#endif /* WPERF_CHECK_WRITE_H */
