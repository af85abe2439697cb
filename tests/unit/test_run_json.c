/* SPDX-License-Identifier: MIT */
/*
 * Runs and the environment as JSON (core/gate/run_json.h): written, turned into
 * text, parsed and read back bit for bit; a strict reader that names the key
 * path of every mistake; and whatever a mangled text parses to is read without
 * a crash or a leak.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/gate/run_json.h"

#define WHERE "results/x/summary.json: runs[2]"

/* ---- helpers ---- */

/* Same bits, or both NaN. */
static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

static void assert_same_run(const struct wperf_run *a, const struct wperf_run *b)
{
	if (!same_double(a->throughput, b->throughput))
		fail_msg("throughput %.17g, expected %.17g", b->throughput, a->throughput);
	assert_true(a->window_ns == b->window_ns);
	assert_true(a->lost_events == b->lost_events);
	assert_int_equal(a->nknots, b->nknots);
	for (size_t i = 0; i < a->nknots; i++) {
		assert_int_equal(a->knots[i].n, b->knots[i].n);
		for (size_t j = 0; j < a->knots[i].n; j++)
			assert_string_equal(a->knots[i].ids[j], b->knots[i].ids[j]);
	}
	assert_int_equal(a->nedges, b->nedges);
	for (size_t i = 0; i < a->nedges; i++) {
		assert_string_equal(a->edges[i].from, b->edges[i].from);
		assert_string_equal(a->edges[i].to, b->edges[i].to);
		if (!same_double(a->edges[i].share, b->edges[i].share))
			fail_msg("edge %zu: share %.17g, expected %.17g", i, b->edges[i].share,
				 a->edges[i].share);
		assert_int_equal(a->edges[i].nsites, b->edges[i].nsites);
		for (size_t k = 0; k < a->edges[i].nsites; k++) {
			const struct wperf_run_site *x = &a->edges[i].sites[k],
						    *y = &b->edges[i].sites[k];

			assert_true(!x->waiter == !y->waiter && !x->waker == !y->waker);
			assert_true(!x->waiter || !strcmp(x->waiter, y->waiter));
			assert_true(!x->waker || !strcmp(x->waker, y->waker));
			assert_true(same_double(x->share, y->share));
		}
	}
	assert_int_equal(a->sinks.n, b->sinks.n);
	for (size_t i = 0; i < a->sinks.n; i++)
		assert_string_equal(a->sinks.ids[i], b->sinks.ids[i]);
	assert_int_equal(a->timer_paced.n, b->timer_paced.n);
	for (size_t i = 0; i < a->timer_paced.n; i++)
		assert_string_equal(a->timer_paced.ids[i], b->timer_paced.ids[i]);
	assert_true(!a->cmetric_first == !b->cmetric_first);
	if (a->cmetric_first)
		assert_string_equal(a->cmetric_first, b->cmetric_first);
	assert_int_equal(a->have_checks, b->have_checks);
	assert_true(!a->have_checks || a->checks_ok == b->checks_ok);
	assert_true(!a->have_checks || a->checks_warn == b->checks_warn);
	assert_int_equal(a->have_time, b->have_time);
	assert_true(!a->have_time || a->running_ns == b->running_ns);
	assert_true(!a->have_time || a->runnable_ns == b->runnable_ns);
	assert_true(!a->have_time || a->span_ns == b->span_ns);
}

static void assert_empty_run(const struct wperf_run *r)
{
	assert_true(isnan(r->throughput));
	assert_true(r->window_ns == 0 && r->lost_events == 0);
	assert_null(r->knots);
	assert_int_equal(r->nknots, 0);
	assert_null(r->edges);
	assert_int_equal(r->nedges, 0);
}

/* Parses len bytes of JSON text, ended by a NUL as json-c wants to see the end
 * of a bare number or literal; NULL when it does not parse (or is null). */
static struct json_object *parse(const char *text, size_t len, int *ok)
{
	struct json_tokener *tok = json_tokener_new();
	char *copy = malloc(len + 1);
	struct json_object *o;

	assert_non_null(tok);
	assert_non_null(copy);
	memcpy(copy, text, len);
	copy[len] = '\0';
	o = json_tokener_parse_ex(tok, copy, (int)len + 1);
	*ok = json_tokener_get_error(tok) == json_tokener_success;
	if (!*ok) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	free(copy);
	return o;
}

/* r written, turned into text with flags, parsed and read back into back. */
static void round_trip(const struct wperf_run *r, int flags, struct wperf_run *back)
{
	struct json_object *o, *again;
	struct wperf_error err = {0};
	const char *text;
	int ok;

	assert_int_equal(wperf_run_to_json(r, &o), 0);
	text = json_object_to_json_string_ext(o, flags);
	assert_non_null(text);
	again = parse(text, strlen(text), &ok);
	assert_true(ok);
	json_object_put(o);
	if (wperf_run_from_json(again, WHERE, back, &err))
		fail_msg("%s", err.msg);
	json_object_put(again);
}

/* The text of r, for looking at what was written. */
static char *run_text(const struct wperf_run *r)
{
	struct json_object *o;
	char *text;

	assert_int_equal(wperf_run_to_json(r, &o), 0);
	text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	assert_non_null(text);
	json_object_put(o);
	return text;
}

