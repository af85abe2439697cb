#!/usr/bin/env bash
# The performance gate for any CI, from this repository's root: builds
# nothing, runs `wperf-bench check-perf` over every scenario tagged TAG under
# scenarios/ and leaves OUT/summary.md, OUT/summary.json and OUT/junit.xml
# beside each scenario's results folder OUT/NAME/.
#
#   ci/check-perf.sh [WPERF_BENCH [OUT [TAG]]]
#       (defaults: build/wperf-bench, build/check-perf, ci)
#
# WPERF_BASE=REF judges the work tree against commit REF run in turns on this
# machine ('merge-base': where the branch started): what the templates do for
# a pull request. Without it, each scenario is judged against baselines/NAME.yaml
# (WPERF_BASELINE_REF=REF: as it is at commit REF).
#
# Exit status: check-perf's: 0 pass, 1 a new bottleneck or a regression, 2 error.
set -uo pipefail
cd "$(dirname "$0")/.."
bench=${1:-build/wperf-bench}
out=${2:-build/check-perf}
tag=${3:-ci}
args=(--tag "$tag" --results "$out")
[ -n "${WPERF_BASE:-}" ] && args+=(--base "$WPERF_BASE")
[ -n "${WPERF_BASELINE_REF:-}" ] && args+=(--baseline-ref "$WPERF_BASELINE_REF")
exec "$bench" check-perf "${args[@]}" scenarios
