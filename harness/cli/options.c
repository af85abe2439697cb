/* SPDX-License-Identifier: MIT */
/*
 * Options from a table: getopt_long's arguments built from it, each value
 * stored where the table says, and --help written from it.
 */
#include "harness/cli/options.h"

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/buf.h"
#include "harness/cli/cli.h"

#define MAX_OPTIONS 48
#define HELP_COLUMN 26	/* where an option's help starts */
#define HELP_WIDTH  80	/* the column no help line goes past */
#define LONG_VALUE  256 /* getopt_long's value for option i without a short name: LONG_VALUE + i */

/* An option of the table with its groups unfolded, and where its field is. */
struct flat_option {
	const struct cli_option *opt;
	size_t offset;
};

static size_t flatten(const struct cli_option *table, size_t base, struct flat_option *out,
		      size_t n)
{
	for (; table->kind != CLI_OPTION_END; table++) {
		if (table->kind == CLI_OPTION_GROUP) {
			n = flatten(table->group, base + table->offset, out, n);
			continue;
		}
		if (n == MAX_OPTIONS)
			abort(); /* a table larger than any command has: a programming error */
		out[n].opt = table;
		out[n++].offset = base + table->offset;
	}
	return n;
}

static int store(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	char name[64];
	double v;
	char *end;

	switch (opt->kind) {
	case CLI_OPTION_FLAG:
		*(int *)field = 1;
		return 0;
	case CLI_OPTION_STRING:
		*(const char **)field = arg;
		return 0;
	case CLI_OPTION_PARSE:
		return opt->parse(cmd, opt, arg, field);
	default:
		break;
	}
	snprintf(name, sizeof(name), "--%s", opt->long_name);
	if (opt->kind == CLI_OPTION_COUNT)
		return cli_parse_count(cmd, name, arg, (unsigned)opt->min, (unsigned)opt->max,
				       field);
	v = strtod(arg, &end);
	if (*end || end == arg || !(v >= opt->min && v <= opt->max))
		return cli_error(cmd, "%s wants a number from %g to %g, not '%s'", name, opt->min,
				 opt->max, arg);
	*(double *)field = v;
	return 0;
}

int cli_parse_u64(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	struct cli_option number = *opt;
	double v;

	number.kind = CLI_OPTION_NUMBER;
	if (store(cmd, &number, arg, &v))
		return EXIT_ERROR;
	*(uint64_t *)field = (uint64_t)v;
	return 0;
}

int cli_parse_var(const char *cmd, const struct cli_option *opt, const char *arg, void *field)
{
	(void)opt;
	if (wperf_buf_append(field, &arg, sizeof(arg)) < 0)
		return cli_error(cmd, "out of memory");
	return 0;
}

/* getopt_long's short and long options for the table; -h, --help added. */
static void getopt_tables(const struct cli_help *help, const struct flat_option *flat, size_t n,
			  char *shorts, struct option *longs)
{
	size_t len = 0;

	if (help->stop_at_operand)
		shorts[len++] = '+';
	shorts[len++] = ':'; /* a missing argument is ':', an unknown option '?' */
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = flat[i].opt;
		int value = o->short_name ? o->short_name : LONG_VALUE + (int)i;

		longs[i] = (struct option){o->long_name, o->arg ? required_argument : no_argument,
					   NULL, value};
		if (o->short_name) {
			shorts[len++] = o->short_name;
			if (o->arg)
				shorts[len++] = ':';
		}
	}
	shorts[len++] = 'h';
	shorts[len] = '\0';
	longs[n] = (struct option){"help", no_argument, NULL, 'h'};
	longs[n + 1] = (struct option){0};
}

static const struct flat_option *find(const struct flat_option *flat, size_t n, int value)
{
	if (value >= LONG_VALUE && (size_t)(value - LONG_VALUE) < n)
		return &flat[value - LONG_VALUE];
	for (size_t i = 0; i < n; i++)
		if (flat[i].opt->short_name == value)
			return &flat[i];
	return NULL;
}

/* An option the table does not have, "--NAME" or "--NAME=VALUE": one that
 * several start with, or the closest by name. */
static int unknown_long(const char *cmd, const struct flat_option *flat, size_t n, const char *arg)
{
	const char *names[MAX_OPTIONS + 1];
	char word[64], msg[256];
	size_t starting = 0, len;

	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	len = (size_t)snprintf(msg, sizeof(msg), "option '--%s' is ambiguous:", word);
	for (size_t i = 0; i < n; i++) {
		names[i] = flat[i].opt->long_name;
		if (strncmp(names[i], word, strlen(word)) || len >= sizeof(msg))
			continue;
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s --%s",
					starting++ ? "," : "", names[i]);
	}
	names[n] = "help";
	if (starting > 1 && *word)
		return cli_usage_error(cmd, "%s", msg);
	snprintf(msg, sizeof(msg), "unknown option '--%s'", word);
	cli_did_you_mean(word, names, n + 1, "--", msg, sizeof(msg));
	return cli_usage_error(cmd, "%s", msg);
}

