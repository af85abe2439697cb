/* SPDX-License-Identifier: MIT */
/*
 * A command's options as data: one table says each option's names, argument,
 * help and where its value goes. From it cli_parse reads argv (getopt_long
 * underneath) and cli_usage writes --help; a man page or shell completion
 * writer walks the same table (struct cli_help).
 */
#ifndef WPERF_CLI_OPTIONS_H
#define WPERF_CLI_OPTIONS_H

#include <getopt.h> /* optind: where cli_parse left the operands */
#include <stddef.h>
#include <stdio.h>

#include "core/util/buf.h"

enum cli_option_kind {
	CLI_OPTION_END,	   /* ends a table */
	CLI_OPTION_FLAG,   /* no argument; sets the int field to 1 */
	CLI_OPTION_STRING, /* the argument itself, into a const char * field */
	CLI_OPTION_COUNT,  /* a whole number from min to max, into an unsigned field */
	CLI_OPTION_NUMBER, /* a number from min to max, into a double field */
	CLI_OPTION_PARSE,  /* the argument, through parse, into the field */
	CLI_OPTION_GROUP,  /* the options of group, their fields in a struct at offset */
};

struct cli_option;

/* Reads arg into field; 0, or EXIT_ERROR after saying why (cli_error, with
 * cmd and the option's --name). */
typedef int (*cli_option_parse)(const char *cmd, const struct cli_option *opt, const char *arg,
				void *field);

/* An entry of a table: the names, argument and help positionally, then one
 * of the macros below for where the value goes; {0} ends a table. */
struct cli_option {
	char short_name;       /* 0: none */
	const char *long_name; /* without the dashes */
	const char *arg;       /* the argument's name in --help ("FILE"); NULL: none */
	const char *help;      /* one paragraph, wrapped by cli_usage; with the default */
	enum cli_option_kind kind;
	size_t offset;	 /* of the field in the command's options struct */
	double min, max; /* CLI_OPTION_COUNT, CLI_OPTION_NUMBER */
	cli_option_parse parse;
	const struct cli_option *group;
	const char *heading; /* a line of --help before this option ("with --gate:") */
};

/* Table entries: TYPE is the command's options struct, FIELD the member. */
#define CLI_FLAG(TYPE, FIELD)	.kind = CLI_OPTION_FLAG, .offset = offsetof(TYPE, FIELD)
#define CLI_STRING(TYPE, FIELD) .kind = CLI_OPTION_STRING, .offset = offsetof(TYPE, FIELD)
#define CLI_COUNT(TYPE, FIELD, MIN, MAX)                                                           \
	.kind = CLI_OPTION_COUNT, .offset = offsetof(TYPE, FIELD), .min = (MIN), .max = (MAX)
#define CLI_NUMBER(TYPE, FIELD, MIN, MAX)                                                          \
	.kind = CLI_OPTION_NUMBER, .offset = offsetof(TYPE, FIELD), .min = (MIN), .max = (MAX)
#define CLI_PARSE(TYPE, FIELD, FN)                                                                 \
	.kind = CLI_OPTION_PARSE, .offset = offsetof(TYPE, FIELD), .parse = (FN)
/* A parser given the whole options struct (an option that sets more than one field) */
#define CLI_PARSE_ALL(FN) .kind = CLI_OPTION_PARSE, .offset = 0, .parse = (FN)
#define CLI_GROUP(TYPE, FIELD, TABLE)                                                              \
	.kind = CLI_OPTION_GROUP, .offset = offsetof(TYPE, FIELD), .group = (TABLE)

#define CLI_ANY_OPERANDS (-1)

/* A number macro's value as a string, for help texts: CLI_STR(TOP_THREADS). */
#define CLI_STR_(x) #x
#define CLI_STR(x)  CLI_STR_(x)

/*
 * How a command is called and what it says of itself besides its name: its
 * --help, man page (man.c) and shell completion (completion.c) are written
 * from it, and its operands are counted by it. A command's is generated from
 * its page (harness/cli/pages/NAME.txt, the format in pages/pages.awk).
 */
struct cli_help {
	const char *summary;	 /* one line: the command list's, the man page's NAME */
	const char *synopsis;	 /* after the name on the usage line; its last word
				    names the operands ("TRACE", "SCENARIO...") */
	const char *description; /* paragraphs, as laid out here */
	const struct cli_option *options;
	const char *notes;		/* paragraphs after the options; NULL: none */
	const char *examples;		/* the man page's EXAMPLES, lines as laid out; NULL: none */
	const char *exit_status;	/* after "Exit status: "; NULL: none */
	int stop_at_operand;		/* the first operand ends the options (a COMMAND) */
	int min_operands, max_operands; /* max: CLI_ANY_OPERANDS for no limit */
};

/*
 * Reads the options of argv (argv[0] the command's name) into opts, the
 * options struct of the command named cmd, by its help's table; -h and --help are every
 * command's. Returns -1 when the command goes on, its operands from
 * argv[optind]; else the exit status to return now: EXIT_OK after --help
 * (usage on stdout), EXIT_ERROR after an unknown option (with the closest
 * option's name), a missing or bad argument or the wrong number of operands:
 * one error line saying what was wrong and a hint, on stderr
 * (cli_usage_error). Each call starts over at argv[1].
 */
int cli_parse(const char *cmd, const struct cli_help *help, int argc, char **argv, void *opts);

/* The --help of the command named cmd, generated from its help. */
void cli_usage(const char *cmd, const struct cli_help *help, FILE *out);

/* A parser for CLI_OPTION_PARSE: a number from opt->min to opt->max into a
 * uint64_t field. */
int cli_parse_u64(const char *cmd, const struct cli_option *opt, const char *arg, void *field);

/*
 * A parser for CLI_OPTION_PARSE: --var NAME=VALUE, repeatable, into a struct
 * wperf_buf field of const char * (the arguments themselves, in order),
 * checked where they are defined (harness/cli/cli_vars.h, repo_config.h).
 */
int cli_parse_var(const char *cmd, const struct cli_option *opt, const char *arg, void *field);

#endif /* WPERF_CLI_OPTIONS_H */
