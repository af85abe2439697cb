/* SPDX-License-Identifier: MIT */
/*
 * What the runner reads (harness/run/runner_read.c): the throughput a load
 * printed, the processes of a target; and what it checks of a run
 * (wperf_run_expect): the expected knot, sinks and CMetric ranking, by globs.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/gate/runset.h"
#include "harness/run/runner.h"

/* A throughput regex, a load's output, and what the parse must give: the
 * figure, or the error and a part of its message. */
struct parse_case {
	const char *regex, *text;
	double value;
	int ret;
	const char *msg;
};

static void check_parse(const struct parse_case *c)
{
	struct wperf_error err = {0};
	double v = NAN;
	int ret = runner_parse_throughput(c->regex, c->text, strlen(c->text), "load.log", &v, &err);

	if (ret != c->ret)
		fail_msg("/%s/ on \"%s\": %d, not %d (%s)", c->regex, c->text, ret, c->ret,
			 err.msg);
	if (!ret && v != c->value)
		fail_msg("/%s/ on \"%s\": %g, not %g", c->regex, c->text, v, c->value);
	if (c->msg && !strstr(err.msg, c->msg))
		fail_msg("/%s/ on \"%s\": \"%s\" does not say \"%s\"", c->regex, c->text, err.msg,
			 c->msg);
}

static void throughput_is_the_last_match(void **state)
{
	static const struct parse_case cases[] = {
	    {"throughput: ([0-9.]+)",
	     "starting\nthroughput: 10\nwarming\nthroughput: 12.5 req/s\nbye\n", 12.5, 0, NULL},
	    /* the last line without a newline counts too */
	    {"ops=([0-9]+)", "ops=1\nops=77", 77, 0, NULL},
	    /* several groups: the first one is the figure */
	    {"([0-9]+) ops in ([0-9]+) s", "500 ops in 5 s\n", 500, 0, NULL},
	    /* PCRE2: \d, a non-capturing group, a lazy repetition */
	    {"p99: (\\d+(?:\\.\\d+)?) ms", "p50: 3 ms\np99: 17.25 ms\n", 17.25, 0, NULL},
	    {"^.*?(\\d+)", "took 12 of 345\n", 12, 0, NULL},
	    /* a line whose first group took no part is no match */
	    {"(\\d+) ok|failed", "7 ok\nfailed\n", 7, 0, NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		check_parse(&cases[i]);
}

static void throughput_errors_say_why(void **state)
{
	static const struct parse_case cases[] = {
	    {"throughput: ([0-9.]+)", "nothing here\n", 0, -ENOENT,
	     "no line of load.log matches the throughput regex"},
	    {"rate: (.*)", "rate: fast\n", 0, -EINVAL, "caught \"fast\", which is not a number"},
	    {"rate: ([0-9.]*)", "rate: \n", 0, -EINVAL, NULL},
	    {"x: ([0-9e]+)", "x: 1e999\n", 0, -EINVAL, NULL}, /* infinite */
	    {"x: ([0-9.]+)", "", 0, -ENOENT, NULL},
	    /* catastrophic backtracking ends at the match limit */
	    {"^(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n", 0, -E2BIG,
	     "too costly to match (backtracking)"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		check_parse(&cases[i]);
}

static void target_pids_of_a_group_a_name_and_a_pid_file(void **state)
{
	struct scenario_target t = {0};
	struct wperf_buf pids = {0};
	struct wperf_error err = {0};
	char me[32], file[] = "/tmp/wperf-test-pidfile-XXXXXX", comm[64] = "";
	int fd = mkstemp(file);
	FILE *f;
	pid_t child;
	int status;

	(void)state;
	snprintf(me, sizeof(me), "%d", getpid());
	/* a pid file */
	assert_true(fd >= 0);
	assert_int_equal(write(fd, me, strlen(me)), (ssize_t)strlen(me));
	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	t.kind = SCENARIO_TARGET_PIDFILE;
	t.name = file;
	assert_int_equal(runner_target_pids(&t, 0, &pids, &err), 0);
	assert_int_equal(pids.len, strlen(me));
	assert_memory_equal(pids.data, me, strlen(me));
	/* garbage in the pid file */
	fd = open(file, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "12abc", 5), 5);
	close(fd);
	assert_int_equal(runner_target_pids(&t, 0, &pids, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "expected a pid"));
	unlink(file);
	assert_int_equal(runner_target_pids(&t, 0, &pids, &err), -ENOENT);
	assert_non_null(strstr(err.msg, file));

	/* a process group: a child leading its own group, and its child */
	child = fork();
	if (child == 0) {
		setpgid(0, 0);
		if (fork() == 0)
			pause();
		pause();
		_exit(0);
	}
	setpgid(child, child);
	usleep(200 * 1000);
	pids.len = 0;
	t.kind = SCENARIO_TARGET_LOAD;
	t.name = "load";
	assert_int_equal(runner_target_pids(&t, child, &pids, &err), 0);
	assert_int_equal(wperf_buf_append(&pids, "", 1), 0);
	assert_non_null(strchr((char *)pids.data, ',')); /* two processes */
	snprintf(me, sizeof(me), "%d", child);
	assert_non_null(strstr((char *)pids.data, me));
	kill(-child, SIGKILL);
	waitpid(child, &status, 0);

	/* a process name: this test's own */
	f = fopen("/proc/self/comm", "r");
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	pids.len = 0;
	t.kind = SCENARIO_TARGET_PROCESS;
	t.name = comm;
	assert_int_equal(runner_target_pids(&t, 0, &pids, &err), 0);
	assert_int_equal(wperf_buf_append(&pids, "", 1), 0);
	snprintf(me, sizeof(me), "%d", getpid());
	assert_non_null(strstr((char *)pids.data, me));
	/* a name nothing has */
	pids.len = 0;
	t.name = "no-such-process-xyz";
	assert_int_equal(runner_target_pids(&t, 0, &pids, &err), -ESRCH);
	assert_non_null(strstr(err.msg, "process no-such-process-xyz has no process running"));
	wperf_buf_release(&pids);
}

static void add_knot(struct wperf_run *r, const char *a, const char *b, const char *c)
{
	const char *ids[3] = {a, b, c};

	assert_int_equal(wperf_run_add_knot(r, ids, c ? 3 : 2), 0);
}

static void expect_finds_the_knot_by_globs(void **state)
{
	static const char *const want[] = {"fig1/B", "disk:*"};
	static const char *const not_in[] = {"fig1/A"};
	const struct wperf_expect x = {
	    .knot = want, .nknot = 2, .not_in_knot = not_in, .nnot_in_knot = 1};
	struct wperf_run r;
	char why[512] = "";

	(void)state;
	wperf_run_init(&r);
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), -1);
	assert_string_equal(why, "no knot was found");

	add_knot(&r, "kworker/#:#H", "fig1/C", NULL);
	add_knot(&r, "disk:254:0", "fig1/B", NULL);
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), 1);
	wperf_run_release(&r);

	/* B with the disk, but A in the knot too: named */
	wperf_run_init(&r);
	add_knot(&r, "disk:254:0", "fig1/B", "fig1/A");
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "the knot has fig1/A, which it should not"));
	assert_non_null(strstr(why, "knots: {disk:254:0, fig1/A, fig1/B}"));
	wperf_run_release(&r);

	/* B alone with another thread: the glob that missed is named */
	wperf_run_init(&r);
	add_knot(&r, "fig1/B", "fig1/D", NULL);
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no knot has disk:*"));
	/* a tiny buffer is cut, not overrun */
	assert_int_equal(wperf_run_expect(&r, &x, why, 8), -1);
	assert_int_equal(strlen(why), 7);
	wperf_run_release(&r);
}