/* Reads text (which must parse) as a run named where; the return value. */
static int read_text(const char *text, const char *where, struct wperf_run *r,
		     struct wperf_error *err)
{
	int ok, ret;
	struct json_object *o = parse(text, strlen(text), &ok);

	if (!ok)
		fail_msg("does not parse: %s", text);
	ret = wperf_run_from_json(o, where, r, err);
	json_object_put(o);
	return ret;
}

/* A run with three knots and edges whose identities and shares are awkward. */
static void awkward_run(struct wperf_run *r)
{
	const char *const k0[] = {"disk:254:0", "fig1/B"};
	const char *const k1[] = {"say \"hi\"", "C:\\dir\\x", "caf\xc3\xa9", "\xe6\x97\xa5"};
	const char *const k2[] = {"bad\xff\xfe-utf8", "lone\x80", "ctl\x01\t\n"};

	wperf_run_init(r);
	r->throughput = 2.0 / 3;
	r->window_ns = UINT64_MAX;
	r->lost_events = 12345678901234567ull;
	assert_int_equal(wperf_run_add_knot(r, k0, 2), 0);
	assert_int_equal(wperf_run_add_knot(r, k1, 4), 0);
	assert_int_equal(wperf_run_add_knot(r, k2, 3), 0);
	assert_int_equal(wperf_run_add_edge(r, "fig1/B", "disk:254:0", 0.1), 0);
	assert_int_equal(wperf_run_add_edge(r, "fig1/A", "fig1/B", 1e-300), 0);
	assert_int_equal(wperf_run_add_edge(r, "say \"hi\"", "C:\\dir\\x", 2.0 / 3), 0);
	assert_int_equal(wperf_run_add_edge(r, "bad\xff\xfe-utf8", "caf\xc3\xa9", 1.0), 0);
	assert_int_equal(wperf_run_add_edge(r, "a", "b", 0), 0);
	assert_int_equal(wperf_run_add_edge(r, "a", "c", 5e-324), 0); /* the least denormal */
	assert_int_equal(wperf_run_add_edge(r, "a", "d", DBL_MAX), 0);
	assert_int_equal(wperf_run_add_edge(r, "a", "e", 123456789012345678901.0), 0);
	assert_int_equal(wperf_run_add_edge(r, "a", "f", 0.1 + 0.2), 0);
	assert_int_equal(wperf_run_add_edge(r, "a", "g", 9007199254740993.0), 0); /* 2^53 + 1 */
	assert_int_equal(wperf_run_add_edge(r, "a", "h", 1e16), 0);
	/* call sites: either side may be unknown; odd bytes in frames are kept */
	struct wperf_run_edge *e = wperf_run_edge(r, "fig1/B", "disk:254:0");

	assert_non_null(e);
	assert_int_equal(
	    wperf_run_edge_add_site(e, "fsync (fsync.c:27) <- [fig1+0x2de5]", NULL, 0.04), 0);
	assert_int_equal(wperf_run_edge_add_site(e, NULL, "blk_mq_end_request+0x1c <- x", 0.05), 0);
	assert_int_equal(wperf_run_edge_add_site(e, "say \"\\\"", "\xe6\x97\xa5", 2.0 / 3), 0);
	assert_int_equal(wperf_idset_from(k1, 4, &r->sinks), 0);
	r->cmetric_first = strdup("caf\xc3\xa9");
	assert_int_equal(wperf_idset_from(k0, 2, &r->timer_paced), 0);
	r->have_checks = 1;
	r->checks_ok = UINT64_MAX;
	r->checks_warn = 3;
	r->have_time = 1;
	r->running_ns = UINT64_MAX;
	r->runnable_ns = 0;
	r->span_ns = 999999937;
}

/* ---- round trips ---- */

static void test_round_trip(void **state)
{
	static const int flags[] = {JSON_C_TO_STRING_PLAIN, JSON_C_TO_STRING_SPACED,
				    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE,
				    JSON_C_TO_STRING_PRETTY_TAB};
	static const double throughputs[] = {NAN, 2.0 / 3, 0.1,	  1e-300, -1.5,
					     0,	  -0.0,	   1e300, 1012.0, 4.9e-324};
	struct wperf_run r, back;

	(void)state;
	awkward_run(&r);
	for (size_t f = 0; f < sizeof(flags) / sizeof(*flags); f++) {
		for (size_t t = 0; t < sizeof(throughputs) / sizeof(*throughputs); t++) {
			r.throughput = throughputs[t];
			round_trip(&r, flags[f], &back);
			assert_same_run(&r, &back);
			wperf_run_release(&back);
		}
	}
	/* The identities as the run keeps them: invalid bytes made '?'. */
	assert_string_equal(r.knots[2].ids[0], "bad?"
					       "?-utf8");
	assert_string_equal(r.knots[1].ids[3], "\xe6\x97\xa5");
	/* the sites heaviest first */
	const struct wperf_run_edge *e = wperf_run_edge(&r, "fig1/B", "disk:254:0");

	assert_int_equal(e->nsites, 3);
	assert_string_equal(e->sites[0].waiter, "say \"\\\"");
	assert_null(e->sites[1].waiter);
	assert_null(e->sites[2].waker);
	wperf_run_release(&r);

	/* An empty run but for its window. */
	wperf_run_init(&r);
	r.window_ns = 1;
	round_trip(&r, JSON_C_TO_STRING_PLAIN, &back);
	assert_same_run(&r, &back);
	wperf_run_release(&back);
	wperf_run_release(&r);
}

