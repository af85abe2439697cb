/* SPDX-License-Identifier: MIT */
/*
 * The outcome of a whole check: summary.json written and read back to the
 * same struct, its strict reader's messages, the one Markdown comment (first
 * line, table, details, escaping, the size cap) and the JUnit XML.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "core/gate/check.h"

#define FILE_NAME "build/check-perf/summary.json"

/* ---- fixtures ---- */

static char *dup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	assert_true(!s || d);
	return d;
}

static struct wperf_finding *add_finding(struct wperf_verdict *v, enum wperf_finding_kind kind,
					 enum wperf_level level)
{
	struct wperf_finding *f;

	v->findings = realloc(v->findings, (v->nfindings + 1) * sizeof(*v->findings));
	assert_non_null(v->findings);
	f = &v->findings[v->nfindings++];
	*f = (struct wperf_finding){.kind = kind, .level = level, .worse = 1};
	f->before = f->after = f->change = f->p = f->q = f->detectable = NAN;
	f->before_lo = f->before_hi = f->after_lo = f->after_hi = NAN;
	return f;
}

static void add_site(struct wperf_finding *f, const char *waiter, const char *waker, double share)
{
	f->sites = realloc(f->sites, (f->nsites + 1) * sizeof(*f->sites));
	assert_non_null(f->sites);
	f->sites[f->nsites++] = (struct wperf_site){dup(waiter), dup(waker), share};
}

static struct wperf_check_scenario *add_scenario(struct wperf_check *c, const char *name,
						 enum wperf_verdict_kind kind)
{
	struct wperf_check_scenario *s;

	c->scenarios = realloc(c->scenarios, (c->n + 1) * sizeof(*c->scenarios));
	assert_non_null(c->scenarios);
	s = &c->scenarios[c->n++];
	*s = (struct wperf_check_scenario){
	    .name = dup(name), .dir = dup(name), .pairs = 8, .seconds = 95.25};
	s->verdict = (struct wperf_verdict){
	    .kind = kind,
	    .scenario = dup(name),
	    .runs = 8,
	    .baseline_runs = 8,
	    .paired = 1,
	    .alpha = 0.05 / 51,
	    .tests = 7,
	    .detectable = 0.06,
	    .throughput_before = 140.1,
	    .throughput_after = kind == WPERF_VERDICT_PASS ? 141.3 : 111.2,
	};
	strcpy(s->verdict.unit, "requests/s");
	return s;
}

static void add_error(struct wperf_check *c, const char *name, const char *reason)
{
	struct wperf_check_scenario *s;

	c->scenarios = realloc(c->scenarios, (c->n + 1) * sizeof(*c->scenarios));
	assert_non_null(c->scenarios);
	s = &c->scenarios[c->n++];
	*s = (struct wperf_check_scenario){
	    .name = dup(name), .dir = dup(name), .error = 1, .reason = dup(reason), .pairs = 2};
}

