/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the checks of the model against the kernel's counters
 * (core/analysis/checks.h): hand-made traces (tests/lib/trace_builder.h) with COUNTERS
 * sections, whose lines are checked to the nanosecond and byte.
 *
 * The window is [1 s, 11 s): 10 s. Threads 101 ("A"), 102 ("B"), 103 ("C")
 * and 104 ("D") belong to process 100 ("app"). The kernel ticks at 250 Hz and
 * /proc/stat counts in 1/100 s.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/analysis/analysis.h"
#include "core/analysis/checks.h"
#include "core/report/report.h"
#include "core/analysis/timeline.h"
#include "core/trace/trace.h"
#include "tests/lib/trace_builder.h"

#define MS   1000000ull
#define SEC  (1000 * MS)
#define APP  100
#define A    101
#define B    102
#define C    103
#define D    104
#define DISK ((8u << 20) | 0) /* sda */

/* One reading of the counters, with the arrays it points to. */
struct reading {
	uint64_t disk[11], nic[16], cpu[2][10];
	struct wperf_disk_counters disks[1];
	struct wperf_nic_counters nics[1];
	struct wperf_cpu_counters cpus[2];
	struct wperf_thread_counters threads[4];
	struct wperf_counters c;
};

/*
 * A reading at ts: sda busy io_ticks ms, lo's bytes both ways, each CPU's
 * idle ticks, and the threads given.
 */
static void reading(struct reading *r, unsigned when, uint64_t ts, uint64_t io_ticks,
		    uint64_t lo_bytes, uint64_t idle0, uint64_t idle1,
		    const struct wperf_thread_counters *threads, size_t nthreads)
{
	memset(r, 0, sizeof(*r));
	r->disk[WPERF_DISK_IO_TICKS] = io_ticks;
	r->disks[0] = (struct wperf_disk_counters){8, 0, "sda", 11, r->disk};
	r->nic[WPERF_NIC_RX_BYTES] = r->nic[WPERF_NIC_TX_BYTES] = lo_bytes;
	r->nics[0] = (struct wperf_nic_counters){1, 772, "lo", 16, r->nic};
	r->cpu[0][WPERF_CPU_IDLE] = idle0;
	r->cpu[1][WPERF_CPU_IDLE] = idle1;
	for (uint32_t cpu = 0; cpu < 2; cpu++)
		r->cpus[cpu] = (struct wperf_cpu_counters){cpu, 10, r->cpu[cpu]};
	if (nthreads)
		memcpy(r->threads, threads, nthreads * sizeof(*threads));
	r->c = (struct wperf_counters){
	    .when = when,
	    .flags = WPERF_COUNTERS_WHOLE_MACHINE,
	    .hz = 250,
	    .user_hz = 100,
	    .irq_time = WPERF_IRQ_TIME_IN_THREAD,
	    .ts = ts,
	    .disks = r->disks,
	    .ndisks = 1,
	    .nics = r->nics,
	    .nnics = 1,
	    .cpus = r->cpus,
	    .ncpus = 2,
	    .threads = r->threads,
	    .nthreads = nthreads,
	};
}

static void new_trace(struct trace_builder *tr)
{
	tb_init(tr, 1 * SEC, 11 * SEC);
	tb_thread(tr, APP, APP, "app");
	tb_thread(tr, A, APP, "A");
	tb_thread(tr, B, APP, "B");
	tb_thread(tr, D, APP, "D");
	tb_tgid(tr, C, APP);
}

/*
 * The recording of every check family:
 *  cpu0: idle until A comes at 2 s; A forks C at 2.5 s, issues a read of sda
 *        at 2.2 s (done at 4.2 s: 2 s busy) and sends two packets on lo; A
 *        blocks at 3 s; B's interrupt at 3.01 s shows B there, though the
 *        chain has the idle task: a break, B ran since 3 s; B blocks at 5 s.
 *  cpu1: idle until C comes at 4 s; C exits at 4.5 s (its schedstat read
 *        then) and leaves at 4.6 s; D switches out at 8 s though the chain
 *        has the idle task since 4.6 s: a break found 3.4 s late.
 */
