/* SPDX-License-Identifier: MIT */
/*
 * Results folders and the gate's files (harness/run/results.c, harness/gate/gate.c) on
 * data: the summary.json of real run sets of scenarios/synthetic-fig1.yaml,
 * committed under tests/data/results/ (fig1-base made the committed
 * baselines/synthetic-fig1.yaml; fig1-head is the same program again; fig1-worse
 * has fig1 --extra-wait-ms 8: B also waits for a thread D).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/gate/gate.h"
#include "harness/run/results.h"

static char tmp[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/wperf-test-results-XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void read_results(const char *dir, struct results *r)
{
	struct wperf_error err = {0};

	if (results_read(dir, r, &err) < 0)
		fail_msg("%s", err.msg);
}

/* A copy of tests/data/results/NAME in the temporary folder (the gate writes
 * its verdict into the folder it judges). */
static const char *copy_results(const char *name)
{
	static char dir[256];
	char cmd[600];

	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	snprintf(cmd, sizeof(cmd), "cp -r tests/data/results/%s %s", name, dir);
	assert_int_equal(system(cmd), 0);
	return dir;
}

static int run_has(const struct wperf_run *run, const char *a, const char *b)
{
	for (size_t k = 0; k < run->nknots; k++) {
		int has_a = 0, has_b = 0;

		for (size_t i = 0; i < run->knots[k].n; i++) {
			has_a |= !strcmp(run->knots[k].ids[i], a);
			has_b |= !strcmp(run->knots[k].ids[i], b);
		}
		if (has_a && has_b)
			return 1;
	}
	return 0;
}

static void reads_real_run_sets(void **state)
{
	struct results r;

	(void)state;
	read_results("tests/data/results/fig1-base", &r);
	assert_true(r.complete);
	assert_string_equal(r.scenario, "synthetic-fig1");
	assert_string_equal(r.runs.unit, "requests/s");
	assert_int_equal(r.runs.nruns, 5);
	assert_int_equal(r.env.cpus, 2);
	assert_true(r.env.kernel[0] && r.env.tool[0]);
	assert_int_equal(r.started, 1795334906); /* 2026-11-22T08:08:26Z: kept when rewritten */
	assert_float_equal(r.gate.edge_tolerance, 0.10, 1e-12);
	assert_int_equal(r.gate.min_runs, 5);
	for (size_t i = 0; i < r.runs.nruns; i++) {
		assert_true(r.expect[i].checked && r.expect[i].met);
		assert_true(run_has(&r.runs.runs[i], "disk:254:0", "fig1/B"));
		assert_true(r.runs.runs[i].throughput > 100);
		assert_true(r.runs.runs[i].window_ns > 4000000000ull);
	}
	results_release(&r);
}

/* The committed baseline is what baseline update makes of fig1-base, and an
 * update keeps the accepted entries people wrote (one added to its copy). */