/* The text: null for no throughput, numbers with the fewest digits, the order
 * of the knots kept, whatever double format json-c was told to use. */
static void test_text(void **state)
{
	const char *const k1[] = {"z"}, *const k2[] = {"b", "a"};
	struct wperf_run r, back;
	char *text;

	(void)state;
	wperf_run_init(&r);
	r.window_ns = 5000000000ull;
	r.lost_events = 3;
	assert_int_equal(wperf_run_add_knot(&r, k1, 1), 0);
	assert_int_equal(wperf_run_add_knot(&r, k2, 2), 0);
	assert_int_equal(wperf_run_add_edge(&r, "b", "a", 0.1), 0);
	assert_int_equal(wperf_run_add_edge(&r, "a", "b", 1), 0);
	text = run_text(&r);
	assert_string_equal(text, "{\"throughput\":null,\"window_ns\":5000000000,\"lost_events\":3,"
				  "\"knots\":[[\"z\"],[\"a\",\"b\"]],"
				  "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":1.0},"
				  "{\"from\":\"b\",\"to\":\"a\",\"share\":0.1}]}");
	free(text);

	/* an edge's sites, after its share, heaviest first; a side unknown: null */
	assert_int_equal(wperf_run_edge_add_site(&r.edges[1], "w", NULL, 0.02), 0);
	assert_int_equal(wperf_run_edge_add_site(&r.edges[1], NULL, "k", 0.03), 0);
	assert_int_equal(wperf_run_edge_add_site(&r.edges[1], "w", NULL, 0.02), 0);
	text = run_text(&r);
	assert_non_null(strstr(text, "{\"from\":\"b\",\"to\":\"a\",\"share\":0.1,\"sites\":["
				     "{\"waiter\":\"w\",\"waker\":null,\"share\":0.04},"
				     "{\"waiter\":null,\"waker\":\"k\",\"share\":0.03}]}"));
	free(text);
	wperf_run_edge_keep_sites(&r.edges[1], 1);
	assert_int_equal(r.edges[1].nsites, 1);
	assert_string_equal(r.edges[1].sites[0].waiter, "w");
	wperf_run_edge_keep_sites(&r.edges[1], 0);
	assert_null(r.edges[1].sites);
	assert_int_equal(wperf_run_edge_add_site(&r.edges[1], NULL, NULL, 0.1), -EINVAL);
	assert_int_equal(wperf_run_edge_add_site(&r.edges[1], "w", NULL, -0.1), -EINVAL);
	assert_int_equal(wperf_run_edge_add_site(&r.edges[1], "w", NULL, NAN), -EINVAL);
	assert_int_equal(r.edges[1].nsites, 0);

	/* the checks against the kernel's counters, when the trace had them */
	r.have_checks = 1;
	r.checks_ok = 14;
	r.checks_warn = 2;
	text = run_text(&r);
	assert_non_null(strstr(text, "\"checks\":{\"ok\":14,\"warn\":2}"));
	assert_int_equal(wperf_run_checks_warn(&r), 2);
	free(text);
	r.have_checks = 0;

	r.throughput = INFINITY; /* not JSON: written as no throughput */
	text = run_text(&r);
	assert_non_null(strstr(text, "\"throughput\":null"));
	free(text);

	assert_int_equal(json_c_set_serialization_double_format("%.2g", JSON_C_OPTION_GLOBAL), 0);
	r.throughput = 2.0 / 3;
	text = run_text(&r);
	assert_non_null(strstr(text, "\"throughput\":0.6666666666666666,"));
	free(text);
	round_trip(&r, JSON_C_TO_STRING_PLAIN, &back);
	assert_same_run(&r, &back);
	wperf_run_release(&back);
	assert_int_equal(json_c_set_serialization_double_format(NULL, JSON_C_OPTION_GLOBAL), 0);
	wperf_run_release(&r);
}

/* What the reader makes of hand-written text: any edge order, invalid UTF-8
 * made '?', escapes, whole numbers where a double is wanted. */
static void test_read_handwritten(void **state)
{
	struct wperf_run r;
	struct wperf_error err = {0};

	(void)state;
	if (read_text(
		"{\"edges\": [{\"to\": \"a\", \"from\": \"b\\u00e9\\/x\", \"share\": 2},"
		" {\"from\": \"a\\\"\\\\\", \"to\": \"b\xff\", \"share\": 0.25e0}],"
		" \"knots\": [[\"x\xc3\", \"\\u65e5\"], [\"\xf0\x9f\x98\x80\"]],"
		" \"lost_events\": 18446744073709551615, \"window_ns\": 7, \"throughput\": 10}",
		NULL, &r, &err))
		fail_msg("%s", err.msg);
	assert_true(r.throughput == 10);
	assert_true(r.window_ns == 7 && r.lost_events == UINT64_MAX);
	assert_int_equal(r.nknots, 2);
	assert_int_equal(r.knots[0].n, 2);
	assert_string_equal(r.knots[0].ids[0], "x?");
	assert_string_equal(r.knots[0].ids[1], "\xe6\x97\xa5");
	assert_string_equal(r.knots[1].ids[0], "\xf0\x9f\x98\x80");
	assert_int_equal(r.nedges, 2);
	assert_string_equal(r.edges[0].from, "a\"\\");
	assert_string_equal(r.edges[0].to, "b?");
	assert_true(r.edges[0].share == 0.25);
	assert_string_equal(r.edges[1].from, "b\xc3\xa9/x");
	assert_string_equal(r.edges[1].to, "a");
	assert_true(r.edges[1].share == 2);
	wperf_run_release(&r);
}

