/* SPDX-License-Identifier: MIT */
/*
 * Baselines (core/gate/baseline.h): made from runs, written and read back exactly,
 * accepted entries kept across updates, and a strict reader that names the
 * line, column and key of every mistake and survives any input.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/gate/baseline.h"
#include "tests/lib/runs.h"

/* A run with throughput tp, the knots in knots (';' between knots, ' ' between
 * members) and edges "from>to=share" separated by spaces. */
static void add_run(struct wperf_runset *rs, double tp, const char *knots, const char *edges)
{
	char copy[512], *item, *save = NULL;
	struct wperf_run r;

	wperf_run_init(&r);
	r.throughput = tp;
	runs_add_knots(&r, knots);
	snprintf(copy, sizeof(copy), "%s", edges);
	for (item = strtok_r(copy, " ", &save); item; item = strtok_r(NULL, " ", &save)) {
		char *to = strchr(item, '>'), *share = strchr(item, '=');

		assert_true(to && share);
		*to++ = '\0';
		*share++ = '\0';
		assert_int_equal(wperf_run_add_edge(&r, item, to, strtod(share, NULL)), 0);
	}
	assert_int_equal(wperf_runset_add(rs, &r), 0);
}

static const struct wperf_env env = {
    .kernel = "6.1.0-18-amd64", .cpus = 2, .tool = "wperf-bench 0.1.0"};

/* Three runs: the knot {disk, B} in all, {B, C} in one; B->disk in all three,
 * A->B in two, C->B in one; one run without a throughput. */
static void three_runs(struct wperf_runset *rs)
{
	memset(rs, 0, sizeof(*rs));
	snprintf(rs->unit, sizeof(rs->unit), "requests/s");
	add_run(rs, 1000, "fig1/B disk:254:0", "fig1/B>disk:254:0=0.55 fig1/A>fig1/B=0.25");
	add_run(rs, NAN, "disk:254:0 fig1/B;fig1/C fig1/B",
		"fig1/B>disk:254:0=0.5 fig1/C>fig1/B=0.125");
	add_run(rs, 1002.5, "fig1/B disk:254:0", "fig1/A>fig1/B=0.3 fig1/B>disk:254:0=0.6");
}

static char *text_of(struct wperf_buf *b)
{
	assert_int_equal(wperf_buf_append(b, "", 1), 0);
	b->len--;
	return (char *)b->data;
}

/* Many runs, each with edges the runs before it did not have: the baseline's
 * edge array grows (and moves) while the edges of earlier runs are searched. */
