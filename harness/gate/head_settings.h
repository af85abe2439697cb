/* SPDX-License-Identifier: MIT */
/*
 * What a pull request changes of the files that set its own gate: with a base,
 * the scenario files, gate settings and accepted: entries are the base's (the
 * base decides the bar), and what the head would change is told, not applied.
 */
#ifndef WPERF_HEAD_SETTINGS_H
#define WPERF_HEAD_SETTINGS_H

#include <stddef.h>

#include "core/util/buf.h"

#define HEAD_SETTINGS_MAX_LINES 20 /* per file; then one line counts the rest */

/*
 * Appends to out one line "LABEL: key.path: BEFORE -> AFTER\n" for each change
 * from the YAML file base_path to head_path: the whole document, or only its
 * top-level key when key is not NULL ("accepted"). A file missing on one side
 * is an empty document; one that cannot be read or parsed is one line that
 * says so. 0 or -ENOMEM.
 */
int head_settings_diff(const char *label, const char *base_path, const char *head_path,
		       const char *key, struct wperf_buf *out);

/* Splits the lines of text into a malloc'ed array of malloc'ed strings, as
 * struct wperf_check_scenario's settings_changed holds them. 0 or -ENOMEM. */
int head_settings_lines(const struct wperf_buf *text, char ***lines, size_t *n);

#endif /* WPERF_HEAD_SETTINGS_H */
