/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench record: records the machine's waiting events into a trace file
 * (the lifecycle is harness/record/recording.h), and says what it came to.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/base/spawn.h"
#include "harness/record/recording.h"

#define CMD "record"

static int parse_duration(const char *cmd, const struct cli_option *opt, const char *arg,
			  void *field)
{
	double *duration = field;
	char *end;

	(void)opt;
	*duration = strtod(arg, &end);
	if (*end || !(*duration > 0))
		return cli_error(cmd, "--duration wants a positive number of seconds, not '%s'",
				 arg);
	return 0;
}

static int parse_pids(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	(void)opt;
	if (recording_add_pids(field, arg))
		return cli_error(cmd, "--pid wants PID[,PID...] (at most %d), not '%s'",
				 RECORDING_MAX_PIDS, arg);
	return 0;
}

static int parse_usdt(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	struct record_opts *o = field;

	(void)opt;
	if (o->nusdt == RECORDING_MAX_USDT)
		return cli_error(cmd, "at most %d --usdt binaries", RECORDING_MAX_USDT);
	o->usdt[o->nusdt++] = arg;
	return 0;
}

static int parse_buffer_mb(const char *cmd, const struct cli_option *opt, const char *arg,
			   void *field)
{
	char *end;
	long n = strtol(arg, &end, 10);

	(void)opt;
	if (*end || n < 1 || n > 4096 || (n & (n - 1)))
		return cli_error(cmd, "--buffer-mb wants a power of two from 1 to 4096, not '%s'",
				 arg);
	*(size_t *)field = n;
	return 0;
}

static int parse_stack_entries(const char *cmd, const struct cli_option *opt, const char *arg,
			       void *field)
{
	char *end;
	long n = strtol(arg, &end, 10);

	(void)opt;
	if (*end || n < 64 || n > (1 << 22))
		return cli_error(cmd, "--stack-entries wants 64 to %d, not '%s'", 1 << 22, arg);
	*(uint32_t *)field = n;
	return 0;
}

static int parse_no_compress(const char *cmd, const struct cli_option *opt, const char *arg,
			     void *field)
{
	(void)cmd, (void)opt, (void)arg;
	*(int *)field = 0;
	return 0;
}

static int parse_harness_pids(const char *cmd, const struct cli_option *opt, const char *arg,
			      void *field)
{
	(void)opt;
	if (!recording_pid_list_valid(arg))
		return cli_error(cmd, "--harness-pids wants PID[,PID...], not '%s'", arg);
	*(const char **)field = arg;
	return 0;
}

