#!/usr/bin/env bash
# bench/run.sh: the recording overhead of wperf-bench on a context-switch storm
# (what `make bench` runs; WPERF_BUILD names the build directory).
#
# The storm is `pingpong --pin CPU -d SECONDS`: two threads pinned to one CPU
# handing a turn back and forth through a condition variable, a few context
# switches and wakeups per round trip, about half a million of each a second.
# Five conditions, interleaved round by round (base floor record
# record-nostacks record-dwarf, base floor ...) so that a drift of the machine
# hits them all alike:
#   base             pingpong alone
#   floor            pingpong under build/bench/floor: empty BPF programs on the
#                    recorder's hooks, the cost no recorder on them can beat
#   record           wperf-bench record -q --stacks all -- pingpong
#   record-nostacks  wperf-bench record -q --stacks none -- pingpong
#   record-dwarf     wperf-bench record -q --stacks dwarf -- pingpong: user
#                    stacks copied (8 KiB each) instead of walked
# Per condition: the median round trips per second over the rounds and their
# spread (min..max), the throughput ratio to base, and the cost per event:
#
#   cost per event = (1/T_cond - 1/T_base) / E_cond
#
# T are round trips per second (medians), so 1/T is the time of one round trip
# and the difference is what the condition adds to each round trip; E_cond is
# the number of hook events per round trip in that condition. The ratio of two
# costs per event is free of the workload's own speed, and unlike a plain ratio
# of overheads it stays fair when a condition changes how many switches a round
# trip takes (the recorder's slowness does: more wakeup preemptions). E_cond:
#   record*  events in the trace / round trips (every sched_switch and
#            sched_waking of the storm is one recorded event)
#   floor    sched_switch + sched_waking calls, estimated from the context
#            switches the kernel counted for pingpong (floor prints its rusage):
#            every switch is one sched_switch, and every voluntary switch (a
#            block) needs one wakeup to end, so E = (2*voluntary + involuntary)
#            / round trips. On a recorded run this estimate is within 1% of the
#            trace's count.
# The cost per event is also computed round by round (each condition against
# the base of its own round) to give the spread of the recorder/floor ratio.
# The target: the recorder's cost per event at most 1.5x the floor's plus one
# clock read (what any recorder of timed events pays: bpf_ktime_get_ns, whose
# cost hookcost measures below, clock minus empty).
#
# Then, from the recorded traces (`wperf-bench info`): events per second
# (total events / window), lost events, bytes per event on disk (file size /
# total events) and bytes per scheduling event (file size / switch and wakeup
# events: an upper bound, as the file also holds stacks, symbols and tables).
#
# Other BPF programs on sched_switch or sched_waking (another recorder, a test,
# a profiler) add their cost to every condition: bpftool (when installed) and ps
# are checked around every round, and a round that had them is reported and set
# aside, as long as 3 clean rounds remain (else all rounds count and the figures
# are marked polluted). The machine should otherwise be idle: anything else on
# the storm's CPU shows up as noise in the spread.
#
# Environment: WPERF_BUILD (default build), BENCH_ROUNDS (default 5),
# BENCH_SECONDS (storm length per run, default 3), BENCH_CPU (the storm's CPU,
# default 0). Needs root. Exit status: 0 when every run worked (whether the
# targets are met or not: they are reported, not asserted), 1 otherwise.
set -u

B=${WPERF_BUILD:-build}
ROUNDS=${BENCH_ROUNDS:-5}
SECS=${BENCH_SECONDS:-3}
CPU=${BENCH_CPU:-0}
TARGET_RATIO=1.5
TARGET_BYTES=16

WPERF=$B/wperf-bench
FLOOR=$B/bench/floor
PINGPONG=$B/synthetic/pingpong
CONDITIONS=(base floor record record-nostacks record-dwarf)

die() {
	echo "bench: error: $*" >&2
	exit 1
}

case $ROUNDS in '' | *[!0-9]* | 0) die "BENCH_ROUNDS must be a positive integer, not '$ROUNDS'" ;; esac
for f in "$WPERF" "$FLOOR" "$PINGPONG"; do
	[ -x "$f" ] || die "$f is missing: build it first (make all $FLOOR)"
done
[ "$(id -u)" -eq 0 ] || die "recording needs root"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wperf-bench.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM # runs the EXIT trap

storm=("$PINGPONG" --pin "$CPU" -d "$SECS")

