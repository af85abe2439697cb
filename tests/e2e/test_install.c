/* SPDX-License-Identifier: MIT */
/*
 * make install into a temporary root (DESTDIR, PREFIX=/usr), as the Debian
 * package's build does: the installed tree holds the program, wperf_annotate.h,
 * the documents, the example scenarios and the library; the installed program,
 * outside any build folder, refuses a scenario that needs ${BUILD_DIR}, saying
 * where and how to give it, before it makes anything. Needs no BPF.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/util/buf.h"
#include "harness/base/output.h"
#include "harness/base/version.h"
#include "tests/lib/e2e.h"

static char root[512];

static int install_once(void **state)
{
	const char *build = getenv("WPERF_BUILD");

	(void)state;
	snprintf(root, sizeof(root), "%s", e2e_tmp_path("root"));
	/* Not make test's jobserver, which it does not pass down to tests. */
	e2e_shell("env -u MAKEFLAGS -u MAKELEVEL make -s BUILD=%s install DESTDIR=%s PREFIX=/usr "
		  ">/dev/null",
		  build ? build : "build", root);
	return 0;
}

/* Asserts that every file of the tree matching pattern is installed, the same,
 * under folder (its name kept, or its path when keep_path). */
static void assert_installed_all(const char *pattern, const char *folder, int keep_path)
{
	glob_t g;

	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *name = keep_path ? g.gl_pathv[i] : strrchr(g.gl_pathv[i], '/') + 1;
		char rel[512];

		snprintf(rel, sizeof(rel), "%s/%s", folder, name);
		e2e_shell("cmp -s %s %s", g.gl_pathv[i], e2e_join(root, rel));
	}
	globfree(&g);
}

static void test_program(void **state)
{
	struct e2e_output o;
	struct stat st;

	(void)state;
	assert_int_equal(stat(e2e_join(root, "usr/bin/wperf-bench"), &st), 0);
	assert_true(st.st_mode & S_IXOTH);
	e2e_run_in(&o, root, "usr/bin/wperf-bench", "--version", NULL);
	assert_int_equal(o.status, 0);
	assert_string_equal(o.out, "wperf-bench " WPERF_VERSION "\n");
}

static void test_headers_and_library(void **state)
{
	struct wperf_buf pc = {0};
	struct wperf_error err = {0};

	(void)state;
	e2e_shell("cmp -s include/wperf_annotate.h %s",
		  e2e_join(root, "usr/include/wperf_annotate.h"));
	/* the public interface, and nothing of the library's inside */
	assert_installed_all("include/wperf/*.h", "usr/include/wperf", 0);
	assert_int_equal(access(e2e_join(root, "usr/include/wperf/core"), F_OK), -1);
	assert_int_equal(access(e2e_join(root, "usr/include/wperf/bpf"), F_OK), -1);
	assert_int_equal(access(e2e_join(root, "usr/lib/libwperf.a"), R_OK), 0);
	assert_int_equal(output_read_all(e2e_join(root, "usr/lib/pkgconfig/wperf.pc"), &pc, &err),
			 0);
	assert_int_equal(wperf_buf_append(&pc, "", 1), 0);
	assert_non_null(strstr((char *)pc.data, "\nlibdir=/usr/lib\n"));
	assert_non_null(strstr((char *)pc.data, "\nVersion: " WPERF_VERSION "\n"));
	wperf_buf_release(&pc);
}

/* A library built with the sanitizers (make asan) needs their runtime in the
 * programs that link it. */
#ifdef __SANITIZE_ADDRESS__
#define SANITIZERS "-fsanitize=address,undefined"
#else
#define SANITIZERS ""
#endif

/* examples/knots.c, built against the installed package alone (its header,
 * its library, its pkg-config file), finds fig1's knot in the committed trace. */
static void test_example_builds_against_the_package(void **state)
{
	const char *bin = e2e_tmp_path("knots");
	struct e2e_output o;

	(void)state;
	e2e_shell("PKG_CONFIG_PATH=%s PKG_CONFIG_SYSROOT_DIR=%s cc -std=c11 -Wall -Wextra "
		  "-Werror " SANITIZERS
		  " examples/knots.c $(PKG_CONFIG_PATH=%s PKG_CONFIG_SYSROOT_DIR=%s "
		  "pkg-config --cflags --libs --static wperf) -o '%s'",
		  e2e_join(root, "usr/lib/pkgconfig"), root, e2e_join(root, "usr/lib/pkgconfig"),
		  root, bin);
	e2e_run_in(&o, ".", bin, "tests/data/fig1.trace", NULL);
	assert_int_equal(o.status, 0);
	if (!strstr(o.out, "\nknot 1: disk:254:0 fig1/B") ||
	    !strstr(o.out, "  disk:254:0 -> fig1/B  "))
		fail_msg("the example did not find fig1's knot:\n%s", o.out);
}

static void test_documents_and_examples(void **state)
{
	(void)state;
	assert_installed_all("README.md", "usr/share/doc/wperf-bench", 1);
	assert_installed_all("docs/*.md", "usr/share/doc/wperf-bench", 1);
	assert_installed_all("scenarios/*.yaml", "usr/share/wperf-bench/scenarios", 0);
	/* what an example reads or runs beside it (${SCENARIO_DIR}/nginx/nginx.conf) */
	assert_installed_all("scenarios/nginx/nginx.conf", "usr/share/wperf-bench/scenarios/nginx",
			     0);
	assert_installed_all("scenarios/zookeeper/slowdisk.sh",
			     "usr/share/wperf-bench/scenarios/zookeeper", 0);
	assert_int_equal(
	    access(e2e_join(root, "usr/share/wperf-bench/scenarios/zookeeper/slowdisk.sh"), X_OK),
	    0);
}

/* The man pages of the program and of each command, and the completion. */
static void test_man_pages(void **state)
{
	(void)state;
	assert_true(access(e2e_join(root, "usr/share/man/man1/wperf-bench.1"), R_OK) == 0);
	assert_true(access(e2e_join(root, "usr/share/man/man1/wperf-bench-run.1"), R_OK) == 0);
	assert_true(access(e2e_join(root, "usr/share/man/man1/wperf-bench-check-perf.1"), R_OK) ==
		    0);
	assert_true(
	    access(e2e_join(root, "usr/share/bash-completion/completions/wperf-bench"), R_OK) == 0);
	assert_true(access(e2e_join(root, "usr/share/zsh/vendor-completions/_wperf-bench"), R_OK) ==
		    0);
}

static void test_build_dir_undefined(void **state)
{
	struct e2e_output o;

	(void)state;
	e2e_run_in(&o, root, "usr/bin/wperf-bench", "run",
		   "usr/share/wperf-bench/scenarios/synthetic-fig1.yaml", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err,
			       "usr/share/wperf-bench/scenarios/synthetic-fig1.yaml:9:16: "
			       "build[0][2]: undefined variable ${BUILD_DIR} (the folder "
			       "of the scenario's built programs: give --build-dir DIR, or "));
	/* It failed before making the results folder. */
	assert_int_equal(access(e2e_join(root, "results"), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_program),
	    cmocka_unit_test(test_headers_and_library),
	    cmocka_unit_test(test_example_builds_against_the_package),
	    cmocka_unit_test(test_documents_and_examples),
	    cmocka_unit_test(test_man_pages),
	    cmocka_unit_test(test_build_dir_undefined),
	};

	return cmocka_run_group_tests(tests, install_once, NULL);
}
