/* SPDX-License-Identifier: MIT */
/*
 * End-to-end: a C++ program and a Rust program (tests/data/demangle/), built
 * here with frame pointers and recorded for real, must come out of the JSON
 * report and the folded stacks with their functions named as their sources
 * name them ("ns::Queue::push(int)", "demo::queue::pop"), not mangled
 * ("_ZN2ns5Queue4pushEi"), and with kernel stacks that begin past the
 * recorder's own frames. A test is skipped when its compiler is missing
 * (ci/install-deps.sh installs both: g++ and rustc).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/lib/e2e.h"

/* The JSON report and the folded stacks of one recording of a program. */
struct reports {
	struct wperf_buf json, folded;
};

/* Records bin (built already) and writes its reports into r. */
static void record(const char *name, const char *bin, struct reports *r)
{
	char trace[512], json[512], folded[512];
	struct e2e_output *o = calloc(1, sizeof(*o));

	assert_non_null(o);
	snprintf(trace, sizeof(trace), "%s/%s.trace", e2e_tmpdir(), name);
	snprintf(json, sizeof(json), "%s/%s.json", e2e_tmpdir(), name);
	snprintf(folded, sizeof(folded), "%s/%s.folded", e2e_tmpdir(), name);
	e2e_bench(o, "record", "-q", "-o", trace, "--", bin, NULL);
	if (o->status != 0)
		fail_msg("record %s exited %d: %s", name, o->status, o->err);
	e2e_bench(o, "report", "-f", "json", "-o", json, trace, NULL);
	assert_int_equal(o->status, 0);
	e2e_bench(o, "report", "-f", "folded", "-o", folded, trace, NULL);
	assert_int_equal(o->status, 0);
	e2e_read_file(json, &r->json);
	e2e_read_file(folded, &r->folded);
	free(o);
}

/* Does the text hold needle? Says which when it does not. */
static void assert_has(const struct wperf_buf *b, const char *what, const char *needle)
{
	if (!strstr((const char *)b->data, needle))
		fail_msg("no \"%s\" in the %s:\n%.*s", needle, what, (int)b->len,
			 (const char *)b->data);
}

static void assert_lacks(const struct wperf_buf *b, const char *what, const char *needle)
{
	const char *at = strstr((const char *)b->data, needle);

	if (at)
		fail_msg("\"%s\" in the %s: %.200s", needle, what, at);
}

/* What every recording must show: no mangled frame of the program's (mangled,
 * its symbols' prefix) and none of the recorder's own. */
static void assert_clean(const struct reports *r, const char *mangled)
{
	assert_lacks(&r->json, "JSON report", mangled);
	assert_lacks(&r->folded, "folded stacks", mangled);
	assert_lacks(&r->json, "JSON report", "bpf_trace_run");
	assert_lacks(&r->folded, "folded stacks", "bpf_trace_run");
	assert_lacks(&r->json, "JSON report", "_tp_btf_sched_");
	assert_lacks(&r->folded, "folded stacks", "_tp_btf_sched_");
}

static void release(struct reports *r)
{
	wperf_buf_release(&r->json);
	wperf_buf_release(&r->folded);
}

/* A program of tests/data/demangle/, how to build it, and what its reports
 * must hold. */
struct program {
	const char *name, *compiler, *build; /* build: a format of the binary's path */
	const char *json[2], *folded;	     /* in the JSON report, in the folded stacks */
	const char *mangled;		     /* in neither: its symbols' mangled prefix */
};

/* Builds p (skipped when its compiler is missing), records it, checks its reports. */
static void check_program(const struct program *p)
{
	const char *bin = e2e_tmp_path(p->name);
	char cmd[64];
	struct reports r = {0};

	e2e_require_bpf();
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null", p->compiler);
	if (system(cmd) != 0) {
		print_message("skipped: no %s\n", p->compiler);
		skip();
	}
	e2e_shell(p->build, bin);
	record(p->name, bin, &r);
	assert_has(&r.json, "JSON report", p->json[0]);
	assert_has(&r.json, "JSON report", p->json[1]);
	assert_has(&r.folded, "folded stacks", p->folded);
	assert_clean(&r, p->mangled);
	release(&r);
}

/* The consumer waits in ns::Queue::pop(), the producer wakes it from
 * ns::Queue::push(int): both in the call sites, as C++ writes them. */
static void test_cplusplus(void **state)
{
	static const struct program cc = {
	    .name = "queue",
	    .compiler = "g++",
	    .build = "g++ -std=c++17 -O0 -g -fno-omit-frame-pointer -pthread -o '%s' "
		     "tests/data/demangle/queue.cc",
	    .json = {"\"ns::Queue::pop() (queue.cc:", "\"ns::Queue::push(int) (queue.cc:"},
	    .folded = ";ns::Queue::push(int)_(queue.cc:",
	    .mangled = "_ZN2ns5Queue",
	};

	(void)state;
	check_program(&cc);
}

/* The same in Rust: its legacy names lose their hash, v0 ones their
 * disambiguators. Skipped without rustc (Debian: apt-get install rustc). */
static void test_rust(void **state)
{
	static const struct program rs = {
	    .name = "demo",
	    .compiler = "rustc",
	    .build = "rustc -g -C opt-level=0 -C force-frame-pointers=yes -o '%s' "
		     "tests/data/demangle/demo.rs",
	    .json = {"\"demo::queue::pop (demo.rs:", "\"demo::queue::push (demo.rs:"},
	    .folded = ";demo::queue::pop_(demo.rs:",
	    .mangled = "4demo5queue",
	};

	(void)state;
	check_program(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cplusplus),
	    cmocka_unit_test(test_rust),
	};

	return cmocka_run_group_tests_name("demangled names (end to end)", tests, NULL, NULL);
}