const struct cli_option cli_record_options[] = {
    {RECORDING_SHORT_OUTPUT, RECORDING_OPT_OUTPUT, "FILE",
     "trace file, or - for standard output (default: wperf.trace)",
     CLI_STRING(struct record_opts, output)},
    {RECORDING_SHORT_DURATION, RECORDING_OPT_DURATION, "SECONDS",
     "stop after this long (default: until stopped)",
     CLI_PARSE(struct record_opts, duration, parse_duration)},
    {RECORDING_SHORT_PID, RECORDING_OPT_PID, "PID[,PID...]",
     "record only these processes and their descendants, those they started before the "
     "recording and those they start during it (default: the whole machine)",
     CLI_PARSE_ALL(parse_pids)},
    {0, RECORDING_OPT_STACKS, "MODE",
     "none, kernel, user or all (default): the stacks of a thread as it blocks and of a waker "
     "as it wakes, user stacks walked by frame pointers; dwarf: all, the user stacks copied "
     "(8 KiB each) and unwound by the analysis from the binaries' call frame information, "
     "for programs built without frame pointers",
     CLI_PARSE(struct record_opts, stack_mode, cli_parse_stacks)},
    {0, RECORDING_OPT_USDT, "BINARY",
     "attach the wperf_annotate.h probes of BINARY (the COMMAND and the -p processes are "
     "attached anyway)",
     CLI_PARSE_ALL(parse_usdt)},
    {0, RECORDING_OPT_BUFFER_MB, "N", "BPF ring buffer size, a power of two (default: 32)",
     CLI_PARSE(struct record_opts, ringbuf_mb, parse_buffer_mb)},
    {0, RECORDING_OPT_STACK_ENTRIES, "N", "stack map entries (default: 16384)",
     CLI_PARSE(struct record_opts, stack_entries, parse_stack_entries)},
    {0, RECORDING_OPT_NO_COMPRESS, NULL, "store event sections without zstd",
     CLI_PARSE(struct record_opts, compress, parse_no_compress)},
    {0, RECORDING_OPT_READY_FILE, "FILE",
     "create FILE once recording has started and remove it when the window closes (for "
     "scripts that wait)",
     CLI_STRING(struct record_opts, ready_file)},
    {0, RECORDING_OPT_HOLD, NULL,
     "once the window has closed, wait for SIGINT or SIGTERM (at most 300 s) before reading "
     "the processes' tables (mappings, JIT perf maps): time to have a JIT write its perf map "
     "without recording that work",
     CLI_FLAG(struct record_opts, hold)},
    {0, RECORDING_OPT_ARM, "FILE",
     "load the programs, create FILE and wait for SIGUSR1 before recording (a stop signal "
     "ends it with no trace): a harness arms the recorder before its workload starts, so "
     "that a workload that keeps the CPUs busy cannot delay the window, then writes into "
     "FILE what it has learnt since, one NAME=VALUE line for each of " RECORDING_ARM_OPTIONS,
     CLI_STRING(struct record_opts, arm_file)},
    {0, RECORDING_OPT_HARNESS_PIDS, "PID[,PID...]",
     "processes of a harness that runs this recording (run passes its own): the analysis "
     "leaves them out",
     CLI_PARSE(struct record_opts, harness_pids, parse_harness_pids)},
    {0, RECORDING_OPT_TARGET, "NAME|PIDS",
     "the processes the recording is for (a process name, or PID[,PID...]): report's default "
     "--target, when there is no COMMAND (run passes the scenario's)",
     CLI_STRING(struct record_opts, target)},
    {RECORDING_SHORT_QUIET, RECORDING_OPT_QUIET, NULL, "no progress or summary",
     CLI_FLAG(struct record_opts, quiet)},
    {0},
};

/* What the recording came to, on stderr (unless --quiet). */
static void say_summary(const struct record_opts *o, const struct recording_summary *s)
{
	char what[128];

	if (s->mappings_missed)
		cli_warn(CMD,
			 "%zu processes exited before their mappings could be read: their "
			 "user stacks stay unsymbolized",
			 s->mappings_missed);
	fprintf(stderr,
		"wperf-bench record: %s: %.2f s, %llu events, %llu bytes (%.1f bytes/event), "
		"%llu lost, %llu stacks lost\n",
		strcmp(o->output, "-") ? o->output : "standard output", s->seconds,
		(unsigned long long)s->events, (unsigned long long)s->bytes,
		s->events ? (double)s->bytes / s->events : 0.0, (unsigned long long)s->lost,
		(unsigned long long)s->stacks_lost);
	if (s->lost)
		cli_warn(CMD,
			 "%llu events were lost (the ring buffer was full): try a larger "
			 "--buffer-mb",
			 (unsigned long long)s->lost);
	if (o->command)
		fprintf(stderr, "wperf-bench record: %s %s\n", o->command[0],
			spawn_describe_status(s->child_status, what, sizeof(what)));
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct recording_summary summary;
	struct wperf_error err = {0};
	int status;

	recording_opts_init(&o);
	status = cli_parse(CMD, &cli_record_help, argc, argv, &o);
	if (status >= 0)
		return status;
	if (optind < argc)
		o.command = argv + optind;
	if (o.command && o.npids)
		return cli_error(CMD, "give either a COMMAND or --pid, not both");
	if (recording_run(&o, argv, &summary, &err))
		return cli_error(CMD, "%s", err.msg);
	if (!o.quiet)
		say_summary(&o, &summary);
	return EXIT_OK;
}
