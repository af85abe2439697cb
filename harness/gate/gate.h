/* SPDX-License-Identifier: MIT */
/*
 * The gate as the commands use it: a results folder judged against the
 * baseline of its scenario, the verdict written next to the results
 * (verdict.md, junit.xml), and baselines read and written as files.
 *
 * A scenario's baseline is baselines/NAME.yaml, relative to the working
 * directory (the repository's root in CI), unless a path is given.
 */
#ifndef WPERF_GATE_H
#define WPERF_GATE_H

#include <limits.h>

#include "core/gate/baseline.h"
#include "core/util/buf.h"
#include "core/util/error.h"
#include "core/gate/verdict.h"
#include "harness/run/results.h"

/* Where a scenario's baseline is read from. A zeroed struct: the file in the
 * work tree, baselines/SCENARIO.yaml. */
struct gate_baseline_src {
	const char *path;   /* NULL: DIR/SCENARIO.yaml */
	const char *dir;    /* the baselines' folder (a repository's .wperf-bench.yaml); NULL:
			     * baselines */
	int at_commit;	    /* read the file as it is in a commit (harness/git/git_repo.h) */
	const char *ref;    /* at_commit: the revision; NULL or "": the merge base */
	const char *target; /* the merge base's target branch; NULL: the default */
};

/* path, or baselines/SCENARIO.yaml when path is NULL, into out. */
void gate_baseline_path(const char *path, const char *scenario, char *out, size_t size);

/* src's baseline file of scenario (src->path, else src->dir/SCENARIO.yaml), into out. */
void gate_baseline_file(const struct gate_baseline_src *src, const char *scenario, char *out,
			size_t size);

/* Reads the baseline file at path. -ENOENT (with advice on making one) when
 * it does not exist; other errors name the file, line and key. */
int gate_read_baseline(const char *path, struct wperf_baseline *b, struct wperf_error *err);

/*
 * Sets the origin of each of b's accepted entries: the newest commit that
 * changed one of the entry's lines of rel (a path in repo's work tree), as
 * the file is in commit oid (NULL: the work tree's, where an entry not
 * committed yet says so). Outside git or past the history, origins stay NULL.
 */
struct git_repo;
void gate_accepted_origins(struct git_repo *repo, const char *oid, const char *rel,
			   struct wperf_baseline *b);

/*
 * Reads the baseline of scenario from src into *b. from gets where it came
 * from, for people: "baselines/x.yaml", or "baselines/x.yaml at 1a2b3c4d5e6f
 * (merge base with main)". Errors as gate_read_baseline's, and the
 * repository's (no repository, no such commit, no such file at it).
 */
int gate_load_baseline(const struct gate_baseline_src *src, const char *scenario,
		       struct wperf_baseline *b, char *from, size_t size, struct wperf_error *err);

/*
 * How runs are judged beyond their scenario's gate options. A zeroed struct
 * (or NULL): against a stored baseline, at the scenario's alpha.
 */
struct gate_judging {
	/* The base's results, runs interleaved with these on this machine: the
	 * tests are paired, and the base's sinks and missed expectations are
	 * compared too. */
	const struct results *base;
	double alpha; /* each test's level (the check's rate over its tests); 0: the scenario's */
};

/*
 * The gate options for r's runs against b: the scenario's, with j's, the
 * expectations r's runs missed and, against a stored baseline whose machine
 * has another fingerprint (core/gate/env.h), structure_only, with why into why for
 * people ("" otherwise).
 */
void gate_options(const struct results *r, const struct wperf_baseline *b,
		  const struct gate_judging *j, struct wperf_gate_opts *g, char *why, size_t size);

/*
 * Judges the runs of r against b (read from from) as j says (NULL: alone):
 * *v (release it with wperf_verdict_release), verdict.md and junit.xml
 * written into r->dir, and the verdict added to summary.md and summary.json
 * (r->verdict and r->baseline_from set). -EINVAL when r is not complete.
 */
int gate_judge(struct results *r, const struct wperf_baseline *b, const char *from,
	       const struct gate_judging *j, struct wperf_verdict *v, struct wperf_error *err);

/* gate_load_baseline of r's scenario, then gate_judge. */
int gate_judge_from(struct results *r, const struct gate_baseline_src *src, struct wperf_verdict *v,
		    struct wperf_error *err);

/*
 * Makes the baseline of r's runs and writes it to path atomically, keeping the
 * accepted entries of the baseline that was there. -EINVAL when r is not
 * complete or has no run.
 */
int gate_update_baseline(const struct results *r, const char *path, struct wperf_error *err);

#endif /* WPERF_GATE_H */