static void test_from_runs_many_new_edges(void **state)
{
	struct wperf_runset rs = {0};
	struct wperf_baseline b;
	struct wperf_error err = {0};

	(void)state;
	for (int r = 0; r < 6; r++) {
		struct wperf_run run;

		wperf_run_init(&run);
		run.window_ns = 1000000000ull;
		for (int i = 0; i < 40; i++) {
			char from[32], to[32];

			snprintf(from, sizeof(from), "p/t%02d", (r * 7 + i) % 90);
			snprintf(to, sizeof(to), "p/u%02d", i % 9);
			assert_int_equal(wperf_run_add_edge(&run, from, to, 0.01 * (i + 1)), 0);
		}
		assert_int_equal(wperf_runset_add(&rs, &run), 0);
	}
	assert_int_equal(wperf_baseline_from_runs(&rs, "many", NULL, &b, &err), 0);
	for (size_t i = 1; i < b.nedges; i++) /* sorted, unique */
		assert_true(strcmp(b.edges[i - 1].from, b.edges[i].from) < 0 ||
			    (!strcmp(b.edges[i - 1].from, b.edges[i].from) &&
			     strcmp(b.edges[i - 1].to, b.edges[i].to) < 0));
	for (size_t i = 0; i < b.nedges; i++)
		for (size_t r = 0; r < rs.nruns; r++)
			assert_true(b.edges[i].samples[r] == wperf_run_edge_share(&rs.runs[r],
										  b.edges[i].from,
										  b.edges[i].to));
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

static void test_from_runs(void **state)
{
	struct wperf_runset rs;
	struct wperf_baseline b;
	struct wperf_error err = {0};
	const struct wperf_baseline_edge *e;

	(void)state;
	three_runs(&rs);
	assert_int_equal(wperf_baseline_from_runs(&rs, "synthetic-fig1", &env, &b, &err), 0);
	assert_string_equal(b.scenario, "synthetic-fig1");
	assert_string_equal(b.env.kernel, "6.1.0-18-amd64");
	assert_int_equal(b.env.cpus, 2);
	assert_int_equal(b.runs, 3);
	assert_int_equal(b.nthroughput, 2);
	assert_float_equal(b.throughput[0], 1000, 0);
	assert_float_equal(b.throughput[1], 1002.5, 0);
	assert_string_equal(b.unit, "requests/s");
	assert_int_equal(b.nknots, 2);
	assert_int_equal(b.knots[0].seen, 3); /* most seen first */
	assert_string_equal(b.knots[0].vertices.ids[0], "disk:254:0");
	assert_string_equal(b.knots[0].vertices.ids[1], "fig1/B");
	assert_int_equal(b.knots[1].seen, 1);
	assert_string_equal(b.knots[1].vertices.ids[0], "fig1/B");
	assert_string_equal(b.knots[1].vertices.ids[1], "fig1/C");
	assert_int_equal(b.nedges, 3);
	assert_string_equal(b.edges[0].from, "fig1/A");
	assert_string_equal(b.edges[1].from, "fig1/B");
	assert_string_equal(b.edges[2].from, "fig1/C");
	e = wperf_baseline_edge(&b, "fig1/A", "fig1/B");
	assert_non_null(e);
	assert_float_equal(e->samples[0], 0.25, 0);
	assert_float_equal(e->samples[1], 0, 0); /* not in run 2 */
	assert_float_equal(e->samples[2], 0.3, 0);
	e = wperf_baseline_edge(&b, "fig1/C", "fig1/B");
	assert_float_equal(e->samples[0], 0, 0);
	assert_float_equal(e->samples[1], 0.125, 0);
	assert_null(wperf_baseline_edge(&b, "fig1/B", "fig1/A"));
	assert_int_equal(b.naccepted, 0);
	wperf_baseline_release(&b);
	assert_null(b.scenario);

	wperf_runset_release(&rs); /* and empty */
	assert_int_equal(rs.nruns, 0);
	assert_int_equal(wperf_baseline_from_runs(&rs, "x", NULL, &b, &err), -EINVAL);
	assert_string_equal(err.msg, "no runs: a baseline needs at least one");
}

/* The exact text: what people review in a pull request that updates a baseline. */
static void test_write_text(void **state)
{
	const char *const globs[] = {"fig1/B", "disk:254:0"}, *const ends[] = {"fig1/A", "fig1/B"};
	const char *const class[] = {"disk:*"};
	static const char want[] =
	    "# The wperf-bench baseline of a scenario, written by `wperf-bench baseline update`.\n"
	    "# Edit only accepted: known bottlenecks, each with a reason.\n"
	    "format: wperf-baseline/1\n"
	    "scenario: synthetic-fig1\n"
	    "environment: {kernel: 6.1.0-18-amd64, cpus: 2, tool: wperf-bench 0.1.0}\n"
	    "runs: 3\n"
	    "throughput: {samples: [1000, 1002.5], unit: requests/s}\n"
	    "knots:\n"
	    "- vertices: ['disk:254:0', fig1/B]\n"
	    "  seen: 3\n"
	    "- vertices: [fig1/B, fig1/C]\n"
	    "  seen: 1\n"
	    "edges:\n"
	    "- from: fig1/A\n"
	    "  to: fig1/B\n"
	    "  samples: [0.25, 0, 0.3]\n"
	    "- from: fig1/B\n"
	    "  to: disk:254:0\n"
	    "  samples: [0.55, 0.5, 0.6]\n"
	    "- from: fig1/C\n"
	    "  to: fig1/B\n"
	    "  samples: [0, 0.125, 0]\n"
	    "accepted:\n"
	    "- knot: [fig1/B, 'disk:254:0']\n"
	    "  reason: the disk is the bottleneck by design\n"
	    "- edge: {from: fig1/A, to: fig1/B}\n"
	    "  reason: A waits for B\n";
	struct wperf_runset rs;
	struct wperf_baseline b;
	struct wperf_buf out = {0};
	struct wperf_error err = {0};

	(void)state;
	three_runs(&rs);
	assert_int_equal(wperf_baseline_from_runs(&rs, "synthetic-fig1", &env, &b, &err), 0);
	assert_int_equal(
	    wperf_baseline_accept(&b, 0, globs, 2, "the disk is the bottleneck by design"), 0);
	assert_int_equal(wperf_baseline_accept(&b, 1, ends, 2, "A waits for B"), 0);
	assert_int_equal(wperf_baseline_accept(&b, 1, ends, 1, "one end"), -EINVAL);
	assert_int_equal(wperf_baseline_accept(&b, 0, class, 1, "every disk"), -EINVAL);
	assert_int_equal(wperf_baseline_write(&b, &out, &err), 0);
	assert_string_equal(text_of(&out), want);
	/* A number that is not finite cannot be written, and nothing is left behind. */
	b.edges[0].samples[1] = INFINITY;
	out.len = 0;
	assert_int_equal(wperf_baseline_write(&b, &out, &err), -EINVAL);
	assert_int_equal(out.len, 0);
	assert_string_equal(err.msg, "cannot write the baseline of synthetic-fig1: a number is not "
				     "finite");
	wperf_buf_release(&out);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

/* Every field of a equals b's, doubles to the bit. */
static void assert_same(const struct wperf_baseline *a, const struct wperf_baseline *b)
{
	assert_string_equal(a->scenario, b->scenario);
	assert_memory_equal(&a->env, &b->env, sizeof(a->env));
	assert_int_equal(a->runs, b->runs);
	assert_int_equal(a->nthroughput, b->nthroughput);
	assert_memory_equal(a->throughput, b->throughput, a->nthroughput * sizeof(double));
	assert_true((a->unit == NULL) == (b->unit == NULL));
	if (a->unit)
		assert_string_equal(a->unit, b->unit);
	assert_int_equal(a->nknots, b->nknots);
	for (size_t i = 0; i < a->nknots; i++) {
		assert_int_equal(a->knots[i].seen, b->knots[i].seen);
		assert_int_equal(wperf_idset_cmp(&a->knots[i].vertices, &b->knots[i].vertices), 0);
	}
	assert_int_equal(a->nedges, b->nedges);
	for (size_t i = 0; i < a->nedges; i++) {
		assert_string_equal(a->edges[i].from, b->edges[i].from);
		assert_string_equal(a->edges[i].to, b->edges[i].to);
		assert_memory_equal(a->edges[i].samples, b->edges[i].samples,
				    a->runs * sizeof(double));
	}
	assert_int_equal(a->naccepted, b->naccepted);
	for (size_t i = 0; i < a->naccepted; i++) {
		assert_int_equal(a->accepted[i].is_edge, b->accepted[i].is_edge);
		assert_int_equal(a->accepted[i].nglobs, b->accepted[i].nglobs);
		for (size_t j = 0; j < a->accepted[i].nglobs; j++)
			assert_string_equal(a->accepted[i].globs[j], b->accepted[i].globs[j]);
		assert_string_equal(a->accepted[i].reason, b->accepted[i].reason);
	}
}

/* Writes b, reads the text back into *back (which must equal b) and writes
 * that again: the same text. */
static void round_trip(const struct wperf_baseline *b, struct wperf_baseline *back)
{
	struct wperf_buf out = {0}, again = {0};
	struct wperf_error err = {0};

	assert_int_equal(wperf_baseline_write(b, &out, &err), 0);
	if (wperf_baseline_read("rt.yaml", (const char *)out.data, out.len, back, &err))
		fail_msg("%s\n%.*s", err.msg, (int)out.len, (const char *)out.data);
	assert_same(b, back);
	assert_int_equal(wperf_baseline_write(back, &again, &err), 0);
	assert_int_equal(again.len, out.len);
	assert_memory_equal(again.data, out.data, out.len);
	wperf_buf_release(&out);
	wperf_buf_release(&again);
}

/* Names that YAML would read as something else, or that need escapes. */
static const char *const awkward[] = {
    "true",    "No",	 "null",      "~",	     "123",	 "0x1f",	"1e3",	  ".inf",
    "-",       "- x",	 "a: b",      "a #b",	     "#x",	 "[x]",		"{y}",	  "*alias",
    "&anchor", "!tag",	 "%x",	      "@x",	     "`x`",	 "'q'",		"\"dq\"", " lead",
    "trail ",  "tab\tx", "new\nline", "back\\slash", "é ✓ 名前", "ctl\x01\x7f", "x,y",	  "?x",
    "|x",      ">x",	 "a:",	      "k: [v]",
};

static void test_round_trip(void **state)
{
	const double odd[] = {0.1 + 0.2, 1.0 / 3, 1e-300, 123456789.123,
			      5e-324,	 0,	  2.5e15, 0.30000000000000004};
	const size_t nodd = sizeof(odd) / sizeof(*odd), naw = sizeof(awkward) / sizeof(*awkward);
	struct wperf_runset rs = {0};
	struct wperf_baseline b, back;
	struct wperf_error err = {0};

	(void)state;
	snprintf(rs.unit, sizeof(rs.unit), "ops: \"x\"");
	for (size_t r = 0; r < nodd; r++) {
		struct wperf_run run;

		wperf_run_init(&run);
		run.throughput = odd[r] * 1000;
		for (size_t i = 0; i < naw; i++) {
			const char *knot[] = {awkward[i], awkward[(i + r) % naw]};

			if (i % 5 == r % 5)
				assert_int_equal(wperf_run_add_knot(&run, knot, 2), 0);
			assert_int_equal(wperf_run_add_edge(&run, awkward[i],
							    awkward[(i * 7 + 1) % naw],
							    odd[(i + r) % nodd]),
					 0);
		}
		assert_int_equal(wperf_runset_add(&rs, &run), 0);
	}
	assert_int_equal(wperf_baseline_from_runs(&rs, "scenario: \"odd\" ✓", &env, &b, &err), 0);
	for (size_t i = 0; i + 1 < naw; i += 6) {
		char names[2][64]; /* a glob only after a process's name */
		const char *globs[2] = {names[0], names[1]};

		snprintf(names[0], sizeof(names[0]), "p/%s", awkward[i]);
		snprintf(names[1], sizeof(names[1]), "q/%s", awkward[(i + 5) % naw]);
		assert_int_equal(wperf_baseline_accept(&b, i % 4 == 0, globs, 2, awkward[i + 1]),
				 0);
	}
	round_trip(&b, &back);
	wperf_baseline_release(&b);
	wperf_baseline_release(&back);
	wperf_runset_release(&rs);
}

/* A baseline as people write and edit it: comments, other quoting, unsorted. */
static void test_read_handwritten(void **state)
{
	static const char text[] = "# a baseline\n"
				   "format: \"wperf-baseline/1\"\n"
				   "scenario: 'zookeeper'\n"
				   "runs: 2\n"
				   "environment:\n"
				   "  cpus: 4\n"
				   "knots:\n"
				   "  - vertices:\n"
				   "      - jbd2/vda1-#\n"
				   "      - \"disk:254:0\"\n"
				   "      - java/SyncThread-#\n"
				   "    seen: 2   # both runs\n"
				   "edges:\n"
				   "  - {from: z, to: a, samples: [0.5, 1e-2]}\n"
				   "  - {from: a, to: z, samples: [0.25, 0.0]}\n"
				   "accepted:\n"
				   "  - reason: >\n"
				   "      folded\n"
				   "      text\n"
				   "    knot: [\"java/*\", 'jbd2/vda1-#', disk:254:0]\n";
	struct wperf_baseline b;
	struct wperf_error err = {0};

	(void)state;
	if (wperf_baseline_read("h.yaml", text, strlen(text), &b, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(b.scenario, "zookeeper");
	assert_int_equal(b.runs, 2);
	assert_int_equal(b.env.cpus, 4);
	assert_string_equal(b.env.kernel, "");
	assert_string_equal(b.env.cpu_model, ""); /* an environment without cpu */
	assert_int_equal(b.nthroughput, 0);
	assert_null(b.unit);
	assert_int_equal(b.nknots, 1);
	assert_int_equal(b.knots[0].vertices.n, 3);
	assert_string_equal(b.knots[0].vertices.ids[0], "disk:254:0"); /* sorted */
	assert_string_equal(b.knots[0].vertices.ids[2], "jbd2/vda1-#");
	assert_int_equal(b.nedges, 2);
	assert_string_equal(b.edges[0].from, "a"); /* sorted */
	assert_float_equal(b.edges[1].samples[1], 0.01, 0);
	assert_int_equal(b.naccepted, 1);
	assert_false(b.accepted[0].is_edge);
	assert_string_equal(b.accepted[0].reason, "folded text\n");
	assert_int_equal(b.accepted[0].nglobs, 3);
	assert_string_equal(b.accepted[0].globs[2], "disk:254:0");
	wperf_baseline_release(&b);
}

/* The CPU model: written as environment.cpu when known, read back exactly; a
 * baseline without it (written before it was recorded) reads with it empty. */
static void test_cpu_model(void **state)
{
	static const char env_lines[] = "environment:\n"
					"  kernel: 6.1.0-18-amd64\n"
					"  cpus: 2\n"
					"  tool: wperf-bench 0.1.0\n"
					"  cpu: Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz\n"
					"runs: 3\n";
	static const char old_text[] = "format: wperf-baseline/1\n"
				       "scenario: s\n"
				       "environment: {kernel: 6.1.0-18-amd64, cpus: 2, tool: x}\n"
				       "runs: 1\n";
	struct wperf_env with_cpu = env;
	struct wperf_runset rs;
	struct wperf_baseline b, back;
	struct wperf_buf out = {0};
	struct wperf_error err = {0};

	(void)state;
	snprintf(with_cpu.cpu_model, sizeof(with_cpu.cpu_model),
		 "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz");
	three_runs(&rs);
	assert_int_equal(wperf_baseline_from_runs(&rs, "synthetic-fig1", &with_cpu, &b, &err), 0);
	assert_string_equal(b.env.cpu_model, with_cpu.cpu_model);
	assert_int_equal(wperf_baseline_write(&b, &out, &err), 0);
	if (!strstr(text_of(&out), env_lines))
		fail_msg("no\n%s\nin\n%s", env_lines, text_of(&out));
	round_trip(&b, &back);
	assert_string_equal(back.env.cpu_model, "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz");
	wperf_baseline_release(&back);

	/* Models that YAML would read as something else, and one at the limit. */
	for (size_t i = 0; i <= sizeof(awkward) / sizeof(*awkward); i++) {
		memset(b.env.cpu_model, 0, sizeof(b.env.cpu_model));
		if (i < sizeof(awkward) / sizeof(*awkward))
			snprintf(b.env.cpu_model, sizeof(b.env.cpu_model), "%s", awkward[i]);
		else
			memset(b.env.cpu_model, 'x', sizeof(b.env.cpu_model) - 1);
		round_trip(&b, &back);
		wperf_baseline_release(&back);
	}

	/* Unknown: no cpu key at all. */
	b.env.cpu_model[0] = '\0';
	out.len = 0;
	assert_int_equal(wperf_baseline_write(&b, &out, &err), 0);
	assert_null(strstr(text_of(&out), "cpu:"));
	assert_non_null(strstr(text_of(&out),
			       "environment: {kernel: 6.1.0-18-amd64, cpus: 2, tool: "
			       "wperf-bench 0.1.0}\n"));

	/* An older baseline, without cpu. */
	if (wperf_baseline_read("old.yaml", old_text, strlen(old_text), &back, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(back.env.kernel, "6.1.0-18-amd64");
	assert_string_equal(back.env.tool, "x");
	assert_string_equal(back.env.cpu_model, "");
	wperf_baseline_release(&back);
	wperf_buf_release(&out);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

/* The calibration: written as environment.calibration when known (> 0), with
 * the digits that read back exactly; a baseline without it (made before
 * fingerprints) or with 0 (or -0) reads as unknown. */
static void test_calibration(void **state)
{
	static const char old_text[] = "format: wperf-baseline/1\n"
				       "scenario: s\n"
				       "environment: {kernel: 6.1.0-18-amd64, cpus: 2, tool: x}\n"
				       "runs: 1\n";
	static const char zero_text[] = "format: wperf-baseline/1\n"
					"scenario: s\n"
					"environment: {cpus: 2, calibration: -0}\n"
					"runs: 1\n";
	const double odd[] = {4.3902, 0.1 + 0.2, 1.0 / 3, 1e-300, 5e-324, 123456789.123, 7};
	struct wperf_env with = env;
	struct wperf_runset rs;
	struct wperf_baseline b, back;
	struct wperf_buf out = {0};
	struct wperf_error err = {0};

	(void)state;
	with.calibration = 4.3902;
	three_runs(&rs);
	assert_int_equal(wperf_baseline_from_runs(&rs, "synthetic-fig1", &with, &b, &err), 0);
	assert_int_equal(wperf_baseline_write(&b, &out, &err), 0);
	if (!strstr(text_of(&out), "environment: {kernel: 6.1.0-18-amd64, cpus: 2, tool: "
				   "wperf-bench 0.1.0, calibration: 4.3902}\n"))
		fail_msg("no calibration on the environment's line in\n%s", text_of(&out));
	for (size_t i = 0; i < sizeof(odd) / sizeof(*odd); i++) {
		b.env.calibration = odd[i];
		round_trip(&b, &back);
		assert_true(back.env.calibration == odd[i]);
		wperf_baseline_release(&back);
	}

	/* With the CPU model: one key a line, calibration last. */
	snprintf(b.env.cpu_model, sizeof(b.env.cpu_model), "AMD EPYC");
	b.env.calibration = 4.3902;
	out.len = 0;
	assert_int_equal(wperf_baseline_write(&b, &out, &err), 0);
	if (!strstr(text_of(&out), "  cpu: AMD EPYC\n  calibration: 4.3902\nruns: 3\n"))
		fail_msg("no calibration after cpu in\n%s", text_of(&out));
	round_trip(&b, &back);
	wperf_baseline_release(&back);

	/* Unknown, 0 or NaN: no key. Infinite: an error. */
	b.env.calibration = NAN;
	out.len = 0;
	assert_int_equal(wperf_baseline_write(&b, &out, &err), 0);
	assert_null(strstr(text_of(&out), "calibration"));
	b.env.calibration = 0;
	round_trip(&b, &back);
	wperf_baseline_release(&back);
	b.env.calibration = INFINITY;
	out.len = 0;
	assert_int_equal(wperf_baseline_write(&b, &out, &err), -EINVAL);
	assert_string_equal(err.msg, "cannot write the baseline of synthetic-fig1: a number is not "
				     "finite");

	/* Older baselines, and 0 written by hand. */
	if (wperf_baseline_read("old.yaml", old_text, strlen(old_text), &back, &err))
		fail_msg("%s", err.msg);
	assert_true(back.env.calibration == 0);
	assert_string_equal(back.env.kernel, "6.1.0-18-amd64");
	wperf_baseline_release(&back);
	if (wperf_baseline_read("zero.yaml", zero_text, strlen(zero_text), &back, &err))
		fail_msg("%s", err.msg);
	assert_true(back.env.calibration == 0);
	assert_false(signbit(back.env.calibration)); /* -0 is 0, as written back */
	assert_int_equal(back.env.cpus, 2);
	wperf_baseline_release(&back);
	wperf_buf_release(&out);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

struct bad {
	const char *text, *error;
};

#define HEAD "format: wperf-baseline/1\nscenario: s\nruns: 2\n"

static const struct bad bad[] = {
    {"", "b.yaml: empty: expected a baseline"},
    {"# only a comment\n", "b.yaml: empty: expected a baseline"},
    {"- a\n- b\n", "b.yaml:1:1: expected a mapping, found a list"},
    {"format: wperf-baseline/3\nscenario: s\nruns: 1\ncolour: red\n",
     "b.yaml:1:9: format: expected wperf-baseline/1 or wperf-baseline/2 (the formats this "
     "wperf-bench reads), found \"wperf-baseline/3\""},
    {"format: [1]\n", "b.yaml:1:9: format: expected a string, found a list"},
    {HEAD "colour: red\n", "b.yaml:4:1: colour: unknown key (allowed here: format, scenario, runs, "
			   "environment, throughput, knots, edges, accepted, metrics)"},
    {HEAD "runs: 3\n", "b.yaml:4:1: runs: duplicate key (first at line 3)"},
    {"format: wperf-baseline/1\nruns: 2\n", "b.yaml:1:1: missing key \"scenario\""},
    {"format: wperf-baseline/1\nscenario:\nruns: 2\n",
     "b.yaml:2:10: scenario: expected a string, found null"},
    {"format: wperf-baseline/1\nscenario: s\nruns: two\n",
     "b.yaml:3:7: runs: expected a whole number in [1, 1000000], found \"two\""},
    {"format: wperf-baseline/1\nscenario: s\nruns: \"2\"\n",
     "b.yaml:3:7: runs: expected a whole number in [1, 1000000], found \"2\" (a quoted string)"},
    {"format: wperf-baseline/1\nscenario: s\nruns: 0\n",
     "b.yaml:3:7: runs: expected a whole number in [1, 1000000], found \"0\""},
    {"format: wperf-baseline/1\nscenario: s\nruns: 99999999999999999999999\n",
     "b.yaml:3:7: runs: expected a whole number in [1, 1000000], found "
     "\"99999999999999999999999\""},
    {HEAD "environment: {cpus: -1}\n",
     "b.yaml:4:21: environment.cpus: expected a whole number in [0, 4294967295], found \"-1\""},
    {HEAD "environment: {os: linux}\n", "b.yaml:4:15: environment.os: unknown key (allowed here: "
					"kernel, cpus, tool, cpu, calibration)"},
    {HEAD
     "environment: {kernel: "
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx}\n",
     "b.yaml:4:23: environment.kernel: expected at most 127 bytes, found 147"},
    {HEAD "environment: {cpu: [x86]}\n",
     "b.yaml:4:20: environment.cpu: expected a string, found a list"},
    {HEAD "environment: {cpu: \"Xeon\", cpu: Epyc}\n",
     "b.yaml:4:28: environment.cpu: duplicate key (first at line 4)"},
    {HEAD
     "environment: {cpu: "
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx}\n",
     "b.yaml:4:20: environment.cpu: expected at most 127 bytes, found 147"},
    {HEAD "environment: {calibration: fast}\n",
     "b.yaml:4:28: environment.calibration: expected a number >= 0, found \"fast\""},
    {HEAD "environment: {calibration: \"4.39\"}\n",
     "b.yaml:4:28: environment.calibration: expected a number >= 0, found \"4.39\" (a quoted "
     "string)"},
    {HEAD "environment: {calibration: [4.39]}\n",
     "b.yaml:4:28: environment.calibration: expected a number >= 0, found a list"},
    {HEAD "environment: {calibration: .inf}\n",
     "b.yaml:4:28: environment.calibration: expected a number >= 0, found \".inf\""},
    {HEAD "environment: {calibration: -4.39}\n",
     "b.yaml:4:28: environment.calibration: expected a number >= 0, found \"-4.39\""},
    {HEAD "environment:\n  cpus: 2\n  calibration: 4.39\n  calibration: 4.4\n",
     "b.yaml:7:3: environment.calibration: duplicate key (first at line 6)"},
    {HEAD "throughput: [1, 2]\n", "b.yaml:4:13: throughput: expected a mapping, found a list"},
    {HEAD "throughput: {samples: [1, 2, 3]}\n",
     "b.yaml:4:23: throughput.samples: expected at most one sample per run (2), found 3"},
    {HEAD "throughput: {samples: [1, .nan]}\n",
     "b.yaml:4:27: throughput.samples[1]: expected a number, found \".nan\""},
    {HEAD "knots:\n- vertices: [a, b]\n  seen: 3\n",
     "b.yaml:6:9: knots[0].seen: expected a whole number in [0, 2], found \"3\""},
    {HEAD "knots:\n- vertices: []\n  seen: 1\n",
     "b.yaml:5:13: knots[0].vertices: expected at least one name, found an empty list"},
    {HEAD "knots:\n- vertices: [a, {b: c}]\n  seen: 1\n",
     "b.yaml:5:17: knots[0].vertices[1]: expected a string, found a mapping"},
    {HEAD "knots:\n- {vertices: [a, b], seen: 1}\n- {vertices: [b, a], seen: 2}\n",
     "b.yaml:6:3: knots[1]: the same knot as knots[0]"},
    {HEAD "knots:\n- seen: 1\n", "b.yaml:5:3: knots[0]: missing key \"vertices\""},
    {HEAD "edges:\n- from: a\n  to: b\n  samples: [0.5]\n",
     "b.yaml:7:12: edges[0].samples: expected one sample per run (2), found 1"},
    {HEAD "edges:\n- from: a\n  to: b\n  samples: [0.5, x]\n",
     "b.yaml:7:18: edges[0].samples[1]: expected a number >= 0, found \"x\""},
    {HEAD "edges:\n- from: a\n  to: b\n  samples: [0.5, -0.1]\n",
     "b.yaml:7:18: edges[0].samples[1]: expected a number >= 0, found \"-0.1\""},
    {HEAD "edges:\n- from: a\n  to: b\n  samples: [0.5, \"0.1\"]\n",
     "b.yaml:7:18: edges[0].samples[1]: expected a number >= 0, found \"0.1\" (a quoted string)"},
    {HEAD "edges:\n- {from: a, to: b, samples: [0, 0]}\n- {from: a, to: b, samples: [1, 1]}\n",
     "b.yaml:6:3: edges[1]: edge a -> b, listed twice"},
    {HEAD "edges:\n- {from: a, to: b, samples: [0, 0], weight: 3}\n",
     "b.yaml:5:37: edges[0].weight: unknown key (allowed here: from, to, samples)"},
    {HEAD "edges: {from: a}\n", "b.yaml:4:8: edges: expected a list, found a mapping"},
    {HEAD "accepted:\n- knot: [a]\n", "b.yaml:5:3: accepted[0]: missing key \"reason\""},
    {HEAD "accepted:\n- knot: [a]\n  edge: {from: a, to: b}\n  reason: x\n",
     "b.yaml:5:3: accepted[0]: expected one of \"knot\" or \"edge\""},
    {HEAD "accepted:\n- reason: x\n",
     "b.yaml:5:3: accepted[0]: expected one of \"knot\" or \"edge\""},
    {HEAD "accepted:\n- edge: {from: a}\n  reason: x\n",
     "b.yaml:5:9: accepted[0].edge: missing key \"to\""},
    {HEAD "accepted:\n- knot: [a]\n  reason: ''\n",
     "b.yaml:6:11: accepted[0].reason: expected why this bottleneck is accepted, found an empty "
     "string"},
    {HEAD "accepted:\n- knot: [fig1/B, 'disk:*']\n  reason: x\n",
     "b.yaml:5:18: accepted[0].knot[1]: a glob may only follow a process's name and a slash "
     "(PROCESS/GLOB): it would accept a class of vertices from anywhere, found \"disk:*\""},
    {HEAD "accepted:\n- knot: ['kworker/*']\n  reason: x\n",
     "b.yaml:5:10: accepted[0].knot[0]: the kernel's threads of one family serve every "
     "program: name the identity exactly, found \"kworker/*\""},
    {HEAD "accepted:\n- edge: {from: '*/worker', to: b}\n  reason: x\n",
     "b.yaml:5:16: accepted[0].edge.from: a glob may only follow a process's name and a slash "
     "(PROCESS/GLOB): it would accept a class of vertices from anywhere, found \"*/worker\""},
    {HEAD "edges:\n- &e {from: a, to: b, samples: [0, 0]}\n- *e\n",
     "b.yaml:6:3: aliases (*name) are not allowed in a baseline"},
    {HEAD "knots: [{vertices: [x], seen: 1}]\n---\nformat: other\n",
     "b.yaml:5:1: a second YAML document: a baseline is one document"},
    {HEAD "[1, 2]: x\n", "b.yaml:4:1: expected a string as key, found a list"},
    {"format: wperf-baseline/1\nscenario: [s\n",
     "b.yaml:3:1: not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence "
     "at line 2, column 11)"},
    {"format: wperf-baseline/1\n  scenario: s\n",
     "b.yaml:2:11: not valid YAML: mapping values are not allowed in this context"},
    {"format: wperf-baseline/1\nscenario: \"a\\0b\"\nruns: 1\n",
     "b.yaml:2:11: scenario: strings cannot hold NUL characters"},
    {"format: wperf-baseline/1\nscenario: \xff\n",
     "b.yaml:2:11: not valid YAML: invalid leading UTF-8 octet (byte 0xff)"},
    {"\tformat: x\n", "b.yaml:1:1: not valid YAML: found character that cannot start any token "
		      "(while scanning for the next token at line 1, column 1)"},
};

static void test_read_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct wperf_baseline b;
		struct wperf_error err = {0};
		int ret = wperf_baseline_read("b.yaml", bad[i].text, strlen(bad[i].text), &b, &err);

		if (ret != -EINVAL || strcmp(err.msg, bad[i].error))
			fail_msg("case %zu: %d \"%s\", expected \"%s\"", i, ret, err.msg,
				 bad[i].error);
		assert_null(b.scenario);
		assert_int_equal(b.nedges, 0);
	}
}

/* An empty file reads into a buffer with no data at all: NULL, 0 (libyaml
 * asserted on it and compare --baseline of an empty file aborted). */
static void test_read_empty(void **state)
{
	struct wperf_baseline b;
	struct wperf_error err = {0};

	(void)state;
	assert_int_equal(wperf_baseline_read("b.yaml", NULL, 0, &b, &err), -EINVAL);
	assert_string_equal(err.msg, "b.yaml: empty: expected a baseline");
	assert_null(b.scenario);
}

static void test_merge_accepted(void **state)
{
	const char *const k[] = {"fig1/B", "disk:254:0"}, *const e[] = {"a", "b"};
	struct wperf_runset rs;
	struct wperf_baseline old, fresh;
	struct wperf_error err = {0};

	(void)state;
	three_runs(&rs);
	assert_int_equal(wperf_baseline_from_runs(&rs, "s", &env, &old, &err), 0);
	assert_int_equal(wperf_baseline_accept(&old, 0, k, 2, "by design"), 0);
	assert_int_equal(wperf_baseline_accept(&old, 1, e, 2, "known"), 0);
	assert_int_equal(wperf_baseline_from_runs(&rs, "s", &env, &fresh, &err), 0);
	assert_int_equal(wperf_baseline_accept(&fresh, 1, e, 2, "already there"), 0);
	assert_int_equal(wperf_baseline_merge_accepted(&fresh, &old), 0);
	assert_int_equal(wperf_baseline_merge_accepted(&fresh, &old), 0); /* no doubles */
	assert_int_equal(fresh.naccepted, 2);
	assert_string_equal(fresh.accepted[0].reason, "already there");
	assert_false(fresh.accepted[1].is_edge);
	assert_string_equal(fresh.accepted[1].globs[1], "disk:254:0");
	assert_string_equal(fresh.accepted[1].reason, "by design");
	wperf_baseline_release(&old);
	wperf_baseline_release(&fresh);
	wperf_runset_release(&rs);
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static size_t fuzz_read, fuzz_rejected;

/* Reads text; an error must say where, a success must write back. */
static void read_anything(const char *text, size_t len)
{
	struct wperf_baseline b;
	struct wperf_error err = {0};
	int ret = wperf_baseline_read("f.yaml", text, len, &b, &err);

	if (ret == 0) {
		struct wperf_buf out = {0};

		fuzz_read++;
		assert_int_equal(wperf_baseline_write(&b, &out, &err), 0);
		wperf_buf_release(&out);
		wperf_baseline_release(&b);
		return;
	}
	fuzz_rejected++;
	assert_true(ret == -EINVAL || ret == -ENOMEM);
	assert_true(!strncmp(err.msg, "f.yaml", 6));
	assert_null(b.scenario);
}

/* Garbage: every prefix of a good file, random edits of it, random bytes, YAML
 * tokens shuffled, very deep nesting. Nothing crashes or leaks (ASan, valgrind). */
static void test_fuzz(void **state)
{
	static const char *const tokens[] = {"format",	 ": ",	 "wperf-baseline/1",
					     "\n",	 "- ",	 "[",
					     "]",	 "{",	 "}",
					     ", ",	 "&a ",	 "*a",
					     "runs",	 "1",	 "edges",
					     "  ",	 "'",	 "\"",
					     "samples",	 "0.5",	 "knots",
					     "vertices", "#",	 "!!str ",
					     "---\n",	 "? ",	 "|\n",
					     "\t",	 "seen", "accepted"};
	const char *const knots[] = {"fig1/B", "disk:254:0"};
	struct wperf_runset rs;
	struct wperf_baseline b;
	struct wperf_buf good = {0};
	struct wperf_error err = {0};
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char *text;

	(void)state;
	three_runs(&rs);
	assert_int_equal(wperf_baseline_from_runs(&rs, "s", &env, &b, &err), 0);
	snprintf(b.env.cpu_model, sizeof(b.env.cpu_model), "Xeon @ 2.40GHz"); /* a block */
	assert_int_equal(wperf_baseline_accept(&b, 0, knots, 2, "why"), 0);
	assert_int_equal(wperf_baseline_write(&b, &good, &err), 0);
	for (size_t n = 0; n <= good.len; n++)
		read_anything((const char *)good.data, n);
	text = malloc(good.len + 64);
	assert_non_null(text);
	for (int round = 0; round < 10000; round++) {
		size_t len = good.len, edits = 1 + rng_next(&seed) % 4;

		memcpy(text, good.data, len);
		for (size_t e = 0; e < edits; e++) {
			size_t at = rng_next(&seed) % len;

			switch (rng_next(&seed) % 3) {
			case 0: /* a byte changed */
				text[at] = (char)rng_next(&seed);
				break;
			case 1: /* a byte from elsewhere */
				text[at] = text[rng_next(&seed) % len];
				break;
			default: { /* a piece cut out */
				size_t cut = rng_next(&seed) % (len - at);

				memmove(text + at, text + at + cut, len - at - cut);
				len -= cut;
				break;
			}
			}
		}
		read_anything(text, len);
	}
	for (int round = 0; round < 3000; round++) {
		size_t len = rng_next(&seed) % 64;

		static const char alphabet[] = "ab:- [{,}]'\"\n #&*!|>%@`?\t0.";

		for (size_t i = 0; i < len; i++)
			text[i] = round % 2 ? (char)rng_next(&seed)
					    : alphabet[rng_next(&seed) % (sizeof(alphabet) - 1)];
		read_anything(text, len);
	}
	free(text);
	text = calloc(4096, 1);
	assert_non_null(text);
	for (int round = 0; round < 3000; round++) {
		size_t len = 0;

		for (int t = 0; t < 40; t++) {
			const char *tok =
			    tokens[rng_next(&seed) % (sizeof(tokens) / sizeof(*tokens))];

			memcpy(text + len, tok, strlen(tok));
			len += strlen(tok);
		}
		read_anything(text, len);
	}
	free(text);
	print_message("fuzz: %zu inputs read, %zu rejected\n", fuzz_read, fuzz_rejected);
	assert_true(fuzz_read > 10);
	wperf_buf_release(&good);
	wperf_baseline_release(&b);
	wperf_runset_release(&rs);
}

/* Nesting far deeper than any stack, which would also cost libyaml minutes (its
 * time grows with the square of the depth): refused after 16 levels, at once. */
static void test_deep(void **state)
{
	const size_t depth = 200000;
	char *deep = malloc(2 * depth);
	struct wperf_baseline b;
	struct wperf_error err = {0};

	(void)state;
	assert_non_null(deep);
	memset(deep, '[', depth);
	memset(deep + depth, ']', depth);
	assert_int_equal(wperf_baseline_read("d.yaml", deep, 2 * depth, &b, &err), -EINVAL);
	assert_string_equal(err.msg, "d.yaml:1:17: nested deeper than 16 levels");
	for (size_t i = 0; i < depth; i++)
		memcpy(deep + 2 * i, "- ", 2);
	assert_int_equal(wperf_baseline_read("d.yaml", deep, 2 * depth, &b, &err), -EINVAL);
	assert_string_equal(err.msg, "d.yaml:1:33: nested deeper than 16 levels");
	free(deep);
}

/*
 * What a stored baseline can tell against as many new runs: throughputs
 * e^0, e^0.02, e^-0.02, e^0.01, e^-0.01 (logs 0, +-0.02, +-0.01: mean 0,
 * sd sqrt(0.001 / 4) = 0.0158114), unpaired at 0.05, 8 degrees of freedom:
 * (t(0.95) 1.859548 + t(0.8) 0.888890) sd sqrt(2 / 5) = 0.0274902, a change
 * of e^0.0274902 - 1 = 2.787%. Asked 10%, 5 runs would do at most; asked
 * 0.1%, no count up to 1000 (at 1000, 2.4790 sd sqrt(2 / 1000) = 0.17%).
 */
static void test_power(void **state)
{
	const double logs[] = {0, 0.02, -0.02, 0.01, -0.01};
	struct wperf_baseline b = {0};
	double tp[5], detectable;
	size_t needed;

	(void)state;
	for (int i = 0; i < 5; i++)
		tp[i] = exp(logs[i]);
	b.throughput = tp;
	b.nthroughput = 5;
	wperf_baseline_power(&b, 0.10, 0.05, &detectable, &needed);
	if (fabs(detectable - expm1(2.748438 * sqrt(0.001 / 4) * sqrt(2.0 / 5))) > 1e-6)
		fail_msg("detectable %.9f", detectable);
	assert_true(needed >= 2 && needed <= 5);
	wperf_baseline_power(&b, 0.001, 0.05, &detectable, &needed);
	assert_int_equal(needed, 1000);
	b.nthroughput = 1;
	wperf_baseline_power(&b, 0.10, 0.05, &detectable, &needed);
	assert_true(isnan(detectable));
	assert_int_equal(needed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_from_runs),	   cmocka_unit_test(test_write_text),
	    cmocka_unit_test(test_round_trip),	   cmocka_unit_test(test_read_handwritten),
	    cmocka_unit_test(test_cpu_model),	   cmocka_unit_test(test_calibration),
	    cmocka_unit_test(test_read_errors),	   cmocka_unit_test(test_read_empty),
	    cmocka_unit_test(test_merge_accepted), cmocka_unit_test(test_fuzz),
	    cmocka_unit_test(test_deep),	   cmocka_unit_test(test_from_runs_many_new_edges),
	    cmocka_unit_test(test_power),
	};

	return cmocka_run_group_tests_name("baselines", tests, NULL, NULL);
}
