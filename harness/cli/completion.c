/* SPDX-License-Identifier: MIT */
/*
 * Shell completion from the commands' tables: the commands, each command's
 * options, and files for what an option or operand names (a TRACE, a
 * SCENARIO, a DIR). `make completion` writes the scripts with
 * `wperf-bench help --completion bash|zsh`.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/help.h"

/* What a word of a synopsis or an option's argument names. */
enum completion_kind {
	COMPLETE_NOTHING, /* a number, a name: nothing to offer */
	COMPLETE_FILE,
	COMPLETE_TRACE,	   /* *.trace files */
	COMPLETE_SCENARIO, /* *.yaml files, and folders of them */
	COMPLETE_DIR,
	COMPLETE_COMMAND, /* a program to run (record -- COMMAND) */
};

static enum completion_kind kind_of(const char *word)
{
	if (!word)
		return COMPLETE_NOTHING;
	if (strstr(word, "TRACE"))
		return COMPLETE_TRACE;
	if (strstr(word, "SCENARIO"))
		return COMPLETE_SCENARIO;
	if (strstr(word, "DIR") || strstr(word, "RESULTS") || strstr(word, "FOLDER"))
		return COMPLETE_DIR;
	if (strstr(word, "FILE"))
		return COMPLETE_FILE;
	if (strstr(word, "COMMAND"))
		return COMPLETE_COMMAND;
	return COMPLETE_NOTHING;
}

/* What each shell's script does to complete a word of each kind (bash's ":"
 * nothing). */
static const struct {
	const char *bash, *zsh;
} actions[] = {
    [COMPLETE_NOTHING] = {":", " "},
    [COMPLETE_FILE] = {"_wperf_bench_files", "_files"},
    [COMPLETE_TRACE] = {"_wperf_bench_files '*.trace'", "_files -g \"*.trace\""},
    [COMPLETE_SCENARIO] = {"_wperf_bench_files '*.y*ml'", "_files -g \"*.y*ml\""},
    [COMPLETE_DIR] = {"_wperf_bench_dirs", "_files -/"},
    [COMPLETE_COMMAND] = {"_wperf_bench_commands", "_command_names -e"},
};

/* The operands' kind: the synopsis's last word ("TRACE", "[SCENARIO|DIR...]",
 * "[ARGS...]]" after "-- COMMAND"). */
static enum completion_kind operand_kind(const struct cli_help *help)
{
	if (help->stop_at_operand)
		return COMPLETE_COMMAND;
	if (help->max_operands == 0)
		return COMPLETE_NOTHING;
	return kind_of(strrchr(help->synopsis, ' ') ? strrchr(help->synopsis, ' ')
						    : help->synopsis);
}

/* Every option of table, its groups unfolded, to fn. */
static void each_option(const struct cli_option *table, FILE *out,
			void (*fn)(FILE *out, const struct cli_option *o))
{
	for (; table->kind != CLI_OPTION_END; table++)
		if (table->kind == CLI_OPTION_GROUP)
			each_option(table->group, out, fn);
		else
			fn(out, table);
}

/* ---- bash ---- */

static void bash_word(FILE *out, const struct cli_option *o)
{
	if (o->short_name)
		fprintf(out, " -%c", o->short_name);
	fprintf(out, " --%s", o->long_name);
}

/* The case of an option argument's completion: "--output|-o) ACTION". */
static void bash_argument(FILE *out, const struct cli_option *o)
{
	if (!o->arg)
		return;
	fprintf(out, "\t\t--%s", o->long_name);
	if (o->short_name)
		fprintf(out, "|-%c", o->short_name);
	fprintf(out, ") %s; return ;;\n", actions[kind_of(o->arg)].bash);
}

static const char bash_head[] =
    "# bash completion for wperf-bench, written by 'wperf-bench help --completion bash'\n"
    "\n"
    "_wperf_bench_files() {\n"
    "\tcompopt -o filenames 2>/dev/null\n"
    "\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n"
    "\tif [ -n \"${1-}\" ]; then\n"
    "\t\tCOMPREPLY+=($(compgen -f -X \"!$1\" -- \"$cur\"))\n"
    "\telse\n"
    "\t\tCOMPREPLY+=($(compgen -f -- \"$cur\"))\n"
    "\tfi\n"
    "}\n"
    "\n"
    "_wperf_bench_commands() {\n"
    "\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
    "}\n"
    "\n"
    "_wperf_bench_dirs() {\n"
    "\tcompopt -o filenames 2>/dev/null\n"
    "\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n"
    "}\n"
    "\n"
    "_wperf_bench() {\n"
    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
    "\tlocal cmd=${COMP_WORDS[1]} options= operands=\n"
    "\tCOMPREPLY=()\n"
    "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
    "\t\tCOMPREPLY=($(compgen -W \"";