/* ---- a strict reader ---- */

#define GOOD_KNOTS "\"knots\":[[\"a\",\"b\"]]"
#define GOOD_EDGES                                                                                 \
	"\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5},{\"from\":\"b\",\"to\":\"a\","     \
	"\"share\":0.1}]"
#define GOOD_HEAD		"\"throughput\":1,\"window_ns\":5,\"lost_events\":0"
#define RUN(head, knots, edges) "{" head "," knots "," edges "}"

static const struct {
	const char *text, *error; /* error after WHERE */
} bad_runs[] = {
    {"[]", ": expected an object, found an array"},
    {"null", ": expected an object, found null"},
    {"\"run\"", ": expected an object, found \"run\""},
    {"{\"throughput\":1,\"window_ns\":5," GOOD_KNOTS "," GOOD_EDGES "}",
     ": missing key \"lost_events\""},
    {"{}", ": missing key \"throughput\""},
    {RUN(GOOD_HEAD ",\"checks\":{\"ok\":1}", GOOD_KNOTS, GOOD_EDGES),
     ".checks: missing key \"warn\""},
    {RUN(GOOD_HEAD ",\"checks\":{\"ok\":1,\"warn\":-2}", GOOD_KNOTS, GOOD_EDGES),
     ".checks.warn: expected a whole number, found -2"},
    {RUN(GOOD_HEAD ",\"thruput\":1", GOOD_KNOTS, GOOD_EDGES),
     ".thruput: unknown key (allowed here: throughput, window_ns, lost_events, knots, edges, "
     "sinks, cmetric_first, events, timer_paced, checks, metrics, target_time)"},
    {RUN("\"Throughput\":1,\"window_ns\":5,\"lost_events\":0", GOOD_KNOTS, GOOD_EDGES),
     ".Throughput: unknown key (allowed here: throughput, window_ns, lost_events, knots, edges, "
     "sinks, cmetric_first, events, timer_paced, checks, metrics, target_time)"},
    {RUN("\"throughput\":\"fast\",\"window_ns\":5,\"lost_events\":0", GOOD_KNOTS, GOOD_EDGES),
     ".throughput: expected a number or null, found \"fast\""},
    {RUN("\"throughput\":NaN,\"window_ns\":5,\"lost_events\":0", GOOD_KNOTS, GOOD_EDGES),
     ".throughput: expected a number or null, found NaN"},
    {RUN("\"throughput\":[1],\"window_ns\":5,\"lost_events\":0", GOOD_KNOTS, GOOD_EDGES),
     ".throughput: expected a number or null, found an array"},
    {RUN("\"throughput\":1,\"window_ns\":\"5\",\"lost_events\":0", GOOD_KNOTS, GOOD_EDGES),
     ".window_ns: expected a whole number > 0, found \"5\""},
    {RUN("\"throughput\":1,\"window_ns\":0,\"lost_events\":0", GOOD_KNOTS, GOOD_EDGES),
     ".window_ns: expected a whole number > 0, found 0"},
    {RUN("\"throughput\":1,\"window_ns\":1.5,\"lost_events\":0", GOOD_KNOTS, GOOD_EDGES),
     ".window_ns: expected a whole number > 0, found 1.5"},
    {RUN("\"throughput\":1,\"window_ns\":null,\"lost_events\":0", GOOD_KNOTS, GOOD_EDGES),
     ".window_ns: expected a whole number > 0, found null"},
    {RUN("\"throughput\":1,\"window_ns\":5,\"lost_events\":-1", GOOD_KNOTS, GOOD_EDGES),
     ".lost_events: expected a whole number, found -1"},
    {RUN("\"throughput\":1,\"window_ns\":5,\"lost_events\":true", GOOD_KNOTS, GOOD_EDGES),
     ".lost_events: expected a whole number, found true"},
    {RUN(GOOD_HEAD, "\"knots\":{}", GOOD_EDGES),
     ".knots: expected an array of knots, found an object"},
    {RUN(GOOD_HEAD ",\"sinks\":[\"a\",1]", GOOD_KNOTS, GOOD_EDGES),
     ".sinks[1]: expected an identity (a non-empty string), found 1"},
    {RUN(GOOD_HEAD ",\"sinks\":[\"a\",\"b\",\"a\"]", GOOD_KNOTS, GOOD_EDGES),
     ".sinks[2]: \"a\", listed twice in the sinks"},
    {RUN(GOOD_HEAD ",\"cmetric_first\":\"\"", GOOD_KNOTS, GOOD_EDGES),
     ".cmetric_first: expected an identity (a non-empty string), found \"\""},
    {RUN(GOOD_HEAD, "\"knots\":[[\"a\"],\"b\"]", GOOD_EDGES),
     ".knots[1]: expected an array of identities, found \"b\""},
    {RUN(GOOD_HEAD, "\"knots\":[null]", GOOD_EDGES),
     ".knots[0]: expected an array of identities, found null"},
    {RUN(GOOD_HEAD, "\"knots\":[[\"a\"],[]]", GOOD_EDGES),
     ".knots[1]: an empty knot: a knot has at least one identity"},
    {RUN(GOOD_HEAD, "\"knots\":[[\"a\",\"\"]]", GOOD_EDGES),
     ".knots[0][1]: expected an identity (a non-empty string), found \"\""},
    {RUN(GOOD_HEAD, "\"knots\":[[\"a\",1]]", GOOD_EDGES),
     ".knots[0][1]: expected an identity (a non-empty string), found 1"},
    {RUN(GOOD_HEAD, "\"knots\":[[\"a\",[\"b\"]]]", GOOD_EDGES),
     ".knots[0][1]: expected an identity (a non-empty string), found an array"},
    {RUN(GOOD_HEAD, "\"knots\":[[\"a\\u0000b\"]]", GOOD_EDGES),
     ".knots[0][0]: strings cannot hold NUL characters"},
    {RUN(GOOD_HEAD, "\"knots\":[[\"b\",\"a\",\"c\",\"a\",\"b\"]]", GOOD_EDGES),
     ".knots[0][3]: \"a\", listed twice in the knot"},
    {RUN(GOOD_HEAD, "\"knots\":[[\"x\xff\",\"x?\"]]", GOOD_EDGES), /* the same, kept */
     ".knots[0][1]: \"x?\", listed twice in the knot"},
    {RUN(GOOD_HEAD, GOOD_KNOTS, "\"edges\":null"),
     ".edges: expected an array of edges, found null"},
    {RUN(GOOD_HEAD, GOOD_KNOTS, "\"edges\":[1]"), ".edges[0]: expected an object, found 1"},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5},{\"from\":\"b\",\"to\":\"a\"}]"),
     ".edges[1]: missing key \"share\""},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5,\"weight\":1}]"),
     ".edges[0].weight: unknown key (allowed here: from, to, share, sites)"},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5,\"sites\":{}}]"),
     ".edges[0].sites: expected an array, found an object"},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5,\"sites\":[{\"waiter\":\"w\"}]}]"),
     ".edges[0].sites[0]: missing key \"share\""},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5,\"sites\":[{\"share\":0.1,"
	 "\"waiter\":null}]}]"),
     ".edges[0].sites[0]: a call site without a waiter or a waker"},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5,\"sites\":[{\"share\":0.1,"
	 "\"waiter\":\"\"}]}]"),
     ".edges[0].sites[0].waiter: expected an identity (a non-empty string), found \"\""},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5,\"sites\":[{\"share\":-1,"
	 "\"waker\":\"k\"}]}]"),
     ".edges[0].sites[0].share: expected a number >= 0, found -1"},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5,\"sites\":[{\"share\":0.1,"
	 "\"waker\":\"k\",\"where\":1}]}]"),
     ".edges[0].sites[0].where: unknown key (allowed here: share, waiter, waker)"},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5,\"sites\":[{\"share\":0.1,"
	 "\"waker\":\"k\"},{\"share\":0.2,\"waker\":\"k\",\"waiter\":null}]}]"),
     ".edges[0].sites[1]: a call site listed twice"},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5},{\"from\":\"b\",\"to\":\"a\","
	 "\"share\":-0.5}]"),
     ".edges[1].share: expected a number >= 0, found -0.5"},
    {RUN(GOOD_HEAD, GOOD_KNOTS, "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":\"0.5\"}]"),
     ".edges[0].share: expected a number >= 0, found \"0.5\""},
    {RUN(GOOD_HEAD, GOOD_KNOTS, "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":Infinity}]"),
     ".edges[0].share: expected a number >= 0, found Infinity"},
    {RUN(GOOD_HEAD, GOOD_KNOTS, "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":NaN}]"),
     ".edges[0].share: expected a number >= 0, found NaN"},
    {RUN(GOOD_HEAD, GOOD_KNOTS, "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":null}]"),
     ".edges[0].share: expected a number >= 0, found null"},
    {RUN(GOOD_HEAD, GOOD_KNOTS, "\"edges\":[{\"from\":\"\",\"to\":\"b\",\"share\":1}]"),
     ".edges[0].from: expected an identity (a non-empty string), found \"\""},
    {RUN(GOOD_HEAD, GOOD_KNOTS, "\"edges\":[{\"from\":\"a\",\"to\":false,\"share\":1}]"),
     ".edges[0].to: expected an identity (a non-empty string), found false"},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":0.5},{\"from\":\"c\",\"to\":\"d\","
	 "\"share\":0},{\"from\":\"a\",\"to\":\"b\",\"share\":0.1}]"),
     ".edges[2]: edge a -> b, listed twice"},
    {RUN(GOOD_HEAD, GOOD_KNOTS, GOOD_EDGES ",\"target_time\":{\"running_ns\":1}"),
     ".target_time: missing key \"runnable_ns\""},
    {RUN(GOOD_HEAD, GOOD_KNOTS,
	 GOOD_EDGES ",\"target_time\":{\"running_ns\":-1,\"runnable_ns\":0}"),
     ".target_time.running_ns: expected a whole number, found -1"},
};

