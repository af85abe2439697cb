/* SPDX-License-Identifier: MIT */
#include "harness/forge/forge_http.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* An answer larger than this is not a page of comments: refuse it rather than
 * grow without bound. */
#define FORGE_HTTP_BODY_MAX (16u << 20)

#define AUTHORIZATION "Authorization:"

struct forge_http {
	CURL *curl;
	struct curl_slist *headers; /* the token's among them */
	struct forge_http_opts opts;
};

static void forget_headers(struct forge_response *r)
{
	r->next[0] = '\0';
	r->bad_link = 0;
	r->retry_after_s = -1;
	r->ratelimit_remaining = -1;
	r->ratelimit_reset = 0;
}

void forge_response_release(struct forge_response *r)
{
	wperf_buf_release(&r->body);
	r->status = 0;
	forget_headers(r);
}

static int add_header(struct forge_http *h, const char *line)
{
	struct curl_slist *l = curl_slist_append(h->headers, line);

	if (!l)
		return -ENOMEM;
	h->headers = l;
	return 0;
}

/* The header before the token, when the options name none. */
static const char *token_header(const struct forge_http *h)
{
	return h->opts.token_header ? h->opts.token_header : AUTHORIZATION " Bearer";
}

/* "Authorization: Bearer TOKEN" (or the options' header), built in a copy
 * that is wiped once libcurl's list has its own (which forge_http_close
 * wipes). A token with white space or control characters would forge other
 * headers: refused. */
