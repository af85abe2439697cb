// SPDX-License-Identifier: GPL-2.0
/*
 * Block devices: each request's issue and completion (included by
 * recorder.bpf.c).
 */
#ifndef WPERF_BLOCK_BPF_H
#define WPERF_BLOCK_BPF_H

static __always_inline int emit_block(const bool btf, __u8 kind, struct request *rq, __u32 bytes)
{
	struct request_queue *q = KREAD(btf, rq, q);
	struct gendisk *disk = KREAD(btf, q, disk);
	struct record_slot slot;
	__s32 irq;
	struct wperf_event *e = reserve_in_context(&slot, RECORD_SIZE(block), kind, &irq);

	if (!e)
		return 0;
	e->block.irq = irq;
	e->block.sector = KREAD(btf, rq, __sector);
	e->block.dev = (KREAD(btf, disk, major) << 20) | KREAD(btf, disk, first_minor);
	e->block.bytes = bytes;
	e->block.op = KREAD(btf, rq, cmd_flags);
	e->block.rq = (__u64)(unsigned long)rq;
	e->block.jiffies = bpf_jiffies64();
	submit(&slot);
	return 0;
}

static __always_inline int on_block_rq_issue(__u64 *ctx, const bool btf)
{
	struct request *rq = (void *)ctx[0];

	return emit_block(btf, WPERF_EV_BLOCK_ISSUE, rq, KREAD(btf, rq, __data_len));
}

static __always_inline int on_block_rq_complete(__u64 *ctx, const bool btf)
{
	return emit_block(btf, WPERF_EV_BLOCK_COMPLETE, (void *)ctx[0], ctx[2]);
}

/* Where the kernel starts counting the request in the disk's io_ticks
 * (blk_account_io_start): before it is queued, let alone issued. */
static __always_inline int on_block_io_start(__u64 *ctx, const bool btf)
{
	struct request *rq = (void *)ctx[0];

	return emit_block(btf, WPERF_EV_BLOCK_START, rq, KREAD(btf, rq, __data_len));
}

/* Where it stops (blk_account_io_done): after its completion, and for a
 * request that asked for a cache flush, after the flush. */
static __always_inline int on_block_io_done(__u64 *ctx, const bool btf)
{
	struct request *rq = (void *)ctx[0];

	return emit_block(btf, WPERF_EV_BLOCK_DONE, rq, KREAD(btf, rq, __data_len));
}

#endif /* WPERF_BLOCK_BPF_H */