static void baseline_update_keeps_accepted(void **state)
{
	struct results r;
	struct wperf_baseline committed, fresh;
	struct wperf_error err = {0};
	char path[256], cmd[1024];

	(void)state;
	read_results("tests/data/results/fig1-base", &r);
	assert_int_equal(gate_read_baseline("baselines/synthetic-fig1.yaml", &committed, &err), 0);
	snprintf(path, sizeof(path), "%s/baselines/synthetic-fig1.yaml", tmp);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/baselines && cp baselines/synthetic-fig1.yaml %s && printf "
		 "'accepted:\\n- knot: [fig1/B, \"disk:254:0\"]\\n  reason: the completion worker, by "
		 "hand\\n' >> %s",
		 tmp, path, path);
	assert_int_equal(system(cmd), 0);
	if (gate_update_baseline(&r, path, &err) < 0)
		fail_msg("%s", err.msg);
	if (gate_read_baseline(path, &fresh, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(fresh.runs, 5);
	assert_int_equal(fresh.nthroughput, committed.nthroughput);
	for (size_t i = 0; i < fresh.nthroughput; i++)
		assert_true(fresh.throughput[i] == committed.throughput[i]);
	assert_int_equal(fresh.nknots, committed.nknots);
	assert_int_equal(fresh.nedges, committed.nedges);
	assert_int_equal(fresh.naccepted, 1);
	assert_non_null(strstr(fresh.accepted[0].reason, "completion worker"));
	wperf_baseline_release(&fresh);
	/* a first baseline, in a folder that does not exist yet */
	snprintf(path, sizeof(path), "%s/new/base.yaml", tmp);
	assert_int_equal(gate_update_baseline(&r, path, &err), 0);
	assert_int_equal(gate_read_baseline(path, &fresh, &err), 0);
	assert_int_equal(fresh.naccepted, 0);
	wperf_baseline_release(&fresh);
	wperf_baseline_release(&committed);
	results_release(&r);
}

static void judge(const char *name, struct wperf_verdict *v)
{
	struct results r;
	struct wperf_baseline b;
	struct wperf_error err = {0};

	read_results(copy_results(name), &r);
	assert_int_equal(gate_read_baseline("baselines/synthetic-fig1.yaml", &b, &err), 0);
	if (gate_judge(&r, &b, "baselines/synthetic-fig1.yaml", NULL, v, &err) < 0)
		fail_msg("%s", err.msg);
	wperf_baseline_release(&b);
	results_release(&r);
}

static int file_has(const char *dir, const char *file, const char *needle)
{
	char path[512], text[65536];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return strstr(text, needle) != NULL;
}

static void the_same_program_passes(void **state)
{
	struct wperf_verdict v;

	(void)state;
	judge("fig1-head", &v);
	assert_int_equal(v.kind, WPERF_VERDICT_PASS);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 0);
	for (size_t i = 0; i < v.nfindings; i++)
		assert_int_not_equal(v.findings[i].level, WPERF_LEVEL_FAIL);
	wperf_verdict_release(&v);
}

