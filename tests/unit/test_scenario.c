/* SPDX-License-Identifier: MIT */
/*
 * The scenario loader (core/scenario/scenario.h): every value of a file that uses
 * every key, the exact error (file:line:column: path: message) for each broken
 * file in tests/data/scenarios/, and survival on garbage: random bytes,
 * mutations of a good file, deep nesting, aliases that multiply.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/scenario/scenario.h"

#define DIR "tests/data/scenarios/"

/* The environment the scenarios see: the library reads no other. */
static char *const env[] = {"HOME=/home/tester", "WPERF_TEST_VAR=value", NULL};
static const struct scenario_vars vars = {.results_dir = "/res", .build_dir = "/bld", .env = env};

static struct scenario *load_ok(const char *path)
{
	struct wperf_error err = {0};
	struct scenario *s = NULL;

	if (scenario_load(path, &vars, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_non_null(s);
	return s;
}

/* Compares a NULL-terminated array with the expected strings, NULL-terminated too. */
static void assert_strv(char **got, ...)
{
	va_list ap;
	const char *want;
	size_t i = 0;

	assert_non_null(got);
	va_start(ap, got);
	while ((want = va_arg(ap, const char *))) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want);
		i++;
	}
	va_end(ap);
	assert_null(got[i]);
}

static void test_valid_top(void **state)
{
	char dir[PATH_MAX], setup0[PATH_MAX + 32];
	struct scenario *s;

	(void)state;
	assert_non_null(realpath(DIR, dir));
	s = load_ok(DIR "valid.yaml");
	assert_string_equal(s->path, DIR "valid.yaml");
	assert_string_equal(s->dir, dir);
	assert_string_equal(s->name, "full-example_1.0");
	assert_string_equal(s->description, "Every key, for the loader's tests");
	assert_int_equal(s->ntags, 3);
	assert_strv(s->tags, "ci", "nightly", "x86", NULL);

	assert_int_equal(s->nsetup, 2);
	snprintf(setup0, sizeof(setup0), "make -C %s/.. all", dir);
	assert_true(s->setup[0].shell);
	assert_int_equal(s->setup[0].line, 8);
	assert_strv(s->setup[0].argv, "/bin/sh", "-c", setup0, NULL);
	assert_false(s->setup[1].shell);
	assert_int_equal(s->setup[1].line, 9);
	assert_strv(s->setup[1].argv, "mkdir", "-p", "/res/data", NULL);

	assert_int_equal(s->nprepare, 1);
	assert_strv(s->prepare[0].argv, "/bin/sh", "-c", "rm -f /res/data/*", NULL);

	assert_int_equal(s->nteardown, 2);
	assert_true(s->teardown[0].shell);
	assert_strv(s->teardown[0].argv, "/bin/sh", "-c", "rm -rf /res/data", NULL);
	assert_false(s->teardown[1].shell);
	assert_strv(s->teardown[1].argv, "true", NULL);

	assert_int_equal(s->runs, 7);
	scenario_free(s);
}

static void test_valid_services(void **state)
{
	const struct scenario_service *zk, *web, *v6, *marker, *sleepy;
	struct scenario *s;

	(void)state;
	s = load_ok(DIR "valid.yaml");
	assert_int_equal(s->nservices, 6);
	zk = scenario_service(s, "zk");
	web = scenario_service(s, "web-1");
	v6 = scenario_service(s, "v6");
	marker = scenario_service(s, "marker");
	sleepy = scenario_service(s, "sleepy");
	assert_ptr_equal(zk, &s->services[0]); /* in the file's order */
	assert_ptr_equal(web, &s->services[1]);
	assert_ptr_equal(sleepy, &s->services[4]);
	assert_null(scenario_service(s, "load"));
	assert_null(scenario_service(s, "z"));

	assert_string_equal(zk->name, "zk");
	assert_false(zk->command.shell);
	assert_strv(zk->command.argv, "/bld/zkServer", "start-foreground", "2181", NULL);
	assert_int_equal(zk->nenv, 4);
	assert_strv(zk->env, "JVMFLAGS=-Xmx1g", "ZOO_LOG_DIR=/res/zk", "COUNT=3", "EMPTY=", NULL);
	assert_string_equal(zk->cwd, "/home/tester/zk");
	assert_int_equal(zk->ready.kind, SCENARIO_READY_TCP);
	assert_string_equal(zk->ready.host, "127.0.0.1");
	assert_int_equal(zk->ready.port, 2181);
	assert_true(zk->ready.timeout == 45); /* 45s */
	assert_int_equal(zk->stop_signal, SIGINT);
	assert_true(zk->stop_timeout == 2.5); /* 2500ms */

	assert_true(web->command.shell);
	assert_strv(web->command.argv, "/bin/sh", "-c", "exec nginx -g 'daemon off;'", NULL);
	assert_int_equal(web->nenv, 0);
	assert_strv(web->env, NULL);
	assert_null(web->cwd);
	assert_int_equal(web->ready.kind, SCENARIO_READY_LOG);
	assert_string_equal(web->ready.log, "start(ed|ing) worker process [0-9]+$");
	assert_true(web->ready.timeout == 30);
	assert_int_equal(web->stop_signal, SIGQUIT);
	assert_true(web->stop_timeout == 10);

	assert_int_equal(v6->ready.kind, SCENARIO_READY_TCP);
	assert_string_equal(v6->ready.host, "::1");
	assert_int_equal(v6->ready.port, 8080);
	assert_int_equal(v6->stop_signal, 10);

	assert_int_equal(marker->ready.kind, SCENARIO_READY_FILE);
	assert_string_equal(marker->ready.file, "/res/ready");
	assert_true(marker->ready.timeout == 0.5); /* "500ms", quoted */
	assert_int_equal(marker->stop_signal, SIGKILL);

	assert_int_equal(sleepy->ready.kind, SCENARIO_READY_DELAY);
	assert_true(sleepy->ready.delay == 2.5);
	assert_int_equal(sleepy->stop_signal, SIGTERM);
	assert_true(sleepy->stop_timeout == 60); /* 1m */

	assert_int_equal(s->services[5].ready.kind, SCENARIO_READY_HTTP);
	assert_string_equal(s->services[5].ready.url, "http://127.0.0.1:8080/health");
	assert_int_equal(s->services[5].ready.status, 204);
	assert_true(s->services[5].ready.timeout == 120);
	scenario_free(s);
}

