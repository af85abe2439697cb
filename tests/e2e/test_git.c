/* SPDX-License-Identifier: MIT */
/*
 * The gate in a git repository, for real: test repositories made by the test
 * with the git program, and wperf-bench run in them.
 *   - compare --baseline-ref reads the baseline of another commit (and of the
 *     merge base) from git's objects, whatever the work tree holds;
 *   - history tables and plots a baseline across the commits that changed it,
 *     and with --changes finds the commit where its throughput, an edge and a
 *     knot moved to a new level, and no other.
 * (`ab`, recorded by the kernel, is a trial: tests/trials/test_ab.c.)
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/output.h"
#include "harness/run/results.h"
#include "tests/lib/e2e.h"

static struct e2e_output out;
static char build[PATH_MAX];  /* the build folder, absolute: commands run elsewhere */
static char source[PATH_MAX]; /* the source tree: the tests run from its root */

/* build/rel */
static const char *built(const char *rel)
{
	static char path[4][PATH_MAX + 64];
	static unsigned next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", build, rel);
	return p;
}

/* Runs a command (NULL-terminated arguments) in folder dir into out. */
#define run_in(dir, ...) e2e_run_in(&out, dir, __VA_ARGS__)

/* git in dir, which must succeed. */
#define GIT(dir, ...) E2E_GIT(&out, dir, __VA_ARGS__)

/* wperf-bench in dir. */
#define BENCH(dir, ...) run_in(dir, built("wperf-bench"), __VA_ARGS__, NULL)

/* A repository at name with one empty commit on main. */
static const char *new_repo(const char *name)
{
	const char *repo = e2e_tmp_path(name);

	assert_int_equal(mkdir(repo, 0755), 0);
	e2e_git_init(repo, "the start");
	return repo;
}

/* Writes baselines/synthetic-fig1.yaml in repo from results folder results
 * (as wperf-bench baseline update makes it) and commits it as subject. */
static void commit_baseline(const char *repo, const char *results, const char *subject)
{
	char results_abs[PATH_MAX + 64];

	snprintf(results_abs, sizeof(results_abs), "%s/tests/data/results/%s", source, results);
	BENCH(repo, "baseline", "update", results_abs);
	if (out.status)
		fail_msg("baseline update: %d\n%s", out.status, out.err);
	GIT(repo, "add", "baselines");
	GIT(repo, "commit", "-q", "-m", subject);
}

/* A copy of a committed results folder, to judge. */
static const char *results_copy(const char *name, const char *results)
{
	const char *copy = e2e_tmp_path(name);
	char from[PATH_MAX + 64];

	snprintf(from, sizeof(from), "%s/tests/data/results/%s", source, results);
	run_in(".", "cp", "-r", from, copy, NULL);
	if (out.status)
		fail_msg("cp: %d\n%s", out.status, out.err);
	return copy;
}

/* ---- --baseline-ref ---- */

