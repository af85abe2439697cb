#!/usr/bin/env bash
# bench/stack_names.sh: how many frames of the servers' blocking stacks have a
# name, with stacks walked by frame pointers (--stacks all) and unwound from
# copies (--stacks dwarf), on Debian's own server binaries, built without frame
# pointers.
#
#   bench/stack_names.sh [SCENARIO...]     (default: memcached nginx mariadb)
#
# Each scenario is run once in each mode (`run -n 1 --stacks MODE`, into
# build/stack-names/NAME-MODE), and its trace's folded stacks (`report -f
# folded`) are read: for every wait of a thread of the scenario's
# analysis.target, the user frames of the blocked thread's stack (those before
# its first kernel frame). A frame is resolved when it lies in a mapping of
# the process, and named when the symbolizer found a function for it ("fsync
# (libc.so.6)"); "[memcached+0x1234]" is resolved but not named (Debian strips
# its binaries' own symbol tables: the names are in the -dbgsym packages of the
# debian-debug archive, or from debuginfod.debian.net with DEBUGINFOD_URLS set),
# "[unknown 0x...]" neither. Printed per scenario and mode: the distinct
# stacks, their mean depth (user frames per stack), the share of them that
# reach their thread's first frame (__clone3, or _start for a main thread),
# the share of frames resolved and named, and the share named weighted by the
# time waited.
#
# Needs root and BPF (it records), the servers and load generators (`make
# deps`).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${WPERF_BENCH:-build/wperf-bench}
out=${STACK_NAMES_OUT:-build/stack-names}
[ "$#" -gt 0 ] || set -- memcached nginx mariadb
mkdir -p "$out"

printf '%-10s %-6s %8s %8s %8s %10s %10s %12s\n' scenario mode stacks depth whole resolved named "named(time)"
for name in "$@"; do
	yaml=scenarios/$name.yaml
	[ -f "$yaml" ] || { echo "stack_names.sh: no $yaml" >&2; exit 2; }
	target=$(awk '/^analysis:/ { a = 1; next } /^[^ #]/ { a = 0 } a && $1 == "target:" { print $2; exit }' "$yaml")
	[ -n "$target" ] || { echo "stack_names.sh: $yaml has no analysis.target" >&2; exit 2; }
	for mode in all dwarf; do
		dir=$out/$name-$mode
		rm -rf "$dir"
		# exit 1: the run missed the scenario's expected answer; its stacks count all the same
		rc=0
		"$bench" run -q -n 1 --stacks "$mode" -r "$dir" "$yaml" > "$dir.log" 2>&1 || rc=$?
		[ "$rc" -le 1 ] || { echo "stack_names.sh: $name --stacks $mode failed (see $dir.log)" >&2; exit 1; }
		"$bench" report -f folded -o "$dir/folded" "$dir/runs/1/wperf.trace"
		awk -v target="$target" -v name="$name" -v mode="$mode" '
			{
				n = split($0, f, ";")
				if (index(f[1], target) != 1) next
				split(f[n], last, " ")
				f[n] = last[1]
				us = $NF
				stack = 0; named = 0; resolved = 0
				for (i = 2; i <= n; i++) {
					if (f[i] == "--") break
					user = f[i] ~ /^\[/ || f[i] ~ /_\(/
					if (!user) break
					stack++
					named += f[i] !~ /^\[/
					resolved += f[i] !~ /^\[unknown /
				}
				if (!stack) next
				key = $0; sub(/ [0-9]+$/, "", key)
				if (!(key in seen)) {
					seen[key] = 1; stacks++; frames += stack; nframes += named; rframes += resolved
					whole += f[2] ~ /^(__clone3|__clone|_start)_/
				}
				tframes += stack * us; tnamed += named * us
			}
			END {
				if (!stacks) { printf "%-10s %-6s %8d %8s %8s %10s %10s %12s\n", name, mode, 0, "-", "-", "-", "-", "-"; exit }
				printf "%-10s %-6s %8d %8.1f %7.0f%% %9.1f%% %9.1f%% %11.1f%%\n", name, mode, stacks,
					frames / stacks, 100 * whole / stacks, 100 * rframes / frames, 100 * nframes / frames,
					100 * tnamed / tframes
				printf "bench: stack_names scenario=%s mode=%s stacks=%d depth=%.1f whole_pct=%.0f resolved_pct=%.1f named_pct=%.1f named_time_pct=%.1f\n",
					name, mode, stacks, frames / stacks, 100 * whole / stacks, 100 * rframes / frames,
					100 * nframes / frames, 100 * tnamed / tframes > "/dev/stderr"
			}' "$dir/folded"
	done
done