/* What getopt_long refused (c is ':' or '?'), as one error line and a hint. */
static int refused(const char *cmd, const struct flat_option *flat, size_t n, int c,
		   const char *arg)
{
	const struct flat_option *f = optopt ? find(flat, n, optopt) : NULL;

	if (c == ':' && f)
		return cli_usage_error(cmd, "--%s wants %s", f->opt->long_name, f->opt->arg);
	if (f || optopt == 'h')
		return cli_usage_error(cmd, "--%s takes no argument",
				       f ? f->opt->long_name : "help");
	if (optopt)
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	return unknown_long(cmd, flat, n, arg);
}

/* The operands, counted against what help wants; -1 when right. */
static int count_operands(const char *cmd, const struct cli_help *help, int argc, char **argv)
{
	int operands = argc - optind;
	const char *wanted = strrchr(help->synopsis, ' ');
	size_t len;

	wanted = wanted ? wanted + 1 : help->synopsis;
	len = strlen(wanted);
	if (len > 3 && !strcmp(wanted + len - 3, "..."))
		len -= 3; /* "SCENARIO...": one at least */
	if (operands < help->min_operands)
		return cli_usage_error(cmd, "missing operand %.*s", (int)len, wanted);
	if (help->max_operands != CLI_ANY_OPERANDS && operands > help->max_operands)
		return cli_usage_error(cmd, "unexpected operand '%s'",
				       argv[optind + help->max_operands]);
	return -1;
}

int cli_parse(const char *cmd, const struct cli_help *help, int argc, char **argv, void *opts)
{
	struct flat_option flat[MAX_OPTIONS];
	struct option longs[MAX_OPTIONS + 2];
	char shorts[3 * MAX_OPTIONS + 4];
	size_t n = flatten(help->options, 0, flat, 0);
	int c;

	getopt_tables(help, flat, n, shorts, longs);
	optind = 0; /* getopt_long starts over: a table of its own each call */
	opterr = 0; /* what it refuses is said here, with the command's prefix */
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct flat_option *f = find(flat, n, c);

		if (c == 'h') {
			cli_usage(cmd, help, stdout);
			return EXIT_OK;
		}
		if (c == ':' || c == '?' || !f)
			return refused(cmd, flat, n, c, argv[optind - 1]);
		if (store(cmd, f->opt, optarg, (char *)opts + f->offset)) {
			cli_hint(cmd);
			return EXIT_ERROR;
		}
	}
	return count_operands(cmd, help, argc, argv);
}

/* Writes text from column col on, wrapped at HELP_WIDTH, continued at HELP_COLUMN. */
static void wrap(FILE *out, const char *text, int col)
{
	while (*text) {
		size_t word = strcspn(text, " ");

		if (col > HELP_COLUMN && col + 1 + (int)word > HELP_WIDTH) {
			fprintf(out, "\n%*s", HELP_COLUMN, "");
			col = HELP_COLUMN;
		} else if (col > HELP_COLUMN) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)word, text);
		col += (int)word;
		text += word;
		text += strspn(text, " ");
	}
}

static void option_help(FILE *out, const struct cli_option *o)
{
	int col;

	if (o->heading)
		fprintf(out, "%s\n", o->heading);
	col = fprintf(out, "  %c%c%s--%s%s%s", o->short_name ? '-' : ' ',
		      o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ",
		      o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
	if (o->help && *o->help) {
		if (col >= HELP_COLUMN) {
			fputc('\n', out);
			col = 0;
		}
		fprintf(out, "%*s", HELP_COLUMN - col, "");
		wrap(out, o->help, HELP_COLUMN);
	}
	fputc('\n', out);
}

static void options_help(FILE *out, const struct cli_option *table)
{
	for (; table->kind != CLI_OPTION_END; table++) {
		if (table->kind != CLI_OPTION_GROUP) {
			option_help(out, table);
			continue;
		}
		if (table->heading)
			fprintf(out, "%s\n", table->heading);
		options_help(out, table->group);
	}
}

void cli_usage(const char *cmd, const struct cli_help *help, FILE *out)
{
	static const struct cli_option help_option = {
	    .short_name = 'h', .long_name = "help", .help = "this text", .kind = CLI_OPTION_FLAG};

	fprintf(out, "usage: wperf-bench %s %s\n\n%s\noptions:\n", cmd, help->synopsis,
		help->description);
	options_help(out, help->options);
	option_help(out, &help_option);
	if (help->notes)
		fprintf(out, "\n%s", help->notes);
	if (help->exit_status)
		fprintf(out, "\nExit status: %s", help->exit_status);
}