static void record(struct trace_builder *tr)
{
	struct wperf_event *ev;

	tb_switch(tr, 2 * SEC, 0, 0, A, 1, -1, -1);
	tb_block(tr, WPERF_EV_BLOCK_ISSUE, 2200 * MS, 0, A, WPERF_CTX_THREAD, 0, DISK, 8, 4096);
	tb_net(tr, WPERF_EV_NET_XMIT, 2300 * MS, 0, A, WPERF_CTX_THREAD, 1, 74);
	tb_net(tr, WPERF_EV_NET_RECV, 2301 * MS, 0, A, WPERF_CTX_SOFTIRQ, 1, 60);
	tb_net(tr, WPERF_EV_NET_XMIT, 2400 * MS, 0, A, WPERF_CTX_THREAD, 1, 74);
	tb_net(tr, WPERF_EV_NET_RECV, 2401 * MS, 0, A, WPERF_CTX_SOFTIRQ, 1, 60);
	ev = tb_add(tr, WPERF_EV_FORK, 2500 * MS, 0, A);
	ev->fork.child_tid = C;
	ev->fork.child_tgid = APP;
	strcpy(ev->fork.comm, "C");
	tb_switch(tr, 3 * SEC, 0, A, 0, 0, -1, -1);
	tb_irq(tr, WPERF_EV_HARDIRQ_ENTRY, 3010 * MS, 0, B, 40);
	tb_irq(tr, WPERF_EV_HARDIRQ_EXIT, 3020 * MS, 0, B, 40);
	tb_switch(tr, 4 * SEC, 1, 0, C, 1, -1, -1);
	tb_block(tr, WPERF_EV_BLOCK_COMPLETE, 4200 * MS, 1, C, WPERF_CTX_HARDIRQ, 40, DISK, 8,
		 4096);
	ev = tb_add(tr, WPERF_EV_EXIT, 4500 * MS, 1, C);
	ev->hdr.flags = WPERF_EXIT_SCHEDSTAT;
	ev->exit = (struct wperf_exit){500 * MS, 1500 * MS, 1};
	tb_switch(tr, 4600 * MS, 1, C, 0, 0, -1, -1);
	tb_switch(tr, 5 * SEC, 0, B, 0, 0, -1, -1);
	tb_switch(tr, 8 * SEC, 1, D, 0, 0, -1, -1);
}

/* The line of kind about subject (its start), or a failure. */
static const struct wperf_checks_line *line(const struct wperf_checks *c, unsigned kind,
					    const char *subject)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->lines[i].kind == kind &&
		    !strncmp(c->lines[i].subject, subject, strlen(subject)))
			return &c->lines[i];
	fail_msg("no %s line of %s", wperf_check_kind_name(kind), subject);
	return NULL;
}

static void line_is(const struct wperf_checks *c, unsigned kind, const char *subject,
		    uint64_t model, uint64_t kernel, uint64_t tolerance, int status)
{
	const struct wperf_checks_line *l = line(c, kind, subject);

	if (l->model != model || l->kernel != kernel || l->tolerance != tolerance ||
	    l->diff != (int64_t)(model - kernel) || l->status != status)
		fail_msg("%s %s: model %llu kernel %llu diff %lld tolerance %llu %s; want %llu "
			 "%llu %llu %s",
			 wperf_check_kind_name(kind), l->subject, (unsigned long long)l->model,
			 (unsigned long long)l->kernel, (long long)l->diff,
			 (unsigned long long)l->tolerance, l->status ? "WARN" : "OK",
			 (unsigned long long)model, (unsigned long long)kernel,
			 (unsigned long long)tolerance, status ? "WARN" : "OK");
}

/* The checks of the trace tr makes, with the timeline built as the analysis
 * builds it. */
