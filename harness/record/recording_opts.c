/* SPDX-License-Identifier: MIT */
/*
 * A recording's options (recording.h): the defaults, the values spelled as
 * on the command line, and the command line of a child recorder.
 */
#include "harness/record/recording.h"

#include <ctype.h>
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

int recording_pid_list_valid(const char *list)
{
	return isdigit((unsigned char)*list) && strspn(list, "0123456789,") == strlen(list);
}

int recording_arm_text(const struct record_opts *o, struct wperf_buf *out)
{
	int e = wperf_buf_printf(out, "%s=", RECORDING_OPT_PID) < 0 ? -ENOMEM : 0;

	for (size_t i = 0; i < o->npids && !e; i++)
		if (wperf_buf_printf(out, "%s%d", i ? "," : "", (int)o->pids[i]) < 0)
			e = -ENOMEM;
	if (!e && (strchr(o->target, '\n') || strchr(o->harness_pids, '\n')))
		e = -EINVAL;
	if (!e && wperf_buf_printf(out, "\n%s=%s\n%s=%s\n", RECORDING_OPT_TARGET, o->target,
				   RECORDING_OPT_HARNESS_PIDS, o->harness_pids) < 0)
		e = -ENOMEM;
	return e;
}

/* One NAME=VALUE line of an arm file into o. */
static int read_arm_option(struct record_opts *o, char *line, const char *file, size_t lineno,
			   struct wperf_error *err)
{
	char *value = strchr(line, '=');

	if (!value)
		return wperf_error_set(err, -EINVAL, "%s:%zu: NAME=VALUE wanted, not '%s'", file,
				       lineno, line);
	*value++ = '\0';
	if (!strcmp(line, RECORDING_OPT_PID)) {
		if (*value && recording_add_pids(o, value))
			return wperf_error_set(err, -EINVAL,
					       "%s:%zu: %s wants PID[,PID...] (at most %d in all), "
					       "not '%s'",
					       file, lineno, line, RECORDING_MAX_PIDS, value);
	} else if (!strcmp(line, RECORDING_OPT_TARGET)) {
		o->target = value;
	} else if (!strcmp(line, RECORDING_OPT_HARNESS_PIDS)) {
		if (*value && !recording_pid_list_valid(value))
			return wperf_error_set(err, -EINVAL,
					       "%s:%zu: %s wants PID[,PID...], not '%s'", file,
					       lineno, line, value);
		o->harness_pids = value;
	} else {
		return wperf_error_set(err, -EINVAL,
				       "%s:%zu: no option '%s' here (an armed recorder takes %s)",
				       file, lineno, line, RECORDING_ARM_OPTIONS);
	}
	return 0;
}

int recording_read_arm_text(struct record_opts *o, char *text, const char *file,
			    struct wperf_error *err)
{
	char *line = text;
	size_t lineno = 1;

	for (char *next; *line; line = next, lineno++) {
		int e;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (*line && (e = read_arm_option(o, line, file, lineno, err)))
			return e;
	}
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
	if (o->arm_file)
		add(out, &n, "--" RECORDING_OPT_ARM, o->arm_file);
	if (*o->harness_pids)
		add(out, &n, "--" RECORDING_OPT_HARNESS_PIDS, o->harness_pids);
	if (*o->target)
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
