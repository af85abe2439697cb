#!/usr/bin/env bash
# bench/gate_rates.sh: the gate's error rates and power, simulated (what `make
# bench` prints after the recorder's figures; WPERF_BUILD names the build
# directory). build/bench/gate_sim judges run sets drawn from recorded runs of
# identical code with the real verdict and looks, as one check over all the
# corpus's scenarios: the false-failure rate of the whole check, then each
# scenario's power against throughput changes of -2..-40% and a vertex new in
# 30..100% of the head's runs.
#
# The corpus: CORPUS=DIR, a results folder of `bench/gate_trials.sh corpus`
# (each scenario's base/ and head/ pooled), else the part of one committed
# under tests/data/corpus (three ci scenarios, 20 runs a side).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WPERF_BUILD:-build}
corpus=${CORPUS:-tests/data/corpus}
dirs=()
for d in "$corpus"/*/; do
	[ -d "$d/base" ] && [ -d "$d/head" ] && dirs+=("${d%/}")
done
[ ${#dirs[@]} -gt 0 ] || { echo "gate_rates.sh: no scenario folder (base/, head/) in $corpus" >&2; exit 2; }
"$build/bench/gate_sim" --trials "${TRIALS:-2000}" --curve "${dirs[@]}"