static void checks_of(struct trace_builder *tr, struct wperf_checks *out)
{
	struct wperf_trace *t = tb_open(tr);
	struct wperf_timeline *tl;
	struct wperf_error err = {0};

	if (wperf_timeline_build(t, NULL, &tl, &err) ||
	    wperf_checks_compute(tl, wperf_trace_counters(t, WPERF_COUNTERS_START),
				 wperf_trace_counters(t, WPERF_COUNTERS_END), NULL, out, &err))
		fail_msg("%s", err.msg);
	wperf_timeline_free(tl);
	wperf_trace_free(t);
}

/*
 * The checks of record()'s trace, with the counters that agree with it but for
 * A's running time at the end, a_run. The threads: A, B read at both ends; C
 * born in the window and read at its exit; D not read. sda busy 2 s (io_ticks
 * in ms); lo 2 packets of 60 bytes (74 with their header, which loopback does
 * not count); cpu0 idle 1 + 6 s, cpu1 3 + 3 s.
 */
static void record_checks_steal(struct trace_builder *tr, uint64_t a_run, uint64_t steal_ticks,
				struct wperf_checks *c)
{
	const struct wperf_thread_counters threads_start[] = {
	    {A, APP, 1 * SEC, 7 * SEC, 3 * SEC, 40},
	    {B, APP, 1 * SEC, 1 * SEC, 1 * SEC, 10},
	};
	const struct wperf_thread_counters threads_end[] = {
	    {A, APP, 11 * SEC - 1 * MS, a_run, 4 * SEC, 41},
	    {B, APP, 11 * SEC - 1 * MS, 3 * SEC, 3 * SEC, 11}, /* ran 2 s since the break */
	};
	struct reading r0, r1;

	new_trace(tr);
	record(tr);
	reading(&r0, WPERF_COUNTERS_START, 1 * SEC, 10000, 5000, 1000, 2000, threads_start, 2);
	reading(&r1, WPERF_COUNTERS_END, 11 * SEC - 1 * MS, 12000, 5120, 1700, 2600, threads_end,
		2);
	r1.cpu[0][WPERF_CPU_STEAL] = steal_ticks;
	tb_counters(tr, &r0.c, &r1.c);
	checks_of(tr, c);
}

/* The same, the hypervisor stealing nothing. */
static void record_checks(struct trace_builder *tr, uint64_t a_run, struct wperf_checks *c)
{
	record_checks_steal(tr, a_run, 0, c);
}

/* The whole recording: disk, NIC, threads and CPUs as the model has them,
 * every line to the unit. */
