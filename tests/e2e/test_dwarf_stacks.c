/* SPDX-License-Identifier: MIT */
/*
 * End-to-end: `record --stacks dwarf` on a program built without frame
 * pointers (tests/data/unwind/chain.c, -O2 -fomit-frame-pointer, as Debian
 * builds its packages). Its reader thread blocks in read() three calls deep;
 * the frame-pointer walk loses the callers there, the copied stack unwound with
 * the binary's call frame information must give them all, in order, in the
 * folded stacks and the JSON report.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/lib/e2e.h"

/* Records the chain program with stacks mode, into its folded stacks. */
static void record_chain(const char *bin, const char *mode, struct wperf_buf *folded,
			 struct wperf_buf *info)
{
	char trace[512], out[512];
	struct e2e_output *o = calloc(1, sizeof(*o));

	assert_non_null(o);
	snprintf(trace, sizeof(trace), "%s/chain-%s.trace", e2e_tmpdir(), mode);
	snprintf(out, sizeof(out), "%s/chain-%s.folded", e2e_tmpdir(), mode);
	e2e_bench(o, "record", "-q", "--stacks", mode, "-o", trace, "--", bin, NULL);
	if (o->status != 0)
		fail_msg("record --stacks %s exited %d: %s", mode, o->status, o->err);
	e2e_bench(o, "report", "-f", "folded", "-o", out, trace, NULL);
	assert_int_equal(o->status, 0);
	e2e_read_file(out, folded);
	if (info) {
		e2e_bench(o, "info", trace, NULL);
		assert_int_equal(o->status, 0);
		wperf_buf_append_str(info, o->out);
	}
	free(o);
}

/* The line of folded that holds the reader's whole chain, outermost first, or NULL. */
static const char *whole_chain(const struct wperf_buf *folded)
{
	static const char *const chain[] = {
	    ";start_thread_(",	    ";reader_(chain.c:",      ";stage_one_(chain.c:",
	    ";stage_two_(chain.c:", ";stage_three_(chain.c:", ";read_("};
	const char *line = (const char *)folded->data;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *at = line;
		size_t i = 0;

		while (i < sizeof(chain) / sizeof(*chain) && (at = strstr(at, chain[i])) &&
		       (!end || at < end))
			i++;
		if (i == sizeof(chain) / sizeof(*chain))
			return line;
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

static void test_dwarf_unwinds_without_frame_pointers(void **state)
{
	const char *bin = e2e_tmp_path("chain");
	struct wperf_buf walked = {0}, unwound = {0}, info = {0};

	(void)state;
	e2e_require_bpf();
	e2e_shell("gcc -O2 -g -fomit-frame-pointer -pthread -o '%s' tests/data/unwind/chain.c",
		  bin);
	record_chain(bin, "dwarf", &unwound, &info);
	if (!whole_chain(&unwound))
		fail_msg("no stack with start_thread, reader, stage_one, stage_two, stage_three "
			 "and read, in order, in the folded stacks of --stacks dwarf:\n%.*s",
			 (int)unwound.len, (const char *)unwound.data);
	if (!strstr((const char *)info.data, "stacks: dwarf"))
		fail_msg("info does not say the stacks were copied:\n%s", (const char *)info.data);
	/* What the frame-pointer walk made of the same program: shown, not judged
	 * (a later kernel or compiler may walk it further). */
	record_chain(bin, "all", &walked, NULL);
	print_message("--stacks all %s the reader's whole chain\n",
		      whole_chain(&walked) ? "also finds" : "does not find");
	wperf_buf_release(&walked);
	wperf_buf_release(&unwound);
	wperf_buf_release(&info);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dwarf_unwinds_without_frame_pointers),
	};

	return cmocka_run_group_tests_name("user stacks unwound from copies (end to end)", tests,
					   NULL, NULL);
}
