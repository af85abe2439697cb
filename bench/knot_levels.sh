#!/usr/bin/env bash
# bench/knot_levels.sh [-b WPERF_BENCH] [-a OTHER_BENCH] TRACE...: the final
# knots and sinks of each recorded trace with the old fixed cut (--min-edge
# 0.05) and with the default level (the middle of the widest range of levels
# that give the same knots: core/analysis/knot_level.h), and how many traces
# differ. For a change of the knot search, on real recordings (run sets of run,
# ab, check-perf keep runs/N/wperf.trace).
# With -a, the answers of another build (say the last commit's) at its default
# instead of the 5% cut: for any change of the model, on the same recordings.
set -euo pipefail
bench=build/wperf-bench other=
while [ $# -gt 0 ]; do
	case "$1" in
	-b) bench=$2; shift 2 ;;
	-a) other=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-b WPERF_BENCH] [-a OTHER_BENCH] TRACE..." >&2; exit 2; }
knots() { # WPERF_BENCH TRACE [OPTION...]: the level used, then one line a final knot
	local b=$1
	shift
	"$b" report -f json "$@" | jq -r '(.params.min_edge * 1000 | round / 10 | tostring) + "%",
		(.knots[] | select(.final) | .kind + " " + (.identities | join(",")))'
}
if [ -n "$other" ]; then
	label="$other" short=other
else
	label="5%" short=5%
fi
same=0 differ=0
for t in "$@"; do
	if [ -n "$other" ]; then
		old=$(knots "$other" "$t" | tail -n +2 | sort)
	else
		old=$(knots "$bench" "$t" --min-edge 0.05 | tail -n +2 | sort)
	fi
	new=$(knots "$bench" "$t")
	level=$(head -1 <<<"$new")
	new=$(tail -n +2 <<<"$new" | sort)
	if [ "$old" = "$new" ]; then
		same=$((same + 1))
		echo "same    level $level  $t"
	else
		differ=$((differ + 1))
		echo "DIFFERS level $level  $t"
		{ diff <(echo "$old") <(echo "$new") || true; } |
			sed -n "s/^</    $short: /p; s/^>/    this:  /p"
	fi
done
echo "knot_levels: $same of $# traces have the same final knots with $bench as with $label, $differ differ"
