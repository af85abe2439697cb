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

#include <stddef.h>

/* A META entry: disk.254:0.irqs = "35,36". */
struct device_irqs {
	char key[48];
	char value[256]; /* as many numbers as fit */
};

/*
 * One entry for each whole disk (/sys/block) and network interface
 * (/sys/class/net) that sits on a bus device with interrupts (virtual ones,
 * loop and lo, have none), into out; returns how many (at most max).
 */
size_t device_irqs_meta(struct device_irqs *out, size_t max);

#endif /* WPERF_HARNESS_DEVICE_IRQS_H */
