#!/usr/bin/env bash
# bench/same_reports.sh OLD NEW: whether two wperf-bench binaries write the same
# reports, byte for byte, on every committed trace (tests/data/*.trace), in
# every format, with one analysis thread and with two, and the same verdicts
# (compare: its output, verdict.md, JUnit) on the committed run sets. For a change that must
# not change behaviour (a refactoring): build the old commit's binary, then
#   bash bench/same_reports.sh /tmp/old/wperf-bench build/wperf-bench
# Prints each difference, and a count; exits 1 if there was one.
set -u
old=$1 new=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 diffs=0
for trace in tests/data/*.trace; do
	for format in text json dot folded perfetto; do
		for jobs in 1 2; do
			"$old" report -j "$jobs" -f "$format" -o "$tmp/old" "$trace" 2>"$tmp/old.err"
			"$new" report -j "$jobs" -f "$format" -o "$tmp/new" "$trace" 2>"$tmp/new.err"
			n=$((n + 1))
			if ! cmp -s "$tmp/old" "$tmp/new" || ! cmp -s "$tmp/old.err" "$tmp/new.err"; then
				diffs=$((diffs + 1))
				echo "differs: $trace -f $format -j $jobs"
				diff "$tmp/old" "$tmp/new" | head -5
			fi
		done
	done
done
for results in tests/data/results/fig1-*/; do
	for bin in old new; do
		rm -rf "$tmp/$bin.d" && cp -r "$results" "$tmp/$bin.d"
		"${!bin}" compare --baseline baselines/synthetic-fig1.yaml \
			--junit "$tmp/$bin.d/all.xml" "$tmp/$bin.d" >"$tmp/$bin" 2>&1
		echo "exit $?" >>"$tmp/$bin"
		cat "$tmp/$bin.d/verdict.md" "$tmp/$bin.d/junit.xml" "$tmp/$bin.d/all.xml" \
			>>"$tmp/$bin" 2>/dev/null
	done
	n=$((n + 1))
	if ! cmp -s <(sed "s|$tmp/old.d|D|g" "$tmp/old") <(sed "s|$tmp/new.d|D|g" "$tmp/new"); then
		diffs=$((diffs + 1))
		echo "differs: compare $results"
		diff "$tmp/old" "$tmp/new" | head -5
	fi
done
echo "same_reports: $((n - diffs)) of $n reports identical"
[ "$diffs" -eq 0 ]
