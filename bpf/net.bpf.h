// SPDX-License-Identifier: GPL-2.0
/*
 * Network interfaces: each packet sent and received, with its bytes
 * (included by recorder.bpf.c).
 */
#ifndef WPERF_NET_BPF_H
#define WPERF_NET_BPF_H

static __always_inline int emit_net(const bool btf, __u8 kind, struct net_device *dev, __u32 bytes)
{
	struct record_slot slot;
	__s32 irq;
	struct wperf_event *e = reserve_in_context(&slot, RECORD_SIZE(net), kind, &irq);

	if (!e)
		return 0;
	e->net.irq = irq;
	e->net.ifindex = KREAD(btf, dev, ifindex);
	e->net.bytes = bytes;
	submit(&slot);
	return 0;
}

static __always_inline int on_net_dev_xmit(__u64 *ctx, const bool btf)
{
	if ((int)ctx[1] != 0) /* not sent (NETDEV_TX_BUSY) */
		return 0;
	return emit_net(btf, WPERF_EV_NET_XMIT, (void *)ctx[2], ctx[3]);
}

static __always_inline int on_netif_receive_skb(__u64 *ctx, const bool btf)
{
	struct sk_buff *skb = (void *)ctx[0];

	return emit_net(btf, WPERF_EV_NET_RECV, KREAD(btf, skb, dev), KREAD(btf, skb, len));
}

#endif /* WPERF_NET_BPF_H */
