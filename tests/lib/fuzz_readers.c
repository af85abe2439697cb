/* SPDX-License-Identifier: MIT */
/*
 * The readers of untrusted input, driven over bytes (see fuzz_readers.h).
 *
 * Inputs that a reader takes by path go to files in one temporary folder per
 * process, in /dev/shm when there is one (a fuzzer writes thousands of them a
 * second), removed when the process exits.
 */
#include "fuzz_readers.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <zlib.h>

#include "core/analysis/analysis.h"
#include "core/gate/baseline.h"
#include "core/gate/check.h"
#include "core/gate/run_json.h"
#include "core/analysis/symbolize.h"
#include "core/trace/meta.h"
#include "core/trace/trace.h"
#include "core/util/varint.h"
#include "harness/forge/forge_http.h"
#include "harness/forge/forge_comments.h"
#include "harness/forge/github_comments.h"
#include "harness/gate/repo_config.h"
#include "harness/record/proc_info.h"
#include "harness/run/results.h"
#include "core/scenario/scenario.h"

/* What a driver must find true; when it is not, the reader has a bug. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__, __LINE__,       \
				__func__, #cond);                                                  \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* Keeps what the drivers read from being optimized away. */
static volatile uint64_t sink;

/* ---- the temporary folder ---- */

static char tmp_dir[64];
static char trace_file[96], scenario_file[96], results_dir[96], summary_file[128];

static void remove_tmp(void)
{
	unlink(trace_file);
	unlink(scenario_file);
	unlink(summary_file);
	rmdir(results_dir);
	rmdir(tmp_dir);
}

/* Makes the folder and the names of the files in it, once. */
static void make_tmp(void)
{
	struct stat st;

	if (tmp_dir[0])
		return;
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/wperf-fuzz-XXXXXX",
		 stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp");
	FUZZ_CHECK(mkdtemp(tmp_dir));
	snprintf(trace_file, sizeof(trace_file), "%s/input.trace", tmp_dir);
	snprintf(scenario_file, sizeof(scenario_file), "%s/input.yaml", tmp_dir);
	snprintf(results_dir, sizeof(results_dir), "%s/results", tmp_dir);
	snprintf(summary_file, sizeof(summary_file), "%s/summary.json", results_dir);
	FUZZ_CHECK(mkdir(results_dir, 0700) == 0);
	atexit(remove_tmp);
}

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "we");

	FUZZ_CHECK(f);
	FUZZ_CHECK(fwrite(data, 1, size, f) == size || size == 0);
	FUZZ_CHECK(fclose(f) == 0);
}

