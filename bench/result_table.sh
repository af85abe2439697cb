# shellcheck shell=bash
# bench/result_table.sh: the table of docs/validation.md and of
# docs/case-studies.md, one row per scenario from its results folders, sourced
# by bench/validation.sh and bench/case_studies.sh (needs jq, and root and
# BPF to run). For NAME, the runs are in OUT/NAME and its fix's in
# OUT/NAME-fixed (optional):
#
#   run_with_fix OUT scenarios/NAME.yaml   runs it, then scenarios/NAME-fixed.yaml,
#                                          with the caller's $bench (wperf-bench)
#   result_table OUT NAME...               the table (TABLE_FIRST: its first
#                                          column's title, default "pattern")
#
# prints the table: the bottleneck found in most runs and how many found the
# expected answer; the throughput, the fix's and the speedup (medians); the
# target's longest-waiting thread and whether it is in the bottleneck (the
# wPerf paper's Table 2 question); and the checks against the kernel's
# counters (disks against io_ticks, the target's threads against schedstat,
# the runs whose confirming checks all agree).

run_with_fix() {
	local name fixed
	name=$(basename "$2" .yaml)
	fixed=$(dirname "$2")/$name-fixed.yaml
	"${bench:?}" run -q --results "$1/$name" "$2" >/dev/null || true
	[ ! -f "$fixed" ] || "$bench" run -q --results "$1/$name-fixed" "$fixed" >/dev/null || true
}

median() { jq -s 'map(select(. != null)) | sort | if length == 0 then null else .[(length - 1) / 2 | floor] end'; }

# The check lines of kind of every run of a results folder, as
# {share: |model - kernel| / denominator, ok}, one per line.
check_lines() {
	jq -c --arg kind "$2" '.window_ns as $w | .checks.lines[]? | select(.kind == $kind and .counted)
		| {d: (if .diff < 0 then -.diff else .diff end), kernel, w: $w, ok: (.status == "OK")}' \
		"$1"/runs/*/report.json
}

# "N of M OK, worst X% of the window" over the disks that did I/O.
disk_checks() {
	check_lines "$1" "disk busy" | jq -rs 'if length == 0 then "-" else
		"\(map(select(.ok)) | length) of \(length) OK, worst \(map(.d / .w * 100) | max * 100 | round / 100)% of the window (3%)" end'
}

# "N of M OK, worst X% of the kernel's" over the target's threads that ran 10 ms or more.
thread_checks() {
	check_lines "$1" "thread run" | jq -rs 'if length == 0 then "-" else
		"\(map(select(.ok)) | length) of \(length) OK, worst \(map(select(.kernel >= 10000000) | .d / .kernel * 100) | (max // 0) * 100 | round / 100)% (1%)" end'
}

result_table() {
	local out=$1
	shift
	echo "| ${TABLE_FIRST:-pattern} | bottleneck found (most runs) | expected answer found | throughput | with the fix | speedup | longest waiting thread (off-CPU ranking) | in the bottleneck? | disks vs io_ticks | target threads' running vs schedstat | runs the kernel confirms |"
	echo "|---|---|---|---:|---:|---:|---|---|---|---|---|"
	for name in "$@"; do
		base=$out/$name
		fix=$out/$name-fixed
		if [ ! -f "$base/summary.json" ]; then
			echo "| \`$name\` | run failed: see $base/log | | | | | | | | | |"
			continue
		fi
		status=$(jq -r .status "$base/summary.json")
		unit=$(jq -r .unit "$base/summary.json")
		knot=$(jq -r '[.runs[].result | if (.knots | length) > 0 then "knot " + (.knots | map(join(", ")) | join("; "))
			elif (.sinks // [] | length) > 0 then "no knot; sink " + (.sinks | join(", ")) else "none" end]
			| group_by(.) | max_by(length) | .[0]' "$base/summary.json")
		expect=$(jq -r '[.runs[] | select(.expect != null)] | if length == 0 then "no expectation" else "\(map(select(.expect.met)) | length) of \(length)" end' "$base/summary.json")
		tp=$(jq '.runs[].result.throughput' "$base/summary.json" | median)
		tpf=null
		[ ! -f "$fix/summary.json" ] || tpf=$(jq '.runs[].result.throughput' "$fix/summary.json" | median)
		speedup=$(jq -n --argjson a "$tp" --argjson b "$tpf" 'if $a == null or $b == null or $a == 0 then "-" else "\($b / $a * 100 | round / 100)x" end' -r)
		# the target's thread that waits longest, in the median run's report
		run=$(jq -r '[.runs[] | {run, t: .result.throughput}] | sort_by(.t) | .[(length - 1) / 2 | floor].run' "$base/summary.json")
		longest=$(jq -r '[.vertices[] | select(.kind == "thread" and (.ignored | not))] as $all
			| [$all[] | select(.target)] | (if length > 0 then . else $all end)
			| max_by(.waiting_ns) | .identity' "$base/runs/$run/report.json")
		inknot=$(jq -r --arg v "$longest" '[.knots[] | select(.final and .target and (.kind == "knot" or .kind == "sink")) | .identities[]] | if index($v) then "yes" else "no" end' "$base/runs/$run/report.json")
		[ "$status" = complete ] || expect="$expect (incomplete: $(jq -r .reason "$base/summary.json"))"
		fixtp="-"
		[ "$tpf" = null ] || fixtp="$tpf $unit"
		disks=$(disk_checks "$base")
		threads=$(thread_checks "$base")
		confirmed=$(jq -r '[.runs[].result.checks // empty] | if length == 0 then "no counters"
			else "\(map(select(.warn == 0)) | length) of \(length)" end' "$base/summary.json")
		echo "| \`$name\` | $knot | $expect | $tp $unit | $fixtp | $speedup | \`$longest\` | $inknot | $disks | $threads | $confirmed |"
	done
}