static void baseline_from_another_commit(void **state)
{
	const char *repo = new_repo("ref");
	const char *worse = results_copy("worse", "fig1-worse");
	char base[41], path[700];
	struct results r;
	struct wperf_error err = {0};

	(void)state;
	/* main: the baseline of the plain program; the branch: one made from the
	 * runs with the extra wait, which they then pass against. */
	commit_baseline(repo, "fig1-base", "fig1: the baseline");
	e2e_git_rev(repo, "HEAD", base);
	GIT(repo, "checkout", "-q", "-b", "feature");
	commit_baseline(repo, "fig1-worse", "fig1: accept the extra wait");

	BENCH(repo, "compare", worse);
	if (out.status != 0 || !strstr(out.out, "pass"))
		fail_msg("compare: %d\n%s%s", out.status, out.out, out.err);

	/* The work tree's file is garbage now: the committed ones are still read. */
	snprintf(path, sizeof(path), "%s/baselines/synthetic-fig1.yaml", repo);
	e2e_write_file(path, "format: nope\n");
	BENCH(repo, "compare", "--baseline-ref", "HEAD~1", worse);
	if (out.status != 1 || !strstr(out.out, "new-bottleneck"))
		fail_msg("compare --baseline-ref HEAD~1: %d\n%s%s", out.status, out.out, out.err);
	assert_non_null(strstr(out.out, "fig1/D"));
	BENCH(repo, "compare", "--baseline-ref", "HEAD", worse);
	assert_int_equal(out.status, 0);
	/* A clone whose origin lags behind: HEAD is this clone's, not
	 * origin/HEAD (which holds the baseline the runs fail against). */
	GIT(repo, "update-ref", "refs/remotes/origin/HEAD", "HEAD~1");
	BENCH(repo, "compare", "--baseline-ref", "HEAD", worse);
	if (out.status != 0)
		fail_msg("HEAD read as origin/HEAD: %d\n%s%s", out.status, out.out, out.err);
	GIT(repo, "update-ref", "-d", "refs/remotes/origin/HEAD");

	/* The merge base with main is the baseline's commit on main. */
	BENCH(repo, "compare", "--baseline-ref", "merge-base", "--target", "main", worse);
	assert_int_equal(out.status, 1);
	if (results_read(worse, &r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(r.verdict, "new-bottleneck");
	snprintf(path, sizeof(path), "baselines/synthetic-fig1.yaml at %.12s (the merge base)",
		 base);
	assert_string_equal(r.baseline_from, path);
	results_release(&r);

	/* What cannot be read says what and where. */
	BENCH(repo, "compare", "--baseline-ref", "no-such-branch", worse);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "no commit 'no-such-branch'"));
	BENCH(repo, "compare", "--baseline-ref", "HEAD~2", worse);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err,
			       "synthetic-fig1.yaml:1:9: format: expected wperf-baseline/1 or "
			       "wperf-baseline/2 (the formats this wperf-bench reads), found "));
	BENCH(repo, "compare", worse);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err,
			       "synthetic-fig1.yaml:1:9: format: expected wperf-baseline/1 or "
			       "wperf-baseline/2 (the formats this wperf-bench reads), found "));

	/* A commit from before the scenario had a baseline: the work tree's is all
	 * there is (a new scenario), and the verdict says which it used. */
	GIT(repo, "checkout", "--", "baselines");
	BENCH(repo, "compare", "--baseline-ref", "HEAD~2", worse);
	assert_int_equal(out.status, 0);
	if (results_read(worse, &r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_non_null(strstr(r.baseline_from, "(the work tree's: none at "));
	results_release(&r);
	BENCH(e2e_tmpdir(), "compare", "--baseline-ref", "HEAD", worse);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "not in a git repository"));
}

/* An accepted entry says which commit accepted it: the newest that changed
 * one of its lines, at the commit the baseline is read from; one the work
 * tree changed is not committed yet. */
static void an_accepted_entry_names_its_commit(void **state)
{
	const char *repo = new_repo("accepted");
	const char *worse = results_copy("worse-accepted", "fig1-worse");
	char path[700], oid[41], want[128];

	(void)state;
	commit_baseline(repo, "fig1-base", "fig1: the baseline");
	snprintf(path, sizeof(path), "%s/baselines/synthetic-fig1.yaml", repo);
	e2e_shell("printf 'accepted:\\n- knot: [fig1/D]\\n  reason: D audits each request\\n' "
		  ">> '%s'",
		  path);
	GIT(repo, "commit", "-q", "-am", "accept D, the audit thread");
	e2e_git_rev(repo, "HEAD", oid);
	snprintf(want, sizeof(want), "accepted in %.12s (accept D, the audit thread): D audits",
		 oid);
	BENCH(repo, "compare", worse);
	if (!strstr(out.out, want))
		fail_msg("no \"%s\" in:\n%s%s", want, out.out, out.err);

	e2e_shell("sed -i 's/each request/every request/' '%s'", path);
	BENCH(repo, "compare", worse);
	if (!strstr(out.out, "accepted in the work tree, not committed yet: D audits every"))
		fail_msg("not the work tree's:\n%s%s", out.out, out.err);
	BENCH(repo, "compare", "--baseline-ref", "HEAD", worse);
	if (!strstr(out.out, want))
		fail_msg("not HEAD's:\n%s%s", out.out, out.err);
}

