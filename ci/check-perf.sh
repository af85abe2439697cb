#!/usr/bin/env bash
# The performance gate for any CI: a thin caller of `wperf-bench check-perf`,
# which finds the repository's root, its .wperf-bench.yaml (scenario folders,
# baselines, tag, results, variables) and leaves OUT/summary.md,
# OUT/summary.json and OUT/junit.xml beside each scenario's results OUT/NAME/.
# It works from any folder of the repository.
#
#   ci/check-perf.sh [WPERF_BENCH [OUT [TAG]]]
#       (defaults: wperf-bench on $PATH, else this repository's build/wperf-bench;
#        the config's results and tag, else build/check-perf and ci)
#
# WPERF_BASE=REF judges the work tree against commit REF run in turns on this
# machine ('merge-base': where the branch started): what the templates do for
# a pull request. Without it, each scenario is judged against its stored
# baseline (WPERF_BASELINE_REF=REF: as it is at commit REF). WPERF_SHARD=I/N
# runs share I of N (a CI matrix; merge with check-perf --merge).
#
# Exit status: check-perf's: 0 pass, 1 a new bottleneck or a regression, 2 error.
set -uo pipefail
default=$(command -v wperf-bench || echo "$(dirname "$0")/../build/wperf-bench")
bench=${1:-$default}
args=()
[ -n "${2:-}" ] && args+=(--results "$2")
[ -n "${3:-}" ] && args+=(--tag "$3")
[ -n "${WPERF_BASE:-}" ] && args+=(--base "$WPERF_BASE")
[ -n "${WPERF_BASELINE_REF:-}" ] && args+=(--baseline-ref "$WPERF_BASELINE_REF")
[ -n "${WPERF_SHARD:-}" ] && args+=(--shard "$WPERF_SHARD")
exec "$bench" check-perf "${args[@]}"