static void test_valid_load_record(void **state)
{
	const struct scenario_target *t;
	struct scenario *s;

	(void)state;
	s = load_ok(DIR "valid.yaml");
	/* ${DURATION} comes from load.duration; what names no variable of the
	 * scenario's stays for the shell ($5, $$, $f, ${f}, ${f%.c}, a lone ${);
	 * \${HOME} is the text ${HOME}; a backslash before anything else stays. */
	assert_false(s->load.command.shell);
	assert_strv(s->load.command.argv, "/bld/loadgen", "--seconds", "10.5", "--cost", "$5",
		    "a$b", "$$", "${HOME}", "${f}", "$f", "\\$f", "${f%.c}", "${", "value", NULL);
	assert_true(s->load.duration == 10.5);
	assert_int_equal(s->load.nenv, 2);
	assert_strv(s->load.env, "LOAD_OUT=/res/load.out", "THREADS=4", NULL);
	assert_non_null(strstr(s->load.cwd, "/tests/data/scenarios/work"));
	assert_string_equal(s->load.throughput.regex, "throughput: ([0-9.]+) ops/s");
	assert_string_equal(s->load.throughput.file, "/res/load.out");
	assert_string_equal(s->load.throughput.unit, "ops/s");
	assert_false(s->load.throughput.higher_is_better);

	assert_int_equal(s->record.ntargets, 5);
	t = s->record.targets;
	assert_int_equal(t[0].kind, SCENARIO_TARGET_SERVICE);
	assert_string_equal(t[0].name, "zk");
	assert_ptr_equal(t[0].service, scenario_service(s, "zk"));
	assert_int_equal(t[1].kind, SCENARIO_TARGET_LOAD);
	assert_string_equal(t[1].name, "load");
	assert_null(t[1].service);
	assert_int_equal(t[2].kind, SCENARIO_TARGET_PROCESS);
	assert_string_equal(t[2].name, "java");
	assert_int_equal(t[3].kind, SCENARIO_TARGET_PIDFILE);
	assert_string_equal(t[3].name, "/run/x.pid");
	assert_int_equal(t[4].kind, SCENARIO_TARGET_SERVICE);
	assert_string_equal(t[4].name, "web-1");
	assert_ptr_equal(t[4].service, scenario_service(s, "web-1"));
	assert_true(s->record.warmup == 1);
	assert_true(s->record.window == 5); /* 5s */
	assert_int_equal(s->record.stacks, SCENARIO_STACKS_DWARF);
	scenario_free(s);
}

static void test_valid_analysis_gate(void **state)
{
	struct scenario *s;

	(void)state;
	s = load_ok(DIR "valid.yaml");
	assert_true(s->analysis.threshold == 0.3);
	assert_true(s->analysis.min_edge == -1);
	assert_true(s->analysis.merge_similar == 0.8);
	assert_int_equal(s->analysis.target.kind, SCENARIO_TARGET_SERVICE);
	assert_ptr_equal(s->analysis.target.service, scenario_service(s, "zk"));
	assert_int_equal(s->analysis.disk_bytes_per_s, 200000000);
	assert_int_equal(s->analysis.disk_iops, 5000);
	assert_int_equal(s->analysis.nic_bits_per_s, 10000000000ull);
	assert_int_equal(s->analysis.naliases, 2);
	assert_strv(s->analysis.aliases, "fig1/B=logger", "disk:254:0=the disk", NULL);

	assert_int_equal(s->expect.nknot, 2);
	assert_strv(s->expect.knot, "fig1/B", "disk:*", NULL);
	assert_int_equal(s->expect.nnot_in_knot, 1);
	assert_strv(s->expect.not_in_knot, "fig1/A", NULL);

	assert_true(s->gate.edge_tolerance == 0.2);
	assert_true(s->gate.throughput_tolerance == 0.1);
	assert_true(s->gate.warn_ratio == 0.25);
	assert_int_equal(s->gate.min_runs, 3);
	scenario_free(s);
}

