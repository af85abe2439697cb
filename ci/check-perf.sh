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
dirs=()
for s in $scenarios; do
	name=$(basename "$s" .yaml)
	echo "check-perf: $s"
	"$bench" run -q --results "$out/$name" "$s"
	rc=$?
	[ $rc -gt $status ] && status=$rc
	dirs+=("$out/$name")
done
if [ ${#dirs[@]} -eq 0 ]; then
	echo "check-perf: no scenario is tagged $tag" >&2
	exit 2
fi
ref=()
[ -n "${WPERF_BASELINE_REF:-}" ] && ref=(--baseline-ref "$WPERF_BASELINE_REF")
"$bench" compare "${ref[@]}" --markdown "$out/summary.md" --junit "$out/junit.xml" "${dirs[@]}"
rc=$?
[ $rc -gt $status ] && status=$rc
echo "check-perf: $out/summary.md and $out/junit.xml (exit status $status)"
exit $status