/* The other answers a synthetic scenario can expect: sinks, no knot at all,
 * and the thread the CMetric ranks first. */
static void expect_sinks_no_knot_and_cmetric(void **state)
{
	static const char *const sinks[] = {"pipeline/transform"};
	static const char *const found[] = {"pipeline/transform", "other/x"};
	struct wperf_expect x = {.sink = sinks, .nsink = 1, .no_knot = 1};
	struct wperf_run r;
	char why[512] = "";

	(void)state;
	wperf_run_init(&r);
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), -1);
	assert_string_equal(why, "no sink is pipeline/transform; sinks: {}");
	assert_int_equal(wperf_idset_from(found, 2, &r.sinks), 0);
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), 0);

	/* a knot where none should be */
	add_knot(&r, "pipeline/parse", "pipeline/emit", NULL);
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), -1);
	assert_string_equal(why, "a knot was found; knots: {pipeline/emit, pipeline/parse}");

	/* the CMetric's first */
	x = (struct wperf_expect){.cmetric_first = "sink/producer"};
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "the CMetric ranks nothing first, not sink/producer"));
	r.cmetric_first = strdup("sink/consumer-#");
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "the CMetric ranks sink/consumer-# first, not sink/producer"));
	x.cmetric_first = "sink/*";
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), 0);
	wperf_run_release(&r);
}

/* A thread paced by a timer (synthetic-paced). */
static void expect_timer_paced(void **state)
{
	static const char *const paced[] = {"paced/pacer"};
	static const char *const found[] = {"paced/pacer", "other/beat"};
	struct wperf_expect x = {.timer_paced = paced, .ntimer_paced = 1, .no_knot = 1};
	struct wperf_run r;
	char why[512] = "";

	(void)state;
	wperf_run_init(&r);
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), -1);
	assert_string_equal(why, "no thread paced by a timer is paced/pacer; paced: {}");
	assert_int_equal(wperf_idset_from(found + 1, 1, &r.timer_paced), 0);
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), -1);
	assert_string_equal(why, "no thread paced by a timer is paced/pacer; paced: {other/beat}");
	wperf_idset_release(&r.timer_paced);
	assert_int_equal(wperf_idset_from(found, 2, &r.timer_paced), 0);
	assert_int_equal(wperf_run_expect(&r, &x, why, sizeof(why)), 0);
	wperf_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(throughput_is_the_last_match),
	    cmocka_unit_test(throughput_errors_say_why),
	    cmocka_unit_test(target_pids_of_a_group_a_name_and_a_pid_file),
	    cmocka_unit_test(expect_finds_the_knot_by_globs),
	    cmocka_unit_test(expect_sinks_no_knot_and_cmetric),
	    cmocka_unit_test(expect_timer_paced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
