/* SPDX-License-Identifier: MIT */
/*
 * One HTTP request to a forge's REST API (GitHub's, GitLab's), through
 * libcurl: the token in its one header and nowhere else, TLS peer and host
 * always verified, redirects never followed (the token stays with the API's
 * host), a connect and a total timeout per attempt, and retries with
 * exponential back-off.
 *
 * Retries: on 429, on 5xx and on a connection error or timeout, up to
 * opts.retries times, waiting base, 2 base, 4 base, ... (opts.retry_base_ms),
 * or what the answer asks for: Retry-After (seconds), or, with
 * X-RateLimit-Remaining: 0, until X-RateLimit-Reset. A 403 with
 * X-RateLimit-Remaining: 0 or Retry-After is a rate limit too. A wait longer
 * than opts.retry_cap_ms is not waited: the answer is given back as it is.
 * A POST creates something, so it is retried only when the forge surely did
 * not act on it (429, a rate limit, a connection never made); after a 5xx or
 * a timeout the caller must look before posting again.
 *
 * Ownership: forge_http_open gives a client that forge_http_close frees
 * (NULL-safe), wiping its copy of the token; a struct forge_response owns its
 * body (forge_response_release).
 */
#ifndef WPERF_FORGE_HTTP_H
#define WPERF_FORGE_HTTP_H

#include <stddef.h>
#include <time.h>

#include "core/util/buf.h"
#include "core/util/error.h"

#define FORGE_HTTP_CONNECT_TIMEOUT_S 10
#define FORGE_HTTP_TIMEOUT_S	     30
#define FORGE_HTTP_RETRIES	     3
#define FORGE_HTTP_RETRY_BASE_MS     1000
#define FORGE_HTTP_RETRY_CAP_MS	     60000
/* The environment variable that sets retry_base_ms for wperf-bench post
 * (tests make the back-offs short); its page names it too. */
#define FORGE_HTTP_RETRY_MS_ENV "WPERF_POST_RETRY_MS"
#define FORGE_HTTP_URL_MAX	2048
/* The largest number a header (Retry-After, X-RateLimit-*) may give: a larger
 * one is taken as none. 10^12 s, in milliseconds, still fits in 64 bits. */
#define FORGE_HTTP_HEADER_NUMBER_MAX 1000000000000L

struct forge_http_opts {
	unsigned timeout_s;	/* per attempt, connecting included; 0: 30 */
	unsigned retries;	/* after the first attempt */
	unsigned retry_base_ms; /* the first back-off; 0: 1000 */
	unsigned retry_cap_ms;	/* the longest wait; 0: 60000 */
	/* The header the token goes in, up to the token: "PRIVATE-TOKEN:"
	 * (GitLab); NULL: "Authorization: Bearer". */
	const char *token_header;
	/* Told before each wait (may be NULL): why, and for how long. */
	void (*retrying)(const char *method, const char *url, const char *why, unsigned wait_ms);
};

struct forge_response {
	long status;		       /* the HTTP status of the last attempt */
	struct wperf_buf body;	       /* its body, not NUL-terminated */
	char next[FORGE_HTTP_URL_MAX]; /* the Link header's rel="next" URL; empty: none */
	int bad_link;		       /* the Link header could not be read */
	long retry_after_s;	       /* Retry-After in seconds; -1: none */
	long ratelimit_remaining;      /* X-RateLimit-Remaining; -1: none */
	time_t ratelimit_reset;	       /* X-RateLimit-Reset, seconds since the epoch; 0: none */
	/* (the three numbers at most FORGE_HTTP_HEADER_NUMBER_MAX) */
};

struct forge_http;

/*
 * A client for requests with headers (each "Name: value", NULL-terminated;
 * the client keeps no pointer to them) and, when token is not NULL or empty,
 * "Authorization: Bearer TOKEN" (or opts->token_header TOKEN). 0 or a negative errno with err
 * (-EINVAL: a token with white space or control characters).
 */
int forge_http_open(const struct forge_http_opts *opts, const char *const *headers,
		    const char *token, struct forge_http **out, struct wperf_error *err);
void forge_http_close(struct forge_http *h);

/*
 * Sends method to url, with body (JSON; NULL: none), retrying as above, into
 * *resp (released and filled again). 0 when an answer came, whatever its
 * status; a negative errno with err when none did, naming the URL and why:
 * -ETIMEDOUT after a connection error or a timeout (the request may have
 * been acted on, unless it never connected), -EPROTO for anything else (TLS,
 * a bad URL), -EFBIG for an answer over 16 MiB.
 */
int forge_http_request(struct forge_http *h, const char *method, const char *url, const char *body,
		       struct forge_response *resp, struct wperf_error *err);

/* Appends what forge_http_request would send, for people: the request line,
 * the headers with the token as "***", then the body. 0 or -ENOMEM. */
int forge_http_describe(const struct forge_http *h, const char *method, const char *url,
			const char *body, struct wperf_buf *out);

/* Is the answer a rate limit (429, or a 403 that says so)? */
int forge_response_rate_limited(const struct forge_response *r);

void forge_response_release(struct forge_response *r);

/*
 * The rel="next" URL of a Link header's value (RFC 8288: "<URL>; rel="next",
 * <URL>; rel="last""), into out. 1 found, 0 none, -EINVAL malformed, too
 * long for size, or holding a control character. Pure, for the fuzzers.
 */
int forge_link_next(const char *value, size_t len, char *out, size_t size);

/*
 * Reads one header line of an answer into r, as libcurl gives each to
 * forge_http_request: "Name: value\r\n" (a status line "HTTP/..." forgets
 * the headers before it). r must have been released (forge_response_release)
 * before the first line. For the fuzzers.
 */
void forge_response_header(struct forge_response *r, const char *line, size_t len);

#endif /* WPERF_FORGE_HTTP_H */
