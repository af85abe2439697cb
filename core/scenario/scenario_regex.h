/* SPDX-License-Identifier: MIT */
/*
 * The regexes of scenarios (load.throughput.regex, services.NAME.ready.log):
 * PCRE2, as Perl and most tools write them (\d, \s, lazy .*?), matched line
 * by line. The loader compiles each once to check it; the runner compiles it
 * again to use it.
 *
 * Hostile patterns and texts are bounded: groups nest at most 32 deep, the
 * compiled pattern is PCRE2's at most 64 KiB, and a match that backtracks more
 * than a million times gives up (-E2BIG) rather than hang the run.
 *
 * Ownership: scenario_regex_compile gives a regex that scenario_regex_free
 * releases (NULL-safe).
 */
#ifndef WPERF_SCENARIO_REGEX_H
#define WPERF_SCENARIO_REGEX_H

#include <stddef.h>

#define SCENARIO_REGEX_MAX_DEPTH 32 /* nested groups */

struct scenario_regex;

/* 0 and *out, -EINVAL with why ("missing closing parenthesis at offset 7"), or -ENOMEM. */
int scenario_regex_compile(const char *pattern, struct scenario_regex **out, char *why,
			   size_t size);

/* How many capturing groups the regex has. */
unsigned scenario_regex_groups(const struct scenario_regex *re);

/*
 * The last line of text[0, len) (lines end with '\n') that re matches, its
 * first group taking part when it has groups: 1 with *at and *n, that group
 * (the whole match when re has none); 0 when no line matches; -E2BIG when a
 * line needed more than the match limit; -ENOMEM.
 */
int scenario_regex_last_line(const struct scenario_regex *re, const char *text, size_t len,
			     const char **at, size_t *n);

void scenario_regex_free(struct scenario_regex *re);

#endif /* WPERF_SCENARIO_REGEX_H */