static void test_read_errors(void **state)
{
	struct wperf_run r;

	(void)state;
	/* The good text the bad ones are made from. */
	{
		struct wperf_error err = {0};

		if (read_text(RUN(GOOD_HEAD, GOOD_KNOTS, GOOD_EDGES), WHERE, &r, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(r.nedges, 2);
		wperf_run_release(&r);
	}
	for (size_t i = 0; i < sizeof(bad_runs) / sizeof(*bad_runs); i++) {
		struct wperf_error err = {0};
		char expected[WPERF_ERROR_MSG_LEN];
		int ret = read_text(bad_runs[i].text, WHERE, &r, &err);

		snprintf(expected, sizeof(expected), "%s%s", WHERE, bad_runs[i].error);
		if (ret != -EINVAL || err.code != -EINVAL || strcmp(err.msg, expected))
			fail_msg("case %zu: %d \"%s\", expected \"%s\"", i, ret, err.msg, expected);
		assert_empty_run(&r);
	}
}

/* Without a where, paths start at the top; a long where is cut, not overrun. */
static void test_read_where(void **state)
{
	struct wperf_run r;
	struct wperf_error err = {0};
	char where[2000];

	(void)state;
	assert_int_equal(read_text(RUN(GOOD_HEAD, GOOD_KNOTS,
				       "\"edges\":[{\"from\":\"a\",\"to\":\"b\",\"share\":-1}]"),
				   NULL, &r, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "edges[0].share: expected a number >= 0, found -1");
	assert_int_equal(read_text("[]", "", &r, &err), -EINVAL);
	assert_string_equal(err.msg, "expected an object, found an array");
	memset(where, 'w', sizeof(where) - 1);
	where[sizeof(where) - 1] = '\0';
	assert_int_equal(read_text("{\"x\":1}", where, &r, &err), -EINVAL);
	assert_int_equal(strncmp(err.msg, where, 100), 0);
	assert_empty_run(&r);
}

/* A run that breaks runset.h's rules is not written. */
static void test_write_bad_share(void **state)
{
	struct wperf_run_site site = {"w", NULL, -0.1};
	struct wperf_run_edge e = {.from = "a", .to = "b", .share = -1};
	struct wperf_run r;
	struct json_object *o = (struct json_object *)&r; /* anything but NULL */

	(void)state;
	wperf_run_init(&r);
	r.window_ns = 1;
	r.edges = &e;
	r.nedges = 1;
	assert_int_equal(wperf_run_to_json(&r, &o), -EINVAL);
	assert_null(o);
	e.share = NAN;
	assert_int_equal(wperf_run_to_json(&r, &o), -EINVAL);
	assert_null(o);
	/* nor a call site's */
	e.share = 0.5;
	e.sites = &site;
	e.nsites = 1;
	assert_int_equal(wperf_run_to_json(&r, &o), -EINVAL);
	assert_null(o);
	site.share = 0.1;
	assert_int_equal(wperf_run_to_json(&r, &o), 0);
	json_object_put(o);
}

/* ---- the environment ---- */

static void env_round_trip(const struct wperf_env *e)
{
	struct json_object *o, *again;
	struct wperf_env back;
	struct wperf_error err = {0};
	const char *text;
	int ok;

	assert_int_equal(wperf_env_to_json(e, &o), 0);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	again = parse(text, strlen(text), &ok);
	assert_true(ok);
	json_object_put(o);
	memset(&back, 0x55, sizeof(back));
	if (wperf_env_from_json(again, "summary.json: environment", &back, &err))
		fail_msg("%s", err.msg);
	json_object_put(again);
	assert_string_equal(back.kernel, e->kernel);
	assert_true(back.cpus == e->cpus);
	assert_string_equal(back.tool, e->tool);
	assert_string_equal(back.cpu_model, e->cpu_model);
	assert_true(back.calibration == e->calibration);
}

static void test_env_round_trip(void **state)
{
	const double odd[] = {0.1 + 0.2, 1.0 / 3, 1e-300, 5e-324, 7, 123456789.123};
	const double unknown[] = {0, -4.39, NAN, INFINITY, -INFINITY};
	struct wperf_env e = {.kernel = "6.1.0-18-amd64", .cpus = 2, .tool = "wperf-bench 0.1.0"};
	struct json_object *o;

	(void)state;
	snprintf(e.cpu_model, sizeof(e.cpu_model), "Intel(R) Xeon(R) \"Gold\" 6130 @ 2.10GHz");
	e.calibration = 4.3902;
	env_round_trip(&e);
	assert_int_equal(wperf_env_to_json(&e, &o), 0);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"kernel\":\"6.1.0-18-amd64\",\"cpus\":2,\"tool\":\"wperf-bench "
			    "0.1.0\",\"cpu\":\"Intel(R) Xeon(R) \\\"Gold\\\" 6130 @ 2.10GHz\","
			    "\"calibration\":4.3902}");
	json_object_put(o);

	/* Calibrations read back to the bit; one that is not a number > 0 is
	 * written as unknown, 0. */
	for (size_t i = 0; i < sizeof(odd) / sizeof(*odd); i++) {
		e.calibration = odd[i];
		env_round_trip(&e);
	}
	for (size_t i = 0; i < sizeof(unknown) / sizeof(*unknown); i++) {
		e.calibration = unknown[i];
		assert_int_equal(wperf_env_to_json(&e, &o), 0);
		assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
				       ",\"calibration\":0.0}"));
		json_object_put(o);
	}

	/* Unknown: empty strings and 0. The longest strings that fit. */
	memset(&e, 0, sizeof(e));
	env_round_trip(&e);
	memset(e.kernel, 'k', sizeof(e.kernel) - 1);
	memset(e.tool, 't', sizeof(e.tool) - 1);
	memset(e.cpu_model, 'c', sizeof(e.cpu_model) - 1);
	e.cpus = UINT32_MAX;
	env_round_trip(&e);
}

