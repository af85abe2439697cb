// SPDX-License-Identifier: GPL-2.0
/*
 * The USDT annotations of include/wperf_annotate.h: spins and false wakeups
 * (included by recorder.bpf.c).
 */
#ifndef WPERF_ANNOTATIONS_BPF_H
#define WPERF_ANNOTATIONS_BPF_H

static __always_inline int emit_usdt(__u8 kind, __u64 lock)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct record_slot slot;
	struct wperf_event *e;

	if (!is_target(id >> 32))
		return 0;
	e = reserve(&slot, RECORD_SIZE(usdt), kind, (__u32)id, id >> 32);
	if (!e)
		return 0;
	e->usdt.lock = lock;
	submit(&slot);
	return 0;
}

SEC("usdt")
int BPF_USDT(usdt_before_spin, __u64 lock)
{
	return emit_usdt(WPERF_EV_SPIN_BEFORE, lock);
}

SEC("usdt")
int BPF_USDT(usdt_after_spin, __u64 lock)
{
	return emit_usdt(WPERF_EV_SPIN_AFTER, lock);
}

SEC("usdt")
int BPF_USDT(usdt_spin_release, __u64 lock)
{
	return emit_usdt(WPERF_EV_SPIN_RELEASE, lock);
}

SEC("usdt")
int BPF_USDT(usdt_false_wakeup)
{
	return emit_usdt(WPERF_EV_FALSE_WAKEUP, 0);
}

#endif /* WPERF_ANNOTATIONS_BPF_H */
