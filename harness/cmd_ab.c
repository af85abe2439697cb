/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench ab: the base commit against the work tree, run in turns on one
 * machine (base, head, base, head, ...), and the head judged against a
 * baseline made from the base's runs of the same session.
 *
 * A stored baseline was made at another time, and the machine drifts between
 * then and now (the disk, the neighbours of a VM); interleaved runs see the
 * same drift on both sides, so what differs is the code. The base commit is
 * written into a temporary folder from git's objects (the repository's index,
 * HEAD and work tree are not touched), both trees are built with the
 * scenario's build commands, and each side runs from its own tree's root
 * with ${BUILD_DIR} in it. The recorder is this wperf-bench for both: the
 * instrument stays the same.
 *
 *   RESULTS/base/   the base's results folder (a run set, as `run` makes)
 *   RESULTS/head/   the head's, with the verdict (verdict.md, junit.xml)
 *   RESULTS/base.yaml  the baseline made from the base's runs
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "harness/gate.h"
#include "harness/git_repo.h"
#include "harness/output.h"
#include "harness/run_set.h"

#define CMD "ab"

static void usage(FILE *out)
{
	fprintf(out, "usage: wperf-bench ab [OPTIONS] SCENARIO\n"
		     "\n"
		     "Runs SCENARIO on the base commit and on the work tree (uncommitted changes\n"
		     "included) in turns, base then head, on this machine, and judges the head's\n"
		     "runs against a baseline made from the base's: the comparison that\n"
		     "machine drift cannot fool. The base commit is written into a temporary\n"
		     "folder from git's objects; the scenario's build commands build each tree\n"
		     "first, and each side runs from its tree's root, ${BUILD_DIR} its build/.\n"
		     "The accepted: entries of the head's baselines/NAME.yaml still apply.\n"
		     "\n"
		     "options:\n"
		     "      --base REF          the base commit (default: the merge base of HEAD\n"
		     "                          with the target branch)\n"
		     "      --target BRANCH     the target branch (default: $GITHUB_BASE_REF,\n"
		     "                          $CI_MERGE_REQUEST_TARGET_BRANCH_NAME, origin's\n"
		     "                          default branch, main, master)\n"
		     "  -n, --runs N            runs per side (default: the scenario's runs)\n"
		     "  -r, --results DIR       the results folder, missing or empty (default:\n"
		     "                          results/ab-NAME-YYYYmmdd-HHMMSS); base/ and head/\n"
		     "                          in it\n"
		     "      --build-dir DIR     the head's ${BUILD_DIR} (default: build/ in the\n"
		     "                          work tree)\n"
		     "      --keep-tree         keep the base's tree (its path is printed)\n"
		     "  -q, --quiet             only warnings, errors and the verdict\n"
		     "  -h, --help              this text\n"
		     "\n"
		     "Exit status: 0 the verdict is pass, improved or inconclusive; 1 it is\n"
		     "new-bottleneck or regression; 2 error or interrupted.\n");
}

struct ab {
	const char *scenario;  /* as given */
	const char *base_ref;  /* NULL: the merge base */
	const char *target;    /* NULL: the default */
	const char *results;   /* NULL: the default */
	const char *build_dir; /* the head's; NULL: the default */
	unsigned runs;	       /* 0: the scenario's */
	int keep_tree, quiet;

	struct git_repo *repo;
	struct git_info git;	     /* the head's */
	char base[GIT_REPO_OID_HEX]; /* the base commit */
	char dir[RESULTS_DIR_MAX];   /* RESULTS */
	char tree[256];		     /* the base's tree; empty: not made */
	struct results sides[2];
	struct run_set *sets[2];
};

enum { BASE, HEAD };
static const char *const side_name[] = {"base", "head"};

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* The base commit written into a temporary folder; *scenario: the scenario's
 * file in it. */
static int make_base_tree(struct ab *ab, char *scenario, size_t size, struct wperf_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char rel[PATH_MAX];
	struct stat st;
	int e = git_repo_relative(ab->repo, ab->scenario, rel, sizeof(rel), err);

	if (e)
		return e;
	snprintf(ab->tree, sizeof(ab->tree), "%s/wperf-ab-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(ab->tree)) {
		e = wperf_error_set(err, -errno, "%s: %s", ab->tree, strerror(errno));
		ab->tree[0] = '\0';
		return e;
	}
	if ((e = git_repo_export(ab->repo, ab->base, ab->tree, err)))
		return e;
	if ((size_t)snprintf(scenario, size, "%s/%s", ab->tree, rel) >= size)
		return wperf_error_set(err, -ENAMETOOLONG, "%s/%s: path too long", ab->tree, rel);
	if (stat(scenario, &st) < 0)
		return wperf_error_set(err, -ENOENT, "%s is not in the base commit %.12s", rel,
				       ab->base);
	return 0;
}

