/* SPDX-License-Identifier: MIT */
/*
 * reanalyze: the runs of results folders analyzed again by this build, to see
 * what a change of the analyzer does to answers recorded from the kernel.
 *
 *   reanalyze [-s SCENARIOS] [-o OUT] RESULTS...
 *
 * RESULTS is a folder of `run`, or a side (base/, head/) of `ab` and
 * `check-perf`: scenario.yaml and runs/N/wperf.trace. Each run is analyzed
 * with the scenario's options (from SCENARIOS/NAME.yaml, the scenario as it
 * is now, when -s is given; else the results' copy) and the target it had
 * (its report.json), its
 * reports written to OUT/NAME/N/ (default: a temporary folder, removed), and
 * the scenario's expected answer checked. A line per run (then and now: the
 * answer it had, the one it has) and a total per folder and overall.
 * Exit status: 0 no answer got worse, 1 some run met its expectation then
 * and misses it now, 2 error.
 */
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gate/runset.h"
#include "harness/run/analyze_run.h"
#include "harness/run/run_set.h"
#include "core/scenario/scenario.h"

struct totals {
	unsigned runs, met_then, met_now, worse;
};

/* The target and the expectation's outcome a run had, from its report.json and
 * the results' summary.json. */
static int run_then(const char *results, unsigned n, char *target, size_t size, int *met)
{
	char path[PATH_MAX];
	json_object *report, *summary, *v, *runs;

	snprintf(path, sizeof(path), "%s/runs/%u/report.json", results, n);
	if (!(report = json_object_from_file(path)))
		return -1;
	snprintf(target, size, "%s",
		 json_object_object_get_ex(report, "params", &v) &&
			 json_object_object_get_ex(v, "target", &v) && json_object_get_string(v)
		     ? json_object_get_string(v)
		     : "");
	json_object_put(report);
	*met = -1;
	snprintf(path, sizeof(path), "%s/summary.json", results);
	if (!(summary = json_object_from_file(path)))
		return 0;
	if (json_object_object_get_ex(summary, "runs", &runs) &&
	    n <= json_object_array_length(runs)) {
		json_object *r = json_object_array_get_idx(runs, n - 1);

		if (json_object_object_get_ex(r, "expect", &v) &&
		    json_object_object_get_ex(v, "met", &v))
			*met = json_object_get_boolean(v);
	}
	json_object_put(summary);
	return 0;
}

static void print_knots(const struct wperf_run *r)
{
	if (!r->nknots)
		printf(" no knot");
	for (size_t k = 0; k < r->nknots; k++) {
		printf(" {");
		for (size_t i = 0; i < r->knots[k].n; i++)
			printf("%s%s", i ? ", " : "", r->knots[k].ids[i]);
		printf("}");
	}
	for (size_t i = 0; i < r->sinks.n; i++)
		printf(" sink %s", r->sinks.ids[i]);
}

/* The results' scenario, or the file of its name in dir (when not NULL). */
static struct scenario *load(const char *results, const char *dir, struct wperf_error *err)
{
	struct scenario_vars vars = {.results_dir = results, .build_dir = "build", .env = environ};
	struct scenario *s = NULL;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/scenario.yaml", results);
	if (scenario_load(path, &vars, &s, err))
		return NULL;
	if (!dir)
		return s;
	snprintf(path, sizeof(path), "%s/%s.yaml", dir, s->name);
	scenario_free(s);
	s = NULL;
	return scenario_load(path, &vars, &s, err) ? NULL : s;
}

static int folder(const char *results, const char *scenarios, const char *out, struct totals *all)
{
	char path[PATH_MAX], dir[PATH_MAX], target[256], why[512];
	struct wperf_error err = {0};
	struct scenario *s = load(results, scenarios, &err);
	struct totals t = {0};

	if (!s) {
		fprintf(stderr, "reanalyze: %s\n", err.msg);
		return -1;
	}
	const struct scenario_expect *se = &s->expect;
	struct wperf_expect want;

	run_set_expectation(s, &want);
	for (unsigned n = 1;; n++) {
		struct wperf_run run = {0};
		int met_then, met_now = -1;

		snprintf(path, sizeof(path), "%s/runs/%u/wperf.trace", results, n);
		if (access(path, R_OK) != 0)
			break;
		if (run_then(results, n, target, sizeof(target), &met_then) < 0) {
			fprintf(stderr, "reanalyze: %s/runs/%u: no report.json\n", results, n);
			continue;
		}
		snprintf(dir, sizeof(dir), "%s/%s-%u", out, s->name, n);
		mkdir(dir, 0755);
		if (analyze_run(s, path, target, NAN, dir, &run, &err)) {
			fprintf(stderr, "reanalyze: %s: %s\n", path, err.msg);
			continue;
		}
		why[0] = '\0';
		if (se->given)
			met_now = wperf_run_expect(&run, &want, why, sizeof(why)) >= 0;
		t.runs++;
		t.met_then += met_then == 1;
		t.met_now += met_now == 1;
		t.worse += met_then == 1 && met_now == 0;
		printf("%s run %u: %s ->%s%s", results, n,
		       met_then < 0 ? "-"
		       : met_then   ? "met"
				    : "missed",
		       met_now < 0 ? " -"
		       : met_now   ? " met"
				   : " MISSED",
		       ":");
		print_knots(&run);
		printf("%s%s\n", why[0] ? "; " : "", why);
		wperf_run_release(&run);
	}
	if (se->given)
		printf("%s: %s: expectation met in %u of %u runs then, %u now\n", results, s->name,
		       t.met_then, t.runs, t.met_now);
	all->runs += t.runs;
	all->met_then += t.met_then;
	all->met_now += t.met_now;
	all->worse += t.worse;
	scenario_free(s);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	char tmp[] = "/var/tmp/wperf-reanalyze-XXXXXX";
	const char *out = NULL, *scenarios = NULL;
	struct totals all = {0};
	int first = 1, bad = 0;

	for (; first + 1 < argc && argv[first][0] == '-'; first += 2) {
		if (!strcmp(argv[first], "-o"))
			mkdir(out = argv[first + 1], 0755);
		else if (!strcmp(argv[first], "-s"))
			scenarios = argv[first + 1];
		else
			break;
	}
	if (first >= argc || argv[first][0] == '-') {
		fprintf(stderr, "usage: reanalyze [-s SCENARIOS] [-o OUT] RESULTS...\n");
		return 2;
	}
	if (!out && !(out = mkdtemp(tmp))) {
		perror("reanalyze: mkdtemp");
		return 2;
	}
	for (int i = first; i < argc; i++)
		bad |= folder(argv[i], scenarios, out, &all) < 0;
	printf("all: %u runs; expectations met in %u then, %u now; %u worse\n", all.runs,
	       all.met_then, all.met_now, all.worse);
	if (out == tmp)
		nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return bad ? 2 : all.worse ? 1 : 0;
}