/* A NUL-terminated copy of size bytes, in a block of exactly size + 1 bytes. */
static char *text_copy(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	FUZZ_CHECK(s);
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* ---- traces ---- */

/*
 * Writes the right CRC into every section header that is inside the input:
 * otherwise nearly every mutation would stop at the first CRC check, and the
 * decoders behind it would never see a mutated payload.
 */
static void fix_crcs(uint8_t *d, size_t size)
{
	uint64_t off;

	if (size < WPERF_TRACE_HEADER_SIZE)
		return;
	off = wperf_get_le32(d + 12);
	while (off <= size && size - off >= WPERF_SECTION_HEADER_SIZE) {
		uint64_t stored = wperf_get_le64(d + off + 8);

		if (stored > size - off - WPERF_SECTION_HEADER_SIZE)
			break;
		wperf_put_le32(d + off + 24,
			       (uint32_t)crc32_z(0, d + off + WPERF_SECTION_HEADER_SIZE, stored));
		off += WPERF_SECTION_HEADER_SIZE + stored;
	}
}

/* Uses every table of an open trace. */
static void use_tables(const struct wperf_trace *t)
{
	const struct wperf_trace_stats *st = wperf_trace_stats(t);
	const struct wperf_thread *th;
	const struct wperf_stack *sk;
	const struct wperf_mapping *m;
	const struct wperf_ksym *k;
	const struct wperf_perfmap *pm;
	const struct wperf_stack_copy *sc;
	size_t n;

	for (size_t i = 0; i < wperf_trace_meta_count(t); i++) {
		const char *key, *value;

		wperf_trace_meta_at(t, i, &key, &value);
		sink += strlen(key) + strlen(value);
	}
	sink += (uintptr_t)wperf_trace_meta(t, WPERF_META_COMMAND);
	for (uint32_t i = 0; i < st->ncpu; i++)
		sink += st->lost[i];
	sink += st->start_ts + st->end_ts + st->stack_lost + st->events[WPERF_EV_SWITCH];
	th = wperf_trace_threads(t, &n);
	for (size_t i = 0; i < n; i++)
		sink += th[i].tid + strlen(th[i].comm);
	sk = wperf_trace_stacks(t, &n);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(wperf_trace_stack(t, sk[i].id, sk[i].user));
		for (uint32_t j = 0; j < sk[i].nr; j++)
			sink += sk[i].ips[j];
	}
	m = wperf_trace_mappings(t, &n);
	for (size_t i = 0; i < n; i++)
		sink += strlen(m[i].path) +
			m[i].build_id[m[i].build_id_len ? m[i].build_id_len - 1 : 0];
	k = wperf_trace_ksyms(t, &n);
	for (size_t i = 0; i < n; i++)
		sink += k[i].addr + strlen(k[i].name);
	sc = wperf_trace_stack_copies(t, &n);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(sc[i].nregs <= WPERF_COPY_REGS);
		sink += sc[i].regs[sc[i].nregs ? sc[i].nregs - 1 : 0] +
			(sc[i].size ? sc[i].bytes[sc[i].size - 1] : 0);
	}
	pm = wperf_trace_perfmaps(t, &n);
	for (size_t i = 0; i < n; i++) {
		struct wperf_buf jit = {0};

		FUZZ_CHECK(pm[i].text[pm[i].len] == '\0');
		FUZZ_CHECK(wperf_perfmap_parse(pm[i].text, pm[i].len, &jit) == 0);
		sink += jit.len;
		wperf_buf_release(&jit);
	}
}

/* Opens the input as a trace, its CRCs fixed first. */
static int open_trace(const uint8_t *data, size_t size, struct wperf_trace **t,
		      struct wperf_error *err)
{
	uint8_t *copy = malloc(size ? size : 1);

	FUZZ_CHECK(copy);
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	make_tmp();
	write_file(trace_file, copy, size);
	free(copy);
	return wperf_trace_open(trace_file, t, err);
}

static int read_trace(const uint8_t *data, size_t size, struct wperf_error *err)
{
	struct wperf_trace *t = NULL;
	struct wperf_event_iter *it = NULL;
	struct wperf_event ev;
	int ret = open_trace(data, size, &t, err);

	if (ret < 0)
		return ret;
	use_tables(t);
	ret = wperf_event_iter_new(t, &it, err);
	if (ret == 0)
		while ((ret = wperf_event_iter_next(it, &ev, err)) == 1)
			sink += ev.hdr.ts + ev.hdr.kind + ev.hdr.size;
	wperf_event_iter_free(it);
	wperf_trace_free(t);
	return ret;
}

/* A trace that opens, analyzed as `wperf-bench report` does. */
static int read_analysis(const uint8_t *data, size_t size, struct wperf_error *err)
{
	struct wperf_trace *t = NULL;
	struct wperf_analysis *a = NULL;
	int ret = open_trace(data, size, &t, err);

	if (ret < 0)
		return ret;
	ret = wperf_unwind_copies(t, err); /* user stacks copied with --stacks dwarf */
	if (ret == 0)
		ret = wperf_analyze(t, NULL, &a, err);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	return ret;
}

static const char *trace_where(void)
{
	make_tmp();
	return trace_file;
}

/* ---- scenarios ---- */

static int read_scenario(const uint8_t *data, size_t size, struct wperf_error *err)
{
	/* No environment: what a scenario expands does not depend on the fuzzer's. */
	const struct scenario_vars vars = {.results_dir = "/results", .build_dir = "build"};
	struct scenario *s;
	int ret;

	make_tmp();
	write_file(scenario_file, data, size);
	ret = scenario_load(scenario_file, &vars, &s, err);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < s->nservices; i++)
		FUZZ_CHECK(scenario_service(s, s->services[i].name));
	sink += s->runs + s->ntags + s->nsetup + s->nteardown;
	scenario_free(s);
	return 0;
}