static void bash_command(FILE *out, const struct cli_command *cmd)
{
	fprintf(out, "\t%s)\n\t\tcase $prev in\n", cmd->name);
	each_option(cmd->help->options, out, bash_argument);
	fprintf(out, "\t\tesac\n\t\toptions=\"--help -h");
	each_option(cmd->help->options, out, bash_word);
	fprintf(out, "\"\n\t\toperands=\"%s\" ;;\n", actions[operand_kind(cmd->help)].bash);
}

static void bash(FILE *out)
{
	fputs(bash_head, out);
	for (size_t i = 0; cli_commands[i].name; i++)
		fprintf(out, "%s ", cli_commands[i].name);
	fputs("help --help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $cmd in\n", out);
	for (size_t i = 0; cli_commands[i].name; i++)
		bash_command(out, &cli_commands[i]);
	fputs("\thelp) COMPREPLY=($(compgen -W \"", out);
	for (size_t i = 0; cli_commands[i].name; i++)
		fprintf(out, "%s ", cli_commands[i].name);
	fputs("--man --completion\" -- \"$cur\")); return ;;\n"
	      "\t*) return ;;\n"
	      "\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\teval \"$operands\"\n"
	      "\tfi\n"
	      "}\n"
	      "\n"
	      "complete -F _wperf_bench wperf-bench\n",
	      out);
}

/* ---- zsh ---- */

/* Text for a zsh spec between single quotes (a quote closes, escapes and
 * reopens them): no bracket, cut at the end of the help's first clause. */
static void zsh_text(FILE *out, const char *s)
{
	const char *paren = strstr(s, " (");
	size_t len = strcspn(s, ";");

	if (paren && (size_t)(paren - s) < len)
		len = (size_t)(paren - s);

	if (len > 70)
		len = 70;
	while (len && s[len - 1] == ' ')
		len--;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\'')
			fputs("'\\''", out);
		else if (!strchr("[]\\", s[i]))
			fputc(s[i], out);
}

static void zsh_spec(FILE *out, const struct cli_option *o, const char *name)
{
	fprintf(out, " \\\n\t\t'%s[", name);
	zsh_text(out, o->help ? o->help : "");
	fputs("]", out);
	if (o->arg) {
		fputs(":", out);
		zsh_text(out, o->arg);
		fprintf(out, ":%s", actions[kind_of(o->arg)].zsh);
	}
	fputs("'", out);
}

static void zsh_option(FILE *out, const struct cli_option *o)
{
	char name[64];

	if (o->short_name) {
		snprintf(name, sizeof(name), "-%c", o->short_name);
		zsh_spec(out, o, name);
	}
	snprintf(name, sizeof(name), "--%s", o->long_name);
	zsh_spec(out, o, name);
}

static void zsh(FILE *out)
{
	fputs("#compdef wperf-bench\n"
	      "# zsh completion for wperf-bench, written by 'wperf-bench help --completion zsh'\n"
	      "\n"
	      "_wperf-bench() {\n"
	      "\tlocal -a commands\n"
	      "\tcommands=(\n",
	      out);
	for (size_t i = 0; cli_commands[i].name; i++) {
		fprintf(out, "\t\t'%s:", cli_commands[i].name);
		zsh_text(out, cli_commands[i].help->summary);
		fputs("'\n", out);
	}
	fputs("\t)\n"
	      "\tif (( CURRENT == 2 )); then\n"
	      "\t\t_describe 'command' commands\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tlocal cmd=$words[2]\n"
	      "\tshift words\n"
	      "\t(( CURRENT-- ))\n"
	      "\tcase $cmd in\n",
	      out);
	for (size_t i = 0; cli_commands[i].name; i++) {
		const struct cli_command *cmd = &cli_commands[i];
		enum completion_kind k = operand_kind(cmd->help);

		fprintf(out, "\t%s)\n\t\t_arguments -s '(- *)'{-h,--help}'[the usage]'", cmd->name);
		each_option(cmd->help->options, out, zsh_option);
		if (k != COMPLETE_NOTHING)
			fprintf(out, " \\\n\t\t'*:%s:%s'", cmd->name, actions[k].zsh);
		fputs(" ;;\n", out);
	}
	fputs("\tesac\n}\n\n_wperf-bench \"$@\"\n", out);
}

int cli_completion(const char *shell, FILE *out)
{
	if (!strcmp(shell, "bash"))
		bash(out);
	else if (!strcmp(shell, "zsh"))
		zsh(out);
	else
		return -1;
	return 0;
}
