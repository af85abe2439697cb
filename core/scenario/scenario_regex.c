/* SPDX-License-Identifier: MIT */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "core/scenario/scenario_regex.h"

#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MATCH_LIMIT 1000000 /* backtracking steps per line: a bad pattern ends, not hangs */

struct scenario_regex {
	pcre2_code *code;
	pcre2_match_context *limits;
	unsigned groups;
};

int scenario_regex_compile(const char *pattern, struct scenario_regex **out, char *why, size_t size)
{
	struct scenario_regex *re = calloc(1, sizeof(*re));
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	PCRE2_UCHAR msg[200];
	PCRE2_SIZE offset;
	int code;

	*out = NULL;
	if (!re || !cc || !(re->limits = pcre2_match_context_create(NULL))) {
		pcre2_compile_context_free(cc);
		scenario_regex_free(re);
		return -ENOMEM;
	}
	pcre2_set_parens_nest_limit(cc, SCENARIO_REGEX_MAX_DEPTH);
	pcre2_set_match_limit(re->limits, MATCH_LIMIT);
	re->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &offset, cc);
	pcre2_compile_context_free(cc);
	if (!re->code) {
		pcre2_get_error_message(code, msg, sizeof(msg));
		snprintf(why, size, "%s at offset %zu", (const char *)msg, (size_t)offset);
		scenario_regex_free(re);
		return code == PCRE2_ERROR_HEAP_FAILED ? -ENOMEM : -EINVAL;
	}
	pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &re->groups);
	*out = re;
	return 0;
}

unsigned scenario_regex_groups(const struct scenario_regex *re)
{
	return re->groups;
}

int scenario_regex_last_line(const struct scenario_regex *re, const char *text, size_t len,
			     const char **at, size_t *n)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
	const char *end = text + len;
	int found = 0;

	if (!md)
		return -ENOMEM;
	for (const char *line = text, *next; line < end; line = next) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t line_len = nl ? (size_t)(nl - line) : (size_t)(end - line);
		int rc = pcre2_match(re->code, (PCRE2_SPTR)line, line_len, 0, 0, md, re->limits);
		const PCRE2_SIZE *v = pcre2_get_ovector_pointer(md);
		int g = re->groups ? 1 : 0;

		next = nl ? nl + 1 : end;
		if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
			found = rc == PCRE2_ERROR_NOMEMORY ? -ENOMEM : -E2BIG;
			break;
		}
		if (rc < 0 || v[2 * g] == PCRE2_UNSET)
			continue; /* no match, or none of the group */
		*at = line + v[2 * g];
		*n = v[2 * g + 1] - v[2 * g];
		found = 1;
	}
	pcre2_match_data_free(md);
	return found;
}

void scenario_regex_free(struct scenario_regex *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	pcre2_match_context_free(re->limits);
	free(re);
}