static void a_new_wait_is_a_new_bottleneck(void **state)
{
	struct wperf_verdict v;
	char dir[256];
	int found = 0;

	(void)state;
	judge("fig1-worse", &v);
	snprintf(dir, sizeof(dir), "%s/fig1-worse", tmp);
	assert_int_equal(v.kind, WPERF_VERDICT_NEW_BOTTLENECK);
	assert_int_equal(wperf_verdict_exit_code(v.kind), 1);
	for (size_t i = 0; i < v.nfindings; i++) {
		const struct wperf_finding *f = &v.findings[i];

		if (f->kind != WPERF_FINDING_VERTEX || f->level != WPERF_LEVEL_FAIL)
			continue;
		found |= !strcmp(f->vertex, "fig1/D") && f->worse && !f->sink;
	}
	assert_true(found);
	/* B waits for D now: the throughput fell far beyond the tolerance (shown;
	 * compared only against a baseline from this machine) */
	assert_true(v.throughput_after < 0.7 * v.throughput_before);
	wperf_verdict_release(&v);
	/* the verdict, next to the results, for people and for CI */
	assert_true(file_has(dir, "verdict.md", "new-bottleneck"));
	assert_true(file_has(dir, "verdict.md", "`fig1/D`"));
	assert_true(file_has(dir, "junit.xml", "<failure"));
	assert_true(file_has(dir, "summary.md", "new-bottleneck"));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void bad_summaries_are_refused_with_the_place(void **state)
{
	struct results r;
	struct wperf_baseline b;
	struct wperf_verdict v;
	struct wperf_error err = {0};
	char dir[256], path[300];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/bad", tmp);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	assert_int_equal(results_read(dir, &r, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "a results folder of 'wperf-bench run'"));

	write_file(path, "{\"format\": \"wperf-results/1\", \"scenario\": ");
	assert_int_equal(results_read(dir, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "summary.json: byte"));
	write_file(path, "{\"format\": \"wperf-results/9\"}");
	assert_int_equal(results_read(dir, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg,
			       "summary.json: format: expected wperf-results/1 (made by "
			       "another version of wperf-bench?), found \"wperf-results/9\""));
	write_file(path, "{\"format\": \"wperf-results/1\", \"scenario\": 3}");
	assert_int_equal(results_read(dir, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "summary.json: scenario: expected a string, found 3"));
	write_file(path, "[1, 2]");
	assert_int_equal(results_read(dir, &r, &err), -EINVAL);
	/* NaN is not JSON */
	write_file(path, "{\"format\": NaN}");
	assert_int_equal(results_read(dir, &r, &err), -EINVAL);

	/* an incomplete run set is read, but neither judged nor made a baseline */
	read_results("tests/data/results/fig1-head", &r);
	r.complete = 0;
	snprintf(r.reason, sizeof(r.reason), "interrupted by SIGINT");
	snprintf(r.dir, sizeof(r.dir), "%s", dir);
	assert_int_equal(results_write(&r, NULL, &err), 0);
	snprintf(path, sizeof(path), "%s/INCOMPLETE", dir);
	assert_int_equal(access(path, F_OK), 0);
	results_release(&r);
	read_results(dir, &r);
	assert_false(r.complete);
	assert_string_equal(r.reason, "interrupted by SIGINT");
	assert_int_equal(r.runs.nruns, 5);
	assert_int_equal(gate_read_baseline("baselines/synthetic-fig1.yaml", &b, &err), 0);
	assert_int_equal(gate_judge(&r, &b, "baselines/synthetic-fig1.yaml", NULL, &v, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "is incomplete (interrupted by SIGINT)"));
	assert_int_equal(gate_update_baseline(&r, "/nonexistent/x.yaml", &err), -EINVAL);
	/* complete again: INCOMPLETE goes */
	r.complete = 1;
	assert_int_equal(results_write(&r, NULL, &err), 0);
	assert_int_equal(access(path, F_OK), -1);
	wperf_baseline_release(&b);
	results_release(&r);
	/* no baseline: say how to make one */
	assert_int_equal(gate_read_baseline("baselines/none.yaml", &b, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "wperf-bench baseline update RESULTS"));
}

/* tests/data/results/fig1-head/summary.json with its first from replaced by
 * to, written as DIR/summary.json (DIR: tmp/edited); DIR. */
static const char *write_edited(const char *from, const char *to)
{
	static char dir[256];
	char path[300], text[16384], edited[sizeof(text) + 2048];
	const char *at;
	FILE *f = fopen("tests/data/results/fig1-head/summary.json", "r");
	size_t n;

	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_non_null(at = strstr(text, from));
	assert_true(strlen(text) + strlen(to) < sizeof(edited));
	snprintf(edited, sizeof(edited), "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	snprintf(dir, sizeof(dir), "%s/edited", tmp);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	write_file(path, edited);
	return dir;
}

/* A git object for summary.json, with commit and dirty as given. */
#define GIT(commit, dirty)                                                                         \
	"\"git\":{\"repository\":\"https://example.com/w.git\",\"commit\":" commit                 \
	",\"branch\":\"topic\",\"target\":\"main\",\"merge_base\":\"\",\"dirty\":" dirty "},"
#define COMMIT "\"0123456789abcdef0123456789abcdef01234567\""
#define UNIT   "\"unit\":\"requests/s\","

#define CPU "\"cpu\":\"Intel(R) Xeon(R) Processor\""

/* The machine's fingerprint: this machine's has a calibration, which
 * summary.json keeps and summary.md shows; run sets made before it read with
 * the calibration unknown. */
static void the_environment_has_a_fingerprint(void **state)
{
	struct wperf_env env;
	struct results r;
	struct wperf_error err = {0};
	char path[300], md[4096];
	FILE *f;
	size_t n;

	(void)state;
	results_environment(&env);
	assert_true(env.kernel[0] && env.cpus > 0);
	/* a few ns a step on any machine we know; not 0, unknown */
	assert_true(env.calibration > 0.1 && env.calibration < 1000);

	read_results("tests/data/results/fig1-head", &r);
	assert_true(r.env.calibration == 0);
	r.env.calibration = 4.3902;
	snprintf(r.dir, sizeof(r.dir), "%s/fingerprint", tmp);
	assert_int_equal(results_make_dir(r.dir, &err), 0);
	assert_int_equal(results_write(&r, NULL, &err), 0);
	results_release(&r);
	snprintf(path, sizeof(path), "%s/fingerprint", tmp);
	read_results(path, &r);
	assert_true(r.env.calibration == 4.3902);
	results_release(&r);
	snprintf(path, sizeof(path), "%s/fingerprint/summary.md", tmp);
	assert_non_null(f = fopen(path, "r"));
	n = fread(md, 1, sizeof(md) - 1, f);
	fclose(f);
	md[n] = '\0';
	assert_non_null(strstr(md, "Intel(R) Xeon(R) Processor, 2 CPUs, wperf-bench 0.1.0, "
				   "calibration loop 4.39 ns a step.\n"));
}

/* Every value results_read takes is checked for its type and its range, and
 * the error names the file, the key, what was expected and what was found. */
static void every_value_is_checked(void **state)
{
	static const struct {
		const char *from, *to, *msg; /* msg: after "DIR/summary.json: " */
	} cases[] = {
	    {"\"scenario\":\"synthetic-fig1\"", "\"scenario\":\"\"",
	     "scenario: expected a scenario's name, found \"\""},
	    {"\"scenario\":\"synthetic-fig1\"", "\"scenario\":\"fig\\u00001\"",
	     "scenario: strings cannot hold NUL characters"},
	    {"\"status\":\"complete\"", "\"status\":\"done\"",
	     "status: expected \"complete\" or \"incomplete\", found \"done\""},
	    {"\"status\":\"complete\"", "\"status\":true", "status: expected a string, found true"},
	    {"\"reason\":null", "\"reason\":7", "reason: expected a string, found 7"},
	    {"\"reason\":null", "\"reason\":[\"x\"]", "reason: expected a string, found an array"},
	    {"\"started\":\"1970-01-01T00:00:00Z\"", "\"started\":19700101",
	     "started: expected a UTC time YYYY-mm-ddTHH:MM:SSZ, found 19700101"},
	    {"\"started\":\"1970-01-01T00:00:00Z\"", "\"started\":\"1970-01-01\"",
	     "started: expected a UTC time YYYY-mm-ddTHH:MM:SSZ, found \"1970-01-01\""},
	    {UNIT, "\"units\":\"requests/s\",", "missing key \"unit\""},
	    {UNIT, "\"unit\":null,", "unit: expected a string, found null"},
	    {"\"environment\":{", "\"environment\":null,\"x\":{",
	     "environment: expected an object, found null"},
	    {CPU, CPU ",\"calibration\":\"4.39\"",
	     "environment.calibration: expected a number >= 0, found \"4.39\""},
	    {CPU, CPU ",\"calibration\":-4.39",
	     "environment.calibration: expected a number >= 0, found -4.39"},
	    /* the gate: the ranges of a scenario's gate block */
	    {"\"gate\":{", "\"gate\":true,\"x\":{", "gate: expected an object, found true"},
	    {"\"min_runs\":5", "\"min_runs\":-1",
	     "gate.min_runs: expected a whole number in [2, 1000], found -1"},
	    {"\"min_runs\":5", "\"min_runs\":18446744073709551615",
	     "gate.min_runs: expected a whole number in [2, 1000], found 18446744073709551615"},
	    {"\"min_runs\":5", "\"min_runs\":5.0",
	     "gate.min_runs: expected a whole number in [2, 1000], found 5.0"},
	    {"\"min_runs\":5", "\"min_runs\":1",
	     "gate.min_runs: expected a whole number in [2, 1000], found 1"},
	    {"\"min_runs\":5", "\"min_runs\":\"5\"",
	     "gate.min_runs: expected a whole number in [2, 1000], found \"5\""},
	    {"\"edge_tolerance\":0.10000000000000001", "\"edge_tolerance\":0",
	     "gate.edge_tolerance: expected a number in (0, 100], found 0"},
	    {"\"edge_tolerance\":0.10000000000000001", "\"edge_tolerance\":1e999",
	     "gate.edge_tolerance: expected a number in (0, 100], found 1e999"},
	    {"\"throughput_tolerance\":0.050000000000000003", "\"throughput_tolerance\":\"0.05\"",
	     "gate.throughput_tolerance: expected a number in (0, 1], found \"0.05\""},
	    {"\"warn_ratio\":0.5", "\"warn_ratio\":1.5",
	     "gate.warn_ratio: expected a number in (0, 1], found 1.5"},
	    {"\"warn_ratio\":0.5", "\"warn_ratio\":{}",
	     "gate.warn_ratio: expected a number in (0, 1], found an object"},
	    {"\"lower_is_better\":false", "\"lower_is_better\":0",
	     "gate.lower_is_better: expected true or false, found 0"},
	    {"\"lower_is_better\":false", "\"lower_is_better\":false,\"max_lost\":-0.5",
	     "gate.max_lost: expected a number in [0, 1], found -0.5"},
	    /* git and verdict: optional, but checked when there */
	    {UNIT, UNIT "\"git\":\"main\",", "git: expected an object, found \"main\""},
	    {UNIT, UNIT GIT("\"HEAD\"", "false"),
	     "git.commit: expected a commit id (40 hex digits), found \"HEAD\""},
	    {UNIT, UNIT GIT("\"0123456789abcdef0123456789abcdef0123456z\"", "false"),
	     "git.commit: expected a commit id (40 hex digits), found "
	     "\"0123456789abcdef0123456789abcdef0123456z\""},
	    {UNIT, UNIT GIT(COMMIT, "\"yes\""), "git.dirty: expected true or false, found \"yes\""},
	    {UNIT, UNIT "\"verdict\":1,", "verdict: expected an object, found 1"},
	    {UNIT, UNIT "\"verdict\":{\"kind\":\"passed\",\"baseline\":\"b.yaml\"},",
	     "verdict.kind: expected pass, improved, new-bottleneck, regression or inconclusive, "
	     "found \"passed\""},
	    {UNIT, UNIT "\"verdict\":{\"kind\":\"pass\"},", "verdict: missing key \"baseline\""},
	    /* the runs */
	    {"\"runs\":[", "\"runs\":{\"x\":[", NULL}, /* not JSON: the tokener says where */
	    {"\"runs\":[", "\"runs\":7,\"x\":[", "runs: expected an array, found 7"},
	    {"\"runs\":[", "\"runs\":[7,", "runs[0]: expected an object, found 7"},
	    {"\"run\":1", "\"run\":2", "runs[0].run: expected 1 (its place in runs), found 2"},
	    {"\"run\":1", "\"run\":null",
	     "runs[0].run: expected 1 (its place in runs), found null"},
	    {"\"expect\":{", "\"expect\":[],\"x\":{",
	     "runs[0].expect: expected an object, found an array"},
	    {"\"met\":true", "\"met\":\"true\"",
	     "runs[0].expect.met: expected true or false, found \"true\""},
	    {"\"why\":\"\"", "\"why\":null", "runs[0].expect.why: expected a string, found null"},
	};
	struct results r;
	struct wperf_error err = {0};
	char want[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *dir = write_edited(cases[i].from, cases[i].to);

		assert_int_equal(results_read(dir, &r, &err), -EINVAL);
		if (!cases[i].msg) {
			assert_non_null(strstr(err.msg, "summary.json: byte"));
			continue;
		}
		snprintf(want, sizeof(want), "%s/summary.json: %s", dir, cases[i].msg);
		assert_string_equal(err.msg, want);
	}
}

/* A string that does not fit is refused, not cut; one that fits is read whole. */
static void long_strings_are_refused(void **state)
{
	struct results r;
	struct wperf_error err = {0};
	char to[1200], want[512];
	const char *dir;

	(void)state;
	snprintf(to, sizeof(to), "\"reason\":\"%01023d\"", 7);
	dir = write_edited("\"reason\":null", to);
	read_results(dir, &r);
	assert_int_equal(strlen(r.reason), 1023);
	results_release(&r);
	snprintf(to, sizeof(to), "\"reason\":\"%01024d\"", 7);
	dir = write_edited("\"reason\":null", to);
	assert_int_equal(results_read(dir, &r, &err), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/summary.json: reason: expected at most 1023 bytes, found 1024", dir);
	assert_string_equal(err.msg, want);
	snprintf(to, sizeof(to), "\"why\":\"%0512d\"", 7);
	dir = write_edited("\"why\":\"\"", to);
	assert_int_equal(results_read(dir, &r, &err), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/summary.json: runs[0].expect.why: expected at most 511 bytes, found 512", dir);
	assert_string_equal(err.msg, want);
}

/* The optional values, when good, are read; missing or null, they are not. */
static void good_optional_values_are_read(void **state)
{
	struct results r;

	(void)state;
	read_results(
	    write_edited(UNIT,
			 UNIT GIT(COMMIT, "true") "\"verdict\":{\"kind\":"
						  "\"new-bottleneck\",\"baseline\":\"b.yaml\"},"),
	    &r);
	assert_string_equal(r.git.commit, "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(r.git.branch, "topic");
	assert_string_equal(r.git.merge_base, "");
	assert_true(r.git.dirty);
	assert_string_equal(r.verdict, "new-bottleneck");
	assert_string_equal(r.baseline_from, "b.yaml");
	assert_true(r.gate.max_lost == 0); /* missing: the verdict's default */
	results_release(&r);
	read_results(
	    write_edited("\"lower_is_better\":false", "\"lower_is_better\":true,\"max_lost\":1"),
	    &r);
	assert_true(r.gate.lower_is_better);
	assert_true(r.gate.max_lost == 1);
	results_release(&r);
	/* 0: a summary without max_lost, written again */
	read_results(
	    write_edited("\"lower_is_better\":false", "\"lower_is_better\":false,\"max_lost\":0.0"),
	    &r);
	assert_true(r.gate.max_lost == 0);
	results_release(&r);
	read_results(write_edited(UNIT, UNIT "\"git\":null,\"verdict\":null,"), &r);
	assert_false(r.git.commit[0] || r.verdict[0]);
	assert_int_equal(r.runs.nruns, 5);
	results_release(&r);
	read_results(write_edited("\"run\":1,", ""), &r); /* run: optional */
	assert_int_equal(r.runs.nruns, 5);
	results_release(&r);
}

/* How many entries of dir start with prefix. */
static int entries_starting(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* A baseline update that cannot be written whole (the file size limit cuts
 * the write short, a real EFBIG from the kernel) leaves the old baseline as it
 * was and no temporary file beside it. */
static void a_failed_baseline_write_keeps_the_old_one(void **state)
{
	struct results r;
	struct wperf_error err = {0};
	char dir[256], path[300], cmd[700], before[65536], after[65536];
	size_t nbefore, nafter;
	FILE *f;
	pid_t pid;
	int status;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/atomic", tmp);
	snprintf(path, sizeof(path), "%s/synthetic-fig1.yaml", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && cp baselines/synthetic-fig1.yaml %s", dir, path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "r");
	nbefore = fread(before, 1, sizeof(before), f);
	fclose(f);
	read_results("tests/data/results/fig1-base", &r);

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit small = {.rlim_cur = 512, .rlim_max = 512};

		signal(SIGXFSZ, SIG_IGN); /* a short write, not a kill */
		setrlimit(RLIMIT_FSIZE, &small);
		if (gate_update_baseline(&r, path, &err) != -EFBIG)
			_exit(1);
		_exit(strstr(err.msg, "synthetic-fig1.yaml") && strstr(err.msg, "File too large")
			  ? 0
			  : 2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	f = fopen(path, "r");
	nafter = fread(after, 1, sizeof(after), f);
	fclose(f);
	assert_int_equal(nafter, nbefore);
	assert_memory_equal(after, before, nbefore);
	assert_int_equal(entries_starting(dir, "synthetic-fig1.yaml.tmp"), 0);

	/* without the limit the same update goes through, and leaves no temporary file */
	if (gate_update_baseline(&r, path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(entries_starting(dir, "synthetic-fig1.yaml.tmp"), 0);
	assert_int_equal(entries_starting(dir, "synthetic-fig1.yaml"), 1);
	results_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reads_real_run_sets),
	    cmocka_unit_test(the_environment_has_a_fingerprint),
	    cmocka_unit_test(baseline_update_keeps_accepted),
	    cmocka_unit_test(the_same_program_passes),
	    cmocka_unit_test(a_new_wait_is_a_new_bottleneck),
	    cmocka_unit_test(bad_summaries_are_refused_with_the_place),
	    cmocka_unit_test(every_value_is_checked),
	    cmocka_unit_test(long_strings_are_refused),
	    cmocka_unit_test(good_optional_values_are_read),
	    cmocka_unit_test(a_failed_baseline_write_keeps_the_old_one),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
