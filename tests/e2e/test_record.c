/* SPDX-License-Identifier: MIT */
/*
 * End-to-end tests of `wperf-bench record`: real programs, real kernel events,
 * and answers known in advance.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/analysis/analysis.h"
#include "core/report/report.h"
#include "core/analysis/symbolize.h"
#include "core/trace/meta.h"
#include "core/trace/thread_table.h"
#include "tests/lib/e2e.h"

#define PINGPONG_ROUNDS 2000
/* 80 interfaces: more than the 64 META entries the recorder once had room for
 * (a CI host with containers has dozens of veth pairs). */
#define VETH_PAIRS   40
#define REQ_OP_WRITE 1

static struct wperf_trace *record(const char *name, char *const command[], struct e2e_output *o)
{
	char trace[512];
	char *argv[32] = {(char *)e2e_path("wperf-bench"), "record", "-q", "-o", trace, "--"};
	struct wperf_trace *t = NULL;
	struct wperf_error err = {0};
	size_t n = 6;

	snprintf(trace, sizeof(trace), "%s/%s.trace", e2e_tmpdir(), name);
	for (size_t i = 0; command[i] && n < 31; i++)
		argv[n++] = command[i];
	argv[n] = NULL;
	e2e_run(argv, -1, o);
	if (o->status != 0)
		fail_msg("wperf-bench record exited %d: %s", o->status, o->err);
	if (wperf_trace_open(trace, &t, &err) < 0)
		fail_msg("%s", err.msg);
	return t;
}

/* The kernel's count of a thread's voluntary switches, printed by the program. */
static long voluntary_switches(const char *out, const char *name)
{
	char pattern[64];
	const char *p;

	snprintf(pattern, sizeof(pattern), "thread %s voluntary_switches ", name);
	p = strstr(out, pattern);
	assert_non_null(p);
	return strtol(p + strlen(pattern), NULL, 10);
}

/*
 * ping and pong hand a turn to each other on one CPU. Every time one of them
 * blocks, the recording must show it (as many blocks as the kernel counted for
 * the thread itself), and the wakeup that ends the block must name the other
 * one as the waker. Waking the partner may preempt the waker before it sleeps,
 * so not every turn is a block; but on one CPU one of them blocks in every round.
 */