/* A check of base against head: fig1 has a new bottleneck, the others pass. */
static void failing_check(struct wperf_check *c, size_t passing)
{
	static const char *const knot[] = {"fig1/B", "fig1/extra"};
	struct wperf_check_scenario *s;
	struct wperf_finding *f;

	memset(c, 0, sizeof(*c));
	c->base_mode = 1;
	strcpy(c->base_ref, "HEAD~1");
	strcpy(c->base_commit, "0123456789abcdef0123456789abcdef01234567");
	strcpy(c->head_commit, "fedcba9876543210fedcba9876543210fedcba98");
	strcpy(c->head_branch, "topic");
	c->alpha = 0.05;
	c->seconds = 812.5;

	s = add_scenario(c, "synthetic-fig1", WPERF_VERDICT_NEW_BOTTLENECK);
	f = add_finding(&s->verdict, WPERF_FINDING_NEW_KNOT, WPERF_LEVEL_FAIL);
	assert_int_equal(wperf_idset_from(knot, 2, &f->knot), 0);
	f->seen = f->runs = 8;
	f->before_runs = 8;
	f->note = dup("most runs have it and the baseline does not");
	f = add_finding(&s->verdict, WPERF_FINDING_EDGE, WPERF_LEVEL_FAIL);
	f->from = dup("fig1/B");
	f->to = dup("fig1/extra");
	f->before = 0.01, f->after = 0.31, f->change = 5.2;
	f->before_lo = 0, f->before_hi = 0.02, f->after_lo = 0.29, f->after_hi = 0.33;
	f->p = 0.0001, f->q = 0.0004, f->detectable = 0.03;
	f->seen = f->runs = 8;
	f->note = dup("worse beyond the tolerance (10%) and the noise");
	add_site(f, "fsync (fig1.c:88)", NULL, 0.93);
	add_site(f, "write (fig1.c:90)", "pthread_cond_signal (fig1.c:40)", 0.07);
	f = add_finding(&s->verdict, WPERF_FINDING_VERTEX, WPERF_LEVEL_WARN);
	f->vertex = dup("fig1/extra");
	f->from = dup("fig1/B");
	f->to = dup("fig1/extra");
	f->seen = f->runs = f->before_runs = 8;
	add_site(f, "fsync (fig1.c:88)", NULL, 1);
	f = add_finding(&s->verdict, WPERF_FINDING_THROUGHPUT, WPERF_LEVEL_INFO);
	f->worse = 0;
	f->before = 140.1, f->after = 111.2, f->change = -0.206;
	f->before_lo = 138, f->before_hi = 142, f->after_lo = 110, f->after_hi = 113;
	f->p = 0.02, f->q = 0.05;
	s->verdict.warnings = calloc(1, sizeof(char *));
	assert_non_null(s->verdict.warnings);
	s->verdict.warnings[s->verdict.nwarnings++] = dup("the kernel differs: 6.1 against 6.18");
	s->settings_changed = calloc(1, sizeof(char *));
	assert_non_null(s->settings_changed);
	s->settings_changed[s->nsettings_changed++] =
	    dup("scenarios/synthetic-fig1.yaml: gate.throughput_tolerance: absent -> 0.9");
	s->flame = dup("waits-diff.svg");
	s->growing = calloc(2, sizeof(char *));
	assert_non_null(s->growing);
	s->growing[s->ngrowing++] =
	    dup("+2100 µs/op (0 -> 2100): fig1/B->fig1/D;pthread_cond_wait");
	s->growing[s->ngrowing++] = dup("+90 µs/op (10 -> 100): fig1/B->disk:254:0;fsync");
	for (size_t i = 0; i < passing; i++) {
		char name[32];

		snprintf(name, sizeof(name), "scenario-%02zu", i);
		add_scenario(c, name, WPERF_VERDICT_PASS);
	}
}

#define assert_starts(text, prefix) assert_memory_equal(text, prefix, strlen(prefix))

/* ---- JSON ---- */

static char *to_text(const struct wperf_check *c)
{
	struct json_object *o;
	char *text;

	assert_int_equal(wperf_check_to_json(c, &o), 0);
	text = dup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return text;
}

