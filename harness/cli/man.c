/* SPDX-License-Identifier: MIT */
/*
 * Man pages in roff (man(7)) from the commands' tables: wperf-bench(1) lists
 * the commands, wperf-bench-NAME(1) is a command's --help laid out as a page.
 * `make man` writes them with `wperf-bench help --man [NAME]`.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/help.h"

/* Text escaped for roff: backslashes and dashes; a slash may end a line, so
 * that a long path or URL fits the page. */
static void roff_escape(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\')
			fputs("\\e", out);
		else if (s[i] == '-')
			fputs("\\-", out);
		else if (s[i] == '/')
			fputs("/\\:", out);
		else
			fputc(s[i], out);
	}
}

/* One line of text, escaped, and a leading dot or quote that roff would take
 * for a request made plain. */
static void roff_line(FILE *out, const char *s, size_t len)
{
	if (len && (*s == '.' || *s == '\''))
		fputs("\\&", out);
	roff_escape(out, s, len);
	fputc('\n', out);
}

/*
 * Text laid out as --help lays it out: lines of a paragraph joined by roff, a
 * blank line a new paragraph, indented lines (a table, an example) kept as
 * they are.
 */
static void roff_text(FILE *out, const char *text)
{
	int literal = 0;

	while (*text) {
		size_t len = strcspn(text, "\n");
		int indented = *text == ' ';

		if (indented != literal)
			fputs(indented ? ".nf\n" : ".fi\n", out);
		literal = indented;
		if (len == 0)
			fputs(".PP\n", out);
		else
			roff_line(out, text, len);
		text += len + (text[len] == '\n');
	}
	if (literal)
		fputs(".fi\n", out);
}

/* ".TH WPERF-BENCH-NAME 1 ...": the page's title, upper-cased. */
static void title(FILE *out, const char *page)
{
	fputs(".TH ", out);
	for (; *page; page++)
		fputs(*page == '-' ? "\\-" : (char[]){(char)toupper((unsigned char)*page), 0}, out);
	fprintf(out, " 1 \"\" \"wperf-bench %s\" \"wperf-bench manual\"\n", WPERF_VERSION);
}

static void option_item(FILE *out, const struct cli_option *o)
{
	fputs(".TP\n", out);
	if (o->short_name)
		fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
	fputs("\\fB\\-\\-", out);
	roff_escape(out, o->long_name, strlen(o->long_name));
	fputs("\\fR", out);
	if (o->arg) {
		fputs(" \\fI", out);
		roff_escape(out, o->arg, strlen(o->arg));
		fputs("\\fR", out);
	}
	fputc('\n', out);
	if (o->help && *o->help)
		roff_line(out, o->help, strlen(o->help));
}

static void option_items(FILE *out, const struct cli_option *table)
{
	for (; table->kind != CLI_OPTION_END; table++) {
		if (table->heading) {
			fputs(".TP 0\n.I ", out);
			roff_line(out, table->heading, strlen(table->heading));
		}
		if (table->kind == CLI_OPTION_GROUP)
			option_items(out, table->group);
		else
			option_item(out, table);
	}
}

static void see_also(FILE *out, const struct cli_command *except)
{
	int first = 1;

	fputs(".SH SEE ALSO\n", out);
	if (except) {
		fputs(".BR wperf\\-bench (1)", out);
		first = 0;
	}
	for (size_t i = 0; cli_commands[i].name; i++) {
		if (&cli_commands[i] == except)
			continue;
		fprintf(out, "%s.BR wperf\\-bench\\-%s (1)", first ? "" : ",\n",
			cli_commands[i].name);
		first = 0;
	}
	fputc('\n', out);
}

void cli_man_page(const struct cli_command *cmd, FILE *out)
{
	static const struct cli_option help = {.short_name = 'h',
					       .long_name = "help",
					       .help = "the command's usage (what this page says)",
					       .kind = CLI_OPTION_FLAG};
	char page[64];

	snprintf(page, sizeof(page), "wperf-bench-%s", cmd->name);
	title(out, page);
	fprintf(out, ".SH NAME\nwperf\\-bench\\-%s \\- ", cmd->name);
	roff_line(out, cmd->help->summary, strlen(cmd->help->summary));
	fprintf(out, ".SH SYNOPSIS\n.B wperf\\-bench %s\n", cmd->name);
	roff_line(out, cmd->help->synopsis, strlen(cmd->help->synopsis));
	fputs(".SH DESCRIPTION\n", out);
	roff_text(out, cmd->help->description);
	fputs(".SH OPTIONS\n", out);
	option_items(out, cmd->help->options);
	option_item(out, &help);
	if (cmd->help->notes) {
		fputs(".SH NOTES\n", out);
		roff_text(out, cmd->help->notes);
	}
	if (cmd->help->examples) {
		fputs(".SH EXAMPLES\n", out);
		roff_text(out, cmd->help->examples);
	}
	if (cmd->help->exit_status) {
		fputs(".SH EXIT STATUS\n", out);
		roff_text(out, cmd->help->exit_status);
	}
	see_also(out, cmd);
}

void cli_man_program(FILE *out)
{
	title(out, "wperf-bench");
	fputs(".SH NAME\nwperf\\-bench \\- find the waits that cap a multi\\-threaded program's "
	      "throughput\n.SH SYNOPSIS\n.B wperf\\-bench\n.I COMMAND\n[OPTIONS]\n"
	      ".SH DESCRIPTION\n",
	      out);
	roff_text(
	    out, "wperf-bench records every scheduling, wakeup, interrupt, disk and network event\n"
		 "of the machine with BPF, builds wPerf's wait-for graph of the recording, and\n"
		 "finds its knots: the groups of threads and devices that bound the throughput.\n"
		 "It runs scenarios (services, load, recording, analysis) and gates pull\n"
		 "requests on their results against a baseline or a base commit.\n"
		 "\n"
		 "'wperf-bench COMMAND --help' or 'wperf-bench help COMMAND' describes a command;\n"
		 "each has its page, wperf-bench-COMMAND(1).\n");
	fputs(".SH COMMANDS\n", out);
	for (size_t i = 0; cli_commands[i].name; i++) {
		fprintf(out, ".TP\n.B %s\n", cli_commands[i].name);
		roff_line(out, cli_commands[i].help->summary,
			  strlen(cli_commands[i].help->summary));
	}
	fputs(".SH EXIT STATUS\n0 success, 1 the gate failed, 2 error (a usage error among "
	      "them: one line saying what was wrong, then where to read more).\n",
	      out);
	see_also(out, NULL);
}
