/* SPDX-License-Identifier: MIT */
/*
 * The timeline builder's devices: disks and NICs (timeline_devices.c), and
 * the block requests of the disks (timeline_disks.c).
 */
#ifndef WPERF_TIMELINE_DEVICES_H
#define WPERF_TIMELINE_DEVICES_H

#include "core/analysis/timeline_internal.h"

/* Where a block request is (timeline_devices.c). */
enum tl_req_state {
	TL_REQ_MADE = 1, /* made (BLOCK_START), not issued */
	TL_REQ_ISSUED,
	TL_REQ_ENDED, /* its interval is in its disk's reqs */
};

/* A block request's time in flight. */
struct tl_req_interval {
	struct tl_when start, end;
};

/*
 * A block request, keyed by (device, the request's rq), kept when ended: a
 * completion of a request never seen is then known to be of one made before
 * the window, and the end of a request that asked for a cache flush (BLOCK_DONE,
 * after its completion) finds its interval. Traces of format 1.0 have no rq:
 * their requests are keyed by sector, and forgotten when done (a sector is
 * written again and again).
 */
struct tl_request {
	uint64_t key;		/* rq, or the sector when rq is 0 */
	struct tl_when start;	/* made; issued, when it was not seen made */
	struct tl_when issued;	/* TL_REQ_ISSUED */
	size_t iv;		/* TL_REQ_ENDED: its interval, an index in its disk's reqs */
	uint32_t dev;		/* device index + 1; 0: empty slot */
	uint32_t left;		/* TL_REQ_ISSUED: bytes not yet completed */
	uint32_t owner;		/* the thread that made it (BLOCK_START); TL_NONE: unseen */
	uint8_t state;		/* enum tl_req_state */
	uint8_t made_by_thread; /* made in a thread's context (an excluded one's too) */
	uint8_t unowned;	/* issued, and no thread made or issued it */
};

struct tl_device {
	uint8_t kind; /* WPERF_ENTITY_DISK or WPERF_ENTITY_NIC */
	uint32_t key; /* dev_t or ifindex */
	uint64_t bytes, ios;
	uint64_t busy_ns, measured_ns;	    /* busy_ns as reported; measured: union of intervals */
	uint32_t inflight;		    /* NICs: an interval is open */
	uint64_t busy_start, busy_end;	    /* NICs: the busy interval being built */
	struct wperf_buf reqs;		    /* disks: struct tl_req_interval of each request */
	uint64_t io_ticks;		    /* disks: busy jiffies, as the kernel counts them */
	uint64_t done_bytes, unowned_bytes; /* disks: see struct wperf_entity */
	struct wperf_buf busy;		    /* uint64_t pairs [start, end): sorted, disjoint */
	struct wperf_idmap share_of;	    /* thread index -> index in shares */
	struct wperf_buf shares;	    /* struct wperf_io_share, device field unused */
	uint64_t speed_bps;		    /* NICs */
	const char *speed_from;		    /* NICs: where speed_bps came from */
	char name[32];
	uint32_t entity; /* final index */
};

#define TL_LOOPBACK (TL_NONE - 1)

void tl_devices_release(struct tl_builder *b);
/* The device index of a disk (dev) or NIC (ifindex), made when new;
 * TL_LOOPBACK for the loopback NIC, which is no device (its packets never
 * leave the machine); TL_NONE when out of memory. */
uint32_t tl_device_of(struct tl_builder *b, uint8_t kind, uint32_t key);
/* Appends [s, e), clipped to the window, to the device's busy intervals, merged
 * with the last when they touch (intervals come in order of their starts). */
void tl_add_busy(struct tl_builder *b, struct tl_device *d, uint64_t s, uint64_t e);
/* thread issued bytes to the device (nothing for TL_NONE or 0 bytes). */
void tl_add_share(struct tl_builder *b, struct tl_device *d, uint32_t thread, uint64_t bytes);
/* NET_* events; issuer: the thread that sent, or TL_NONE. */
int tl_net_event(struct tl_builder *b, const struct wperf_event *ev, uint32_t issuer);
/* A wakeup from an interrupt tied to waker (provisional): when that is a NIC
 * receiving, thread gets the share of the bytes received since the last one. */
void tl_net_receiver(struct tl_builder *b, const struct wperf_event *ev, uint32_t waker,
		     uint32_t thread);
/* Closes the busy intervals and applies the capacity model. */
void tl_devices_finish(struct tl_builder *b);
/* Gives the devices their entity indexes from first on, appending their struct
 * wperf_entity to entities; returns the next free index, or -ENOMEM. */
int64_t tl_devices_entities(struct tl_builder *b, uint32_t first, struct wperf_buf *entities);
/* Appends the device's busy (running) and idle (waiting) segments. */
int tl_device_segments(const struct tl_builder *b, uint32_t device, struct wperf_buf *out);
/* Appends the I/O shares, with final entity indexes. */
int tl_device_shares(const struct tl_builder *b, struct wperf_buf *out);
void tl_capacity_note(const struct tl_builder *b, char *note, size_t size);

/* timeline_disks.c */
/* BLOCK_* events; issuer: the thread that issued, or TL_NONE. */
int tl_block_event(struct tl_builder *b, const struct wperf_event *ev, uint32_t issuer);
/* At the window's end, before tl_devices_finish uses them: the disks' busy
 * intervals and io_ticks. */
void tl_disks_finish(struct tl_builder *b);

#endif /* WPERF_TIMELINE_DEVICES_H */