static const struct {
	const char *text, *error; /* error after "env" */
} bad_envs[] = {
    {"[]", ": expected an object, found an array"},
    {"{\"kernel\":\"6.1\",\"cpus\":2}", ": missing key \"tool\""},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\",\"cpu_model\":\"x\"}",
     ".cpu_model: unknown key (allowed here: kernel, cpus, tool, cpu, calibration)"},
    {"{\"kernel\":6.1,\"cpus\":2,\"tool\":\"t\"}", ".kernel: expected a string, found 6.1"},
    {"{\"kernel\":\"6.1\",\"cpus\":\"2\",\"tool\":\"t\"}",
     ".cpus: expected a whole number up to 4294967295, found \"2\""},
    {"{\"kernel\":\"6.1\",\"cpus\":-2,\"tool\":\"t\"}",
     ".cpus: expected a whole number up to 4294967295, found -2"},
    {"{\"kernel\":\"6.1\",\"cpus\":4294967296,\"tool\":\"t\"}",
     ".cpus: expected a whole number up to 4294967295, found 4294967296"},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\\u0000\"}",
     ".tool: strings cannot hold NUL characters"},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\",\"cpu\":4}",
     ".cpu: expected a string, found 4"},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\",\"cpu\":null}",
     ".cpu: expected a string, found null"},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\",\"calibration\":\"4.39\"}",
     ".calibration: expected a number >= 0, found \"4.39\""},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\",\"calibration\":-4.39}",
     ".calibration: expected a number >= 0, found -4.39"},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\",\"calibration\":-1}",
     ".calibration: expected a number >= 0, found -1"},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\",\"calibration\":null}",
     ".calibration: expected a number >= 0, found null"},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\",\"calibration\":NaN}",
     ".calibration: expected a number >= 0, found NaN"},
    {"{\"kernel\":\"6.1\",\"cpus\":2,\"tool\":\"t\",\"calibration\":[4.39]}",
     ".calibration: expected a number >= 0, found an array"},
};