/* The scenario the project ships for the paper's Figure 1, and every default. */
static void test_fig1_and_defaults(void **state)
{
	struct scenario *s;

	(void)state;
	s = load_ok("scenarios/synthetic-fig1.yaml");
	assert_string_equal(s->name, "synthetic-fig1");
	assert_strv(s->tags, "nightly", "synthetic", NULL);
	assert_true(s->load.command.shell);
	assert_string_equal(s->load.command.argv[2],
			    "/bld/synthetic/fig1 --duration 5 --direct --write-bytes 4194304 "
			    "--file /res/fig1.data");
	assert_true(s->load.duration == 5);
	assert_true(s->load.timeout == 0 && s->load.stop_timeout == 10);
	assert_string_equal(s->load.throughput.regex, "throughput: ([0-9.]+) requests/s");
	assert_null(s->load.throughput.file);
	assert_true(s->load.throughput.higher_is_better);
	assert_int_equal(s->runs, 5);
	assert_int_equal(s->analysis.target.kind, SCENARIO_TARGET_PROCESS);
	assert_string_equal(s->analysis.target.name, "fig1");
	assert_strv(s->expect.knot, "fig1/B", "disk:*", NULL);
	assert_strv(s->expect.not_in_knot, "fig1/A", NULL);
	assert_strv(s->expect.timer_paced, NULL);

	/* Defaults of what the file leaves out. */
	assert_int_equal(s->nsetup, 0);
	assert_null(s->setup);
	assert_int_equal(s->nservices, 0);
	assert_null(s->services);
	assert_int_equal(s->load.nenv, 0);
	assert_strv(s->load.env, NULL);
	assert_null(s->load.cwd);
	assert_int_equal(s->nprepare, 0);
	assert_int_equal(s->nteardown, 0);
	assert_int_equal(s->record.ntargets, 0);
	assert_null(s->record.targets);
	assert_true(s->record.warmup == 0);
	assert_true(s->record.window == 0);
	assert_int_equal(s->record.stacks, SCENARIO_STACKS_ALL);
	assert_true(s->analysis.threshold == 0.2);
	assert_true(isnan(s->analysis.min_edge)); /* the stable level */
	assert_true(s->analysis.merge_similar == 0);
	assert_int_equal(s->analysis.disk_iops, 0);
	assert_int_equal(s->analysis.naliases, 0);
	assert_strv(s->analysis.aliases, NULL);
	assert_true(s->gate.edge_tolerance == 0.10);
	assert_true(s->gate.throughput_tolerance == 0.05);
	assert_true(s->gate.warn_ratio == 0.5);
	assert_int_equal(s->gate.min_runs, 5);
	scenario_free(s);
	/* a scenario without a gate block has the default tolerance */
	s = load_ok("scenarios/synthetic-lock.yaml");
	assert_true(s->gate.throughput_tolerance == 0.05);
	scenario_free(s);
	/* the pacing a scenario expects */
	s = load_ok("scenarios/synthetic-paced.yaml");
	assert_true(s->expect.no_knot);
	assert_int_equal(s->expect.ntimer_paced, 1);
	assert_strv(s->expect.timer_paced, "paced/pacer", NULL);
	scenario_free(s);
}

static void assert_prefix(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)))
		fail_msg("\"%s\" does not start with \"%s\"", s, prefix);
}

/* The shell's own $$ and $(...) in the shipped ZooKeeper scenarios, written
 * naturally, reach the shell as they did when they had to be doubled. */
