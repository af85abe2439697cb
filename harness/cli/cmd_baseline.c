/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench baseline update: makes a scenario's baseline from a complete
 * results folder, or from a run set made on the spot, keeping the entries
 * people accepted in the baseline it replaces.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/output.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_vars.h"
#include "harness/gate/gate.h"
#include "harness/run/run_set.h"

#define CMD "baseline"

struct baseline_args {
	const char *baseline;
	struct run_set_opts o;
	struct cli_vars vars; /* --var and the repository's */
};

const struct cli_option cli_baseline_options[] = {
    {'b', "baseline", "FILE",
     "where to write (default: NAME.yaml in the baselines folder the repository's "
     ".wperf-bench.yaml names, else baselines/NAME.yaml)",
     CLI_STRING(struct baseline_args, baseline)},
    {'n', "runs", "N", "SCENARIO: run N times (default: its runs)",
     CLI_COUNT(struct baseline_args, o.runs, 1, 1000)},
    {'r', "results", "DIR", "SCENARIO: the results folder (as for run)",
     CLI_STRING(struct baseline_args, o.results_dir)},
    {0, "build-dir", "DIR", "SCENARIO: ${BUILD_DIR} (as for run)",
     CLI_STRING(struct baseline_args, o.build_dir)},
    {0, "var", "NAME=VALUE", "SCENARIO: defines the scenario variable ${NAME} (as for run)",
     CLI_PARSE(struct baseline_args, vars.args, cli_parse_var)},
    {'q', "quiet", NULL, "SCENARIO: only warnings and errors while it runs",
     CLI_FLAG(struct baseline_args, o.quiet)},
    {0},
};

/* What the baseline can tell: a stored baseline is compared without pairs,
 * so its throughput's spread decides the smallest change a check of this
 * scenario alone could find against as many new runs (at WPERF_GATE_ALPHA;
 * a check of many scenarios divides it). Said on standard error, a warning
 * when that is coarser than the scenario's gate.detect. */
static void say_power(const struct results *r)
{
	double detect = r->gate.detect > 0 ? r->gate.detect : r->gate.throughput_tolerance;
	struct wperf_baseline b = {0};
	struct wperf_error err = {0};
	double detectable;
	size_t needed;

	if (wperf_baseline_from_runs(&r->runs, r->scenario, NULL, &b, &err) < 0)
		return;
	wperf_baseline_power(&b, detect, WPERF_GATE_ALPHA, &detectable, &needed);
	wperf_baseline_release(&b);
	if (isnan(detectable))
		cli_warn(CMD,
			 "%zu run%s of %s: no throughput change can be told from them (a test "
			 "needs two runs that measured it)",
			 r->runs.nruns, r->runs.nruns == 1 ? "" : "s", r->scenario);
	else if (detectable > detect)
		cli_warn(CMD,
			 "these runs could tell a throughput change of %.1f%% against as many "
			 "new ones, not the %.1f%% the gate asks (gate.detect): about %zu runs "
			 "would (-n %zu)",
			 detectable * 100, detect * 100, needed, needed);
	else
		fprintf(stderr,
			"these runs could tell a throughput change of %.1f%% against as "
			"many new ones (the gate asks %.1f%%)\n",
			detectable * 100, detect * 100);
}

/* The baseline of r written to baseline, or by default into the repository's
 * baselines folder when its .wperf-bench.yaml says where. */
static int update(const struct results *r, const char *baseline, const struct repo_config *c)
{
	struct wperf_error err = {0};
	char path[PATH_MAX], dir[PATH_MAX + 256];
	struct gate_baseline_src src = {.path = baseline};

	if (c->found) {
		snprintf(dir, sizeof(dir), "%s/%s", c->root,
			 c->baselines ? c->baselines : "baselines");
		src.dir = dir;
	}
	gate_baseline_file(&src, r->scenario, path, sizeof(path));
	if (gate_update_baseline(r, path, &err) < 0)
		return cli_error(CMD, "%s", err.msg);
	/* standard output may carry the baseline itself (-, /dev/stdout) */
	fprintf(output_names_file(path) ? stdout : stderr, "wrote %s from %zu run%s of %s (%s)\n",
		strcmp(path, "-") ? path : "standard output", r->runs.nruns,
		r->runs.nruns == 1 ? "" : "s", r->scenario, r->dir);
	say_power(r);
	return EXIT_OK;
}

int cmd_baseline(int argc, char **argv)
{
	struct baseline_args args = {0};
	struct run_set_opts *o = &args.o;
	const char *operand;
	struct results r = {0};
	struct scenario *s = NULL;
	struct wperf_error err = {0};
	struct stat st;
	int status;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cli_usage(CMD, &cli_baseline_help, stdout);
		return EXIT_OK;
	}
	if (argc < 2 || strcmp(argv[1], "update")) { /* its one sub-command */
		const char *const update[] = {"update"};
		char msg[256] = "missing operand update";

		if (argc >= 2) {
			snprintf(msg, sizeof(msg), "'%s' is not a sub-command of baseline",
				 argv[1]);
			cli_did_you_mean(argv[1], update, 1, "", msg, sizeof(msg));
		}
		return cli_usage_error(CMD, "%s", msg);
	}
	status = cli_parse(CMD, &cli_baseline_help, argc - 1, argv + 1, &args);
	if (status >= 0)
		return status;
	operand = argv[1 + optind];
	if ((status = cli_vars_define(CMD, &args.vars, 0, &o->defs, &o->build_dir)) != EXIT_OK)
		return status;
	if (stat(operand, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (o->runs || o->results_dir || o->build_dir)
			return cli_error(CMD, "--runs, --results and --build-dir are for a "
					      "SCENARIO, not a results folder");
		status = results_read(operand, &r, &err) < 0
			     ? cli_error(CMD, "%s", err.msg)
			     : update(&r, args.baseline, &args.vars.config);
	} else {
		o->scenario_path = operand;
		status = run_set(o, &r, &s, &err) < 0
			     ? cli_error(CMD, "%s", err.msg)
			     : update(&r, args.baseline, &args.vars.config);
	}
	results_release(&r);
	scenario_free(s);
	cli_vars_release(&args.vars);
	return status;
}