/* Opens both run sets and builds both trees. */
static int open_sides(struct ab *ab, struct wperf_error *err)
{
	char base_scenario[PATH_MAX], folder[2][PATH_MAX], base_build[PATH_MAX],
	    head_build[PATH_MAX];
	struct run_set_opts o[2] = {0};
	int e;

	for (int i = BASE; i <= HEAD; i++) {
		snprintf(folder[i], sizeof(folder[i]), "%s/%s", ab->dir, side_name[i]);
		o[i] = (struct run_set_opts){.results_dir = folder[i],
					     .runs = ab->runs,
					     .quiet = ab->quiet,
					     .label = side_name[i]};
	}
	if ((e = make_base_tree(ab, base_scenario, sizeof(base_scenario), err)))
		return e;
	snprintf(base_build, sizeof(base_build), "%s/build", ab->tree);
	o[BASE].scenario_path = base_scenario;
	o[BASE].workdir = ab->tree;
	o[BASE].build_dir = base_build;
	o[HEAD].scenario_path = ab->scenario;
	o[HEAD].workdir = git_repo_workdir(ab->repo);
	snprintf(head_build, sizeof(head_build), "%sbuild", git_repo_workdir(ab->repo));
	o[HEAD].build_dir = ab->build_dir ? ab->build_dir : head_build;
	/* The head first: its scenario says how many runs both sides make. */
	e = run_set_open(&o[HEAD], &ab->sides[HEAD], &ab->sets[HEAD], err);
	o[BASE].runs = e ? 0 : run_set_planned(ab->sets[HEAD]);
	if (!e)
		e = run_set_open(&o[BASE], &ab->sides[BASE], &ab->sets[BASE], err);
	if (e)
		return e;
	/* The base's results name its commit; its tree is no repository. */
	ab->sides[BASE].git = ab->git;
	snprintf(ab->sides[BASE].git.commit, sizeof(ab->sides[BASE].git.commit), "%s", ab->base);
	ab->sides[BASE].git.dirty = 0;
	ab->sides[BASE].git.branch[0] = '\0';
	for (int i = BASE; !e && i <= HEAD; i++)
		e = run_set_build(ab->sets[i], err);
	return e;
}

/* Base, head, base, head, ...: each side's runs see the same drift. */
static int run_in_turns(struct ab *ab, struct wperf_error *err)
{
	int e = 0;

	for (unsigned i = 0; !e && i < run_set_planned(ab->sets[HEAD]); i++)
		for (int side = BASE; !e && side <= HEAD; side++)
			e = run_set_next(ab->sets[side], err);
	return e;
}

/*
 * The head's runs against the baseline of the base's runs, which keeps the
 * accepted: entries of the head's stored baseline (people's decisions hold).
 * That baseline is written to RESULTS/base.yaml for people to look at.
 */
static int judge(struct ab *ab, struct wperf_verdict *v, struct wperf_error *err)
{
	struct results *base = &ab->sides[BASE], *head = &ab->sides[HEAD];
	struct wperf_baseline b = {0}, stored = {0};
	struct wperf_error ignored = {0};
	struct wperf_buf text = {0};
	char path[PATH_MAX], from[PATH_MAX + 128];
	int e = wperf_baseline_from_runs(&base->runs, head->scenario, &base->env, &b, err);

	snprintf(path, sizeof(path), "%sbaselines/%s.yaml", git_repo_workdir(ab->repo),
		 head->scenario);
	if (!e && gate_read_baseline(path, &stored, &ignored) == 0 &&
	    wperf_baseline_merge_accepted(&b, &stored) < 0)
		e = wperf_error_set(err, -ENOMEM, "out of memory");
	if (!e)
		e = wperf_baseline_write(&b, &text, err);
	snprintf(path, sizeof(path), "%s/base.yaml", ab->dir);
	if (!e)
		e = output_write(path, text.data, text.len, err);
	snprintf(from, sizeof(from), "%s: the base commit %.12s, %zu runs interleaved with these",
		 path, ab->base, base->runs.nruns);
	if (!e)
		e = gate_judge(head, &b, from, v, err);
	wperf_buf_release(&text);
	wperf_baseline_release(&stored);
	wperf_baseline_release(&b);
	return e;
}