static void test_env_errors(void **state)
{
	char text[512], expected[WPERF_ERROR_MSG_LEN];
	struct wperf_env e;
	struct wperf_error err = {0};
	struct json_object *o;
	int ok;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_envs) / sizeof(*bad_envs); i++) {
		o = parse(bad_envs[i].text, strlen(bad_envs[i].text), &ok);
		assert_true(ok);
		memset(&e, 0x55, sizeof(e));
		snprintf(expected, sizeof(expected), "env%s", bad_envs[i].error);
		if (wperf_env_from_json(o, "env", &e, &err) != -EINVAL || strcmp(err.msg, expected))
			fail_msg("case %zu: \"%s\", expected \"%s\"", i, err.msg, expected);
		json_object_put(o);
		assert_string_equal(e.kernel, "");
		assert_string_equal(e.tool, "");
		assert_true(e.cpus == 0);
		assert_true(e.calibration == 0);
	}

	/* A kernel of 128 bytes does not fit; 127 do; a tool of 64 does not. */
	snprintf(text, sizeof(text), "{\"kernel\":\"%0128d\",\"cpus\":1,\"tool\":\"t\"}", 0);
	o = parse(text, strlen(text), &ok);
	assert_int_equal(wperf_env_from_json(o, "env", &e, &err), -EINVAL);
	assert_string_equal(err.msg, "env.kernel: expected at most 127 bytes, found 128");
	assert_string_equal(e.kernel, "");
	json_object_put(o);
	snprintf(text, sizeof(text), "{\"kernel\":\"%0127d\",\"cpus\":1,\"tool\":\"t\"}", 0);
	o = parse(text, strlen(text), &ok);
	assert_int_equal(wperf_env_from_json(o, "env", &e, &err), 0);
	assert_int_equal(strlen(e.kernel), 127);
	json_object_put(o);
	snprintf(text, sizeof(text), "{\"kernel\":\"k\",\"cpus\":1,\"tool\":\"%064d\"}", 0);
	o = parse(text, strlen(text), &ok);
	assert_int_equal(wperf_env_from_json(o, "env", &e, &err), -EINVAL);
	assert_string_equal(err.msg, "env.tool: expected at most 63 bytes, found 64");
	json_object_put(o);

	snprintf(text, sizeof(text),
		 "{\"kernel\":\"k\",\"cpus\":1,\"tool\":\"t\",\"cpu\":\"%0128d\"}", 0);
	o = parse(text, strlen(text), &ok);
	assert_int_equal(wperf_env_from_json(o, "env", &e, &err), -EINVAL);
	assert_string_equal(err.msg, "env.cpu: expected at most 127 bytes, found 128");
	json_object_put(o);

	/* "cpu" is optional: missing, it is unknown (empty); a CPU model that fits is read. */
	snprintf(text, sizeof(text), "{\"kernel\":\"k\",\"cpus\":1,\"tool\":\"t\"}");
	o = parse(text, strlen(text), &ok);
	memset(&e, 0x55, sizeof(e));
	assert_int_equal(wperf_env_from_json(o, NULL, &e, &err), 0);
	assert_string_equal(e.cpu_model, "");
	assert_true(e.calibration == 0); /* so is "calibration" */
	assert_string_equal(e.tool, "t");
	json_object_put(o);
	snprintf(text, sizeof(text),
		 "{\"kernel\":\"k\",\"cpus\":1,\"tool\":\"t\",\"cpu\":\"Xeon\"}");
	o = parse(text, strlen(text), &ok);
	assert_true(ok);
	assert_int_equal(wperf_env_from_json(o, NULL, &e, &err), 0);
	assert_string_equal(e.cpu_model, "Xeon");
	json_object_put(o);
	snprintf(text, sizeof(text),
		 "{\"kernel\":\"k\",\"cpus\":1,\"tool\":\"t\",\"calibration\":4}");
	o = parse(text, strlen(text), &ok);
	assert_true(ok);
	assert_int_equal(wperf_env_from_json(o, NULL, &e, &err), 0);
	assert_true(e.calibration == 4); /* a whole number is a number */
	json_object_put(o);
	/* -0.0 is 0: written back as 0.0, it reads the same, to the bit. */
	snprintf(text, sizeof(text),
		 "{\"kernel\":\"k\",\"cpus\":1,\"tool\":\"t\",\"calibration\":-0.0}");
	o = parse(text, strlen(text), &ok);
	assert_true(ok);
	assert_int_equal(wperf_env_from_json(o, NULL, &e, &err), 0);
	assert_false(signbit(e.calibration));
	assert_true(e.calibration == 0);
	json_object_put(o);
}