static void round_trip(void **state)
{
	struct wperf_check c, back;
	struct wperf_error err = {0};
	char *first, *second;

	(void)state;
	failing_check(&c, 2);
	add_error(&c, "memcached", "the service did not start: port 11211 taken");
	first = to_text(&c);
	assert_non_null(strstr(first, "\"verdict\":\"error\""));
	if (wperf_check_from_json(FILE_NAME, first, strlen(first), &back, &err))
		fail_msg("%s", err.msg);
	second = to_text(&back);
	/* Every field is in the text: the same text, the same struct. */
	assert_string_equal(first, second);
	assert_int_equal(back.n, 4);
	assert_string_equal(back.scenarios[0].verdict.scenario, "synthetic-fig1");
	assert_true(isnan(back.scenarios[0].verdict.findings[0].p));
	assert_true(back.scenarios[0].verdict.findings[1].after == 0.31);
	assert_string_equal(back.scenarios[0].verdict.findings[1].sites[1].waker,
			    "pthread_cond_signal (fig1.c:40)");
	assert_null(back.scenarios[0].verdict.findings[1].sites[0].waker);
	assert_true(back.scenarios[3].error);
	assert_null(back.scenarios[3].verdict.scenario);
	assert_int_equal(back.scenarios[0].nsettings_changed, 1);
	assert_string_equal(
	    back.scenarios[0].settings_changed[0],
	    "scenarios/synthetic-fig1.yaml: gate.throughput_tolerance: absent -> 0.9");
	assert_int_equal(back.scenarios[1].nsettings_changed, 0);
	assert_string_equal(back.scenarios[0].flame, "waits-diff.svg");
	assert_int_equal(back.scenarios[0].ngrowing, 2);
	assert_string_equal(back.scenarios[0].growing[1],
			    "+90 µs/op (10 -> 100): fig1/B->disk:254:0;fsync");
	assert_null(back.scenarios[1].flame);
	assert_true(back.alpha == 0.05 && back.scenarios[0].verdict.alpha == 0.05 / 51);
	free(first);
	free(second);
	wperf_check_release(&back);

	/* baselines mode, outside git: nulls */
	c.base_mode = 0;
	c.head_commit[0] = c.head_branch[0] = '\0';
	first = to_text(&c);
	assert_non_null(strstr(first, "\"base\":null"));
	assert_int_equal(wperf_check_from_json(FILE_NAME, first, strlen(first), &back, &err), 0);
	second = to_text(&back);
	assert_string_equal(first, second);
	free(first);
	free(second);
	wperf_check_release(&back);
	wperf_check_release(&c);
}

/* text with the first `from` replaced by `to`. */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	if (!at)
		fail_msg("no \"%s\" in the fixture", from);
	out = malloc(strlen(text) + strlen(to) + 1);
	assert_non_null(out);
	sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

static void strict_errors(void **state)
{
	static const struct {
		const char *from, *to, *says;
	} cases[] = {
	    {"\"level\":\"fail\"", "\"level\":\"bad\"",
	     "scenarios[0].findings[0].level: expected one of info, warn, fail, found \"bad\""},
	    {"\"worse\":true", "\"worse\":true,\"colour\":1",
	     "scenarios[0].findings[0].colour: unknown key"},
	    {"\"pairs\":8,", "", "scenarios[0]: missing key \"pairs\""},
	    {"\"pairs\":8", "\"pairs\":\"8\"",
	     "scenarios[0].pairs: expected a whole number, found \"8\""},
	    {"\"share\":0.93", "\"share\":null",
	     "scenarios[0].findings[1].sites[0].share: expected a number, found null"},
	    {"\"after_range\":[0.29,0.33]", "\"after_range\":[0.29]",
	     "scenarios[0].findings[1].after_range: expected [lo, hi], found 1 numbers"},
	    {"\"commit\":\"0123456789abcdef", "\"commit\":\"X123456789abcdef",
	     "base.commit: expected 40 hexadecimal digits"},
	    {"\"mode\":\"base\"", "\"mode\":\"baselines\"", "base: null in \"baselines\" mode"},
	    {"\"format\":\"wperf-check/1\"", "\"format\":\"wperf-check/2\"",
	     "format: expected one of wperf-check/1, found \"wperf-check/2\""},
	    {"\"verdict\":\"new-bottleneck\"", "\"verdict\":\"pass\"",
	     "verdict: \"pass\", but the scenarios say \"new-bottleneck\""},
	    {"\"reason\":null", "\"reason\":7", "scenarios[0].reason: expected a string, found 7"},
	    {"\"kind\":\"edge\"", "\"kind\":\"knot\"",
	     "scenarios[0].findings[1].kind: expected one of new-knot, knot-gone, edge, "
	     "throughput, vertex, expectation, metric, found \"knot\""},
	    {"{", "[", "not JSON: array value separator"},
	    {"\"seconds\":812.5", "\"seconds\":NaN", "seconds: expected a number, found NaN"},
	};
	struct wperf_check c, back;
	char *text, *bad;

	(void)state;
	failing_check(&c, 1);
	text = to_text(&c);
	/* the text without its pretty spaces, so that the cases read as JSON */
	{
		struct json_object *o = json_tokener_parse(text);

		free(text);
		text = dup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct wperf_error err = {0};
		char want[512];

		bad = replaced(text, cases[i].from, cases[i].to);
		assert_int_not_equal(
		    wperf_check_from_json(FILE_NAME, bad, strlen(bad), &back, &err), 0);
		snprintf(want, sizeof(want), FILE_NAME ": %s", cases[i].says);
		if (strncmp(err.msg, FILE_NAME ": ", strlen(FILE_NAME) + 2) ||
		    !strstr(err.msg, cases[i].says))
			fail_msg("case %zu: \"%s\", want \"%s\"", i, err.msg, want);
		assert_int_equal(back.n, 0); /* zeroed */
		free(bad);
	}
	free(text);
	wperf_check_release(&c);
}