/* ---- history ---- */

/* Does the line that s is in (from s on) contain needle? */
static int line_has(const char *s, const char *needle)
{
	const char *found = strstr(s, needle), *end = strchr(s, '\n');

	return found && (!end || found < end);
}

static void history_of_a_baseline(void **state)
{
	const char *repo = new_repo("history");
	const char *dir = e2e_tmp_path("history-out");
	char path[700], first[41];
	struct wperf_buf md = {0}, png = {0};
	struct wperf_error err = {0};
	const char *row1, *row2, *row3;

	(void)state;
	commit_baseline(repo, "fig1-base", "first baseline");
	e2e_git_rev(repo, "HEAD", first);
	GIT(repo, "commit", "-q", "--allow-empty", "-m", "no baseline change");
	commit_baseline(repo, "fig1-worse", "the extra wait");
	commit_baseline(repo, "fig1-head", "back to plain");

	BENCH(repo, "history", "-o", dir, "scenarios/synthetic-fig1.yaml");
	if (out.status)
		fail_msg("history: %d\n%s", out.status, out.err);
	snprintf(path, sizeof(path), "%s/history.md", dir);
	assert_int_equal(output_read_all(path, &md, &err), 0);
	assert_int_equal(wperf_buf_append(&md, "", 1), 0);
	/* three commits changed it, oldest first; the empty one is not shown */
	assert_non_null(strstr((char *)md.data, "across 3 commits"));
	assert_null(strstr((char *)md.data, "no baseline change"));
	row1 = strstr((char *)md.data, "first baseline");
	row2 = strstr((char *)md.data, "the extra wait");
	row3 = strstr((char *)md.data, "back to plain");
	assert_true(row1 && row2 && row3 && row1 < row2 && row2 < row3);
	/* the knot with D is the second commit's only */
	assert_false(line_has(row1, "fig1/D"));
	assert_true(line_has(row2, "fig1/D"));
	assert_false(line_has(row3, "fig1/D"));
	snprintf(path, sizeof(path), "%.12s", first);
	assert_true(strstr((char *)md.data, path) && strstr((char *)md.data, path) < row1);
	assert_string_equal(out.out, (char *)md.data);

	/* the plots: real PNGs (signature, an 800x480 header, the end chunk) */
	snprintf(path, sizeof(path), "%s/edges.png", dir);
	assert_int_equal(output_read_all(path, &png, &err), 0);
	assert_true(png.len > 100);
	assert_memory_equal(png.data, "\x89PNG\r\n\x1a\n", 8);
	assert_memory_equal(png.data + 12, "IHDR", 4);
	assert_int_equal(
	    (png.data[16] << 24 | png.data[17] << 16 | png.data[18] << 8 | png.data[19]), 800);
	assert_memory_equal(png.data + png.len - 8, "IEND", 4);
	snprintf(path, sizeof(path), "%s/throughput.svg", dir);
	assert_int_equal(access(path, F_OK), 0);

	/* --since: only what came after */
	BENCH(repo, "history", "-o", dir, "--since", "HEAD~1", "synthetic-fig1");
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.out, "across 1 commit\n"));
	assert_non_null(strstr(out.out, "back to plain"));
	BENCH(repo, "history", "-o", dir, "--since", "HEAD", "synthetic-fig1");
	assert_int_equal(out.status, 2);
	assert_non_null(
	    strstr(out.err, "no commit after HEAD changed baselines/synthetic-fig1.yaml"));
	wperf_buf_release(&md);
	wperf_buf_release(&png);
}

