/* SPDX-License-Identifier: MIT */
/*
 * The call sites of findings, from tests/data/results/fig1-sites: the reports
 * of real recordings (`wperf-bench report --format json`, kept to the edges of
 * the workload's threads): run 1 of tests/data/fig1.trace, run 2 of
 * tests/data/fig1-thread.trace, run 3 of tests/data/falsewake-plain.trace (a
 * run without fig1's edges), run 4 without a report (a run that failed).
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

#include "harness/gate/finding_sites.h"

#define RESULTS "tests/data/results/fig1-sites"

static struct wperf_finding *add(struct wperf_verdict *v, enum wperf_finding_kind kind,
				 enum wperf_level level, int worse, const char *from,
				 const char *to)
{
	struct wperf_finding *f;

	v->findings = realloc(v->findings, (v->nfindings + 1) * sizeof(*v->findings));
	assert_non_null(v->findings);
	f = &v->findings[v->nfindings++];
	*f = (struct wperf_finding){.kind = kind, .level = level, .worse = worse};
	f->from = from ? strdup(from) : NULL;
	f->to = to ? strdup(to) : NULL;
	return f;
}

static void median_run_sites(void **state)
{
	struct wperf_verdict v = {0};
	struct wperf_error err = {0};
	const struct wperf_site *s;

	(void)state;
	/* 0: in runs 1 (83.3%) and 2 (78.2%): the lower median, run 2 */
	add(&v, WPERF_FINDING_EDGE, WPERF_LEVEL_FAIL, 1, "fig1/A", "fig1/B");
	/* 1: in run 1 only; its three sites are one site as told, two frames deep */
	add(&v, WPERF_FINDING_VERTEX, WPERF_LEVEL_WARN, 1, "fig1/B", "kworker/u8:#");
	v.findings[1].vertex = strdup("kworker/u8:#");
	/* 2: a kernel thread's wait: its kernel stack past the scheduler's frames */
	add(&v, WPERF_FINDING_EDGE, WPERF_LEVEL_WARN, 1, "kworker/#:#H", "fig1/B");
	/* 3, 4: an improvement and an info: not wanted */
	add(&v, WPERF_FINDING_EDGE, WPERF_LEVEL_WARN, 0, "fig1/A", "fig1/B");
	add(&v, WPERF_FINDING_EDGE, WPERF_LEVEL_INFO, 1, "fig1/A", "fig1/B");
	/* 5: an edge no run has */
	add(&v, WPERF_FINDING_EDGE, WPERF_LEVEL_FAIL, 1, "fig1/B", "nobody");
	/* 6: a knot: no edge */
	add(&v, WPERF_FINDING_NEW_KNOT, WPERF_LEVEL_FAIL, 1, NULL, NULL);

	if (finding_sites_fill(RESULTS, &v, &err))
		fail_msg("%s", err.msg);

	assert_int_equal(v.findings[0].nsites, 2);
	s = v.findings[0].sites;
	assert_string_equal(s[0].waiter, "__futex_abstimed_wait_common (futex-internal.c:57)");
	assert_string_equal(s[0].waker, "pthread_cond_signal@@GLIBC_2.3.2 (futex-internal.h:209)");
	assert_true(s[0].share > 0.9999 && s[0].share < 1);
	/* run 2's second site; run 1's is pthread_barrier_wait */
	assert_string_equal(s[1].waiter, "__GI___lll_lock_wait (futex-internal.h:146)");
	assert_string_equal(s[1].waker, "__GI___lll_lock_wake (lowlevellock.c:65) <- start_thread "
					"(pthread_create.c:442)");

	assert_int_equal(v.findings[1].nsites, 1);
	s = v.findings[1].sites;
	assert_string_equal(
	    s[0].waiter,
	    "fsync (fsync.c:27) <- [fig1+0x2de5] <- start_thread (pthread_create.c:442)");
	assert_string_equal(s[0].waker, "try_to_wake_up+0x3a4 <- wake_page_function+0x7d");
	assert_true(fabs(s[0].share - 1) < 1e-9);

	assert_true(v.findings[2].nsites >= 1 && v.findings[2].nsites <= FINDING_SITES_MAX);
	s = v.findings[2].sites;
	assert_string_equal(s[0].waiter, "worker_thread+0x98 <- kthread+0xf8");
	assert_string_equal(
	    s[0].waker,
	    "fsync (fsync.c:27) <- [fig1+0x2de5] <- start_thread (pthread_create.c:442)");
	assert_true(s[0].share > 0.98);
	for (size_t i = 1; i < v.findings[2].nsites; i++)
		assert_true(s[i].share <= s[i - 1].share);

	for (size_t i = 3; i < v.nfindings; i++)
		assert_int_equal(v.findings[i].nsites, 0);

	/* Filled already: left alone. */
	assert_int_equal(finding_sites_fill(RESULTS, &v, &err), 0);
	assert_int_equal(v.findings[0].nsites, 2);
	wperf_verdict_release(&v);
}

static void errors_name_the_file(void **state)
{
	struct wperf_verdict v = {0};
	struct wperf_error err = {0};

	(void)state;
	add(&v, WPERF_FINDING_EDGE, WPERF_LEVEL_FAIL, 1, "fig1/A", "fig1/B");
	assert_int_not_equal(finding_sites_fill("tests/data/results/nowhere", &v, &err), 0);
	assert_string_equal(err.msg, "tests/data/results/nowhere/runs: No such file or directory");
	/* a results folder without its runs (summary.json only) */
	assert_int_not_equal(finding_sites_fill("tests/data/results/fig1-head", &v, &err), 0);
	assert_non_null(strstr(err.msg, "fig1-head/runs: No such file"));
	assert_int_equal(v.findings[0].nsites, 0);
	wperf_verdict_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(median_run_sites),
	    cmocka_unit_test(errors_name_the_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