static void test_pingpong_wakeups(void **state)
{
	char rounds[16];
	char *cmd[] = {(char *)e2e_path("synthetic/pingpong"), "--pin", "0", "-n", rounds, NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	struct wperf_thread_table tt = {0};
	size_t n, ping_by_pong = 0, pong_by_ping = 0, ping_blocks = 0, pong_blocks = 0;
	size_t ping_by_other = 0, pong_by_other = 0, exits = 0, out_of_order = 0;

	(void)state;
	e2e_require_bpf();
	snprintf(rounds, sizeof(rounds), "%d", PINGPONG_ROUNDS);
	struct wperf_trace *t = record("pingpong", cmd, o);
	uint32_t ping = e2e_thread_tid(o->out, "ping"), pong = e2e_thread_tid(o->out, "pong");
	long ping_nvcsw = voluntary_switches(o->out, "ping");
	long pong_nvcsw = voluntary_switches(o->out, "pong");
	struct wperf_event *ev = e2e_events(t, &n);

	assert_true(ping && pong);
	assert_int_equal(wperf_thread_table_init(&tt, t), 0);
	for (size_t i = 0; i < n; i++) {
		const struct wperf_event *e = &ev[i];

		wperf_thread_table_apply(&tt, e);
		out_of_order += i > 0 && e->hdr.ts < ev[i - 1].hdr.ts;
		exits += e->hdr.kind == WPERF_EV_EXIT && (e->hdr.tid == ping || e->hdr.tid == pong);
		if (e->hdr.kind == WPERF_EV_WAKEUP && e->hdr.flags == WPERF_CTX_THREAD) {
			ping_by_pong += e->hdr.tid == ping && e->wake.waker_tid == pong;
			pong_by_ping += e->hdr.tid == pong && e->wake.waker_tid == ping;
			ping_by_other += e->hdr.tid == ping && e->wake.waker_tid != pong;
			pong_by_other += e->hdr.tid == pong && e->wake.waker_tid != ping;
		}
		if (e->hdr.kind == WPERF_EV_SWITCH && !(e->hdr.flags & WPERF_SWITCH_PREEMPTED)) {
			ping_blocks += e->hdr.tid == ping;
			pong_blocks += e->hdr.tid == pong;
		}
	}
	print_message("ping: blocked %zu (kernel: %ld), woken by pong %zu; pong: blocked %zu "
		      "(kernel: %ld), woken by ping %zu\n",
		      ping_blocks, ping_nvcsw, ping_by_pong, pong_blocks, pong_nvcsw, pong_by_ping);
	assert_int_equal(wperf_trace_stats(t)->lost[0] + wperf_trace_stats(t)->lost[1], 0);
	/* The CPUs hand their records over in batches, which the writer merges back
	 * into time order; the threads' exits are among the last records of CPU 0,
	 * still staged there until the flush after the programs are detached. */
	assert_int_equal(out_of_order, 0);
	assert_int_equal(exits, 2);
	/* Printing the count itself may block once more after it was read. */
	assert_in_range(ping_blocks, ping_nvcsw, ping_nvcsw + 2);
	assert_in_range(pong_blocks, pong_nvcsw, pong_nvcsw + 2);
	assert_true(ping_blocks + pong_blocks >= PINGPONG_ROUNDS);
	/* Each block ends with a wakeup by the partner but the last and a few at
	 * the edges: pinning itself (the kernel's migration thread wakes it), the
	 * start barrier, the main thread's lock and its final broadcast. */
	assert_in_range(ping_by_other, 0, 4);
	assert_in_range(pong_by_other, 0, 4);
	assert_true(ping_by_pong + ping_by_other + 1 >= ping_blocks);
	assert_true(pong_by_ping + pong_by_other + 1 >= pong_blocks);
	assert_true(ping_by_pong + pong_by_ping >= PINGPONG_ROUNDS);
	assert_string_equal(wperf_thread_table_name(&tt, ping), "ping");
	assert_string_equal(wperf_thread_table_name(&tt, pong), "pong");
	assert_int_equal(wperf_thread_table_find(&tt, ping)->tgid,
			 wperf_thread_table_find(&tt, pong)->tgid);
	wperf_thread_table_release(&tt);
	free(ev);
	wperf_trace_free(t);
	free(o);
}

/* Figure 1 of the paper: B issues the writes, the disk's completion (an
 * interrupt, not a thread) wakes B, and B blocks inside fsync. */
static void test_fig1_disk(void **state)
{
	char file[512];
	char *cmd[] = {(char *)e2e_path("synthetic/fig1"),
		       "-d",
		       "2",
		       "--write-bytes",
		       "65536",
		       "--file",
		       file,
		       NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	size_t n, nmaps, b_writes = 0, b_woken_by_disk = 0, b_blocked_in_fsync = 0;
	int32_t disk_irqs[16];
	size_t ndisk_irqs = 0;
	int fig1_mapped = 0;
	uint32_t b_tgid = 0;

	(void)state;
	e2e_require_bpf();
	snprintf(file, sizeof(file), "%s/fig1.data", e2e_tmpdir());
	struct wperf_trace *t = record("fig1", cmd, o);
	uint32_t b = e2e_thread_tid(o->out, "B");
	struct wperf_event *ev = e2e_events(t, &n);
	const struct wperf_mapping *maps = wperf_trace_mappings(t, &nmaps);

	assert_true(b != 0);
	/* The hard interrupts that complete block requests belong to a disk. */
	for (size_t i = 0; i < n; i++)
		if (ev[i].hdr.kind == WPERF_EV_BLOCK_COMPLETE &&
		    ev[i].hdr.flags == WPERF_CTX_HARDIRQ && ndisk_irqs < 16)
			disk_irqs[ndisk_irqs++] = ev[i].block.irq;
	for (size_t i = 0; i < n; i++) {
		const struct wperf_event *e = &ev[i];

		if (e->hdr.tid == b)
			b_tgid = e->hdr.tgid;
		if (e->hdr.kind == WPERF_EV_BLOCK_ISSUE && e->hdr.tid == b &&
		    (e->block.op & 0xff) == REQ_OP_WRITE)
			b_writes++;
		if (e->hdr.kind == WPERF_EV_WAKEUP && e->hdr.tid == b) {
			int by_disk =
			    e->hdr.flags == WPERF_CTX_SOFTIRQ && e->wake.irq == WPERF_SOFTIRQ_BLOCK;

			for (size_t k = 0; k < ndisk_irqs; k++)
				by_disk |= e->hdr.flags == WPERF_CTX_HARDIRQ &&
					   e->wake.irq == disk_irqs[k];
			b_woken_by_disk += by_disk;
			/* Never the thread the interrupt happened to interrupt. */
			if (e->hdr.flags != WPERF_CTX_THREAD)
				assert_int_equal(e->wake.waker_tid, 0);
		}
		if (e->hdr.kind == WPERF_EV_SWITCH && e->hdr.tid == b &&
		    !(e->hdr.flags & WPERF_SWITCH_PREEMPTED) &&
		    e2e_kstack_has(t, e->sw.kstack, "fsync"))
			b_blocked_in_fsync++;
	}
	for (size_t i = 0; i < nmaps; i++)
		fig1_mapped |= maps[i].tgid == b_tgid && strstr(maps[i].path, "/fig1") &&
			       maps[i].build_id_len == 20;
	print_message("B: %zu writes issued, woken by the disk %zu times, blocked in fsync %zu "
		      "times\n",
		      b_writes, b_woken_by_disk, b_blocked_in_fsync);
	assert_true(b_writes > 0);
	assert_true(b_woken_by_disk > 0);
	assert_true(b_blocked_in_fsync > 0);
	assert_true(fig1_mapped); /* the executable, with its build id, for symbolization */
	free(ev);
	wperf_trace_free(t);
	free(o);
}

/* The USDT annotations arrive with the right threads, as many as the program
 * made, on the kernel's clock: a buyer's false_wakeup comes after the wakeup
 * that woke it and after it was switched in. */
static void test_usdt_annotations(void **state)
{
	char *cmd[] = {(char *)e2e_path("synthetic/annotated"), NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	size_t n, before = 0, after = 0, falses = 0, ordered = 0;
	unsigned spins = 0, false_wakeups = 0;

	(void)state;
	e2e_require_bpf();
	struct wperf_trace *t = record("annotated", cmd, o);
	uint32_t holder = e2e_thread_tid(o->out, "holder"),
		 spinner = e2e_thread_tid(o->out, "spinner");
	uint32_t buyer1 = e2e_thread_tid(o->out, "buyer1"),
		 buyer2 = e2e_thread_tid(o->out, "buyer2");
	struct wperf_event *ev = e2e_events(t, &n);
	const char *summary = strstr(o->out, "spins: ");

	assert_non_null(summary);
	assert_int_equal(sscanf(summary, "spins: %u false_wakeups: %u", &spins, &false_wakeups), 2);
	assert_int_equal(wperf_trace_stats(t)->late_events, 0);
	for (size_t i = 0; i < n; i++) {
		const struct wperf_event *e = &ev[i];
		uint64_t woken = 0, switched_in = 0;

		if (i > 0)
			assert_true(e->hdr.ts >= ev[i - 1].hdr.ts); /* one clock, one order */
		if (e->hdr.kind == WPERF_EV_SPIN_BEFORE || e->hdr.kind == WPERF_EV_SPIN_AFTER) {
			assert_true(e->hdr.tid == holder || e->hdr.tid == spinner);
			assert_int_not_equal(e->usdt.lock, 0);
			before += e->hdr.kind == WPERF_EV_SPIN_BEFORE;
			after += e->hdr.kind == WPERF_EV_SPIN_AFTER;
		}
		if (e->hdr.kind != WPERF_EV_FALSE_WAKEUP)
			continue;
		assert_true(e->hdr.tid == buyer1 || e->hdr.tid == buyer2);
		falses++;
		for (size_t j = i; j-- > 0;) {
			if (!switched_in && ev[j].hdr.kind == WPERF_EV_SWITCH &&
			    ev[j].sw.next_tid == e->hdr.tid)
				switched_in = ev[j].hdr.ts;
			if (ev[j].hdr.kind == WPERF_EV_WAKEUP && ev[j].hdr.tid == e->hdr.tid) {
				woken = ev[j].hdr.ts;
				break;
			}
		}
		ordered += woken && switched_in && woken <= switched_in && switched_in <= e->hdr.ts;
	}
	print_message("spins %u (recorded before %zu, after %zu), false wakeups %u (recorded %zu, "
		      "%zu after their wakeup and switch-in)\n",
		      spins, before, after, false_wakeups, falses, ordered);
	assert_int_equal(before, spins);
	assert_int_equal(after, spins);
	assert_int_equal(falses, false_wakeups);
	assert_true(ordered * 10 >= falses * 9); /* a spurious futex wake may lack a wakeup */
	free(ev);
	wperf_trace_free(t);
	free(o);
}

/*
 * A script is recorded as any command is (issue 27): it is no ELF binary, so
 * it has no USDT probes to attach, which a warning says, and the annotated
 * program it starts is recorded with its probes when named with --usdt.
 * Before, record refused it ("cannot attach USDT probe wperf:before_spin of
 * ./s.sh: Bad file descriptor", exit 2).
 */
static void test_script_command(void **state)
{
	char script[1024], trace[512], usdt[512];
	struct e2e_output *o = calloc(1, sizeof(*o));
	struct wperf_trace *t = NULL;
	struct wperf_error err = {0};
	struct wperf_event *ev;
	size_t n, spins = 0;

	(void)state;
	e2e_require_bpf();
	snprintf(script, sizeof(script), "%s", e2e_tmp_path("bench.sh"));
	snprintf(trace, sizeof(trace), "%s", e2e_tmp_path("script.trace"));
	snprintf(usdt, sizeof(usdt), "%s", e2e_path("synthetic/annotated"));
	{
		char text[1200];

		snprintf(text, sizeof(text), "#!/bin/sh\nexec %s\n", usdt);
		e2e_write_file(script, text);
	}
	assert_int_equal(chmod(script, 0755), 0);
	e2e_bench(o, "record", "-o", trace, "--usdt", usdt, "--", script, NULL);
	if (o->status != 0)
		fail_msg("wperf-bench record exited %d: %s", o->status, o->err);
	assert_non_null(strstr(o->err, "is no ELF binary (a script?)"));
	assert_non_null(strstr(o->err, "--usdt PROGRAM"));
	if (wperf_trace_open(trace, &t, &err) < 0)
		fail_msg("%s", err.msg);
	ev = e2e_events(t, &n);
	for (size_t i = 0; i < n; i++)
		spins += ev[i].hdr.kind == WPERF_EV_SPIN_BEFORE;
	assert_true(spins > 0);
	free(ev);
	wperf_trace_free(t);
	free(o);
}

/*
 * The report of a recorded script is about everything the script started
 * (issue 27): a shell script runs fig1 as its child, the way people start a
 * server and its load (fig1 as its scenario runs it: O_DIRECT writes of 4 MiB,
 * so that B and the disk form the knot whatever the page cache does), and the
 * report's default target is the script and its descendants, so it finds
 * fig1's knot (B and the disk). Before, the target was the script's own pid:
 * "0 knots bound the throughput".
 */
static void test_script_tree(void **state)
{
	char script[1024], trace[512], text[1200];
	struct e2e_output *o = calloc(1, sizeof(*o));

	(void)state;
	e2e_require_bpf();
	snprintf(script, sizeof(script), "%s", e2e_tmp_path("tree.sh"));
	snprintf(trace, sizeof(trace), "%s", e2e_tmp_path("tree.trace"));
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n%s --duration 2 --direct --write-bytes 4194304 --file %s > "
		 "/dev/null\necho done\n",
		 e2e_path("synthetic/fig1"), e2e_tmp_path("tree.data"));
	e2e_write_file(script, text);
	assert_int_equal(chmod(script, 0755), 0);
	e2e_bench(o, "record", "-q", "-o", trace, "--", script, NULL);
	if (o->status != 0)
		fail_msg("wperf-bench record exited %d: %s", o->status, o->err);
	e2e_bench(o, "report", trace, NULL);
	if (o->status != 0)
		fail_msg("wperf-bench report exited %d: %s", o->status, o->err);
	/* the script and fig1 at least (a shell may fork more) */
	if (!strstr(o->out, " processes, ") || !strstr(o->out, "1 knot bounds") ||
	    !strstr(o->out, "disk:") || !strstr(o->out, "fig1/B"))
		fail_msg("the report of the script does not find fig1's knot:\n%s", o->out);
	free(o);
}

static int has_mapping(const struct wperf_mapping *maps, size_t n, uint32_t tgid, const char *file)
{
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(maps[i].path, '/');

		if (maps[i].tgid == tgid && base && !strcmp(base + 1, file) &&
		    maps[i].build_id_len == 20)
			return 1;
	}
	return 0;
}

/* Processes that live for a millisecond still get their mappings, with build
 * ids, into the trace: the kernel reports each mapping as it is made. */
static void test_shortlived_mappings(void **state)
{
	char *cmd[] = {"/bin/sh", "-c", "for i in 1 2 3 4 5; do /bin/true; done", NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	size_t n, nmaps, execs = 0, mapped = 0;

	(void)state;
	e2e_require_bpf();
	struct wperf_trace *t = record("shortlived", cmd, o);
	struct wperf_event *ev = e2e_events(t, &n);
	const struct wperf_mapping *maps = wperf_trace_mappings(t, &nmaps);

	for (size_t i = 0; i < n; i++) {
		if (ev[i].hdr.kind != WPERF_EV_EXEC || strcmp(ev[i].name.comm, "true"))
			continue;
		execs++;
		mapped += has_mapping(maps, nmaps, ev[i].hdr.tgid, "true") &&
			  has_mapping(maps, nmaps, ev[i].hdr.tgid, "libc.so.6");
	}
	print_message("%zu runs of true, %zu with their executable and libc mapped\n", execs,
		      mapped);
	assert_int_equal(execs, 5);
	assert_int_equal(mapped, 5);
	free(ev);
	wperf_trace_free(t);
	free(o);
}

/* A shell running script, started by the test (its child). */
static pid_t start_shell(const char *script)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", script, NULL);
		_exit(127);
	}
	return pid;
}

