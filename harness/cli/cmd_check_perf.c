/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench check-perf: the gate over every scenario of a tag, for CI. With
 * --base, each scenario runs on the base commit and on the work tree in turns
 * on this machine and the head is judged against the base's runs; without, it
 * is judged against its stored baseline (whose numbers count only when it was
 * made on this machine: see gate_options). The runs of a scenario are added a
 * few at a time while its verdict is unclear (check_scenario.h).
 *
 * The false-failure rate: a scenario's tests are adjusted together
 * (Benjamini-Hochberg, in the verdict), and each scenario and each of its
 * looks gets an equal part of the check's alpha, so that identical code fails
 * the whole check with a chance of at most alpha.
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/gate/check_scenario.h"
#include "harness/gate/check_write.h"
#include "harness/base/progress.h"
#include "harness/run/results.h"
#include "core/scenario/scenario.h"

#define CMD "check-perf"

#define CHECK_PERF_DIR "build/check-perf"

struct check_perf {
	const char *tag, *base_ref, *target, *results;
	int base_mode, strict, quiet, keep_tree;
	struct gate_baseline_src baseline;
	struct check_looks looks;
	double alpha;
	char **files; /* the selected scenarios */
	size_t nfiles;
	struct wperf_buf files_buf; /* holds files */
};

/* Adds path to the selection when it is tagged; a file that does not load is
 * an error the check reports (it is selected, and fails to run). */
static int select_one(struct check_perf *cp, const char *path)
{
	const struct scenario_vars vars = {
	    .results_dir = "<results>", .build_dir = "build", .env = environ};
	struct wperf_error err = {0};
	struct scenario *s;
	char *copy;
	int tagged = 1;

	if (scenario_load(path, &vars, &s, &err) == 0) {
		tagged = scenario_has_tag(s, cp->tag);
		scenario_free(s);
	}
	if (!tagged)
		return 0;
	if (!(copy = strdup(path)) || wperf_buf_append(&cp->files_buf, &copy, sizeof(copy)) < 0) {
		free(copy);
		return cli_error(CMD, "out of memory");
	}
	cp->files = (char **)cp->files_buf.data;
	cp->nfiles++;
	return 0;
}

/* Each variant of the file at path (the file itself without a matrix). */
static int select_file(struct check_perf *cp, const char *path)
{
	struct wperf_error err = {0};
	char **variants;
	size_t n;
	int status = EXIT_OK;

	if (scenario_variants(path, &variants, &n, &err) < 0)
		return select_one(cp, path); /* selected, and its error reported */
	for (size_t i = 0; i < n && status == EXIT_OK; i++)
		status = select_one(cp, variants[i]);
	scenario_variants_free(variants);
	return status;
}

/* Each operand: a scenario file, or a folder whose *.yaml files are scenarios. */
static int select_scenarios(struct check_perf *cp, char **operands, int n)
{
	static char *const fallback[] = {"scenarios"};
	int status = EXIT_OK;

	if (!n) {
		operands = (char **)fallback;
		n = 1;
	}
	for (int i = 0; i < n && status == EXIT_OK; i++) {
		struct stat st;
		char pattern[PATH_MAX];
		glob_t g;

		if (stat(operands[i], &st) < 0 && !strchr(operands[i], '@'))
			return cli_error(CMD, "%s: %s", operands[i], strerror(errno));
		if (strchr(operands[i], '@') || !S_ISDIR(st.st_mode)) {
			status = select_file(cp, operands[i]);
			continue;
		}
		snprintf(pattern, sizeof(pattern), "%s/*.yaml", operands[i]);
		if (glob(pattern, 0, NULL, &g) == 0)
			for (size_t k = 0; k < g.gl_pathc && status == EXIT_OK; k++)
				status = select_file(cp, g.gl_pathv[k]);
		globfree(&g);
	}
	if (status == EXIT_OK && !cp->nfiles)
		status = cli_error(CMD, "no scenario is tagged %s", cp->tag);
	return status;
}

/* The scenario's verdict in one line: runs, time, the smallest throughput
 * change its runs could have told from noise, why it is unclear. */
static void say_scenario(const struct check_perf *cp, size_t i,
			 const struct wperf_check_scenario *s)
{
	char detect[64] = "";

	if (!s->error && !isnan(s->verdict.detectable))
		snprintf(detect, sizeof(detect), ", could tell a throughput change of %.1f%%",
			 s->verdict.detectable * 100);
	fprintf(stderr, "check-perf: [%zu/%zu] %s: %s (%zu run%s per side, %.0f s%s)%s%s\n", i + 1,
		cp->nfiles, s->name, s->error ? "error" : wperf_verdict_name(s->verdict.kind),
		s->pairs, s->pairs == 1 ? "" : "s", s->seconds, detect, s->reason ? ": " : "",
		s->reason ? s->reason : "");
}

