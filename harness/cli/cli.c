/* SPDX-License-Identifier: MIT */
/*
 * What the sub-commands share for talking to the user.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/cli/cli.h"
#include "core/analysis/symbolize.h"
#include "core/util/closest.h"
#include "harness/record/recording.h"
#include "harness/gate/gate.h"
#include "harness/run/debug_cache.h"

static void report(const char *cmd, const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "wperf-bench%s%s: %s: ", cmd ? " " : "", cmd ? cmd : "", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cmd, "error", fmt, ap);
	va_end(ap);
	return EXIT_ERROR;
}

void cli_hint(const char *cmd)
{
	fprintf(stderr, "see 'wperf-bench%s%s --help'\n", cmd ? " " : "", cmd ? cmd : "");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cmd, "error", fmt, ap);
	va_end(ap);
	cli_hint(cmd);
	return EXIT_ERROR;
}

void cli_did_you_mean(const char *word, const char *const *names, size_t n, const char *prefix,
		      char *msg, size_t size)
{
	size_t closest, len = strlen(msg);

	if (wperf_closest(word, names, n, wperf_suggest_distance(word), &closest, 1) && len < size)
		snprintf(msg + len, size - len, "; did you mean '%s%s'?", prefix, names[closest]);
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cmd, "warning", fmt, ap);
	va_end(ap);
}

int cli_open_trace(const char *cmd, const char *path, int unwind, struct wperf_trace **t)
{
	struct wperf_error err = {0};

	if (wperf_trace_open(path, t, &err) < 0)
		return cli_error(cmd, "%s", err.msg);
	if (unwind) /* to be analyzed: its debug files decompressed once, cached */
		debug_cache_use(*t);
	/* --stacks dwarf: the copied user stacks become stacks before anything reads them. */
	if (unwind && wperf_unwind_copies(*t, &err) < 0) {
		wperf_trace_free(*t);
		*t = NULL;
		return cli_error(cmd, "%s", err.msg);
	}
	return 0;
}

void cli_results_dir(const char *kind, const char *scenario, const char *given, char *dir,
		     size_t size)
{
	const char *base = strrchr(scenario, '/') ? strrchr(scenario, '/') + 1 : scenario;
	char stamp[32];
	time_t now = time(NULL);

	if (given) {
		snprintf(dir, size, "%s", given);
		return;
	}
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	snprintf(dir, size, "results/%s-%.*s-%s", kind, (int)strcspn(base, "."), base, stamp);
}

int cli_parse_alpha(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
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

int cli_parse_stacks(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	(void)opt;
	if (recording_parse_stacks(arg, field))
		return cli_error(cmd, "--stacks is none, kernel, user, all or dwarf, not '%s'",
				 arg);
	return 0;
}

int cli_parse_baseline_ref(const char *cmd, const struct cli_option *opt, const char *arg,
			   void *src)
{
	struct gate_baseline_src *s = src;

	(void)cmd, (void)opt;
	s->at_commit = 1;
	s->ref = strcmp(arg, "merge-base") ? arg : NULL;
	return 0;
}

const struct cli_option cli_baseline_src_options[] = {
    {'b', "baseline", "FILE", "the baseline (default: baselines/NAME.yaml)",
     CLI_STRING(struct gate_baseline_src, path)},
    {0, "baseline-ref", "REF",
     "read the baseline as it is at commit REF, from git's objects (no checkout); REF "
     "'merge-base': the merge base of HEAD with the target branch",
     CLI_PARSE_ALL(cli_parse_baseline_ref)},
    {0, "target", "BRANCH",
     "the target branch of merge-base (default: $GITHUB_BASE_REF, "
     "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME, origin's default branch, main, master)",
     CLI_STRING(struct gate_baseline_src, target)},
    {0},
};

int cli_parse_count(const char *cmd, const char *opt, const char *arg, unsigned min, unsigned max,
		    unsigned *out)
{
	char *end;
	long long n = strtoll(arg, &end, 10);

	if (*end || end == arg || n < min || n > max)
		return cli_error(cmd, "%s wants a number from %u to %u, not '%s'", opt, min, max,
				 arg);
	*out = (unsigned)n;
	return 0;
}