/* ---- whatever parses ---- */

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Parses len bytes and reads whatever they hold as a run and as an
 * environment; a run that is read is written and read back the same. */
static void read_anything(const char *text, size_t len, size_t *nread)
{
	struct json_object *o, *again;
	struct wperf_run r, back;
	struct wperf_env e;
	struct wperf_error err = {0};
	int ok, ret;

	o = parse(text, len, &ok);
	if (!ok)
		return;
	ret = wperf_run_from_json(o, WHERE, &r, &err);
	if (ret != 0 && ret != -EINVAL)
		fail_msg("%d: %s", ret, err.msg);
	if (ret) {
		assert_int_equal(strncmp(err.msg, WHERE, strlen(WHERE)), 0);
		assert_empty_run(&r);
	} else {
		(*nread)++;
		assert_int_equal(wperf_run_to_json(&r, &again), 0);
		assert_int_equal(wperf_run_from_json(again, WHERE, &back, &err), 0);
		assert_same_run(&r, &back);
		json_object_put(again);
		wperf_run_release(&back);
		wperf_run_release(&r);
	}
	ret = wperf_env_from_json(o, WHERE, &e, &err);
	assert_true(ret == 0 || ret == -EINVAL);
	json_object_put(o);
}

static void test_fuzz(void **state)
{
	struct wperf_run r;
	struct json_object *o;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t len, nread = 0;
	char *good, *text;

	(void)state;
	awkward_run(&r);
	assert_int_equal(wperf_run_to_json(&r, &o), 0);
	good = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED));
	json_object_put(o);
	wperf_run_release(&r);
	assert_non_null(good);
	len = strlen(good);
	text = malloc(len + 1);
	assert_non_null(text);

	/* Every prefix; every byte set to each of a few bytes that matter. */
	for (size_t n = 0; n <= len; n++)
		read_anything(good, n, &nread);
	for (size_t at = 0; at < len; at++) {
		static const char bytes[] = "\"\\[]{},:-0.e\x00n\xff ";

		for (size_t b = 0; b < sizeof(bytes) - 1; b++) {
			memcpy(text, good, len);
			text[at] = bytes[b];
			read_anything(text, len, &nread);
		}
	}
	/* Random edits: bytes changed, copied from elsewhere, pieces cut out. */
	for (int round = 0; round < 20000; round++) {
		size_t n = len, edits = 1 + rng_next(&seed) % 4;

		memcpy(text, good, len);
		for (size_t e = 0; e < edits && n; e++) {
			size_t at = rng_next(&seed) % n, cut;

			switch (rng_next(&seed) % 3) {
			case 0:
				text[at] = (char)rng_next(&seed);
				break;
			case 1:
				text[at] = text[rng_next(&seed) % n];
				break;
			default:
				cut = rng_next(&seed) % (n - at);
				memmove(text + at, text + at + cut, n - at - cut);
				n -= cut;
				break;
			}
		}
		read_anything(text, n, &nread);
	}
	/* The good text itself, and some edits that keep it a run, were read. */
	assert_true(nread > len);
	free(text);
	free(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_read_handwritten),
	    cmocka_unit_test(test_read_errors),
	    cmocka_unit_test(test_read_where),
	    cmocka_unit_test(test_write_bad_share),
	    cmocka_unit_test(test_env_round_trip),
	    cmocka_unit_test(test_env_errors),
	    cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests_name("run_json", tests, NULL, NULL);
}
