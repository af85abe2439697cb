/* SPDX-License-Identifier: MIT */
/*
 * The header lines of a forge's answer (harness/forge/forge_http.c), as libcurl
 * hands them over one at a time: the next page of a paged list, the back-off
 * numbers, and what a malformed header leaves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness/forge/forge_http.h"

static void headers(struct forge_response *r, const char *const *lines)
{
	forge_response_release(r);
	for (size_t i = 0; lines[i]; i++)
		forge_response_header(r, lines[i], strlen(lines[i]));
}

static void next_page_from_link(void **state)
{
	static const char *const lines[] = {
	    "HTTP/2 200\r\n",
	    "link: <https://api.github.com/x?page=3>; rel=\"last\", "
	    "<https://api.github.com/x?page=2>; rel=\"next\"\r\n",
	    "Retry-After: 7\r\n",
	    "X-RateLimit-Remaining: 0\r\n",
	    "X-RateLimit-Reset: 1795480946\r\n",
	    NULL};
	struct forge_response r = {0};

	(void)state;
	headers(&r, lines);
	assert_string_equal(r.next, "https://api.github.com/x?page=2");
	assert_int_equal(r.bad_link, 0);
	assert_int_equal(r.retry_after_s, 7);
	assert_int_equal(r.ratelimit_remaining, 0);
	assert_int_equal(r.ratelimit_reset, 1795480946);
	forge_response_release(&r);
}

/* A second Link header must not hide that the first could not be read. */
static void malformed_link_stays_malformed(void **state)
{
	static const char *const lines[] = {"Link: <https://a/?page=2; rel=\"next\"\r\n",
					    "Link: <https://a/?page=9>; rel=\"last\"\r\n", NULL};
	struct forge_response r = {0};

	(void)state;
	headers(&r, lines);
	assert_int_equal(r.bad_link, 1);
	assert_string_equal(r.next, "");
	forge_response_release(&r);
}

/* Numbers beyond what the back-off can multiply are not believed; a new
 * status line (after a 1xx) forgets the headers before it. */
static void numbers_out_of_range_and_status_lines(void **state)
{
	static const char *const lines[] = {"Retry-After: 99999999999999999999\r\n",
					    "X-RateLimit-Remaining: -3\r\n",
					    "Link: <https://a/?page=2>; rel=\"next\"\r\n", NULL};
	static const char *const after_1xx[] = {"Link: <https://a/?page=2>; rel=\"next\"\r\n",
						"HTTP/1.1 200 OK\r\n", NULL};
	struct forge_response r = {0};

	(void)state;
	headers(&r, lines);
	assert_int_equal(r.retry_after_s, -1);
	assert_int_equal(r.ratelimit_remaining, -1);
	assert_string_equal(r.next, "https://a/?page=2");
	headers(&r, after_1xx);
	assert_string_equal(r.next, "");
	forge_response_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(next_page_from_link),
	    cmocka_unit_test(malformed_link_stays_malformed),
	    cmocka_unit_test(numbers_out_of_range_and_status_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
