/* SPDX-License-Identifier: MIT */
/*
 * Which scenarios a check runs: among the files and folders it is given, the
 * scenarios (and each variant of a matrix) tagged with its tag, in name order,
 * and the share of them a shard runs (check_shard.h).
 *
 * With a base tree, the base's copy of a file decides its tags and variants,
 * so that a pull request that takes a scenario out of the tag does not skip
 * the check of its own change, and a scenario the head removed from a folder
 * is selected still (both sides run the base's file). A file that does not
 * load is selected: the check reports its error.
 *
 * Ownership: a struct check_selection owns its files (their strings);
 * check_selection_release frees them. A zeroed struct is empty.
 */
#ifndef WPERF_CHECK_SELECT_H
#define WPERF_CHECK_SELECT_H

#include <stddef.h>

#include "core/util/buf.h"
#include "core/util/error.h"
#include "harness/gate/check_shard.h"
#include "harness/git/base_tree.h"

/* A selected scenario: its file (FILE or FILE@VARIANT) and its name (the
 * file's stem when it does not load), by which the selection is sorted. */
struct check_selected {
	char *file, *name;
};

struct check_selection {
	/* given */
	const char *tag;
	const char *build_dir;		 /* ${BUILD_DIR} while the files load */
	char *const *defs;		 /* the user's variables (scenario_vars.defs) */
	const struct base_tree *tree;	 /* whose copies decide; NULL: the files' own */
	const struct check_shard *shard; /* NULL: the whole selection */
	/* made */
	struct check_selected *files; /* in name order */
	size_t nfiles, nshare;	      /* how many; how many are the shard's */
	struct wperf_buf buf;	      /* holds files */
};

/*
 * Selects, from the n operands (a scenario file, FILE@VARIANT, or a folder of
 * *.yaml files), the scenarios tagged sel->tag into sel. 0, or a negative
 * errno with err: an operand that does not exist, no scenario tagged, two
 * files of one scenario name, a shard with no scenario, no memory.
 */
int check_select(struct check_selection *sel, char *const *operands, size_t n,
		 struct wperf_error *err);

void check_selection_release(struct check_selection *sel);

#endif /* WPERF_CHECK_SELECT_H */
