#!/usr/bin/env bash
# bench/knot_levels.sh [-b WPERF_BENCH] TRACE...: the final knots and sinks of
# each recorded trace with the old fixed cut (--min-edge 0.05) and with the
# default level (the middle of the widest range of levels that give the same
# knots: core/analysis/knot_level.h), and how many traces differ. For a change
# of the knot search, on real recordings (run sets of run, ab, check-perf keep
# runs/N/wperf.trace).
set -euo pipefail
bench=build/wperf-bench
if [ "${1:-}" = -b ]; then
	bench=$2
	shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [-b WPERF_BENCH] TRACE..." >&2; exit 2; }
knots() { # TRACE [OPTION...]: the level used, then one line a final knot
	"$bench" report -f json "$@" | jq -r '(.params.min_edge * 1000 | round / 10 | tostring) + "%",
		(.knots[] | select(.final) | .kind + " " + (.identities | join(",")))'
}
same=0 differ=0
for t in "$@"; do
	old=$(knots "$t" --min-edge 0.05 | tail -n +2 | sort)
	new=$(knots "$t")
	level=$(head -1 <<<"$new")
	new=$(tail -n +2 <<<"$new" | sort)
	if [ "$old" = "$new" ]; then
		same=$((same + 1))
		echo "same    level $level  $t"
	else
		differ=$((differ + 1))
		echo "DIFFERS level $level  $t"
		{ diff <(echo "$old") <(echo "$new") || true; } | sed -n 's/^</    5%:    /p; s/^>/    level: /p'
	fi
done
echo "knot_levels: $same of $# traces have the same final knots at the level as at 5%, $differ differ"
