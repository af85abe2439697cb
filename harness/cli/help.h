/* SPDX-License-Identifier: MIT */
/*
 * What `wperf-bench help` writes from the commands' tables besides --help:
 * man pages (man.c) and shell completion (completion.c).
 */
#ifndef WPERF_CLI_HELP_H
#define WPERF_CLI_HELP_H

#include <stdio.h>

#include "harness/cli/options.h"

struct cli_command;

/* wperf-bench-NAME(1) of cmd, in roff. */
void cli_man_page(const struct cli_command *cmd, FILE *out);

/* wperf-bench(1): the commands, in roff. */
void cli_man_program(FILE *out);

/* The completion script of shell ("bash" or "zsh") for every command; 0, or
 * -1 for another shell. */
int cli_completion(const char *shell, FILE *out);

#endif /* WPERF_CLI_HELP_H */