/* record -p target for 2 s into e2e_tmpdir()/name, which must succeed: the
 * trace. */
static struct wperf_trace *record_pid(pid_t target, const char *name)
{
	char trace[512], pidarg[16];
	char *argv[] = {(char *)e2e_path("wperf-bench"),
			"record",
			"-q",
			"-o",
			trace,
			"-p",
			pidarg,
			"-d",
			"2",
			NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	struct wperf_trace *t = NULL;
	struct wperf_error err = {0};

	assert_non_null(o);
	snprintf(trace, sizeof(trace), "%s/%s", e2e_tmpdir(), name);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)target);
	e2e_run(argv, -1, o);
	if (o->status != 0)
		fail_msg("wperf-bench record -p exited %d: %s", o->status, o->err);
	free(o);
	if (wperf_trace_open(trace, &t, &err) < 0)
		fail_msg("%s", err.msg);
	return t;
}

/* -p narrows the recording to a process and its children, those it had and
 * those it starts: every switch and wakeup involves them, and the children's
 * programs are in. */
static void test_pid_filter(void **state)
{
	size_t n, children = 0, switches = 0, foreign = 0;
	struct wperf_trace *t;
	pid_t target;
	int status;

	(void)state;
	e2e_require_bpf();
	target = start_shell("sleep 0.7; for i in 1 2 3; do /bin/true; done; sleep 2");
	t = record_pid(target, "pid.trace");
	kill(target, SIGKILL);
	waitpid(target, &status, 0);
	struct wperf_event *ev = e2e_events(t, &n);
	struct wperf_thread_table tt = {0};

	/* The target and every process it forks, as the trace itself tells: the
	 * children it had when the recording started (the THREADS table's
	 * parents), then those the FORK events add. */
	uint32_t family[64] = {(uint32_t)target};
	size_t nfamily = 1, nth;
	const struct wperf_thread *th = wperf_trace_threads(t, &nth);

	for (size_t i = 0; i < nth && nfamily < 64; i++)
		if (th[i].ppid == (uint32_t)target && th[i].tid == th[i].tgid)
			family[nfamily++] = th[i].tgid;
	assert_int_equal(wperf_thread_table_init(&tt, t), 0);
	for (size_t i = 0; i < n; i++) {
		const struct wperf_event *e = &ev[i];
		int in = 0, other = 0;

		if (e->hdr.kind == WPERF_EV_FORK && nfamily < 64)
			family[nfamily++] = e->fork.child_tgid;
		children += e->hdr.kind == WPERF_EV_EXEC && !strcmp(e->name.comm, "true");
		if (e->hdr.kind != WPERF_EV_SWITCH)
			continue;
		switches++;
		for (size_t k = 0; k < nfamily; k++) {
			in |= e->hdr.tgid == family[k];
			other |= e->sw.next_tgid == family[k];
		}
		foreign += !in && !other;
	}
	print_message("%zu switches, %zu not involving the target's family; %zu children ran "
		      "true\n",
		      switches, foreign, children);
	assert_true(switches > 0);
	assert_int_equal(foreign, 0);
	assert_int_equal(children, 3);
	wperf_thread_table_release(&tt);
	free(ev);
	wperf_trace_free(t);
}