# What else is on the scheduler's tracepoints (see the top): one line each.
foreign_programs() {
	command -v bpftool >/dev/null 2>&1 && bpftool prog show 2>/dev/null | awk '
		/^[0-9]+:/ { for (i = 1; i < NF; i++) if ($i == "name" && $(i + 1) ~ /sched_switch|sched_waking/) print "BPF program " $1 " " $(i + 1) }'
	ps -eo pid=,args= | awk '$2 ~ /wperf-bench$/ && $3 == "record" { $1 = "process " $1 ":"; print }'
}

# One run of one condition: appends a line to $tmp/results,
#   cond round throughput trips voluntary involuntary events window lost bytes sched
# ("-" where a field does not apply).
run() {
	local cond=$1 round=$2 out=$tmp/out err=$tmp/err trace=$tmp/trace rc
	local thr trips vol="-" invol="-" events="-" window="-" lost="-" bytes="-" sched="-"

	rm -f "$trace"
	case $cond in
	base) "${storm[@]}" >"$out" 2>"$err" ;;
	floor) "$FLOOR" -- "${storm[@]}" >"$out" 2>"$err" ;;
	record) "$WPERF" record -q --stacks all -o "$trace" -- "${storm[@]}" >"$out" 2>"$err" ;;
	record-nostacks) "$WPERF" record -q --stacks none -o "$trace" -- "${storm[@]}" >"$out" 2>"$err" ;;
	record-dwarf) "$WPERF" record -q --stacks dwarf -o "$trace" -- "${storm[@]}" >"$out" 2>"$err" ;;
	esac
	rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$err" >&2
		die "$cond (round $round) failed with exit status $rc"
	fi
	thr=$(awk '/^throughput:/ { print $2; exit }' "$out")
	trips=$(awk '/^round trips:/ { print $3; exit }' "$out")
	{ [ -n "$thr" ] && [ -n "$trips" ]; } || die "$cond (round $round): no throughput in pingpong's output"
	if [ "$cond" = floor ]; then
		read -r vol invol < <(awk -F'[ =]' '/^floor: rusage:/ { print $4, $6 }' "$err")
		[ -n "$vol" ] || die "floor printed no rusage line"
	fi
	if [ "$cond" != base ] && [ "$cond" != floor ]; then
		"$WPERF" info "$trace" >"$tmp/info" 2>"$err" || {
			cat "$err" >&2
			die "wperf-bench info failed on the trace of $cond (round $round)"
		}
		read -r events window lost sched < <(awk '
			/^window:/ { w = $2 }
			/^lost events:/ { l = $3 }
			$1 == "switch" || $1 == "wakeup" || $1 == "wakeup_new" { s += $2 }
			$1 == "total" { t = $2 }
			END { print t, w, l, s + 0 }' "$tmp/info")
		bytes=$(wc -c <"$trace")
		{ [ -n "$events" ] && [ "$events" -gt 0 ]; } || die "the trace of $cond (round $round) has no events"
	fi
	echo "$cond $round $thr $trips $vol $invol $events $window $lost $bytes $sched" >>"$tmp/results"
	printf '  round %d/%d  %-16s %10.0f round trips/s\n' "$round" "$ROUNDS" "$cond" "$thr"
}

echo "storm: ${storm[*]##*/}  (${#CONDITIONS[@]} conditions x $ROUNDS rounds, interleaved)"
"$PINGPONG" --pin "$CPU" -d 1 >/dev/null 2>&1 || die "pingpong does not run" # warm-up
: >"$tmp/results"
: >"$tmp/rounds"
seen=$(foreign_programs)
for ((r = 1; r <= ROUNDS; r++)); do
	before=$seen
	for c in "${CONDITIONS[@]}"; do
		run "$c" "$r"
	done
	seen=$(foreign_programs)
	if [ -z "$before$seen" ]; then
		echo "$r 1" >>"$tmp/rounds"
	else
		echo "$r 0" >>"$tmp/rounds"
		echo "  round $r/$ROUNDS: WARNING: other BPF programs were on the scheduler's tracepoints:"
		printf '%s\n%s\n' "$before" "$seen" | sort -u | sed '/^$/d; s/^/    /'
	fi
done

# What each operation of a sched_switch program costs, timed by the kernel
# (bench/hookcost.c: one variant attached at a time, on the same storm): shown
# after the storm, and its clock read is part of the recorder's target (the
# floor plus one clock read, which any recorder of timed events must pay).
HOOKCOST=$B/bench/hookcost
[ -x "$HOOKCOST" ] || die "$HOOKCOST is missing: build it first (make $HOOKCOST)"
{
	echo
	echo "cost of each operation of a recorder program (hookcost, storm on CPU $CPU):"
	"$HOOKCOST" --cpu "$CPU"
} >"$tmp/hookcost" 2>&1 || die "hookcost failed: $(tail -n 3 "$tmp/hookcost")"
clock_ns=$(sed -n 's/^bench: hookcost clock_ns=[0-9.]* vs_empty_ns=\([0-9.]*\).*/\1/p' "$tmp/hookcost")

