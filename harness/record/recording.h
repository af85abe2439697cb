/* SPDX-License-Identifier: MIT */
/*
 * A recording from start to end: the BPF recorder attached, the trace writer,
 * the COMMAND started, the kernel's counters at the window's edges, the sink
 * draining the ring buffer until a stop, then the tables and the finished
 * file. `record` is its front end; `run` starts a child `wperf-bench record`
 * with the command line recording_argv makes, so that both name the same
 * options.
 */
#ifndef WPERF_RECORDING_H
#define WPERF_RECORDING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/util/buf.h"
#include "core/util/error.h"

#define RECORDING_MAX_PIDS 64
#define RECORDING_MAX_USDT 16

/* The names of record's options, for its option table and for recording_argv:
 * the one place they are spelled. Four have a short name too. */
#define RECORDING_OPT_OUTPUT	    "output"
#define RECORDING_OPT_DURATION	    "duration"
#define RECORDING_OPT_PID	    "pid"
#define RECORDING_OPT_STACKS	    "stacks"
#define RECORDING_OPT_USDT	    "usdt"
#define RECORDING_OPT_BUFFER_MB	    "buffer-mb"
#define RECORDING_OPT_STACK_ENTRIES "stack-entries"
#define RECORDING_OPT_NO_COMPRESS   "no-compress"
#define RECORDING_OPT_READY_FILE    "ready-file"
#define RECORDING_OPT_HOLD	    "hold"
#define RECORDING_OPT_ARM	    "arm"
#define RECORDING_OPT_HARNESS_PIDS  "harness-pids"
#define RECORDING_OPT_TARGET	    "target"
#define RECORDING_OPT_QUIET	    "quiet"
#define RECORDING_SHORT_OUTPUT	    'o'
#define RECORDING_SHORT_DURATION    'd'
#define RECORDING_SHORT_PID	    'p'
#define RECORDING_SHORT_QUIET	    'q'

/* What to record and how; recording_opts_init sets the defaults. */
struct record_opts {
	const char *output;
	double duration; /* seconds; 0: until the command exits or a signal */
	pid_t pids[RECORDING_MAX_PIDS];
	size_t npids;
	const char *usdt[RECORDING_MAX_USDT];
	size_t nusdt;
	unsigned stack_mode; /* RECORD_STACKS_* */
	size_t ringbuf_mb;
	uint32_t stack_entries;
	int compress;
	int quiet;
	const char *ready_file;	  /* exists while the probes are attached; NULL: none */
	const char *arm_file;	  /* loaded, wait for SIGUSR1 to attach; NULL: at once */
	int hold;		  /* wait for a signal between the window and the tables */
	const char *harness_pids; /* META harness_pids: "PID[,PID...]", or "" */
	const char *target;	  /* META analysis_target: a process name, pids, or "" */
	char **command;		  /* NULL: record until stopped */
};

void recording_opts_init(struct record_opts *o);

/* Adds the processes of "PID[,PID...]" to o; 0, or -EINVAL for a bad list or
 * more than RECORDING_MAX_PIDS. */
int recording_add_pids(struct record_opts *o, const char *list);

/* Is list "PID[,PID...]"? */
int recording_pid_list_valid(const char *list);

/*
 * An armed recorder (--arm FILE) has loaded its programs and waits for
 * SIGUSR1; its harness first writes into FILE what it has learnt since, the
 * options below one per line as NAME=VALUE (recording_arm_text). The three
 * options the harness only knows once its workload runs:
 */
#define RECORDING_ARM_OPTIONS                                                                      \
	RECORDING_OPT_PID ", " RECORDING_OPT_TARGET " and " RECORDING_OPT_HARNESS_PIDS

/* FILE's text for o's pid, target and harness-pids; 0 or -ENOMEM. */
int recording_arm_text(const struct record_opts *o, struct wperf_buf *out);

/*
 * Sets o's options from text, an arm file's (file names it), which must
 * outlive o: values point into it, and it is changed. 0, or -EINVAL with err
 * naming the file, the line and the option.
 */
int recording_read_arm_text(struct record_opts *o, char *text, const char *file,
			    struct wperf_error *err);

/* "none", "kernel", "user", "all" (RECORD_STACKS_* bits 0 to 3) or "dwarf"
 * (all three bits) into *mode; 0, or -EINVAL. */
int recording_parse_stacks(const char *name, unsigned *mode);

/* The name of a stack mode, as recording_parse_stacks reads it. */
const char *recording_stacks_name(unsigned mode);

/* What the recording came to, for the front end to say. */
struct recording_summary {
	double seconds;
	uint64_t events, bytes;
	uint64_t lost; /* events, with the ring buffer full */
	uint64_t stacks_lost;
	size_t mappings_missed; /* processes gone before their mappings were read */
	int child_status;	/* of the COMMAND (waitpid's), when there is one */
};

/*
 * Records as o says into o->output (with o->arm_file, from SIGUSR1 on), until
 * the COMMAND exits, the duration ends or SIGINT, SIGTERM or SIGHUP comes
 * (with o->hold, one more then closes it). argv: the command line, for META
 * cmdline. The stop signals and SIGUSR1 stay blocked after it returns. 0
 * with *summary, or a negative errno with err set; the trace is complete or
 * absent.
 */
int recording_run(const struct record_opts *o, char **argv, struct recording_summary *summary,
		  struct wperf_error *err);

/* The command line of a child recorder: SELF record, then o's options that
 * are not the defaults (not o->command nor o->usdt), by their short names
 * where they have one. argv points into it. */
struct recording_argv {
	char *argv[32];
	char shorts[4][3]; /* "-o" */
	char duration[32], buffer_mb[16], stack_entries[16], pids[RECORDING_MAX_PIDS * 12];
};

void recording_argv(const struct record_opts *o, const char *self, struct recording_argv *out);

#endif /* WPERF_RECORDING_H */