static const char *scenario_where(void)
{
	make_tmp();
	return scenario_file;
}

/* ---- baselines ---- */

#define BASELINE_NAME "input.yaml"

/* A baseline that reads is written, and what is written reads back the same. */
static int read_baseline(const uint8_t *data, size_t size, struct wperf_error *err)
{
	struct wperf_baseline b, again;
	struct wperf_buf text = {0}, text2 = {0};
	struct wperf_error e2;
	int ret;

	ret = wperf_baseline_read(BASELINE_NAME, (const char *)data, size, &b, err);
	if (ret < 0)
		return ret;
	FUZZ_CHECK(wperf_baseline_write(&b, &text, &e2) == 0);
	if (wperf_baseline_read("rewritten", (const char *)text.data, text.len, &again, &e2) < 0) {
		fprintf(stderr, "%s\n", e2.msg);
		FUZZ_CHECK(!"a baseline that reads back");
	}
	FUZZ_CHECK(wperf_baseline_write(&again, &text2, &e2) == 0);
	FUZZ_CHECK(text.len == text2.len && !memcmp(text.data, text2.data, text.len));
	wperf_buf_release(&text);
	wperf_buf_release(&text2);
	wperf_baseline_release(&again);
	wperf_baseline_release(&b);
	return 0;
}

static const char *baseline_where(void)
{
	return BASELINE_NAME;
}

/* ---- runs and environments as JSON ---- */

#define JSON_NAME  "input.json"
#define CHECK_NAME "summary.json"

/* JSON text parsed as results_read does (strict); NULL with err when it is not. */
static struct json_object *parse_json(const uint8_t *data, size_t size, struct wperf_error *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;

	FUZZ_CHECK(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	if (!o)
		wperf_error_set(err, -EINVAL, "%s: byte %zu: not JSON: %s", JSON_NAME,
				json_tokener_get_parse_end(tok),
				json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);
	return o;
}

/* A run that reads is written, and what is written reads back the same. */
static void run_round_trip(const struct wperf_run *run)
{
	struct json_object *o, *o2;
	struct wperf_run again;
	struct wperf_error e2;

	FUZZ_CHECK(wperf_run_to_json(run, &o) == 0);
	if (wperf_run_from_json(o, "rewritten", &again, &e2) < 0) {
		fprintf(stderr, "%s\n", e2.msg);
		FUZZ_CHECK(!"a run that reads back");
	}
	FUZZ_CHECK(wperf_run_to_json(&again, &o2) == 0);
	FUZZ_CHECK(!strcmp(json_object_to_json_string(o), json_object_to_json_string(o2)));
	json_object_put(o);
	json_object_put(o2);
	wperf_run_release(&again);
}

/* The input as a run, whose result is returned, and as an environment. */
static int read_run_json(const uint8_t *data, size_t size, struct wperf_error *err)
{
	struct json_object *o = parse_json(data, size, err);
	struct wperf_run run;
	struct wperf_env env;
	struct wperf_error e2;
	int ret;

	if (!o)
		return err->code;
	ret = wperf_run_from_json(o, JSON_NAME ": run", &run, err);
	if (ret == 0) {
		run_round_trip(&run);
		wperf_run_release(&run);
	}
	if (wperf_env_from_json(o, JSON_NAME ": environment", &env, &e2) < 0) {
		FUZZ_CHECK(!strncmp(e2.msg, JSON_NAME ":", strlen(JSON_NAME ":")));
	} else {
		struct json_object *w;
		struct wperf_env again;

		FUZZ_CHECK(wperf_env_to_json(&env, &w) == 0);
		FUZZ_CHECK(wperf_env_from_json(w, "rewritten", &again, &e2) == 0);
		FUZZ_CHECK(!memcmp(&env, &again, sizeof(env)));
		json_object_put(w);
	}
	json_object_put(o);
	return ret;
}

static const char *json_where(void)
{
	return JSON_NAME;
}

/* ---- a check's summary.json ---- */

/* A check that reads is written, reads back the same, and renders. */
static void check_round_trip(const struct wperf_check *c)
{
	struct json_object *o, *o2;
	struct wperf_check again;
	struct wperf_buf md = {0}, xml = {0};
	struct wperf_error e2;
	const char *text;

	FUZZ_CHECK(wperf_check_to_json(c, &o) == 0);
	text = json_object_to_json_string(o);
	if (wperf_check_from_json("rewritten", text, strlen(text), &again, &e2) < 0) {
		fprintf(stderr, "%s\n", e2.msg);
		FUZZ_CHECK(!"a check that reads back");
	}
	FUZZ_CHECK(wperf_check_to_json(&again, &o2) == 0);
	FUZZ_CHECK(!strcmp(text, json_object_to_json_string(o2)));
	/* The comment keeps to its cap (at least 2000) whatever the check holds. */
	FUZZ_CHECK(wperf_check_markdown(c, "https://example.com/runs/1", 2000, &md) == 0);
	FUZZ_CHECK(md.len <= 2000);
	FUZZ_CHECK(wperf_check_junit(c, &xml) == 0);
	json_object_put(o);
	json_object_put(o2);
	wperf_check_release(&again);
	wperf_buf_release(&md);
	wperf_buf_release(&xml);
}

static int read_check(const uint8_t *data, size_t size, struct wperf_error *err)
{
	struct wperf_check c;
	int ret = wperf_check_from_json(CHECK_NAME, (const char *)data, size, &c, err);

	if (ret == 0) {
		check_round_trip(&c);
		wperf_check_release(&c);
	}
	return ret;
}

static const char *check_where(void)
{
	return CHECK_NAME;
}

/* ---- results folders ---- */

static int read_results(const uint8_t *data, size_t size, struct wperf_error *err)
{
	struct results r;
	int ret;

	make_tmp();
	write_file(summary_file, data, size);
	ret = results_read(results_dir, &r, err);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < r.runs.nruns; i++)
		sink += r.runs.runs[i].nedges + r.expect[i].met;
	results_release(&r);
	return 0;
}

