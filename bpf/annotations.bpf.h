// SPDX-License-Identifier: GPL-2.0
/*
 * The USDT annotations of include/wperf_annotate.h: spins and false wakeups
 * (included by recorder.bpf.c).
 */
#ifndef WPERF_ANNOTATIONS_BPF_H
#define WPERF_ANNOTATIONS_BPF_H

static __always_inline int emit_usdt(__u8 kind, __u64 lock)
{
	struct record_slot slot;
	struct wperf_event *e = reserve_current(&slot, RECORD_SIZE(usdt), kind, true);

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