/* ---- Markdown ---- */

static char *markdown(const struct wperf_check *c, const char *url, size_t max)
{
	struct wperf_buf b = {0};
	char *text;

	assert_int_equal(wperf_check_markdown(c, url, max, &b), 0);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	text = dup((const char *)b.data);
	wperf_buf_release(&b);
	return text;
}

static void first_lines(void **state)
{
	struct wperf_check c;
	char *md;

	(void)state;
	failing_check(&c, 16);
	md = markdown(&c, NULL, 0);
	assert_starts(md, "**wperf-bench: 1 new bottleneck in 17 scenarios**\n\n");
	assert_non_null(strstr(md,
			       "\nHead `fedcba9` on `topic` against base `0123456` "
			       "(`HEAD~1`), run in turns on this one machine: 8 pairs of "
			       "runs; false-failure rate 0.05 for the whole check; 13.5 min.\n"));
	/* what the pull request changed of its own gate, under the table */
	assert_non_null(
	    strstr(md, "| `scenario-15` | pass | 8 | 140.1 → 141.3 requests/s (+0.9%) |  |\n\n"
		       "**Gate settings changed by this pull request**: not applied, the "
		       "head was judged under the base's; they apply once merged.\n\n"
		       "- `synthetic-fig1`: `scenarios/synthetic-fig1.yaml: "
		       "gate.throughput_tolerance: absent -> 0.9`\n\n"));
	c.trust_head_settings = 1;
	free(md);
	md = markdown(&c, NULL, 0);
	assert_non_null(strstr(md, "**Gate settings changed by this pull request**, applied "
				   "(`--trust-head-settings`):\n\n- `synthetic-fig1`: "));
	c.trust_head_settings = 0;
	free(md);

	c.scenarios[0].verdict.kind = WPERF_VERDICT_PASS;
	md = markdown(&c, NULL, 0);
	assert_starts(md, "**wperf-bench: 17 scenarios pass**\n");
	free(md);

	c.scenarios[1].verdict.kind = WPERF_VERDICT_INCONCLUSIVE;
	c.scenarios[2].verdict.kind = WPERF_VERDICT_INCONCLUSIVE;
	md = markdown(&c, NULL, 0);
	assert_starts(md, "**wperf-bench: 2 inconclusive in 17 scenarios**\n");
	free(md);

	add_error(&c, "memcached", "the service did not start");
	c.scenarios[0].verdict.kind = WPERF_VERDICT_REGRESSION;
	md = markdown(&c, NULL, 0);
	assert_starts(md, "**wperf-bench: 1 regression, 1 could not run, 2 inconclusive in 18 "
			  "scenarios**\n");
	assert_non_null(
	    strstr(md, "| `memcached` | **error** | 2 | – | the service did not start |\n"));
	free(md);

	c.base_mode = 0;
	c.scenarios[3].verdict.structure_only = 1;
	md = markdown(&c, NULL, 0);
	assert_non_null(strstr(md, " against the stored baselines: 8 runs each; baselines from "
				   "another machine, structure only: `scenario-02`;"));
	free(md);
	wperf_check_release(&c);
}