static void test_every_family(void **state)
{
	struct trace_builder tr;
	struct wperf_checks c;

	(void)state;
	record_checks(&tr, 8 * SEC, &c); /* A ran 1 s */
	assert_true(c.have_counters);
	assert_true(c.cpus_checked);
	assert_int_equal(c.irq_time, WPERF_IRQ_TIME_IN_THREAD);
	line_is(&c, WPERF_CHECK_DISK_BUSY, "disk:8:0 sda", 2 * SEC, 2 * SEC, 300 * MS,
		WPERF_CHECK_OK);
	line_is(&c, WPERF_CHECK_NIC_TX, "nic:lo", 120, 120, 1, WPERF_CHECK_OK);
	line_is(&c, WPERF_CHECK_NIC_RX, "nic:lo", 120, 120, 1, WPERF_CHECK_OK);
	/* A: runnable [1, 2) (ended at its switch-in), running [2, 3); not on a
	 * CPU at either reading. Tolerance: 1% of 1 s, and 0.1% of the window. */
	line_is(&c, WPERF_CHECK_THREAD_RUN, "app/A 101", 1 * SEC, 1 * SEC, 10 * MS, WPERF_CHECK_OK);
	line_is(&c, WPERF_CHECK_THREAD_WAIT, "app/A 101", 1 * SEC, 1 * SEC, 10 * MS + 2000,
		WPERF_CHECK_OK);
	line_is(&c, WPERF_CHECK_THREAD_SLICES, "app/A 101", 1, 1, 0, WPERF_CHECK_OK);
	/* B: came at the break, on cpu0 since 3 s, until 5 s; its interrupt's
	 * 10 ms counted as its own, as the kernel does. The break's switch lies
	 * in the 10 ms before the interrupt showed B: that much more tolerance */
	line_is(&c, WPERF_CHECK_THREAD_RUN, "app/B 102", 2 * SEC, 2 * SEC, 20 * MS + 10 * MS,
		WPERF_CHECK_OK);
	assert_int_equal(c.irq_in_threads_ns, 10 * MS);
	/* C: born at 2.5 s, runnable until 4 s, running until its exit at 4.5 s,
	 * read then, on its CPU: its count may lag by a tick (4 ms) */
	line_is(&c, WPERF_CHECK_THREAD_RUN, "app/C 103", 500 * MS, 500 * MS, 10 * MS,
		WPERF_CHECK_OK);
	line_is(&c, WPERF_CHECK_THREAD_WAIT, "app/C 103", 1500 * MS, 1500 * MS, 15 * MS + 2000,
		WPERF_CHECK_OK);
	/* D was not read at the start */
	assert_int_equal(c.threads_unread, 1);
	/* cpu0: idle [1, 2) and [5, 11); cpu1: [1, 4), the break's 0 s, and [8, 11) */
	line_is(&c, WPERF_CHECK_CPU_IDLE, "cpu0", 7 * SEC, 7 * SEC, 110 * MS, WPERF_CHECK_OK);
	line_is(&c, WPERF_CHECK_CPU_IDLE, "cpu1", 6 * SEC, 6 * SEC, 110 * MS, WPERF_CHECK_OK);
	/* cpu0's break showed 10 ms after the switch it follows; cpu1's 3.4 s */
	line_is(&c, WPERF_CHECK_CPU_CHAIN, "cpu0, 1 breaks", 10 * MS, 0, 100 * MS, WPERF_CHECK_OK);
	line_is(&c, WPERF_CHECK_CPU_CHAIN, "cpu1, 1 breaks", 3400 * MS, 0, 100 * MS,
		WPERF_CHECK_WARN);
	assert_int_equal(c.warn, 1);
	wperf_checks_release(&c);
	tb_release(&tr);
}

/* A disk busy 2 s of the 10: the kernel's io_ticks of 2.0 s agree, 3.0 s do
 * not (off by 1 s, the tolerance is 3% of the window: 0.3 s). */
static void test_disk_busy(void **state)
{
	struct trace_builder tr;
	struct reading r0, r1;
	struct wperf_checks c;

	(void)state;
	for (uint64_t ticks = 2000; ticks <= 3000; ticks += 1000) {
		new_trace(&tr);
		tb_block(&tr, WPERF_EV_BLOCK_ISSUE, 3 * SEC, 0, A, WPERF_CTX_THREAD, 0, DISK, 8,
			 4096);
		tb_block(&tr, WPERF_EV_BLOCK_COMPLETE, 5 * SEC, 0, 0, WPERF_CTX_HARDIRQ, 40, DISK,
			 8, 4096);
		reading(&r0, WPERF_COUNTERS_START, 1 * SEC, 500, 0, 0, 0, NULL, 0);
		reading(&r1, WPERF_COUNTERS_END, 11 * SEC, 500 + ticks, 0, 0, 0, NULL, 0);
		tb_counters(&tr, &r0.c, &r1.c);
		checks_of(&tr, &c);
		line_is(&c, WPERF_CHECK_DISK_BUSY, "disk:8:0 sda", 2 * SEC, ticks * MS, 300 * MS,
			ticks == 2000 ? WPERF_CHECK_OK : WPERF_CHECK_WARN);
		assert_int_equal(c.warn, ticks == 2000 ? 0 : 1);
		wperf_checks_release(&c);
		tb_release(&tr);
	}
}

/*
 * 500 requests of 1 ms, 10 ms apart, each within one jiffy (4 ms at the
 * readings' CONFIG_HZ of 250): busy 500 ms, and 0 ms as the kernel counts
 * io_ticks (a busy period adds its last jiffy minus its first), which is what
 * the kernel counted. The check sets like against like: OK, where the busy
 * time in ns would be 500 ms off, beyond the tolerance of 300 ms.
 */