awk -v target_ratio="$TARGET_RATIO" -v target_bytes="$TARGET_BYTES" -v secs="$SECS" -v cpu="$CPU" \
	-v clock_ns="${clock_ns:-0}" '
function median(a, n,    i, j, t, b) {
	for (i = 1; i <= n; i++) b[i] = a[i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && b[j - 1] > b[j]; j--) { t = b[j]; b[j] = b[j - 1]; b[j - 1] = t }
	return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}
function minimum(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
function maximum(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
# Nanoseconds a condition adds per event, from throughputs t (cond) and b (base).
function cost(t, b, e) { return e > 0 ? (1e9 / t - 1e9 / b) / e : 0 }
# The name of a condition in the bench: lines: record-nostacks -> record_nostacks.
function key(c) { gsub(/-/, "_", c); return c }
FNR == NR { clean[$1] = $2; nrounds++; nclean += $2; next }
{
	c = $1; r = $2
	thr[c, r] = $3; trips[c, r] = $4
	if (c == "floor") ev[c, r] = (2 * $5 + $6) / $4
	if ($7 != "-") {
		ev[c, r] = $7 / $4; total[c, r] = $7; window[c, r] = $8
		lost[c, r] = $9; bytes[c, r] = $10; sched[c, r] = $11
	}
}
END {
	# The figures come from the clean rounds when there are enough of them
	# (3, or all of them); from every round, marked polluted, otherwise.
	polluted = nclean < (nrounds < 3 ? nrounds : 3)
	rounds = 0
	for (r = 1; r <= nrounds; r++)
		if (polluted || clean[r]) sel[++rounds] = r
	nc = split("base floor record record-nostacks record-dwarf", conds, " ")
	for (k = 1; k <= nc; k++) {
		c = conds[k]
		for (i = 1; i <= rounds; i++) { r = sel[i]; x[i] = thr[c, r]; e[i] = ev[c, r] }
		med[c] = median(x, rounds); lo[c] = minimum(x, rounds); hi[c] = maximum(x, rounds)
		epr[c] = c == "base" ? 0 : median(e, rounds)
	}
	b = med["base"]
	if (!polluted && nclean < nrounds)
		printf "\n(%d of %d rounds set aside: other BPF programs were on the scheduler'\''s tracepoints)\n", nrounds - nclean, nrounds
	printf "\nstorm throughput (round trips/s; median, min..max over %d rounds):\n", rounds
	printf "  %-16s %10s  %-23s %8s %9s %12s\n", "condition", "median", "spread", "vs base", "overhead", "events/trip"
	for (k = 1; k <= nc; k++) {
		c = conds[k]
		printf "  %-16s %10.0f  %10.0f..%-10.0f %7.3fx %8.1f%% %12s\n", c, med[c], lo[c], hi[c],
			med[c] / b, 100 * (1 - med[c] / b), c == "base" ? "-" : sprintf("%.2f", epr[c])
	}

	printf "\ncost per event = (1/T_cond - 1/T_base) / events per round trip:\n"
	for (k = 2; k <= nc; k++) {
		c = conds[k]
		cpe[c] = cost(med[c], b, epr[c])
		printf "  %-16s %7.1f ns per event  (%.0f ns added per round trip)\n", c, cpe[c], 1e9 / med[c] - 1e9 / b
	}
	ok = cpe["floor"] > 0
	for (k = 3; k <= nc; k++) {
		c = conds[k]
		if (!ok) { ratio[c] = bar[c] = "n/a"; continue }
		ratio[c] = sprintf("%.2f", cpe[c] / cpe["floor"])
		bar[c] = sprintf("%.2f", cpe[c] / (cpe["floor"] + clock_ns))
		n = 0
		for (i = 1; i <= rounds; i++) {
			r = sel[i]
			f = cost(thr["floor", r], thr["base", r], ev["floor", r])
			if (f > 0) {
				y[++n] = cost(thr[c, r], thr["base", r], ev[c, r]) / f
				z[n] = cost(thr[c, r], thr["base", r], ev[c, r]) / (f + clock_ns)
			}
		}
		rspread[c] = n ? sprintf("%.2f..%.2f over %d rounds", minimum(y, n), maximum(y, n), n) : "n/a"
		bspread[c] = n ? sprintf("%.2f..%.2f", minimum(z, n), maximum(z, n)) : "n/a"
	}
	if (ok && clock_ns > 0)
		printf "recorder cost per event = %sx the floor plus one clock read (%.1f + %.1f ns; per round: %s; target <= %.1fx: %s)\n",
			bar["record"], cpe["floor"], clock_ns, bspread["record"], target_ratio,
			bar["record"] + 0 <= target_ratio ? "met" : "MISSED"
	else if (ok)
		printf "recorder cost per event against the floor plus one clock read: n/a (hookcost gave no clock read)\n"
	if (ok) {
		printf "recorder cost per event = %sx the floor'\''s (per round: %s)\n",
			ratio["record"], rspread["record"]
		printf "recorder cost per event without stacks = %sx the floor'\''s (per round: %s)\n",
			ratio["record-nostacks"], rspread["record-nostacks"]
		printf "recorder cost per event with --stacks dwarf = %sx the floor'\''s (per round: %s)\n",
			ratio["record-dwarf"], rspread["record-dwarf"]
	} else {
		printf "recorder cost per event = n/a: the floor cost nothing measurable (floor %.0f vs base %.0f round trips/s)\n", med["floor"], b
	}

	printf "\nrecorded traces (median over %d rounds; lost: summed over them):\n", rounds
	printf "  %-16s %12s %8s %12s %14s\n", "condition", "events/s", "lost", "bytes/event", "bytes/sched ev"
	for (k = 3; k <= nc; k++) {
		c = conds[k]; lsum[c] = 0
		for (i = 1; i <= rounds; i++) {
			r = sel[i]
			eps[i] = total[c, r] / window[c, r]; bpe[i] = bytes[c, r] / total[c, r]
			bps[i] = sched[c, r] > 0 ? bytes[c, r] / sched[c, r] : 0; lsum[c] += lost[c, r]
		}
		m_eps[c] = median(eps, rounds); m_bpe[c] = median(bpe, rounds); m_bps[c] = median(bps, rounds)
		printf "  %-16s %12.0f %8d %12.2f %14.2f\n", c, m_eps[c], lsum[c], m_bpe[c], m_bps[c]
	}
	printf "  (bytes/sched ev = file size / switch and wakeup events: an upper bound; target <= %d)\n", target_bytes
	if (polluted) print "\nWARNING: other BPF programs were on the scheduler'\''s tracepoints in most rounds: the figures include their cost"

	printf "\n"
	printf "bench: storm workload=pingpong_pin%d_%ss rounds=%d of=%d%s\n", cpu, secs, rounds, nrounds, polluted ? " polluted=yes" : ""
	for (k = 1; k <= nc; k++) {
		c = conds[k]
		printf "bench: storm %s_round_trips_per_s=%.0f min=%.0f max=%.0f vs_base=%.3f overhead_pct=%.1f\n",
			key(c), med[c], lo[c], hi[c], med[c] / b, 100 * (1 - med[c] / b)
	}
	for (k = 2; k <= nc; k++)
		printf "bench: storm %s_ns_per_event=%.1f events_per_round_trip=%.2f\n", key(conds[k]), cpe[conds[k]], epr[conds[k]]
	printf "bench: storm record_cost_per_event_vs_floor_and_clock=%s clock_ns=%.1f target=%.1f %s\n",
		bar["record"], clock_ns, target_ratio,
		!ok || clock_ns <= 0 ? "n/a" : bar["record"] + 0 <= target_ratio ? "met" : "MISSED"
	printf "bench: storm record_cost_per_event_vs_floor=%s\n", ratio["record"]
	printf "bench: storm record_nostacks_cost_per_event_vs_floor=%s\n", ratio["record-nostacks"]
	printf "bench: storm record_dwarf_cost_per_event_vs_floor=%s\n", ratio["record-dwarf"]
	for (k = 3; k <= nc; k++) {
		c = conds[k]
		printf "bench: storm %s_events_per_s=%.0f lost_events=%d bytes_per_event=%.2f bytes_per_sched_event=%.2f\n",
			key(c), m_eps[c], lsum[c], m_bpe[c], m_bps[c]
	}
}' "$tmp/rounds" "$tmp/results"
rc=$? # the summary's status, kept as the script's
[ "$rc" -eq 0 ] || exit "$rc"

cat "$tmp/hookcost"