static int add_token(struct forge_http *h, const char *token)
{
	size_t size = strlen(token_header(h)) + strlen(token) + 2;
	char *auth;
	int e;

	for (const char *p = token; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return -EINVAL;
	if (!(auth = malloc(size)))
		return -ENOMEM;
	snprintf(auth, size, "%s %s", token_header(h), token);
	e = add_header(h, auth);
	explicit_bzero(auth, size);
	free(auth);
	return e;
}

int forge_http_open(const struct forge_http_opts *opts, const char *const *headers,
		    const char *token, struct forge_http **out, struct wperf_error *err)
{
	struct forge_http *h = calloc(1, sizeof(*h));
	int e = h ? 0 : -ENOMEM;

	if (h) {
		h->opts = *opts;
		h->curl = curl_easy_init();
		e = h->curl ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !e && headers && headers[i]; i++)
		e = add_header(h, headers[i]);
	if (!e) /* no "Expect: 100-continue" wait before a body */
		e = add_header(h, "Expect:");
	if (!e && token && token[0])
		e = add_token(h, token);
	if (e) {
		forge_http_close(h);
		return wperf_error_set(err, e, "%s",
				       e == -EINVAL ? "the token holds white space or control "
						      "characters"
						    : "cannot set up libcurl: out of memory");
	}
	*out = h;
	return 0;
}

void forge_http_close(struct forge_http *h)
{
	if (!h)
		return;
	for (struct curl_slist *l = h->headers; l; l = l->next)
		explicit_bzero(l->data, strlen(l->data));
	curl_slist_free_all(h->headers);
	if (h->curl)
		curl_easy_cleanup(h->curl);
	free(h);
}

int forge_http_describe(const struct forge_http *h, const char *method, const char *url,
			const char *body, struct wperf_buf *out)
{
	int e = wperf_buf_printf(out, "%s %s\n", method, url);

	for (const struct curl_slist *l = h->headers; l && !e; l = l->next) {
		if (!strncasecmp(l->data, token_header(h), strlen(token_header(h))))
			e = wperf_buf_printf(out, "%s ***\n", token_header(h));
		else if (strcmp(l->data, "Expect:"))
			e = wperf_buf_printf(out, "%s\n", l->data);
	}
	if (!e && body)
		e = wperf_buf_printf(out, "\n%s\n", body);
	return e;
}

/* ---- headers ---- */

/* Does the parameters of one link, [p, end), hold rel="next" (or rel=next,
 * or "next" among several relations)? */
static int rel_is_next(const char *p, const char *end)
{
	for (; p + 4 <= end; p++) {
		const char *v, *v_end;

		if (strncasecmp(p, "rel=", 4))
			continue;
		v = p + 4;
		if (v < end && *v == '"') {
			v++;
			v_end = memchr(v, '"', end - v);
			if (!v_end)
				return 0;
		} else {
			for (v_end = v; v_end < end && *v_end != ';' && *v_end != ' '; v_end++)
				;
		}
		for (const char *t = v; t + 4 <= v_end; t++)
			if (!strncasecmp(t, "next", 4) && (t == v || t[-1] == ' ') &&
			    (t + 4 == v_end || t[4] == ' '))
				return 1;
		return 0;
	}
	return 0;
}

int forge_link_next(const char *value, size_t len, char *out, size_t size)
{
	const char *p = value, *end = value + len;

	/* Each link: "<URL>" then ";"-separated parameters; links separated by ",". */
	while (p < end) {
		const char *open = memchr(p, '<', end - p), *close, *next;

		if (!open)
			return 0;
		if (!(close = memchr(open, '>', end - open)))
			return -EINVAL;
		next = memchr(close, ',', end - close);
		if (!next)
			next = end;
		if (rel_is_next(close + 1, next)) {
			size_t n = close - open - 1;

			if (n == 0 || n >= size)
				return -EINVAL;
			/* A URL holds no control characters (RFC 3986): with a NUL it
			 * would be cut short, another page than the one named. */
			for (size_t i = 1; i <= n; i++)
				if ((unsigned char)open[i] < ' ' || open[i] == 0x7f)
					return -EINVAL;
			memcpy(out, open + 1, n);
			out[n] = '\0';
			return 1;
		}
		p = next;
	}
	return 0;
}

/* A whole number header value, at most FORGE_HTTP_HEADER_NUMBER_MAX; -1 when
 * it is not one. Larger numbers (strtol gives LONG_MAX for any overflow) are
 * not believed: in milliseconds they would overflow the back-off's arithmetic. */
static long header_number(const char *v, size_t len)
{
	char text[32];
	char *end;
	long n;

	if (len == 0 || len >= sizeof(text))
		return -1;
	memcpy(text, v, len);
	text[len] = '\0';
	errno = 0;
	n = strtol(text, &end, 10);
	return *end || errno || n < 0 || n > FORGE_HTTP_HEADER_NUMBER_MAX ? -1 : n;
}

static int header_is(const char *line, size_t name_len, const char *name)
{
	return name_len == strlen(name) && !strncasecmp(line, name, name_len);
}

static size_t on_header(char *line, size_t size, size_t count, void *data)
{
	struct forge_response *r = data;
	size_t len = size * count, name_len, vlen;
	const char *colon = memchr(line, ':', len), *v;

	/* A new status line starts the headers of another answer (after a 1xx). */
	if (len >= 5 && !strncmp(line, "HTTP/", 5)) {
		forget_headers(r);
		return len;
	}
	if (!colon)
		return len;
	name_len = colon - line;
	v = colon + 1;
	vlen = len - name_len - 1;
	while (vlen && (*v == ' ' || *v == '\t'))
		v++, vlen--;
	while (vlen && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n' || v[vlen - 1] == ' '))
		vlen--;
	/* A malformed Link stays so: a later one must not hide it. */
	if (header_is(line, name_len, "Link") && !r->next[0])
		r->bad_link |= forge_link_next(v, vlen, r->next, sizeof(r->next)) < 0;
	else if (header_is(line, name_len, "Retry-After"))
		r->retry_after_s = header_number(v, vlen);
	else if (header_is(line, name_len, "X-RateLimit-Remaining"))
		r->ratelimit_remaining = header_number(v, vlen);
	else if (header_is(line, name_len, "X-RateLimit-Reset") && header_number(v, vlen) > 0)
		r->ratelimit_reset = header_number(v, vlen);
	return len;
}

void forge_response_header(struct forge_response *r, const char *line, size_t len)
{
	on_header((char *)line, 1, len, r); /* which only reads the line */
}

static size_t on_body(char *data, size_t size, size_t count, void *resp)
{
	struct forge_response *r = resp;
	size_t len = size * count;

	if (r->body.len + len > FORGE_HTTP_BODY_MAX || wperf_buf_append(&r->body, data, len) < 0)
		return 0; /* libcurl stops with CURLE_WRITE_ERROR */
	return len;
}

/* ---- one attempt, and when to try again ---- */

static CURLcode attempt(struct forge_http *h, const char *method, const char *url, const char *body,
			struct forge_response *r, char *errbuf)
{
	CURL *c = h->curl;
	unsigned timeout = h->opts.timeout_s ? h->opts.timeout_s : FORGE_HTTP_TIMEOUT_S;
	CURLcode rc;

	forge_response_release(r);
	errbuf[0] = '\0';
	curl_easy_reset(c); /* keeps the open connections */
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT,
			 (long)(timeout < FORGE_HTTP_CONNECT_TIMEOUT_S
				    ? timeout
				    : FORGE_HTTP_CONNECT_TIMEOUT_S));
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)timeout);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	}
	if (strcmp(method, body ? "POST" : "GET"))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	return rc;
}

