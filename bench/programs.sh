#!/usr/bin/env bash
# bench/programs.sh: what each BPF program of the recorder costs. Part of
# `make bench`.
#
# The kernel times every BPF program when kernel.bpf_stats_enabled is 1: a
# run count and the run time, a clock read on each side of the call (set for
# the script, restored at its end). While `wperf-bench record` records a mixed
# load for BENCH_PROGRAMS_SECONDS (default 5) - the context-switch storm pinned
# to CPU 0 (switches and wakeups), synthetic/rpc over loopback with no work
# per request (packets, softirqs) and synthetic/fig1 writing with O_DIRECT
# (block requests) - the script reads each of its programs' counts (from the
# recorder's file descriptors, /proc/PID/fdinfo), once with --stacks all and
# once with --stacks none, rounds interleaved (BENCH_ROUNDS, default 3).
#
# Per program, the median over the rounds: ns a run, runs a second, its part
# of all the recorder's programs' time, and the runs the kernel skipped
# because the program was already running on that CPU (recursion misses,
# summed: a skipped run is a record lost that no counter of the recorder
# sees). The difference between the two conditions on the scheduler's
# programs is what the stacks cost. The ns
# include the stats' own clock reads (bench/hookcost's empty program shows
# how much); what the hook costs before a program runs is the floor's
# (bench/run.sh).
#
# Environment: WPERF_BUILD (default build), BENCH_PROGRAMS_SECONDS,
# BENCH_ROUNDS. Needs root and bpftool. Exit status 0 when every round worked,
# 1 otherwise.
set -u

B=${WPERF_BUILD:-build}
SECS=${BENCH_PROGRAMS_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
tmp=$(mktemp -d /var/tmp/wperf-bench-programs-XXXXXX)
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
trap 'echo "$stats_was" >/proc/sys/kernel/bpf_stats_enabled; rm -rf "$tmp"' EXIT

die() {
	echo "programs: $*" >&2
	exit 1
}

command -v bpftool >/dev/null 2>&1 || die "bpftool is missing (make deps)"
command -v jq >/dev/null 2>&1 || die "jq is missing (make deps)"
for p in wperf-bench synthetic/pingpong synthetic/rpc synthetic/fig1; do
	[ -x "$B/$p" ] || die "$B/$p is missing: build it first (make)"
done
echo 1 >/proc/sys/kernel/bpf_stats_enabled || die "cannot enable kernel.bpf_stats_enabled"

# The load, for SECS seconds.
cat >"$tmp/load.sh" <<EOF
"$B/synthetic/pingpong" --pin 0 -d "$SECS" >/dev/null &
"$B/synthetic/rpc" --client-ms 0 --server-ms 0 -d "$SECS" >/dev/null &
"$B/synthetic/fig1" --duration "$SECS" --direct --write-bytes 65536 --file "$tmp/fig1.data" >/dev/null &
wait
EOF

# One round of one condition: "NAME RUN_NS RUNS" per program into $tmp/$1.$2.
measure() {
	local stacks=$1 round=$2 pid
	rm -f "$tmp/ready"
	"$B/wperf-bench" record -q --stacks "$stacks" -o "$tmp/x.trace" --ready-file "$tmp/ready" \
		-d $((SECS + 3)) 2>"$tmp/record.err" &
	pid=$!
	for _ in $(seq 100); do
		[ -e "$tmp/ready" ] && break
		sleep 0.1
	done
	[ -e "$tmp/ready" ] || die "the recorder did not start: $(tail -n 2 "$tmp/record.err")"
	bash "$tmp/load.sh"
	# the programs' counts, before the recorder detaches them: each program
	# fd of the recorder tells its id and counts (fdinfo), bpftool its name
	bpftool prog show -j | jq -r '.[] | "\(.id) \(.name)"' >"$tmp/names"
	awk '/^prog_id:/ { id = $2 } /^run_time_ns:/ { ns = $2 } /^run_cnt:/ { n = $2 }
		/^recursion_misses:/ { if (n > 0) print id, ns, n, $2 }' /proc/"$pid"/fdinfo/* 2>/dev/null |
		awk 'NR == FNR { name[$1] = $2; next } { print name[$1], $2, $3, $4 }' "$tmp/names" - \
		>"$tmp/$stacks.$round"
	wait "$pid" || die "record --stacks $stacks failed: $(tail -n 2 "$tmp/record.err")"
	[ -s "$tmp/$stacks.$round" ] || die "no program of the recorder (pid $pid) ran"
}

for r in $(seq "$ROUNDS"); do
	for stacks in all none; do
		measure "$stacks" "$r"
	done
done

echo "programs: what each program of record costs, timed by the kernel ($ROUNDS rounds of $SECS s:"
echo "  the storm on CPU 0, rpc over loopback, fig1 with O_DIRECT; medians over the rounds)"
for stacks in all none; do
	cat "$tmp/$stacks".* | awk -v stacks="$stacks" -v secs="$SECS" -v rounds="$ROUNDS" '
	function median(list,    a, n, i, j, t) {
		n = split(list, a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		name = $1; sub(/^(tp_btf|raw_tp)_/, "", name)
		ns[name] = ns[name] " " $2 / $3; runs[name] = runs[name] " " $3 / secs
		total[name] += $2; missed[name] += $4
		names[name] = 1
	}
	END {
		for (n in names) all += total[n]
		printf "\n  --stacks %s\n  %-28s %10s %12s %8s %8s\n", stacks, "program", "ns/run", "runs/s", "time",
			"missed"
		for (n in names)
			printf "  %-28s %10.0f %12.0f %7.1f%% %8d\n", n, median(ns[n]), median(runs[n]),
				100 * total[n] / all, missed[n] | "sort -k4 -rn"
		close("sort -k4 -rn")
		for (n in names)
			printf "bench: programs stacks=%s program=%s ns_per_run=%.0f runs_per_s=%.0f time_share=%.3f recursion_misses=%d\n",
				stacks, n, median(ns[n]), median(runs[n]), total[n] / all, missed[n] > "/dev/stderr"
	}' 2>>"$tmp/lines"
done
echo
sort "$tmp/lines"