/* The children pid had when /proc was read, as its children file lists them
 * ("" when none yet), into buf. */
static void children_of(pid_t pid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f && !fgets(buf, (int)size, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
}

/*
 * -p follows the children a service started before the recording (issue 27):
 * the target, a shell, has already forked a subshell when the recording
 * starts; the subshell then runs /bin/true three times. Every one is in the
 * trace. Before, only children forked after the start were followed, and the
 * subshell's work was missing.
 */
static void test_pid_follows_earlier_children(void **state)
{
	char kids[256] = "";
	struct wperf_trace *t;
	struct wperf_event *ev;
	size_t n, trues = 0;
	pid_t target;
	int status;

	(void)state;
	e2e_require_bpf();
	target = start_shell("(sleep 0.8; for i in 1 2 3; do /bin/true; done) & wait");
	for (int i = 0; i < 200 && !kids[0]; i++) {
		usleep(10000);
		children_of(target, kids, sizeof(kids));
	}
	assert_true(kids[0] != '\0'); /* the subshell is there before the recording */
	t = record_pid(target, "earlier.trace");
	waitpid(target, &status, 0); /* done after the subshell, 0.8 s in */
	ev = e2e_events(t, &n);
	for (size_t i = 0; i < n; i++)
		trues += ev[i].hdr.kind == WPERF_EV_EXEC && !strcmp(ev[i].name.comm, "true");
	assert_int_equal(trues, 3);
	free(ev);
	wperf_trace_free(t);
}

/* Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup, or
 * /sys/fs/cgroup/unified on a hybrid machine), into dir; 0, or -1 when none. */
static int cgroup2_mount(char *dir, size_t size)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[1024], where[512], type[64];
	int found = -1;

	while (f && found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %511s %63s", where, type) == 2 && !strcmp(type, "cgroup2")) {
			snprintf(dir, size, "%s", where);
			found = 0;
		}
	if (f)
		fclose(f);
	return found;
}