static const char *results_where(void)
{
	make_tmp();
	return summary_file;
}

/* ---- a repository's .wperf-bench.yaml ---- */

#define REPO_CONFIG_NAME ".wperf-bench.yaml"

static int read_repo_config(const uint8_t *data, size_t size, struct wperf_error *err)
{
	struct repo_config c = {0};
	int ret = repo_config_parse(REPO_CONFIG_NAME, (const char *)data, size, &c, err);

	for (size_t i = 0; ret == 0 && i < c.nscenarios; i++)
		sink += strlen(c.scenarios[i]);
	for (size_t i = 0; ret == 0 && i < c.nvars; i++) /* NAME=value, the name a name */
		FUZZ_CHECK(strchr(c.vars[i], '=') &&
			   scenario_var_name_ok(c.vars[i], strcspn(c.vars[i], "=")));
	if (ret == 0)
		sink += (c.baselines ? strlen(c.baselines) : 0) + (c.tag ? strlen(c.tag) : 0) +
			(c.results ? strlen(c.results) : 0);
	repo_config_release(&c);
	return ret;
}

static const char *repo_config_where(void)
{
	return REPO_CONFIG_NAME;
}

/* ---- /proc and perf maps: lines that do not parse are skipped ---- */

/* Does the line have the permissions of an executable mapping: 4 characters, the
 * third an x, then a space ("r-xp ")? */
static int has_exec_perms(const char *line)
{
	for (const char *p = line; strnlen(p, 5) == 5; p++)
		if (p[2] == 'x' && isspace((unsigned char)p[4]) && strcspn(p, " \t\n\v\f\r") == 4)
			return 1;
	return 0;
}

/* Each line, as fgets would give it to the reader, in a block of its own size. */
static int read_proc_maps(const uint8_t *data, size_t size, struct wperf_error *err)
{
	(void)err;
	for (size_t i = 0; i < size;) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - data - i) + 1 : size - i;
		char *line = text_copy(data + i, len);
		struct wperf_mapping m = {0};

		if (proc_maps_line(line, &m)) {
			FUZZ_CHECK(has_exec_perms(line));
			FUZZ_CHECK(m.path >= line && m.path < line + len && m.path[0] == '/');
			FUZZ_CHECK(!strchr(m.path, '\n'));
			sink += m.start + m.end + m.pgoff;
		}
		free(line);
		i += len;
	}
	return 0;
}

