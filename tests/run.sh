#!/usr/bin/env bash
# Runs cmocka test programs and ends with the ten slowest programs and one
# summary line over all of them. Exits non-zero when any test failed. A
# PROGRAM named *.sh is a check run by bash, which passes by its exit status.
#
#   tests/run.sh [-j N] PROGRAM... [--beside PROGRAM...] [--alone PROGRAM...]
#
# The programs before --beside run N at a time (default 1), each one's output
# shown whole as it ends. Those after --beside run one at a time beside them:
# they record the machine but assert nothing of what else it does, and one
# recording at a time keeps each recorder's programs its own. Those after
# --alone run one at a time after all of these, their output as it comes: they
# judge what they record, and another program beside them would be in their
# recordings and take their CPUs.
set -u
jobs=1
if [ "${1:-}" = -j ]; then
	jobs=$2
	shift 2
fi
together=() beside=() alone=()
list=together
for arg in "$@"; do
	case $arg in
	--beside) list=beside ;;
	--alone) list=alone ;;
	*)
		case $list in
		together) together+=("$arg") ;;
		beside) beside+=("$arg") ;;
		*) alone+=("$arg") ;;
		esac
		;;
	esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0 broken=() times=()

# Runs program $1 into $work/NAME.out (shown as it comes too when $2 is
# "show"), its time beside it, then its exit status: NAME.rc, written last,
# says that it has ended.
run_one() {
	local t=$1 name start rc cmd=("$1")
	name=$(basename "$t")
	[[ $t == *.sh ]] && cmd=(bash "$t")
	start=$(date +%s.%N)
	if [ "${2:-}" = show ]; then
		"${cmd[@]}" 2>&1 | tee "$work/$name.out"
		rc=${PIPESTATUS[0]}
	else
		"${cmd[@]}" >"$work/$name.out" 2>&1
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

# Shows the output of the programs that have ended since the last call.
show_done() {
	local rc name
	for rc in "$work"/*.rc; do
		[ -e "$rc" ] || continue
		name=$(basename "$rc" .rc)
		[ -e "$work/$name.shown" ] && continue
		cat "$work/$name.out"
		touch "$work/$name.shown"
	done
}

# The programs before --beside, N at a time; only this shell shows outputs
# until both it and the one-at-a-time line beside it have ended.
run_together() {
	local running=0 t
	for t in ${together[@]+"${together[@]}"}; do
		if [ "$running" -ge "$jobs" ]; then
			wait -n
			running=$((running - 1))
			show_done
		fi
		run_one "$t" &
		running=$((running + 1))
	done
	wait
	show_done
}

run_beside() {
	local t
	for t in ${beside[@]+"${beside[@]}"}; do
		run_one "$t"
	done
}

run_together &
run_beside &
wait
show_done
for rc in "$work"/*.rc; do
	[ -e "$rc" ] && tally "$(basename "$rc" .rc)"
done

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