/* Runs every selected scenario into c; 0, or -EINTR / -ENOMEM (c holds what
 * was done). */
static int run_all(struct check_perf *cp, struct base_tree *tree, struct wperf_check *c,
		   struct wperf_error *err)
{
	int e = 0;

	c->scenarios = calloc(cp->nfiles, sizeof(*c->scenarios));
	if (!c->scenarios)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < cp->nfiles && !e; i++) {
		const char *file = cp->files[i], *slash = strrchr(file, '/');
		char dir[PATH_MAX];
		struct check_scenario_opts o = {.scenario = file,
						.dir = dir,
						.base = tree,
						.baseline = &cp->baseline,
						.looks = cp->looks,
						.alpha = cp->alpha / (double)cp->nfiles,
						.quiet = 1,
						.new_ok = 1};

		snprintf(dir, sizeof(dir), "%s/%.*s", cp->results,
			 (int)strcspn(slash ? slash + 1 : file, "."), slash ? slash + 1 : file);
		if (!cp->quiet)
			fprintf(stderr, "check-perf: [%zu/%zu] %s\n", i + 1, cp->nfiles, file);
		e = check_scenario(&o, &c->scenarios[i], err);
		c->n = i + 1;
		say_scenario(cp, i, &c->scenarios[i]);
	}
	return e;
}

/* --base REF: the base mode, against REF or the merge base. */
static int parse_base(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	struct check_perf *cp = field;

	(void)cmd, (void)opt;
	cp->base_mode = 1;
	cp->base_ref = strcmp(arg, "merge-base") ? arg : NULL;
	return 0;
}

static int parse_alpha(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	double *alpha = field;
	char *end;

	(void)opt;
	*alpha = strtod(arg, &end);
	if (*end || !(*alpha > 0 && *alpha < 0.5))
		return cli_error(cmd, "--alpha wants a number above 0 and below 0.5, not '%s'",
				 arg);
	return 0;
}

static const struct cli_option check_perf_options[] = {
    {'t', "tag", "TAG", "the scenarios' tag (default: ci)", CLI_STRING(struct check_perf, tag)},
    {0, "base", "REF",
     "judge against commit REF run in turns ('merge-base': the merge base of HEAD with the "
     "target branch)",
     CLI_PARSE_ALL(parse_base)},
    {0, "target", "BRANCH",
     "the target branch of merge-base (default: $GITHUB_BASE_REF, "
     "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME, origin's default branch, main, master)",
     CLI_STRING(struct check_perf, target)},
    {0, "baseline-ref", "REF",
     "without --base: read the stored baselines as they are at commit REF ('merge-base' as "
     "above)",
     CLI_PARSE(struct check_perf, baseline, cli_parse_baseline_ref)},
    {'n', "runs", "N",
     "runs per side at the first look (default: each scenario's runs, at least its gate's "
     "min_runs)",
     CLI_COUNT(struct check_perf, looks.first, 2, 1000)},
    {0, "max-runs", "M", "runs per side at the most (default: N + 6)",
     CLI_COUNT(struct check_perf, looks.max, 2, 1000)},
    {0, "alpha", "A",
     "the chance that identical code fails (default: " CLI_STR(WPERF_GATE_ALPHA) ")",
     CLI_PARSE(struct check_perf, alpha, parse_alpha)},
    {0, "strict", NULL, "an inconclusive scenario fails the check",
     CLI_FLAG(struct check_perf, strict)},
    {'r', "results", "DIR", "where to leave it all (default: " CHECK_PERF_DIR "; emptied)",
     CLI_STRING(struct check_perf, results)},
    {0, "keep-tree", NULL, "keep the base's tree (its path is printed)",
     CLI_FLAG(struct check_perf, keep_tree)},
    {'q', "quiet", NULL, "only the scenarios' verdicts, warnings and errors",
     CLI_FLAG(struct check_perf, quiet)},
    {0},
};