/* A parent process found is the number in the text, not a part of it. */
static int read_proc_stat(const uint8_t *data, size_t size, struct wperf_error *err)
{
	char *text = text_copy(data, size);
	uint32_t ppid = proc_stat_ppid(text);

	(void)err;
	if (ppid) {
		const char *p = strrchr(text, ')');

		FUZZ_CHECK(p && strlen(p) > 4 && strtoull(p + 4, NULL, 10) == ppid);
	}
	free(text);
	return 0;
}

/* The text without a NUL after it, as a trace's PERFMAP may hold it. */
static int read_perfmap(const uint8_t *data, size_t size, struct wperf_error *err)
{
	char *text = malloc(size ? size : 1);
	struct wperf_buf b = {0};
	const struct wperf_jit_sym *e;

	(void)err;
	FUZZ_CHECK(text);
	memcpy(text, data, size);
	FUZZ_CHECK(wperf_perfmap_parse(text, size, &b) == 0);
	e = (const struct wperf_jit_sym *)(void *)b.data;
	for (size_t i = 0; i < b.len / sizeof(*e); i++) {
		FUZZ_CHECK(e[i].size > 0 && e[i].name_len > 0 && e[i].order == i);
		FUZZ_CHECK(e[i].name >= text && e[i].name + e[i].name_len <= text + size);
		FUZZ_CHECK(!memchr(e[i].name, '\n', e[i].name_len));
	}
	wperf_buf_release(&b);
	free(text);
	return 0;
}

/* ---- a forge's answers ---- */

/* An error of a parser of forge_comments.c: -EINVAL (or -ENOMEM), with a
 * message that starts with the answer it is about ("the comment ..."). */
static void check_answer_error(int ret, const struct wperf_error *err, const char *what)
{
	size_t n = strlen(what);

	FUZZ_CHECK((ret == -EINVAL || ret == -ENOMEM) && err->code == ret);
	FUZZ_CHECK(!strncmp(err->msg, what, n) && (err->msg[n] == ' ' || err->msg[n] == ':'));
}

static void use_comment(const struct forge_comment *c)
{
	FUZZ_CHECK(c->id > 0 && c->body);
	sink += strlen(c->body) + (c->html_url ? strlen(c->html_url) : 0);
}

/*
 * The body of an answer as forge_http_request leaves it (no NUL after it; NULL
 * when empty), given to every parser of forge_comments.c and github_comments.c that reads one: a
 * page of the list of comments, the comment that POST and PATCH answer, the
 * message of an error (into a buffer as large as explain's, and a small one),
 * and the event file of a workflow. Each must succeed or say which answer is
 * wrong; the driver checks them itself, so it never fails.
 */
static int read_github_answer(const uint8_t *data, size_t size, struct wperf_error *err)
{
	char *body = size ? malloc(size) : NULL;
	struct forge_comments list;
	struct forge_comment one;
	struct wperf_error e = {0};
	char said[400], small[8];
	unsigned long pr;
	int ret;

	(void)err;
	FUZZ_CHECK(body || !size);
	if (size)
		memcpy(body, data, size);
	if ((ret = forge_parse_comments(body, size, &list, &e)))
		check_answer_error(ret, &e, "the list of comments");
	FUZZ_CHECK(ret || !list.n || list.v);
	for (size_t i = 0; i < list.n; i++)
		use_comment(&list.v[i]);
	forge_comments_release(&list);
	if ((ret = forge_parse_comment(body, size, &one, &e)))
		check_answer_error(ret, &e, "the comment");
	else
		use_comment(&one);
	forge_comment_release(&one);
	forge_error_message(body, size, said, sizeof(said));
	forge_error_message(body, size, small, sizeof(small));
	FUZZ_CHECK(strnlen(said, sizeof(said)) < sizeof(said));
	FUZZ_CHECK(strnlen(small, sizeof(small)) < sizeof(small));
	FUZZ_CHECK(!strncmp(said, small, strlen(small)));
	if ((ret = github_event_pr(body, size, &pr, &e)))
		check_answer_error(ret, &e, "the event");
	else
		FUZZ_CHECK(pr <= INT64_MAX);
	free(body);
	return 0;
}