static void table_and_details(void **state)
{
	struct wperf_check c;
	char *md, *block;

	(void)state;
	failing_check(&c, 2);
	md = markdown(&c, "https://ci.example/runs/9", 0);
	assert_non_null(strstr(md,
			       "| scenario | verdict | pairs | throughput | why |\n"
			       "|---|---|---|---|---|\n"
			       "| `synthetic-fig1` | **new-bottleneck** | 8 | 140.1 → 111.2 "
			       "requests/s (-20.6%) | new knot `fig1/B`, `fig1/extra` in 8 of 8 "
			       "runs |\n"
			       "| `scenario-00` | pass | 8 | 140.1 → 141.3 requests/s (+0.9%) "
			       "|  |\n"));
	block = strstr(md, "<details><summary><code>synthetic-fig1</code>: new-bottleneck, 4 "
			   "findings</summary>\n\n");
	assert_non_null(block);
	assert_non_null(strstr(block,
			       "- **fail** edge `fig1/B` → `fig1/extra`: 31.0 pp, was 1.0 pp "
			       "(+520%), p 1.0e-04, q 4.0e-04: worse beyond the tolerance "
			       "(10%) and the noise\n"
			       "  - 93%: waits in `fsync (fig1.c:88)`\n"
			       "  - 7%: waits in `write (fig1.c:90)`, woken from "
			       "`pthread_cond_signal (fig1.c:40)`\n"));
	/* the worse before the better: the vertex (warn) before the throughput (info) */
	assert_true(strstr(block, "- warn `fig1/extra` joined the bottleneck in 8 of 8 runs (was 0 "
				  "of 8), through `fig1/B` → `fig1/extra`\n") <
		    strstr(block, "- info throughput 140.1 → 111.2 requests/s (-20.6%), p 0.020"));
	assert_non_null(strstr(block, "- warning: the kernel differs: 6.1 against 6.18\n"));
	assert_non_null(strstr(block,
			       "The wait stacks that grew most, head against base (waiter's "
			       "frames, `--`, its waker's):\n\n"
			       "- `+2100 µs/op (0 -> 2100): fig1/B->fig1/D;pthread_cond_wait`\n"
			       "- `+90 µs/op (10 -> 100): fig1/B->disk:254:0;fsync`\n"));
	assert_non_null(strstr(block, "Its folder: `synthetic-fig1` in the "
				      "[artifacts](https://ci.example/runs/9); where its waits "
				      "changed: `waits-diff.svg` in it, a differential flame graph "
				      "(red: the head waits longer).\n"));
	/* passing scenarios without findings: no block */
	assert_null(strstr(md, "<summary><code>scenario-00"));
	assert_non_null(strstr(md, "\n[Artifacts](https://ci.example/runs/9)\n"));
	assert_null(strstr(md, "Left out"));
	free(md);
	wperf_check_release(&c);
}

static void escaped(void **state)
{
	struct wperf_check c;
	struct wperf_finding *f;
	char *md;

	(void)state;
	failing_check(&c, 0);
	free(c.scenarios[0].name);
	c.scenarios[0].name = dup("a|b<script>`x`");
	f = &c.scenarios[0].verdict.findings[1];
	free(f->from);
	f->from = dup("java/Pool|#`1`");
	free(f->sites[0].waiter);
	f->sites[0].waiter = dup("op`|` (x.c:1)");
	free(f->note);
	f->note = dup("*bold* <b>html</b> [link](x) _u_");
	md = markdown(&c, NULL, 0);
	assert_non_null(strstr(md, "| `a\\|b<script>'x'` | **new-bottleneck**"));
	assert_non_null(strstr(md, "<summary><code>a|b&lt;script&gt;`x`</code>"));
	assert_non_null(strstr(md, "edge `java/Pool\\|#'1'` → `fig1/extra`"));
	assert_non_null(strstr(md, "waits in `op'\\|' (x.c:1)`"));
	assert_non_null(strstr(md, ": \\*bold\\* &lt;b&gt;html&lt;/b&gt; \\[link](x) \\_u\\_\n"));
	free(md);
	wperf_check_release(&c);
}