/*
 * --target cgroup:PATH on a live recording (issue 27): fig1 runs in a control
 * group of its own, made by the test, and the whole machine is recorded (no
 * command, no --pid). The report on cgroup:/GROUP finds fig1's knot, B and the
 * disk; a group with no process is an error that says so.
 */
static void test_target_cgroup(void **state)
{
	char mount[512], group[700], procs[800], trace[512], target[128], pid[16];
	struct e2e_output *o = calloc(1, sizeof(*o));
	pid_t child;
	int status;

	(void)state;
	e2e_require_bpf();
	if (cgroup2_mount(mount, sizeof(mount)))
		fail_msg("no cgroup2 hierarchy is mounted (/proc/mounts)");
	snprintf(target, sizeof(target), "cgroup:/wperf-e2e-%d", (int)getpid());
	snprintf(group, sizeof(group), "%s/wperf-e2e-%d", mount, (int)getpid());
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", group);
	snprintf(trace, sizeof(trace), "%s/cgroup.trace", e2e_tmpdir());
	if (mkdir(group, 0755) && errno != EEXIST)
		fail_msg("mkdir %s: %s", group, strerror(errno));
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		FILE *f = fopen(procs, "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
			_exit(126);
		execl(e2e_path("synthetic/fig1"), "fig1", "--duration", "4", "--direct",
		      "--write-bytes", "4194304", "--file", e2e_tmp_path("cgroup.data"), NULL);
		_exit(127);
	}
	usleep(300000); /* in its group, and started */
	e2e_bench(o, "record", "-q", "-o", trace, "-d", "2", NULL);
	waitpid(child, &status, 0);
	rmdir(group);
	if (o->status != 0)
		fail_msg("wperf-bench record exited %d: %s", o->status, o->err);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	e2e_bench(o, "report", "--target", target, trace, NULL);
	if (o->status != 0 || !strstr(o->out, "1 knot bounds") || !strstr(o->out, "fig1/B") ||
	    !strstr(o->out, "disk:"))
		fail_msg("report --target %s (exit %d) does not find fig1's knot:\n%s%s", target,
			 o->status, o->out, o->err);
	snprintf(pid, sizeof(pid), "%d", (int)child);
	assert_non_null(strstr(o->out, pid)); /* the target's processes are named */
	e2e_bench(o, "report", "--target", "cgroup:/wperf-no-such-group", trace, NULL);
	assert_int_equal(o->status, 2);
	assert_non_null(strstr(o->err, "no process was in that control group"));
	free(o);
}