static const struct cli_command check_perf_command = {
    .name = CMD,
    .synopsis = "[OPTIONS] [SCENARIO|DIR...]",
    .description =
	"The performance gate for CI: runs every scenario tagged TAG among the\n"
	"SCENARIO files and the *.yaml files of each DIR (default: scenarios/), and\n"
	"judges each one.\n"
	"\n"
	"With --base REF, each scenario runs on commit REF and on the work tree in\n"
	"turns on this machine, and the head is judged against the base's runs with\n"
	"paired tests: what a pull request should be judged by. Without, each is\n"
	"judged against its stored baseline (baselines/NAME.yaml); the baseline's\n"
	"throughput and edge shares count only when it was made on a machine with\n"
	"the same fingerprint (CPU, CPU count, kernel, calibration loop), otherwise\n"
	"only which vertices form the bottleneck is compared.\n"
	"\n"
	"A scenario's runs are looked at after N runs per side, then every 3 more,\n"
	"up to M, and it stops as soon as its verdict is not inconclusive. The\n"
	"chance that identical code fails the check is at most --alpha: each\n"
	"scenario and each look gets an equal part of it, and the tests of a\n"
	"scenario (every edge, the throughput, every vertex of the bottleneck) are\n"
	"adjusted together (Benjamini-Hochberg).\n"
	"\n"
	"It leaves in RESULTS:\n"
	"  NAME/          each scenario's results (base/, head/ and base.yaml with --base)\n"
	"  summary.json   every verdict and finding (format " WPERF_CHECK_FORMAT ")\n"
	"  summary.md     the same for people: what 'post' puts on the pull request\n"
	"  junit.xml      for the CI's test report\n",
    .options = check_perf_options,
    .exit_status = "0 every scenario passed, improved or was inconclusive; 1 one\n"
		   "has a new bottleneck or a regression (or, with --strict, is inconclusive);\n"
		   "2 a scenario could not run or be judged, bad usage, or interrupted.\n",
    .max_operands = CLI_ANY_OPERANDS,
};

static int parse(int argc, char **argv, struct check_perf *cp)
{
	int status = cli_parse(&check_perf_command, argc, argv, cp);

	if (status >= 0)
		return status;
	cp->baseline.target = cp->target;
	if (cp->base_mode && cp->baseline.at_commit)
		return cli_error(CMD, "--base and --baseline-ref exclude each other: with --base "
				      "the base's own runs are the baseline");
	if (cp->looks.first && cp->looks.max && cp->looks.max < cp->looks.first)
		return cli_error(CMD, "--max-runs %u is below --runs %u", cp->looks.max,
				 cp->looks.first);
	return -1;
}

/* The exit status of the check c. */
static int check_status(const struct wperf_check *c, int strict)
{
	int error;
	enum wperf_verdict_kind k = wperf_check_kind(c, &error);

	if (error)
		return EXIT_ERROR;
	if (wperf_verdict_exit_code(k) || (strict && k == WPERF_VERDICT_INCONCLUSIVE))
		return EXIT_FAIL;
	return EXIT_OK;
}

int cmd_check_perf(int argc, char **argv)
{
	struct check_perf cp = {.tag = "ci", .results = CHECK_PERF_DIR, .alpha = WPERF_GATE_ALPHA};
	struct wperf_check c = {0};
	struct base_tree *tree = NULL;
	struct wperf_error err = {0};
	double t0;
	int status = parse(argc, argv, &cp), e = 0;

	if (status >= 0)
		return status;
	t0 = progress_now_s();
	status = select_scenarios(&cp, argv + optind, argc - optind);
	if (status == EXIT_OK)
		e = check_write_prepare(cp.results, &err);
	if (status == EXIT_OK && !e && cp.base_mode)
		e = base_tree_open(cp.base_ref, cp.target, cp.keep_tree, &tree, &err);
	if (status == EXIT_OK && !e) {
		c.base_mode = cp.base_mode;
		c.alpha = cp.alpha;
		if (tree) {
			snprintf(c.base_ref, sizeof(c.base_ref), "%s",
				 cp.base_ref ? cp.base_ref : "merge-base");
			snprintf(c.base_commit, sizeof(c.base_commit), "%s", tree->commit);
		}
		check_write_head(&c);
		e = run_all(&cp, tree, &c, &err);
		c.seconds = progress_now_s() - t0;
		if (c.n && check_write(&c, cp.results, &err) < 0)
			cli_warn(CMD, "%s", err.msg);
	}
	if (status == EXIT_OK && e)
		status = cli_error(CMD, "%s", err.msg);
	else if (status == EXIT_OK) {
		enum wperf_verdict_kind k = wperf_check_kind(&c, &e);

		status = check_status(&c, cp.strict);
		/* a scenario that could not run is the check's outcome, whatever the others say */
		fprintf(stderr, "check-perf: %s in %.0f s (%.1f min); %s/summary.md, junit.xml\n",
			e ? "error" : wperf_verdict_name(k), c.seconds, c.seconds / 60, cp.results);
	}
	wperf_check_release(&c);
	base_tree_free(tree);
	for (size_t i = 0; i < cp.nfiles; i++)
		free(cp.files[i]);
	wperf_buf_release(&cp.files_buf);
	return status;
}
