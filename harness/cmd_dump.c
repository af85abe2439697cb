/* SPDX-License-Identifier: MIT */
/*
 * wperf-bench dump: a trace's events as text, one a line, in file order:
 *
 *   TIME CPU KIND TID/TGID NAME DETAILS
 *
 * TIME is in seconds from the start of the recording window.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/thread_table.h"

#define CMD "dump"

static const char *const softirq_names[] = {"HI",	"TIMER",   "NET_TX", "NET_RX",	"BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

static void usage(FILE *out)
{
	fprintf(out, "usage: wperf-bench dump [--kind KIND[,KIND...]] TRACE\n"
		     "\n"
		     "Prints the events of TRACE, one a line: time (s, from the window's start),\n"
		     "CPU, kind, thread (tid/tgid and name), then the kind's fields.\n"
		     "  --kind  only these kinds (switch, wakeup, wakeup_new, fork, exec, exit,\n"
		     "          rename, hardirq_entry, ..., spin_before, false_wakeup)\n");
}

/* Who ran the code of an event: a thread, or an interrupt. */
static void format_context(char *buf, size_t size, uint8_t context, int32_t irq, uint32_t tid,
			   const struct wperf_thread_table *tt)
{
	if (context == WPERF_CTX_HARDIRQ && irq == WPERF_IRQ_VECTOR)
		snprintf(buf, size, "hardirq:vector");
	else if (context == WPERF_CTX_HARDIRQ)
		snprintf(buf, size, "hardirq:%d", irq);
	else if (context == WPERF_CTX_SOFTIRQ)
		snprintf(buf, size, "softirq:%s", irq >= 0 && irq < 10 ? softirq_names[irq] : "?");
	else
		snprintf(buf, size, "%u %s", tid, wperf_thread_table_name(tt, tid));
}

/*
 * Which request, what it does and where: "rq 0xADDR op write sector S". The
 * request's address pairs an issue with its completion (absent from traces of
 * format 1.0); the op is the low byte of the kernel's cmd_flags, whose REQ_OP_*
 * numbers are the same in every kernel (the flag bits above it are not); a
 * flush has no sector (the kernel's (sector_t)-1).
 */
static void format_request(char *buf, size_t size, const struct wperf_block *blk)
{
	static const char *const ops[] = {"read", "write", "flush", "discard"};
	unsigned op = blk->op & 0xff;
	char rq[64] = "", name[16], sector[32];

	if (blk->rq)
		snprintf(rq, sizeof(rq), "rq 0x%llx jiffies %llu ", (unsigned long long)blk->rq,
			 (unsigned long long)blk->jiffies);
	if (op < sizeof(ops) / sizeof(ops[0]))
		snprintf(name, sizeof(name), "%s", ops[op]);
	else
		snprintf(name, sizeof(name), "%u", op);
	if (blk->sector == UINT64_MAX)
		snprintf(sector, sizeof(sector), "-");
	else
		snprintf(sector, sizeof(sector), "%llu", (unsigned long long)blk->sector);
	snprintf(buf, size, "%sop %s sector %s", rq, name, sector);
}