static void the_size_cap(void **state)
{
	struct wperf_check c;
	char *md, *whole;

	(void)state;
	failing_check(&c, 0);
	/* 40 failing scenarios of 10 findings each: far over 12,000 characters */
	for (size_t i = 0; i < 40; i++) {
		char name[32];
		struct wperf_check_scenario *s;

		snprintf(name, sizeof(name), "regressed-%02zu", i);
		s = add_scenario(&c, name, WPERF_VERDICT_REGRESSION);
		for (size_t k = 0; k < 10; k++) {
			struct wperf_finding *f =
			    add_finding(&s->verdict, WPERF_FINDING_EDGE,
					k < i % 3 ? WPERF_LEVEL_FAIL : WPERF_LEVEL_WARN);

			f->from = dup("some/thread");
			f->to = dup("another/thread");
			f->before = 0.1, f->after = 0.2, f->change = 1;
		}
	}
	whole = markdown(&c, NULL, 0);
	assert_true(strlen(whole) > 12000 && strlen(whole) <= WPERF_VERDICT_MD_MAX);
	assert_null(strstr(whole, "Left out"));

	md = markdown(&c, NULL, 12000);
	assert_true(strlen(md) <= 12000);
	assert_starts(md, "**wperf-bench: 1 new bottleneck, 40 regressions in 41 scenarios**");
	/* the table whole, the new bottleneck's details first, then the regressions
	 * with the most failures */
	assert_non_null(strstr(md, "| `regressed-39` | **regression** |"));
	assert_true(strstr(md, "<summary><code>synthetic-fig1") <
		    strstr(md, "<summary><code>regressed-02"));
	assert_null(strstr(md, "<summary><code>regressed-00"));
	assert_non_null(strstr(md, "\n_Left out to stay under 12000 characters: the details of "
				   "`regressed-"));
	assert_non_null(strstr(md, "more scenarios; the whole is summary.md in the artifacts._\n"));
	free(md);

	/* at the smallest cap the table itself is cut, at a row */
	md = markdown(&c, NULL, 1);
	assert_true(strlen(md) <= 2000);
	assert_non_null(strstr(md, " rows of the table,"));
	assert_null(strstr(md, "<details>"));
	assert_non_null(strstr(md, " |\n\n_Left out to stay under 2000 characters: "));
	free(md);
	free(whole);
	wperf_check_release(&c);

	/* one scenario's details alone too long: cut at a line, and closed */
	failing_check(&c, 0);
	for (size_t k = 0; k < 200; k++) {
		struct wperf_finding *f =
		    add_finding(&c.scenarios[0].verdict, WPERF_FINDING_EDGE, WPERF_LEVEL_WARN);

		f->from = dup("some/thread");
		f->to = dup("another/thread");
	}
	md = markdown(&c, NULL, 6000);
	assert_true(strlen(md) <= 6000);
	assert_non_null(strstr(md, "…\n\n</details>\n\n"));
	assert_non_null(strstr(md, "the end of the details of `synthetic-fig1`, the whole is "
				   "summary.md in the artifacts._\n"));
	free(md);
	wperf_check_release(&c);
}

static void junit(void **state)
{
	struct wperf_check c;
	struct wperf_buf b = {0};
	const char *x;

	(void)state;
	failing_check(&c, 1);
	add_error(&c, "memcached", "port \"11211\" <taken>");
	assert_int_equal(wperf_check_junit(&c, &b), 0);
	assert_int_equal(wperf_buf_append(&b, "", 1), 0);
	x = (const char *)b.data;
	assert_non_null(strstr(x, "<testsuites name=\"wperf-bench\" tests=\"5\" failures=\"1\" "
				  "errors=\"1\" skipped=\"0\">"));
	assert_non_null(strstr(x, "<testsuite name=\"memcached\" tests=\"1\" failures=\"0\" "
				  "errors=\"1\" skipped=\"0\">\n    <testcase "
				  "classname=\"wperf-bench.memcached\" name=\"run\">\n      <error "
				  "message=\"port &quot;11211&quot; &lt;taken&gt;\"/>"));
	assert_non_null(strstr(x, "<failure type=\"new-bottleneck\""));
	wperf_buf_release(&b);
	wperf_check_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(round_trip),  cmocka_unit_test(strict_errors),
	    cmocka_unit_test(first_lines), cmocka_unit_test(table_and_details),
	    cmocka_unit_test(escaped),	   cmocka_unit_test(the_size_cap),
	    cmocka_unit_test(junit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
