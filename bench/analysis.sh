#!/usr/bin/env bash
# bench/analysis.sh: the analyzer's speed, part of `make bench`.
#
# Generates traces of N, 2N and 4N events (bench/gen_trace: 64 worker threads in
# pipelines of 4 stages handing requests on, a logger waiting on a disk) and times
# `wperf-bench report -j 1` on each, end to end from the file: reading,
# segments, cascade, merging, knots, JSON. Prints events per second per core of
# CPU time (user + system), peak memory, and how the time grows with the events
# (linear: 2x and 4x the events take 2x and 4x the time).
#
# BENCH_EVENTS (default 12500000) sets N; the largest trace has 4N. Then the
# worst case of nesting, one ring of 64 threads (every wait 63 deep), at N/10.
# Then recordings of real software (BENCH_REAL_TRACES, space-separated; when
# unset and this is root, one run of scenarios/memcached.yaml is recorded for
# it): `report --timings` with -j 1 and -j 2, each step's time and the events
# per second per core end to end, the target being 10 million.
# Last, the size on disk of a real recording (BENCH_REAL_TRACE, default
# tests/data/fig1.trace) per scheduling event (switch or wakeup): the target is 16.
set -euo pipefail

build=${WPERF_BUILD:-build}
base=${BENCH_EVENTS:-12500000}
tmp=$(mktemp -d /var/tmp/wperf-bench-analysis-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "analysis: wperf-bench report -j 1 --format json, end to end from the trace file"
printf '  %-6s %12s %10s %9s %12s %14s %10s\n' size events wall_s cpu_s peak_MiB events/s/core MiB/Mevent
declare -A cpu_of
for m in 1 2 4; do
	n=$((base * m))
	"$build/bench/gen_trace" -n "$n" -o "$tmp/trace" >/dev/null
	bytes=$(stat -c %s "$tmp/trace")
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
		"$build/wperf-bench" report -j 1 --format json -o "$tmp/report.json" "$tmp/trace"
	read -r wall user sys rss_kb <"$tmp/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	cpu_of[$m]=$cpu
	awk -v m="$m" -v n="$n" -v w="$wall" -v c="$cpu" -v r="$rss_kb" -v b="$bytes" 'BEGIN {
		printf "  %-6s %12d %10.2f %9.2f %12.0f %14.0f %10.1f\n", m "x", n, w, c, r / 1024,
		       n / c, r / 1024 / (n / 1e6)
		printf "bench: analysis size=%sx events=%d wall_s=%.2f cpu_s=%.2f peak_mib=%.0f events_per_s_per_core=%.0f trace_bytes_per_event=%.2f\n",
		       m, n, w, c, r / 1024, n / c, b / n > "/dev/stderr"
	}' 2>>"$tmp/lines"
	rm -f "$tmp/trace"
done
"$build/bench/gen_trace" -n "$((base / 10))" -g 64 -o "$tmp/trace" >/dev/null
/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
	"$build/wperf-bench" report -j 1 --format json -o "$tmp/report.json" "$tmp/trace"
read -r wall user sys rss_kb <"$tmp/time"
awk -v n="$((base / 10))" -v u="$user" -v s="$sys" 'BEGIN {
	printf "worst case, a ring of 64 (waits nested 63 deep): %d events, %.0f events/s/core\n", n, n / (u + s)
	printf "bench: analysis worst_case_ring64 events=%d events_per_s_per_core=%.0f\n", n, n / (u + s) > "/dev/stderr"
}' 2>>"$tmp/lines"
rm -f "$tmp/trace"
real_traces=${BENCH_REAL_TRACES-}
if [ -z "$real_traces" ] && [ "$(id -u)" = 0 ] &&
	"$build/wperf-bench" run -q -n 1 -r "$tmp/memcached" scenarios/memcached.yaml >/dev/null 2>&1; then
	real_traces=$tmp/memcached/runs/1/wperf.trace
fi
for trace in $real_traces; do
	for jobs in 1 2; do
		echo "real trace $trace, -j $jobs:"
		"$build/wperf-bench" report -j "$jobs" --timings -f json -o /dev/null "$trace" 2>&1 |
			sed 's/^report: /  /'
	done
done
[ -n "$real_traces" ] || echo "real traces: none (set BENCH_REAL_TRACES, or run as root to record one)"
real=${BENCH_REAL_TRACE:-tests/data/fig1.trace}
if [ -r "$real" ]; then
	bytes=$(stat -c %s "$real")
	sched=$("$build/wperf-bench" info "$real" |
		awk '$1 == "switch" || $1 == "wakeup" || $1 == "wakeup_new" { n += $2 } END { print n + 0 }')
	awk -v f="$real" -v b="$bytes" -v s="$sched" 'BEGIN {
		printf "recorded trace %s: %d bytes, %d scheduling events, %.2f bytes per scheduling event (target 16)\n", f, b, s, s ? b / s : 0
		printf "bench: analysis real_trace=%s bytes=%d sched_events=%d trace_bytes_per_sched_event=%.2f\n", f, b, s, s ? b / s : 0 > "/dev/stderr"
	}' 2>>"$tmp/lines"
fi
cat "$tmp/lines"
awk -v a="${cpu_of[1]}" -v b="${cpu_of[2]}" -v c="${cpu_of[4]}" 'BEGIN {
	printf "growth: 2x events took %.2fx the time, 4x took %.2fx (linear: 2 and 4)\n", b / a, c / a
	printf "bench: analysis growth_2x=%.2f growth_4x=%.2f target_events_per_s_per_core=10000000\n", b / a, c / a
}'
