/* SPDX-License-Identifier: MIT */
/*
 * Every executable mapping the kernel makes while recording, as perf's MMAP2
 * records from a dummy software event on each CPU, with the file's build id
 * where the kernel gives it. The kernel reports a mapping when it is made, so
 * processes that live for a millisecond are symbolizable too; reading
 * /proc/PID/maps afterwards would find them gone.
 */
#ifndef WPERF_MMAP_WATCH_H
#define WPERF_MMAP_WATCH_H

#include "core/util/error.h"
#include "harness/record/proc_info.h"

struct mmap_watch;

int mmap_watch_open(struct mmap_watch **out, struct wperf_error *err);

/*
 * Appends the mappings reported since the last call to pm. Returns 0, or
 * -ENOMEM. Records the kernel lost are counted in pm->missed.
 */
int mmap_watch_drain(struct mmap_watch *w, struct proc_mappings *pm);

void mmap_watch_free(struct mmap_watch *w);

#endif /* WPERF_MMAP_WATCH_H */
