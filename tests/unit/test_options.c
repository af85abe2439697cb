/* SPDX-License-Identifier: MIT */
/*
 * Option tables (harness/cli/options.h): what cli_parse stores where, what it
 * refuses, the --help it writes; and a child recorder's command line
 * (recording_argv) read back by record's own table as the options it came from.
 */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/cli/cli.h"
#include "harness/record/bpf_recorder.h"
#include "harness/record/recording.h"

struct inner {
	const char *name;
	int on;
};

struct sample {
	int flag;
	const char *file;
	unsigned count;
	double share;
	uint64_t bytes;
	struct inner inner;
};

static const struct cli_option inner_options[] = {
    {'n', "name", "NAME", "a name", CLI_STRING(struct inner, name)},
    {0, "on", NULL, "switched on", CLI_FLAG(struct inner, on)},
    {0},
};

static const struct cli_option sample_options[] = {
    {'f', "flag", NULL, "a flag", CLI_FLAG(struct sample, flag)},
    {'o', "output", "FILE",
     "where it goes, with a help text long enough that it has to be wrapped onto a second "
     "line and a third one, each no wider than the terminal's eighty columns (default: none)",
     CLI_STRING(struct sample, file)},
    {0, "count", "N", "how many", CLI_COUNT(struct sample, count, 2, 9)},
    {0, "share", "F", "a share", CLI_NUMBER(struct sample, share, 0, 1)},
    {0, "bytes", "B", "bytes", CLI_PARSE(struct sample, bytes, cli_parse_u64), .min = 1,
     .max = 1e12},
    {CLI_GROUP(struct sample, inner, inner_options), .heading = "inner options:"},
    {0},
};

static const struct cli_help sample_help = {
    .synopsis = "[OPTIONS] THING",
    .description = "Does a sample thing.\n",
    .options = sample_options,
    .exit_status = "0 done, 2 error.\n",
    .min_operands = 1,
    .max_operands = 1,
};

static int parse(struct sample *s, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(s, 0, sizeof(*s));
	return cli_parse("sample", &sample_help, argc, argv, s);
}

static void values_go_where_the_table_says(void **state)
{
	char *argv[] = {"sample",  "-f",   "-o", "out",	  "--count", "7",     "--share", "0.25",
			"--bytes", "4096", "-n", "inner", "--on",    "thing", NULL};
	struct sample s;

	(void)state;
	assert_int_equal(parse(&s, argv), -1);
	assert_int_equal(s.flag, 1);
	assert_string_equal(s.file, "out");
	assert_int_equal(s.count, 7);
	assert_true(s.share == 0.25);
	assert_true(s.bytes == 4096);
	assert_string_equal(s.inner.name, "inner");
	assert_int_equal(s.inner.on, 1);
	assert_string_equal(argv[optind], "thing");
}

static void bad_values_and_operands_are_usage_errors(void **state)
{
	char *count[] = {"sample", "--count", "10", "thing", NULL};
	char *share[] = {"sample", "--share", "1.5", "thing", NULL};
	char *unknown[] = {"sample", "--no-such", "thing", NULL};
	char *missing[] = {"sample", "--count", NULL};
	char *none[] = {"sample", "-f", NULL};
	char *two[] = {"sample", "a", "b", NULL};
	char *help[] = {"sample", "--help", NULL};
	struct sample s;

	(void)state;
	assert_int_equal(parse(&s, count), EXIT_ERROR);
	assert_int_equal(s.count, 0);
	assert_int_equal(parse(&s, share), EXIT_ERROR);
	assert_int_equal(parse(&s, unknown), EXIT_ERROR);
	assert_int_equal(parse(&s, missing), EXIT_ERROR);
	assert_int_equal(parse(&s, none), EXIT_ERROR);
	assert_int_equal(parse(&s, two), EXIT_ERROR);
	assert_int_equal(parse(&s, help), EXIT_OK);
}

static char *usage_text(const struct cli_help *help)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	cli_usage("sample", help, f);
	fclose(f);
	return text;
}

static void help_is_written_from_the_table(void **state)
{
	char *text = usage_text(&sample_help);
	const char *line;

	(void)state;
	assert_non_null(strstr(text, "usage: wperf-bench sample [OPTIONS] THING\n\n"
				     "Does a sample thing.\n\noptions:\n"
				     "  -f, --flag              a flag\n"));
	assert_non_null(strstr(text, "      --count N           how many\n"));
	assert_non_null(strstr(text, "inner options:\n  -n, --name NAME         a name\n"));
	assert_non_null(strstr(text, "  -h, --help              this text\n"));
	assert_non_null(strstr(text, "\nExit status: 0 done, 2 error.\n"));
	/* the long help wraps at a word, within 80 columns, indented to its column */
	assert_non_null(strstr(
	    text,
	    "  -o, --output FILE       where it goes, with a help text long enough that it\n"
	    "                          has to be wrapped onto a second line and a third one,\n"
	    "                          each no wider than the terminal's eighty columns\n"
	    "                          (default: none)\n"));
	for (line = text; *line; line += strcspn(line, "\n") + 1)
		assert_true(strcspn(line, "\n") <= 80);
	free(text);
}

/* Options unlike the defaults, through a command line and back. */
static void a_child_recorder_reads_back_its_options(void **state)
{
	struct record_opts o, back;
	struct recording_argv child;
	int argc = 0;

	(void)state;
	recording_opts_init(&o);
	o.output = "/tmp/x.trace";
	o.duration = 2.5;
	o.stack_mode = RECORD_STACKS_KERNEL;
	o.ringbuf_mb = 4;
	o.stack_entries = 1024;
	o.compress = 0;
	o.quiet = 1;
	o.ready_file = "/tmp/ready";
	o.hold = 1;
	o.harness_pids = "1,2";
	o.target = "fig1";
	assert_int_equal(recording_add_pids(&o, "10,20"), 0);
	recording_argv(&o, "wperf-bench", &child);
	assert_string_equal(child.argv[0], "wperf-bench");
	assert_string_equal(child.argv[1], "record");
	while (child.argv[argc])
		argc++;
	recording_opts_init(&back);
	assert_int_equal(cli_parse("record", &cli_record_help, argc - 1, child.argv + 1, &back),
			 -1);
	assert_int_equal(optind, argc - 1); /* no operand: no COMMAND */
	assert_string_equal(back.output, o.output);
	assert_true(back.duration == o.duration);
	assert_int_equal(back.stack_mode, o.stack_mode);
	assert_int_equal(back.ringbuf_mb, o.ringbuf_mb);
	assert_int_equal(back.stack_entries, o.stack_entries);
	assert_int_equal(back.compress, 0);
	assert_int_equal(back.quiet, 1);
	assert_string_equal(back.ready_file, o.ready_file);
	assert_int_equal(back.hold, 1);
	assert_string_equal(back.harness_pids, o.harness_pids);
	assert_string_equal(back.target, o.target);
	assert_int_equal(back.npids, 2);
	assert_int_equal(back.pids[0], 10);
	assert_int_equal(back.pids[1], 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(values_go_where_the_table_says),
	    cmocka_unit_test(bad_values_and_operands_are_usage_errors),
	    cmocka_unit_test(help_is_written_from_the_table),
	    cmocka_unit_test(a_child_recorder_reads_back_its_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