/* The noise of the history's throughputs: a fixed draw of 12 standard
 * normal values, times 2% of the level (the spread that
 * tests/unit/test_changepoint.c gives a history's points, and says why). */
static const double noise[] = {0.31, -1.12, 0.84, -0.27, 1.39, -0.88,
			       0.52, -0.41, 1.07, -1.35, 0.18, 0.66};
#define HISTORY_COMMITS (sizeof(noise) / sizeof(noise[0]))
#define STEP_AT		6 /* the commit (from 0) whose throughput is 10% lower and on */

/*
 * Commits the baseline of the history's commit i: 3 runs around its
 * throughput, fig1/A -> fig1/B at about half the window (with noise of its
 * own), and from STEP_AT on fig1/D in the knot and fig1/B -> fig1/D at 30%.
 */
static void commit_history_point(const char *repo, size_t i)
{
	double tp = 1000 * (i >= STEP_AT ? 0.9 : 1) * (1 + 0.02 * noise[i]);
	double share = 0.5 * (1 + 0.03 * noise[(i + 5) % HISTORY_COMMITS]);
	char path[PATH_MAX + 64], text[1024], subject[32];
	int stepped = i >= STEP_AT;

	snprintf(path, sizeof(path), "%s/baselines/synthetic-fig1.yaml", repo);
	snprintf(text, sizeof(text),
		 "format: wperf-baseline/1\n"
		 "scenario: synthetic-fig1\n"
		 "runs: 3\n"
		 "throughput: {samples: [%.1f, %.1f, %.1f], unit: requests/s}\n"
		 "knots:\n"
		 "- vertices: [fig1/B%s]\n"
		 "  seen: 3\n"
		 "edges:\n"
		 "- from: fig1/A\n"
		 "  to: fig1/B\n"
		 "  samples: [%.4f, %.4f, %.4f]\n"
		 "%s",
		 tp - 5, tp, tp + 5, stepped ? ", fig1/D" : "", share - 0.01, share, share + 0.01,
		 stepped ? "- from: fig1/B\n  to: fig1/D\n  samples: [0.29, 0.3, 0.31]\n" : "");
	e2e_write_file(path, text);
	snprintf(subject, sizeof(subject), "%s %zu", i == STEP_AT ? "the step" : "point", i);
	GIT(repo, "add", "baselines");
	GIT(repo, "commit", "-q", "-m", subject);
}

/* How many times file dir/name holds needle. */
static size_t count_in(const char *dir, const char *name, const char *needle)
{
	struct wperf_buf text = {0};
	struct wperf_error err = {0};
	char path[PATH_MAX + 64];
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(output_read_all(path, &text, &err), 0);
	assert_int_equal(wperf_buf_append(&text, "", 1), 0);
	for (const char *s = (char *)text.data; (s = strstr(s, needle)); s++)
		n++;
	wperf_buf_release(&text);
	return n;
}

/*
 * --changes over 12 commits whose throughput drops 10% at one, where fig1/D
 * joins the knot with an edge of its own: that commit, for those three
 * series and no other, and a dashed line at it on both plots.
 */
