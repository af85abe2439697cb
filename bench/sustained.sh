#!/usr/bin/env bash
# bench/sustained.sh: does the recorder keep up with a sustained storm on every
# CPU? Part of `make bench`. The target: no event lost at 1 million events per
# second (SPEC.md, Targets).
#
# One pingpong storm pinned to each CPU (two threads handing a turn back and
# forth: a switch and a wakeup per hand-over) for BENCH_SUSTAINED_SECONDS
# (default 10), recorded as `wperf-bench record` records by default (stacks
# all, 32 MiB ring buffer), and again with --stacks none. Prints, per
# condition: the events recorded per second over the window, the events lost,
# and whether the rate reached 1M/s with nothing lost.
#
# Environment: WPERF_BUILD (default build), BENCH_SUSTAINED_SECONDS. Needs
# root. Exit status: 0 when every recording worked (the target is reported,
# not asserted), 1 otherwise.
set -u

B=${WPERF_BUILD:-build}
SECS=${BENCH_SUSTAINED_SECONDS:-10}
TARGET=1000000
tmp=$(mktemp -d /var/tmp/wperf-bench-sustained-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
status=0

# A storm on every CPU, for SECS seconds, as one command the recorder starts.
cat >"$tmp/storms.sh" <<EOF
for cpu in \$(seq 0 \$((\$(nproc) - 1))); do
	"$B/synthetic/pingpong" --pin "\$cpu" -d "$SECS" >/dev/null &
done
wait
EOF

echo "sustained: a pingpong storm pinned to each of $(nproc) CPUs for $SECS s, recorded"
printf '  %-16s %12s %10s %12s  %s\n' stacks events/s lost bytes/event "target: >= 1M/s, 0 lost"
for stacks in all none; do
	trace="$tmp/$stacks.trace"
	if ! "$B/wperf-bench" record -q --stacks "$stacks" -o "$trace" -- bash "$tmp/storms.sh"; then
		echo "sustained: recording with --stacks $stacks failed" >&2
		status=1
		continue
	fi
	"$B/wperf-bench" info "$trace" >"$tmp/info"
	awk -v stacks="$stacks" -v target="$TARGET" -v bytes="$(stat -c %s "$trace")" '
		/^window:/ { window = $2 }
		/^lost events:/ { lost = $3 }
		/^  total +[0-9]+$/ { total = $2 }
		END {
			eps = total / window
			verdict = eps >= target && lost == 0 ? "met" : "MISSED"
			printf "  %-16s %12.0f %10d %12.2f  %s\n", stacks, eps, lost, bytes / total, verdict
			printf "bench: sustained stacks=%s events_per_s=%.0f lost_events=%d bytes_per_event=%.2f target_events_per_s=%d %s\n",
				stacks, eps, lost, bytes / total, target, verdict > "/dev/stderr"
		}' "$tmp/info" 2>>"$tmp/lines"
done
cat "$tmp/lines" 2>/dev/null
exit $status