/* --stacks decides which stacks are taken: none at all, or kernel ones only. */
static void test_stacks_policy(void **state)
{
	static const char *const modes[] = {"none", "kernel"};

	(void)state;
	e2e_require_bpf();
	for (size_t m = 0; m < 2; m++) {
		char trace[512];
		char *argv[] = {(char *)e2e_path("wperf-bench"),
				"record",
				"-q",
				"-o",
				trace,
				"--stacks",
				(char *)modes[m],
				"--",
				(char *)e2e_path("synthetic/pingpong"),
				"-n",
				"500",
				NULL};
		struct e2e_output *o = calloc(1, sizeof(*o));
		struct wperf_trace *t = NULL;
		struct wperf_error err = {0};
		size_t n, nstacks, kstacks = 0, ustacks = 0;

		snprintf(trace, sizeof(trace), "%s/stacks-%s.trace", e2e_tmpdir(), modes[m]);
		e2e_run(argv, -1, o);
		assert_int_equal(o->status, 0);
		if (wperf_trace_open(trace, &t, &err) < 0)
			fail_msg("%s", err.msg);
		struct wperf_event *ev = e2e_events(t, &n);

		for (size_t i = 0; i < n; i++) {
			if (ev[i].hdr.kind == WPERF_EV_SWITCH) {
				kstacks += ev[i].sw.kstack >= 0;
				ustacks += ev[i].sw.ustack >= 0;
			} else if (ev[i].hdr.kind == WPERF_EV_WAKEUP) {
				kstacks += ev[i].wake.kstack >= 0;
				ustacks += ev[i].wake.ustack >= 0;
			}
		}
		wperf_trace_stacks(t, &nstacks);
		print_message("--stacks %s: %zu kernel, %zu user stack references, %zu stacks\n",
			      modes[m], kstacks, ustacks, nstacks);
		assert_int_equal(ustacks, 0);
		if (m == 0) {
			assert_int_equal(kstacks, 0);
			assert_int_equal(nstacks, 0);
		} else {
			assert_true(kstacks > 0);
			assert_true(nstacks > 0);
		}
		free(ev);
		wperf_trace_free(t);
		free(o);
	}
}

/* The identity of the vertex of thread tid in analysis a ("" if none). */
static const char *vertex_of_tid(const struct wperf_analysis *a, uint32_t tid)
{
	for (size_t e = 0; e < a->timeline->nentities; e++)
		if (a->timeline->entities[e].tid == tid &&
		    a->timeline->entities[e].kind == WPERF_ENTITY_THREAD)
			return a->merged.vertices[a->merged.vertex_of[e]].identity;
	return "";
}

/*
 * Of the user stacks thread tid blocked with, how many name function (set in
 * *named) and how many there are (returned).
 */