static void test_disk_busy_counted_in_jiffies(void **state)
{
	struct trace_builder tr;
	struct reading r0, r1;
	struct wperf_checks c;

	(void)state;
	new_trace(&tr);
	for (uint64_t k = 0; k < 500; k++) {
		uint64_t t = 2 * SEC + k * 10 * MS, rq = 0x1000 + k % 8;
		uint8_t kinds[] = {WPERF_EV_BLOCK_START, WPERF_EV_BLOCK_ISSUE,
				   WPERF_EV_BLOCK_COMPLETE, WPERF_EV_BLOCK_DONE};
		uint64_t at[] = {t + MS / 2, t + MS / 2, t + 3 * MS / 2, t + 3 * MS / 2};

		for (int i = 0; i < 4; i++) {
			struct wperf_event *e = tb_block(&tr, kinds[i], at[i], 0, A,
							 WPERF_CTX_THREAD, 0, DISK, 8, 4096);

			e->block.rq = rq;
			e->block.jiffies = at[i] / (4 * MS);
		}
	}
	reading(&r0, WPERF_COUNTERS_START, 1 * SEC, 500, 0, 0, 0, NULL, 0);
	reading(&r1, WPERF_COUNTERS_END, 11 * SEC, 500, 0, 0, 0, NULL, 0);
	tb_counters(&tr, &r0.c, &r1.c);
	checks_of(&tr, &c);
	line_is(&c, WPERF_CHECK_DISK_BUSY, "disk:8:0 sda", 0, 0, 300 * MS, WPERF_CHECK_OK);
	wperf_checks_release(&c);
	tb_release(&tr);
}

/*
 * Exits from idle: record()'s cpu0 leaves idle once (to A at 2 s; B's break
 * at 3.01 s is no switch), cpu1 once (to C at 4 s). With the kernel's idle
 * of cpu0 0.5 s under the model's (6.5 s against 7 s), its line warns, and
 * the text says why and by how much an exit: 500000 us at its one exit.
 */
static void test_idle_exits_said(void **state)
{
	const struct wperf_thread_counters none[1] = {{0}};
	struct trace_builder tr;
	struct reading r0, r1;
	struct wperf_checks c;
	struct wperf_buf text = {0};

	(void)state;
	new_trace(&tr);
	record(&tr);
	reading(&r0, WPERF_COUNTERS_START, 1 * SEC, 10000, 5000, 1000, 2000, none, 0);
	reading(&r1, WPERF_COUNTERS_END, 11 * SEC - 1 * MS, 12000, 5120, 1650, 2600, none, 0);
	tb_counters(&tr, &r0.c, &r1.c);
	checks_of(&tr, &c);
	assert_int_equal(line(&c, WPERF_CHECK_CPU_IDLE, "cpu0")->exits, 1);
	assert_int_equal(line(&c, WPERF_CHECK_CPU_IDLE, "cpu1")->exits, 1);
	line_is(&c, WPERF_CHECK_CPU_IDLE, "cpu0, 1 idle exits", 7 * SEC, 6500 * MS, 110 * MS,
		WPERF_CHECK_WARN);
	line_is(&c, WPERF_CHECK_CPU_IDLE, "cpu1, 1 idle exits", 6 * SEC, 6 * SEC, 110 * MS,
		WPERF_CHECK_OK);
	assert_int_equal(wperf_report_checks_text(&c, NULL, &text), 0);
	assert_int_equal(wperf_buf_append(&text, "", 1), 0); /* the text has no NUL of its own */
	assert_non_null(strstr((const char *)text.data,
			       "cpu0: the model counts the CPU idle from the switch to its idle "
			       "task, the kernel from a moment of the idle loop's way in that no "
			       "event marks (the tick stopped, on a VM a slow path): 500000.0 us "
			       "more at each of 1 exits from idle"));
	assert_null(strstr((const char *)text.data, "cpu1: the model counts"));
	wperf_buf_release(&text);
	wperf_checks_release(&c);
	tb_release(&tr);
}

