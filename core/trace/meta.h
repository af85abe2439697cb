/* SPDX-License-Identifier: MIT */
/*
 * The keys of a trace's META section (docs/trace-format.md, "META (1)"): the
 * recorder writes them, the analysis and the commands read them, and nobody
 * spells one but here. Values are strings; a reader accepts keys it does not
 * know and treats a missing or empty value as "not recorded".
 */
#ifndef WPERF_TRACE_META_H
#define WPERF_TRACE_META_H

/* What the file is: "wperf-trace". */
#define WPERF_META_FORMAT "format"
/* The program that recorded it and its version: "wperf-bench 0.1.0". */
#define WPERF_META_RECORDER "recorder"
/* The kernel's release and version (uname -r, uname -v). */
#define WPERF_META_KERNEL "kernel"
/* The machine's architecture (uname -m). */
#define WPERF_META_MACHINE "machine"
/* The machine's name (uname -n). */
#define WPERF_META_HOSTNAME "hostname"
/* CPUs online as the recording started. */
#define WPERF_META_NCPU "ncpu"
/* CPUs the kernel may bring up: the size of the per-CPU tables. */
#define WPERF_META_POSSIBLE_CPUS "possible_cpus"
/* The clock of every timestamp: "CLOCK_MONOTONIC". */
#define WPERF_META_CLOCK "clock"
/* Wall-clock ns and monotonic ns read together as the recording started: a
 * pair that maps trace times to wall-clock time. */
#define WPERF_META_START_REALTIME_NS  "start_realtime_ns"
#define WPERF_META_START_MONOTONIC_NS "start_monotonic_ns"
/* The recorded command (record -- COMMAND), its words joined by spaces; "" without one. */
#define WPERF_META_COMMAND "command"
/* The recorder's whole command line. */
#define WPERF_META_CMDLINE "cmdline"
/* The recorder's own process id: the analysis leaves it out. */
#define WPERF_META_RECORDER_TGID "recorder_tgid"
/* Which stacks were taken: "none", "kernel", "user" or "all". */
#define WPERF_META_STACKS "stacks"
/* The processes recorded: "all" (the whole machine) or "PID[,PID...]" (-p). */
#define WPERF_META_TARGETS "targets"
/* The kernel hooks the recorder attached, as it names them. */
#define WPERF_META_HOOKS "hooks"
/* The ring buffer's size in bytes. */
#define WPERF_META_RINGBUF_BYTES "ringbuf_bytes"
/* The process id of the recorded command; "" without one. */
#define WPERF_META_COMMAND_PID "command_pid"
/* "PID[,PID...]": processes of the harness that ran the recording; the analysis
 * leaves them out. */
#define WPERF_META_HARNESS_PIDS "harness_pids"
/* The processes the recording is for (record --target; run passes the
 * scenario's analysis.target): report's default --target without command_pid. */
#define WPERF_META_ANALYSIS_TARGET "analysis_target"
/* The control groups of every process as the recording starts (cgroup v2's
 * path and each v1 hierarchy's), a line a path: "PATH<TAB>PID[,PID...]" (the
 * analysis's cgroup:PATH targets; a process forked later is in its
 * parent's). */
#define WPERF_META_CGROUPS "cgroups"

/*
 * The keys of network interface IFINDEX, as printf formats given the
 * conversion that prints the index (PRIu32, ".30s"): its name ("eth0") and,
 * when the link knows it, its speed in bits per second.
 */
#define WPERF_META_NET_NAME(conversion)	     "net.%" conversion ".name"
#define WPERF_META_NET_SPEED_BPS(conversion) "net.%" conversion ".speed_bps"

/*
 * The hard interrupts of a disk (disk.MAJOR:MINOR.irqs) and of a network
 * interface (net.IFINDEX.irqs), as printf formats given the conversion that
 * prints "MAJOR:MINOR" or the index: "35,36", the MSI vectors (else the legacy
 * line) of the bus device it sits on, read from sysfs. A thread woken in one of
 * them was woken by the device, even when no I/O completes in that interrupt
 * (a driver that restarts its queue from it, while completions are sent to
 * the issuing CPU).
 */
#define WPERF_META_DISK_IRQS(conversion) "disk.%" conversion ".irqs"
#define WPERF_META_NET_IRQS(conversion)	 "net.%" conversion ".irqs"

#endif /* WPERF_TRACE_META_H */