static unsigned blocking_stacks(const struct wperf_trace *t, uint32_t tid, const char *function,
				unsigned *named)
{
	struct wperf_event_iter *it = NULL;
	struct wperf_symbolizer *sym = NULL;
	struct wperf_error err = {0};
	struct wperf_event ev;
	unsigned n = 0;
	char buf[2048];
	int r;

	if (wperf_event_iter_new(t, &it, &err) < 0 || wperf_symbolizer_new(t, &sym, &err) < 0)
		fail_msg("%s", err.msg);
	*named = 0;
	while ((r = wperf_event_iter_next(it, &ev, &err)) > 0) {
		if (ev.hdr.kind != WPERF_EV_SWITCH || ev.hdr.tid != tid ||
		    ev.sw.ustack == WPERF_NO_STACK)
			continue;
		wperf_symbolize_stack(sym, ev.sw.ustack, 1, ev.hdr.tgid, " <- ", 0, buf,
				      sizeof(buf));
		n++;
		*named += strstr(buf, function) != NULL;
	}
	if (r < 0)
		fail_msg("%s", err.msg);
	wperf_symbolizer_free(sym);
	wperf_event_iter_free(it);
	return n;
}

/*
 * Two pools of unnamed threads in one process (synthetic/pools: every thread
 * is "pools"), each running its own code: the loaders' two threads are one
 * vertex, the handlers' two another, each named by its own function, and the
 * handlers' lock is the knot. By name alone they were all one vertex.
 */
static void test_unnamed_pools_apart(void **state)
{
	char *cmd[] = {(char *)e2e_path("synthetic/pools"), "-d", "2", NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};
	unsigned loaders = 0, handlers = 0, tid;
	int knot = 0;

	(void)state;
	e2e_require_bpf();
	struct wperf_trace *t = record("pools", cmd, o);

	if (wperf_analyze(t, NULL, &a, &err) < 0)
		fail_msg("%s", err.msg);
	for (const char *p = o->out; (p = strstr(p, "thread ")); p++) {
		char pool[16];

		if (sscanf(p, "thread %15s tid %u", pool, &tid) != 2)
			continue;
		print_message("%s %u: %s\n", pool, tid, vertex_of_tid(a, tid));
		if (!strcmp(pool, "loader")) {
			unsigned named, n = blocking_stacks(t, tid, "a_worker", &named);

			/* a loader blocks in glibc, built without frame pointers, called
			 * from a_worker: the recorder recovers the frames the kernel's
			 * walk loses there (bpf/stack_caller.bpf.h); without it, almost
			 * none named a_worker */
			print_message("loader %u: %u of %u blocking stacks name a_worker\n", tid,
				      named, n);
			assert_true(n > 100);
			assert_true(named * 10 >= n * 9);
			assert_string_equal(vertex_of_tid(a, tid), "pools@a_worker");
			loaders++;
		} else {
			assert_string_equal(vertex_of_tid(a, tid), "pools@b_worker");
			handlers++;
		}
	}
	assert_int_equal(loaders, 2);
	assert_int_equal(handlers, 2);
	for (size_t k = 0; k < a->knots.nfinal; k++) {
		const struct wperf_knot *kn = &a->knots.knots[k];

		knot += kn->kind == WPERF_KNOT && kn->nvertices == 1 &&
			!strcmp(a->merged.vertices[kn->vertices[0]].identity, "pools@b_worker");
	}
	assert_int_equal(knot, 1);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	free(o);
}

/* A line of checks c about thread tid, of kind. */
static const struct wperf_checks_line *thread_line(const struct wperf_checks *c, unsigned kind,
						   uint32_t tid)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->lines[i].kind == kind && c->lines[i].tid == tid)
			return &c->lines[i];
	fail_msg("no %s line of thread %u", wperf_check_kind_name(kind), tid);
	return NULL;
}

/*
 * A CPU-bound program (synthetic/sink: a producer on the CPU all the time,
 * consumers waiting for it) recorded with the kernel's counters: they are in
 * the trace, plausible, and every check of the program's threads agrees. The
 * producer exits before the window ends: its schedstat comes from its EXIT
 * event, and the time it ran agrees with the model's within 1% (and a tick:
 * the kernel counts a running thread as of its last tick).
 */
