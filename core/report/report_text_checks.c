/* SPDX-License-Identifier: MIT */
/*
 * The report for people: its checks against the kernel's counters, the model's
 * figures beside the kernel's with the difference and the tolerance; the
 * threads' lines shortened to the target's (or the busiest) with the rest
 * counted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/report/report_text_internal.h"

#define CHECKS_TOP_THREADS 10 /* without a target: the threads shown, by running time */

static void check_value(char *buf, size_t size, unsigned kind, int sign, uint64_t v, int64_t d)
{
	const char *unit = wperf_check_unit_name(kind);

	if (!strcmp(unit, "ns"))
		snprintf(buf, size, sign ? "%+.4f s" : "%.4f s",
			 (sign ? (double)d : (double)v) / 1e9);
	else if (sign)
		snprintf(buf, size, "%+lld%s", (long long)d, strcmp(unit, "bytes") ? "" : " B");
	else
		snprintf(buf, size, "%llu%s", (unsigned long long)v,
			 strcmp(unit, "bytes") ? "" : " B");
}

static void check_line(struct text *t, const struct wperf_checks_line *l)
{
	char model[32], kernel[32], diff[32], tol[32];

	check_value(model, sizeof(model), l->kind, 0, l->model, 0);
	check_value(kernel, sizeof(kernel), l->kind, 0, l->kernel, 0);
	check_value(diff, sizeof(diff), l->kind, 1, 0, l->diff);
	check_value(tol, sizeof(tol), l->kind, 0, l->tolerance, 0);
	text_put(t, "  %-13s %-36s %13s %13s %13s %13s  %s\n", wperf_check_kind_name(l->kind),
		 l->subject, model, kernel, diff, tol, l->status == WPERF_CHECK_OK ? "OK" : "WARN");
}

/* Is l the first line of a thread (its running time, then wait and slices)? */
static int thread_group(const struct wperf_checks *c, size_t i)
{
	return c->lines[i].kind == WPERF_CHECK_THREAD_RUN && i + 2 < c->n;
}

/* The running time (kernel's) that a thread must reach to be among the
 * CHECKS_TOP_THREADS shown without a target. */
static uint64_t top_threads_floor(const struct wperf_checks *c)
{
	uint64_t floor = 0;

	for (unsigned shown = 0; shown < CHECKS_TOP_THREADS; shown++) {
		uint64_t best = 0;

		for (size_t i = 0; i < c->n; i++)
			if (thread_group(c, i) && c->lines[i].kernel > best &&
			    (!floor || c->lines[i].kernel < floor))
				best = c->lines[i].kernel;
		if (!best)
			break;
		floor = best;
	}
	return floor;
}

/* Why a CPU's idle time is over the kernel's, for each line that says so. */
static void idle_exits_note(struct text *t, const struct wperf_checks *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct wperf_checks_line *l = &c->lines[i];

		if (l->kind != WPERF_CHECK_CPU_IDLE || l->status == WPERF_CHECK_OK ||
		    l->diff <= 0 || !l->exits)
			continue;
		text_put(t,
			 "  %.*s: the model counts the CPU idle from the switch to its idle task, "
			 "the kernel from a moment of the idle loop's way in that no event marks "
			 "(the tick stopped, on a VM a slow path): %.1f us more at each of %llu "
			 "exits from idle\n",
			 (int)strcspn(l->subject, ","), l->subject,
			 (double)l->diff / 1e3 / (double)l->exits, (unsigned long long)l->exits);
	}
}

void text_checks(struct text *t, const struct wperf_checks *c, const char *target)
{
	uint64_t floor = target ? 0 : top_threads_floor(c);
	size_t ok, warn = wperf_checks_warnings(c, target, &ok), others = 0, others_warn = 0;

	if (!c->have_counters) {
		text_put(t, "checks: no counters in this trace (recorded before trace format 1.1): "
			    "the model is not checked against the kernel's\n");
		return;
	}
	text_put(t, "checks against the kernel's counters: %zu OK, %zu WARN\n", ok, warn);
	text_put(t, "  %-13s %-36s %13s %13s %13s %13s\n", "check", "of", "model", "kernel", "diff",
		 "tolerance");
	for (size_t i = 0; i < c->n; i++) {
		const struct wperf_checks_line *l = &c->lines[i];

		if (thread_group(c, i)) {
			int warns = l[0].status || l[1].status || l[2].status;

			if (!wperf_check_counts(c, i, target)) {
				others++;
				others_warn += warns;
				i += 2;
				continue;
			}
			if (!target && !warns && !(floor && l->kernel >= floor)) {
				others++;
				i += 2;
				continue;
			}
		}
		check_line(t, l);
	}
	idle_exits_note(t, c);
	if (others)
		text_put(
		    t,
		    "  and %zu more threads%s, %zu of which disagree (the JSON report lists every "
		    "line)\n",
		    others, target ? " (not the target's)" : "", others_warn);
	if (!c->cpus_checked)
		text_put(
		    t,
		    "  CPUs not checked: the recording has only the --pid processes' switches\n");
	if (c->threads_unread)
		text_put(t,
			 "  %zu threads not checked: their schedstat was not read at both ends\n",
			 c->threads_unread);
	if (c->irq_time == WPERF_IRQ_TIME_APART)
		text_put(t,
			 "interrupts: this kernel counts interrupt time apart from the threads "
			 "(CONFIG_IRQ_TIME_ACCOUNTING), as the graph does: the thread lines leave "
			 "it out too\n");
	else
		text_put(
		    t,
		    "interrupts: this kernel counts an interrupt's time as the running time of the "
		    "thread it interrupted (CONFIG_IRQ_TIME_ACCOUNTING %s), and so do the thread "
		    "lines (%.4f s in all); the graph gives that time to the interrupt\n",
		    c->irq_time == WPERF_IRQ_TIME_IN_THREAD ? "off" : "not known, taken as off",
		    c->irq_in_threads_ns / 1e9);
	if (c->steal_ns)
		text_put(
		    t,
		    "steal: the hypervisor took %.2f s of the CPUs, which the kernel leaves out of "
		    "the threads' running time and the trace cannot see\n",
		    c->steal_ns / 1e9);
}

int wperf_report_checks_text(const struct wperf_checks *c, const char *target,
			     struct wperf_buf *out)
{
	struct text t = {.out = out};

	text_checks(&t, c, target);
	return t.err ? -ENOMEM : 0;
}