static void test_shipped_shell_variables(void **state)
{
	static const char *const files[] = {"scenarios/zookeeper.yaml",
					    "scenarios/zookeeper-writes.yaml"};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct scenario *s = load_ok(files[i]);
		const struct scenario_service *zk = scenario_service(s, "zk");

		assert_non_null(zk);
		assert_true(zk->command.shell);
		assert_prefix(zk->command.argv[2], "echo $$ > \"/res/zk/pid\" && exec java ");
		assert_int_equal(s->record.non_stop, 1);
		assert_prefix(s->record.on_stop[0].argv[2],
			      "jcmd $(cat \"/res/zk/pid\") Compiler.perfmap ");
		assert_int_equal(s->nteardown, 2);
		assert_string_equal(s->teardown[1].argv[2],
				    "test -s \"/res/zk/pid\" && rm -f \"/tmp/perf-$(cat "
				    "\"/res/zk/pid\").map\" || true");
		/* the configuration once, an empty data directory every run */
		assert_int_equal(s->nsetup, 2);
		assert_string_equal(s->setup[0].argv[2], "mkdir -p \"/res/zk\"");
		assert_int_equal(s->nprepare, 1);
		assert_string_equal(s->prepare[0].argv[2],
				    "rm -rf \"/res/zk/data\" \"/res/zk/pid\" && mkdir "
				    "\"/res/zk/data\"");
		scenario_free(s);
	}
}

/* include: services of other files first, nested includes first of all; errors
 * name the file they are in. */
static void test_includes(void **state)
{
	static const struct {
		const char *file, *msg;
	} bad[] = {
	    {"bad-include-service.yaml",
	     DIR "inc/bad-service.yaml:4:5: services.db: missing key \"command\""},
	    {"bad-include-key.yaml",
	     DIR "inc/bad-key.yaml:3:1: load: unknown key (allowed here: include, services)"},
	    {"bad-include-cycle.yaml", DIR "inc/cycle.yaml:3:5: include[0]: " DIR
					   "inc/../bad-include-cycle.yaml includes itself"},
	    {"bad-include-missing.yaml", DIR "bad-include-missing.yaml:3:11: include[0]: " DIR
					     "inc/missing.yaml: No such file or directory"},
	    {"bad-include-duplicate.yaml",
	     DIR "bad-include-duplicate.yaml:5:3: services.db: a service of this name is defined "
		 "already, by an include (whose services come first)"},
	};
	struct scenario *s;

	(void)state;
	s = load_ok(DIR "valid-include.yaml");
	assert_int_equal(s->nservices, 3);
	assert_string_equal(s->services[0].name, "cache");
	assert_int_equal(s->services[0].ready.kind, SCENARIO_READY_HTTP);
	assert_string_equal(s->services[1].name, "db");
	assert_strv(s->services[1].command.argv, "/bld/db", "--port", "5432", NULL);
	assert_true(s->services[1].ready.timeout == 60);
	assert_string_equal(s->services[2].name, "web");
	assert_int_equal(s->record.ntargets, 3);
	for (size_t i = 0; i < 3; i++)
		assert_ptr_equal(s->record.targets[i].service, &s->services[i]);
	scenario_free(s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct wperf_error err = {0};
		char path[256];

		snprintf(path, sizeof(path), DIR "%s", bad[i].file);
		s = (struct scenario *)&err;
		assert_true(scenario_load(path, &vars, &s, &err) < 0);
		assert_null(s);
		assert_string_equal(err.msg, bad[i].msg);
	}
}

/* ---- broken files: the exact message ---- */

struct error_case {
	const char *file;
	const char *msg; /* after "tests/data/scenarios/FILE:" */
};

static void test_error(void **state)
{
	const struct error_case *c = *state;
	struct wperf_error err = {0};
	struct scenario *s = (struct scenario *)&err; /* must come back NULL */
	char path[256], want[WPERF_ERROR_MSG_LEN];

	snprintf(path, sizeof(path), DIR "%s", c->file);
	snprintf(want, sizeof(want), "%s:%s", path, c->msg);
	assert_int_equal(scenario_load(path, &vars, &s, &err), -EINVAL);
	assert_null(s);
	assert_int_equal(err.code, -EINVAL);
	assert_string_equal(err.msg, want);
}

static void test_file_errors(void **state)
{
	struct wperf_error err = {0};
	struct scenario *s;

	(void)state;
	assert_int_equal(scenario_load(DIR "missing.yaml", &vars, &s, &err), -ENOENT);
	assert_null(s);
	assert_string_equal(err.msg, DIR "missing.yaml: No such file or directory");
	assert_int_equal(scenario_load(DIR, &vars, &s, &err), -EINVAL);
	assert_string_equal(err.msg, DIR ": not a regular file");
	/* Without vars, ${RESULTS_DIR} is undefined; a NULL err is allowed. */
	assert_int_equal(scenario_load(DIR "valid.yaml", NULL, &s, NULL), -EINVAL);
	assert_int_equal(scenario_load(DIR "valid.yaml", NULL, &s, &err), -EINVAL);
	assert_string_equal(err.msg, DIR "valid.yaml:9:21: setup[1][2]: undefined variable "
					 "${RESULTS_DIR}");
	scenario_free(NULL);
}

/* ---- garbage: never a crash, always a positioned error ---- */

static char tmp_path[64];

