/* SPDX-License-Identifier: MIT */
/*
 * Lost events for real: a context-switch storm recorded through a 1 MiB ring
 * buffer while the recorder is stopped (SIGSTOP) for a second, so that the
 * kernel drops what it cannot store. The loss must show in the trace, the
 * report and the run's summary, and the gate must not pass on such runs,
 * even against a baseline made of the very same runs.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/output.h"
#include "harness/run/results.h"
#include "tests/lib/e2e.h"

/* The storm for 3 s; from 1 s to 2 s the recorder of this very run (found by
 * its output file) is stopped. "[r]ecord" keeps pgrep from finding the shell
 * whose command line holds the pattern. */
#define LOSSY_SCENARIO                                                                             \
	"name: lossy\n"                                                                            \
	"load:\n"                                                                                  \
	"  command: |\n"                                                                           \
	"    ${BUILD_DIR}/synthetic/pingpong --pin 0 -d 3 &\n"                                     \
	"    sleep 1\n"                                                                            \
	"    rec=$(pgrep -f '[r]ecord -q -o ${RESULTS_DIR}/')\n"                                   \
	"    kill -STOP $rec; sleep 1; kill -CONT $rec\n"                                          \
	"    wait\n"                                                                               \
	"record:\n"                                                                                \
	"  buffer_mb: 1\n"                                                                         \
	"  stacks: none\n"                                                                         \
	"runs: 1\n"

static struct e2e_output out;

static void bench(const char *a, const char *b, const char *c, const char *d, const char *e)
{
	char *argv[] = {(char *)e2e_path("wperf-bench"),
			(char *)a,
			(char *)b,
			(char *)c,
			(char *)d,
			(char *)e,
			NULL};

	e2e_run(argv, (uid_t)-1, &out);
}

static void a_gate_never_passes_on_lost_events(void **state)
{
	char scenario[PATH_MAX], results[PATH_MAX], baseline[PATH_MAX], path[PATH_MAX + 64];
	struct wperf_buf text = {0};
	struct wperf_error err = {0};
	struct results r;
	const struct wperf_run *run;

	(void)state;
	e2e_require_bpf();
	snprintf(scenario, sizeof(scenario), "%s/lossy.yaml", e2e_tmpdir());
	snprintf(results, sizeof(results), "%s/lossy", e2e_tmpdir());
	snprintf(baseline, sizeof(baseline), "%s/lossy-baseline.yaml", e2e_tmpdir());
	if (output_write(scenario, LOSSY_SCENARIO, strlen(LOSSY_SCENARIO), &err) < 0)
		fail_msg("%s", err.msg);

	bench("run", "-q", "--results", results, scenario);
	if (out.status)
		fail_msg("run: %d\n%s", out.status, out.err);

	/* the summary keeps how many were recorded and lost: over 0.1% */
	if (results_read(results, &r, &err) < 0)
		fail_msg("%s", err.msg);
	run = &r.runs.runs[0];
	if (!run->events || run->lost_events * 1000 <= run->events)
		fail_msg("%llu lost of %llu recorded: the storm did not overflow the buffer",
			 (unsigned long long)run->lost_events, (unsigned long long)run->events);
	print_message("%llu events lost, %llu recorded\n", (unsigned long long)run->lost_events,
		      (unsigned long long)run->events);
	results_release(&r);

	/* the trace and the report say so */
	snprintf(path, sizeof(path), "%s/runs/1/wperf.trace", results);
	bench("info", path, NULL, NULL, NULL);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.out, "lost"));
	snprintf(path, sizeof(path), "%s/runs/1/report.txt", results);
	assert_int_equal(output_read_all(path, &text, &err), 0);
	assert_int_equal(wperf_buf_append(&text, "", 1), 0);
	assert_non_null(strstr((char *)text.data, "events were lost while recording"));

	/* the same runs as their own baseline would pass; they cannot */
	bench("baseline", "update", "--baseline", baseline, results);
	assert_int_equal(out.status, 0);
	bench("compare", "--baseline", baseline, results, NULL);
	if (out.status != 0 || !strstr(out.out, "**inconclusive**"))
		fail_msg("compare: %d\n%s%s", out.status, out.out, out.err);
	assert_non_null(strstr(out.out, "1 of 1 runs lost more than 0.1% of their events: the "
					"gate cannot pass on them"));
	if (results_read(results, &r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(r.verdict, "inconclusive");
	results_release(&r);
	assert_int_equal(e2e_recorder_programs_linger(), 0);
	wperf_buf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_gate_never_passes_on_lost_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