static void history_finds_the_step(void **state)
{
	const char *repo = new_repo("history-changes");
	const char *dir = e2e_tmp_path("history-changes-out");
	char step[41], before[41], short_oid[16], path[PATH_MAX + 16], json[160];
	const char *section, *row;
	size_t rows = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/baselines", repo);
	assert_int_equal(mkdir(path, 0755), 0);
	for (size_t i = 0; i < HISTORY_COMMITS; i++) {
		commit_history_point(repo, i);
		if (i == STEP_AT)
			e2e_git_rev(repo, "HEAD", step);
		if (i == STEP_AT - 1)
			e2e_git_rev(repo, "HEAD", before);
	}
	BENCH(repo, "history", "--changes", "-o", dir, "synthetic-fig1");
	if (out.status)
		fail_msg("history --changes: %d\n%s", out.status, out.err);
	section = strstr(out.out, "## Change points");
	assert_non_null(section);
	assert_non_null(strstr(section, "at p below 0.001"));
	assert_non_null(strstr(section, "the share of 2 edges, whether 2 vertices are in a knot"));
	snprintf(short_oid, sizeof(short_oid), "`%.12s`", step);
	for (row = section; (row = strstr(row, "\n| `")); row++, rows++)
		if (strncmp(row + 3, short_oid, strlen(short_oid)))
			fail_msg("a change point at another commit:\n%s", section);
	assert_int_equal(rows, 3);
	if (!strstr(section, "| the step 6 | throughput (requests/s) | ") ||
	    !strstr(section, "| `fig1/B` → `fig1/D` share | 0% → 30% | ") ||
	    !strstr(section, "| `fig1/D` in a knot | 0% → 100% of the commits | joined |") ||
	    !strstr(section, "| 1000.9 → 902.017 | -9.9% | "))
		fail_msg("not the rows of the step:\n%s", section);
	/* the plots mark the commit, the 7th point */
	assert_int_equal(count_in(dir, "throughput.gp", "set arrow from 7, graph 0"), 1);
	assert_int_equal(count_in(dir, "throughput.gp", "set arrow"), 1);
	assert_int_equal(count_in(dir, "edges.gp", "set arrow from 7, graph 0"), 1);
	assert_int_equal(count_in(dir, "edges.gp", "set arrow"), 1);
	/* and for tools, changes.json: the three, at the step, after the commit before */
	assert_int_equal(count_in(dir, "changes.json", "\"format\":\"wperf-changes/1\""), 1);
	assert_int_equal(count_in(dir, "changes.json", "\"scenario\":\"synthetic-fig1\""), 1);
	snprintf(json, sizeof(json), "\"commit\":\"%s\",\n      \"subject\":\"the step 6\"", step);
	assert_int_equal(count_in(dir, "changes.json", json), 3);
	snprintf(json, sizeof(json), "\"previous\":\"%s\"", before);
	assert_int_equal(count_in(dir, "changes.json", json), 3);
	assert_int_equal(count_in(dir, "changes.json", "\"metric\":\"throughput\""), 1);
	assert_int_equal(count_in(dir, "changes.json",
				  "\"metric\":\"edge\",\n      \"from\":\"fig1/B\",\n      "
				  "\"to\":\"fig1/D\""),
			 1);
	assert_int_equal(count_in(dir, "changes.json",
				  "\"metric\":\"knot\",\n      \"from\":null,\n      "
				  "\"to\":null,\n      \"vertex\":\"fig1/D\""),
			 1);
	assert_int_equal(count_in(dir, "changes.json", "\"before\":1000.9,\n      \"after\":902.0"),
			 1);

	/* --max-p alone asks for them; a level that is not one is refused */
	BENCH(repo, "history", "--max-p", "1e-4", "-o", dir, "synthetic-fig1");
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.out, "at p below 0.0001"));
	BENCH(repo, "history", "--max-p", "0", "-o", dir, "synthetic-fig1");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "--max-p wants a number from 1e-300 to 1, not '0'"));
	/* without them, neither the section nor the marks nor changes.json */
	snprintf(path, sizeof(path), "%s/changes.json", dir);
	assert_int_equal(unlink(path), 0);
	BENCH(repo, "history", "-o", dir, "synthetic-fig1");
	assert_int_equal(out.status, 0);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_null(strstr(out.out, "Change points"));
	assert_int_equal(count_in(dir, "throughput.gp", "set arrow"), 0);
}

int main(void)
{
	if (!realpath(e2e_path(""), build) || !getcwd(source, sizeof(source))) {
		perror("the build and source folders");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(baseline_from_another_commit),
	    cmocka_unit_test(an_accepted_entry_names_its_commit),
	    cmocka_unit_test(history_of_a_baseline),
	    cmocka_unit_test(history_finds_the_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
