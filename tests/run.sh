#!/usr/bin/env bash
# Runs cmocka test programs one after another, shows their output, and ends with
# the ten slowest programs and one summary line over all of them. Exits
# non-zero when any test failed.
set -u
passed=0 failed=0 skipped=0 broken=() times=()
for t in "$@"; do
	out=$(mktemp)
	start=$(date +%s.%N)
	"$t" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	times+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }') $(basename "$t")")
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
	passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0})) skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ]; then
		broken+=("$(basename "$t") (exit $rc)")
		[ -n "$f" ] || failed=$((failed + 1))
	fi
	rm -f "$out"
done
echo
echo "slowest test programs (s):"
printf '%s\n' "${times[@]}" | sort -rn | head -n 10 | awk '{printf "  %7.1f  %s\n", $1, $2}'
[ ${#broken[@]} -eq 0 ] || echo "failing programs: ${broken[*]}"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ ${#broken[@]} -eq 0 ]