int forge_response_rate_limited(const struct forge_response *r)
{
	return r->status == 429 ||
	       (r->status == 403 && (r->ratelimit_remaining == 0 || r->retry_after_s >= 0));
}

/* Failures after which the forge surely did not act on the request. */
static int never_reached(CURLcode rc)
{
	return rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_CONNECT;
}

static int transient(CURLcode rc)
{
	return never_reached(rc) || rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_GOT_NOTHING ||
	       rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR || rc == CURLE_PARTIAL_FILE ||
	       rc == CURLE_HTTP2 || rc == CURLE_HTTP2_STREAM;
}

/* How long to wait before attempt n + 1 (n from 0), in ms, with why; -1: do
 * not try again. */
static long retry_wait(const struct forge_http *h, const char *method, CURLcode rc,
		       const struct forge_response *r, unsigned n, char *why, size_t size)
{
	const struct forge_http_opts *o = &h->opts;
	unsigned base = o->retry_base_ms ? o->retry_base_ms : FORGE_HTTP_RETRY_BASE_MS;
	unsigned cap = o->retry_cap_ms ? o->retry_cap_ms : FORGE_HTTP_RETRY_CAP_MS;
	int repeatable = strcmp(method, "POST") != 0;
	long long wait = (long long)base << (n < 20 ? n : 20);

	if (n >= o->retries)
		return -1;
	if (rc != CURLE_OK) {
		if (!transient(rc) || (!repeatable && !never_reached(rc)))
			return -1;
		snprintf(why, size, "%s", curl_easy_strerror(rc));
	} else if (forge_response_rate_limited(r)) {
		snprintf(why, size, "HTTP %ld, rate limited", r->status);
		if (r->retry_after_s < 0 && r->ratelimit_remaining == 0 && r->ratelimit_reset)
			wait = ((long long)r->ratelimit_reset - time(NULL) + 1) * 1000;
	} else if (r->status >= 500 && repeatable) {
		snprintf(why, size, "HTTP %ld", r->status);
	} else {
		return -1;
	}
	if (rc == CURLE_OK && r->retry_after_s >= 0)
		wait = (long long)r->retry_after_s * 1000;
	if (wait < 0)
		wait = 0;
	return wait > cap ? -1 : (long)wait;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

int forge_http_request(struct forge_http *h, const char *method, const char *url, const char *body,
		       struct forge_response *resp, struct wperf_error *err)
{
	char errbuf[CURL_ERROR_SIZE], why[CURL_ERROR_SIZE + 64];
	CURLcode rc;
	long wait;

	for (unsigned n = 0;; n++) {
		rc = attempt(h, method, url, body, resp, errbuf);
		wait = retry_wait(h, method, rc, resp, n, why, sizeof(why));
		if (wait < 0)
			break;
		if (h->opts.retrying)
			h->opts.retrying(method, url, why, (unsigned)wait);
		sleep_ms(wait);
	}
	if (rc == CURLE_WRITE_ERROR)
		return wperf_error_set(err, -EFBIG, "%s %s: the answer is larger than %u MiB",
				       method, url, FORGE_HTTP_BODY_MAX >> 20);
	if (rc != CURLE_OK)
		return wperf_error_set(err, transient(rc) ? -ETIMEDOUT : -EPROTO, "%s %s: %s",
				       method, url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
	return 0;
}
