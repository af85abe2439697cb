#!/usr/bin/env bash
# Runs libFuzzer targets one after another, each for a while, and prints one line
# per target: seconds, executions, corpus size and the result. Exits non-zero
# when any target found a crash, a leak, a timeout or an allocation too large.
#
#   fuzz/run.sh BUILD_DIR SECONDS TARGET...
#
# A target starts from its seeds (fuzz/corpus/TARGET/, committed; the analysis
# starts from the traces') and its working corpus (BUILD_DIR/corpus/TARGET/, kept
# between runs, where new inputs go); what it finds goes to
# BUILD_DIR/crashes/TARGET/ and its output to BUILD_DIR/logs/TARGET.log.
set -u
[ $# -ge 3 ] || { echo "usage: $0 BUILD_DIR SECONDS TARGET..." >&2; exit 2; }
build=$1 seconds=$2
shift 2

# The longest input per target: room for the largest seed and a little more.
max_len() {
	case $1 in
	trace | analysis) echo 32768 ;;
	scenario | baseline | run_json | results) echo 16384 ;;
	proc_maps) echo 8192 ;;
	*) echo 4096 ;;
	esac
}

# The seeds of a target: its own, or those of the reader it goes through.
seeds() {
	case $1 in
	analysis) echo fuzz/corpus/trace ;;
	*) echo "fuzz/corpus/$1" ;;
	esac
}

failed=0
for t in "$@"; do
	bin=$build/$t corpus=$build/corpus/$t crashes=$build/crashes/$t log=$build/logs/$t.log
	if [ ! -x "$bin" ]; then
		echo "fuzz: no target $t ($bin)" >&2
		failed=1
		continue
	fi
	mkdir -p "$corpus" "$crashes" "$build/logs"
	seeds=()
	[ -d "$(seeds "$t")" ] && seeds=("$(seeds "$t")")
	# -malloc_limit_mb: no input of these sizes needs more; a reader that asks
	# for it believed a size it read.
	"$bin" -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 \
		-rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
		-artifact_prefix="$crashes/" "$corpus" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	secs=$(sed -n 's/^stat::.*//; s/^#[0-9]*.*exec\/s.*//; s/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n1)
	inputs=$(find "$corpus" -type f | wc -l)
	if [ "$rc" -eq 0 ]; then
		result=ok
	else
		artifact=$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | tail -n1)
		result="FAILED (exit $rc): ${artifact:-see $log}"
		failed=1
	fi
	printf 'fuzz %-10s %5ss %12s execs %6s inputs  %s\n' "$t" "${secs:-?}" "${execs:-?}" \
		"$inputs" "$result"
done
exit $failed
