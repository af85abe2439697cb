/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench baseline update: makes a scenario's baseline from a complete
 * results folder, or from a run set made on the spot, keeping the entries
 * people accepted in the baseline it replaces.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/cli/cli.h"
#include "harness/gate/gate.h"
#include "harness/run/run_set.h"

#define CMD "baseline"

static void usage(FILE *out)
{
	fprintf(out, "usage: wperf-bench baseline update [OPTIONS] RESULTS|SCENARIO\n"
		     "\n"
		     "Writes the baseline of a scenario (knots, edge weights and throughput of\n"
		     "every run, the environment) from RESULTS, a complete results folder of\n"
		     "'wperf-bench run', or from a run set of SCENARIO made now. The accepted:\n"
		     "entries of the baseline it replaces are kept. The file is replaced\n"
		     "atomically: never seen half-written.\n"
		     "\n"
		     "options:\n"
		     "  -b, --baseline FILE     where to write (default: baselines/NAME.yaml)\n"
		     "  -n, --runs N            SCENARIO: run N times (default: its runs)\n"
		     "  -r, --results DIR       SCENARIO: the results folder (as for run)\n"
		     "      --build-dir DIR     SCENARIO: ${BUILD_DIR} (as for run)\n"
		     "  -q, --quiet             SCENARIO: only warnings and errors while it runs\n"
		     "  -h, --help              this text\n"
		     "\n"
		     "Exit status: 0 written, 2 error (incomplete results, a run that failed).\n");
}

static int update(const struct results *r, const char *baseline)
{
	struct wperf_error err = {0};
	char path[PATH_MAX];

	gate_baseline_path(baseline, r->scenario, path, sizeof(path));
	if (gate_update_baseline(r, path, &err) < 0)
		return cli_error(CMD, "%s", err.msg);
	printf("wrote %s from %zu run%s of %s (%s)\n", path, r->runs.nruns,
	       r->runs.nruns == 1 ? "" : "s", r->scenario, r->dir);
	return EXIT_OK;
}

int cmd_baseline(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"baseline", required_argument, NULL, 'b'},
	    {"runs", required_argument, NULL, 'n'},
	    {"results", required_argument, NULL, 'r'},
	    {"build-dir", required_argument, NULL, CLI_OPT_BUILD_DIR},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct run_set_opts o = {0};
	const char *baseline = NULL, *operand;
	struct results r = {0};
	struct scenario *s = NULL;
	struct wperf_error err = {0};
	struct stat st;
	int c, status;

	if (argc < 2 || strcmp(argv[1], "update")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			return EXIT_OK;
		}
		usage(stderr);
		return EXIT_ERROR;
	}
	argc--, argv++;
	while ((c = getopt_long(argc, argv, "b:n:r:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			baseline = optarg;
			break;
		case 'n':
		case 'r':
		case 'q':
		case CLI_OPT_BUILD_DIR:
			if (cli_run_set_option(CMD, c, optarg, &o))
				return EXIT_ERROR;
			break;
		default:
			return cli_other_option(c, usage);
		}
	}
	if (!(operand = cli_one_operand(argc, argv, usage)))
		return EXIT_ERROR;
	if (stat(operand, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (o.runs || o.results_dir || o.build_dir)
			return cli_error(CMD, "--runs, --results and --build-dir are for a "
					      "SCENARIO, not a results folder");
		status = results_read(operand, &r, &err) < 0 ? cli_error(CMD, "%s", err.msg)
							     : update(&r, baseline);
	} else {
		o.scenario_path = operand;
		status = run_set(&o, &r, &s, &err) < 0 ? cli_error(CMD, "%s", err.msg)
						       : update(&r, baseline);
	}
	results_release(&r);
	scenario_free(s);
	return status;
}