static int make_tmp(void **state)
{
	int fd;

	(void)state;
	snprintf(tmp_path, sizeof(tmp_path), "/tmp/test_scenario.XXXXXX");
	fd = mkstemp(tmp_path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int remove_tmp(void **state)
{
	(void)state;
	unlink(tmp_path);
	return 0;
}

/* Loads bytes from tmp_path; returns 1 when they made a scenario, 0 when an error. */
/* Loads the scenario p[0, n) with variables v; as load_bytes. */
static int load_bytes_with(const void *p, size_t n, const struct scenario_vars *v, char *msg,
			   size_t size)
{
	struct wperf_error err = {0};
	struct scenario *s = NULL;
	FILE *f = fopen(tmp_path, "wb");
	int r;

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
	r = scenario_load(tmp_path, v, &s, &err);
	if (r == 0) {
		assert_non_null(s);
		assert_non_null(s->name);
		scenario_free(s);
		return 1;
	}
	assert_null(s);
	assert_true(r < 0);
	/* "PATH:LINE:COL: ..." always. */
	assert_memory_equal(err.msg, tmp_path, strlen(tmp_path));
	assert_int_equal(err.msg[strlen(tmp_path)], ':');
	if (msg)
		snprintf(msg, size, "%s", err.msg + strlen(tmp_path) + 1);
	return 0;
}

static int load_bytes(const void *p, size_t n, char *msg, size_t size)
{
	return load_bytes_with(p, n, &vars, msg, size);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_random_bytes(void **state)
{
	uint8_t buf[512];

	(void)state;
	for (int i = 0; i < 200; i++) {
		size_t n = next_random() % sizeof(buf);

		for (size_t j = 0; j < n; j++)
			buf[j] = (uint8_t)next_random();
		/* Mostly printable bytes, so that the parser gets past the first line. */
		if (i % 2)
			for (size_t j = 0; j < n; j++)
				buf[j] = " \n:-[]{},\"'&*!|>#%@`ab1.$"[buf[j] % 26];
		load_bytes(buf, n, NULL, 0);
	}
}

static void test_mutations(void **state)
{
	static uint8_t good[8192], buf[8192 + 64];
	FILE *f = fopen(DIR "valid.yaml", "rb");
	size_t n, oks = 0;

	(void)state;
	assert_non_null(f);
	n = fread(good, 1, sizeof(good), f);
	fclose(f);
	assert_true(n > 0 && n < sizeof(good));
	assert_int_equal(load_bytes(good, n, NULL, 0), 1);
	for (int i = 0; i < 400; i++) {
		size_t m = n;

		memcpy(buf, good, n);
		for (int k = 0; k < 1 + i % 4; k++) {
			size_t at = next_random() % m;

			switch (next_random() % 4) {
			case 0: /* flip a byte */
				buf[at] = (uint8_t)next_random();
				break;
			case 1: /* cut the file */
				m = at;
				break;
			case 2: /* drop a byte */
				memmove(buf + at, buf + at + 1, m - at - 1);
				m--;
				break;
			default: /* duplicate a byte */
				memmove(buf + at + 1, buf + at, m - at);
				m++;
				break;
			}
			if (m == 0)
				break;
		}
		oks += load_bytes(buf, m, NULL, 0);
	}
	assert_true(oks < 400); /* most mutations break something */
}

/* Documents built to hurt: depth, aliases that multiply, huge values. */
static void test_hostile(void **state)
{
	static char buf[1 << 20];
	char msg[WPERF_ERROR_MSG_LEN];
	size_t n = 0;

	(void)state;
	/* 100000 nested block mappings would be quadratic in libyaml. */
	n = snprintf(buf, sizeof(buf), "name: x\nload: {command: c}\ntags: ");
	for (int i = 0; i < 200000; i++)
		buf[n++] = '[';
	assert_int_equal(load_bytes(buf, n, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "3:38: nested deeper than 32 levels");

	/* A list of 1000 strings of 100 bytes, aliased 4000 times. */
	n = snprintf(buf, sizeof(buf), "name: x\nload: {command: c}\nsetup:\n  - &c [");
	for (int i = 0; i < 1000; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s\"%0100d\"", i ? "," : "", i);
	n += snprintf(buf + n, sizeof(buf) - n, "]\n");
	for (int i = 0; i < 4000; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "  - *c\n");
	assert_int_equal(load_bytes(buf, n, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "the scenario is too large: its values take more than 64 MiB"));

	/* A list that contains itself. */
	n = snprintf(buf, sizeof(buf), "name: x\nload: {command: &a [*a]}\n");
	assert_int_equal(load_bytes(buf, n, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "2:17: load.command[0]: expected a string, found a list");

	/* Groups nested deep enough to overflow regcomp's stack. */
	n = snprintf(buf, sizeof(buf), "name: x\nload:\n  command: c\n  throughput:\n    regex: ");
	for (int i = 0; i < 50000; i++)
		buf[n++] = '(';
	buf[n++] = '\n';
	assert_int_equal(load_bytes(buf, n, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "5:12: load.throughput.regex: bad regex: parentheses are too "
				 "deeply nested at offset 33");

	/* Perl's habits are PCRE2's: a lazy .*?, \\d; two repetitions in a row are not. */
	n = snprintf(buf, sizeof(buf),
		     "name: x\nload:\n  command: c\n  throughput: {regex: 'took (.*?) s \\d'}\n");
	assert_int_equal(load_bytes(buf, n, msg, sizeof(msg)), 1);
	n = snprintf(buf, sizeof(buf),
		     "name: x\nload:\n  command: c\n  throughput: {regex: 'took (a**) s'}\n");
	assert_int_equal(load_bytes(buf, n, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "4:23: load.throughput.regex: bad regex: quantifier does not "
				 "follow a repeatable item at offset 8");

	/* A file over 1 MiB. */
	memset(buf, '#', sizeof(buf));
	assert_int_equal(load_bytes(buf, sizeof(buf), NULL, 0), 0);

	/* A long value is cut short in the message. */
	n = snprintf(buf, sizeof(buf), "name: x\nload: {command: c}\nruns: ");
	memset(buf + n, '9', 300);
	n += 300;
	assert_int_equal(load_bytes(buf, n, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "3:7: runs: expected a whole number in [1, 1000], found "
				 "\"9999999999999999999999999999999999999...\"");

	/* Huge numbers everywhere a number goes. */
	n = snprintf(buf, sizeof(buf),
		     "name: x\nload: {command: c}\nanalysis: {capacity: {disk_iops: "
		     "18446744073709551616}}\n");
	assert_int_equal(load_bytes(buf, n, msg, sizeof(msg)), 0);
	assert_string_equal(msg,
			    "3:34: analysis.capacity.disk_iops: expected a whole number in [1, "
			    "1000000000000000000], found \"18446744073709551616\"");
}

/* The variables: ${NAME} from the environment; bad names and unterminated ones. */
static void test_variables(void **state)
{
	static char *const spaced_env[] = {"WPERF_TEST_VAR=a b", NULL};
	const struct scenario_vars spaced = {.env = spaced_env};
	char msg[WPERF_ERROR_MSG_LEN];
	struct wperf_error err = {0};
	struct scenario *s;
	const char *doc;

	(void)state;
	doc = "name: x\nload: {command: ['${WPERF_TEST_VAR}-$${X}-${BUILD_DIR}$']}\n";
	{
		FILE *f = fopen(tmp_path, "w");

		assert_non_null(f);
		fputs(doc, f);
		fclose(f);
	}
	assert_int_equal(scenario_load(tmp_path, &vars, &s, &err), 0);
	assert_strv(s->load.command.argv, "value-$${X}-/bld$", NULL);
	scenario_free(s);

	/* What is no variable of the scenario's is the shell's: an undefined name,
	 * a bad one, an unterminated one. */
	doc = "name: x\nload: {command: ['${WPERF_TEST_UNDEFINED} ${1X} ${X']}\n";
	{
		FILE *f = fopen(tmp_path, "w");

		assert_non_null(f);
		fputs(doc, f);
		fclose(f);
	}
	assert_int_equal(scenario_load(tmp_path, &vars, &s, &err), 0);
	assert_strv(s->load.command.argv, "${WPERF_TEST_UNDEFINED} ${1X} ${X", NULL);
	scenario_free(s);
	/* A built-in variable is the scenario's even when it is undefined. */
	doc = "name: x\nload: {command: 'a ${RESULTS_DIR}'}\n";
	assert_int_equal(load_bytes_with(doc, strlen(doc), NULL, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "2:17: load.command: undefined variable ${RESULTS_DIR}");
	/* A name that expands to a bad one is still bad. */
	doc = "name: ${WPERF_TEST_VAR}\nload: {command: c}\n";
	assert_int_equal(load_bytes_with(doc, strlen(doc), &spaced, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "1:7: name: expected a name of letters, digits, '.', '_' and '-' "
				 "(at most 100, not starting with '.'), found \"a b\"");
	/* Only the environment given is read, not the process's own: ${PATH}
	 * reaches the shell as it is. */
	doc = "name: x\nload: {command: '${PATH}'}\n";
	assert_int_equal(load_bytes(doc, strlen(doc), msg, sizeof(msg)), 1);
	/* An installed wperf-bench knows no build folder: the error says how to give one. */
	doc = "name: x\nload: {command: '${BUILD_DIR}/synthetic/fig1'}\n";
	assert_int_equal(load_bytes_with(doc, strlen(doc), &spaced, msg, sizeof(msg)), 0);
	assert_string_equal(msg,
			    "2:17: load.command: undefined variable ${BUILD_DIR} (the folder "
			    "of the scenario's built programs: give --build-dir DIR, or --var "
			    "BUILD_DIR=DIR to check-perf; it is the program's own folder only "
			    "for a wperf-bench built by make in a source tree)");
}

/* What the user defines (.wperf-bench.yaml, --var) wins over ${BUILD_DIR} and
 * the environment, the first definition of a name winning; the tool's own
 * variables are not theirs to change. */
static void test_defined_variables(void **state)
{
	static char *const env[] = {"PORT=1", "HOST=env", NULL};
	static char *const defs[] = {"PORT=2", "BUILD_DIR=/mine", "PORT=3", NULL};
	const struct scenario_vars defined = {
	    .results_dir = "/res", .build_dir = "/bld", .defs = defs, .env = env};
	const char *doc = "name: x\nload: {command: ['${PORT}', '${BUILD_DIR}', '${HOST}']}\n";
	struct wperf_error err = {0};
	struct scenario *s;
	FILE *f = fopen(tmp_path, "w");

	(void)state;
	assert_non_null(f);
	fputs(doc, f);
	fclose(f);
	assert_int_equal(scenario_load(tmp_path, &defined, &s, &err), 0);
	assert_strv(s->load.command.argv, "2", "/mine", "env", NULL);
	scenario_free(s);
	assert_true(scenario_var_is_reserved("RESULTS_DIR"));
	assert_true(scenario_var_is_reserved("SCENARIO_DIR"));
	assert_true(scenario_var_is_reserved("DURATION"));
	assert_false(scenario_var_is_reserved("BUILD_DIR"));
	assert_true(scenario_var_name_ok("_A9", 3));
	assert_false(scenario_var_name_ok("9A", 2));
	assert_false(scenario_var_name_ok("A-B", 3));
}

#define ERROR_CASE(file, msg)                                                                      \
	{                                                                                          \
		"error: " file, test_error, NULL, NULL, &(struct error_case)                       \
		{                                                                                  \
			file, msg                                                                  \
		}                                                                                  \
	}

int main(void)
{
	/* valid.yaml's cwd is ${HOME}/zk. */
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid_top),
	    cmocka_unit_test(test_valid_services),
	    cmocka_unit_test(test_valid_load_record),
	    cmocka_unit_test(test_valid_analysis_gate),
	    cmocka_unit_test(test_fig1_and_defaults),
	    cmocka_unit_test(test_shipped_shell_variables),
	    cmocka_unit_test(test_includes),
	    cmocka_unit_test(test_file_errors),
	    cmocka_unit_test_setup_teardown(test_random_bytes, make_tmp, remove_tmp),
	    cmocka_unit_test_setup_teardown(test_mutations, make_tmp, remove_tmp),
	    cmocka_unit_test_setup_teardown(test_hostile, make_tmp, remove_tmp),
	    cmocka_unit_test_setup_teardown(test_variables, make_tmp, remove_tmp),
	    cmocka_unit_test_setup_teardown(test_defined_variables, make_tmp, remove_tmp),
	    ERROR_CASE("bad-syntax.yaml",
		       "5:12: not valid YAML: mapping values are not allowed in this context"),
	    ERROR_CASE(
		"bad-unknown-key.yaml",
		"6:5: services.zk.stop_timout: unknown key (allowed here: command, env, cwd, "
		"ready, stop_signal, stop_timeout)"),
	    ERROR_CASE("bad-type.yaml", "3:7: tags: expected a list, found \"ci\""),
	    ERROR_CASE("bad-missing.yaml", "5:5: services.zk: missing key \"command\""),
	    ERROR_CASE("bad-missing-load.yaml", "2:1: missing key \"load\""),
	    ERROR_CASE("bad-regex.yaml", "6:18: services.web.ready.log: bad regex: missing closing "
					 "parenthesis at offset 15"),
	    ERROR_CASE("bad-regex-group.yaml",
		       "6:12: load.throughput.regex: the regex needs a group "
		       "around the number, like ([0-9.]+)"),
	    ERROR_CASE("bad-regex-complex.yaml",
		       "5:23: load.throughput.regex: bad regex: regular expression is too large "
		       "at offset 23"),
	    ERROR_CASE("bad-target.yaml", "8:17: record.targets[1]: unknown service \"zoo\" "
					  "(services: zk, web; a process is process:NAME)"),
	    ERROR_CASE("bad-analysis-target.yaml",
		       "5:11: analysis.target: unknown service \"zk\": this scenario has no "
		       "services (a process is process:NAME)"),
	    ERROR_CASE("bad-two-ready.yaml", "9:7: services.zk.ready.delay: only one of tcp, file, "
					     "log, delay and http (tcp is given already)"),
	    ERROR_CASE("bad-range.yaml",
		       "5:13: analysis.min_edge: expected a number in [-1, 1], found \"2\""),
	    ERROR_CASE("bad-name.yaml", "2:7: name: expected a name of letters, digits, '.', '_' "
					"and '-' (at most 100, not starting with '.'), found \"my "
					"scenario\""),
	    ERROR_CASE("bad-empty.yaml", " empty: expected a scenario"),
	    ERROR_CASE("bad-comments.yaml", " empty: expected a scenario"),
	    ERROR_CASE("bad-list.yaml",
		       "2:1: expected a mapping of keys (name, load, ...), found a list"),
	    ERROR_CASE("bad-tcp.yaml",
		       "7:12: services.zk.ready.tcp: expected HOST:PORT, found \"abc\""),
	    ERROR_CASE("bad-port.yaml", "6:18: services.zk.ready.tcp: expected a port from 1 to "
					"65535, found \"65536\""),
	    ERROR_CASE("bad-duration-unit.yaml",
		       "5:13: load.duration: expected a duration like 30s, "
		       "500ms, 2m, found \"30sec\""),
	    ERROR_CASE("bad-http.yaml",
		       "6:19: services.api.ready.http: expected an http:// or "
		       "https:// URL with a host, found \"localhost:8080/health\""),
	    ERROR_CASE("bad-http-status.yaml",
		       "6:38: services.api.ready.status: only with http (the status its GET must "
		       "answer)"),
	    ERROR_CASE("bad-load-env.yaml", "5:9: load.env.2X: expected a variable name of "
					    "letters, digits and '_', not starting with a digit"),
	    ERROR_CASE("bad-duration-range.yaml",
		       "8:16: services.db.ready.timeout: expected a duration in (0 s, 1000000 s], "
		       "found \"0ms\""),
	    ERROR_CASE("bad-duration-variable.yaml", "4:12: load.command: undefined variable "
						     "${DURATION} (load.duration is not set)"),
	    ERROR_CASE("bad-duplicate.yaml", "5:1: runs: duplicate key (first at line 4)"),
	    ERROR_CASE("bad-huge.yaml", "4:7: runs: expected a whole number in [1, 1000], found "
					"\"123456789012345678901234567890\""),
	    ERROR_CASE("bad-huge-float.yaml",
		       "5:13: load.duration: expected a duration in (0 s, 1000000 s], found "
		       "\"1e400\""),
	    ERROR_CASE("bad-quoted-number.yaml",
		       "5:13: load.duration: expected a duration like 30s, "
		       "500ms, 2m, found \"5\" (a quoted string)"),
	    ERROR_CASE("bad-window.yaml", "6:11: record.window: warm-up and window (2 + 4 s) "
					  "outlast the load (load.duration: 5 s)"),
	    ERROR_CASE("bad-signal.yaml",
		       "4:33: services.zk.stop_signal: expected a signal (TERM, INT, KILL, HUP, "
		       "QUIT, USR1, USR2 or a number), found \"STOP\""),
	    ERROR_CASE("bad-two-docs.yaml",
		       "4:1: a second YAML document: a scenario is one document"),
	    ERROR_CASE("bad-service-name.yaml",
		       "4:3: services[\"zk.1\"]: expected a service name of "
		       "letters, digits, '_' and '-'"),
	    ERROR_CASE("bad-null.yaml", "3:13: description: expected a string, found null"),
	    ERROR_CASE("bad-expect-not-in.yaml", "4:16: expect.not_in_knot: needs the knot it "
						 "speaks of (expect.knot)"),
	    ERROR_CASE("bad-expect-contradiction.yaml",
		       "5:12: expect.no_knot: true contradicts expect.knot"),
	    ERROR_CASE("bad-expect-nothing.yaml", "3:9: expect: expected at least one of knot, "
						  "sink, no_knot: true, cmetric_first or "
						  "timer_paced"),
	    ERROR_CASE("bad-command.yaml", "4:12: load.command: expected a command (a string or a "
					   "list of strings), found a mapping"),
	    ERROR_CASE("bad-bool.yaml", "5:49: load.throughput.higher_is_better: expected true or "
					"false, found \"yes\""),
	    ERROR_CASE("bad-deep.yaml", "4:38: nested deeper than 32 levels"),
	    ERROR_CASE("bad-buffer.yaml", "5:14: record.buffer_mb: expected a power of two from 1 "
					  "to 4096, found 48"),
	    ERROR_CASE("bad-stacks.yaml", "5:11: record.stacks: expected none, kernel, user, all "
					  "or dwarf, found \"frames\""),
	    ERROR_CASE("bad-max-lost.yaml",
		       "4:18: gate.max_lost: expected a number in (0, 1], found "
		       "\"2\""),
	    ERROR_CASE("bad-load-timeout.yaml", "3:42: load.timeout: 5 s is not more than "
						"load.duration (5 s): the load would always be "
						"stopped before its end"),
	    ERROR_CASE("bad-binary.yaml",
		       "1:1: not valid YAML: control characters are not allowed (byte 0x7f)"),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