/* Does the string hold a control character (a URL may not)? */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return 1;
	return 0;
}

/* A header's number, as forge_http.h promises it: -1 (none) or 0 to the maximum. */
static int header_number_ok(long n)
{
	return n >= -1 && n <= FORGE_HTTP_HEADER_NUMBER_MAX;
}

/*
 * The headers of an answer, a line at a time as libcurl gives them ("Name:
 * value\r\n", each in a block of its own size), read into a response; then
 * the whole input as one Link header's value, into a small buffer. A next
 * page found is a URL of the input; the numbers are within their bounds.
 */
static int read_forge_headers(const uint8_t *data, size_t size, struct wperf_error *err)
{
	struct forge_response r = {0};
	char next[16];
	int ret;

	(void)err;
	forge_response_release(&r);
	for (size_t i = 0; i < size;) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - data - i) + 1 : size - i;
		char *line = malloc(len);

		FUZZ_CHECK(line);
		memcpy(line, data + i, len);
		forge_response_header(&r, line, len);
		free(line);
		i += len;
		FUZZ_CHECK(strnlen(r.next, sizeof(r.next)) < sizeof(r.next));
		FUZZ_CHECK(!r.next[0] || memmem(data, size, r.next, strlen(r.next)));
		FUZZ_CHECK(!has_control(r.next));
		FUZZ_CHECK(r.bad_link == 0 || r.bad_link == 1);
		FUZZ_CHECK(header_number_ok(r.retry_after_s));
		FUZZ_CHECK(header_number_ok(r.ratelimit_remaining));
		FUZZ_CHECK(r.ratelimit_reset >= 0 &&
			   r.ratelimit_reset <= FORGE_HTTP_HEADER_NUMBER_MAX);
	}
	for (r.status = 403; r.status <= 429; r.status += 26)
		sink += forge_response_rate_limited(&r);
	forge_response_release(&r);
	ret = forge_link_next((const char *)data, size, next, sizeof(next));
	FUZZ_CHECK(ret == 0 || ret == 1 || ret == -EINVAL);
	if (ret == 1)
		FUZZ_CHECK(next[0] && strnlen(next, sizeof(next)) < sizeof(next) &&
			   memmem(data, size, next, strlen(next)) && !has_control(next));
	return 0;
}

/* ---- the table ---- */

static const struct fuzz_reader readers[] = {
    {"trace", read_trace, trace_where},			  /* trace_reader*.c */
    {"analysis", read_analysis, trace_where},		  /* analysis.c, on a trace that opens */
    {"scenario", read_scenario, scenario_where},	  /* core/scenario/scenario*.c */
    {"baseline", read_baseline, baseline_where},	  /* baseline_read.c */
    {"run_json", read_run_json, json_where},		  /* run_json.c */
    {"check", read_check, check_where},			  /* check_read.c */
    {"results", read_results, results_where},		  /* harness/run/results_json.c */
    {"repo_config", read_repo_config, repo_config_where}, /* harness/gate/repo_config.c */
    {"proc_maps", read_proc_maps, NULL},		  /* harness/record/proc_info.c */
    {"proc_stat", read_proc_stat, NULL},		  /* harness/record/proc_info.c */
    {"perfmap", read_perfmap, NULL},			  /* symbolize_perfmap.c */
    {"github_answer", read_github_answer,
     NULL}, /* harness/forge/forge_comments.c, github_comments.c */
    {"forge_headers", read_forge_headers, NULL}, /* harness/forge/forge_http.c */
};

int fuzz_result_ok(const struct fuzz_reader *r, int ret, const struct wperf_error *err)
{
	const char *where = r->where ? r->where() : NULL;

	if (ret == 0)
		return 1;
	if (ret > 0 || err->code != ret || !where)
		return 0;
	return !strncmp(err->msg, where, strlen(where)) && err->msg[strlen(where)] == ':';
}

const struct fuzz_reader *fuzz_reader_find(const char *name)
{
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		if (!strcmp(readers[i].name, name))
			return &readers[i];
	return NULL;
}
