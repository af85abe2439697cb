#!/usr/bin/env bash
# Runs cmocka test programs and ends with the ten slowest programs and one
# summary line over all of them. Exits non-zero when any test failed.
#
#   tests/run.sh [-j N] PROGRAM... [--alone PROGRAM...]
#
# The programs before --alone run N at a time (default 1), each one's output
# shown whole as it ends; those after it run one at a time, their output as it
# comes: they record the machine, and another program beside them would be in
# their recordings and take their CPUs.
set -u
jobs=1
if [ "${1:-}" = -j ]; then
	jobs=$2
	shift 2
fi
together=() alone=()
while [ $# -gt 0 ] && [ "$1" != --alone ]; do
	together+=("$1")
	shift
done
[ $# -gt 0 ] && shift
alone=("$@")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0 broken=() times=()

# Runs program $1 into $work/NAME.out (shown as it comes too when $2 is
# "show"), its time beside it, then its exit status: NAME.rc, written last,
# says that it has ended.
run_one() {
	local t=$1 name start rc
	name=$(basename "$t")
	start=$(date +%s.%N)
	if [ "${2:-}" = show ]; then
		"$t" 2>&1 | tee "$work/$name.out"
		rc=${PIPESTATUS[0]}
	else
		"$t" >"$work/$name.out" 2>&1
		rc=$?
	fi
	awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }' >"$work/$name.time"
	echo "$rc" >"$work/$name.rc"
}

# Adds a finished program's counts, status and time to the totals.
tally() {
	local name=$1 out=$work/$1.out rc p f s
	rc=$(cat "$work/$name.rc")
	times+=("$(cat "$work/$name.time") $name")
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
	passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0})) skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ]; then
		broken+=("$name (exit $rc)")
		[ -n "$f" ] || failed=$((failed + 1))
	fi
}

# Shows and counts the programs that have ended since the last call.
report_done() {
	local rc name
	for rc in "$work"/*.rc; do
		[ -e "$rc" ] || continue
		name=$(basename "$rc" .rc)
		[ -e "$work/$name.shown" ] && continue
		cat "$work/$name.out"
		tally "$name"
		touch "$work/$name.shown"
	done
}

running=0
for t in ${together[@]+"${together[@]}"}; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
		report_done
	fi
	run_one "$t" &
	running=$((running + 1))
done
wait
report_done

for t in ${alone[@]+"${alone[@]}"}; do
	run_one "$t" show
	tally "$(basename "$t")"
done

echo
echo "slowest test programs (s):"
printf '%s\n' "${times[@]}" | sort -rn | head -n 10 | awk '{printf "  %7.1f  %s\n", $1, $2}'
[ ${#broken[@]} -eq 0 ] || echo "failing programs: ${broken[*]}"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ ${#broken[@]} -eq 0 ]
