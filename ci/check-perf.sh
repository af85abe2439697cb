#!/usr/bin/env bash
# The performance gate for any CI: runs every scenario tagged `ci` (or TAG)
# under scenarios/, judges each against its baseline in baselines/, and leaves
# OUT/summary.md (every verdict, in Markdown) and OUT/junit.xml (for the CI's
# test report), next to each scenario's results folder OUT/NAME/.
#
#   ci/check-perf.sh [WPERF_BENCH [OUT [TAG]]]
#       (defaults: build/wperf-bench, build/check-perf, ci; `nightly` runs the
#       real workloads, ZooKeeper and memcached)
#
# WPERF_BASELINE_REF=REF judges against the baselines as they are at commit
# REF instead of the work tree's ('merge-base': where the branch started; see
# `wperf-bench compare --help`). The templates set it for pull requests.
#
# A scenario judged `regression` is run once more (into OUT/NAME.confirm) and
# that second set is judged instead: see below.
#
# Exit status: 0 every gate passed, 1 one failed (a new bottleneck, a
# regression, a missed expected answer), 2 an error (a run that could not finish).
set -uo pipefail
cd "$(dirname "$0")/.."
bench=${1:-build/wperf-bench}
out=${2:-build/check-perf}
tag=${3:-ci}

scenarios=$("$bench" check --tag "$tag" scenarios/*.yaml) || exit 2
rm -rf "$out"
mkdir -p "$out"
status=0
dirs=() files=()
for s in $scenarios; do
	name=$(basename "$s" .yaml)
	echo "check-perf: $s"
	"$bench" run -q --results "$out/$name" "$s"
	rc=$?
	[ $rc -gt $status ] && status=$rc
	dirs+=("$out/$name")
	files+=("$s")
done
if [ ${#dirs[@]} -eq 0 ]; then
	echo "check-perf: no scenario is tagged $tag" >&2
	exit 2
fi
ref=()
[ -n "${WPERF_BASELINE_REF:-}" ] && ref=(--baseline-ref "$WPERF_BASELINE_REF")
"$bench" compare "${ref[@]}" "${dirs[@]}" >/dev/null

# A regression must show twice: a scenario judged `regression` (an edge or the
# throughput beyond tolerance and noise against a baseline stored at another
# time) runs again, and the second set is the one judged. A machine that
# drifted for a few minutes fails once, a real regression fails both times. A
# new bottleneck or a missed expected answer is not run again.
for i in "${!dirs[@]}"; do
	d=${dirs[$i]}
	[ "$(jq -r '.verdict.kind // empty' "$d/summary.json" 2>/dev/null)" = regression ] || continue
	echo "check-perf: ${files[$i]}: regression; running it again to confirm"
	"$bench" run -q --results "$d.confirm" "${files[$i]}"
	rc=$?
	[ $rc -eq 2 ] && status=2
	dirs[$i]=$d.confirm
done
"$bench" compare "${ref[@]}" --markdown "$out/summary.md" --junit "$out/junit.xml" "${dirs[@]}"
rc=$?
[ $rc -gt $status ] && status=$rc
echo "check-perf: $out/summary.md and $out/junit.xml (exit status $status)"
exit $status
