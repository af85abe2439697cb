// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the recording overhead: empty programs on the same tp_btf hooks
 * as recorder.bpf.c. What they cost (the enabled tracepoint, the call through
 * __bpf_trace_run, the program's entry and exit) is the cost that no recorder
 * on these hooks can beat. bench/floor.c loads them
 * and runs a command; bench/run.sh compares the recorder's cost per event with
 * theirs.
 *
 * Keep the list in step with the TRACEPOINT() list of recorder.bpf.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define FLOOR(tp)                                                                                  \
	SEC("tp_btf/" #tp) int floor_##tp(__u64 *ctx)                                              \
	{                                                                                          \
		return 0;                                                                          \
	}

FLOOR(sched_switch)
FLOOR(sched_waking)
FLOOR(sched_wakeup_new)
FLOOR(sched_process_fork)
FLOOR(sched_process_exec)
FLOOR(sched_process_exit)
FLOOR(task_rename)
FLOOR(irq_handler_entry)
FLOOR(irq_handler_exit)
FLOOR(softirq_entry)
FLOOR(softirq_exit)
FLOOR(hrtimer_expire_entry)
FLOOR(hrtimer_expire_exit)
FLOOR(local_timer_entry)
FLOOR(local_timer_exit)
FLOOR(irq_work_entry)
FLOOR(irq_work_exit)
FLOOR(call_function_entry)
FLOOR(call_function_exit)
FLOOR(call_function_single_entry)
FLOOR(call_function_single_exit)
FLOOR(block_rq_issue)
FLOOR(block_rq_complete)
FLOOR(net_dev_xmit)
FLOOR(netif_receive_skb)

char LICENSE[] SEC("license") = "GPL";