static void format_details(char *buf, size_t size, const struct wperf_event *ev,
			   const struct wperf_thread_table *tt)
{
	char ctx[64], req[128];

	switch (ev->hdr.kind) {
	case WPERF_EV_SWITCH:
		snprintf(buf, size, "-> %u/%u %s %s state=0x%x kstack=%d ustack=%d",
			 ev->sw.next_tid, ev->sw.next_tgid,
			 wperf_thread_table_name(tt, ev->sw.next_tid),
			 ev->hdr.flags & WPERF_SWITCH_PREEMPTED ? "preempted" : "blocked",
			 ev->sw.prev_state, ev->sw.kstack, ev->sw.ustack);
		break;
	case WPERF_EV_WAKEUP:
	case WPERF_EV_WAKEUP_NEW:
		format_context(ctx, sizeof(ctx), ev->hdr.flags, ev->wake.irq, ev->wake.waker_tid,
			       tt);
		snprintf(buf, size, "by %s kstack=%d ustack=%d target_cpu=%u", ctx, ev->wake.kstack,
			 ev->wake.ustack, ev->wake.target_cpu);
		break;
	case WPERF_EV_FORK:
		snprintf(buf, size, "child %u/%u %.16s", ev->fork.child_tid, ev->fork.child_tgid,
			 ev->fork.comm);
		break;
	case WPERF_EV_EXEC:
	case WPERF_EV_RENAME:
		snprintf(buf, size, "name %.16s", ev->name.comm);
		break;
	case WPERF_EV_HARDIRQ_ENTRY:
	case WPERF_EV_HARDIRQ_EXIT:
		snprintf(buf, size, "irq %d", ev->irq.irq);
		break;
	case WPERF_EV_SOFTIRQ_ENTRY:
	case WPERF_EV_SOFTIRQ_EXIT:
		format_context(ctx, sizeof(ctx), WPERF_CTX_SOFTIRQ, ev->irq.irq, 0, tt);
		snprintf(buf, size, "%s", ctx);
		break;
	case WPERF_EV_BLOCK_ISSUE:
	case WPERF_EV_BLOCK_COMPLETE:
	case WPERF_EV_BLOCK_START:
	case WPERF_EV_BLOCK_DONE:
		format_context(ctx, sizeof(ctx), ev->hdr.flags, ev->block.irq, ev->hdr.tid, tt);
		format_request(req, sizeof(req), &ev->block);
		snprintf(buf, size, "dev %u:%u %s bytes %u in %s", ev->block.dev >> 20,
			 ev->block.dev & 0xfffff, req, ev->block.bytes, ctx);
		break;
	case WPERF_EV_NET_XMIT:
	case WPERF_EV_NET_RECV:
		format_context(ctx, sizeof(ctx), ev->hdr.flags, ev->net.irq, ev->hdr.tid, tt);
		snprintf(buf, size, "ifindex %u bytes %u in %s", ev->net.ifindex, ev->net.bytes,
			 ctx);
		break;
	case WPERF_EV_SPIN_BEFORE:
	case WPERF_EV_SPIN_AFTER:
	case WPERF_EV_SPIN_RELEASE:
		snprintf(buf, size, "lock 0x%llx", (unsigned long long)ev->usdt.lock);
		break;
	default:
		buf[0] = '\0';
	}
}

static int parse_kinds(const char *arg, uint8_t wanted[WPERF_EV_KIND_MAX])
{
	char copy[512], *tok, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned k;

		for (k = 1; k < WPERF_EV_KIND_MAX; k++)
			if (!strcmp(tok, wperf_event_kind_name(k)))
				break;
		if (k == WPERF_EV_KIND_MAX)
			return cli_error(CMD, "--kind: unknown kind '%s'", tok);
		wanted[k] = 1;
	}
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {{"kind", required_argument, NULL, 'k'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	uint8_t wanted[WPERF_EV_KIND_MAX] = {0};
	int filter = 0, c, e, status = EXIT_OK;
	struct wperf_trace *t = NULL;
	struct wperf_thread_table tt = {0};
	struct wperf_event_iter *it = NULL;
	struct wperf_error err = {0};
	struct wperf_event ev;
	uint64_t start;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'k') {
			if (parse_kinds(optarg, wanted))
				return EXIT_ERROR;
			filter = 1;
		} else {
			return cli_other_option(c, usage);
		}
	}
	if (cli_open_trace_operand(CMD, argc, argv, usage, &t))
		return EXIT_ERROR;
	start = wperf_trace_stats(t)->start_ts;
	if (wperf_thread_table_init(&tt, t) < 0 || wperf_event_iter_new(t, &it, &err) < 0) {
		status = cli_error(CMD, "%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	while ((e = wperf_event_iter_next(it, &ev, &err)) == 1) {
		char details[512];

		wperf_thread_table_apply(&tt, &ev);
		if (filter && (ev.hdr.kind >= WPERF_EV_KIND_MAX || !wanted[ev.hdr.kind]))
			continue;
		format_details(details, sizeof(details), &ev, &tt);
		printf("%14.9f [%03u] %-15s %u/%u %s %s\n", ((int64_t)(ev.hdr.ts - start)) / 1e9,
		       ev.hdr.cpu, wperf_event_kind_name(ev.hdr.kind), ev.hdr.tid, ev.hdr.tgid,
		       wperf_thread_table_name(&tt, ev.hdr.tid), details);
	}
	if (e < 0)
		status = cli_error(CMD, "%s", err.msg);
out:
	wperf_event_iter_free(it);
	wperf_thread_table_release(&tt);
	wperf_trace_free(t);
	return status;
}