/* One request of 4 MiB on sda: made by maker in context made, issued in
 * context issued (by maker in its thread's), completed 1 s later in an
 * interrupt. */
static void request(struct trace_builder *tr, uint64_t rq, uint64_t t, uint32_t maker, uint8_t made,
		    uint8_t issued)
{
	const uint32_t bytes = 4u << 20;
	struct wperf_event *e;

	e = tb_block(tr, WPERF_EV_BLOCK_START, t, 0, maker, made, -1, DISK, 8, bytes);
	e->block.rq = rq;
	e = tb_block(tr, WPERF_EV_BLOCK_ISSUE, t, 0, issued == WPERF_CTX_THREAD ? maker : 0, issued,
		     -1, DISK, 8, bytes);
	e->block.rq = rq;
	e = tb_block(tr, WPERF_EV_BLOCK_COMPLETE, t + SEC, 1, 0, WPERF_CTX_HARDIRQ, 40, DISK, 8,
		     bytes);
	e->block.rq = rq;
}

/*
 * Whose bytes the disk's are: A makes and issues a request of 4 MiB; B makes
 * one that an interrupt issues (a requeue dispatched from the completion of
 * another); one of 4 MiB completes at 1.5 s, made before the window. The
 * kernel counted 12 MiB written: all of it owned, OK. When the second request
 * is made in an interrupt too, no thread made or issued it: 8 MiB owned,
 * 4 MiB off, beyond the tolerance (1 MiB, more than 1% of 12 MiB): WARN.
 */
static void test_disk_owned(void **state)
{
	for (int irq_made = 0; irq_made < 2; irq_made++) {
		struct trace_builder tr;
		struct reading r0, r1;
		struct wperf_checks c;
		struct wperf_event *e;

		(void)state;
		new_trace(&tr);
		request(&tr, 0x10, 2 * SEC, A, WPERF_CTX_THREAD, WPERF_CTX_THREAD);
		request(&tr, 0x20, 4 * SEC, irq_made ? 0 : B,
			irq_made ? WPERF_CTX_HARDIRQ : WPERF_CTX_THREAD, WPERF_CTX_SOFTIRQ);
		e = tb_block(&tr, WPERF_EV_BLOCK_COMPLETE, 1500 * MS, 1, 0, WPERF_CTX_HARDIRQ, 40,
			     DISK, 8, 4u << 20);
		e->block.rq = 0x30;
		reading(&r0, WPERF_COUNTERS_START, 1 * SEC, 0, 0, 0, 0, NULL, 0);
		reading(&r1, WPERF_COUNTERS_END, 11 * SEC, 0, 0, 0, 0, NULL, 0);
		r0.disk[WPERF_DISK_WRITE_SECTORS] = 1000;
		r1.disk[WPERF_DISK_WRITE_SECTORS] = 1000 + (12u << 20) / 512;
		tb_counters(&tr, &r0.c, &r1.c);
		checks_of(&tr, &c);
		line_is(&c, WPERF_CHECK_DISK_OWNED, "disk:8:0 sda", (irq_made ? 8u : 12u) << 20,
			12u << 20, 1u << 20, irq_made ? WPERF_CHECK_WARN : WPERF_CHECK_OK);
		wperf_checks_release(&c);
		tb_release(&tr);
	}
}

/* A thread's schedstat 20 ms off its running time of 1 s: beyond 1% of the
 * kernel's 1.02 s, and beyond the window's 0.1% (10 ms). */
static void test_thread_off(void **state)
{
	struct trace_builder tr;
	struct wperf_checks c;

	(void)state;
	record_checks(&tr, 8 * SEC + 20 * MS, &c);
	line_is(&c, WPERF_CHECK_THREAD_RUN, "app/A 101", 1 * SEC, 1020 * MS, 10200 * 1000,
		WPERF_CHECK_WARN);
	wperf_checks_release(&c);
	tb_release(&tr);
}

