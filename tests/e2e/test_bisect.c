/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench bisect in a real git repository, on what it does before and
 * around the runs: the range it walks, the log it resumes from, the answer it
 * prints from the marks, and the errors of a bisection that cannot start.
 * (Its judgments are recorded runs: bench/bisect_trials.sh bisects a real
 * change, repeatedly.)
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/lib/e2e.h"

static struct e2e_output out;
static char bench[PATH_MAX]; /* the build's wperf-bench, absolute: it runs in the repository */

#define BISECT(dir, ...) e2e_run_in(&out, dir, bench, "bisect", __VA_ARGS__, NULL)

/* A repository with a scenario at its first commit (the good one) and four
 * commits after it, "c1" to "c4". */
static const char *repo_of_five(const char *name)
{
	const char *repo = e2e_tmp_path(name);

	assert_int_equal(mkdir(repo, 0755), 0);
	e2e_shell("mkdir -p '%s/scenarios' && printf 'name: s\\nload:\\n  command: true\\n' > "
		  "'%s/scenarios/s.yaml'",
		  repo, repo);
	e2e_git_init(repo, "the good one");
	for (int i = 1; i <= 4; i++)
		e2e_shell("cd '%s' && echo %d >> notes && git add notes && git commit -q -m c%d",
			  repo, i, i);
	return repo;
}

/* A log in dir of the bisection of repo from HEAD~4 to HEAD, with marks. */
static void write_log(const char *repo, const char *dir, const char *marks)
{
	char good[41], bad[41], path[PATH_MAX];
	FILE *f;

	e2e_git_rev(repo, "HEAD~4", good);
	e2e_git_rev(repo, "HEAD", bad);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/bisect.log", dir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "# an earlier run\ngood %s\nbad %s\nscenario scenarios/s.yaml\n%s", good, bad,
		marks);
	fclose(f);
}

/* Marks for all it needs in the log: nothing runs, and the answer is the
 * commit the halving ends at, with its judgment's verdict. */
static void resumed_from_a_finished_log(void **state)
{
	const char *repo = repo_of_five("finished");
	const char *dir = e2e_join(repo, "bisect");
	char c2[41], c3[41], c4[41], marks[512], verdict[PATH_MAX];

	(void)state;
	e2e_git_rev(repo, "HEAD~2", c2);
	e2e_git_rev(repo, "HEAD~1", c3);
	e2e_git_rev(repo, "HEAD", c4);
	snprintf(marks, sizeof(marks),
		 "%s bad 8 100 regression\n%s good 5 60 pass\n"
		 "%s bad 5 60 regression\n",
		 c4, c2, c3);
	write_log(repo, dir, marks);
	snprintf(verdict, sizeof(verdict), "%s/steps/%.12s/head", dir, c3);
	e2e_shell("mkdir -p '%s' && echo 'B waits for D: a new knot' > '%s/verdict.md'", verdict,
		  verdict);
	BISECT(repo, "--good", "HEAD~4", "-q", "-r", "bisect", "scenarios/s.yaml");
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.out, "4 commits after"));
	assert_non_null(strstr(out.out, "0 judged"));
	assert_non_null(strstr(out.out, "the first bad commit: "));
	assert_non_null(strstr(strstr(out.out, "the first bad commit: "), c3));
	assert_non_null(strstr(out.out, "B waits for D: a new knot"));
	/* each commit listed with its mark, oldest first */
	assert_non_null(strstr(out.out, "untested  c1"));
	assert_non_null(strstr(out.out, "good      c2"));
	assert_non_null(strstr(out.out, "bad       c3"));
	assert_non_null(strstr(out.out, "bad       c4"));
}

/* The bad commit marked good: nothing to find, exit 1. */
static void bad_commit_that_passes(void **state)
{
	const char *repo = repo_of_five("passes");
	char c4[41], marks[256];

	(void)state;
	e2e_git_rev(repo, "HEAD", c4);
	snprintf(marks, sizeof(marks), "%s good 8 100 pass\n", c4);
	write_log(repo, e2e_join(repo, "bisect"), marks);
	BISECT(repo, "--good", "HEAD~4", "-q", "-r", "bisect", "scenarios/s.yaml");
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.out, "no change to find"));
}

static void errors(void **state)
{
	const char *repo = repo_of_five("errors");
	char c4[41], marks[256];

	(void)state;
	BISECT(repo, "scenarios/s.yaml");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "--good REF is required"));

	BISECT(repo, "--good", "HEAD", "--bad", "HEAD~2", "-r", "r1", "scenarios/s.yaml");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "is not an ancestor of"));

	BISECT(repo, "--good", "HEAD", "-r", "r2", "scenarios/s.yaml");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "the same commit"));

	BISECT(repo, "--good", "no-such-branch", "-r", "r3", "scenarios/s.yaml");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "no-such-branch"));
	assert_int_equal(access(e2e_join(repo, "r3"), F_OK), -1); /* nothing written */

	/* a scenario the good commit lacks, before any run */
	BISECT(repo, "--good", "HEAD~4", "-r", "r4", "scenarios/none.yaml");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "scenarios/none.yaml is not in the base commit"));

	/* a folder of another bisection: named, with the line that differs */
	write_log(repo, e2e_join(repo, "other"), "");
	BISECT(repo, "--good", "HEAD~3", "-r", "other", "scenarios/s.yaml");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "bisect.log:2: this folder holds another bisection"));

	/* a mark that is not one */
	e2e_git_rev(repo, "HEAD", c4);
	snprintf(marks, sizeof(marks), "%s maybe 8 100 pass\n", c4);
	write_log(repo, e2e_join(repo, "marks"), marks);
	BISECT(repo, "--good", "HEAD~4", "-r", "marks", "scenarios/s.yaml");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.err, "bisect.log:5: 'maybe' is not a mark"));
}

int main(void)
{
	if (!realpath(e2e_path("wperf-bench"), bench)) {
		perror("the build's wperf-bench");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(resumed_from_a_finished_log),
	    cmocka_unit_test(bad_commit_that_passes),
	    cmocka_unit_test(errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
