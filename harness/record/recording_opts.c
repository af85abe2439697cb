/* SPDX-License-Identifier: MIT */
/*
 * A recording's options (recording.h): the defaults, the values spelled as
 * on the command line, and the command line of a child recorder.
 */
#include "harness/record/recording.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/record/bpf_recorder.h"

void recording_opts_init(struct record_opts *o)
{
	*o = (struct record_opts){
	    .output = "wperf.trace",
	    .stack_mode = RECORD_STACKS_KERNEL | RECORD_STACKS_USER,
	    .ringbuf_mb = 32,
	    .stack_entries = 16384,
	    .compress = 1,
	    .harness_pids = "",
	    .target = "",
	};
}

int recording_add_pids(struct record_opts *o, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL, *end;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long pid = strtol(tok, &end, 10);

		if (*end || pid <= 0 || pid > INT_MAX || o->npids == RECORDING_MAX_PIDS) {
			free(copy);
			return -EINVAL;
		}
		o->pids[o->npids++] = pid;
	}
	free(copy);
	return 0;
}

/* The stack modes by name, indexed by RECORD_STACKS_KERNEL and _USER bits;
 * "dwarf" is all three bits. */
static const char *const stack_modes[] = {"none", "kernel", "user", "all"};
#define STACKS_DWARF_MODE (RECORD_STACKS_KERNEL | RECORD_STACKS_USER | RECORD_STACKS_DWARF)

const char *recording_stacks_name(unsigned mode)
{
	return mode & RECORD_STACKS_DWARF ? "dwarf" : stack_modes[mode & 3];
}

int recording_parse_stacks(const char *name, unsigned *mode)
{
	if (!strcmp(name, "dwarf")) {
		*mode = STACKS_DWARF_MODE;
		return 0;
	}
	for (unsigned m = 0; m < sizeof(stack_modes) / sizeof(*stack_modes); m++)
		if (!strcmp(name, stack_modes[m])) {
			*mode = m;
			return 0;
		}
	return -EINVAL;
}

/* The flag ("--NAME") and, unless NULL, its value, onto out->argv at *n. */
static void add(struct recording_argv *out, size_t *n, const char *flag, const char *value)
{
	out->argv[(*n)++] = (char *)flag;
	if (value)
		out->argv[(*n)++] = (char *)value;
}

/* The flag "-C" of short name c, kept in out->shorts. */
static const char *short_flag(struct recording_argv *out, size_t *nshorts, char c)
{
	char *flag = out->shorts[(*nshorts)++];

	flag[0] = '-', flag[1] = c, flag[2] = '\0';
	return flag;
}

void recording_argv(const struct record_opts *o, const char *self, struct recording_argv *out)
{
	struct record_opts defaults;
	size_t n = 0, nshorts = 0;

	recording_opts_init(&defaults);
	add(out, &n, self, "record");
	if (o->quiet)
		add(out, &n, short_flag(out, &nshorts, RECORDING_SHORT_QUIET), NULL);
	add(out, &n, short_flag(out, &nshorts, RECORDING_SHORT_OUTPUT), o->output);
	add(out, &n, "--" RECORDING_OPT_STACKS, recording_stacks_name(o->stack_mode));
	if (o->ready_file)
		add(out, &n, "--" RECORDING_OPT_READY_FILE, o->ready_file);
	if (o->hold)
		add(out, &n, "--" RECORDING_OPT_HOLD, NULL);
	add(out, &n, "--" RECORDING_OPT_HARNESS_PIDS, o->harness_pids);
	add(out, &n, "--" RECORDING_OPT_TARGET, o->target);
	if (o->duration > 0) {
		snprintf(out->duration, sizeof(out->duration), "%.15g", o->duration);
		add(out, &n, short_flag(out, &nshorts, RECORDING_SHORT_DURATION), out->duration);
	}
	if (o->ringbuf_mb != defaults.ringbuf_mb) {
		snprintf(out->buffer_mb, sizeof(out->buffer_mb), "%zu", o->ringbuf_mb);
		add(out, &n, "--" RECORDING_OPT_BUFFER_MB, out->buffer_mb);
	}
	if (o->stack_entries != defaults.stack_entries) {
		snprintf(out->stack_entries, sizeof(out->stack_entries), "%u",
			 (unsigned)o->stack_entries);
		add(out, &n, "--" RECORDING_OPT_STACK_ENTRIES, out->stack_entries);
	}
	if (!o->compress)
		add(out, &n, "--" RECORDING_OPT_NO_COMPRESS, NULL);
	for (size_t i = 0, len = 0; i < o->npids; i++)
		len += snprintf(out->pids + len, sizeof(out->pids) - len, "%s%d", i ? "," : "",
				(int)o->pids[i]);
	if (o->npids)
		add(out, &n, short_flag(out, &nshorts, RECORDING_SHORT_PID), out->pids);
	out->argv[n] = NULL;
}