/* What the hypervisor stole while A ran the kernel leaves out of A's running
 * time, and the trace cannot see: A's schedstat 20 ms under the model's 1 s
 * warns (as test_thread_off's 20 ms over), unless A's part of the window's
 * steal covers it. Steal falls on busy CPUs: the model has cpu0 busy 3 s and
 * cpu1 4 s, 7 s in all, of which A ran 1 s; its part is twice its share (the
 * slack for uneven steal). 30 ms stolen (3 ticks at USER_HZ 100) gives A
 * 8.57 ms, too little; 200 ms gives 57.14 ms, enough. */
/* A's run line when the hypervisor stole steal_ticks of cpu0's (at USER_HZ 100). */
static void stolen_case(uint64_t steal_ticks, uint64_t tolerance, int status)
{
	struct trace_builder tr;
	struct wperf_checks c;

	record_checks_steal(&tr, 8 * SEC - 20 * MS, steal_ticks, &c);
	assert_true(c.steal_ns == steal_ticks * 10 * MS);
	line_is(&c, WPERF_CHECK_THREAD_RUN, "app/A 101", 1 * SEC, 980 * MS, tolerance, status);
	wperf_checks_release(&c);
	tb_release(&tr);
}

static void test_thread_run_less_what_was_stolen(void **state)
{
	(void)state;
	stolen_case(0, 10 * MS, WPERF_CHECK_WARN);
	stolen_case(3, 10 * MS + 30 * MS * 2 / 7, WPERF_CHECK_WARN);
	stolen_case(20, 10 * MS + 200 * MS * 2 / 7, WPERF_CHECK_OK);
}

/* A trace recorded before format 1.1: no counters, nothing checked, and the
 * report and the analysis say so. */
static void test_no_counters(void **state)
{
	struct trace_builder tr;
	struct wperf_trace *t;
	struct wperf_analysis *a;
	struct wperf_error err = {0};
	struct wperf_buf text = {0};
	struct wperf_checks c;

	(void)state;
	new_trace(&tr);
	record(&tr);
	checks_of(&tr, &c);
	assert_false(c.have_counters);
	assert_int_equal(c.n, 0);
	t = tb_open(&tr);
	assert_null(wperf_trace_counters(t, WPERF_COUNTERS_START));
	if (wperf_analyze(t, NULL, &a, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(wperf_report_checks_text(&a->checks, NULL, &text), 0);
	assert_non_null(memmem(text.data, text.len, "no counters in this trace", 25));
	assert_int_equal(wperf_checks_warnings(&a->checks, NULL, NULL), 0);
	wperf_buf_release(&text);
	wperf_analysis_free(a);
	wperf_trace_free(t);
	tb_release(&tr);
}

/* With a target, the other processes' threads are shown but not counted. */
static void test_target_counts(void **state)
{
	struct trace_builder tr;
	struct wperf_checks c;
	size_t ok;

	(void)state;
	record_checks(&tr, 8 * SEC + 20 * MS, &c); /* A off: WARN */
	/* every line: cpu1's chain and A's running time disagree */
	assert_int_equal(wperf_checks_warnings(&c, NULL, &ok), 2);
	assert_int_equal(ok, c.n - 2);
	/* another process as the target: A's lines do not count, the CPUs' do */
	assert_int_equal(wperf_checks_warnings(&c, "999", &ok), 1);
	assert_int_equal(ok, 7); /* disk busy and owned, 2 NIC, 2 idle, cpu0's chain */
	wperf_checks_release(&c);
	tb_release(&tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_family),
	    cmocka_unit_test(test_disk_busy),
	    cmocka_unit_test(test_disk_busy_counted_in_jiffies),
	    cmocka_unit_test(test_disk_owned),
	    cmocka_unit_test(test_idle_exits_said),
	    cmocka_unit_test(test_thread_off),
	    cmocka_unit_test(test_thread_run_less_what_was_stolen),
	    cmocka_unit_test(test_no_counters),
	    cmocka_unit_test(test_target_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
