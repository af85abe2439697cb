/* SPDX-License-Identifier: MIT */
/*
 * Which hard interrupts belong to which disk and network interface, read from
 * sysfs for the trace's META (disk.MAJOR:MINOR.irqs, net.IFINDEX.irqs): the
 * analysis gives a thread woken in one of them to the device.
 *
 * The analysis can also learn it from the trace (an interrupt in which a
 * disk's requests complete is the disk's), but not always: virtio-blk
 * completes requests on the issuing CPU, and the disk's own interrupt only
 * wakes the kernel worker that restarts a full queue.
 */
#ifndef WPERF_HARNESS_DEVICE_IRQS_H
#define WPERF_HARNESS_DEVICE_IRQS_H

#include "core/util/buf.h"

/*
 * Appends to entries (a struct wperf_buf of struct meta_entry, proc_info.h)
 * one entry, disk.254:0.irqs = "35,36" (every one of them), for each
 * whole disk (/sys/block) and network interface (/sys/class/net) that sits on
 * a bus device with interrupts (virtual ones, loop and lo, have none); 0 or
 * -ENOMEM.
 */
int device_irqs_meta(struct wperf_buf *entries);

#endif /* WPERF_HARNESS_DEVICE_IRQS_H */
