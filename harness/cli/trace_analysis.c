/* SPDX-License-Identifier: MIT */
/*
 * The analysis options that report and diff share, and the analysis itself
 * with its target checked.
 */
#include "harness/cli/trace_analysis.h"

#include <unistd.h>

#include "core/trace/meta.h"
#include "harness/cli/cli.h"

const struct cli_option cli_analysis_options[] = {
    {'t', "threshold", "F",
     "refinement stops at this share of the window (default 0.2, as in the paper)",
     CLI_NUMBER(struct cli_analysis, ao.threshold, 0.0001, 1)},
    {0, "target", "NAME|PIDS|cgroup:PATH",
     "report on these processes (a process's or its program's name, or PID[,PID...], where "
     "PID+ is that process and all it started, or cgroup:PATH, the processes of that control "
     "group and those below it as the recording started, a container or a systemd unit, "
     "and all they started): the knots and sinks they wait for, directly "
     "or not, their own long waits, and the CMetric over their threads (default: the "
     "recorded COMMAND and every process it started, or the target `run` or `record "
     "--target` named); a target with no thread in the trace is an error",
     CLI_STRING(struct cli_analysis, target)},
    {0, "all", NULL,
     "every knot, wait and thread of the machine, whatever the target, and the CMetric over "
     "every thread",
     CLI_FLAG(struct cli_analysis, all)},
    {0, "min-edge", "F",
     "leave edges under this share of the window out of the knot search (default: the level "
     "where the knots stay the same over the widest range; -1: keep all)",
     CLI_NUMBER(struct cli_analysis, ao.min_edge, -1, 1)},
    {0, "merge-similar", "F",
     "merge threads of one name only when their user stacks are at least F alike (0..1, "
     "cosine; default 0: 0.5; -1: never merge)",
     CLI_NUMBER(struct cli_analysis, ao.merge.similar, -1, 1)},
    {'j', "jobs", "N", "worker threads for the cascade (default: the CPUs)",
     CLI_COUNT(struct cli_analysis, ao.jobs, 1, 256)},
    {0, "disk-bw", "BYTES/S",
     "disk capacity for the idle-time model (with --disk-iops; default: busy time measured "
     "from the requests)",
     CLI_PARSE(struct cli_analysis, ao.capacity.disk_bytes_per_s, cli_parse_u64), .min = 1,
     .max = 1e15},
    {0, "disk-iops", "N", "", CLI_PARSE(struct cli_analysis, ao.capacity.disk_iops, cli_parse_u64),
     .min = 1, .max = 1e15},
    {0, "nic-bps", "BITS/S", "link speed of the network interfaces",
     CLI_PARSE(struct cli_analysis, ao.capacity.nic_bits_per_s, cli_parse_u64), .min = 1,
     .max = 1e15},
    {0},
};

void cli_analysis_init(struct cli_analysis *c)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	*c = (struct cli_analysis){.ao.jobs = cpus > 0 ? cpus : 1};
}

/* A trace of `record -- COMMAND` is about that command and every process it
 * started (PID+: a script, the server it launches, the load), one of `run`
 * (or `record --target`) about its target, unless told otherwise. tree holds
 * the PID+. */
static const char *trace_target(const struct wperf_trace *t, const struct cli_analysis *c,
				char *tree, size_t size)
{
	const char *pid, *named;

	if (c->target || c->all)
		return c->target;
	pid = wperf_trace_meta(t, WPERF_META_COMMAND_PID);
	named = wperf_trace_meta(t, WPERF_META_ANALYSIS_TARGET);
	if (pid && *pid) {
		snprintf(tree, size, "%s+", pid);
		return tree;
	}
	return named && *named ? named : NULL;
}

int cli_analyze(const char *cmd, const char *path, const struct wperf_trace *t,
		const struct cli_analysis *c, struct wperf_analysis **a, const char **target)
{
	struct wperf_analysis_opts ao = c->ao;
	struct wperf_error err = {0};
	char tree[32];

	ao.target = trace_target(t, c, tree, sizeof(tree)); /* the CMetric is over its threads */
	if (wperf_analyze(t, &ao, a, &err) < 0)
		return cli_error(cmd, "%s: %s", path, err.msg);
	*target = (*a)->target; /* a PID+ made its pids */
	/* a mistyped --target would report nothing, as if the program never waited */
	if (c->target && wperf_analysis_check_target(*a, &err) < 0) {
		wperf_analysis_free(*a);
		*a = NULL;
		return cli_error(cmd, "%s: --%s", path, err.msg);
	}
	return 0;
}