static void test_counters_and_checks(void **state)
{
	char *cmd[] = {(char *)e2e_path("synthetic/sink"), "--duration", "2", NULL};
	struct e2e_output *o = calloc(1, sizeof(*o));
	struct wperf_analysis *a = NULL;
	struct wperf_error err = {0};
	const struct wperf_counters *c0, *c1;
	const struct wperf_checks_line *run;
	uint64_t tick, exit_run = 0;
	size_t n, threads = 0;
	const char *pid;

	(void)state;
	e2e_require_bpf();
	struct wperf_trace *t = record("checks", cmd, o);
	uint32_t producer = e2e_thread_tid(o->out, "producer");
	struct wperf_event *ev = e2e_events(t, &n);

	assert_true(producer > 0);
	c0 = wperf_trace_counters(t, WPERF_COUNTERS_START);
	c1 = wperf_trace_counters(t, WPERF_COUNTERS_END);
	assert_non_null(c0);
	assert_non_null(c1);
	assert_true(c0->flags & WPERF_COUNTERS_WHOLE_MACHINE);
	assert_int_equal(c1->ncpus, sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(c1->user_hz, sysconf(_SC_CLK_TCK));
	assert_true(c0->nthreads > 0 && c1->nthreads > 0);
	assert_true(c0->ts >= wperf_trace_stats(t)->start_ts);
	assert_true(c1->ts <= wperf_trace_stats(t)->end_ts);
	for (size_t i = 0; i < n; i++)
		if (ev[i].hdr.kind == WPERF_EV_EXIT && ev[i].hdr.tid == producer) {
			assert_true(ev[i].hdr.flags & WPERF_EXIT_SCHEDSTAT);
			exit_run = ev[i].exit.run_ns;
		}
	/* it ran most of the 2 s (a CPU of the two) */
	assert_true(exit_run > 1000000000ull);

	if (wperf_analyze(t, NULL, &a, &err))
		fail_msg("%s", err.msg);
	pid = wperf_trace_meta(t, WPERF_META_COMMAND_PID);
	assert_true(a->checks.have_counters);
	run = thread_line(&a->checks, WPERF_CHECK_THREAD_RUN, producer);
	tick = 1000000000ull / (c1->hz ? c1->hz : 100);
	print_message("producer: ran %.6f s by the model, %.6f s by the kernel; the hypervisor "
		      "stole %.6f s of the CPUs\n",
		      run->model / 1e9, run->kernel / 1e9, a->checks.steal_ns / 1e9);
	assert_true(run->kernel == exit_run);
	/* The kernel's running time leaves out what the hypervisor stole from the
	 * CPU (its clock for tasks skips steal); the trace's clock cannot. */
	assert_true((uint64_t)llabs(run->diff) <= run->kernel / 100 + tick + a->checks.steal_ns);
	for (size_t i = 0; i < a->checks.n; i++) {
		const struct wperf_checks_line *l = &a->checks.lines[i];

		/* running time: runnable time on this VM is off where the CPU's events
		 * were lost (PID 1's threads), which the thread's wait line shows */
		if (l->kind != WPERF_CHECK_THREAD_RUN ||
		    !wperf_analysis_is_target(pid, l->tgid, l->process))
			continue;
		threads++;
		if (l->status != WPERF_CHECK_OK)
			fail_msg("%s %s: model %llu, kernel %llu, tolerance %llu",
				 wperf_check_kind_name(l->kind), l->subject,
				 (unsigned long long)l->model, (unsigned long long)l->kernel,
				 (unsigned long long)l->tolerance);
	}
	/* main, the producer and two consumers */
	assert_int_equal(threads, 4);
	wperf_analysis_free(a);
	free(ev);
	wperf_trace_free(t);
	free(o);
}

static int delete_veths(void **state)
{
	(void)state;
	e2e_shell("for i in $(seq %d); do ip link del wpv$i-a 2>/dev/null; done; true", VETH_PAIRS);
	return 0;
}

/*
 * Every network interface is named in the trace's META (net.IFINDEX.name), so
 * that its waits have a name however many the machine has. The oracle:
 * /sys/class/net, each interface's ifindex.
 */
static void test_every_interface_named(void **state)
{
	struct e2e_output *o = calloc(1, sizeof(*o));
	char *const command[] = {"true", NULL};
	struct wperf_buf ifindex = {0};
	struct wperf_trace *t;
	struct dirent *de;
	DIR *d;
	int n = 0;

	(void)state;
	e2e_require_bpf();
	e2e_shell("for i in $(seq %d); do ip link add wpv$i-a type veth peer name wpv$i-b || "
		  "exit 1; done",
		  VETH_PAIRS);
	t = record("interfaces", command, o);
	assert_non_null(d = opendir("/sys/class/net"));
	while ((de = readdir(d))) {
		char path[300], key[64];
		const char *name;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", de->d_name);
		e2e_read_file(path, &ifindex);
		snprintf(key, sizeof(key), WPERF_META_NET_NAME("d"),
			 atoi((const char *)ifindex.data));
		name = wperf_trace_meta(t, key);
		if (!name || strcmp(name, de->d_name))
			fail_msg("%s is %s, not %s", key, name ? name : "missing", de->d_name);
		n++;
	}
	closedir(d);
	assert_true(n >= 2 * VETH_PAIRS);
	wperf_buf_release(&ifindex);
	wperf_trace_free(t);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pingpong_wakeups),
	    cmocka_unit_test(test_fig1_disk),
	    cmocka_unit_test(test_usdt_annotations),
	    cmocka_unit_test(test_script_command),
	    cmocka_unit_test(test_script_tree),
	    cmocka_unit_test(test_shortlived_mappings),
	    cmocka_unit_test(test_pid_filter),
	    cmocka_unit_test(test_pid_follows_earlier_children),
	    cmocka_unit_test(test_target_cgroup),
	    cmocka_unit_test(test_stacks_policy),
	    cmocka_unit_test(test_unnamed_pools_apart),
	    cmocka_unit_test(test_counters_and_checks),
	    cmocka_unit_test_teardown(test_every_interface_named, delete_veths),
	};

	return cmocka_run_group_tests_name("record (end to end)", tests, NULL, NULL);
}