/* The whole comparison; 0 with *v, or an error. */
static int ab_run(struct ab *ab, struct wperf_verdict *v, struct wperf_error *err)
{
	int e = git_repo_open(".", &ab->repo, err);

	if (!e)
		e = git_repo_resolve(ab->repo, ab->base_ref, ab->target, ab->base, err);
	if (!e)
		e = git_repo_info(ab->repo, ab->target, &ab->git, err);
	if (!e)
		e = results_make_dir(ab->dir, err);
	if (!e)
		e = open_sides(ab, err);
	if (!e)
		e = run_in_turns(ab, err);
	/* The base's set was opened last: it closes first (signals are restored in turn). */
	for (int side = BASE; side <= HEAD; side++) {
		struct wperf_error close_err = {0};
		int c = run_set_close(ab->sets[side], e, NULL, e ? err : &close_err);

		ab->sets[side] = NULL;
		if (c && !e)
			e = wperf_error_set(err, c, "%s", close_err.msg);
	}
	if (!e)
		e = judge(ab, v, err);
	return e;
}

static void ab_release(struct ab *ab)
{
	if (ab->tree[0] && ab->keep_tree)
		fprintf(stderr, "wperf-bench ab: the base's tree is kept in %s\n", ab->tree);
	else if (ab->tree[0] && nftw(ab->tree, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		cli_warn(CMD, "could not remove %s: %s", ab->tree, strerror(errno));
	for (int side = BASE; side <= HEAD; side++)
		results_release(&ab->sides[side]);
	git_repo_free(ab->repo);
}

/* RESULTS, or results/ab-STEM-YYYYmmdd-HHMMSS after the scenario's file. */
static void results_dir(struct ab *ab)
{
	const char *base =
	    strrchr(ab->scenario, '/') ? strrchr(ab->scenario, '/') + 1 : ab->scenario;
	size_t stem = strcspn(base, ".");
	char stamp[32];
	time_t now = time(NULL);

	if (ab->results) {
		snprintf(ab->dir, sizeof(ab->dir), "%s", ab->results);
		return;
	}
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	snprintf(ab->dir, sizeof(ab->dir), "results/ab-%.*s-%s", (int)stem, base, stamp);
}

int cmd_ab(int argc, char **argv)
{
	enum { OPT_BASE = 256, OPT_TARGET, OPT_KEEP_TREE };
	static const struct option longopts[] = {
	    {"base", required_argument, NULL, OPT_BASE},
	    {"target", required_argument, NULL, OPT_TARGET},
	    {"runs", required_argument, NULL, 'n'},
	    {"results", required_argument, NULL, 'r'},
	    {"build-dir", required_argument, NULL, CLI_OPT_BUILD_DIR},
	    {"keep-tree", no_argument, NULL, OPT_KEEP_TREE},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct ab ab = {0};
	struct wperf_verdict v;
	struct wperf_error err = {0};
	struct wperf_buf md = {0};
	int c, status;

	while ((c = getopt_long(argc, argv, "n:r:qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_BASE:
			ab.base_ref = optarg;
			break;
		case OPT_TARGET:
			ab.target = optarg;
			break;
		case 'n':
			if (cli_parse_count(CMD, "--runs", optarg, 1, 1000, &ab.runs))
				return EXIT_ERROR;
			break;
		case 'r':
			ab.results = optarg;
			break;
		case CLI_OPT_BUILD_DIR:
			ab.build_dir = optarg;
			break;
		case OPT_KEEP_TREE:
			ab.keep_tree = 1;
			break;
		case 'q':
			ab.quiet = 1;
			break;
		default:
			return cli_other_option(c, usage);
		}
	}
	if (!(ab.scenario = cli_one_operand(argc, argv, usage)))
		return EXIT_ERROR;
	results_dir(&ab);
	if (ab_run(&ab, &v, &err) < 0) {
		status = cli_error(CMD, "%s", err.msg);
	} else {
		if (wperf_verdict_markdown(&v, 0, &md) == 0 && md.len)
			fwrite(md.data, 1, md.len, stdout);
		status = wperf_verdict_exit_code(v.kind) ? EXIT_FAIL : EXIT_OK;
		wperf_verdict_release(&v);
		if (!ab.quiet)
			fprintf(stderr, "wperf-bench ab: results in %s\n", ab.dir);
	}
	wperf_buf_release(&md);
	ab_release(&ab);
	return status;
}
